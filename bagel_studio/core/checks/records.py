"""The loaded GloBI records, looked up by taxon for the GloBI checks.

Two ways to look records up, with the same answers: ``IndexedRecords`` reads every record once
and keeps a dict from taxon key to records (for ``check_all`` over thousands of items), and
``QueriedRecords`` asks SQLite for the few taxa one item names, through the indexed
``source_taxon`` / ``target_taxon`` columns (for re-checking one edited item quickly).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from bagel_studio.core.taxonomy import (
    lineage_from_columns,
    lineage_from_path,
    normalize_taxon,
    parse_name,
)

if TYPE_CHECKING:
    from bagel_studio.core.store import Store

_COLUMNS = (
    "ref, table_name, row, source_taxon, interaction, target_taxon, source_path,"
    " target_path, record"
)


@dataclass(frozen=True)
class GlobiLink:
    """One GloBI record, reduced to what the checks compare."""

    ref: str
    table: str
    row: int
    source: str
    interaction: str
    target: str
    source_lineage: tuple[str, ...] = ()
    target_lineage: tuple[str, ...] = ()
    raw: str = field(default="", compare=False, repr=False)  # the record's row, as stored

    @cached_property
    def locality(self) -> str:
        """The record's place (``localityName``), folded; "" when it names none (read from the
        stored row when first asked)."""
        if "localityName" not in self.raw:
            return ""
        try:
            record = json.loads(self.raw)
        except ValueError:
            return ""
        place = record.get("localityName") if isinstance(record, dict) else None
        return " ".join(place.split()).casefold() if isinstance(place, str) else ""

    @cached_property
    def columns(self) -> dict[str, str]:
        """The record's table row as stored, {column: value} (read when first asked; empty
        when the row is not stored)."""
        if not self.raw:
            return {}
        try:
            record = json.loads(self.raw)
        except ValueError:
            return {}
        if not isinstance(record, dict):
            return {}
        return {str(k): str(v) for k, v in record.items() if v is not None and str(v).strip()}

    @cached_property
    def source_key(self) -> str:
        return normalize_taxon(self.source)

    @cached_property
    def target_key(self) -> str:
        return normalize_taxon(self.target)

    @cached_property
    def source_ancestor_keys(self) -> frozenset[str]:
        return frozenset(normalize_taxon(n) for n in self.source_lineage) - {self.source_key}

    @cached_property
    def target_ancestor_keys(self) -> frozenset[str]:
        return frozenset(normalize_taxon(n) for n in self.target_lineage) - {self.target_key}

    def partner_key(self, key: str) -> str | None:
        """The other taxon's key when ``key`` is one side of the record."""
        if self.source_key == key:
            return self.target_key
        if self.target_key == key:
            return self.source_key
        return None

    def partner_ancestor_keys(self, key: str) -> frozenset[str]:
        """Keys of the taxa containing the other taxon, when ``key`` is one side."""
        if self.source_key == key:
            return self.target_ancestor_keys
        if self.target_key == key:
            return self.source_ancestor_keys
        return frozenset()

    def lineage_of(self, key: str) -> tuple[str, ...]:
        if self.source_key == key:
            return self.source_lineage
        if self.target_key == key:
            return self.target_lineage
        return ()

    def partner(self, key: str) -> tuple[str, tuple[str, ...]] | None:
        """The other taxon of the record (name and lineage) when ``key`` is one side."""
        if self.source_key == key:
            return self.target, self.target_lineage
        if self.target_key == key:
            return self.source, self.source_lineage
        return None


# a rank column of the exchange format ("sourceTaxonFamilyName"): a table may give only some
_RANK_COLUMN = re.compile(r"Taxon(?:Kingdom|Phylum|Class|Order|Family|Genus)Name")


def link_from_row(row: tuple[Any, ...]) -> GlobiLink:
    """A stored GloBI record row as a ``GlobiLink``, with the lineages of both taxa from their
    path columns or, when the table gave the ranks in columns of their own, from the record
    itself."""
    ref, table, number, source, interaction, target, source_path, target_path, raw = row
    source_lineage = lineage_from_path(source_path)
    target_lineage = lineage_from_path(target_path)
    if (not source_lineage or not target_lineage) and raw and _RANK_COLUMN.search(raw):
        record = json.loads(raw)
        source_lineage = source_lineage or lineage_from_columns(record, "source")
        target_lineage = target_lineage or lineage_from_columns(record, "target")
    return GlobiLink(
        ref=str(ref),
        table=str(table or ""),
        row=int(number or 0),
        source=str(source or ""),
        interaction=str(interaction or ""),
        target=str(target or ""),
        source_lineage=source_lineage,
        target_lineage=target_lineage,
        raw=raw if isinstance(raw, str) else "",
    )


class Records(Protocol):
    def links(self, names: Iterable[str]) -> dict[str, list[GlobiLink]]:
        """{taxon key: records naming that taxon as source or target} for the given names."""
        ...

    def by_ref(self, ref: str) -> GlobiLink | None:
        """The record with this reference ("table.tsv#12"), if loaded."""
        ...

    def lineage(self, name: str) -> dict[str, str]:
        """{ancestor key: the ref of a record whose lineage shows it} of a taxon named anywhere
        in the records' lineages ("Noctuidae" inside "... | Lepidoptera | Noctuidae | Agrotis |
        Agrotis segetum"), not only as a record's own taxon."""
        ...


def _ancestors_in(path: tuple[str, ...], key: str) -> dict[str, str] | None:
    """Keys of the names above ``key`` in a lineage, or None when it is not in it."""
    keys = [normalize_taxon(n) for n in path]
    if key not in keys:
        return None
    return {k: "" for k in keys[: keys.index(key)]}


class IndexedRecords:
    """Every loaded record, indexed by taxon key (built once per ``check_all``)."""

    def __init__(self, store: Store) -> None:
        self._by_taxon: dict[str, list[GlobiLink]] = {}
        self._by_ref: dict[str, GlobiLink] = {}
        for row in store.evidence.globi_link_rows(_COLUMNS):
            link = link_from_row(row)
            self._by_ref[link.ref] = link
            self._by_taxon.setdefault(link.source_key, []).append(link)
            if link.target_key != link.source_key:
                self._by_taxon.setdefault(link.target_key, []).append(link)
        self._lineages: dict[str, dict[str, str]] | None = None

    def by_ref(self, ref: str) -> GlobiLink | None:
        return self._by_ref.get(ref)

    def lineage(self, name: str) -> dict[str, str]:
        if self._lineages is None:
            self._lineages = self._every_lineage()
        return self._lineages.get(normalize_taxon(name), {})

    def _every_lineage(self) -> dict[str, dict[str, str]]:
        """Every name of every lineage with the names above it (each distinct lineage read
        once), in table order: the first record showing an ancestor is the one named."""
        found: dict[str, dict[str, str]] = {}
        seen: set[tuple[str, ...]] = set()
        for link in self._by_ref.values():
            for path in (link.source_lineage, link.target_lineage):
                if not path or path in seen:
                    continue
                seen.add(path)
                keys = [normalize_taxon(n) for n in path]
                for at, key in enumerate(keys):
                    above = found.setdefault(key, {})
                    for ancestor in keys[:at]:
                        above.setdefault(ancestor, link.ref)
        return found

    def links(self, names: Iterable[str]) -> dict[str, list[GlobiLink]]:
        result: dict[str, list[GlobiLink]] = {}
        for name in names:
            key = normalize_taxon(name)
            if key in self._by_taxon:
                result[key] = self._by_taxon[key]
        return result


class QueriedRecords:
    """Records fetched from SQLite for just the taxa asked about."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def by_ref(self, ref: str) -> GlobiLink | None:
        rows = self._store.evidence.globi_link_rows(_COLUMNS, ref=ref)
        return link_from_row(rows[0]) if rows else None

    def lineage(self, name: str) -> dict[str, str]:
        key = normalize_taxon(name)
        parsed = parse_name(name)
        written = parsed.canonical if parsed is not None else " ".join(name.split())
        found: dict[str, str] = {}
        for row in self._store.evidence.globi_lineage_rows(_COLUMNS, written):
            link = link_from_row(row)
            for path in (link.source_lineage, link.target_lineage):
                above = _ancestors_in(path, key)
                for ancestor in above or ():
                    found.setdefault(ancestor, link.ref)
        return found

    def links(self, names: Iterable[str]) -> dict[str, list[GlobiLink]]:
        wanted = {normalize_taxon(n): n for n in names}
        variants = sorted({v for n in wanted.values() for v in _spellings(n)})
        if not variants:
            return {}
        result: dict[str, list[GlobiLink]] = {}
        for row in self._store.evidence.globi_link_rows(_COLUMNS, taxa=variants):
            link = link_from_row(row)
            for key in {link.source_key, link.target_key}:
                if key in wanted:
                    result.setdefault(key, []).append(link)
        return result


def _spellings(name: str) -> set[str]:
    """Spellings under which a taxon may be stored (the indexed columns compare exactly)."""
    text = " ".join(name.split())
    spellings = {text, text[:1].upper() + text[1:], text.capitalize()}
    parsed = parse_name(text)
    if parsed is not None:
        spellings.add(parsed.canonical)
    return {s for s in spellings if s}


def format_refs(links: Iterable[GlobiLink], limit: int = 6) -> str:
    """The records' rows as a message names them, "table rows 12, 40; other.tsv row 3" (the
    first ``limit`` rows per table)."""
    by_table: dict[str, list[int]] = {}
    for link in links:
        rows = by_table.setdefault(link.table or link.ref.partition("#")[0], [])
        if link.row not in rows:
            rows.append(link.row)
    parts = []
    for table, rows in by_table.items():
        shown = ", ".join(str(r) for r in sorted(rows)[:limit])
        more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
        parts.append(f"{table} {'rows' if len(rows) > 1 else 'row'} {shown}{more}")
    return "; ".join(parts)
