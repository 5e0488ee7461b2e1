"""The release's lines written from the stored rows (``render``) are those of the plan's
released items encoded the long way (``rows.item_row``, ``rows.provenance_row`` through the JSON
encoder), including for what takes the slow path: edits, other curators' contents, skips, an
adjudication, paths in the generator's record, and contents stored in another JSON spelling."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.export import ExportError, plan_export
from bagel_studio.core.export.audit_section import ReleaseAudit, release_audit
from bagel_studio.core.export.plan import content_hash_line
from bagel_studio.core.export.render import render
from bagel_studio.core.export.report import length_sums
from bagel_studio.core.export.rows import item_row, provenance_row
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.export.conftest import MakeProject
from tests.core.export.export_support import varied_project


def _respelled(store: Store) -> Store:
    """The varied project, with a skip, a generator record naming a species and a recording,
    and one review's content and one item's original stored with unsorted keys and ASCII
    escapes (as another program might have written them): equal contents, other text."""
    ids = store.items.ids()
    operations.decide(store, ids[4], "dan", Decision.SKIP)
    with sqlite3.connect(store.path) as conn:
        for item_id, curator in ((ids[5], "ada"), (ids[2], "bob")):  # ids[2]: ada agrees
            (content,) = conn.execute(
                "SELECT content FROM reviews WHERE item_id = ? AND curator = ?", [item_id, curator]
            ).fetchone()
            conn.execute(
                "UPDATE reviews SET content = ? WHERE item_id = ? AND curator = ?",
                [json.dumps(dict(reversed(json.loads(content).items()))), item_id, curator],
            )
        (original,) = conn.execute("SELECT original FROM items WHERE id = ?", [ids[6]]).fetchone()
        source = {"scientific_name": "Vulpes vulpes", "recording": "XC 1", "url": "a/b"}
        conn.execute(
            "UPDATE items SET original = ?, source = ?, text_key = 'fox', globi_ref = 'g1'"
            " WHERE id = ?",
            [json.dumps(json.loads(original), indent=1), json.dumps(source), ids[6]],
        )
    return store


def test_lines_from_the_stored_rows_are_the_released_items_rows(
    make_project: MakeProject, data_dir: Path
) -> None:
    store = _respelled(varied_project(make_project, data_dir))
    plan = plan_export(store, seed=3)
    released = list(plan.items)
    assert any(r.adjudication for r in released)
    assert any(len(r.reviews) > 1 for r in released)
    assert any(v.decision is Decision.SKIP for r in released for v in r.reviews)
    assert any(r.item.source.get("recording") for r in released)
    assert any(r.content != r.item.original for r in released)
    rendered = render(store, plan.items.slots, plan.seed)

    data = b"".join(lines for _, lines in rendered.segments).decode("utf-8")
    assert data == "".join(json.dumps(item_row(r), ensure_ascii=False) + "\n" for r in released)
    assert [domain for domain, _ in rendered.segments] == list(
        dict.fromkeys(r.item.domain for r in released)
    )
    assert rendered.provenance.decode("utf-8") == "".join(
        json.dumps(provenance_row(r), ensure_ascii=False, sort_keys=True) + "\n" for r in released
    )
    assert rendered.hashed == "".join(content_hash_line(r) for r in released).encode("utf-8")
    assert rendered.lengths.by_domain == length_sums(plan).by_domain
    audit = ReleaseAudit()
    audit.merge(rendered.audit)
    assert audit.report([r.item.id for r in released]) == release_audit(plan)
    assert rendered.count == len(released)


def test_a_content_changed_after_planning_stops_the_render(
    make_project: MakeProject, data_dir: Path
) -> None:
    store = varied_project(make_project, data_dir)
    plan = plan_export(store, seed=3)
    changed = plan.items.slots[-1].item_id
    edited = store.items.get(changed).content.with_changes(question="Changed after planning?")
    operations.edit(store, changed, "ada", edited)
    operations.decide(store, changed, "ada", Decision.REVISE)
    with pytest.raises(ExportError, match=f"changed since this export was planned \\({changed}"):
        render(store, plan.items.slots, plan.seed)
