"""A large release planned and rendered on worker processes (each keeping the lines it prepared
while planning) is the release one process writes, byte for byte; a project changed after
planning, or while an export reads it, stops the export."""

from __future__ import annotations

import errno
import multiprocessing
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.cli import run
from bagel_studio.core.export import (
    ExportBlockedError,
    ExportError,
    export_release,
    plan_export,
    release,
    write_release,
)
from bagel_studio.core.export import plan as export_plan
from bagel_studio.core.export import processes as export_processes
from bagel_studio.core.export.plan import (
    BatchPlan,
    ReleasedItems,
    batch_sizes,
    domain_order,
    plan_batches,
    planning_order,
)
from bagel_studio.core.export.render import Rendered, render
from bagel_studio.core.model import Decision, Flag, Severity
from bagel_studio.core.store import Store
from tests.core.audit.planted import planted_project
from tests.core.export.export_support import release_files


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """The planted project (duplicates, leaks, an artifact), all but a few items accepted."""
    path = planted_project(tmp_path / "planted.bagel")
    with Store.open(path) as store:
        for item_id in store.items.ids():
            if not item_id.endswith("3"):
                operations.decide(store, item_id, "ana", Decision.ACCEPT)
    return path


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers from the first item, and batches of nine: many batches, domains and clusters
    cut across them, each worker holding several."""
    monkeypatch.setattr(export_processes, "PLAN_MIN", 1)
    monkeypatch.setattr(ReleasedItems, "BATCH", 9)


def test_workers_write_the_same_release(planted: Path, tmp_path: Path, small_batches: None) -> None:
    with Store.open(planted, read_only=True) as store:
        for workers in (1, 2, 3):
            assert export_processes.can_fork(planted, workers) == (workers > 1)
            export_release(store, tmp_path / f"out{workers}", seed=8, workers=workers)
        # planned in this process, then read again and rendered here (the desk's way)
        write_release(plan_export(store, seed=8), tmp_path / "desk")
    single = release_files(tmp_path / "out1")
    assert "report/report.md" in single and len(single) >= 10
    assert b"Near-duplicate clusters among the released items: 0." not in single["report/report.md"]
    assert release_files(tmp_path / "out2") == single
    assert release_files(tmp_path / "out3") == single
    assert release_files(tmp_path / "desk") == single
    # the workers' rendered batches went through files, all of them gone
    assert not (tmp_path / "out2" / release.SPOOL).exists()


def test_workers_keep_the_lines_of_the_plan_they_made(planted: Path, small_batches: None) -> None:
    with Store.open(planted, read_only=True) as store:
        pool = export_processes.ExportWorkers(planted, 2)
        try:
            plan = plan_export(store, seed=8, planner=pool.plan, dealt=pool.dealt)
            assert pool.holds(plan) and not pool.holds(plan_export(store, seed=9))
            assert sum(plan.batch_sizes) == len(plan.items) and len(plan.batch_sizes) > 4
            rendered = list(pool.rendered(plan))
            assert [r.count for r in rendered] == list(plan.batch_sizes)
            assert not pool.holds(plan)  # each batch is finished once
            # every batch's planning and finishing was counted off the worker that did it
            assert pool.work_left() == [0, 0]
            assert set(pool._owner.values()) == {0, 1}
        finally:
            pool.close()


def test_workers_past_what_they_hold_read_batches_again(
    planted: Path, tmp_path: Path, small_batches: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``PLAIN`` items a worker holds its batches compressed, past ``HOLD`` only their
    ids, and reads such a batch again to finish it: the same release; and an item changed in
    between stops the export, nothing written."""
    monkeypatch.setattr(export_processes, "PLAIN", 0)  # every batch held is packed
    monkeypatch.setattr(export_processes, "HOLD", 20)  # about two batches of nine each
    monkeypatch.setattr(export_processes, "AHEAD", 1)
    with Store.open(planted) as store:
        export_release(store, tmp_path / "once", seed=8, workers=1)
        export_release(store, tmp_path / "again", seed=8, workers=2)
        assert release_files(tmp_path / "again") == release_files(tmp_path / "once")
        monkeypatch.setattr(export_processes, "HOLD", 1)  # each worker keeps its first batch
        pool = export_processes.ExportWorkers(planted, 2)
        try:
            plan = plan_export(store, seed=8, planner=pool.plan, dealt=pool.dealt)
            assert len(plan.batch_sizes) > 4  # the last is neither held nor handed out yet
            last = plan.items.slots[-1].item_id
            content = store.items.get(last).content
            changed = content.with_changes(question=content.question + " (edited)")
            operations.edit_and_accept(store, last, "ana", changed)
            with pytest.raises(
                ExportError, match=f"changed since this export was planned \\({last}"
            ):
                write_release(plan, tmp_path / "out", pool=pool)
        finally:
            pool.close()
    assert not (tmp_path / "out").exists()


def test_a_change_after_planning_stops_the_export(planted: Path, tmp_path: Path) -> None:
    with Store.open(planted) as store:
        plan = plan_export(store, seed=8)
        plan.items.BATCH = 9
        last = plan.items.slots[-1].item_id  # read by the last batch
        content = store.items.get(last).content
        changed = content.with_changes(question=content.question + " (edited)")
        operations.edit_and_accept(store, last, "ana", changed)
        changed_since = f"changed since this export was planned \\({last}\\)"
        with pytest.raises(ExportError, match=changed_since):
            write_release(plan, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []


def test_an_item_rejected_while_the_export_reads_stops_it(
    planted: Path, tmp_path: Path, small_batches: None
) -> None:
    """Items are put in release order first, then read a batch at a time: one decided
    otherwise in between is named, and nothing is written."""
    with Store.open(planted) as store:

        def rejecting(store: Store, given: Iterable[list[str]]) -> Iterator[BatchPlan]:
            batches = list(given)
            planned = plan_batches(store, batches)
            yield next(planned)
            operations.decide(store, batches[-1][0], "ana", Decision.REJECT, reason="other")
            yield from planned

        with pytest.raises(ExportError, match="changed while this export read it") as raised:
            plan_export(store, seed=8, planner=rejecting)
        rejected = [i for i in store.items.ids() if store.items.get(i).status.value == "rejected"]
        assert len(rejected) == 1 and f"({rejected[0]})" in str(raised.value)


_SPOOL = Rendered.spool


def _slow_spool(self: Rendered, path: Path) -> Rendered:
    """``Rendered.spool``, slowly: the workers are still at it when the writer fails."""
    time.sleep(0.05)
    return _SPOOL(self, path)


def test_items_are_written_while_later_batches_are_planned(
    planted: Path, tmp_path: Path, small_batches: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exporting process writes each rendered batch as soon as it is done, before the plan
    is complete; a write that fails then (a full disk) stops the export, nothing left behind."""
    planned: list[int] = []  # batches planned when each batch was written
    plans = export_processes.ExportWorkers.plan

    def counted(self: export_processes.ExportWorkers, *args: object) -> Iterator[BatchPlan]:
        for found in plans(self, *args):  # type: ignore[arg-type]
            planned.append(1)
            yield found

    monkeypatch.setattr(export_processes.ExportWorkers, "plan", counted)
    adds = release.ItemWriter.add
    written_at: list[int] = []

    def add(self: release.ItemWriter, rendered: Rendered) -> None:
        written_at.append(len(planned))
        adds(self, rendered)

    monkeypatch.setattr(release.ItemWriter, "add", add)
    with Store.open(planted, read_only=True) as store:
        export_release(store, tmp_path / "out", seed=8, workers=2)
        batches = len(planned)
        assert len(written_at) == batches > 4
        assert written_at[0] < batches  # the first batch went out while others were planned

        def full(self: release.ItemWriter, rendered: Rendered) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(release.ItemWriter, "add", full)
        with pytest.raises(OSError, match="No space left"):
            export_release(store, tmp_path / "full", seed=8, workers=2)
        # the disk full when a worker spools a rendered batch (the workers fork with this)
        monkeypatch.setattr(release.ItemWriter, "add", adds)

        def no_room(self: Rendered, path: Path) -> Rendered:
            path.write_bytes(b"part of a batch")
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(Rendered, "spool", no_room)
        with pytest.raises(OSError, match="No space left"):
            export_release(store, tmp_path / "full", seed=8, workers=2)
        # the writer fails while the workers are still spooling batches: they are gone before
        # the release's folder is removed, so none of them writes into it afterwards
        monkeypatch.setattr(Rendered, "spool", _slow_spool)
        monkeypatch.setattr(release.ItemWriter, "add", full)
        for child in multiprocessing.active_children():  # the earlier exports' workers
            child.join(timeout=30)
        with pytest.raises(OSError, match="No space left"):
            export_release(store, tmp_path / "full", seed=8, workers=2)
        assert multiprocessing.active_children() == []
    assert not (tmp_path / "full").exists()
    assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []


def test_the_largest_domain_is_planned_first_and_the_last_in_smaller_batches() -> None:
    """BAGEL's domains: Xeno-canto, the largest and last released, is planned first when the
    writer may hold all its batches, and bioRxiv, then planned last, in about two batches a
    worker."""
    candidates = {"Wikipedia": 1910, "GloBI": 3545, "bioRxiv": 2160, "Xeno-canto": 4237}
    first = ["Xeno-canto", "Wikipedia", "GloBI", "bioRxiv"]
    assert planning_order(candidates, 1000, ahead=32) == first
    assert planning_order(candidates, 1000, ahead=5) == first
    assert planning_order(candidates, 1000, ahead=4) == list(candidates)  # 5 batches do not fit
    assert planning_order(candidates, 1000, ahead=0) == list(candidates)  # one process
    assert planning_order({}, 1000, ahead=32) == []
    assert batch_sizes(candidates, first, workers=2) == {
        "Wikipedia": 1000,
        "GloBI": 1000,
        "bioRxiv": 540,
        "Xeno-canto": 1000,
    }
    assert batch_sizes(candidates, first, workers=1) == dict.fromkeys(candidates, 1000)
    assert batch_sizes({"GloBI": 30}, ["GloBI"], workers=2) == {"GloBI": export_plan.TAIL_BATCH}


def test_batches_planned_out_of_release_order_are_written_in_it(
    planted: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Domains planned in the reverse of release order, with room for two rendered batches
    ahead of the writer and the domain planned last in smaller batches: the batches dealt
    before the writer may take them wait (none is lost, none is held up for good), each is
    written once and in release order, and the release is the one process's."""
    monkeypatch.setattr(export_processes, "PLAN_MIN", 1)
    monkeypatch.setattr(export_processes, "AHEAD", 1)
    monkeypatch.setattr(ReleasedItems, "BATCH", 80)
    monkeypatch.setattr(export_plan, "TAIL_BATCH", 5)

    def reversed_order(candidates: dict[str, int], size: int, ahead: int) -> list[str]:
        return list(reversed(candidates))

    monkeypatch.setattr(export_plan, "planning_order", reversed_order)
    adds = release.ItemWriter.add
    written: list[str] = []  # the domains of each batch written, in the order written

    def add(self: release.ItemWriter, rendered: Rendered) -> None:
        written.extend(domain for domain, _ in rendered.segments)
        adds(self, rendered)

    monkeypatch.setattr(release.ItemWriter, "add", add)
    with Store.open(planted, read_only=True) as store:
        export_release(store, tmp_path / "one", seed=8, workers=1)
        del written[:]
        export_release(store, tmp_path / "two", seed=8, workers=2)
        plan = plan_export(store, seed=8, ahead=2, workers=2)
    assert release_files(tmp_path / "two") == release_files(tmp_path / "one")
    domains = domain_order(plan.domains)
    assert written == sorted(written, key=domains.index) and len(set(written)) == len(domains)
    # Wikipedia (about 220 items, planned last) in batches of about a quarter of it
    sizes = plan.batch_sizes
    assert len(sizes) > len(domains) + 4 and max(sizes) <= 80
    assert {s.domain for s in plan.items.slots[: sizes[0]]} == {"Wikipedia"} and sizes[0] < 80


def test_a_rendered_batch_spooled_to_a_file_comes_back_whole(planted: Path, tmp_path: Path) -> None:
    with Store.open(planted, read_only=True) as store:
        plan = plan_export(store, seed=8)
        kept = render(store, plan.items.slots[:40], seed=8)
    spooled = kept.spool(tmp_path / "batch")
    assert spooled.spooled is not None and spooled.provenance == b""
    assert (tmp_path / "batch").stat().st_size == sum(spooled.sizes) > 10_000
    back = spooled.unspooled()
    assert not (tmp_path / "batch").exists()
    assert [(d, bytes(lines)) for d, lines in back.segments] == kept.segments
    assert bytes(back.provenance) == kept.provenance and bytes(back.hashed) == kept.hashed
    assert back.count == kept.count == 40 and back.unspooled() is back
    kept.spool(tmp_path / "short")
    with open(tmp_path / "short", "r+b") as handle:  # a file cut short (a full disk)
        handle.truncate(100)
    with pytest.raises(OSError, match="incomplete"):
        replace(spooled, spooled=str(tmp_path / "short")).unspooled()


def test_workers_read_the_blocking_flags_themselves(
    planted: Path, tmp_path: Path, small_batches: None
) -> None:
    """The workers start before the exporting process reads the project, and read its
    blocking flags themselves: a flagged item stops a pooled export as it does one process's."""
    with Store.open(planted) as store:
        item_id = next(i for i in store.items.ids() if not i.endswith("3"))
        flag = Flag("gold-unsupported", Severity.BLOCKING, "The gold answer is not in the evidence")
        store.flags.replace_flags(item_id, [flag])
    with Store.open(planted, read_only=True) as store:
        for workers in (1, 2):
            with pytest.raises(ExportBlockedError) as caught:
                export_release(store, tmp_path / "out", seed=8, workers=workers)
            assert [b.item_id for b in caught.value.blocked] == [item_id]
            assert "not in the evidence" in str(caught.value)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("out")] == []


_PLAN = export_processes._plan


def _killed_at_batch_two(task: tuple[int, list[str]]) -> BatchPlan:
    """A worker's ``_plan`` that ends the worker abruptly at the third batch."""
    if task[0] == 2:
        os._exit(9)
    return _PLAN(task)


def test_a_worker_killed_stops_the_export_with_a_message(
    planted: Path,
    tmp_path: Path,
    small_batches: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A worker that ends abruptly (the out-of-memory killer, say) stops the export: nothing
    written, and the command line says why in one line, exit status 1."""
    monkeypatch.setattr(export_processes, "_plan", _killed_at_batch_two)  # forked with it
    with Store.open(planted, read_only=True) as store, pytest.raises(ExportError, match="ended ab"):
        export_release(store, tmp_path / "out", seed=8, workers=2)
    project = str(planted)
    assert run(["export", project, str(tmp_path / "out"), "--seed", "8", "--workers", "2"]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("bagel-studio export: nothing written; a worker process")
        and "Trace" not in err
    )
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("out")] == []


def test_a_batch_to_plan_goes_to_the_least_busy_worker_with_room() -> None:
    """``least_busy``: the worker with the least work still before it, among those with fewer
    than ``PLAN_AHEAD`` batches in hand; the first of equals."""
    full = export_processes.PLAN_AHEAD
    assert export_processes.least_busy([500, 200], [0, 1]) == 1
    assert export_processes.least_busy([500, 200], [0, full]) == 0  # the other has no room
    assert export_processes.least_busy([300, 300, 100], [1, 1, full]) == 0
    assert export_processes.least_busy([0, 0], [0, 0]) == 0
