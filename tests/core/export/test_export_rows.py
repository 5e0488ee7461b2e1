"""The export's bulk read of the project agrees with the store's own accessors (the lines
written from it: ``test_export_render``)."""

from __future__ import annotations

from pathlib import Path

from bagel_studio.core.collect import collect
from bagel_studio.core.export.plan import _final_content
from tests.core.export.conftest import MakeProject
from tests.core.export.export_support import varied_project


def test_bulk_read_agrees_with_the_store(make_project: MakeProject, data_dir: Path) -> None:
    store = varied_project(make_project, data_dir)
    collected = collect(store)
    assert collected.items == store.items.get_many()
    for item in collected.items:
        assert _final_content(collected.decisions, item.id) == store.reviews.final_content(item.id)
        assert collected.decisions.reviews.get(item.id, ()) == tuple(store.reviews.of_item(item.id))
        assert collected.decisions.adjudications.get(item.id) == store.adjudications.get(item.id)
