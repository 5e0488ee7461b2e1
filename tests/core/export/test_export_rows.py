"""Shortcuts of the export agree with the long way: rows written out directly with the JSON
encoder, the bulk read of the project with the store's own accessors."""

from __future__ import annotations

import json
from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.export import plan_export
from bagel_studio.core.export.collect import collect
from bagel_studio.core.export.plan import _final_content
from bagel_studio.core.export.rows import provenance_line, provenance_row
from bagel_studio.core.model import Decision
from bagel_studio.core.store import NewItem, Store
from tests.core.export.conftest import MakeProject
from tests.core.export.export_support import decide_all, paper_items


def _varied_project(make_project: MakeProject, data_dir: Path) -> Store:
    """Edits, a second curator, an adjudication, odd text, a generator record with paths."""
    items = paper_items(data_dir)
    first = items[0]
    items[0] = NewItem(
        id=first.id,
        domain=first.domain,
        content=first.content,
        source={"file": "/home/someone/gen/batch.jsonl", "n": 3, "tags": ["a\\b\\c.txt"]},
        source_file="/data/in/wikipedia.jsonl",
        source_line=12,
        recording_id=first.recording_id,
    )
    store = make_project(items)
    ids = store.item_ids()
    decide_all(store, ids)
    edited = store.get_item(ids[1]).content.with_changes(
        question='Quotes "here", a tab\there, ünïcödé and \u2028 too?'
    )
    operations.edit(store, ids[1], "ada", edited)
    operations.decide(store, ids[1], "ada", Decision.REVISE, note="fixed\nthe stem")
    operations.decide(store, ids[2], "bob", Decision.ACCEPT)
    operations.decide(store, ids[3], "bob", Decision.REJECT, reason="ambiguous")
    options = store.get_item(ids[3]).content.options
    adjudicated = store.get_item(ids[3]).content.with_changes(options=options[::-1])
    operations.adjudicate(store, ids[3], "carol", Decision.REVISE, content=adjudicated)
    return store


def test_provenance_line_matches_the_encoder(make_project: MakeProject, data_dir: Path) -> None:
    plan = plan_export(_varied_project(make_project, data_dir), seed=3)
    assert any(r.adjudication for r in plan.items)
    assert any(len(r.reviews) > 1 for r in plan.items)
    assert any(r.content != r.item.original for r in plan.items)
    for released in plan.items:
        expected = json.dumps(provenance_row(released), ensure_ascii=False, sort_keys=True)
        assert provenance_line(released) == expected + "\n"


def test_bulk_read_agrees_with_the_store(make_project: MakeProject, data_dir: Path) -> None:
    store = _varied_project(make_project, data_dir)
    collected = collect(store)
    assert collected.items == store.get_items()
    for item in collected.items:
        assert _final_content(collected.decisions, item.id) == store.final_content(item.id)
        assert collected.decisions.reviews.get(item.id, ()) == tuple(store.reviews(item.id))
        assert collected.decisions.adjudications.get(item.id) == store.adjudication(item.id)
