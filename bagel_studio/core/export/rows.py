"""The JSON written into a release: item rows, provenance rows, and the project's content hash.

Bytes must not depend on anything but the project and the seed, so every object is written with a
fixed key order (item rows) or sorted keys (everything else), ``ensure_ascii=False``, UTF-8 and
"\\n" line ends, and nothing about the run (time, machine, paths) goes in. Source file names are
reduced to their base names for the same reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from json.encoder import encode_basestring
from pathlib import PurePath
from typing import Any

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.export.plan import ReleasedItem, content_json, recording_id
from bagel_studio.core.model import ItemContent, Review, json_strings

# What ``json.dumps(value, ensure_ascii=False, sort_keys=...)`` writes, without building a new
# encoder for every one of the 12k x 3 rows of a release.
SORTED = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode
IN_ORDER = json.JSONEncoder(ensure_ascii=False).encode


def dumps_document(value: Any) -> bytes:
    """A whole JSON file: indented, sorted keys, final newline."""
    return (json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")


def item_row(released: ReleasedItem) -> dict[str, Any]:
    """The released item in the flat release format (FORMATS.md section 1), fields in fixed order.

    ``recording`` appears only on items generated from a Xeno-canto recording.
    """
    content = released.content
    answer_index = released.answer_index
    row: dict[str, Any] = {
        "id": released.item.id,
        "domain": released.item.domain,
        "dimension": content.dimension,
        "level": content.level,
        "question": content.question,
        "options": list(released.options),
        "answer": LETTERS[answer_index],
        "answer_index": answer_index,
    }
    recording = recording_id(released.item)
    if recording:
        row["recording"] = recording
    return row


def provenance_row(released: ReleasedItem) -> dict[str, Any]:
    """Where a released item came from, what was done to it, and who decided."""
    item, content = released.item, released.content
    revised = content != item.original
    adjudication = released.adjudication
    return {
        "id": item.id,
        "source_item_id": item.id,
        "domain": item.domain,
        "source": {
            "file": base_name(item.source_file) if item.source_file else None,
            "line": item.source_line,
            "generator": strip_paths(item.source),
            "recording": recording_id(item),
            "recording_licence": released.recording_licence,
            "globi_ref": item.globi_ref,
            "text_key": item.text_key,
        },
        "original_options": list(content.options),
        "original_answer_index": content.answer_index,
        "permutation": list(released.order),
        "fixed_positions": sorted(released.fixed),
        "movable": released.movable,
        "answer_index": released.answer_index,
        "revised": revised,
        "before": content_json(item.original) if revised else None,
        "after": content_json(content) if revised else None,
        "decisions": [decision_row(r, content) for r in released.reviews],
        "adjudication": adjudication_row(adjudication, content) if adjudication else None,
    }


def json_value(value: Any) -> str:
    """JSON of one value as ``SORTED`` writes it; the common simple values directly."""
    if value is None:
        return "null"
    if type(value) is str:
        return str(encode_basestring(value))
    if type(value) is int:
        return str(value)
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is list and all(type(v) is str for v in value):
        return json_strings(value)
    return SORTED(value)


def ints_json(values: Iterable[int]) -> str:
    """A list of integers as JSON, each written as ``json_value`` writes it."""
    return "[" + ", ".join([json_value(v) for v in values]) + "]"


def plain_json(value: Any) -> str:
    """JSON of one value of an item row as ``IN_ORDER`` writes it (keys of a mapping, which
    no released field should be, in their own order)."""
    if value is None:
        return "null"
    if type(value) is str:
        return str(encode_basestring(value))
    return IN_ORDER(value)


def decision_row(review: Review, released: ItemContent) -> dict[str, Any]:
    """One curator's decision as the provenance records it; its content only when it differs from
    the released content, so that an unchanged item's row stays short."""
    return {
        "curator": review.curator,
        "decision": review.decision.value,
        "reason": review.reason,
        "note": review.note,
        "decided_at": review.decided_at,
        "merged": review.origin != "local",
        "blind_answer": review.blind_answer,
        "content": None if review.content == released else content_json(review.content),
    }


def adjudication_row(data: dict[str, Any], released: ItemContent) -> dict[str, Any]:
    """The adjudicator's decision as the provenance records it; its content, likewise, only when
    it differs from the released content."""
    content: ItemContent = data["content"]
    return {
        "adjudicator": data["adjudicator"],
        "decision": data["decision"],
        "reason": data["reason"],
        "note": data["note"],
        "decided_at": data["decided_at"],
        "content": None if content == released else content_json(content),
    }


@lru_cache(maxsize=1024)
def base_name(path: str) -> str:
    """A source file's name without its folders (few distinct files, 12k items)."""
    return PurePath(path).name


def strip_paths(value: Any) -> Any:
    """The generator's source record, with any file path cut to its base name."""
    if isinstance(value, dict):
        return {str(k): strip_paths(v) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_paths(v) for v in value]
    if isinstance(value, str) and ("/" in value or "\\" in value) and "://" not in value:
        looks_like_path = value.startswith(("/", "~", ".")) or (len(value) > 2 and value[1] == ":")
        if looks_like_path:
            return PurePath(value.replace("\\", "/")).name
    return value
