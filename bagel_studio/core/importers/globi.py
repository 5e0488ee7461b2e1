"""GloBI interaction tables: the exchange format and GloBI's aggregated export (FORMATS.md 3).

Real tables are tab- or comma-separated, UTF-8, CP1252, Mac Roman or Latin-1, with LF, CRLF or
CR-only line endings and quoted fields, and sometimes a header cell that is blank
(ashForestInteractions' last column, its citation). Every data row becomes a record referenced as
``<table name>#<row>`` (the 1-based data row the generator was shown); a row naming neither taxon
is rejected.
"""

from __future__ import annotations

import csv
import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from bagel_studio.core.importers.textio import OVERLONG, Readable, TextLines, is_guess
from bagel_studio.core.store import Reject

# Our column <- the GloBI columns that may hold it, first found wins (case-insensitive).
FIELD_COLUMNS: dict[str, tuple[str, ...]] = {
    "source_taxon": ("sourceTaxonName",),
    "interaction": ("interactionTypeName",),
    "target_taxon": ("targetTaxonName",),
    "source_path": ("sourceTaxonPathNames", "sourceTaxonPath"),
    "source_path_ranks": ("sourceTaxonPathRankNames",),
    "target_path": ("targetTaxonPathNames", "targetTaxonPath"),
    "target_path_ranks": ("targetTaxonPathRankNames",),
    "locality": ("localityName",),
    "latitude": ("decimalLatitude", "latitude"),
    "longitude": ("decimalLongitude", "longitude"),
    "date": ("observationDateTime", "eventDate"),
    "citation": ("referenceCitation", "sourceCitation", "citation"),
    "doi": ("referenceDoi", "sourceDOI"),
    "url": ("referenceUrl", "sourceURL"),
}
HEADER_MARKERS = frozenset(
    {"sourcetaxonname", "targettaxonname", "interactiontypename", "sourcetaxonid"}
)
CITATION = "referenceCitation"


BATCH_RECORDS = 5000  # records handed to ``write`` at a time
BATCH_REJECTS = 1000  # rejected rows handed to ``write_rejects`` at a time


@dataclass
class GlobiTable:
    """What reading a table found: its rejected rows, how many records, what was assumed.

    With ``write_rejects``, rejects are handed to it a batch at a time (each batch in line
    order) and ``rejects`` holds those not handed over yet; without it, every one."""

    write_rejects: Callable[[list[Reject]], None] | None = None
    rejects: list[Reject] = field(default_factory=list)
    count: int = 0  # records read
    encoding: str = "utf-8"
    line_ending: str = "LF"
    delimiter: str = "\t"
    quotes_literal: bool = False  # a stray quote made quoted reading unsafe
    samples: list[str] = field(default_factory=list)  # accented words as the encoding reads them

    def reject(self, reject: Reject) -> None:
        self.rejects.append(reject)
        if len(self.rejects) >= BATCH_REJECTS:
            self.flush_rejects()

    def flush_rejects(self) -> None:
        self.rejects.sort(key=lambda r: r.line)
        if self.write_rejects is not None and self.rejects:
            self.write_rejects(self.rejects)
            self.rejects = []

    @property
    def encoding_guessed(self) -> bool:
        """Whether the encoding was chosen from the bytes alone (the table is not UTF-8)."""
        return is_guess(self.encoding)

    def describe(self) -> str:
        separator = "tab" if self.delimiter == "\t" else repr(self.delimiter)
        quotes = " (quotes read as text)" if self.quotes_literal else ""
        guess = f"; {encoding_note(self.encoding, self.samples)}" if self.encoding_guessed else ""
        return (
            f"GloBI table, {self.encoding}, {self.line_ending} line endings,"
            f" {separator}-separated{quotes}, {self.count:,} records{guess}"
        )


def encoding_note(encoding: str, samples: list[str]) -> str:
    """What the summary and the record cards say of a table whose encoding is a guess, with
    the first words it holds with accents as that encoding reads them."""
    reads = ", ".join(f"“{word}”" for word in samples)
    return (
        f"the encoding {encoding} is a guess (the bytes are not UTF-8 and do not say which"
        " encoding they are): " + (f"it reads {reads}; check them" if reads else "check accents")
    )


def guessed_encodings(imports: Iterable[dict[str, Any]]) -> dict[str, str]:
    """{table name (as the records name it): ``encoding_note``} of the GloBI tables whose
    encoding was a guess, from the project's imports (``Store.imports``); the first import of a
    name is the one whose records were kept."""
    notes: dict[str, str] = {}
    for entry in imports:
        summary = entry.get("summary") or {}
        if summary.get("format") != "globi" or not summary.get("encoding_guessed"):
            continue
        name = PurePath(str(entry.get("path") or entry.get("name") or "")).name
        samples = [str(w) for w in summary.get("encoding_samples") or ()]
        notes.setdefault(name, encoding_note(str(summary.get("encoding")), samples))
    return notes


def sniff_delimiter(header_line: str) -> str:
    """The delimiter of a table, from its header line: tab, comma or semicolon, whichever occurs
    most (tab when none does)."""
    counts = {d: header_line.count(d) for d in ("\t", ",", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else "\t"


def is_globi_header(first_line: str) -> bool:
    """Whether a header line has a column only GloBI tables have (``sourceTaxonName``,
    ``interactionTypeName``...)."""
    cells = first_line.split(sniff_delimiter(first_line))
    return any(c.strip().strip('"').lower() in HEADER_MARKERS for c in cells)


def header_names(cells: list[str]) -> list[str]:
    """Column names for a header row: blank cells get a name (the citation column when it sits
    where GloBI puts the citation, otherwise ``column_<n>``), repeated names a suffix."""
    names: list[str] = []
    lowered: set[str] = set()
    for index, cell in enumerate(cells):
        name = cell.strip()
        if not name:
            after_url = index > 0 and names[index - 1].lower() == "referenceurl"
            last = index == len(cells) - 1
            has_citation = any(c.strip().lower() == CITATION.lower() for c in cells)
            name = CITATION if (after_url or last) and not has_citation else f"column_{index + 1}"
        base, suffix = name, 2
        while name.lower() in lowered:
            name, suffix = f"{base}_{suffix}", suffix + 1
        names.append(name)
        lowered.add(name.lower())
    return names


def read_table(
    handle: Readable,
    table_name: str,
    display: str,
    write: Callable[[list[dict[str, Any]]], None],
    line_limit: int,
    write_rejects: Callable[[list[Reject]], None] | None = None,
) -> GlobiTable:
    """Every data row of a GloBI table, read as a stream: a row at a time, its records handed
    to ``write`` ``BATCH_RECORDS`` at a time and its rejects to ``write_rejects``
    ``BATCH_REJECTS`` at a time, so memory holds a batch, never the file (``handle``: the
    file; ``table_name``: its base name, used in references; ``display``: the name rejects are
    reported under; a line over ``line_limit`` bytes is a reject, not read)."""
    lines = TextLines(handle, line_limit, 0, mark=True)
    table = GlobiTable(write_rejects)
    source = iter(lines)
    first = next(source, "")
    table.delimiter = sniff_delimiter(first.split("\r", 1)[0])
    feed = _Feed(itertools.chain([first], source) if first else source)
    rows = _Rows(table, table_name, display, write)
    tabbed = table.delimiter == "\t"
    reader = csv.reader(feed, delimiter=table.delimiter, quoting=csv.QUOTE_MINIMAL)
    in_record: set[int] = set()  # overlong lines named by the reject of their record
    while True:
        feed.taken.clear()
        start = feed.number + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if tabbed and not table.quotes_literal:
                reader = _quotes_as_text(table, feed, start, rows)
                continue
            table.reject(Reject(display, start, f"malformed row: {exc}"))
            continue
        if not cells:
            continue
        if any(OVERLONG in cell for cell in cells):  # the whole record, whatever lines it took
            rows.skip()  # a row all the same: the next keeps its number
            if feed.number == start:  # the line was the record: its own reject says so (below)
                continue
            met = [(n, size) for n, size in lines.overlong if start <= n <= feed.number]
            in_record.update(n for n, _ in met)
            table.reject(
                Reject(display, start, _overlong_record(start, feed.number, met, line_limit))
            )
            continue
        if tabbed and not table.quotes_literal and rows.swallowed(start, feed.number, cells):
            reader = _quotes_as_text(table, feed, start, rows)
            continue
        rows.add(start, cells)
    rows.flush()
    table.encoding, table.line_ending = lines.encoding, lines.line_ending
    table.samples = lines.samples
    for number, size in lines.overlong:
        if number in in_record:
            continue
        reason = (
            f"line is {size / 1e6:.1f} MB, longer than the {line_limit / 1e6:g} MB a line may"
            " take (import --max-line-mb); not read"
        )
        table.rejects.append(Reject(display, number, reason))
    if rows.names is None:
        table.rejects.append(Reject(display, 1, "no header row"))
    table.flush_rejects()
    return table


def _overlong_record(start: int, end: int, met: list[tuple[int, int]], limit: int) -> str:
    """A record refused whole for the line over the limit it spans (its quoted field would
    otherwise come back without that line, or its lines after it as a record of their own)."""
    lines = f"line {start}" if end == start else f"lines {start}-{end}"
    over = ", ".join(f"line {n}: {size / 1e6:.1f} MB" for n, size in met) or "a line"
    return (
        f"a record ({lines}) holding a line longer than the {limit / 1e6:g} MB a line may take"
        f" ({over}; import --max-line-mb); the whole record is not read"
    )


class _Feed:
    """The table's lines as the csv reader takes them: numbered, and those of the row being read
    kept (``taken``) in case it must be read again with quotes as text."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self.number = 0
        self.taken: list[str] = []

    def __iter__(self) -> _Feed:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.number += 1
        self.taken.append(line)
        return line


def _quotes_as_text(table: GlobiTable, feed: _Feed, start: int, rows: _Rows) -> Any:
    """A stray '"' opening a field of a tab-separated table (GloBI's exchange files are not
    quoted) ran on over the following lines: read the lines it took one row each, and the rest
    of the table, with quotes as text."""
    table.quotes_literal = True
    for offset, line in enumerate(list(feed.taken)):
        try:
            cells = next(csv.reader([line], delimiter="\t", quoting=csv.QUOTE_NONE), [])
        except csv.Error as exc:
            table.reject(Reject(rows.display, start + offset, f"malformed row: {exc}"))
            continue
        if cells:
            rows.add(start + offset, cells)
    return csv.reader(feed, delimiter="\t", quoting=csv.QUOTE_NONE)


class _Rows:
    """The rows of one table turned into records (or rejects), written a batch at a time."""

    def __init__(
        self,
        table: GlobiTable,
        table_name: str,
        display: str,
        write: Callable[[list[dict[str, Any]]], None],
    ) -> None:
        self.table, self.table_name, self.display, self._write = table, table_name, display, write
        self.names: list[str] | None = None
        self.columns: dict[str, int] = {}
        self.source = self.target = ""
        self.number = 0  # data rows so far (a record's reference)
        self.batch: list[dict[str, Any]] = []

    def swallowed(self, first: int, last: int, cells: list[str]) -> bool:
        """A data row over several lines of the wrong width, or with a field holding whole
        tab-separated lines: a stray quote's doing."""
        if self.names is None or last <= first:
            return False
        width = len(self.names)
        return len(cells) != width or any("\t" in c and ("\n" in c or "\r" in c) for c in cells)

    def add(self, start: int, cells: list[str]) -> None:
        if self.names is None:
            self.names = header_names(cells)
            self.columns = _field_columns(self.names)
            self.source = _name(self.names, self.columns, "source_taxon")
            self.target = _name(self.names, self.columns, "target_taxon")
            return
        self.number += 1
        row = _row_dict(self.names, cells)
        if not (row.get(self.source) or row.get(self.target)):
            raw = self.table.delimiter.join(cells)
            reason = "no source or target taxon"
            self.table.reject(Reject(self.display, start, reason, raw))
            return
        ref = f"{self.table_name}#{self.number}"
        record = _record(row, self.names, self.columns, ref, self.table_name, self.number)
        self.batch.append(record)
        if len(self.batch) >= BATCH_RECORDS:
            self.flush()

    def skip(self) -> None:
        """A data row that is not read (a line over the limit): it keeps its number."""
        if self.names is not None:
            self.number += 1

    def flush(self) -> None:
        if self.batch:
            self.table.count += len(self.batch)
            self._write(self.batch)
            self.batch = []


def record_from_row(
    row: dict[str, str], ref: str, table_name: str, row_number: int
) -> dict[str, Any]:
    """A GloBI record (GLOBI_COLUMNS) from one row given as {column name: value}."""
    names = list(row)
    return _record(row, names, _field_columns(names), ref, table_name, row_number)


def _field_columns(names: list[str]) -> dict[str, int]:
    position = {n.lower(): i for i, n in enumerate(names)}
    found: dict[str, int] = {}
    for ours, candidates in FIELD_COLUMNS.items():
        for candidate in candidates:
            if candidate.lower() in position:
                found[ours] = position[candidate.lower()]
                break
    return found


def _name(names: list[str], columns: dict[str, int], ours: str) -> str:
    index = columns.get(ours)
    return names[index] if index is not None else ""


def _row_dict(names: list[str], cells: list[str]) -> dict[str, str]:
    """The row's non-empty cells by column name (cells beyond the header get ``column_<n>``)."""
    row = {names[i]: v for i, v in enumerate(cells[: len(names)]) if v.strip()}
    for i in range(len(names), len(cells)):
        if cells[i].strip():
            row[f"column_{i + 1}"] = cells[i]
    return row


def _record(
    row: dict[str, str],
    names: list[str],
    columns: dict[str, int],
    ref: str,
    table_name: str,
    row_number: int,
) -> dict[str, Any]:
    def value(ours: str) -> str | None:
        index = columns.get(ours)
        if index is None:
            return None
        text = row.get(names[index], "").strip()
        return text or None

    record: dict[str, Any] = {key: value(key) for key in FIELD_COLUMNS}
    record["latitude"] = _coordinate(record["latitude"], 90.0)
    record["longitude"] = _coordinate(record["longitude"], 180.0)
    record.update(ref=ref, table_name=table_name, row=row_number, record=row)
    return record


def _coordinate(text: str | None, limit: float) -> float | None:
    if text is None:
        return None
    try:
        number = float(text.replace(",", "."))
    except ValueError:
        return None
    return number if math.isfinite(number) and abs(number) <= limit else None
