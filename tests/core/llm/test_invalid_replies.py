"""A model whose replies hold no letter (a base model echoing the prompt, a refusal) is not reported
as a model that knows little: every accuracy says how many of its replies were invalid, levels are
not applied from them, and the queue's models-miss-gold flag does not count them as choices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.cli import run
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer

N = len(ITEMS)


def evaluate(project: Path, server: ScriptedServer, model: str, *extra: str) -> int:
    return run(["evaluate", str(project), "--model", model, "--base-url", server.url, *extra])


def test_evaluate_says_an_accuracy_over_invalid_replies_is_about_the_format(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evaluate(llm_project, scripted, "rambling") == 1
    out = capsys.readouterr().out
    assert f"{N} invalid" in out
    assert f"{N} of {N} replies held no letter A-D and count as wrong" in out
    assert "measures the reply format" in out and "--grammar" in out
    assert "accuracy: strict 0.0%" in out  # the figure is still given, with the reason beside it
    # A model that answers is reported with its letters (position bias), and no note.
    assert evaluate(llm_project, scripted, "always-B", "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["letters"] == {"A": 0, "B": N, "C": 0, "D": 0} and summary["note"] is None
    assert evaluate(llm_project, scripted, "always-B") == 0  # resumed: nothing asked now
    assert "accuracy: no reply now" in capsys.readouterr().out


def test_stats_and_the_release_report_name_the_invalid_replies(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert evaluate(llm_project, scripted, "rambling") == 1
    assert evaluate(llm_project, scripted, "always-D") == 0
    capsys.readouterr()
    assert run(["stats", str(llm_project)]) == 0
    out = capsys.readouterr().out
    assert f"Model rambling (project order): {N} answered, {N} invalid" in out
    assert f"{N} of {N} replies held no letter A-D" in out
    assert f"letters A 0, B 0, C 0, D {N} (D 100%)" in out
    assert run(["stats", str(llm_project), "--json"]) == 0
    models = json.loads(capsys.readouterr().out)["models"]
    assert "count as wrong" in models["rambling"]["note"] and models["always-D"]["note"] is None
    with Store.open(llm_project) as store:
        for item_id, *_ in ITEMS:
            operations.decide(store, item_id, "ann", Decision.ACCEPT)
    assert run(["export", str(llm_project), str(tmp_path / "release"), "--seed", "1"]) == 0
    report = (tmp_path / "release" / "report" / "report.md").read_text(encoding="utf-8")
    assert "Invalid: replies that held no letter A-D; they count as answered and wrong." in report
    assert f"- **rambling**: {N} of {N} replies held no letter A-D" in report
    assert "- **always-D**" not in report


def test_levels_are_not_applied_from_invalid_replies(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evaluate(llm_project, scripted, "gold") == 0
    assert evaluate(llm_project, scripted, "rambling") == 1
    capsys.readouterr()
    args = ["levels", str(llm_project), "--models", "gold", "rambling"]
    assert run(args) == 0
    assert f"rambling: {N} of {N} replies held no letter" in capsys.readouterr().out
    assert run([*args, "--apply"]) == 2
    assert "Nothing applied" in capsys.readouterr().err
    with Store.open(llm_project, read_only=True) as store:
        assert all(item.content.level is None for item in store.items.get_many())
    assert run(["levels", str(llm_project), "--models", "gold", "gold"]) == 2
    assert "name two different profiles" in capsys.readouterr().err
    assert run([*args, "--apply", "--allow-invalid", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["invalid"] == {"gold": 0, "rambling": N} and result["applied"]["changed"] == N


def test_a_reply_without_a_letter_does_not_miss_the_gold(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evaluate(llm_project, scripted, "rambling") == 1
    assert evaluate(llm_project, scripted, "empty") == 1
    capsys.readouterr()
    run(["check", str(llm_project), "--json"])
    flags = json.loads(capsys.readouterr().out)
    assert [f for f in flags if f["check"].startswith("models-")] == []
    # One model that answers, wrongly on items whose gold is not B: counted as 1 of 1.
    assert evaluate(llm_project, scripted, "always-B") == 0
    capsys.readouterr()
    run(["check", str(llm_project), "--json"])
    misses = [f for f in json.loads(capsys.readouterr().out) if f["check"] == "models-miss-gold"]
    assert len(misses) == N - 1  # wiki:2 has the gold B
    assert all(f["message"].startswith("1 of 1 models miss the gold") for f in misses)


def test_evaluate_names_the_items_it_cannot_ask(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from bagel_studio.core.model import ItemContent
    from bagel_studio.core.store import NewItem

    owls = ("Barn owl", "Eagle owl", "Elf owl")
    three = ItemContent("Which of these owls is largest?", owls, 1, "Morphology")
    with Store.open(llm_project) as store:
        store.items.add_items([NewItem(id="wiki:3", domain="Wikipedia", content=three)], None)
    assert evaluate(llm_project, scripted, "gold", "--json") == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["items"], result["left_out"]) == (N, 1)
    assert evaluate(llm_project, scripted, "always-A") == 0
    assert "1 item left out: not four options" in capsys.readouterr().out
