"""The operations layer: one function, one transaction, re-checks what it touched."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core import operations
from bagel_studio.core.audio import ANALYSIS_VERSION, measure
from bagel_studio.core.audio.decode import decode
from bagel_studio.core.audio.project import cached_result
from bagel_studio.core.checks import check_all
from bagel_studio.core.model import Decision, ItemContent, Status
from bagel_studio.core.store import BlockedError, NewItem, Store, StoreError
from tests.core.audio import audio_support as sig

TABLES = (
    "items",
    "flags",
    "reviews",
    "adjudications",
    "history",
    "audio_measurements",
    "merges",
    "exports",
)


def content(question: str = "Which taxon is the host?", gold: int | None = 1) -> ItemContent:
    return ItemContent(
        question=question,
        options=("Cichlidae", "Channa striata", "Heteropneustes fossilis", "Anabas testudineus"),
        answer_index=gold,
        dimension="Masked participant identification",
        level="hard",
    )


def snapshot(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the tables an operation writes, read through a second connection."""
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in TABLES}
    finally:
        conn.close()


@pytest.fixture
def project(project_path: Path) -> Store:
    store = Store.open(project_path)
    store.items.add_items(
        [
            NewItem(id="ok", domain="GloBI", content=content("Which fish hosts the worm?")),
            NewItem(id="broken", domain="GloBI", content=content("Which one?", gold=None)),
        ],
        None,
    )
    check_all(store)
    return store


def test_refused_save_and_accept_leaves_the_project_exactly_as_before(
    project: Store, project_path: Path
) -> None:
    """The edit fixes nothing (the gold is still missing): the accept is refused and the edit is
    rolled back with it."""
    operations.decide(project, "ok", "alice", Decision.ACCEPT)
    before = snapshot(project_path)
    edited = content("Which one? (reworded)", gold=None)
    with pytest.raises(BlockedError, match="cannot be accepted until fixed"):
        operations.edit_and_accept(project, "broken", "alice", edited)
    assert snapshot(project_path) == before
    assert project.items.get("broken").content == content("Which one?", gold=None)
    assert project.history.of_item("broken") == []
    assert not project.db.conn.in_transaction
    project.close()


def test_save_and_accept_commits_the_edit_and_the_revision_together(
    project: Store, project_path: Path
) -> None:
    fixed = content("Which one?", gold=2)
    review = operations.edit_and_accept(project, "broken", "alice", fixed, blind_answer=2).result
    assert review.decision is Decision.REVISE
    project.close()
    with Store.open(project_path, read_only=True) as reader:
        item = reader.items.get("broken")
        assert item.content == fixed and item.status is Status.REVISED
        assert reader.flags.blocking("broken") == []  # the edit's re-check cleared gold-invalid
        assert [h.action for h in reader.history.of_item("broken")] == ["edit", "decide"]


def test_refused_accept_and_reject_without_reason_write_nothing(
    project: Store, project_path: Path
) -> None:
    before = snapshot(project_path)
    with pytest.raises(BlockedError):
        operations.decide(project, "broken", "alice", Decision.ACCEPT)
    with pytest.raises(StoreError, match="needs a reason"):
        operations.decide(project, "ok", "alice", Decision.REJECT)
    with pytest.raises(StoreError, match="curator name"):
        operations.decide(project, "ok", "  ", Decision.ACCEPT)
    with pytest.raises(StoreError, match="no item"):
        operations.decide(project, "missing", "alice", Decision.ACCEPT)
    assert snapshot(project_path) == before
    project.close()


def test_edit_rechecks_and_undo_rechecks_back(project: Store) -> None:
    assert [f.check for f in project.flags.blocking("broken")] == ["gold-invalid"]
    assert operations.edit(project, "broken", "alice", content("Which one?", gold=0)).result
    assert project.flags.blocking("broken") == []
    assert not operations.edit(project, "broken", "alice", content("Which one?", gold=0)).result
    entry = operations.undo(project, "alice").result
    assert entry is not None and entry.action == "edit" and entry.item_id == "broken"
    assert [f.check for f in project.flags.blocking("broken")] == ["gold-invalid"]
    assert operations.undo(project, "alice").result is None
    project.close()


def test_a_wrong_blind_answer_raises_a_flag_and_its_undo_clears_it(project: Store) -> None:
    operations.decide(project, "ok", "alice", Decision.ACCEPT, blind_answer=3)
    assert "blind-answer-wrong" in {f.check for f in project.flags.of_item("ok")}
    operations.undo(project, "alice")
    assert "blind-answer-wrong" not in {f.check for f in project.flags.of_item("ok")}
    project.close()


def test_adjudicate_returns_the_decision_recorded(project: Store) -> None:
    operations.decide(project, "ok", "alice", Decision.ACCEPT)
    operations.decide(project, "ok", "bob", Decision.REJECT, reason="ambiguous")
    assert project.items.get("ok").status is Status.DISPUTED
    edited = content("Which fish hosts the worm? (adjudicated)")
    assert (
        operations.adjudicate(project, "ok", "cy", Decision.ACCEPT, edited).result
        is Decision.REVISE
    )
    assert project.items.get("ok").status is Status.REVISED
    assert project.reviews.final_content("ok") == edited
    project.close()


def test_store_measurement_caches_and_rechecks_the_clips_items_in_one_transaction(
    tmp_path: Path,
) -> None:
    clip = sig.write(tmp_path, "XC7.wav", sig.pips(7000, 0.1, 0.3, 6.0, 44100), 44100)
    recording = {"id": "XC7", "audio_path": str(clip), "audio_sha256": "sha-XC7", "metadata": {}}
    store = Store.open(tmp_path / "p.bagel")
    store.evidence.upsert_recordings([recording], None)
    options = ("~9-11 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz")
    question = ItemContent(
        "What is the song's dominant frequency range?", options, 1, "Dominant frequency range"
    )
    right = question.with_changes(answer_index=2)  # the measured band, ~6-8 kHz
    store.items.add_items(
        [
            NewItem(id="xc:1", domain="Xeno-canto", content=question, recording_id="XC7"),
            NewItem(id="xc:2", domain="Xeno-canto", content=right, recording_id="XC7"),
        ],
        None,
    )
    check_all(store)
    assert "acoustic-mismatch" not in {f.check for f in store.flags.of_item("xc:1")}
    audio = decode(clip)
    flags = operations.store_measurement(
        store, recording, audio.sha256, measure(audio), "xc:2"
    ).result
    assert flags is not None and "acoustic-mismatch" not in {f.check for f in flags}
    # The other item of the recording was re-checked too, in the same transaction.
    assert "acoustic-mismatch" in {f.check for f in store.flags.of_item("xc:1")}
    assert cached_result(store, recording) is not None
    store.close()
    with Store.open(tmp_path / "p.bagel", read_only=True) as reader:
        assert reader.evidence.measurement_json(audio.sha256, ANALYSIS_VERSION) is not None
        assert (
            operations.store_measurement(
                reader, recording, audio.sha256, measure(audio), "xc:1"
            ).result
            is None
        )


def test_the_store_imports_neither_checks_nor_audio() -> None:
    """The store is the lowest layer: importing it loads nothing above it."""
    code = (
        "import sys, bagel_studio.core.store\n"
        "print(sorted(m for m in sys.modules if m.startswith(('bagel_studio.core.checks',"
        " 'bagel_studio.core.audio', 'bagel_studio.core.operations'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_project_wide_operations_recheck_and_share_the_spectrogram_settings(
    project: Store, project_path: Path
) -> None:
    from bagel_studio.core.audio import SpectrogramSettings, load_settings
    from bagel_studio.core.operations.project import recheck, save_spectrogram_settings

    project.flags.replace_flags("broken", [])  # as if the checks had never run
    assert project.flags.blocking("broken") == []
    assert recheck(project, ["broken"]).result >= 1
    assert [f.check for f in project.flags.blocking("broken")] == ["gold-invalid"]
    wanted = SpectrogramSettings(n_fft=2048, scale="mel", colormap="magma")
    save_spectrogram_settings(project, wanted)
    project.close()
    with Store.open(project_path, read_only=True) as reader:
        assert load_settings(reader) == wanted
