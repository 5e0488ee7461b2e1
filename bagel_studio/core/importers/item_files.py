"""Reading an item file into an ``ItemBatch``: JSON Lines, a JSON array, or one JSON object.

JSON Lines are read line by line so that one broken line (truncated, not JSON, 50 MB long, in
another encoding) is one reject and every other line still imports; they are read as a stream,
so memory does not grow with the file.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bagel_studio.core.importers.items import ItemBatch
from bagel_studio.core.importers.sniff import (
    classify_file,
    classify_json,
    document_limit,
    line_limit,
    loads,
)
from bagel_studio.core.importers.textio import (
    Readable,
    decode_line,
    iter_lines,
    to_utf8,
    utf8_chunks,
)
from bagel_studio.core.store.imports import RAW_LIMIT

# What a JSON Lines file's batch may hold before it is handed over to be written: a file of many
# malformed lines (or generator rejections) is written as it comes, as one of items is.
CHUNK_ITEMS = 5000  # items, or generator rejections
CHUNK_REJECTS = 1000  # rejects
CHUNK_REJECT_CHARS = 8 << 20  # characters of the rejects' text


def read_items(
    reader: Readable,
    path: Path,
    display: str,
    write: Callable[[ItemBatch], None] | None = None,
) -> ItemBatch:
    """Every item, generator rejection and reject in the item file at ``path``, read through
    ``reader`` (the file, opened at its start), once.

    JSON Lines are read as a stream, a line at a time (UTF-16/32 transcoded as it is read), and
    with ``write`` handed to it every ``CHUNK_ITEMS`` items, or as many generator rejections, or
    ``CHUNK_REJECTS`` rejects (it writes them, and the batch forgets them, see
    ``ItemBatch.hand_over``), so a file of any length, of any lines, takes bounded memory; the
    batch returned holds what came after the last hand-over. A JSON document (an array of items,
    or one object spread over lines) is parsed whole, up to ``sniff.document_limit``; a larger
    one is one reject that says so. What it is, is told from its first line (a head read apart).
    """
    batch = ItemBatch(display)
    kind, document = classify_file(path, whole=False)
    data = b""
    if kind == "document":
        data = to_utf8(reader.read())  # within the document limit (classify_file)
        kind, document = classify_json(data)
    if kind == "items-lines":  # JSON Lines, read as they come (or as read, when read whole)
        _read_lines([data] if data else utf8_chunks(reader), batch, write)
    elif kind == "too-large":
        batch.reject(
            1,
            f"a JSON document of {document / 1e6:.1f} MB, larger than the"
            f" {document_limit.get() / 1e6:g} MB a document may take (import --max-document-mb);"
            " not read. Write the items as JSON Lines, one item per line, which are read in any"
            " length",
        )
    elif kind == "items-array":
        _read_array(data, document, batch)
    elif kind == "items-object":
        batch.add_record(document, 1, "")
    elif kind == "other-object":
        head = data[:4096] if data else reader.read(4096)
        batch.reject(
            1,
            "a JSON object that is no item, envelope, Xeno-canto metadata or text"
            f" (keys: {', '.join(list(document)[:8])})",
            to_utf8(head, complete=False),
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


def _read_lines(
    chunks: Iterable[bytes], batch: ItemBatch, write: Callable[[ItemBatch], None] | None
) -> None:
    limit = line_limit.get()
    chunks = iter(chunks)
    first = next(chunks, b"")
    # A file that is UTF-8 (its first megabyte holds UTF-8 beyond ASCII, or a line further down
    # does) has each line that is not valid UTF-8 refused: read as CP1252 it would be mojibake.
    # A file without any is read a line at a time in the encoding that line is in, as before.
    utf8 = _UTF8_BEYOND_ASCII.search(first) is not None
    lines = iter_lines(itertools.chain([first], chunks), limit, RAW_LIMIT)
    for number, (line, size) in enumerate(lines, start=1):
        if write is not None and _full(batch):
            write(batch)
            batch.hand_over()
        if size > limit:
            reason = (
                f"line is {size / 1e6:.1f} MB, longer than the"
                f" {limit / 1e6:g} MB an item may take (import --max-line-mb); not parsed"
            )
            batch.reject(number, reason, line, size)  # its head is kept, and its size
            continue
        if not line or line.isspace():  # blank (without copying the line to strip it)
            continue
        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if b"\x00" in line:  # binary data in this line only: the others still import
            batch.reject(number, "NUL byte in the line (binary data); not parsed", "")
            continue
        if not line.isascii():
            try:
                line.decode("utf-8")
                utf8 = True
            except UnicodeDecodeError as exc:
                if utf8:
                    batch.reject(number, _not_utf8(line, exc), decode_line(line))
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


# A character of UTF-8 beyond ASCII (two to four bytes), which CP1252 text hardly ever holds
_UTF8_BEYOND_ASCII = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)


def _not_utf8(line: bytes, exc: UnicodeDecodeError) -> str:
    byte = line[exc.start]
    return (
        f"invalid UTF-8 (byte 0x{byte:02X} at column {exc.start + 1}) in a UTF-8 file; not read"
        " as another encoding, which would store it garbled"
    )


def _full(batch: ItemBatch) -> bool:
    return (
        len(batch.items) >= CHUNK_ITEMS
        or len(batch.generator_rejections) >= CHUNK_ITEMS
        or len(batch.rejects) >= CHUNK_REJECTS
        or batch.reject_chars >= CHUNK_REJECT_CHARS
    )


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
