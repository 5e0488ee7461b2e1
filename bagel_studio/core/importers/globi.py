"""GloBI interaction tables: the exchange format and GloBI's aggregated export (FORMATS.md 3).

Real tables are tab- or comma-separated, UTF-8 or CP1252 or Latin-1, with LF, CRLF or CR-only line
endings and quoted fields, and sometimes a header cell that is blank (ashForestInteractions' last
column, its citation). Every data row becomes a record referenced as ``<table name>#<row>`` (the
1-based data row the generator was shown); a row naming neither taxon is rejected.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Any, Literal

from bagel_studio.core.importers.textio import decode, line_ending
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


@dataclass
class GlobiTable:
    """A decoded table: its records, its rejected rows, and what was assumed to read it."""

    records: list[dict[str, Any]] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    encoding: str = "utf-8"
    line_ending: str = "LF"
    delimiter: str = "\t"
    quotes_literal: bool = False  # a stray quote made quoted reading unsafe

    def describe(self) -> str:
        separator = "tab" if self.delimiter == "\t" else repr(self.delimiter)
        quotes = " (quotes read as text)" if self.quotes_literal else ""
        return (
            f"GloBI table, {self.encoding}, {self.line_ending} line endings,"
            f" {separator}-separated{quotes}, {len(self.records):,} records"
        )


def sniff_delimiter(header_line: str) -> str:
    counts = {d: header_line.count(d) for d in ("\t", ",", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else "\t"


def is_globi_header(first_line: str) -> bool:
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


def read_table(data: bytes, table_name: str, display: str) -> GlobiTable:
    """Every data row of a GloBI table (``data``: the file's bytes; ``table_name``: its base
    name, used in references; ``display``: the name rejects are reported under)."""
    text, encoding = decode(data)
    table = GlobiTable(encoding=encoding, line_ending=line_ending(data[: 1 << 20]))
    first_line = text.split("\n", 1)[0].split("\r", 1)[0]
    table.delimiter = sniff_delimiter(first_line)
    rows, errors = _physical_rows(text, table.delimiter, csv.QUOTE_MINIMAL)
    if table.delimiter == "\t" and _quotes_doubtful(rows, errors):
        rows, errors = _physical_rows(text, table.delimiter, csv.QUOTE_NONE)
        table.quotes_literal = True
    table.rejects.extend(Reject(display, line, f"malformed row: {e}") for line, e in errors)
    if not rows:
        table.rejects.append(Reject(display, 1, "no header row"))
        return table
    names = header_names(rows[0][2])
    columns = _field_columns(names)
    source, target = (_name(names, columns, k) for k in ("source_taxon", "target_taxon"))
    for row_number, (start, _, cells) in enumerate(rows[1:], start=1):
        row = _row_dict(names, cells)
        if not (row.get(source) or row.get(target)):
            raw = table.delimiter.join(cells)
            table.rejects.append(Reject(display, start, "no source or target taxon", raw))
            continue
        ref = f"{table_name}#{row_number}"
        table.records.append(_record(row, names, columns, ref, table_name, row_number))
    return table


Row = tuple[int, int, list[str]]  # first line, last line, cells


def _physical_rows(
    text: str, delimiter: str, quoting: Literal[0, 1, 2, 3]
) -> tuple[list[Row], list[tuple[int, str]]]:
    """Non-blank rows with the lines they span, and the rows the csv module refused."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quoting=quoting)
    rows: list[Row] = []
    errors: list[tuple[int, str]] = []
    last_line = 0
    while True:
        start = last_line + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            last_line = reader.line_num
            errors.append((start, str(exc)))
            continue
        last_line = reader.line_num
        if cells:
            rows.append((start, last_line, cells))
    return rows, errors


def _quotes_doubtful(rows: list[Row], errors: list[tuple[int, str]]) -> bool:
    """True when reading quotes swallowed lines: a stray '"' opening a field of a tab-separated
    table (GloBI's exchange files are not quoted) runs on over the following rows, leaving a row
    of the wrong width or a field holding whole tab-separated lines."""
    if errors:
        return True
    width = len(rows[0][2]) if rows else 0
    for first, last, cells in rows[1:]:
        if last > first and (
            len(cells) != width or any("\t" in c and ("\n" in c or "\r" in c) for c in cells)
        ):
            return True
    return False


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
