"""Reading the fields of one generated question: options, gold answer, evidence references.

Input is read tolerantly (FORMATS.md 1-2): options as a list or an ``{"A".."D"}`` object; the gold
as a letter, a 0-based index or the exact option text, under several key names. A field of the
wrong *type* (options that are a string, a question that is a number) means the line is not an
item at all and raises ``NotAnItem``; a field with the wrong *value* (three options, a gold that
matches nothing) still makes an item, which the structural checks then block.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from bagel_studio.core.domains import LETTERS

ANSWER_KEYS = ("answer", "gold", "correct_answer", "answer_index", "label")
QUESTION_KEYS = ("question", "stem")

_LETTER = re.compile(r"^\(?(?:option\s+)?([A-Za-z])[).:]?$", re.IGNORECASE)
_LETTERED_TEXT = re.compile(r"^\(?([A-Za-z])[).:]\s+(.+)$", re.DOTALL)
_XC_ID = re.compile(r"(?<![A-Za-z0-9])XC\s*-?(\d+)(?!\d)", re.IGNORECASE)


class NotAnItem(ValueError):
    """A record that cannot become an item; the message is the reject reason."""


def question_text(record: dict[str, Any]) -> str:
    """The question of a record, from the first of its keys (``question``, ``stem``) that holds
    text; NotAnItem when there is none, or when it is not text, so that the reject says which."""
    for key in QUESTION_KEYS:
        if key in record:
            value = record[key]
            if not isinstance(value, str):
                raise NotAnItem(f"'{key}' must be text, not {type_name(value)}")
            if value.strip():
                return value.strip()
    raise NotAnItem("no question text")


def read_options(raw: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(option texts, their letters) from a list or an object keyed by letters."""
    if isinstance(raw, list):
        if len(raw) == len(LETTERS):  # the common case: four strings (str.strip refuses others)
            try:
                return tuple(map(str.strip, raw)), LETTERS
            except TypeError:
                pass
        texts = tuple(_option_text(value, str(i + 1)) for i, value in enumerate(raw))
        letters = tuple(LETTERS[i] if i < len(LETTERS) else str(i + 1) for i in range(len(raw)))
        return texts, letters
    if isinstance(raw, dict):
        keyed: list[tuple[str, str]] = []
        for key, value in raw.items():
            match = _LETTER.match(str(key).strip())
            if not match:
                raise NotAnItem(f"options object has key {key!r}; expected letters A-D")
            keyed.append((match.group(1).upper(), _option_text(value, str(key))))
        keyed.sort()
        return tuple(t for _, t in keyed), tuple(k for k, _ in keyed)
    if raw is None:
        raise NotAnItem("no options")
    raise NotAnItem(f"options must be a list or an object with keys A-D, not {type_name(raw)}")


def _option_text(value: Any, name: str) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise NotAnItem(f"option {name} must be text, not {type_name(value)}")


def raw_answer(record: dict[str, Any]) -> Any:
    """The gold as given, under whichever of its names the generator used."""
    for key in ANSWER_KEYS:
        if record.get(key) is not None:
            return record[key]
    return None


def given_answer(record: dict[str, Any]) -> str | None:
    """The gold as given, as text (a number or a list as JSON), or None when none was given."""
    value = raw_answer(record)
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def gold_index(
    record: dict[str, Any], options: tuple[str, ...], letters: tuple[str, ...]
) -> int | None:
    """The gold's position from ``record``; an ``answer_index`` that names another option than
    the answer given under another name (a letter, the text) makes the line no item."""
    index = answer_index(raw_answer(record), options, letters)
    given = record.get("answer_index")
    if given is not None and any(record.get(k) is not None for k in ANSWER_KEYS[:3]):
        other = answer_index(given, options, letters)
        if other != index:
            named = next(k for k in ANSWER_KEYS[:3] if record.get(k) is not None)
            raise NotAnItem(
                f"{named} {record[named]!r} and answer_index {given!r} name different options"
            )
    return index


def answer_index(value: Any, options: tuple[str, ...], letters: tuple[str, ...]) -> int | None:
    """The 0-based position of the gold among ``options``, or None when it matches none."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < len(options) else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text in options:
        return options.index(text)
    match = _LETTER.match(text)
    if match and match.group(1).upper() in letters:
        return letters.index(match.group(1).upper())
    if text.isdigit():
        index = int(text)
        return index if index < len(options) else None
    folded = [_fold(o) for o in options]
    if _fold(text) in folded:
        return folded.index(_fold(text))
    prefixed = _LETTERED_TEXT.match(text)  # "B) Prides": the letter counts if the text agrees
    if prefixed and prefixed.group(1).upper() in letters:
        index = letters.index(prefixed.group(1).upper())
        if _fold(prefixed.group(2)) == folded[index]:
            return index
    return None


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def recording_id(value: Any) -> str | None:
    """The id, "XC" and digits, of anything naming a Xeno-canto recording ("XC536501",
    "xc 536501", 536501, "https://xeno-canto.org/536501"), or None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return f"XC{value}"
    text = str(value).strip()
    if text.isdigit():
        return f"XC{int(text)}"
    match = _XC_ID.search(text)
    if match:
        return f"XC{int(match.group(1))}"
    url = re.search(r"xeno-canto\.org/(\d+)", text)
    return f"XC{int(url.group(1))}" if url else None


def text_list(value: Any) -> tuple[str, ...]:
    """A field that may be text, a list or anything else, as a tuple of texts (JSON for what is
    not text), so that evidence in any shape is kept rather than dropped."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, list):
        return tuple(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in value)
    return (json.dumps(value, ensure_ascii=False),)


def optional_text(value: Any) -> str | None:
    """A field as stripped text (JSON for what is not text), or None when it is empty or absent."""
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.strip() or None


def stable_id(prefix: str, payload: Any) -> str:
    """An id for an item that came without one: the same content always gets the same id."""
    data = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return f"{prefix}:{hashlib.sha256(data.encode('utf-8')).hexdigest()[:12]}"


def type_name(value: Any) -> str:
    """What a JSON value is, in a curator's words (a number, text, a list), for the rejects'
    messages."""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)
