"""An item blocked by ``gold-invalid`` shows what the generator answered: in the flag, under the
options, and in the editor where the curator picks the gold; not while blind mode hides the
key."""

from __future__ import annotations

import json
from pathlib import Path

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store
from tests.support.items import good
from tests.ui.desk_harness import close_desk, open_desk


def project(tmp_path: Path) -> Path:
    items = tmp_path / "items.jsonl"
    rows = [good("w:1", answer="Eucalyptus leafs"), good("w:2")]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    path = tmp_path / "p.bagel"
    with Store.open(path) as store:
        import_paths(store, [items])
    return path


def test_the_generators_answer_in_the_flag_the_item_and_the_editor(qtbot, tmp_path: Path) -> None:
    window = open_desk(qtbot, project(tmp_path))
    window.show_item("w:1")
    view = window.item_view
    assert any('"Eucalyptus leafs" matches none of the options' in t for t in view.flag_texts())
    assert not view.given.isHidden()
    assert view.given.text() == (
        'The generator\'s answer: "Eucalyptus leafs" (matches none of the options:'
        " E edits the item, 1-4 there picks the gold)"
    )
    window.controller.begin_edit()
    editor = view.editor
    assert not editor.given.isHidden()
    assert editor.given.text() == (
        'The generator answered "Eucalyptus leafs", which matches none of the options'
    )
    window.controller.cancel_edit()
    window.show_item("w:2")  # a valid gold: nothing to say
    assert view.given.isHidden()
    window.controller.begin_edit()
    assert view.editor.given.isHidden()
    window.controller.cancel_edit()
    close_desk(window)


def test_blind_mode_keeps_the_generators_answer_hidden(qtbot, tmp_path: Path) -> None:
    window = open_desk(qtbot, project(tmp_path), blind=True)
    window.show_item("w:1")
    assert window.item_view.given.isHidden()
    assert not any("Eucalyptus" in t for t in window.item_view.flag_texts())
    close_desk(window)
