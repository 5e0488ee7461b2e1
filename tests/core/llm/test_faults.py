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
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer

# A hang is the failure these tests guard against: they end well within this, or fail.
pytestmark = pytest.mark.timeout(120)


def stored(path: Path, label: str) -> dict[str, dict[str, object]]:
    with Store.open(path, read_only=True) as store:
        return {str(a["item_id"]): a for a in store.llm.all_answers(label)}


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
                           policy=RetryPolicy(retries=0), stop_after_timeouts=0)  # fmt: skip
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


def test_a_model_the_server_does_not_serve_is_refused_before_anything_is_asked(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # llama.cpp's server answers any model name with its one model: the listing tells.
    scripted.served = ["gold", "always-A:latest"]
    args = ["evaluate", str(llm_project), "--base-url", scripted.url]
    assert run([*args, "--model", "glod"]) == 2
    err = capsys.readouterr().err
    assert "does not serve the model 'glod'; it serves gold, always-A:latest" in err
    assert scripted.total() == 1  # the listing only
    with Store.open(llm_project, read_only=True) as store:
        assert store.llm.all_answers("glod") == [] and store.llm.profile_rows() == []
    assert run([*args, "--model", "always-A"]) == 0  # Ollama's ":latest" left out
    assert run([*args, "--model", "gold"]) == 0


def test_a_label_that_is_no_profile_is_named_with_the_profiles_there_are(
    llm_project: Path,
    scripted: ScriptedServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url]) == 0
    capsys.readouterr()
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    assert run(["judge", str(llm_project), "--model", "glod", "wiki:1"]) == 2
    err = capsys.readouterr().err
    assert "no model profile 'glod' in this project (its profiles: gold)" in err
    assert "cannot reach http://127.0.0.1:9/v1" in err
    # The stored profile by its label: no such line.
    assert run(["judge", str(llm_project), "--model", "gold", "wiki:1"]) == 0
    assert "no model profile" not in capsys.readouterr().err


def test_item_ids_may_follow_the_options(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # As docs/COMMANDS.md writes it: judge PROJECT --model LABEL [ITEM_ID...].
    status = run(["judge", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  "wiki:1", "globi:1", "--json"])  # fmt: skip
    assert status == 0
    assert json.loads(capsys.readouterr().out)["asked"] == 2
    assert run(["decide", str(llm_project), "--curator", "ann", "--accept", "wiki:1", "xc:1"]) == 0
    with Store.open(llm_project, read_only=True) as store:
        assert [i.id for i in store.items.get_many() if i.status == "accepted"] == [
            "wiki:1",
            "xc:1",
        ]
    # A word the command does not take is still refused, by the command's own usage.
    assert run(["judge", str(llm_project), "--model", "gold", "--bogus"]) == 2
    assert "bagel-studio judge" in capsys.readouterr().err


def test_changing_a_profiles_measured_settings_is_said(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url]) == 0
    capsys.readouterr()
    assert run(["evaluate", str(llm_project), "--model", "gold", "--concurrency", "2"]) == 0
    assert "changes what is measured" not in capsys.readouterr().err  # not a measured setting
    assert run(["evaluate", str(llm_project), "--model", "gold", "--max-tokens", "4"]) == 0
    err = capsys.readouterr().err
    assert "profile 'gold' changes what is measured (max_tokens 16 -> 4)" in err
    assert "no longer count" in err and "--label NEW" in err


def test_a_server_that_says_nothing_is_named_with_the_timeout(
    llm_project: Path, scripted: ScriptedServer
) -> None:
    scripted.fail_next("slow", times=2, seconds=3, question="dipper")
    status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  "--timeout", "0.5", "--retries", "1"])  # fmt: skip
    assert status == 1
    error = str(stored(llm_project, "gold")["wiki:2"]["error"])
    assert error == "timed out: no reply within 0.5 s (--timeout S allows more)"


def test_a_refusal_every_request_would_meet_stops_the_run(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.fail_next("404", times=len(ITEMS))
    status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  "--concurrency", "1", "--json"])  # fmt: skip
    assert status == 2
    summary = json.loads(capsys.readouterr().out)
    assert "does not exist" in summary["stopped"] and not summary["cancelled"]
    posts = scripted.requests["/v1/chat/completions"]
    assert posts == summary["asked"] == summary["failed"] < len(ITEMS)  # what was in flight only
    scripted.clear_faults()
    assert run(["evaluate", str(llm_project), "--model", "gold"]) == 0  # resumes, asks the rest
    assert len(stored(llm_project, "gold")) == len(ITEMS)
