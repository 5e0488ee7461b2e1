"""Reading input bytes as text: encodings, line endings and binary data.

Real input files come as UTF-8, CP1252, Mac Roman or Latin-1, with LF, CRLF or CR-only line
endings. These helpers decide once per file (or per line, for JSON Lines) and say what they decided,
so the import summary can tell the curator which encoding was assumed. Bytes that are not UTF-8 are
a single-byte encoding of which nothing in the file says which: CP1252 and Mac Roman are told apart
by what each makes of the accented bytes (``legacy_encoding``), and the choice is a guess
(``is_guess``), which the summary and the record cards say.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from typing import Protocol

UTF8 = "utf-8"
CP1252 = "cp1252"
MAC_ROMAN = "mac_roman"
LATIN1 = "latin-1"
GUESSED = frozenset({CP1252, MAC_ROMAN, LATIN1})  # encodings the bytes alone suggest

_NEWLINE = re.compile(rb"\r\n|\r|\n")
_CONTROL = (frozenset(range(32)) - {9, 10, 12, 13}) | {127}
_NOT_CONTROL = bytes(b for b in range(256) if b not in _CONTROL)
BINARY_SAMPLE = 8192


class Readable(Protocol):
    """What the readers read from: a binary file, or one that hashes what it reads."""

    def read(self, size: int = -1, /) -> bytes: ...


def decode(data: bytes) -> tuple[str, str]:
    """``data`` as text and the encoding used: UTF-8 (BOM removed), else the single-byte encoding
    its bytes read best in (``legacy_encoding``: CP1252, Mac Roman or Latin-1)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    wide = wide_encoding(data)
    if wide is not None:
        return to_utf8(data).decode("utf-8"), wide
    try:
        return data.decode(UTF8), UTF8
    except UnicodeDecodeError:
        pass
    encoding = legacy_encoding(data[:LEGACY_SAMPLE], line_ending(data[:LEGACY_SAMPLE]) == "CR")
    return data.decode(encoding), encoding


def is_guess(encoding: str) -> bool:
    """True for an encoding chosen from the bytes' statistics alone (a file not UTF-8)."""
    return encoding in GUESSED


LEGACY_SAMPLE = 1 << 20  # bytes of a file looked at to tell its single-byte encoding
# Letters of Western European text (Spanish, Portuguese, French, German, Nordic): a byte that
# reads as one of these, in a word of the same case, reads right.
_COMMON_LETTERS = frozenset(
    "áéíóúàèìòùâêîôûäëïöüãõñçýÿåæøß" + "áéíóúàèìòùâêîôûäëïöüãõñçýåæø".upper()
)
_APOSTROPHES = frozenset("’‘")
_COMMON_MARKS = frozenset("“”«»–—…•°±×·¿¡ºª©®€£§\xa0")


def legacy_encoding(sample: bytes, cr_only: bool = False) -> str:
    """CP1252, Mac Roman or Latin-1 for bytes that are not UTF-8: the one in which the bytes
    above 127 read most like Western European text. Each such character is scored in its
    context: an accented letter in a word of its own case is likely, a capital after a small
    letter is not, nor a dash, a symbol or an undefined byte between two letters ("tr—fica" is
    Mac Roman's "trófica" read as CP1252; "PyrÈnÈes" is CP1252's "Pyrénées" read as Mac
    Roman), nor a letter between two digits (CP1252's "444–448", a range of pages, is Mac
    Roman's "444ñ448"). CR-only line endings, the classic Mac's, decide a tie. CP1252 with
    undefined bytes (which Latin-1 maps to control characters) is read as Latin-1."""
    windows = _plausibility(sample.decode(CP1252, "replace"))
    mac = _plausibility(sample.decode(MAC_ROMAN))
    if mac > windows or (mac == windows and cr_only and not sample.isascii()):
        return MAC_ROMAN
    try:
        sample.decode(CP1252)
    except UnicodeDecodeError:
        return LATIN1
    return CP1252


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
SAMPLE_WORDS = 3  # words with accents a guessed encoding is shown by
_ACCENTED_WORD = re.compile(r"\w*(?:(?![\x00-\x7f])[^\W\d_])\w*")  # a letter beyond ASCII


def _plausibility(text: str) -> float:
    """The sum of the scores of the characters above 127 of ``text`` (see legacy_encoding)."""
    score = 0.0
    last = len(text) - 1
    for match in _NON_ASCII.finditer(text):
        at = match.start()
        char = match.group()
        before = text[at - 1] if at else " "
        after = text[at + 1] if at < last else " "
        score += _score(char, before, after)
    return score


def _score(char: str, before: str, after: str) -> float:
    if before.isdigit() and after.isdigit():
        return -1.0 if char.isalpha() else 1.0  # "444–448" is a range, "444ñ448" no word
    if char.isalpha():
        if char.isupper() and before.isalpha() and before.islower():
            return -1.0  # a capital inside a word
        return 1.0 if char in _COMMON_LETTERS else 0.25
    if char in _APOSTROPHES:
        return 1.0 if before.isalpha() or after.isalpha() else 0.0
    if before.isalpha() and after.isalpha():
        return -1.0  # a dash or a symbol inside a word
    return 0.5 if char in _COMMON_MARKS else -1.0


# Longest first: the UTF-32 LE mark begins with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def wide_encoding(data: bytes) -> str | None:
    """UTF-16 or UTF-32 (LE/BE) when ``data`` starts with that byte order mark, else None."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    return None


def to_utf8(data: bytes, *, complete: bool = True) -> bytes:
    """``data`` re-encoded as UTF-8 when it is UTF-16/32 with a byte order mark (mark dropped),
    else unchanged; so every reader after this sees bytes it knows. ``complete=False`` for the
    head of a file, which may end inside a character."""
    encoding = wide_encoding(data)
    if encoding is None:
        return data
    bom = next(b for b, e in _BOMS if e == encoding)
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    return decoder.decode(data[len(bom) :], final=complete).encode("utf-8")


def decode_line(line: bytes) -> str:
    """One line of a line-oriented file, decoded on its own (a mixed file loses no line)."""
    return decode(line)[0]


def line_ending(data: bytes) -> str:
    """The line ending style of ``data``: "CRLF", "CR", "LF", "mixed" or "none"."""
    crlf = data.count(b"\r\n")
    cr = data.count(b"\r") - crlf
    lf = data.count(b"\n") - crlf
    kinds = [name for name, count in (("CRLF", crlf), ("CR", cr), ("LF", lf)) if count]
    if not kinds:
        return "none"
    return kinds[0] if len(kinds) == 1 else "mixed"


def split_lines(data: bytes) -> list[bytes]:
    """Physical lines for any line-ending style (JSON strings never contain raw newlines, so this
    is safe for JSON Lines; ``bytes.splitlines`` would also split on form feeds and the like)."""
    lines = data.split(b"\n") if b"\r" not in data else _NEWLINE.split(data)  # LF: the fast way
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def looks_binary(head: bytes) -> bool:
    """True for data that is not text in any encoding we read: NUL bytes (outside UTF-16) or more
    than 5% control characters in the first few kilobytes."""
    sample = head[:BINARY_SAMPLE]
    if not sample or sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if b"\x00" in sample:
        return True
    controls = len(sample.translate(None, _NOT_CONTROL))
    return controls > len(sample) * 0.05


CHUNK_BYTES = 1 << 20  # read a file this much at a time


def utf8_chunks(handle: Readable, chunk: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The bytes of ``handle`` a chunk at a time, transcoded to UTF-8 as they are read when the
    file starts with a UTF-16/32 byte order mark (the mark dropped, as ``to_utf8`` does); any
    other file as it is. Memory: one chunk, whatever the file's size."""
    first = handle.read(max(chunk, 4))  # enough for any byte order mark
    return _transcoded(first, handle, wide_encoding(first), chunk)


def iter_lines(
    chunks: Iterable[bytes], limit: int, keep: int, quotes: list[int] | None = None
) -> Iterator[tuple[bytes, int]]:
    """(line, its length in bytes) of every physical line of ``chunks``, for any line-ending
    style, split as ``split_lines`` splits. A line longer than ``limit`` bytes is never held
    whole: it comes as its first ``keep`` bytes with its full length, so memory stays within
    ``limit`` plus a chunk however long a line is; with ``quotes``, the number of '"' in each
    such line is appended to it as the line is yielded (whether it opens or closes a quoted
    field of a table)."""
    rest = b""  # the unfinished line (at most ``limit`` bytes), or a held-back "\r"
    head: bytes | None = None  # the start of an unfinished line longer than ``limit``
    size = 0  # that line's length so far
    quoted = 0  # and its '"' so far
    for chunk in chunks:
        data = rest + chunk if rest else chunk
        rest = b""
        held = data.endswith(b"\r")  # may be the first half of "\r\n": decided next time
        if held:
            data = data[:-1]
        pieces = _NEWLINE.split(data) if b"\r" in data else data.split(b"\n")
        tail = pieces.pop()
        for piece in pieces:
            if head is not None:
                _count(quotes, quoted + piece.count(b'"'))
                yield head + piece[: keep - len(head)], size + len(piece)
                head, size = None, 0
            elif len(piece) > limit:
                _count(quotes, piece.count(b'"'))
                yield piece[:keep], len(piece)
            else:
                yield piece, len(piece)
        if head is not None:
            head += tail[: keep - len(head)]
            size += len(tail)
            quoted += tail.count(b'"') if quotes is not None else 0
        elif len(tail) > limit:
            head, size = tail[:keep], len(tail)
            quoted = tail.count(b'"') if quotes is not None else 0
        else:
            rest = tail
        if held:
            rest += b"\r"
    ended = rest.endswith(b"\r")  # a final "\r" ends the line before it
    if ended:
        rest = rest[:-1]
    if head is not None:
        _count(quotes, quoted + rest.count(b'"'))
        yield head + rest[: keep - len(head)], size + len(rest)
    elif rest or ended:
        yield rest, len(rest)


def _count(quotes: list[int] | None, count: int) -> None:
    if quotes is not None:
        quotes.append(count)


_ENDINGS = {"CRLF": "\r\n", "CR": "\r"}
# What ``TextLines`` gives in place of a line over its limit (a Unicode noncharacter, which no
# text holds): a table's reader rejects the record it finds it in, whichever lines that spans.
OVERLONG = "\ufdd0"


class TextLines:
    """The lines of a text file (a table, a text) decoded one at a time, so memory holds a line,
    not the file: UTF-16/32 with a byte order mark transcoded as read; otherwise UTF-8 until a
    line is not valid UTF-8, then the single-byte encoding that line and the file's first chunk
    read best in (``legacy_encoding``) from that line on (Latin-1 when CP1252 fails on a later
    line), as a whole-file decision would mostly decide. Every line ends in the file's line
    ending ("\\r\\n" or "\\r" when its first chunk uses only that one, else "\\n"), whatever its
    own was, so that a quoted cell keeps its line breaks as written. A line over ``limit`` bytes
    comes as its first ``keep`` bytes and is listed in ``overlong`` (line number, size); with
    ``mark`` (a table), its head is followed by ``OVERLONG`` and preceded by a '"' when the line
    holds an odd number of them (it opens or closes a quoted field: the quote keeps the reader's
    reading of the lines after it as it was), so that the record it belongs to can be told and
    refused. ``encoding`` and ``line_ending`` say what was found, ``samples`` a few words with
    accents as a guessed encoding reads them."""

    def __init__(
        self, handle: Readable, limit: int, keep: int | None = None, *, mark: bool = False
    ) -> None:
        self._handle = handle
        self._limit = limit
        self._keep = limit if keep is None else keep
        self._mark = mark
        self.encoding = UTF8
        self.line_ending = "none"
        self.overlong: list[tuple[int, int]] = []
        self._head = b""  # the file's first chunk, until the encoding is decided
        self.samples: list[str] = []  # words with accents as a guessed encoding reads them

    def __iter__(self) -> Iterator[str]:
        first = self._handle.read(max(CHUNK_BYTES, 4))
        wide = wide_encoding(first)
        if wide is not None:
            self.encoding = wide
        chunks = _transcoded(first, self._handle, wide)
        head = next(chunks, b"")
        self.line_ending = line_ending(head)
        self._head = head if wide is None else b""
        ending = _ENDINGS.get(self.line_ending, "\n")  # inside a quoted cell, kept as written
        quotes: list[int] | None = [] if self._mark else None
        lines = iter_lines(_chained(head, chunks), self._limit, self._keep, quotes)
        for number, (line, size) in enumerate(lines, start=1):
            if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if size > self._limit:
                self.overlong.append((number, size))
                if quotes is None:
                    yield _decoded_head(line) + ending
                    continue
                # marked: OVERLONG after its head, and a quote before them when the line opens
                # or closes a quoted field, as a table's reader would have met it
                toggle = '"' if quotes.pop() % 2 else ""
                yield toggle + _decoded_head(line) + OVERLONG + ending
            else:
                yield self._decode(line) + ending

    def _decode(self, line: bytes) -> str:
        if self.encoding == UTF8:
            try:
                return line.decode(UTF8)
            except UnicodeDecodeError:
                sample = line + b"\n" + self._head[:LEGACY_SAMPLE]
                self.encoding = legacy_encoding(sample, self.line_ending == "CR")
                self._head = b""
        text = self._decode_legacy(line)
        if len(self.samples) < SAMPLE_WORDS and not line.isascii():
            for word in _ACCENTED_WORD.findall(text):
                if word not in self.samples and len(self.samples) < SAMPLE_WORDS:
                    self.samples.append(word)
        return text

    def _decode_legacy(self, line: bytes) -> str:
        if self.encoding == MAC_ROMAN:
            return line.decode(MAC_ROMAN)  # every byte is a character
        if self.encoding == CP1252:
            try:
                return line.decode(CP1252)
            except UnicodeDecodeError:
                self.encoding = LATIN1
        return line.decode(LATIN1 if self.encoding == LATIN1 else UTF8, "replace")


def _transcoded(
    first: bytes, handle: Readable, wide: str | None, chunk: int = CHUNK_BYTES
) -> Iterator[bytes]:
    """``first`` and the rest of ``handle`` as UTF-8 chunks (see ``utf8_chunks``)."""
    if wide is None:
        data = first
        while data:
            yield data
            data = handle.read(chunk)
        return
    bom = next(b for b, e in _BOMS if e == wide)
    decoder = codecs.getincrementaldecoder(wide)(errors="replace")
    data = first[len(bom) :]
    while True:
        following = handle.read(chunk)
        text = decoder.decode(data, final=not following)
        if text:
            yield text.encode("utf-8")
        if not following:
            return
        data = following


def _chained(head: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if head:
        yield head
    yield from rest


def _decoded_head(data: bytes) -> str:
    """The start of a line cut at a byte count, which may fall inside a UTF-8 character."""
    try:
        return data.decode(UTF8)
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return data[: exc.start].decode(UTF8)
        return data.decode(CP1252, "replace")
