"""``decide_many`` and ``bagel-studio decide --ids-from``: one transaction, all or nothing, and the
same reviews, history and statuses as deciding one item after the other."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.checks import check_all
from bagel_studio.core.cli import run
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.operations.decisions import DecisionRefused, decide_many
from bagel_studio.core.store import NewItem, Store

NOW = "2026-11-23T00:00:00.000+00:00"
IDS = [f"w{i}" for i in range(8)]


def _clock() -> str:
    return NOW


def _project(path: Path) -> Store:
    """Eight items: w1 decided before by ana (replaced), w2 edited (an accept is a revision),
    w3 rejected by bob (disputed after ana accepts), w4 adjudicated, g0 blocked."""
    store = Store.open(path, clock=_clock)
    items = [
        NewItem(
            id=item_id,
            domain="Wikipedia",
            content=ItemContent(f"Q{item_id}?", ("a", "b", "c", "d"), 1, "Diet", "easy"),
        )
        for item_id in IDS
    ]
    items.append(NewItem(id="g0", domain="GloBI", content=ItemContent("G?", ("a", "b"), 0, "Diet")))
    store.items.add_items(items, None)
    check_all(store)
    operations.decide(store, "w1", "ana", Decision.UNCERTAIN, note="later")
    edited = ItemContent("Qw2, rewritten?", ("a", "b", "c", "d"), 1, "Diet", "easy")
    operations.edit(store, "w2", "ana", edited)
    operations.decide(store, "w3", "bob", Decision.REJECT, reason="trivial")
    operations.adjudicate(store, "w4", "chief", Decision.REJECT, reason="trivial")
    return store


def _tables(store: Store) -> list[list[tuple[object, ...]]]:
    return [
        store.db.execute(sql).fetchall()
        for sql in (
            "SELECT * FROM reviews ORDER BY item_id, curator",
            "SELECT item_id, curator, at, action, before, after, undoes, origin FROM history"
            " ORDER BY id",
            "SELECT id, status FROM items ORDER BY seq",
        )
    ]


def test_many_at_once_write_what_one_by_one_writes(tmp_path: Path) -> None:
    ids = [*IDS, "w1"]  # an id twice: its second decision replaces the first
    with _project(tmp_path / "one.bagel") as one:
        for item_id in ids:
            operations.decide(one, item_id, "ana", Decision.ACCEPT)
        expected = _tables(one)
    with _project(tmp_path / "many.bagel") as many:
        reviews = decide_many(many, ids, "ana", Decision.ACCEPT).result
        assert _tables(many) == expected
    assert [r.item_id for r in reviews] == ids
    assert reviews[2].decision is Decision.REVISE
    statuses = dict(expected[2])
    assert statuses["w3"] == "disputed" and statuses["w4"] == "rejected"


def test_one_item_that_cannot_take_it_leaves_everything_as_it_was(tmp_path: Path) -> None:
    with _project(tmp_path / "p.bagel") as store:
        before = _tables(store)
        with pytest.raises(DecisionRefused) as refused:
            decide_many(store, [*IDS, "g0", "nope"], "ana", Decision.ACCEPT)
        assert [r.item_id for r in refused.value.refusals] == ["g0", "nope"]
        assert "cannot be accepted until fixed" in refused.value.refusals[0].reason
        assert _tables(store) == before


def test_ids_from_a_file_and_from_standard_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "p.bagel"
    _project(project).close()
    listing = tmp_path / "ids.txt"
    listing.write_text("\ufeffw5\n\n  w6  \n", encoding="utf-8")
    assert (
        run(
            [
                "decide",
                str(project),
                "w0",
                "--ids-from",
                str(listing),
                "--curator",
                "ana",
                "--reject",
                "trivial",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines() == [
        "w0: reject by ana",
        "w5: reject by ana",
        "w6: reject by ana",
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("w7\ng0\n"))
    assert run(["decide", str(project), "--ids-from", "-", "--curator", "ana", "--accept"]) == 1
    err = capsys.readouterr().err
    assert "g0: cannot be accepted until fixed" in err and "none recorded" in err
    with Store.open(project, read_only=True) as store:
        assert store.reviews.get("w7", "ana") is None  # refused with g0: nothing recorded
        assert store.reviews.get("w6", "ana") is not None


def test_bad_id_lists_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "p.bagel"
    _project(project).close()
    assert run(["decide", str(project), "--curator", "ana", "--accept"]) == 2
    assert "no item ids" in capsys.readouterr().err
    missing = tmp_path / "missing.txt"
    assert (
        run(["decide", str(project), "--ids-from", str(missing), "--curator", "ana", "--accept"])
        == 2
    )
    assert "missing.txt" in capsys.readouterr().err
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("w\xe9\n".encode("latin-1"))
    assert (
        run(["decide", str(project), "--ids-from", str(latin), "--curator", "ana", "--accept"]) == 2
    )
    assert "not UTF-8" in capsys.readouterr().err
