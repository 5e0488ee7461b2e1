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

ITEM_FIELDS = (
    "id",
    "domain",
    "dimension",
    "level",
    "question",
    "options",
    "answer",
    "answer_index",
    "recording",
)


# What ``json.dumps(value, ensure_ascii=False, sort_keys=...)`` writes, without building a new
# encoder for every one of the 12k x 3 rows of a release.
_SORTED = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode
_IN_ORDER = json.JSONEncoder(ensure_ascii=False).encode


def dumps_line(value: Any, *, sort_keys: bool = True) -> str:
    """One JSONL line (with its "\\n")."""
    return (_SORTED if sort_keys else _IN_ORDER)(value) + "\n"


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


def items_jsonl(items: Iterable[ReleasedItem]) -> bytes:
    return "".join(item_lines(items)).encode("utf-8")


def item_lines(items: Iterable[ReleasedItem]) -> list[str]:
    """Each item's JSONL line; the data files share them (every item is in two files)."""
    return [item_line(r) for r in items]


def item_line(released: ReleasedItem) -> str:
    return _IN_ORDER(item_row(released)) + "\n"


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
            "file": _base_name(item.source_file) if item.source_file else None,
            "line": item.source_line,
            "generator": _strip_paths(item.source),
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
        "decisions": [_decision(r, content) for r in released.reviews],
        "adjudication": _adjudication(adjudication, content) if adjudication else None,
    }


def provenance_jsonl(items: Iterable[ReleasedItem]) -> bytes:
    return "".join([provenance_line(r) for r in items]).encode("utf-8")


def provenance_line(released: ReleasedItem) -> str:
    """``dumps_line(provenance_row(released))``, written out directly: the JSON encoder spent
    more time on the 12k provenance rows than on everything else in them (sorting every dict's
    keys, one call per value). The keys below are in sorted order; rare or nested parts go
    through the encoder. ``test_export_rows`` checks that both agree."""
    item, content = released.item, released.content
    revised = content != item.original
    adjudication = released.adjudication
    decisions = ", ".join([_decision_json(r, content) for r in released.reviews])
    decided = _SORTED(_adjudication(adjudication, content)) if adjudication else "null"
    source = item.source
    generator = "{}" if type(source) is dict and not source else _SORTED(_strip_paths(source))
    return (
        f'{{"adjudication": {decided}, '
        f'"after": {_SORTED(content_json(content)) if revised else "null"}, '
        f'"answer_index": {_json(released.answer_index)}, '
        f'"before": {_SORTED(content_json(item.original)) if revised else "null"}, '
        f'"decisions": [{decisions}], "domain": {_json(item.domain)}, '
        f'"fixed_positions": {_ints(sorted(released.fixed))}, "id": {_json(item.id)}, '
        f'"movable": {_json(released.movable)}, '
        f'"original_answer_index": {_json(content.answer_index)}, '
        f'"original_options": {_json(list(content.options))}, '
        f'"permutation": {_ints(released.order)}, "revised": {_json(revised)}, '
        f'"source": {{"file": {_json(_base_name(item.source_file) if item.source_file else None)}, '
        f'"generator": {generator}, '
        f'"globi_ref": {_json(item.globi_ref)}, "line": {_json(item.source_line)}, '
        f'"recording": {_json(recording_id(item))}, '
        f'"recording_licence": {_json(released.recording_licence)}, '
        f'"text_key": {_json(item.text_key)}}}, "source_item_id": {_json(item.id)}}}\n'
    )


def _decision_json(review: Review, released: ItemContent) -> str:
    """``_SORTED(_decision(review, released))``, written out directly (see ``provenance_line``)."""
    content = "null" if review.content == released else _SORTED(content_json(review.content))
    return (
        f'{{"blind_answer": {_json(review.blind_answer)}, "content": {content}, '
        f'"curator": {_json(review.curator)}, "decided_at": {_json(review.decided_at)}, '
        f'"decision": {_json(review.decision.value)}, '
        f'"merged": {"true" if review.origin != "local" else "false"}, '
        f'"note": {_json(review.note)}, "reason": {_json(review.reason)}}}'
    )


def _json(value: Any) -> str:
    """JSON of one value, as the encoder writes it; the common simple values directly."""
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
    return _SORTED(value)


def _ints(values: Iterable[int]) -> str:
    return "[" + ", ".join([_json(v) for v in values]) + "]"


def _decision(review: Review, released: ItemContent) -> dict[str, Any]:
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


def _adjudication(data: dict[str, Any], released: ItemContent) -> dict[str, Any]:
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
def _base_name(path: str) -> str:
    """A source file's name without its folders (few distinct files, 12k items)."""
    return PurePath(path).name


def _strip_paths(value: Any) -> Any:
    """The generator's source record, with any file path cut to its base name."""
    if isinstance(value, dict):
        return {str(k): _strip_paths(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_paths(v) for v in value]
    if isinstance(value, str) and ("/" in value or "\\" in value) and "://" not in value:
        looks_like_path = value.startswith(("/", "~", ".")) or (len(value) > 2 and value[1] == ":")
        if looks_like_path:
            return PurePath(value.replace("\\", "/")).name
    return value
