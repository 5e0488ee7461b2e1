"""Curator names (issue 26): NFC, printable, one line, at most 80 characters, no bidi or
zero-width characters, wherever a name enters (the desk, ``--curator``, the environment, other
curators' files); and inside-word search takes ``%`` and ``_`` literally."""

from __future__ import annotations

import re
import shutil
import unicodedata
from pathlib import Path

import pytest

from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.operations import decide
from bagel_studio.core.operations.reviews import curator_name
from bagel_studio.core.store import NewItem, QueueFilter, Store, StoreError
from tests.core.test_cli import make_project
from tests.support.storage import cli, one_line

REFUSED = {
    "\u202eecila": "U+202E",  # shows as "alice"
    "ali\u200bce": "U+200B",
    "ana\u2066x\u2069": "U+2066",
    "ana\nbo": "one line",
    "ana\u2028bo": "one line",
    "bell\u0007": "U+0007",
    "x" * 81: "80 characters",
    "   ": "empty",
}


@pytest.mark.parametrize(("name", "said"), sorted(REFUSED.items()))
def test_a_name_that_hides_or_reorders_text_is_refused(name: str, said: str) -> None:
    with pytest.raises(StoreError, match=re.escape(said)):
        curator_name(name)


def test_names_are_nfc_and_trimmed() -> None:
    decomposed = unicodedata.normalize("NFD", "Zoë Ñúñez")
    assert decomposed != "Zoë Ñúñez"
    assert curator_name(f"  {decomposed} ") == "Zoë Ñúñez"
    for fine in ("José María", "李雷", "O'Brien-Smith", "a" * 80, "ana (night shift)"):
        assert curator_name(fine) == fine


def test_decide_refuses_a_hidden_name(tmp_path: Path) -> None:
    project = tmp_path / "p.bagel"
    make_project(project)
    result = cli("decide", str(project), "w0", "--curator", "\u202eecila", "--accept")
    assert "U+202E" in one_line(result, "decide")
    with Store.open(project, read_only=True) as store:
        assert store.reviews.of_item("w0") == []


def test_a_merged_file_with_a_hidden_name_is_refused(tmp_path: Path) -> None:
    ours = tmp_path / "ours.bagel"
    make_project(ours)
    theirs = tmp_path / "theirs.bagel"
    shutil.copyfile(ours, theirs)
    with Store.open(theirs) as store:  # written by hand: the operations would refuse the name
        review = decide(store, "w0", "ana", Decision.SKIP).result
        store.db.execute("UPDATE reviews SET curator = ? WHERE curator = 'ana'", ["\u202eecila"])
    assert review.curator == "ana"
    result = cli("merge", str(ours), str(theirs))
    line = one_line(result, "merge")
    assert "U+202E" in line
    with Store.open(ours, read_only=True) as store:
        assert store.reviews.of_item("w0") == []


def _item(item_id: str, question: str) -> NewItem:
    return NewItem(
        id=item_id,
        domain="Wikipedia",
        content=ItemContent(question, ("a", "b", "c", "d"), 0, "Diet"),
    )


def test_inside_word_search_takes_like_wildcards_literally(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.bagel") as store:
        store.items.add_items(
            [
                _item("w:1", "Is it 100% herbivorous?"),
                _item("w:2", "Is it 100 percent herbivorous?"),
                _item("w:3", "Which snake_case name?"),
                _item("w:4", "Which snakeXcase name?"),
                _item("w:5", "A back\\slash?"),
            ],
            None,
        )

        def found(text: str) -> list[str]:
            return store.items.ids(QueueFilter(search=text, search_inside_words=True))

        assert found("100%") == ["w:1"]
        assert found("e_c") == ["w:3"]
        assert found("%") == ["w:1"]
        assert found("k\\s") == ["w:5"]
