"""A server that accepts requests and never answers: the run stops after a few items in a row got
no reply within the timeout, says so in its ``stopped`` field and keeps what was answered before.
Real scripted server on 127.0.0.1, the real openai client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer

pytestmark = pytest.mark.timeout(120)
QUICK = ["--timeout", "0.3", "--retries", "0", "--concurrency", "1"]


def answers(path: Path, label: str) -> dict[str, dict[str, object]]:
    with Store.open(path, read_only=True) as store:
        return {str(a["item_id"]): a for a in store.llm.all_answers(label)}


def test_evaluate_stops_after_items_in_a_row_without_a_reply_and_resumes(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # The first item is answered, then the server goes silent.
    for _, _, _, question, _, _ in ITEMS[1:]:
        scripted.fail_next("slow", times=len(ITEMS), seconds=1.5, question=question)
    status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  *QUICK, "--stop-after-timeouts", "2", "--json"])  # fmt: skip
    assert status == 2
    summary = json.loads(capsys.readouterr().out)
    assert "2 items in a row got no reply" in summary["stopped"]
    assert "within the timeout (0.3 s, 1 attempt each)" in summary["stopped"]
    assert "--stop-after-timeouts" in summary["stopped"] and not summary["cancelled"]
    # what was in flight (one request, one queued) arrived; nothing more was asked
    assert summary["strict"] == 1 and 2 <= summary["failed"] <= 4
    stored = answers(llm_project, "gold")
    assert stored["wiki:1"]["parse"] == "strict"  # what was answered before is kept
    assert "xc:2" not in stored  # never asked
    # Printed too, without --json.
    scripted.clear_faults()
    scripted.fail_next("slow", times=len(ITEMS), seconds=1.5)
    status = run(["evaluate", str(llm_project), "--model", "gold", *QUICK,
                  "--stop-after-timeouts", "1"])  # fmt: skip
    assert status == 2
    assert "stopped: an item got no reply from" in capsys.readouterr().err
    # The server answers again: the same command asks only what has no answer.
    scripted.clear_faults()
    assert run(["evaluate", str(llm_project), "--model", "gold"]) == 0
    assert {a["parse"] for a in answers(llm_project, "gold").values()} == {"strict"}


def test_timeouts_that_are_not_in_a_row_do_not_stop_the_run(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.fail_next("slow", times=1, seconds=1.5, question="barn owl")
    scripted.fail_next("slow", times=1, seconds=1.5, question="enriched")
    status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  *QUICK, "--stop-after-timeouts", "2", "--json"])  # fmt: skip
    assert status == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["stopped"] is None
    assert (summary["failed"], summary["strict"]) == (2, len(ITEMS) - 2)


def test_judge_and_regenerate_stop_too(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted.fail_next("slow", times=4 * len(ITEMS), seconds=1.5)
    status = run(["judge", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  *QUICK, "--stop-after-timeouts", "2", "--json"])  # fmt: skip
    assert status == 2
    summary = json.loads(capsys.readouterr().out)
    assert "2 items in a row got no reply" in summary["stopped"]
    assert 2 <= summary["asked"] == summary["failed"] < len(ITEMS)
    with Store.open(llm_project, read_only=True) as store:
        verdicts = store.db.execute("SELECT error FROM llm_verdicts").fetchall()
    assert len(verdicts) == summary["asked"] and all("timed out" in e for (e,) in verdicts)

    with Store.open(llm_project) as store:  # an item with evidence to regenerate from
        content = ItemContent("Which taxon visits Trifolium?", ("A b", "C d", "E f", "G h"), 0,
                              "Masked participant identification")  # fmt: skip
        source = {"summary": "Bombus visits Trifolium."}
        store.items.add_items([NewItem("globi:9", "GloBI", content, source=source)], None)
    status = run(["regenerate", str(llm_project), "globi:9", "--model", "generator",
                  "--base-url", scripted.url, *QUICK, "--stop-after-timeouts", "1"])  # fmt: skip
    assert status == 2
    assert "stopped: an item got no reply" in capsys.readouterr().err


def test_the_limit_must_not_be_negative(llm_project: Path, scripted: ScriptedServer) -> None:
    status = run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                  "--stop-after-timeouts", "-1"])  # fmt: skip
    assert status == 2
    assert answers(llm_project, "gold") == {}
