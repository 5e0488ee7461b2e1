"""Xeno-canto recordings: metadata in the XC API's field names (JSON or CSV) and audio files.

Audio is attached to a metadata row by its ``file-name`` or by an XC id in the audio file's name,
looking among the files given to the import and beside the metadata file. An audio file nobody
describes still becomes a recording (its id from its name) so its items can be heard. Audio is only
hashed here; decoding belongs to the audio package.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from bagel_studio.core.importers.fields import recording_id
from bagel_studio.core.importers.reading import FileHashes
from bagel_studio.core.importers.textio import OVERLONG, Readable, TextLines
from bagel_studio.core.store import Reject

AUDIO_SUFFIXES = frozenset({".mp3", ".wav", ".flac", ".ogg", ".oga"})
_XC_MARKERS = ({"id", "gen", "sp"}, {"id", "file-name"}, {"id", "en", "lic"})


def is_audio(head: bytes) -> bool:
    """True for the start of an MP3 (ID3 tag or frame sync), WAV, FLAC or Ogg file."""
    if head.startswith((b"ID3", b"fLaC", b"OggS")):
        return True
    if head[:4] == b"RIFF" and head[8:12] in (b"WAVE", b"RF64"):
        return True
    return len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0


# Every spelling of each XC API field name met in Xeno-canto metadata tables, compared by their
# letters and digits only ("File Name", "file_name" and "fileName" are all "filename"): the API's
# own names (v2 and v3: ``lng`` became ``lon``, ``bird-seen`` ``animal-seen``), the words of the
# site's tables ("Recordist", "Cat.nr.", "Elev. (m)"), warbleR's ``query_xc`` columns
# ("Recording_ID", "Specific_epithet", "Recordist", "Locality", "Audio_file", "License"),
# BirdCLEF's ``train_metadata.csv`` ("author", "license", "rating", "filename"), GBIF's Darwin
# Core export of Xeno-canto ("catalogNumber", "recordedBy", "vernacularName") and Kaggle's
# extracts ("xc_id", "recordist", "sci_name"). Only ``species`` is not here: some tables put the
# epithet there, others the English name or the binomial, so its content decides (``_by_content``).
_SPELLINGS: dict[str, tuple[str, ...]] = {
    "id": (
        "id",
        "xc",
        "xcid",
        "xcnumber",
        "xcno",
        "xcnr",
        "recordingid",
        "recordingnumber",
        "catalognumber",
        "cataloguenumber",
        "catnr",
        "catno",
    ),
    "gen": ("gen", "genus"),
    "sp": ("sp", "epithet", "specificepithet", "speciesepithet"),
    "ssp": ("ssp", "subspecies", "infraspecificepithet"),
    "scientific_name": ("scientificname", "sciname", "latinname", "binomial"),
    "en": ("en", "englishname", "commonname", "english", "vernacularname"),
    "rec": (
        "rec",
        "recordist",
        "recordists",
        "recordistname",
        "recordedby",
        "recorder",
        "author",
        "creator",
    ),
    "cnt": ("cnt", "country"),
    "loc": ("loc", "location", "locality"),
    "lat": ("lat", "latitude", "decimallatitude"),
    "lng": ("lng", "lon", "long", "longitude", "decimallongitude"),
    "alt": ("alt", "elev", "elevm", "elevation", "altitude"),
    "type": (
        "type",
        "soundtype",
        "vocalizationtype",
        "vocalisationtype",
        "calltype",
        "soundtypes",
    ),
    "url": ("url", "page", "link", "recordingurl", "xcurl", "pageurl", "webpage", "permalink"),
    "file": (
        "file",
        "fileurl",
        "audio",
        "audiourl",
        "audiofile",
        "audiopath",
        "path",
        "download",
        "downloadurl",
        "downloadlink",
        "soundfile",
    ),
    "file-name": ("filename", "originalfilename", "audiofilename"),
    "lic": ("lic", "licence", "license", "licenceurl", "licenseurl"),
    "q": ("q", "quality", "rating"),
    "length": ("length", "duration", "soundlength"),
    "smp": ("smp", "samplingrate", "samplerate"),
    "also": ("also", "otherspecies", "backgroundspecies", "background"),
    "rmk": ("rmk", "remarks", "remark"),
    "bird-seen": ("birdseen", "animalseen"),
    "playback-used": ("playbackused",),
}
_FIELD_OF = {spelling: field for field, spellings in _SPELLINGS.items() for spelling in spellings}
_WHERE_IDS_HIDE = ("file-name", "url", "file")  # an XC id inside a file name or a URL
_XC_FIELDS = {
    "gen",
    "sp",
    "en",
    "rec",
    "cnt",
    "loc",
    "lic",
    "type",
    "q",
    "length",
    "ssp",
    "scientific_name",
}
_XC_IN_TEXT = re.compile(r"xeno-canto\.org/\d+|(?<![A-Za-z0-9])XC\s?-?\d+", re.IGNORECASE)


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def canonical_field(name: str) -> str:
    """A metadata column's XC API name when its header spells one (``xc_id`` -> ``id``,
    ``File Name`` -> ``file-name``, ``Recordist`` -> ``rec``), else its header squashed."""
    squashed = _squash(name)
    return _FIELD_OF.get(squashed, squashed)


# What a column holds, told from its values when its header says nothing we know.
_CONTENT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("url", re.compile(r"^(?:https?:)?//(?:www\.)?xeno-canto\.org/\d+/?$", re.IGNORECASE)),
    (
        "file",
        re.compile(r"^(?:https?:)?//\S+(?:/download/?|\.(?:mp3|wav|flac|ogg|oga))$", re.IGNORECASE),
    ),
    (
        "lic",
        re.compile(
            r"creativecommons\.org/(?:licenses|publicdomain)/|^CC[ -]?(?:BY|0)\b", re.IGNORECASE
        ),
    ),
    ("file-name", re.compile(r"^[^:]*\.(?:mp3|wav|flac|ogg|oga)$", re.IGNORECASE)),
    ("id", re.compile(r"^XC ?-?\d+$", re.IGNORECASE)),
    ("scientific_name", re.compile(r"^[A-Z][a-z]+ [a-z]{2,}(?: [a-z]{2,})?$")),
    ("sp", re.compile(r"^[a-z]{2,}$")),
)
SAMPLE_ROWS = 50  # rows a column's content is judged on


def _by_content(values: list[str]) -> str | None:
    """The XC field every one of ``values`` (a column's first non-empty cells) looks like."""
    if not values:
        return None
    for field, pattern in _CONTENT_PATTERNS:
        if all(pattern.search(v) for v in values):
            return field
    return None


class Columns:
    """How a metadata table's columns map to XC API fields: by header name in any of its known
    spellings, and for the others (and ``species``) by what their first rows hold. A field
    named by two columns (BirdCLEF-like tables with both ``author`` and ``recordist``) takes
    the first non-empty one; every column is kept in the metadata."""

    def __init__(self, headers: list[str], sample: list[dict[str, str]]) -> None:
        self.headers = headers
        keys: list[str | None] = [_FIELD_OF.get(_squash(h)) for h in headers]
        taken = {k for k in keys if k}
        for index, header in enumerate(headers):
            if keys[index] is not None:
                continue
            values = [v for row in sample[:SAMPLE_ROWS] if (v := (row.get(header) or "").strip())]
            found = _by_content(values)
            if _squash(header) == "species" and found is None and values:
                found = "en"  # "Alder Flycatcher": the English name
            if found is not None and found not in taken:
                keys[index] = found
                taken.add(found)
        self.keys = keys

    def row(self, cells: dict[str, str]) -> dict[str, Any]:
        """A row under the XC field names (a field's first non-empty column), plus every other
        column under its header as written."""
        row: dict[str, Any] = {}
        for header, key in zip(self.headers, self.keys, strict=True):
            value = (cells.get(header) or "").strip()
            if key is None:
                row[header.strip()] = value
            elif not row.get(key):
                row[key] = value
            elif value:
                row[header.strip()] = value  # a second spelling of a field already filled
        return row


def is_xc_csv_header(first_line: str, body: str = "") -> bool:
    """A Xeno-canto metadata table, from its header (API field names or common spellings) and,
    when it has no id column, from XC ids in its first rows (inside file names or URLs)."""
    for delimiter in (",", "\t", ";"):
        cells = {canonical_field(c) for c in first_line.split(delimiter)}
        if len(cells) < 2:
            continue
        if any(marker <= cells for marker in _XC_MARKERS):
            return True
        hides_ids = any(c in cells for c in _WHERE_IDS_HIDE)
        if hides_ids and len(cells & _XC_FIELDS) >= 2 and _XC_IN_TEXT.search(body):
            return True
    return False


def is_xc_json(document: Any) -> bool:
    """Whether a JSON document is a Xeno-canto API answer (an object with a ``recordings`` list)."""
    return isinstance(document, dict) and isinstance(document.get("recordings"), list)


class AudioIndex:
    """The audio files an import can attach: by lower-case file name and by XC id."""

    def __init__(self, paths: Iterable[Path] = ()) -> None:
        self.by_name: dict[str, Path] = {}
        self.by_id: dict[str, Path] = {}
        for path in paths:
            self.add(path)

    def add(self, path: Path) -> None:
        self.by_name.setdefault(path.name.lower(), path)
        found = recording_id(path.stem)
        if found and "xc" in path.stem.lower():
            self.by_id.setdefault(found, path)

    def add_folder(self, folder: Path) -> None:
        """Audio files beside a metadata file (not walked further down)."""
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            return
        for entry in entries:
            if entry.suffix.lower() in AUDIO_SUFFIXES and entry.is_file():
                self.add(entry.resolve())

    def find(self, file_name: str | None, rec_id: str | None) -> Path | None:
        if file_name:
            path = self.by_name.get(Path(file_name.replace("\\", "/")).name.lower())
            if path is not None:
                return path
        return self.by_id.get(rec_id) if rec_id else None


def _overlong(row: dict[str, Any], extra: Any) -> bool:
    """A row that spans a line over the limit (``TextLines`` marked it): not read at all,
    rather than read without that line (with its columns shifted)."""
    cells = [*row.values(), *(extra or [])]
    return any(isinstance(cell, str) and OVERLONG in cell for cell in cells)


class CsvRows:
    """The (line, row) pairs of a metadata CSV, read as a stream: a row at a time, once the
    first ``SAMPLE_ROWS`` have shown what the columns hold. After the iteration, ``encoding``
    says how it was read and ``rejects`` holds a reject when the CSV breaks off (an unclosed
    quote running past the field size limit: nothing after it is guessed at) and one per line
    over ``line_limit`` bytes."""

    def __init__(self, handle: Readable, display: str, line_limit: int) -> None:
        self._lines = TextLines(handle, line_limit, 0, mark=True)
        self._display = display
        self._limit = line_limit
        self.rejects: list[Reject] = []

    @property
    def encoding(self) -> str:
        return self._lines.encoding

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        source = iter(self._lines)
        first = next(source, "")
        delimiter = max(("\t", ",", ";"), key=first.count)
        feed = itertools.chain([first], source) if first else source
        reader = csv.DictReader(feed, delimiter=delimiter)
        sample: list[tuple[int, dict[str, str], Any]] = []
        columns: Columns | None = None
        start = 2
        try:
            for row in reader:
                extra = row.pop(None, None)  # cells beyond the header
                line, start = start, reader.line_num + 1
                if _overlong(row, extra):  # its reject is the overlong line's own (below)
                    continue
                if not (any((v or "").strip() for v in row.values()) or extra):
                    continue
                if columns is None:
                    sample.append((line, row, extra))
                    if len(sample) < SAMPLE_ROWS:
                        continue
                    columns = self._columns(reader, sample)
                    yield from self._cleaned(columns, sample)
                    sample = []
                else:
                    yield from self._cleaned(columns, [(line, row, extra)])
        except csv.Error as exc:
            reason = f"malformed CSV, not read from here on: {exc}"
            self.rejects.append(Reject(self._display, start, reason))
        if columns is None:
            yield from self._cleaned(self._columns(reader, sample), sample)
        for number, size in self._lines.overlong:
            reason = (
                f"line is {size / 1e6:.1f} MB, longer than the {self._limit / 1e6:g} MB a line"
                " may take (import --max-line-mb); not read"
            )
            self.rejects.append(Reject(self._display, number, reason))

    @staticmethod
    def _columns(
        reader: csv.DictReader[str], sample: list[tuple[int, dict[str, str], Any]]
    ) -> Columns:
        return Columns([str(h) for h in reader.fieldnames or []], [r for _, r, _ in sample])

    @staticmethod
    def _cleaned(
        columns: Columns, rows: list[tuple[int, dict[str, str], Any]]
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        for line, row, extra in rows:
            clean = columns.row(row)
            if extra:
                clean["extra"] = extra
            yield line, clean


def json_rows(document: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """(position, row) pairs of an XC API response; the position stands in for a line."""
    return [(i + 1, r) for i, r in enumerate(document["recordings"])]


def recording_rows(
    rows: Iterable[tuple[int, Any]], audio: AudioIndex, display: str, hashes: FileHashes
) -> tuple[list[dict[str, Any]], list[Reject]]:
    """Recording rows (RECORDING_COLUMNS) for metadata rows, with their audio attached."""
    recordings: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    for line, row in rows:
        if not isinstance(row, dict):
            rejects.append(Reject(display, line, "recording is not an object", str(row)))
            continue
        rec_id = recording_id(row.get("id")) or _id_inside(row)
        if rec_id is None:
            reason = f"no Xeno-canto id (id = {row.get('id')!r})"
            rejects.append(Reject(display, line, reason, repr(row)))
            continue
        path = audio.find(_text(row.get("file-name")) or _local_name(row.get("file")), rec_id)
        recordings.append(_recording(rec_id, row, path, hashes))
    return recordings, rejects


def _local_name(value: Any) -> str | None:
    """The file name of a local path (``audio/XC1.mp3``), not of a download URL."""
    if not isinstance(value, str) or not value.strip() or "://" in value:
        return None
    return Path(value.strip().replace("\\", "/")).name


def _id_inside(row: dict[str, Any]) -> str | None:
    """The XC id a row without an id column carries in its file name or URL."""
    for key in _WHERE_IDS_HIDE:
        value = row.get(key)
        if isinstance(value, str) and _XC_IN_TEXT.search(value):
            return recording_id(value)
    return None


def recording_for_audio(path: Path, hashes: FileHashes) -> dict[str, Any] | None:
    """A recording row for an audio file on its own (None when its name has no XC id)."""
    rec_id = recording_id(path.stem) if "xc" in path.stem.lower() else None
    if rec_id is None:
        return None
    return _recording(rec_id, {}, path, hashes) | {"file_name": path.name, "metadata": None}


def _recording(
    rec_id: str, row: dict[str, Any], path: Path | None, hashes: FileHashes
) -> dict[str, Any]:
    genus, species = _text(row.get("gen")), _text(row.get("sp"))
    # genus and epithet when both are there; else the binomial column before a lone part (a
    # yes/no column such as "auto" may pass for an epithet by its content)
    joined = " ".join(p for p in (genus, species) if p) or None
    scientific = joined if genus and species else _text(row.get("scientific_name")) or joined
    return {
        "id": rec_id,
        "scientific_name": scientific,
        "common_name": _text(row.get("en")),
        "vocalization_type": _text(row.get("type")),
        "licence": _url(row.get("lic")),
        "url": _url(row.get("url")) or f"https://xeno-canto.org/{rec_id[2:]}",
        "recordist": _text(row.get("rec")),
        "file_name": _text(row.get("file-name")),
        "audio_path": str(path) if path is not None else None,
        "audio_sha256": hashes.sha256(path) if path is not None else None,
        "metadata": row,
    }


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _url(value: Any) -> str | None:
    """XC's API writes scheme-relative URLs ("//xeno-canto.org/536501")."""
    text = _text(value)
    return f"https:{text}" if text and text.startswith("//") else text
