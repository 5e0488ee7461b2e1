"""``decide --revise``: scripted review can revise an item (edit and accept in one transaction);
bad edits get a clear message and write nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.model import Decision
from bagel_studio.core.operations.desk import EditsError, parse_edits, revise
from bagel_studio.core.store import BlockedError, Store
from tests.core.test_cli import make_project


def counts(path: Path) -> tuple[int, int]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        reviews = conn.execute("SELECT count(*) FROM reviews").fetchone()[0]
        history = conn.execute("SELECT count(*) FROM history").fetchone()[0]
        return int(reviews), int(history)
    finally:
        conn.close()


def test_revise_from_the_command_line(
    project_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(project_path)
    edits = {"question": "Which food does it eat most?", "answer": "c", "level": "Hard"}
    args = ["decide", str(project_path), "w1", "--curator", "ana", "--note", "clearer stem"]
    assert run([*args, "--revise", json.dumps(edits)]) == 0
    assert capsys.readouterr().out == "w1: revise by ana\n"
    edits_file = tmp_path / "edits.json"
    edits_file.write_text(json.dumps({"options": ["p", "q", "r", "s"], "answer": "s"}), "utf-8")
    assert (
        run(["decide", str(project_path), "w2", "--curator", "ana", "--revise", f"@{edits_file}"])
        == 0
    )
    with Store.open(project_path, read_only=True) as store:
        item = store.items.get("w1")
        assert item.content.question == "Which food does it eat most?"
        assert (item.content.answer_index, item.content.level) == (2, "hard")
        assert item.content.options == ("a", "b", "c", "d")  # not named: kept
        review = store.reviews.of_item("w1")[0]
        assert (review.decision, review.note) == (Decision.REVISE, "clearer stem")
        assert [h.action for h in store.history.of_item("w1")] == ["edit", "decide"]
        assert store.items.get("w2").content.answer_index == 3
        assert store.items.get("w2").status.value == "revised"


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"gold": "A"}', "unknown field gold"),
        ('{"answer": "E"}', "names no option"),
        ('{"answer": 7}', "out of range"),
        ('{"question": "  "}', "non-empty text"),
        ('{"options": "a, b"}', "list of four texts"),
        ('{"dimension": "Colour"}', "not a dimension of Wikipedia"),
        ('{"level": "expert"}', "level must be one of"),
        ('{"question": "Q1?"}', "change nothing"),
    ],
)
def test_bad_edits_are_explained_and_write_nothing(
    project_path: Path, capsys: pytest.CaptureFixture[str], edits: str, message: str
) -> None:
    make_project(project_path)
    before = counts(project_path)
    status = run(["decide", str(project_path), "w1", "--curator", "ana", "--revise", edits])
    err = capsys.readouterr().err
    assert status in (1, 2) and message in err, err
    assert len(err.strip().splitlines()) == 1
    assert counts(project_path) == before


def test_a_revision_that_leaves_a_blocking_flag_is_rolled_back(project_path: Path) -> None:
    make_project(project_path)
    with Store.open(project_path) as store:
        before = store.items.get("w1").content
        with pytest.raises(BlockedError):  # two equal options: blocking, refused
            revise(store, "w1", "ana", {"options": ["a", "a", "c", "d"]})
        assert store.items.get("w1").content == before
        assert store.history.of_item("w1") == [] and store.reviews.of_item("w1") == []
        # the GloBI item with three options is fixed by the revision and accepted
        review = revise(store, "g0", "ana", {"options": ["a", "b", "c", "d"], "answer": "b"}).result
        assert review.decision is Decision.REVISE
        assert store.flags.blocking("g0") == []


def test_answer_by_letter_index_or_text(project_path: Path) -> None:
    make_project(project_path)
    with Store.open(project_path, read_only=True) as store:
        item = store.items.get("w0")
        assert parse_edits(item, {"answer": "D"}).answer_index == 3
        assert parse_edits(item, {"answer": 1}).answer_index == 1
        assert parse_edits(item, {"answer": "c"}).answer_index == 2  # a letter before a text
        renamed = parse_edits(item, {"options": {"A": "x", "B": "y", "C": "z", "D": "w"}})
        assert renamed.options == ("x", "y", "z", "w")
        assert parse_edits(item, {"options": ["x", "y", "z", "w"], "answer": "z"}).answer_index == 2
        with pytest.raises(EditsError):
            parse_edits(item, {"answer": True})
