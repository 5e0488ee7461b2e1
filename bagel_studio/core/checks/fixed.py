"""Options whose position carries meaning, and which therefore keep their place when shuffled.

Three kinds, found by their wording alone (the release has no other marker):

* a **catch-all** option ("None of the above", "All of the above", "All are indistinguishable",
  "Cannot be determined", ...): its meaning depends on coming after the others, so it keeps its
  index (in generated items that is the last one);
* a **numbered sequence** ("Sound 1", "Sound 2", "Sound 3"; "First call", "Second call"): the
  labels refer to an order the stem or the recording defines, so every member keeps its index;
* an option that **names other options by letter** ("Both A and B", "Option C"): shuffling would
  change what it says, so the whole item keeps its order.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

_CATCH_ALL_PATTERNS = (
    r"^(none|all|neither|both|any|each) of (the )?"
    r"(above|these|those|them|the others|other options|others|options|choices|answers)\b",
    r"^(none|all|both|neither) (are|is) "
    r"(correct|true|right|equal|the same|possible|valid)\b",
    r"\bindistinguishable\b",
    r"^(it )?(cannot|can't|can not|could not|couldn't) be "
    r"(determined|told|known|inferred)\b",
    r"^(it is )?(impossible|not possible) to (tell|determine|say|know|infer)\b",
    r"^(not|insufficient) (enough )?(information|data|evidence)\b",
    r"^there is (no|not enough) (difference|information|way to tell)\b",
    r"^no (difference|way to tell)\b",
    r"^(neither|both|none)$",
)
_CATCH_ALL = re.compile("|".join(f"(?:{p})" for p in _CATCH_ALL_PATTERNS))
_ORDINALS = ("first", "second", "third", "fourth", "1st", "2nd", "3rd", "4th")
_NUMBERED = re.compile(
    r"^(?:the\s+)?(?P<label>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*){0,2}?)\s*(?:no\.?|#)?\s*"
    r"(?P<num>[1-9]|[A-D])(?=$|[\s:).,;!?])(?![.,]\d)"
)
# Words that put a number in a quantity ("About 4 weeks", "Over 3 kg"), not in a label.
_QUANTIFIERS = frozenset(
    [
        "about",
        "around",
        "approximately",
        "approx",
        "roughly",
        "nearly",
        "almost",
        "over",
        "under",
        "above",
        "below",
        "more",
        "less",
        "fewer",
        "up",
        "at",
        "in",
        "on",
        "by",
        "for",
        "every",
        "each",
        "between",
        "from",
        "to",
        "within",
        "after",
        "before",
        "only",
        "exactly",
        "than",
        "less",
        "least",
        "most",
        "just",
        "some",
    ]
)
_ORDINAL = re.compile(r"^(?:the\s+)?(?P<num>" + "|".join(_ORDINALS) + r")\s+(?P<label>[^\W\d_]+)")
_LETTER_REFERENCE = re.compile(
    r"\b[A-D](?:\s*,\s*[A-D])*,?\s+(?:and|or|nor|&)\s+[A-D]\b"
    r"|\b(?i:options?|answers?|choices?)\s+[A-D]\b"
)

# Cheap tests that let through every item that could have a fixed option (and few others), so
# the per-option patterns run only on those. They read all options at once, joined by NUL, which
# no pattern matches (so no match spans two options and NUL acts as the options' ends).
# On the raw text: a letter A-D ending a word (every letter reference ends with one, and so does
# a label's letter), or a label's number where _NUMBERED accepts it.
_MAYBE_NAMED_OR_NUMBERED = re.compile(r"[A-D]\b|[1-9](?=$|[\s:).,;!?\x00])")
# On the casefolded text: an option starting with a catch-all's first word (after whitespace),
# "indistinguishable" anywhere, or an ordinal anywhere (``_maybe_catch_all_or_ordinal``: string
# methods, several times faster than one regular expression of all the words).
_CATCH_ALL_STARTS = (
    "no",
    "all",
    "neither",
    "both",
    "any",
    "each",
    "it",
    "can",
    "could",
    "impossible",
    "insufficient",
    "there",
)
_ANYWHERE = ("indistinguishable", *_ORDINALS)
_WORDS = tuple(word for word in _ANYWHERE if not word[0].isdigit())  # those without a digit
# Before the first cheap test, cheaper still: it needs a letter A-D or a digit 1-9, and most
# items' options hold none. Their UTF-8 with every other byte deleted (``bytes.translate``, at
# C speed) is empty then, and the search, several times slower, is not run. Casefolding makes
# no digit, so "1st" to "4th" can be in the folded text only when a digit 1-4 is in the text.
_NOT_TRIGGERS = bytes(b for b in range(256) if b not in b"ABCD123456789")
_NOT_ORDINAL_DIGITS = b"ABCD56789"  # deleted from the triggers: what is left is a digit 1-4


def _maybe_fixed(joined: str) -> bool:
    """Both cheap tests on the options joined by NUL: False when no option can be fixed."""
    triggers = joined.encode("utf-8", "surrogatepass").translate(None, _NOT_TRIGGERS)
    if triggers and _MAYBE_NAMED_OR_NUMBERED.search(joined) is not None:
        return True
    return _maybe_catch_all_or_ordinal(
        joined, numbered=bool(triggers.translate(None, _NOT_ORDINAL_DIGITS))
    )


def _maybe_catch_all_or_ordinal(joined: str, numbered: bool = True) -> bool:
    """The second cheap test above, on the options joined by NUL (plain loops: a generator per
    item, or one search per word, cost more here); ``numbered``: whether to look for "1st" to
    "4th" too (``_maybe_fixed`` knows when none can be there)."""
    folded = joined.casefold()
    for word in _ANYWHERE if numbered else _WORDS:
        if word in folded:
            return True
    for part in folded.split("\x00"):  # noqa: SIM110
        if part.lstrip().startswith(_CATCH_ALL_STARTS):
            return True
    return False


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(".!?;:")


def is_catch_all(option: str) -> bool:
    """True for "None of the above"-style options, which must stay where they are."""
    text = _normal(option)
    return _CATCH_ALL.search(text) is not None


def names_other_options(option: str) -> bool:
    """True for options that refer to others by letter ("Both A and B", "Option C")."""
    return _LETTER_REFERENCE.search(option) is not None


def _sequence_label(option: str) -> str | None:
    text = " ".join(option.split())
    ordinal = _ORDINAL.match(text.casefold())
    if ordinal:
        return "ordinal:" + ordinal["label"]
    numbered = _NUMBERED.match(text)
    if numbered is None or numbered["label"].split()[0].casefold() in _QUANTIFIERS:
        return None
    if numbered["num"].isdigit() or numbered["label"][:1].isupper():
        return "numbered:" + numbered["label"].casefold()
    return None


def fixed_positions(options: Sequence[str]) -> frozenset[int]:
    """The indices of ``options`` that must not move (all of them when one names another)."""
    if not _maybe_fixed("\x00".join(options)):
        return frozenset()
    if any(names_other_options(o) for o in options):
        return frozenset(range(len(options)))
    fixed = {i for i, o in enumerate(options) if is_catch_all(o)}
    labels = [_sequence_label(o) for o in options]
    shared = Counter(label for label in labels if label is not None)
    fixed.update(i for i, label in enumerate(labels) if label is not None and shared[label] >= 2)
    return frozenset(fixed)
