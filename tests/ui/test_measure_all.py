"""Review → Measure all clips…: the engine of ``bagel-studio analyze`` from the desk, on its own
thread, storing through the desk's writer, with progress and a Cancel that keeps what was done."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bagel_studio.core.audio.birdnet import INSTALL_HINT
from bagel_studio.ui.measure_all import MeasureAllDialog
from tests.core.audio.test_analyze import build, measurements
from tests.ui.desk_harness import close_desk, open_desk


def test_measure_all_clips_from_the_review_menu(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = build(tmp_path / "desk", data_dir)  # five real clips, one unreadable, one missing
    window = open_desk(qtbot, path)
    progress: list[tuple[int, int]] = []
    window.menus.actions["measure_all"].trigger()
    dialog = window.menus.panels["measure_all"]
    assert isinstance(dialog, MeasureAllDialog) and dialog.isVisible()
    dialog._relay.progressed.connect(lambda done, total: progress.append((done, total)))
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=60_000)
    report = dialog.report
    assert (report.measured, report.unreadable, report.missing) == (5, 1, ["XC2"])
    assert not report.cancelled and not dialog.running
    assert dialog.status.text().startswith("Done: 5 clips measured, 1 unreadable")
    assert dialog.cancel_button.text() == "Close"
    assert progress and progress[-1][1] == 6
    assert sum("error" not in r for r in measurements(path).values()) == 10  # key and sha
    assert any(f.check == "audio-unreadable" for f in window.store.flags.of_item("xc:XC1:0"))
    dialog.cancel_or_close()
    assert not dialog.isVisible()
    close_desk(window)


def test_cancel_keeps_what_was_measured_and_a_second_run_finishes(
    qtbot, tmp_path: Path, data_dir: Path
) -> None:
    path = build(tmp_path / "desk", data_dir)
    window = open_desk(qtbot, path)
    dialog = MeasureAllDialog(window.services, window)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.start(workers=1)
    dialog.cancel()  # within a clip or two (the unreadable file takes no time at all)
    assert not dialog.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=60_000)
    first = dialog.report
    done = first.measured + first.unreadable
    assert first.cancelled and 1 <= done < 6
    assert dialog.status.text().startswith("Cancelled: ")
    assert "Measure again" in dialog.status.text()
    assert len(measurements(path)) >= done  # stored, under the recording's key (and its sha)
    dialog.start(workers=1)
    qtbot.waitUntil(lambda: dialog.report is not None and not dialog.running, timeout=60_000)
    second = dialog.report
    # the desk may also have measured the clip it shows (as it does on opening one)
    assert not second.cancelled and second.already >= done
    assert second.already + second.measured + second.unreadable == 6
    close_desk(window)


def test_measure_all_has_its_own_key_and_action_name() -> None:
    """Its action name must not shadow the measuring box's ("measure", key M)."""
    from bagel_studio.ui.shortcuts import BY_ACTION, SHORTCUTS

    assert len(BY_ACTION) == len(SHORTCUTS)  # no two shortcuts share an action name
    assert BY_ACTION["measure"].keys == ("M",)
    assert BY_ACTION["measure_all"].keys == ("Ctrl+Shift+L",)


def test_without_birdnet_the_dialog_says_how_to_get_it(
    qtbot, tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)  # as if the extra were missing
    window = open_desk(qtbot, build(tmp_path / "desk", data_dir))
    window.menus.actions["measure_all"].trigger()
    dialog = window.menus.panels["measure_all"]
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=60_000)
    assert dialog.report.species_note == INSTALL_HINT and dialog.report.measured == 5
    assert dialog.status.text().endswith(f"\nSpecies not detected: {INSTALL_HINT}")
    dialog.cancel_or_close()
    close_desk(window)
