"""A large release planned and rendered on worker processes is the release one process writes,
byte for byte, and a project changed after planning stops the export on any number of
processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.export import ExportError, plan_export, write_release
from bagel_studio.core.export import processes as export_processes
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.audit.planted import planted_project


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """The planted project (duplicates, leaks, an artifact), all but a few items accepted."""
    path = planted_project(tmp_path / "planted.bagel")
    with Store.open(path) as store:
        for item_id in store.item_ids():
            if not item_id.endswith("3"):
                operations.decide(store, item_id, "ana", Decision.ACCEPT)
    return path


@pytest.fixture
def small_release_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(export_processes, "PARALLEL_MIN", 1)
    monkeypatch.setattr(export_processes, "PLAN_MIN", 1)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_workers_write_the_same_release(
    planted: Path, tmp_path: Path, small_release_forks: None
) -> None:
    with Store.open(planted, read_only=True) as store:
        for workers in (1, 2, 3):
            assert export_processes.can_fork(planted, workers) == (workers > 1)
            pool = export_processes.ExportWorkers(planted, workers) if workers > 1 else None
            try:  # one pool plans and renders, as an export's does
                plan = plan_export(store, seed=8, tallies=pool.tallies if pool else None)
                plan.items.BATCH = 9  # many batches, domains and clusters cut across them
                assert pool is None or (pool.plans(store) and pool.renders(len(plan.items)))
                write_release(plan, tmp_path / f"out{workers}", workers=workers, pool=pool)
            finally:
                if pool is not None:
                    pool.close()
        # a plan made in this process, its release rendered on workers forked for it
        plan = plan_export(store, seed=8)
        plan.items.BATCH = 9
        write_release(plan, tmp_path / "forked", workers=2)
    single = _files(tmp_path / "out1")
    assert "report/report.md" in single and len(single) >= 10
    assert b"Near-duplicate clusters among the released items: 0." not in single["report/report.md"]
    assert _files(tmp_path / "out2") == single
    assert _files(tmp_path / "out3") == single
    assert _files(tmp_path / "forked") == single


@pytest.mark.parametrize("workers", [1, 2])
def test_a_change_after_planning_stops_the_export(
    planted: Path, tmp_path: Path, small_release_forks: None, workers: int
) -> None:
    with Store.open(planted) as store:
        plan = plan_export(store, seed=8)
        plan.items.BATCH = 9
        last = plan.items.slots[-1].item_id  # read by the last batch
        content = store.get_item(last).content
        changed = content.with_changes(question=content.question + " (edited)")
        operations.edit_and_accept(store, last, "ana", changed)
        changed_since = f"changed since this export was planned \\({last}\\)"
        with pytest.raises(ExportError, match=changed_since):
            write_release(plan, tmp_path / "out", workers=workers)
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []
