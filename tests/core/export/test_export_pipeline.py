"""The export's stages run a domain at a time (``pipeline``): the release they write is the one a
plan written later gives, byte for byte; a domain's items are written before later domains are
planned; a project changed after planning, or while an export reads it, a blocked item found
after some items were written, or a write that fails, stops the export with nothing left behind."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.export import (
    ExportBlockedError,
    ExportError,
    export_release,
    pipeline,
    plan_export,
    release,
    write_release,
)
from bagel_studio.core.export.plan import ReleasedItems
from bagel_studio.core.export.render import Rendered
from bagel_studio.core.export.stored import StoredBatch
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
    """Batches of nine: many batches, domains and clusters cut across them."""
    monkeypatch.setattr(ReleasedItems, "BATCH", 9)


def test_an_export_and_a_plan_written_later_are_the_same_release(
    planted: Path, tmp_path: Path, small_batches: None
) -> None:
    with Store.open(planted, read_only=True) as store:
        export_release(store, tmp_path / "out", seed=8)
        # planned first, then read again and rendered (the desk's preview, then its release)
        write_release(plan_export(store, seed=8), tmp_path / "desk")
    single = release_files(tmp_path / "out")
    assert "report/report.md" in single and len(single) >= 10
    assert b"Near-duplicate clusters among the released items: 0." not in single["report/report.md"]
    assert release_files(tmp_path / "desk") == single


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
    planted: Path, tmp_path: Path, small_batches: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A domain's items are put in release order first, then read a batch at a time: one
    decided otherwise in between is named, and nothing is written."""
    reads = pipeline.read_batch
    batches: list[list[str]] = []

    def rejecting(store: Store, item_ids: list[str]) -> StoredBatch:
        batches.append(list(item_ids))
        if len(batches) == 2:  # the first domain's second batch, just before it is read
            operations.decide(store, item_ids[0], "ana", Decision.REJECT, reason="other")
        return reads(store, item_ids)

    monkeypatch.setattr(pipeline, "read_batch", rejecting)
    with Store.open(planted) as store:
        with pytest.raises(ExportError, match="changed while this export read it") as raised:
            export_release(store, tmp_path / "out", seed=8)
        rejected = [i for i in store.items.ids() if store.items.get(i).status.value == "rejected"]
        assert len(rejected) == 1 and f"({rejected[0]})" in str(raised.value)
    assert not (tmp_path / "out").exists()


def test_a_domain_is_written_before_the_next_is_planned_and_a_failed_write_leaves_nothing(
    planted: Path, tmp_path: Path, small_batches: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export writes a domain's batches as soon as the domain is dealt, before later
    domains are read; a write that fails then (a full disk) stops it, nothing left behind."""
    reads = pipeline.read_batch
    read: list[int] = []  # batches read when each batch was written

    def counted(store: Store, item_ids: list[str]) -> StoredBatch:
        read.append(1)
        return reads(store, item_ids)

    monkeypatch.setattr(pipeline, "read_batch", counted)
    adds = release.ItemWriter.add
    written_at: list[int] = []

    def add(self: release.ItemWriter, rendered: Rendered) -> None:
        written_at.append(len(read))
        adds(self, rendered)

    monkeypatch.setattr(release.ItemWriter, "add", add)
    with Store.open(planted, read_only=True) as store:
        export_release(store, tmp_path / "out", seed=8)
        assert len(written_at) == len(read) > 4
        assert written_at[0] < len(read)  # the first batch went out while others were to read

        def full(self: release.ItemWriter, rendered: Rendered) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(release.ItemWriter, "add", full)
        with pytest.raises(OSError, match="No space left"):
            export_release(store, tmp_path / "full", seed=8)
    assert not (tmp_path / "full").exists()
    assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []


def test_a_blocked_item_found_after_some_items_were_written_leaves_nothing(
    planted: Path, tmp_path: Path, small_batches: None
) -> None:
    with Store.open(planted) as store:
        plan = plan_export(store, seed=8)
        item_id = plan.items.slots[-1].item_id  # in the domain planned last
        flag = Flag("gold-unsupported", Severity.BLOCKING, "The gold answer is not in the evidence")
        store.flags.replace_flags(item_id, [flag])
    with Store.open(planted, read_only=True) as store:
        with pytest.raises(ExportBlockedError) as caught:
            export_release(store, tmp_path / "out", seed=8)
        assert [b.item_id for b in caught.value.blocked] == [item_id]
        assert "not in the evidence" in str(caught.value)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("out")] == []
