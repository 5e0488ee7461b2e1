"""A server's reply is read up to ``REPLY_LIMIT`` bytes and no further: a reply of a gigabyte costs
a megabyte of memory and is stored cut, with a note saying so; a redirect to another host is
refused with one line (the key would follow it). Real servers on 127.0.0.1 through the real
openai client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.llm.client import REPLY_LIMIT
from bagel_studio.core.store import Store
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer

ROOT = Path(__file__).resolve().parents[3]
GIGABYTE = 1 << 30
pytestmark = pytest.mark.timeout(120)


def answers(path: Path, label: str) -> dict[str, dict[str, object]]:
    with Store.open(path, read_only=True) as store:
        return {str(a["item_id"]): a for a in store.llm.all_answers(label)}


@pytest.mark.parametrize("api_style", ["chat", "completions"])
def test_a_gigabyte_reply_is_read_to_the_limit_and_stored_cut_with_a_note(
    api_style: str,
    llm_project: Path,
    scripted: ScriptedServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    scripted.fail_next("huge", question="barn owl", size=GIGABYTE)
    status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  "--api-style", api_style, "--json"])  # fmt: skip
    summary = json.loads(capsys.readouterr().out)
    assert status == 0 and summary["strict"] + summary["lenient"] == len(ITEMS)
    assert summary["cut"] == 1
    # The download stopped at the limit: what the server wrote before the client hung up is
    # the limit and what the sockets' buffers held, not a gigabyte.
    assert scripted.sent_bytes < REPLY_LIMIT + 16 * (1 << 20)
    answer = answers(llm_project, "gold")["wiki:1"]
    assert answer["parse"] == "lenient" and answer["letter"] == "A" and answer["correct"] == 1
    reply = str(answer["raw_reply"])
    assert reply.startswith("A and so on") and len(reply.encode()) <= REPLY_LIMIT
    assert answer["reply_note"] == (
        f"cut at {REPLY_LIMIT // (1 << 20)} MiB: the server sent more (1,073,741,824 bytes "
        "announced); the rest was not read"
    )
    assert answers(llm_project, "gold")["wiki:2"]["reply_note"] is None


def test_the_cut_is_said_on_the_command_line(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.fail_next("huge", times=2, question="o", size=10 * (1 << 20))
    assert run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url]) == 0
    out = capsys.readouterr().out
    assert "2 replies were cut at 1 MiB (the server sent more; the rest was not read)" in out


def peak_memory(pid: int) -> int:
    """The process's peak resident memory so far, in bytes (``VmHWM``, of its own program: the
    ``ru_maxrss`` of a child counts the memory of the process it was forked from); 0 once it
    has ended."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = next((line for line in status.splitlines() if line.startswith("VmHWM:")), "")
    return int(found.split()[1]) * 1024 if found else 0


def test_a_gigabyte_reply_never_takes_a_gigabyte_of_memory(llm_project: Path) -> None:
    with ScriptedServer() as server:
        server.fail_next("huge", times=len(ITEMS), size=GIGABYTE)
        command = [sys.executable, "-m", "bagel_studio", "evaluate", str(llm_project),
                   "--model", "gold", "--base-url", server.url, "--concurrency", "2"]  # fmt: skip
        process = subprocess.Popen(
            command, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        peak = 0
        while process.poll() is None:
            peak = max(peak, peak_memory(process.pid))
            time.sleep(0.01)
        out, err = process.communicate()
    assert process.returncode == 0, err
    assert 0 < peak < 400 * (1 << 20), f"peak {peak / (1 << 20):.0f} MiB"
    assert "6 replies were cut" in out


def test_a_redirect_to_another_host_is_refused_with_one_line(
    llm_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedServer() as elsewhere, ScriptedServer() as server:
        other = elsewhere.url.replace("127.0.0.1", "localhost")
        server.redirect_models = other + "/models"
        status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", server.url])
        err = capsys.readouterr().err.strip().splitlines()
        assert status == 2 and len(err) == 1, err
        assert f"redirects to {other}/models" in err[0] and "another host" in err[0]
        assert "not followed" in err[0]
        # A redirect of the requests themselves stops the run: every one would meet it.
        server.redirect_models = None
        server.fail_next("redirect", times=len(ITEMS), location=other + "/chat/completions")
        status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", server.url,
                      "--concurrency", "1"])  # fmt: skip
        err = capsys.readouterr().err
        assert status == 2 and "another host" in err and "no more were sent" in err
        assert elsewhere.total() == 0
        assert server.total() == 3  # two listings and the one request refused


def test_a_redirect_on_the_same_host_is_followed(
    llm_project: Path, scripted: ScriptedServer
) -> None:
    scripted.fail_next("redirect", question="barn owl", location=scripted.url + "/completions")
    assert run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                "--api-style", "completions"]) == 0  # fmt: skip
    assert answers(llm_project, "gold")["wiki:1"]["parse"] == "strict"


def test_the_text_of_a_cut_reply_is_read_to_the_cut() -> None:
    from bagel_studio.core.llm.client import partial_text

    chat = b'{"choices": [{"message": {"role": "assistant", "content": "B, since \\u00e9t'
    assert partial_text(chat) == "B, since ét"
    assert partial_text(chat[:-3]) == "B, since "  # an escape cut in half is left out
    whole = b'{"choices": [{"text": "C", "logprobs": {"tokens": ["C", "x'
    assert partial_text(whole) == "C"
    assert partial_text('{"choices": [{"text": "ü'.encode()[:-1]) == ""
    assert partial_text(b"<html><body>" + b" " * 100) is None
