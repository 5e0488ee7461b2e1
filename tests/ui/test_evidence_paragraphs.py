"""The evidence text keeps its paragraphs apart: a blank line between them, also for a text
stored as the Wikipedia extract writes it (one line per paragraph), as earlier projects hold it."""

from __future__ import annotations

from pathlib import Path

from tests.ui.desk_harness import close_desk, open_desk
from tests.ui.desk_project import BIORXIV_ID, KOALA_ID, build_project


def test_wikipedia_paragraphs_are_shown_apart(qtbot, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "paragraphs.bagel"
    build_project(path, data_dir)  # the Koala extract stored as written: no blank lines
    window = open_desk(qtbot, path)
    window.show_item(KOALA_ID)
    shown = window.evidence.text.editor.toPlainText()
    source = (data_dir / "wikipedia" / "Koala.txt").read_text(encoding="utf-8")
    paragraphs = [line.rstrip() for line in source.splitlines() if line.strip()]
    assert shown.split("\n\n") == paragraphs
    assert "northern limit of its range.\n\nFossil evidence shows" in shown
    highlighted = window.evidence.text.highlighted_text()  # spans found in the text as shown
    assert highlighted and all(h in shown for h in highlighted)
    assert any("eucalypt" in h.lower() for h in highlighted)

    window.show_item(BIORXIV_ID)  # the bioRxiv abstract: one paragraph, left whole
    bats = window.evidence.text.editor.toPlainText()
    assert "\n" not in bats and bats.startswith("Aggregation is often thought")
    close_desk(window)
