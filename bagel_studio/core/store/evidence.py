"""Evidence: GloBI records, texts, recordings and the audio measurements' cache
(``store.evidence``).

These tables are written by the importers and read by the desk and checks. Evidence is linked to
items by reference strings kept on the item (``globi_ref``, ``recording_id``, ``text_key``) and
resolved when asked, so evidence and items may be imported in any order.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from bagel_studio.core.store.part import Part
from bagel_studio.core.store.rows import _dumps

GLOBI_COLUMNS = (
    "ref",
    "table_name",
    "row",
    "source_taxon",
    "interaction",
    "target_taxon",
    "source_path",
    "source_path_ranks",
    "target_path",
    "target_path_ranks",
    "locality",
    "latitude",
    "longitude",
    "date",
    "citation",
    "doi",
    "url",
    "record",
)

TEXT_COLUMNS = (
    "key",
    "kind",
    "title",
    "scientific_name",
    "doi",
    "text",
    "truncated",
    "source_file",
)

RECORDING_COLUMNS = (
    "id",
    "scientific_name",
    "common_name",
    "vocalization_type",
    "licence",
    "url",
    "recordist",
    "file_name",
    "audio_path",
    "audio_sha256",
    "metadata",
)


class Evidence(Part):
    """The ``globi_records``, ``texts``, ``recordings``, ``audio_measurements`` and
    ``species_detections`` tables."""

    # -- GloBI records -------------------------------------------------------------------------

    def add_globi_records(self, records: Iterable[dict[str, Any]], import_id: int | None) -> int:
        """Insert records (dicts keyed by GLOBI_COLUMNS; ``record`` is the raw row dict)."""
        rows = []
        for rec in records:
            values = [rec.get(c) for c in GLOBI_COLUMNS]
            values[-1] = _dumps(rec.get("record") or {})
            rows.append((*values, import_id))
        marks = ",".join("?" * (len(GLOBI_COLUMNS) + 1))
        with self._store.transaction() as conn:
            before = conn.total_changes
            conn.executemany(
                f"INSERT OR IGNORE INTO globi_records ({','.join(GLOBI_COLUMNS)}, import_id)"
                f" VALUES ({marks})",
                rows,
            )
            return conn.total_changes - before

    def globi_record(self, ref: str) -> dict[str, Any] | None:
        rows = list(self._globi_rows("ref = ?", [ref]))
        return rows[0] if rows else None

    def globi_records_with_taxon(self, taxon: str) -> list[dict[str, Any]]:
        """Records whose source or target taxon is ``taxon`` (case-insensitive, through the
        ``COLLATE NOCASE`` indexes of migration m002 rather than a scan of every record)."""
        return list(
            self._globi_rows(
                "source_taxon = ? COLLATE NOCASE OR target_taxon = ? COLLATE NOCASE",
                [taxon, taxon],
            )
        )

    def globi_link_rows(
        self, columns: str, *, ref: str | None = None, taxa: Sequence[str] | None = None
    ) -> list[tuple[Any, ...]]:
        """Raw GloBI record rows (``columns``, a fixed list of the checks), in table order: all of
        them, the one with ``ref``, or those whose source or target taxon is one of ``taxa``
        (exact spellings, through the taxon indexes), or one of them with a note in square
        brackets after it ("Brachytarsina alluaudi [as Nycteribosca]")."""
        sql = f"SELECT {columns} FROM globi_records"
        params: list[Any] = []
        if ref is not None:
            sql += " WHERE ref = ?"
            params.append(ref)
        elif taxa is not None:
            marks = ",".join("?" * len(taxa))
            where = [f"source_taxon IN ({marks})", f"target_taxon IN ({marks})"]
            params += [*taxa, *taxa]
            for column in ("source_taxon", "target_taxon"):
                for taxon in taxa:  # the names that start "<taxon> [": a range of the index
                    where.append(f"({column} >= ? AND {column} < ?)")
                    params += [f"{taxon} [", f"{taxon} \\"]
            sql += " WHERE " + " OR ".join(where)
        return self.db.execute(sql + " ORDER BY table_name, row", params).fetchall()

    def globi_lineage_rows(self, columns: str, name: str, limit: int = 20) -> list[tuple[Any, ...]]:
        """Raw GloBI record rows (``columns``, a fixed list of the checks) of a few records whose
        lineage columns or raw row name ``name`` (a scan: for the few higher taxa of one item
        re-checked; a whole check reads every record once instead), in table order."""
        pattern = "%" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return self.db.execute(
            f"SELECT {columns} FROM globi_records"
            " WHERE source_path LIKE ?1 ESCAPE '\\' OR target_path LIKE ?1 ESCAPE '\\'"
            " OR record LIKE ?1 ESCAPE '\\'"
            " ORDER BY table_name, row LIMIT ?2",
            [pattern, limit],
        ).fetchall()

    def iter_globi_records(self) -> Iterator[dict[str, Any]]:
        return self._globi_rows("1", [])

    def globi_record_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM globi_records").fetchone()[0])

    def _globi_rows(self, where: str, params: list[Any]) -> Iterator[dict[str, Any]]:
        cursor = self.db.execute(
            f"SELECT {','.join(GLOBI_COLUMNS)} FROM globi_records WHERE {where}"
            " ORDER BY table_name, row",
            params,
        )
        for row in cursor.fetchall():
            data = dict(zip(GLOBI_COLUMNS, row, strict=True))
            data["record"] = json.loads(data["record"] or "{}")
            yield data

    # -- texts ---------------------------------------------------------------------------------

    def add_texts(self, texts: Iterable[dict[str, Any]], import_id: int | None) -> int:
        """Insert or replace texts (dicts keyed by TEXT_COLUMNS)."""
        rows = [(*[t.get(c) for c in TEXT_COLUMNS], import_id) for t in texts]
        marks = ",".join("?" * (len(TEXT_COLUMNS) + 1))
        with self._store.transaction() as conn:
            before = conn.total_changes
            conn.executemany(
                f"INSERT OR REPLACE INTO texts ({','.join(TEXT_COLUMNS)}, import_id)"
                f" VALUES ({marks})",
                rows,
            )
            return conn.total_changes - before

    def find_text(self, text_key: str | None) -> dict[str, Any] | None:
        """Resolve an item's ``text_key`` ("title:Koala", "sci:Phascolarctos cinereus",
        "doi:10.1101/...", "file:Koala.txt" or a plain key) to its text."""
        if not text_key:
            return None
        kind, _, value = text_key.partition(":")
        column = {"title": "title", "sci": "scientific_name", "doi": "doi", "file": "source_file"}
        if kind in column and value:
            where, params = f"{column[kind]} = ? COLLATE NOCASE", [value]
        else:
            where, params = "key = ?", [text_key]
        cursor = self.db.execute(
            f"SELECT {','.join(TEXT_COLUMNS)} FROM texts WHERE {where} LIMIT 1", params
        )
        row = cursor.fetchone()
        return dict(zip(TEXT_COLUMNS, row, strict=True)) if row else None

    def text_names(self, kind: str) -> list[tuple[str, str | None]]:
        """(title, scientific name) of the texts of ``kind`` that have a title."""
        rows = self.db.execute(
            "SELECT title, scientific_name FROM texts WHERE kind = ? AND title IS NOT NULL"
            " ORDER BY key",
            [kind],
        )
        return [(str(title), scientific) for title, scientific in rows]

    def text_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM texts").fetchone()[0])

    # -- recordings ----------------------------------------------------------------------------

    def upsert_recordings(
        self, recordings: Iterable[dict[str, Any]], import_id: int | None
    ) -> list[str]:
        """Insert recordings or fill in what is new about known ones (e.g. an audio path found
        after the metadata); existing non-empty values are kept. Returns the ids of those
        inserted or changed (a recording whose audio comes after its metadata is one of each).
        Under an ``import_id``, each recording is also noted as that import's (see
        ``arrived_recording_count``, ``linked_item_ids``)."""
        changed: list[str] = []
        arrived: list[tuple[int, str, int]] = []
        with self._store.transaction() as conn:
            for rec in recordings:
                values = {c: rec.get(c) for c in RECORDING_COLUMNS}
                if isinstance(values["metadata"], dict):
                    values["metadata"] = _dumps(values["metadata"])
                existing = conn.execute(
                    f"SELECT {','.join(RECORDING_COLUMNS)} FROM recordings WHERE id = ?",
                    [values["id"]],
                ).fetchone()
                if existing is None:
                    conn.execute(
                        f"INSERT INTO recordings ({','.join(RECORDING_COLUMNS)}, import_id)"
                        f" VALUES ({','.join('?' * (len(RECORDING_COLUMNS) + 1))})",
                        [*values.values(), import_id],
                    )
                    changed.append(str(values["id"]))
                    arrived.append((import_id or 0, str(values["id"]), 1))
                    continue
                old = dict(zip(RECORDING_COLUMNS, existing, strict=True))
                merged = {
                    c: old[c] if old[c] not in (None, "", "{}") else values[c]
                    for c in RECORDING_COLUMNS
                }
                if values["audio_path"]:  # a newly found audio file replaces a stale path
                    merged["audio_path"] = values["audio_path"]
                    merged["audio_sha256"] = values["audio_sha256"]
                differs = merged != old
                if differs:
                    sets = ",".join(f"{c} = ?" for c in RECORDING_COLUMNS[1:])
                    conn.execute(
                        f"UPDATE recordings SET {sets} WHERE id = ?",
                        [*(merged[c] for c in RECORDING_COLUMNS[1:]), values["id"]],
                    )
                    changed.append(str(values["id"]))
                arrived.append((import_id or 0, str(values["id"]), int(differs)))
            if import_id is not None and arrived:
                self._note_arrived(conn, arrived)
        return changed

    # The recordings each import of this connection wrote (its id, the recording's, and whether
    # it was inserted or changed), in a temporary table: what an import run re-checks and counts
    # is read from it, so that its memory does not grow with the recordings a file holds. It is
    # part of the import's transaction (a file rolled back takes its rows with it) and is
    # emptied by ``forget_arrived_recordings`` once the run is done.
    _ARRIVED = "temp.arrived_recordings"

    def _note_arrived(self, conn: sqlite3.Connection, rows: list[tuple[int, str, int]]) -> None:
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {self._ARRIVED} (import_id INTEGER NOT NULL,"
            " id TEXT NOT NULL, changed INTEGER NOT NULL, PRIMARY KEY (import_id, id))"
            " WITHOUT ROWID"
        )
        conn.executemany(
            f"INSERT INTO {self._ARRIVED} (import_id, id, changed) VALUES (?, ?, ?)"
            " ON CONFLICT (import_id, id) DO UPDATE SET changed = max(changed, excluded.changed)",
            rows,
        )

    def _arrived_exists(self) -> bool:
        return bool(
            self.db.execute(
                "SELECT 1 FROM sqlite_temp_master WHERE type = 'table' AND name = ?",
                ["arrived_recordings"],
            ).fetchone()
        )

    def arrived_recording_count(self, import_ids: Sequence[int]) -> int:
        """How many distinct recordings the imports ``import_ids`` inserted or changed."""
        if not import_ids or not self._arrived_exists():
            return 0
        row = self.db.execute(
            f"SELECT count(DISTINCT id) FROM {self._ARRIVED} WHERE changed"
            " AND import_id IN (SELECT value FROM json_each(?))",
            [json.dumps(list(import_ids))],
        ).fetchone()
        return int(row[0])

    def forget_arrived_recordings(self) -> None:
        """Empty the table of the recordings this connection's imports wrote."""
        if self._arrived_exists():
            with self._store.transaction() as conn:
                conn.execute(f"DELETE FROM {self._ARRIVED}")

    def linked_item_ids(
        self, domain: str | None, recording_imports: Sequence[int], text_keys: Sequence[str]
    ) -> list[str]:
        """Items of ``domain`` (None: none), or naming a recording that one of the imports
        ``recording_imports`` of this connection wrote (see ``upsert_recordings``), or whose
        text key (lower case) is one of ``text_keys``: those whose evidence just changed."""
        recordings = "0"
        if recording_imports and self._arrived_exists():
            recordings = (
                f"recording_id IN (SELECT id FROM {self._ARRIVED}"
                " WHERE import_id IN (SELECT value FROM json_each(?)))"
            )
        query = (
            "SELECT id FROM items WHERE (? AND domain = ?)"
            f" OR {recordings}"
            " OR lower(text_key) IN (SELECT value FROM json_each(?))"
        )
        params: list[Any] = [int(domain is not None), domain or ""]
        if recordings != "0":
            params.append(json.dumps(list(recording_imports)))
        params.append(json.dumps(list(text_keys)))
        return [row[0] for row in self.db.execute(query, params)]

    def recording(self, recording_id: str | None) -> dict[str, Any] | None:
        if not recording_id:
            return None
        row = self.db.execute(
            f"SELECT {','.join(RECORDING_COLUMNS)} FROM recordings WHERE id = ? COLLATE NOCASE",
            [recording_id],
        ).fetchone()
        if row is None:
            return None
        data = dict(zip(RECORDING_COLUMNS, row, strict=True))
        data["metadata"] = json.loads(data["metadata"] or "{}")
        return data

    def recording_rows(self) -> list[dict[str, Any]]:
        """Every recording (``RECORDING_COLUMNS``, metadata decoded) in one query."""
        cursor = self.db.execute(f"SELECT {','.join(RECORDING_COLUMNS)} FROM recordings")
        result = []
        for row in cursor.fetchall():
            data = dict(zip(RECORDING_COLUMNS, row, strict=True))
            data["metadata"] = json.loads(data["metadata"] or "{}")
            result.append(data)
        return result

    def recording_licences(self) -> dict[str, str]:
        """Casefolded recording id -> licence, for recordings with one."""
        rows = self.db.execute("SELECT id, licence FROM recordings WHERE licence IS NOT NULL")
        return {str(r[0]).casefold(): str(r[1]) for r in rows if str(r[1]).strip()}

    def recording_id_for_file(self, file_name: str) -> str | None:
        """The recording whose audio file has this name (case-insensitive), if any."""
        row = self.db.execute(
            "SELECT id FROM recordings WHERE file_name = ? COLLATE NOCASE", [file_name]
        ).fetchone()
        return None if row is None else str(row[0])

    def items_with_recording(self, recording_id: str) -> list[str]:
        """The ids of the items about one recording (its frequency, duration... questions)."""
        rows = self.db.execute(
            "SELECT id FROM items WHERE recording_id = ? COLLATE NOCASE ORDER BY seq",
            [recording_id],
        )
        return [str(row[0]) for row in rows]

    def recordings(self) -> list[dict[str, Any]]:
        ids = [r[0] for r in self.db.execute("SELECT id FROM recordings ORDER BY id")]
        return [r for r in (self.recording(i) for i in ids) if r is not None]

    # -- audio measurements (the cache of ``core.audio.project``) ------------------------------

    def measurement_json(self, key: str, version: str) -> str | None:
        """The cached measurement (JSON text) of the audio ``key`` at analysis ``version``."""
        row = self.db.execute(
            "SELECT result FROM audio_measurements WHERE audio_sha256 = ? AND version = ?",
            [key, version],
        ).fetchone()
        return None if row is None else str(row[0])

    def put_measurement(self, keys: Sequence[str], version: str, payload: str) -> None:
        """Cache a measurement (JSON text) under each key, replacing an older one."""
        with self._store.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO audio_measurements (audio_sha256, version, result,"
                " computed_at) VALUES (?, ?, ?, ?)",
                [(key, version, payload, self._store.clock()) for key in dict.fromkeys(keys)],
            )

    # -- species detections (the cache of ``core.audio.species_project``) ----------------------

    def detection_json(self, key: str, version: str) -> str | None:
        """The cached species detection (JSON text) of the audio ``key`` at ``version``."""
        row = self.db.execute(
            "SELECT result FROM species_detections WHERE audio_sha256 = ? AND version = ?",
            [key, version],
        ).fetchone()
        return None if row is None else str(row[0])

    def put_detection(self, keys: Sequence[str], version: str, model: str, payload: str) -> None:
        """Cache a species detection (JSON text) under each key, replacing an older one."""
        with self._store.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO species_detections (audio_sha256, version, model, result,"
                " computed_at) VALUES (?, ?, ?, ?, ?)",
                [
                    (key, version, model, payload, self._store.clock())
                    for key in dict.fromkeys(keys)
                ],
            )
