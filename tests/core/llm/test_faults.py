"""What a curator meets when the endpoint misbehaves: a reply that never ends, a proxy's HTML page,
a wrong model name, a typo in a profile's label; each ends, says what happened and keeps what came
in. Real servers on 127.0.0.1 through the real openai client."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.llm.client import RetryPolicy
from bagel_studio.core.llm.evaluate import evaluate, pending, questions
from bagel_studio.core.llm.profiles import Profile
from bagel_studio.core.store import Store
from bagel_studio.core.store import llm as sql
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer

# A hang is the failure these tests guard against: they end well within this, or fail.
pytestmark = pytest.mark.timeout(120)


def stored(path: Path, label: str) -> dict[str, dict[str, object]]:
    with Store.open(path, read_only=True) as store:
        return {str(a["item_id"]): a for a in sql.all_answers(store, label)}


def test_a_reply_that_never_ends_is_cut_off_at_the_timeout(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.fail_next("trickle", times=2, question="barn owl")
    status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  "--timeout", "1", "--retries", "1", "--json"])  # fmt: skip
    assert status == 1
    summary = json.loads(capsys.readouterr().out)
    assert (summary["failed"], summary["strict"]) == (1, len(ITEMS) - 1)
    answer = stored(llm_project, "gold")["wiki:1"]
    assert answer["parse"] == "failed" and answer["attempts"] == 2
    assert "still arriving after 1 s" in str(answer["error"])


def test_a_failed_write_cuts_off_replies_that_never_end(
    llm_project: Path, scripted: ScriptedServer
) -> None:
    # As SIGTERM or Ctrl+C does: the run unwinds at once, however long the timeout.
    scripted.fail_next("trickle", question="barn owl")
    profile = Profile("gold", "gold", scripted.url, timeout=3600, concurrency=2)
    writes: list[int] = []

    def write(call: Callable[[], object]) -> object:
        writes.append(1)
        if len(writes) == 1:
            raise OSError(28, "No space left on device")
        return call()

    with Store.open(llm_project) as store, pytest.raises(OSError, match="No space"):
        evaluate(store, profile, questions(store), write=write, policy=RetryPolicy(retries=3))
    with Store.open(llm_project) as store:
        assert len(pending(store, profile, questions(store))) == len(ITEMS)  # nothing stored


def test_a_cancel_lets_what_is_in_flight_arrive_within_the_timeout(
    llm_project: Path, scripted: ScriptedServer
) -> None:
    scripted.fail_next("trickle", times=len(ITEMS))
    profile = Profile("gold", "gold", scripted.url, timeout=1, concurrency=1)
    cancel = threading.Event()
    with Store.open(llm_project) as store:
        summary = evaluate(store, profile, questions(store), cancel=cancel,
                           progress=lambda done, total: cancel.set(),
                           policy=RetryPolicy(retries=0))  # fmt: skip
    assert summary.cancelled and summary.asked == summary.failed
    assert 1 <= summary.asked < len(ITEMS)
    errors = {str(a["error"]) for a in stored(llm_project, "gold").values()}
    assert all("still arriving after 1 s" in e for e in errors)


def test_a_page_of_html_is_named_as_such(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.fail_next("html", question="dipper")
    status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  "--retries", "0"])  # fmt: skip
    assert status == 1
    error = str(stored(llm_project, "gold")["wiki:2"]["error"])
    assert "not an OpenAI-style reply" in error and "502 Bad Gateway" in error
    assert "has no attribute" not in error
    assert "502 Bad Gateway" in capsys.readouterr().err
