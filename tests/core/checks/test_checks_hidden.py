"""Bidi overrides and zero-width characters in stems and options are flagged and made visible."""

from __future__ import annotations

from checks_support import checked, new_item

from bagel_studio.core.checks import CHECKS
from bagel_studio.core.checks.hidden import HIDDEN_CHARACTERS, hidden_characters, reveal_hidden
from bagel_studio.core.model import Severity
from bagel_studio.core.store import Store


def test_bidi_override_and_zero_width_characters_are_flagged() -> None:
    store = Store.memory()
    flags = checked(
        store,
        new_item(
            "bidi",
            "Wikipedia",
            "What does the koala eat?",
            ["Eucalyptus", "\u202eevil", "Bamboo", "Grass"],
            "A",
            "Diet",
        ),
        new_item(
            "zw",
            "Wikipedia",
            "What does the pan\u200bda eat?",
            ["Eucalyptus", "Bamboo", "Grass\ufeff", "Fish"],
            "B",
            "Diet",
        ),
        new_item(
            "clean",
            "Wikipedia",
            "What does the kea eat?",
            ["Fruit", "Insects", "Grass", "Fish"],
            "A",
            "Diet",
        ),
    )
    bidi = flags["bidi"][HIDDEN_CHARACTERS]
    assert bidi.severity is Severity.WARNING
    assert "option B" in bidi.message and "U+202E" in bidi.message
    assert "RIGHT-TO-LEFT OVERRIDE" in bidi.message
    zero_width = flags["zw"][HIDDEN_CHARACTERS]
    assert "stem" in zero_width.message and "U+200B" in zero_width.message
    assert "option C" in zero_width.message and "U+FEFF" in zero_width.message
    assert HIDDEN_CHARACTERS not in flags["clean"]
    assert HIDDEN_CHARACTERS in CHECKS


def test_reveal_shows_each_hidden_character_as_its_code_point() -> None:
    assert reveal_hidden("\u202eevil") == "⟨U+202E⟩evil"
    assert reveal_hidden("pan\u200bda\u2066x\u2069") == "pan⟨U+200B⟩da⟨U+2066⟩x⟨U+2069⟩"
    assert reveal_hidden("Déjà vu, 北京 — ok") == "Déjà vu, 北京 — ok"
    assert hidden_characters("a\u200db\u00adc") == ["\u200d", "\u00ad"]


def test_the_hidden_set_is_unicodes_format_characters() -> None:
    from bagel_studio.core.checks.hidden import hidden_set_from_unicodedata

    expected = hidden_set_from_unicodedata()
    found = set(hidden_characters("".join(sorted(expected))))
    assert found == expected
    assert hidden_characters("".join(chr(c) for c in range(0x3000))) == sorted(
        c for c in expected if ord(c) < 0x3000
    )
