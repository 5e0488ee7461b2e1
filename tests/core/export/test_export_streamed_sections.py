"""The report's item-level sections are gathered on the writer's one pass over the released
items, a batch at a time, keeping a few numbers per item: they must say exactly what the audit
and the lengths of all the released items held in memory at once say."""

from __future__ import annotations

from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.audit import audit_items
from bagel_studio.core.export import plan_export, write_release
from bagel_studio.core.export.audit_section import release_audit, released_items
from bagel_studio.core.export.plan import ExportPlan
from bagel_studio.core.export.report import length_table
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.audit.planted import planted_project


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The planted project (duplicates, leaks, an artifact), all but a few items accepted."""
    path = planted_project(tmp_path_factory.mktemp("planted") / "planted.bagel")
    with Store.open(path) as store:
        for item_id in store.items.ids():
            if not item_id.endswith("7"):
                operations.decide(store, item_id, "ana", Decision.ACCEPT)
    return path


def small_batches(plan: ExportPlan, size: int) -> ExportPlan:
    plan.items.BATCH = size  # batches that cut domains, clusters and leaks apart
    return plan


def test_the_streamed_audit_is_the_audit_of_all_released_items(planted: Path) -> None:
    with Store.open(planted, read_only=True) as store:
        plan = plan_export(store, seed=4)
        whole = audit_items(released_items(plan))
        streamed = {batch: release_audit(small_batches(plan, batch)) for batch in (1, 7, 5000)}
    assert whole.duplicates and whole.leaks and whole.artifacts  # the planted shortcuts
    assert streamed[1] == streamed[7] == streamed[5000] == whole


def test_the_written_report_is_the_same_whatever_the_batch(planted: Path, tmp_path: Path) -> None:
    with Store.open(planted, read_only=True) as store:
        for batch in (3, 2000):
            plan = small_batches(plan_export(store, seed=4), batch)
            write_release(plan, tmp_path / f"out{batch}")
            assert length_table(plan) in (tmp_path / f"out{batch}/report/report.md").read_text()
    for name in ("report/report.md", "report/audit_baselines.png", "data/all.jsonl"):
        assert (tmp_path / "out3" / name).read_bytes() == (tmp_path / "out2000" / name).read_bytes()
