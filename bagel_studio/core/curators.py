"""What a curator's name may be: one rule for every name, wherever it enters.

A name is recorded with each decision and shown beside it (a name that hides or reorders text
would pass one curator's decisions off as another's), and a review plan's names name each
curator's folder of the hand-out and are bound into that curator's package. The decisions
(``operations.reviews.curator_name``, which trims the name given and composes it to NFC first)
and the plans (``assignment.PlanSettings``) both ask ``curator_name_problem``.
"""

from __future__ import annotations

import unicodedata

CURATOR_MAX = 80  # characters of a curator's name
# Unicode categories a name may not hold: controls, format characters (bidi overrides and
# isolates, zero-width spaces and joiners, the byte order mark), surrogates, private use,
# unassigned code points, and line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_LINE_BREAKS = "\n\r\x0b\x0c\x85\u2028\u2029"


def curator_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a curator, or None: it is not empty, at most ``CURATOR_MAX``
    characters, one line, NFC, without surrounding blanks, without a character that does not
    show or that reorders the text around it (``\u202eecila`` shows as "alice"), and not a
    path of its own (no ``/`` or ``\\``, no leading dot). Each message says which."""
    if not name.strip():
        return "a curator name is needed (the name given is empty)"
    if name != name.strip():
        return f"a curator name may not start or end with a blank: {name!r}"
    if any(c in name for c in _LINE_BREAKS):
        return f"a curator name must be one line: {name!r} is not"
    for char in name:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            what = unicodedata.name(char, "a control character")
            written = name.encode("unicode_escape").decode("ascii")
            return (
                f"a curator name may not hold U+{ord(char):04X} ({what}), a character that does"
                f" not show or that reorders the text around it: {written!r}"
            )
    if len(name) > CURATOR_MAX:
        return f"a curator name may be at most {CURATOR_MAX} characters ({len(name):,} given)"
    if unicodedata.normalize("NFC", name) != name:
        return f"a curator name must be in Unicode's composed form (NFC): {name!r} is not"
    for char in "/\\":
        if char in name:
            return (
                f"a curator name may not hold {char!r}: it names the curator's folder of a"
                f" review plan's hand-out ({name!r})"
            )
    if name.startswith("."):
        return (
            f"a curator name may not start with a dot: it names the curator's folder of a review"
            f" plan's hand-out, which would be hidden or a path of its own ({name!r})"
        )
    return None
