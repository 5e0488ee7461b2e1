"""Reading an item file into an ``ItemBatch``: JSON Lines, a JSON array, or one JSON object.

JSON Lines are read line by line so that one broken line (truncated, not JSON, 50 MB long, in
another encoding) is one reject and every other line still imports.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bagel_studio.core.importers.items import ItemBatch
from bagel_studio.core.importers.sniff import classify_json, line_limit, loads
from bagel_studio.core.importers.textio import decode_line, split_lines

LineProgress = Callable[[int], None]
PROGRESS_EVERY = 2000


def read_items(data: bytes, display: str, advance: LineProgress | None = None) -> ItemBatch:
    """Every item, generator rejection and reject in ``data`` (the bytes of one item file)."""
    batch = ItemBatch(display)
    kind, document = classify_json(data)
    if kind == "items-lines":
        _read_lines(data, batch, advance)
    elif kind == "items-array":
        _read_array(data, document, batch)
    elif kind == "items-object":
        batch.add_record(document, 1, "")
    elif kind == "other-object":
        batch.reject(
            1,
            "a JSON object that is no item, envelope, Xeno-canto metadata or text"
            f" (keys: {', '.join(list(document)[:8])})",
            data[:4096],
        )
    elif kind == "bad-json":
        assert isinstance(document, json.JSONDecodeError)
        batch.reject(
            document.lineno,
            _json_error(document, len(data)),
            data[: line_limit.get()].decode("utf-8", "replace"),
        )
    else:
        batch.reject(1, f"not an item file ({kind.replace('-json', '')} JSON)")
    return batch


def _read_lines(data: bytes, batch: ItemBatch, advance: LineProgress | None) -> None:
    limit = line_limit.get()
    consumed = 0
    for number, line in enumerate(split_lines(data), start=1):
        consumed += len(line) + 1
        if advance is not None and number % PROGRESS_EVERY == 0:
            advance(consumed)
        if not line or line.isspace():  # blank (without copying the line to strip it)
            continue
        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if len(line) > limit:
            reason = (
                f"line is {len(line) / 1e6:.1f} MB, longer than the"
                f" {limit / 1e6:g} MB an item may take (import --max-line-mb); not parsed"
            )
            batch.reject(number, reason, decode_line(line))  # the store keeps its head and size
            continue
        if b"\x00" in line:  # binary data in this line only: the others still import
            batch.reject(number, "NUL byte in the line (binary data); not parsed", "")
            continue
        try:
            record = loads(line)
        except json.JSONDecodeError as exc:
            batch.reject(number, _json_error(exc, len(line)), decode_line(line))
            continue
        except RecursionError:
            batch.reject(number, "invalid JSON: nested too deeply", decode_line(line))
            continue
        batch.add_record(record, number, line)


def _read_array(data: bytes, document: list[Any], batch: ItemBatch) -> None:
    """Elements of a JSON array, each with the line it starts on (found with ``raw_decode``)."""
    text = data.decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    position = text.index("[") + 1
    line = 1 + text.count("\n", 0, position)
    for element in document:
        start = _skip_separators(text, position)
        line += text.count("\n", position, start)
        try:
            _, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:  # re-decoding with replacement characters failed
            end = start
        raw = text[start:end]
        batch.add_record(element, line, raw)
        line += text.count("\n", start, end)
        position = end


def _skip_separators(text: str, position: int) -> int:
    while position < len(text) and (text[position].isspace() or text[position] == ","):
        position += 1
    return position


def _json_error(exc: json.JSONDecodeError, length: int) -> str:
    where = f"{exc.msg[0].lower()}{exc.msg[1:]}{'' if exc.msg.endswith(' at') else ' at'}"
    detail = (
        f"{where} line {exc.lineno} column {exc.colno}"
        if exc.lineno > 1
        else (f"{where} column {exc.colno}")
    )
    at_end = exc.pos >= length - 2 and exc.msg.startswith("Expecting")
    if at_end or exc.msg.startswith("Unterminated string"):
        return f"truncated JSON ({detail})"
    return f"invalid JSON: {detail}"
