"""A real small language model (Gemma 3 270M through llama.cpp's server, one thread): what it does
with the paper's prompt, not what it knows. Completions give a letter and more text (lenient),
chat gives free text, a grammar gives exactly one letter (strict); replies, parse counts, letter
distribution and levels are stored and reported."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store
from tests.core.llm.conftest import ITEMS as PROJECT_ITEMS
from tests.support.llama_server import ALIAS, llama_server, missing

# One thread generates twelve replies: minutes when other jobs share the machine's two cores.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
ITEMS = ["wiki:1", "globi:1", "bio:1", "xc:1"]
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def llama_url() -> Iterator[str]:
    reason = missing()
    if reason:
        pytest.skip(f"no real model: {reason}")
    with llama_server() as url:
        yield url


def evaluate(project: Path, url: str, label: str, *extra: str) -> int:
    return run(["evaluate", str(project), "--model", ALIAS, "--label", label, "--base-url", url,
                "--max-tokens", "6", "--concurrency", "1", "--timeout", "120", "--retries", "1",
                "--items", *ITEMS, *extra])  # fmt: skip


def stored(project: Path, label: str) -> list[dict[str, object]]:
    with Store.open(project, read_only=True) as store:
        return store.llm.all_answers(label)


def test_real_model_completions_chat_and_grammar(
    llm_project: Path, llama_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Plain completions: a letter first, then more text.
    assert evaluate(llm_project, llama_url, "gemma-completions", "--api-style", "completions") in (
        0,
        1,
    )
    completions = stored(llm_project, "gemma-completions")
    assert len(completions) == len(ITEMS)
    assert all(a["parse"] != "failed" and a["raw_reply"] for a in completions)
    assert all(a["completion_tokens"] and a["latency_ms"] for a in completions)
    # Grammar-constrained: exactly one letter every time.
    assert evaluate(llm_project, llama_url, "gemma-grammar", "--api-style", "completions",
                    "--grammar") == 0  # fmt: skip
    grammar = stored(llm_project, "gemma-grammar")
    assert {a["parse"] for a in grammar} == {"strict"}
    assert all(a["raw_reply"] in ("A", "B", "C", "D") for a in grammar)
    # Chat with the model's template: replies stored whatever they are, counted by parse.
    status = evaluate(llm_project, llama_url, "gemma-chat")
    chat = stored(llm_project, "gemma-chat")
    assert len(chat) == len(ITEMS) and all(a["parse"] != "failed" for a in chat)
    assert status == (1 if any(a["parse"] == "invalid" for a in chat) else 0)
    # What the studio reports about them: parse counts, letter distribution, levels.
    capsys.readouterr()
    assert run(["stats", str(llm_project), "--json"]) == 0
    models = json.loads(capsys.readouterr().out)["models"]
    for label, answers in (("gemma-grammar", grammar), ("gemma-completions", completions)):
        letters = models[label]["letters"]
        assert sum(sum(v.values()) for v in letters.values()) == sum(
            1 for a in answers if a["letter"]
        )
        assert models[label]["answered"] == len(ITEMS)
    assert (
        run(
            ["levels", str(llm_project), "--models", "gemma-grammar", "gemma-completions", "--json"]
        )
        == 1
    )  # fmt: skip  (the two items not asked have no level)
    table = json.loads(capsys.readouterr().out)["levels"]
    assert sum(sum(v.values()) for v in table.values()) == len(ITEMS)
    report = {label: [(a["parse"], a["letter"], a["raw_reply"]) for a in stored(llm_project, label)]
              for label in ("gemma-completions", "gemma-grammar", "gemma-chat")}  # fmt: skip
    print(json.dumps(report, indent=1))  # in the test log: what the real model did


def test_real_model_judges_an_article_longer_than_its_context(
    llama_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The whole Koala article does not fit Gemma's 2,048 tokens. llama-cpp-python's server says
    # no context size until a request is refused ("maximum context length is 2048 tokens"):
    # the judge then asks once more with the evidence cut to fit, counted by the server's own
    # tokenizer (/extras/tokenize/count), and stores how much was sent.
    from tests.core.llm.test_context_fit import KOALA, QUESTION

    koala = tmp_path / "koala.bagel"
    with Store.open(koala, owner="test") as store:
        store.evidence.add_texts([{"key": "wikipedia:Koala", "kind": "wikipedia",
                                   "title": "Koala", "text": KOALA, "truncated": 0}],
                                 None)  # fmt: skip
        content = ItemContent(QUESTION, ("4", "8", "12", "20"), 3, "Behavior")
        store.items.add_items([NewItem("wiki:koala:0", "Wikipedia", content,
                                       text_key="title:Koala")], None)  # fmt: skip
    status = run(["judge", str(koala), "--model", ALIAS, "--label", "gemma-judge", "--base-url",
                  llama_url, "--concurrency", "1", "--timeout", "300", "--retries", "0",
                  "--json"])  # fmt: skip
    summary = json.loads(capsys.readouterr().out)
    with Store.open(koala, read_only=True) as store:
        verdict = store.llm.verdicts_for_item("wiki:koala:0")[0]
    print(json.dumps(verdict, indent=1, default=str))  # in the test log: what the model said
    assert verdict["error"] is None or "context" not in str(verdict["error"])  # it was asked
    assert status == (0 if verdict["verdict"] else 1)
    note = str(verdict["evidence_note"])
    assert "to fit the model's context of 2,048 tokens (the server's error message" in note
    assert verdict["evidence_total_chars"] == len(KOALA)
    assert int(verdict["evidence_chars"]) < len(KOALA)
    assert summary["shortened"]["wiki:koala:0"] == note


def test_real_model_regenerates_from_an_article_longer_than_its_context(
    llama_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The paper's Wikipedia prompt around the whole Koala article is five times Gemma's context:
    # refused once, then sent with only the article cut to fit, the reply given the room left.
    from tests.core.llm.test_context_fit import KOALA, QUESTION

    koala = tmp_path / "regenerate.bagel"
    with Store.open(koala, owner="test") as store:
        store.evidence.add_texts([{"key": "wikipedia:Koala", "kind": "wikipedia",
                                   "title": "Koala", "text": KOALA, "truncated": 0}],
                                 None)  # fmt: skip
        content = ItemContent(QUESTION, ("4", "8", "12", "20"), 3, "Behavior")
        store.items.add_items([NewItem("wiki:koala:0", "Wikipedia", content,
                                       text_key="title:Koala")], None)  # fmt: skip
    status = run(["regenerate", str(koala), "wiki:koala:0", "--model", ALIAS, "--label",
                  "gemma-generator", "--base-url", llama_url, "--timeout", "300", "--retries",
                  "0", "--json"])  # fmt: skip
    summary = json.loads(capsys.readouterr().out)
    with Store.open(koala, read_only=True) as store:
        record = store.llm.regenerations("wiki:koala:0")[0]
    print(json.dumps(record, indent=1, default=str))  # in the test log: what the model wrote
    assert record["outcome"] != "failed", record["reason"]  # asked, and it answered
    assert record["raw_reply"]
    assert status == (0 if record["outcome"] == "created" else 1)
    note = str(record["evidence_note"])
    assert "to fit the model's context of 2,048 tokens (the server's error message" in note
    assert record["evidence_total_chars"] == len(KOALA) > int(record["evidence_chars"])
    assert summary["shortened"]["wiki:koala:0"] == note


class Counting:
    """A relay on 127.0.0.1 in front of llama.cpp's server that counts the chat requests it
    passes on and the replies it hands back, so the test sees what left the command and when."""

    def __init__(self, upstream: str) -> None:
        self.upstream, self.requests, self.replies = upstream, 0, 0
        self.lock = threading.Lock()
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def _relay(self, body: bytes | None) -> None:
                request = urllib.request.Request(
                    relay.upstream + self.path.removeprefix("/v1"), data=body,
                    method=self.command, headers={"Content-Type": "application/json"},
                )  # fmt: skip
                try:
                    with urllib.request.urlopen(request, timeout=600) as answer:
                        status, data = answer.status, answer.read()
                except urllib.error.HTTPError as refused:
                    status, data = refused.code, refused.read()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._relay(None)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                asks = self.path.endswith("/chat/completions")
                with relay.lock:
                    relay.requests += asks
                self._relay(body)
                with relay.lock:
                    relay.replies += asks

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def counts(self) -> tuple[int, int]:
        with self.lock:
            return self.requests, self.replies

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_real_model_sigterm_stops_evaluate_and_keeps_what_arrived(
    llm_project: Path, llama_url: str
) -> None:
    # The case: against llama.cpp, SIGTERM left evaluate sending for 5.5 minutes and
    # storing none of 57 replies. Here it must stop sending at once, store the replies in flight
    # and exit (143) within the request timeout.
    relay = Counting(llama_url)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "bagel_studio", "evaluate", str(llm_project), "--model", ALIAS,
             "--label", "gemma-term", "--base-url", relay.url, "--max-tokens", "24",
             "--concurrency", "2", "--timeout", "120", "--retries", "0"],
            env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 600
        # One reply back and at least one request in flight (the server answers one at a time).
        while relay.counts()[1] < 1 or relay.counts()[0] - relay.counts()[1] < 1:
            assert process.poll() is None and time.monotonic() < deadline, process.poll()
            time.sleep(0.02)
        _, replied = relay.counts()
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=300)
        took = time.monotonic() - signalled
        sent, _ = relay.counts()
    finally:
        relay.close()
    answers = stored(llm_project, "gemma-term")
    print(f"SIGTERM after {replied} replies: exit {process.returncode} after {took:.1f} s, "
          f"{sent} requests sent, {len(answers)} answers stored")  # fmt: skip
    assert process.returncode == 143, err
    assert "Traceback" not in err
    assert took < 120, f"{took:.1f} s: more than the request timeout"
    assert sent <= replied + 2, "no request may leave after the signal (two at a time)"
    assert len(answers) == sent < len(PROJECT_ITEMS), "every reply that came back is stored"
    assert re.fullmatch(
        r"terminated: no request was sent after the signal; the (1 reply|2 replies) in flight "
        r"arrived and (is|are) stored; run the same command again to resume",
        err.strip().splitlines()[-1],
    ), err
