"""The export dialog over a real project: preview, seed changes, export by keyboard, blocks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bagel_studio.core import operations
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Decision, Flag, ItemContent, Severity
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import NewItem, Store
from bagel_studio.ui.export_dialog import ExportDialog
from bagel_studio.ui.services import Services


def _paper_items(data_dir: Path) -> list[NewItem]:
    items = []
    for line in (data_dir / "items" / "paper_examples.jsonl").read_text("utf-8").splitlines():
        raw = json.loads(line)
        content = ItemContent(
            raw["question"],
            tuple(raw["options"]),
            LETTERS.index(raw["answer"]),
            raw["dimension"],
            raw.get("level"),
        )
        items.append(NewItem(raw["id"], raw["domain"], content, recording_id=raw.get("recording")))
    return items


@pytest.fixture
def services(project_path: Path, data_dir: Path) -> Iterator[Services]:
    """The paper's 17 items: 15 accepted, 2 rejected; the desk holds the project for writing."""
    store = Store.open(project_path)
    store.items.add_items(_paper_items(data_dir), None)
    ids = store.items.ids()
    with store.transaction():
        for item_id in ids[:-2]:
            operations.decide(store, item_id, "ada", Decision.ACCEPT)
        for item_id in ids[-2:]:
            operations.decide(store, item_id, "ada", Decision.REJECT, reason="acoustic-mismatch")
    services = Services(store=store, prefs=Preferences(curator="ada"))
    yield services
    services.close()


def _dialog(qtbot: QtBot, services: Services) -> ExportDialog:
    dialog = ExportDialog(services)
    qtbot.addWidget(dialog)
    with qtbot.waitExposed(dialog):
        dialog.show()
    qtbot.waitUntil(lambda: dialog.plan is not None)
    return dialog


def _cell(dialog: ExportDialog, domain: str, letter: str) -> str:
    table = dialog.balance_table
    rows = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
    item = table.item(rows.index(domain), LETTERS.index(letter))
    assert item is not None
    return item.text()


def test_preview_shows_what_will_be_released(qtbot: QtBot, services: Services) -> None:
    dialog = _dialog(qtbot, services)
    assert "15 items will be released with seed 0" in dialog.preview_label.text()
    assert "Wikipedia 8" in dialog.preview_label.text()
    assert dialog.left_out_label.text() == "Left out: 2 rejected"
    assert _cell(dialog, "Wikipedia", "A") == "0 → 2"
    assert _cell(dialog, "Wikipedia", "B") == "8 → 2"
    assert dialog.blocked_list.isHidden()
    assert dialog.export_button.isEnabled()
    assert dialog.out_edit.text().endswith("project-release")
    assert dialog.progress.isHidden()  # no bar at 0% before anything runs
    table = dialog.balance_table  # every domain's row shown, and no empty band under them
    assert table.verticalScrollBar().maximum() == 0
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    assert table.height() <= table.horizontalHeader().height() + rows + 2 * table.frameWidth() + 2


def test_changing_the_seed_plans_again(qtbot: QtBot, services: Services) -> None:
    dialog = _dialog(qtbot, services)
    dialog.seed_box.setValue(41)
    qtbot.waitUntil(lambda: dialog.plan is not None and dialog.plan.seed == 41)
    assert "seed 41" in dialog.preview_label.text()
    assert _cell(dialog, "Wikipedia", "C") == "0 → 2"


def test_enter_exports_and_the_files_appear(
    qtbot: QtBot, services: Services, tmp_path: Path
) -> None:
    dialog = _dialog(qtbot, services)
    out = tmp_path / "desk-release"
    dialog.out_edit.setText(str(out))
    dialog.seed_box.setValue(9)
    qtbot.waitUntil(lambda: dialog.plan is not None and dialog.plan.seed == 9)
    dialog.export_button.setFocus()
    with qtbot.waitSignal(dialog.exported, timeout=30_000):
        qtbot.keyClick(dialog.export_button, Qt.Key.Key_Return)
    assert dialog.result_value is not None
    assert (out / "data" / "all.jsonl").is_file()
    assert (out / "report" / "gold_positions.png").is_file()
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["seed"] == 9 and manifest["counts"]["released"]["total"] == 15
    assert dialog.progress.isVisible() and dialog.progress.value() == dialog.progress.maximum()
    assert "Released 15 items with seed 9" in dialog.status_label.text()
    assert dialog.report_button.isEnabled()
    qtbot.waitUntil(lambda: services.writer.pending == 0)
    seeds = services.store.db.execute("SELECT seed, out_dir FROM exports").fetchall()
    assert seeds == [(9, str(out))]


def test_existing_folder_needs_replacing(qtbot: QtBot, services: Services, tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    dialog = _dialog(qtbot, services)
    dialog.out_edit.setText(str(out))
    dialog.start_export()
    qtbot.waitUntil(lambda: not dialog.running)
    assert "not empty" in dialog.status_label.text()
    assert (out / "notes.txt").is_file()
    dialog.replace_box.setChecked(True)
    with qtbot.waitSignal(dialog.exported, timeout=30_000):
        dialog.start_export()
    assert not (out / "notes.txt").exists()
    assert (out / "manifest.json").is_file()


def test_blocked_items_are_listed_and_export_is_disabled(qtbot: QtBot, services: Services) -> None:
    flag = Flag("gold-unsupported", Severity.BLOCKING, "The gold answer is not in the evidence")
    services.store.flags.replace_flags("globi:2:0", [flag])
    dialog = _dialog(qtbot, services)
    assert not dialog.blocked_list.isHidden()
    assert dialog.blocked_list.count() == 1
    assert "globi:2:0" in dialog.blocked_list.item(0).text()
    assert "block the export" in dialog.blocked_label.text()
    assert not dialog.export_button.isEnabled()


def test_escape_closes(qtbot: QtBot, services: Services) -> None:
    dialog = _dialog(qtbot, services)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def _audit(services: Services, flags: dict[str, list[Flag]]) -> None:
    from bagel_studio.core.operations.audit import store_audit_flags

    store_audit_flags(services.store, flags)


def test_the_dialog_says_what_the_audit_found_among_the_released_items(
    qtbot: QtBot, services: Services
) -> None:
    """A release went out with a near-duplicate pair and four cross-item leaks the audit had
    named: the dialog says, before Export, what the last audit found among the items the
    release takes (and only those: a leak into an item left out does not go out)."""
    ids = services.store.items.ids()
    released, left_out = ids[:-2], ids[-2:]
    dialog = _dialog(qtbot, services)
    assert dialog.audit_label.text().startswith("The audit has not been run on this project")
    dialog.close()

    pair = ["wikipedia:andean-flamingo:0", "wikipedia:andean-flamingo:1"]
    assert set(pair) <= set(released)
    near = Severity.WARNING
    _audit(
        services,
        {
            pair[0]: [Flag("near-duplicate", near, "Says the same", {"items": [pair[1]]})],
            pair[1]: [Flag("near-duplicate", near, "Says the same", {"items": [pair[0]]})],
            released[3]: [
                Flag("leaks-answer-of", near, "The stem states", {"items": [released[4]]})
            ],
            released[5]: [
                Flag("leaks-answer-of", near, "The stem states", {"items": [left_out[0]]})
            ],
        },
    )
    dialog = _dialog(qtbot, services)
    text = dialog.audit_label.text()
    assert text.startswith("The last audit found, among the 15 items this release takes:")
    assert "1 near-duplicate pair" in text and "1 cross-item leak" in text
    findings = [dialog.audit_list.item(r).text() for r in range(dialog.audit_list.count())]
    assert f"near-duplicates: {pair[0]} and {pair[1]}" in findings
    assert f"leak: {released[3]} states the answer of {released[4]}" in findings
    assert not any(left_out[0] in f for f in findings)  # left out of the release
    assert dialog.export_button.isEnabled()  # said, not blocked: the curator decides


def test_open_report_says_where_the_report_is_without_a_launcher(
    qtbot: QtBot, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no program opens files (no desktop, no xdg-open), Open report did nothing: it now
    says so and shows the report's path, selectable, and copies it."""
    from PySide6.QtGui import QDesktopServices, QGuiApplication

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda _url: False))
    dialog = _dialog(qtbot, services)
    dialog.out_edit.setText(str(tmp_path / "release"))
    with qtbot.waitSignal(dialog.exported, timeout=30_000):
        dialog.start_export()
    dialog.open_report()
    report = str(tmp_path / "release" / "report" / "report.md")
    assert report in dialog.status_label.text()
    assert "No program here opens it" in dialog.status_label.text()
    assert QGuiApplication.clipboard().text() == report
    flags = dialog.status_label.textInteractionFlags()
    assert flags & Qt.TextInteractionFlag.TextSelectableByMouse
