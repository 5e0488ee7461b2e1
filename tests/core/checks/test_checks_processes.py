"""``check_all`` on several worker processes stores exactly the flags one process stores."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bagel_studio.core.checks import check_all, processes
from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store


def _flags(path: Path) -> list[tuple[object, ...]]:
    with Store.open(path, read_only=True) as store:
        flags = store.db.execute("SELECT * FROM flags ORDER BY item_id, check_id").fetchall()
        summary = store.db.execute(
            "SELECT id, flag_severity, flag_checks FROM items ORDER BY seq"
        ).fetchall()
    return [*flags, *summary]


def test_workers_store_the_flags_one_process_stores(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = tmp_path / "one.bagel"
    with Store.open(one) as store:
        import_paths(store, [data_dir / "items", data_dir / "globi"], full_checks=False)
    many = tmp_path / "many.bagel"
    shutil.copy(one, many)
    with Store.open(one) as store:
        flagged = check_all(store)
    monkeypatch.setattr(processes, "PARALLEL_MIN", 2)
    monkeypatch.setattr(processes, "TASK", 3)
    seen: list[tuple[int, int]] = []
    with Store.open(many) as store:
        assert processes.can_fork(store, store.item_count(), 2)
        assert check_all(store, progress=lambda d, t: seen.append((d, t)), workers=2) == flagged
    assert flagged > 0
    assert _flags(many) == _flags(one)
    assert len(seen) > 2 and seen[-1][0] == seen[-1][1]


def test_tasks_keep_every_worker_busy_to_the_end() -> None:
    # A few tasks per worker (not three of 4,000 for two workers, one of which waits).
    assert processes.task_size(11_852, 2) == 1_482
    assert processes.task_size(200_000, 2) == processes.TASK
    assert processes.task_size(3, 8) == 1
