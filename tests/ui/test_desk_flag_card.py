"""A flag on the desk reads in a glance: what the check found and the first sentence of what the
check means; the check's whole definition (as docs/CHECKS.md gives it) is on the flag's tooltip."""

from __future__ import annotations

import json
from pathlib import Path

from bagel_studio.core.checks import CHECKS
from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store
from tests.support.items import good
from tests.ui.desk_harness import close_desk, open_desk

STEM = "According to the passage, what does the koala eat?"


def project(tmp_path: Path) -> Path:
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(good("w:1", question=STEM)) + "\n", encoding="utf-8")
    path = tmp_path / "p.bagel"
    with Store.open(path) as store:
        import_paths(store, [items])
    return path


def test_a_flag_shows_its_finding_and_one_sentence_and_its_whole_definition_on_hover(
    qtbot, tmp_path: Path
) -> None:
    window = open_desk(qtbot, project(tmp_path))
    window.show_item("w:1")
    view = window.item_view
    definition = CHECKS["hidden-context"]
    first = definition.split(" A ")[0]
    assert first.endswith("items must be self-contained.")
    labels = [label for label in view.flag_labels if not label.isHidden()]
    card = next(label for label in labels if "hidden-context" in label.text())
    assert '"according to the passage"' in card.text()  # what it matched
    assert first in card.text()
    assert "A study the stem says was described" not in card.text()  # the rest is a hover away
    assert card.toolTip() == definition
    close_desk(window)
