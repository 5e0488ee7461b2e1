"""Reading a letter out of a model's reply: strict, lenient or invalid."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bagel_studio.core.domains import LETTERS

STRICT = "strict"  # the reply is exactly one of A-D (surrounding whitespace aside)
LENIENT = "lenient"  # the first standalone A-D letter of a longer reply
INVALID = "invalid"  # no letter found; the raw reply is kept
FAILED = "failed"  # no reply at all (the request failed); the error is kept
PARSES = (STRICT, LENIENT, INVALID, FAILED)

_STANDALONE = re.compile(r"(?<![A-Za-z0-9])([ABCD])(?![A-Za-z0-9])")


@dataclass(frozen=True)
class ParsedLetter:
    parse: str
    letter: str | None


def parse_letter(reply: str | None) -> ParsedLetter:
    """The paper's format is one capital letter; anything else is read leniently or is invalid."""
    text = (reply or "").strip()
    if text in LETTERS:
        return ParsedLetter(STRICT, text)
    match = _STANDALONE.search(text)
    if match:
        return ParsedLetter(LENIENT, match.group(1))
    return ParsedLetter(INVALID, None)
