"""The desk shows bidi overrides and zero-width characters as ⟨U+XXXX⟩ in the item and queue."""

from __future__ import annotations

from pathlib import Path

from bagel_studio.core.checks import check_all
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store
from bagel_studio.ui.queue_model import COLUMNS
from tests.ui.desk_harness import close_desk, open_desk


def test_item_view_and_queue_show_hidden_characters(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "hidden.bagel"
    content = ItemContent(
        "Which diet does the koala\u200b have?",
        ("Eucalyptus", "\u202eevil", "Bamboo", "Grass"),
        0,
        "Diet",
    )
    with Store.open(path) as store:
        store.items.add_items([NewItem(id="k", domain="Wikipedia", content=content)], None)
        check_all(store)
    window = open_desk(qtbot, path)
    window.show_item("k")
    view = window.item_view
    assert view.stem.text() == "Which diet does the koala⟨U+200B⟩ have?"
    assert "⟨U+202E⟩evil" in view.options[1].text()
    assert "\u202e" not in view.options[1].text()
    model = window.queue_model
    question = model.index(model.row_of("k"), [c[0] for c in COLUMNS].index("question"))
    assert model.data(question) == "Which diet does the koala⟨U+200B⟩ have?"
    close_desk(window)
