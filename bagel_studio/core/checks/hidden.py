"""Characters a reader cannot see: bidi overrides and isolates, zero-width spaces and joiners,
byte-order marks, soft hyphens (Unicode's "format" characters) and line/paragraph separators.

They change what a renderer shows ("\\u202eevil" reads as "live") without showing themselves,
so an item holding them is flagged, and the desk shows each one as ``⟨U+202E⟩``
(``reveal_hidden``) instead of letting it act.
"""

from __future__ import annotations

import re
import sys
import unicodedata

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Flag, Item, Severity

HIDDEN_CHARACTERS = "hidden-characters"

DESCRIPTIONS = {
    HIDDEN_CHARACTERS: "The stem or an option holds characters that are invisible or reorder the "
    "text as shown (bidi overrides, zero-width characters); the desk shows them as ⟨U+XXXX⟩.",
}

# Unicode's format characters (category Cf) and the line and paragraph separators, as ranges;
# ``hidden_set_from_unicodedata`` derives the same set (a test keeps the two equal).
_HIDDEN = re.compile(
    r"[\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
    r"\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    r"\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    r"\U000e0020-\U000e007f]"
)


def hidden_set_from_unicodedata() -> set[str]:
    """Every character ``_HIDDEN`` should match, from this Python's Unicode database (slow)."""
    return {
        chr(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) == "Cf" or chr(code) in "\u2028\u2029"
    }


def hidden_characters(text: str) -> list[str]:
    """The hidden characters of ``text``, in order (repeats kept)."""
    return _HIDDEN.findall(text)


def reveal_hidden(text: str) -> str:
    """``text`` with every hidden character written out as ``⟨U+XXXX⟩``."""
    if text.isascii():
        return text
    return _HIDDEN.sub(lambda m: f"⟨U+{ord(m.group(0)):04X}⟩", text)


def _describe(found: list[str]) -> str:
    names = []
    for char in dict.fromkeys(found):
        name = unicodedata.name(char, "")
        names.append(f"U+{ord(char):04X}{f' ({name})' if name else ''}")
    return ", ".join(names)


def hidden_flags(item: Item) -> list[Flag]:
    """One ``hidden-characters`` warning naming each field that holds some, and which."""
    content = item.content
    fields = [("stem", content.question)] + [
        (f"option {LETTERS[i] if i < len(LETTERS) else i + 1}", option)
        for i, option in enumerate(content.options)
    ]
    where = {
        label: found
        for label, text in fields
        if not text.isascii() and (found := hidden_characters(text))
    }
    if not where:
        return []
    message = "Hidden characters: " + "; ".join(
        f"{label} holds {_describe(found)}" for label, found in where.items()
    )
    details = {
        "fields": {
            label: [f"U+{ord(c):04X}" for c in dict.fromkeys(found)]
            for label, found in where.items()
        }
    }
    return [Flag(HIDDEN_CHARACTERS, Severity.WARNING, message, details)]
