"""SIGTERM or Ctrl+C during a run that asks a model (evaluate, judge, regenerate): no request is
sent after it, the replies in flight arrive within the timeout and are stored, and the command
exits (143 or 130); a second signal cuts off what is still in flight and exits at once. Real
processes, a real server on 127.0.0.1 whose replies take a while (as a loaded llama.cpp's do)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store
from tests.core.llm.conftest import gold_map
from tests.support.llm_server import ScriptedServer

ROOT = Path(__file__).resolve().parents[3]
CHAT = "/v1/chat/completions"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def start(command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bagel_studio", *command],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def wait_for(condition: object, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def stored(path: Path) -> int:
    with Store.open(path, read_only=True) as store:
        return sum(a["parse"] != "failed" for a in store.llm.all_answers("slow"))


SIGNALS = [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")]


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
def test_a_signal_stops_sending_keeps_what_arrives_and_exits_within_the_timeout(
    signum: int, code: int, word: str, llm_project: Path
) -> None:
    with ScriptedServer(gold_map()) as server:
        process = start(["evaluate", str(llm_project), "--model", "gold+delay=3", "--label",
                         "slow", "--base-url", server.url, "--concurrency", "2",
                         "--timeout", "20"])  # fmt: skip
        wait_for(lambda: server.requests[CHAT] >= 2)
        signalled = time.monotonic()
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
        took = time.monotonic() - signalled
        sent = server.requests[CHAT]
    assert process.returncode == code, err
    assert sent == 2, "no request may leave after the signal"
    assert took < 20, f"{took:.1f} s: more than the request timeout"
    assert stored(llm_project) == 2, "the replies in flight are kept"
    assert err.strip().splitlines()[-1] == (
        f"{word}: no request was sent after the signal; the 2 replies in flight arrived and are "
        "stored; run the same command again to resume"
    )
    assert "Traceback" not in err


def test_a_second_signal_cuts_off_what_is_in_flight(llm_project: Path) -> None:
    with ScriptedServer(gold_map()) as server:
        process = start(["evaluate", str(llm_project), "--model", "gold+delay=60", "--label",
                         "slow", "--base-url", server.url, "--concurrency", "2",
                         "--timeout", "120"])  # fmt: skip
        wait_for(lambda: server.requests[CHAT] >= 2)
        process.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        signalled = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        took = time.monotonic() - signalled
        sent = server.requests[CHAT]
    assert process.returncode == 143, err
    assert (sent, stored(llm_project)) == (2, 0)
    assert took < 10, f"{took:.1f} s after the second signal"
    assert err.strip().splitlines()[-1] == (
        "terminated: no request was sent after the signal; the 2 replies in flight were cut off "
        "by a second signal (not stored); run the same command again to resume"
    )


def test_judge_stops_sending_at_sigterm(llm_project: Path) -> None:
    with ScriptedServer(gold_map()) as server:
        process = start(["judge", str(llm_project), "--model", "gold+delay=3", "--label", "slow",
                         "--base-url", server.url, "--concurrency", "2",
                         "--timeout", "20"])  # fmt: skip
        wait_for(lambda: server.requests[CHAT] >= 2)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
        sent = server.requests[CHAT]
    assert process.returncode == 143, err
    assert sent == 2
    with Store.open(llm_project, read_only=True) as store:
        assert len(store.llm.latest_verdicts()) == 2
    assert "2 replies in flight arrived and are stored" in err


def test_regenerate_stops_sending_at_sigterm(llm_project: Path) -> None:
    with Store.open(llm_project) as store:  # four items with evidence to regenerate from
        store.items.add_items(
            [
                NewItem(
                    id=f"globi:{n}",
                    domain="GloBI",
                    content=ItemContent(
                        f"Which taxon visits Trifolium pratense in plot {n}?",
                        ("Bombus terrestris", "Canis lupus", "Salmo trutta", "Apis mellifera"),
                        0,
                        "Masked participant identification",
                    ),
                    source={"summary": f"Bombus terrestris visits Trifolium pratense, plot {n}."},
                    supporting_evidence=("visits flowers of Trifolium pratense",),
                )
                for n in range(10, 14)
            ],
            None,
        )
    with ScriptedServer(gold_map()) as server:
        process = start(["regenerate", str(llm_project), "globi:10", "globi:11", "globi:12",
                         "globi:13", "--model", "generator+delay=3", "--label", "slow",
                         "--base-url", server.url, "--concurrency", "2",
                         "--timeout", "20"])  # fmt: skip
        wait_for(lambda: server.requests[CHAT] >= 2)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
        took = time.monotonic() - signalled
        sent = server.requests[CHAT]
    assert process.returncode == 143, err
    assert sent == 2, "no request may leave after the signal"
    assert took < 20, f"{took:.1f} s: more than the request timeout"
    with Store.open(llm_project, read_only=True) as store:
        created = [r for r in store.llm.regenerations() if r["outcome"] == "created"]
    assert len(created) == 2, "the replies in flight are kept"
    assert "2 replies in flight arrived and are stored" in err
    assert "Traceback" not in err
