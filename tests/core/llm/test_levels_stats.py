"""Reference levels from two models, the flag when every model rejects the gold, and the models'
accuracy and letters in ``stats --json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.cli import run
from bagel_studio.core.store import Store
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer


def evaluate(project: Path, server: ScriptedServer, model: str) -> int:
    return run(["evaluate", str(project), "--model", model, "--base-url", server.url])


def test_levels_table_apply_undo_and_curator_edits_win(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evaluate(llm_project, scripted, "gold") == 0
    assert evaluate(llm_project, scripted, "always-A") == 0
    # always-A is right on wiki:1, globi:1 and xc:2 (gold A): easy there, medium elsewhere.
    with Store.open(llm_project) as store:
        item = store.items.get("xc:2")
        operations.edit(store, "xc:2", "ann", item.content.with_changes(level="hard"))
    capsys.readouterr()
    status = run(["levels", str(llm_project), "--models", "gold", "always-A", "--apply", "--json"])
    assert status == 0
    result = json.loads(capsys.readouterr().out)
    assert result["levels"]["Wikipedia"] == {"easy": 1, "medium": 1, "hard": 0}
    assert result["levels"]["Xeno-canto"] == {"easy": 1, "medium": 1, "hard": 0}
    assert result["applied"] == {"changed": 5, "unchanged": 0, "curator_level_kept": 1}
    with Store.open(llm_project) as store:
        assert store.items.get("wiki:1").content.level == "easy"
        assert store.items.get("wiki:2").content.level == "medium"
        assert store.items.get("xc:2").content.level == "hard"  # the curator's
        history = store.history.of_item("wiki:1")
        assert history[-1].curator == "model-levels" and history[-1].after["level"] == "easy"
        assert operations.undo(store, "model-levels").result is not None
    assert run(["stats", str(llm_project), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert sum(sum(v.values()) for v in stats["levels"].values()) == 5  # one undone
    model = stats["models"]["always-A"]
    assert model["answered"] == len(ITEMS) and model["invalid"] == 0
    assert model["letters"]["Wikipedia"] == {"A": 2, "B": 0, "C": 0, "D": 0}
    assert model["accuracy"]["overall"] == 0.5 and model["accuracy"]["bioRxiv"] == 0.0
    assert stats["models"]["gold"]["accuracy"]["overall"] == 1.0


def test_levels_table_in_text_and_unknown_profile(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["levels", str(llm_project), "--models", "gold", "nobody"]) == 2
    assert "no model profile 'gold'" in capsys.readouterr().err
    assert run(["evaluate", str(llm_project), "--model", "gold", "--base-url", scripted.url,
                "--items", "wiki:1", "wiki:2"]) == 0  # fmt: skip
    assert evaluate(llm_project, scripted, "always-B") == 0
    capsys.readouterr()
    assert run(["levels", str(llm_project), "--models", "gold", "always-B"]) == 1  # 4 missing
    out = capsys.readouterr().out
    assert "Wikipedia" in out and "50.0%" in out and "4 items lack an answer" in out


def test_models_reject_gold_flag(llm_project: Path, scripted: ScriptedServer) -> None:
    assert evaluate(llm_project, scripted, "same-wrong") == 0
    with Store.open(llm_project, read_only=True) as store:
        assert "models-reject-gold" not in store.flags.counts()  # one model is not enough
        assert store.flags.counts()["models-miss-gold"] == len(ITEMS)
        miss = next(f for f in store.flags.of_item("bio:1") if f.check == "models-miss-gold")
        assert miss.message.startswith("1 of 1 models miss the gold C")
    assert run(["evaluate", str(llm_project), "--model", "same-wrong", "--label", "second",
                "--base-url", scripted.url]) == 0  # fmt: skip
    with Store.open(llm_project) as store:
        assert store.flags.counts()["models-reject-gold"] == len(ITEMS)
        flag = next(f for f in store.flags.of_item("wiki:1") if f.check == "models-reject-gold")
        assert "same-wrong, second all chose" in flag.message
        # Fixing the key the models agree on clears the flag (answers to old content no longer
        # count).
        item = store.items.get("wiki:1")
        operations.edit(store, "wiki:1", "ann", item.content.with_changes(answer_index=3))
        assert "models-reject-gold" not in {f.check for f in store.flags.of_item("wiki:1")}
    assert evaluate(llm_project, scripted, "gold") == 0
    with Store.open(llm_project, read_only=True) as store:
        assert "models-reject-gold" not in store.flags.counts()
        miss = next(f for f in store.flags.of_item("bio:1") if f.check == "models-miss-gold")
        assert miss.message.startswith("2 of 3 models miss the gold C")
        # The queue's "models miss the gold" filter is the flag filter.
        from bagel_studio.core.store import QueueFilter

        # every item: the two same-wrong models miss everywhere (wiki:1's edited gold too)
        assert len(store.items.ids(QueueFilter(check="models-miss-gold"))) == len(ITEMS)
        assert store.items.ids(QueueFilter(check="models-reject-gold")) == []
