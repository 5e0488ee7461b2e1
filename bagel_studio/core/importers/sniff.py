"""Finding the input files and telling their formats apart by content.

Names are only used to skip what a folder walk should never import (hidden files, READMEs and
licences, project files); what a file *is* comes from its bytes: audio magic numbers, binary data,
a GloBI or Xeno-canto header, JSON Lines versus one JSON document, plain text.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bagel_studio.core.importers.globi import is_globi_header
from bagel_studio.core.importers.textio import (
    decode,
    iter_lines,
    looks_binary,
    split_lines,
    to_utf8,
    utf8_chunks,
)
from bagel_studio.core.importers.texts import is_text_document, is_text_map
from bagel_studio.core.importers.xenocanto import (
    AUDIO_SUFFIXES,
    is_audio,
    is_xc_csv_header,
    is_xc_json,
)

ITEM_KEYS = ("question", "stem", "options", "output", "questions")
# A line of the provenance.jsonl a release carries beside its items (export/rows.py): not an item.
PROVENANCE_KEYS = ("original_options", "permutation")
HEAD_BYTES = 65536
MAX_LINE_BYTES = 10_000_000  # default: no item needs more; a longer line is rejected unparsed
# The limit in force (``import --max-line-mb``); a context variable so concurrent imports in one
# process (tests, the desk's writer) each keep their own.
line_limit: ContextVar[int] = ContextVar("line_limit", default=MAX_LINE_BYTES)
# A file that must be read whole (a JSON document rather than JSON Lines) larger than this is
# refused: parsed whole, it would take many times its size in memory. Tables and plain texts are
# read as a stream, a row or a line at a time, in any size.
MAX_DOCUMENT_BYTES = 64_000_000
document_limit: ContextVar[int] = ContextVar("document_limit", default=MAX_DOCUMENT_BYTES)
WALK_SUFFIXES = frozenset(
    {".jsonl", ".ndjson", ".json", ".tsv", ".tab", ".csv", ".txt"} | AUDIO_SUFFIXES
)
_NOT_INPUT = re.compile(
    r"^(readme|licen[cs]e|copying|notice|changelog)|licen[cs]es?\b", re.IGNORECASE
)

# Evidence first, so that references resolve as soon as items arrive.
KIND_ORDER = {
    "globi": 0,
    "text": 1,
    "text-json": 1,
    "xc-csv": 2,
    "xc-json": 2,
    "audio": 3,
    "items": 4,
}
EVIDENCE_KINDS = frozenset(k for k, order in KIND_ORDER.items() if order < KIND_ORDER["items"])


@dataclass(frozen=True)
class Input:
    path: Path  # resolved
    display: str  # as the user would write it: the given path, or given folder + relative path
    explicit: bool  # named directly rather than found in a folder


@dataclass
class Collected:
    inputs: list[Input]
    missing: list[str]  # given paths that do not exist
    ignored: list[str]  # files in given folders that are not input formats
    unnamable: list[str]  # names that are not valid UTF-8, shown with replacement characters
    special: list[str] = field(default_factory=list)  # devices, FIFOs, sockets: never read


def printable(name: str) -> str | None:
    """``name`` if it is valid Unicode, else None (an undecodable file name: its bytes arrive as
    lone surrogates, which can be neither stored in the project nor printed)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return name


def collect(paths: list[str | Path]) -> Collected:
    """Files given or found in given folders, each once, and what was passed over."""
    inputs: list[Input] = []
    missing: list[str] = []
    ignored: list[str] = []
    unnamable: list[str] = []
    special: list[str] = []
    seen: set[Path] = set()

    def add(path: Path, display: str, explicit: bool) -> None:
        resolved = path.resolve()
        if printable(str(resolved)) is None or printable(display) is None:
            unnamable.append(os.fsencode(display).decode("utf-8", "replace"))
            return
        if resolved not in seen:
            seen.add(resolved)
            inputs.append(Input(resolved, display, explicit))

    for given in paths:
        path = Path(given)
        if path.is_dir():
            found, skipped = _walk(path)
            for file in found:
                add(file, os.path.join(str(given), str(file.relative_to(path))), False)
            ignored.extend(os.path.join(str(given), str(s.relative_to(path))) for s in skipped)
        elif path.is_file():
            add(path, str(given), True)
        elif path.exists():  # a device (/dev/zero), a FIFO or a socket: reading may never end
            special.append(printable(str(given)) or os.fsencode(given).decode("utf-8", "replace"))
        else:
            missing.append(printable(str(given)) or os.fsencode(given).decode("utf-8", "replace"))
    ignored = [printable(name) or os.fsencode(name).decode("utf-8", "replace") for name in ignored]
    return Collected(inputs, missing, ignored, unnamable, special)


def _walk(folder: Path) -> tuple[list[Path], list[Path]]:
    found: list[Path] = []
    skipped: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        names = sorted(f for f in files if not f.startswith("."))
        audio_stems = {Path(f).stem for f in names if Path(f).suffix.lower() in AUDIO_SUFFIXES}
        for name in names:
            path = Path(root) / name
            suffix = path.suffix.lower()
            sidecar = suffix == ".txt" and path.stem in audio_stems  # a clip's attribution note
            regular = path.is_file()  # a FIFO or device in a folder is passed over, unread
            if (
                not regular
                or suffix not in WALK_SUFFIXES
                or _NOT_INPUT.search(path.stem)
                or sidecar
            ):
                skipped.append(path)
            else:
                found.append(path)
    return found, skipped


def sniff(head: bytes, suffix: str) -> str:
    """The kind of a file from its first bytes: audio, empty, binary, json, globi, xc-csv,
    table (a header nobody knows) or text."""
    if not head.strip():
        return "empty"
    head = to_utf8(head, complete=False)  # UTF-16/32 text (its mark looks like MP3 frame sync)
    if is_audio(head):
        return "audio"
    if suffix.lower() in AUDIO_SUFFIXES or (looks_binary(head) and not _json_lines(head)):
        return "binary"
    text = decode(head)[0].lstrip("\ufeff")
    if text.lstrip()[:1] in ("{", "[") or suffix.lower() in (".json", ".jsonl", ".ndjson"):
        return "json"
    first_line = re.split(r"\r\n|\r|\n", text, maxsplit=1)[0]
    if is_globi_header(first_line):
        return "globi"
    if is_xc_csv_header(first_line, text[len(first_line) : len(first_line) + 8192]):
        return "xc-csv"
    if "\t" in first_line or suffix.lower() in (".csv", ".tsv", ".tab"):
        return "table"
    return "text"


def _json_lines(head: bytes) -> bool:
    """JSON Lines with a NUL byte in some of their lines, the first too: those lines are
    rejected on their own (see ``item_files``), the file is not binary; so long as the file
    begins as an object does and its lines without a NUL are clean text."""
    body = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    lines = re.split(rb"\r\n|\r|\n", body)
    if len(lines) > 1 and len(head) >= HEAD_BYTES:
        lines.pop()  # cut by the head's end
    clean = [line for line in lines if line.strip() and b"\x00" not in line]
    return body[:1] == b"{" and bool(clean) and not any(looks_binary(line) for line in clean)


def loads(data: bytes) -> Any:
    """``json.loads`` of bytes in any of the encodings we read (UTF-8 first, by json itself).

    What JSON allows but no item can mean is refused like a syntax error (a JSONDecodeError
    saying what it is), never taken silently or left to fail later: a string holding a lone
    surrogate (``"\\ud800"`` unpaired: it could be neither stored nor shown), a key given twice
    in one object (JSON keeps the last without a word), a number of more than
    ``MAX_NUMBER_DIGITS`` digits (Python refuses to read one of over 4,300 with a ValueError
    that is no JSON error), a number out of range (``1e999``) and JSON's non-standard ``NaN``
    and ``Infinity``.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        if data[:1] == b"{" and data[1:2] != b"\x00":
            # What json.loads does with bytes it sees as UTF-8, without its per-call set-up:
            # the common JSON Lines item, read thousands of times per file.
            text = data.decode("utf-8", "surrogatepass")
        else:
            text = data.decode(json.detect_encoding(data), "surrogatepass")
    except UnicodeDecodeError:
        text = decode(data)[0]
    try:
        document = _DECODER.decode(text)
    except _Refused as refused:
        raise json.JSONDecodeError(refused.reason, text, max(text.find(refused.token), 0)) from None
    suspect = _MAYBE_SURROGATE.search(data)
    if suspect is not None and _has_lone_surrogate(document):
        text = data.decode("utf-8", "replace")
        raise json.JSONDecodeError(
            "Lone surrogate in a string (not valid Unicode)", text, suspect.start()
        )
    return document


MAX_NUMBER_DIGITS = 100  # an item's numbers have a few


class _Refused(ValueError):
    """A value the decoder's hooks refuse; ``token``: its text, to say where it was."""

    def __init__(self, reason: str, token: str) -> None:
        super().__init__(reason)
        self.reason, self.token = reason, token


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise _Refused(f"A number of {digits:,} digits (not a value an item holds)", text)
    return int(text)


def _real(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS + 10:
        raise _Refused(f"A number of {len(text):,} characters (not a value an item holds)", text)
    number = float(text)
    if not math.isfinite(number):
        raise _Refused(f"Number {text} out of range (not a finite number)", text)
    return number


def _constant(name: str) -> float:
    raise _Refused(f"Constant {name} is not a number JSON allows", name)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(
                    f"Key {key!r} given twice in one object (JSON would keep the last without"
                    " a word)",
                    json.dumps(key),
                )
            seen.add(key)
    return document


_DECODER = json.JSONDecoder(
    object_pairs_hook=_object, parse_int=_integer, parse_float=_real, parse_constant=_constant
)
# A \uD800-\uDFFF escape, or the bytes of an encoded surrogate: only then is the document walked.
_MAYBE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def classify_json(data: bytes) -> tuple[str, Any]:
    """What a JSON file holds, and the parsed document when it had to be parsed whole:
    ("xc-json" | "text-json", document), ("items-lines", None), ("items-array", list),
    ("items-object", dict), ("other-object", dict): an object with no item field (e.g. a GloBI
    dataset descriptor), ("provenance", dict): a release's provenance.jsonl, or
    ("bad-json", JSONDecodeError)."""
    first = _first_line(data)
    if len(first) > line_limit.get():  # never parsed whole: the overlong line is one reject
        return "items-lines", None
    head = _parsed(first)
    if isinstance(head, dict):
        return _classify_head(head, lambda: data.strip() == first.strip())
    try:
        document = loads(data)
    except RecursionError:
        return "items-lines", None
    except ValueError as exc:
        if first.strip() in (b"{", b"["):  # a pretty-printed document, broken somewhere
            return "bad-json", exc
        return "items-lines", None
    if is_xc_json(document):
        return "xc-json", document
    if isinstance(document, dict) and (is_text_document(document) or is_text_map(document)):
        return "text-json", document
    if isinstance(document, list):
        return "items-array", document
    if isinstance(document, dict):
        item_like = any(k in document for k in ITEM_KEYS)
        return ("items-object" if item_like else "other-object"), document
    return "items-lines", None


def classify_file(path: Path, *, whole: bool = True) -> tuple[str, Any]:
    """``classify_json`` of a file, reading no more of it than needed: JSON Lines (and the
    evidence kinds told by their first line) from the first line, read as a stream; a file
    within ``document_limit`` whole, as before, or with ``whole=False`` not at all:
    ("document", the first byte of its first line), for the caller to read once and classify
    with ``classify_json``; a larger JSON document (an array, or an object spread over lines) is
    not read: ("too-large", its size in bytes)."""
    limit = line_limit.get()
    with open(path, "rb") as handle:
        content = (
            (line, size)
            for line, size in iter_lines(utf8_chunks(handle, HEAD_BYTES), limit, 0)
            if size > limit or line.strip()
        )
        first, first_size = next(content, (b"", 0))
        if first_size > limit:  # never parsed whole: the overlong line is one reject
            return "items-lines", None
        head = _parsed(first)
        if isinstance(head, dict):
            return _classify_head(head, lambda: next(content, None) is None)
        size = path.stat().st_size
        if size <= document_limit.get():
            if not whole:
                return "document", first.lstrip(b"\xef\xbb\xbf \t")[:1]
            return classify_json(to_utf8(path.read_bytes()))
        second = next(content, (b"", 0))[0]
    if first.lstrip().startswith(b"[") or not isinstance(_parsed(second), dict):
        return "too-large", size
    return "items-lines", None  # JSON Lines whose first line is broken: a reject of its own


def _parsed(line: bytes) -> Any:
    try:
        return loads(line)
    except (ValueError, RecursionError):
        return None


def _classify_head(head: dict[str, Any], single: Callable[[], bool]) -> tuple[str, Any]:
    """The kind of a file whose first line is the JSON object ``head``; ``single()`` says
    whether that line is all the file holds."""
    if is_xc_json(head):
        return "xc-json", head
    if is_text_document(head) or is_text_map(head):
        return "text-json", head
    if not any(k in head for k in ITEM_KEYS) and all(k in head for k in PROVENANCE_KEYS):
        return "provenance", head
    if not any(k in head for k in ITEM_KEYS) and single():
        return "other-object", head
    return "items-lines", None


_ITEM_KEY = re.compile(rb'"(?:' + b"|".join(k.encode() for k in ITEM_KEYS) + rb')"\s*:')
SHOWN_KEYS = 6  # of a file passed over, the keys named


def without_items(path: Path, head: bytes) -> str | None:
    """What a JSON file holds when it holds no item (``head``: its first bytes, as read to tell
    its format): "N objects; keys: ..." of a species list, a dataset descriptor, a log. None
    when it may hold items: an item's field occurs in it, a line of it is not JSON (a broken
    item, whose reject the curator must see), or it is a document too large to read whole
    (read as items, it is refused as such). Evidence and recording metadata are told apart
    before (``classify_file``)."""
    if _ITEM_KEY.search(to_utf8(head, complete=False)):
        return None  # an item file: its first line says so, and it is not read again here
    if path.stat().st_size > document_limit.get():
        return None
    data = to_utf8(path.read_bytes())
    if _ITEM_KEY.search(data):
        return None
    try:
        document = loads(data)
        values = document if isinstance(document, list) else [document]
    except (ValueError, RecursionError):
        values = []
        for line in split_lines(data):
            if not line.strip():
                continue
            try:
                values.append(loads(line))
            except (ValueError, RecursionError):
                return None
    return "JSON with no items, evidence or recording metadata (" + _described(values) + ")"


def _described(values: list[Any]) -> str:
    """'20 objects; keys: species, taxon_id', '3 values' or 'empty'."""
    objects = [v for v in values if isinstance(v, dict)]
    if not values:
        return "empty"
    if not objects:
        return f"{len(values):,} value{'s' if len(values) != 1 else ''}, no object"
    keys = list(dict.fromkeys(str(k) for value in objects for k in value))
    named = ", ".join(keys[:SHOWN_KEYS]) + (", ..." if len(keys) > SHOWN_KEYS else "")
    plural = "s" if len(objects) != 1 else ""
    return f"{len(objects):,} object{plural}; keys: {named or 'none'}"


def _first_line(data: bytes) -> bytes:
    for line in re.finditer(rb"[^\r\n]*", data):
        if line.group(0).strip():
            return line.group(0)
    return b""
