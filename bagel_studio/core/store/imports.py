"""The import runs, the files they read, and what they could not use: rejected lines and the
generator's outputs marked unusable (``store.imports``)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from bagel_studio.core.store.part import Part
from bagel_studio.core.store.rows import _dumps

RAW_LIMIT = 1 << 20  # rejected lines are kept up to 1 MiB; longer ones keep their head and size


@dataclass(frozen=True)
class Reject:
    """An input line (or file) that could not become an item, and why."""

    file: str
    line: int
    reason: str
    raw: str = ""
    size: int | None = None  # bytes of the line when ``raw`` holds only its head

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


@dataclass(frozen=True)
class GeneratorRejection:
    """A generator output with ``usable: false``: kept and counted, never an item."""

    key: str
    domain: str
    reason: str
    source: dict[str, Any]
    output: dict[str, Any]
    file: str
    line: int


class Imports(Part):
    """The ``imports``, ``import_files``, ``rejects`` and ``generator_rejections`` tables."""

    def find_import(self, sha256: str) -> dict[str, Any] | None:
        """The earlier import of a file with this content, if any."""
        row = self.db.execute(
            "SELECT id, path, name, format, imported_at, summary FROM imports WHERE sha256 = ?"
            " ORDER BY id LIMIT 1",
            [sha256],
        ).fetchone()
        if row is None:
            return None
        keys = ("id", "path", "name", "format", "imported_at", "summary")
        data = dict(zip(keys, row, strict=True))
        data["summary"] = json.loads(data["summary"] or "{}")
        return data

    def record_import(self, path: str, name: str, sha256: str | None, fmt: str) -> int:
        """A new import of the file at ``path``; its ``sha256`` may be given at the end, by
        ``finish_import``, when it is computed while the file is read."""
        with self._store.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO imports (path, name, sha256, format, imported_at, summary)"
                " VALUES (?,?,?,?,?,?)",
                [path, name, sha256, fmt, self._store.clock(), "{}"],
            )
            return int(cursor.lastrowid or 0)

    def finish_import(
        self,
        import_id: int,
        summary: dict[str, Any],
        sha256: str | None = None,
        size: int | None = None,
    ) -> None:
        """Store the import's summary, and its file's SHA-256 and size when given."""
        with self._store.transaction() as conn:
            conn.execute(
                "UPDATE imports SET summary = ?, sha256 = coalesce(?, sha256),"
                " size = coalesce(?, size) WHERE id = ?",
                [_dumps(summary), sha256, size, import_id],
            )

    def import_of_size(self, size: int) -> bool:
        """Whether an earlier import may have read a file of ``size`` bytes: one that did, or one
        recorded before sizes were (whose size is unknown)."""
        row = self.db.execute(
            "SELECT 1 FROM imports WHERE size = ? OR (size IS NULL AND sha256 IS NOT NULL) LIMIT 1",
            [size],
        ).fetchone()
        return row is not None

    def import_for_file(self, path: str, stat: Sequence[int]) -> int | None:
        """The import whose content the file at ``path`` had when last read, if the file's
        ``stat`` (size, mtime_ns, ctime_ns, inode, device) is still the one seen then."""
        row = self.db.execute(
            "SELECT import_id FROM import_files WHERE path = ? AND size = ? AND mtime_ns = ?"
            " AND ctime_ns = ? AND inode = ? AND device = ?",
            [path, *stat],
        ).fetchone()
        return int(row[0]) if row else None

    def remember_files(self, files: Sequence[tuple[str, int, Sequence[int]]]) -> None:
        """Note (path, import id, stat) of files read: the stat each had, and the import whose
        content it held; a path seen before is noted afresh. An import recorded before sizes
        were gets the size of the file found to hold its content."""
        if not files:
            return
        with self._store.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO import_files"
                " (path, import_id, size, mtime_ns, ctime_ns, inode, device)"
                " VALUES (?,?,?,?,?,?,?)",
                [(path, import_id, *stat) for path, import_id, stat in files],
            )
            conn.executemany(
                "UPDATE imports SET size = ? WHERE id = ? AND size IS NULL",
                [(stat[0], import_id) for _, import_id, stat in files],
            )

    def all(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT id, path, name, sha256, format, imported_at, summary FROM imports ORDER BY id"
        ).fetchall()
        keys = ("id", "path", "name", "sha256", "format", "imported_at", "summary")
        return [
            dict(zip(keys, r, strict=True)) | {"summary": json.loads(r[6] or "{}")} for r in rows
        ]

    # -- rejects -------------------------------------------------------------------------------

    def add_rejects(self, import_id: int | None, rejects: Sequence[Reject]) -> None:
        rows = [
            (
                import_id,
                r.file,
                r.line,
                r.reason,
                r.raw[:RAW_LIMIT],
                len(r.raw.encode("utf-8", "replace")) if r.size is None else r.size,
            )
            for r in rejects
        ]
        with self._store.transaction() as conn:
            conn.executemany(
                "INSERT INTO rejects (import_id, file, line, reason, raw, raw_bytes)"
                " VALUES (?,?,?,?,?,?)",
                rows,
            )

    def rejects(self) -> list[Reject]:
        rows = self.db.execute("SELECT file, line, reason, raw FROM rejects ORDER BY id")
        return [Reject(r[0], int(r[1]), r[2], r[3] or "") for r in rows]

    def reject_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM rejects").fetchone()[0])

    @staticmethod
    def _matching(match: str | None) -> tuple[str, list[Any]]:
        """The condition of the rejects whose file or reason holds ``match`` (any case)."""
        if not match:
            return "1", []
        pattern = "%" + match.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return "(file LIKE ? ESCAPE '\\' OR reason LIKE ? ESCAPE '\\')", [pattern, pattern]

    def reject_files(self, match: str | None = None) -> list[tuple[str, int]]:
        """(file, how many of its lines were rejected) of the rejects whose file or reason holds
        ``match``, the files in the order they were first imported."""
        where, params = self._matching(match)
        rows = self.db.execute(
            f"SELECT file, count(*) FROM rejects WHERE {where} GROUP BY file ORDER BY min(id)",
            params,
        )
        return [(str(file), int(count)) for file, count in rows]

    def rejects_of_file(
        self, file: str, match: str | None = None, offset: int = 0, limit: int = -1
    ) -> list[tuple[int, int, str]]:
        """(id, line, reason) of ``file``'s rejects whose file or reason holds ``match``, by
        line: ``limit`` of them from ``offset`` (all with -1)."""
        where, params = self._matching(match)
        rows = self.db.execute(
            f"SELECT id, line, reason FROM rejects WHERE file = ? AND {where}"
            " ORDER BY line, id LIMIT ? OFFSET ?",
            [file, *params, limit, offset],
        )
        return [(int(reject_id), int(line), str(reason)) for reject_id, line, reason in rows]

    def reject_raw(self, reject_id: int) -> tuple[str, int | None]:
        """The text of a rejected line as read (its head when it was long), and its length."""
        row = self.db.execute(
            "SELECT raw, raw_bytes FROM rejects WHERE id = ?", [reject_id]
        ).fetchone()
        return ("", None) if row is None else (row[0] or "", row[1])

    def last_reject_id(self) -> int:
        """The id of the newest reject (0 without any): an import's come after it."""
        return int(self.db.execute("SELECT coalesce(max(id), 0) FROM rejects").fetchone()[0])

    def reject_rows_after(self, after: int, page: int = 5000) -> Iterator[tuple[str, int, str]]:
        """(file, line, reason) of every reject after the id ``after``, in the order they were
        written, read ``page`` at a time: a listing that does not hold them all."""
        while True:
            rows = self.db.execute(
                "SELECT id, file, line, reason FROM rejects WHERE id > ? ORDER BY id LIMIT ?",
                (after, page),
            ).fetchall()
            for _, file, line, reason in rows:
                yield str(file), int(line), str(reason)
            if len(rows) < page:
                return
            after = int(rows[-1][0])

    def add_generator_rejections(
        self, rejections: Sequence[GeneratorRejection], import_id: int | None
    ) -> int:
        rows = [
            (
                g.key,
                g.domain,
                g.reason,
                _dumps(g.source),
                _dumps(g.output),
                import_id,
                g.file,
                g.line,
            )
            for g in rejections
        ]
        with self._store.transaction() as conn:
            before = conn.total_changes
            conn.executemany(
                "INSERT OR IGNORE INTO generator_rejections"
                " (key, domain, reason, source, output, import_id, file, line)"
                " VALUES (?,?,?,?,?,?,?,?)",
                rows,
            )
            return conn.total_changes - before

    def generator_rejection_counts(self) -> dict[str, dict[str, int]]:
        """{domain: {reason: count}} of generator outputs marked unusable."""
        result: dict[str, dict[str, int]] = {}
        rows = self.db.execute(
            "SELECT domain, reason, count(*) FROM generator_rejections GROUP BY 1, 2 ORDER BY 1, 2"
        )
        for domain, reason, count in rows:
            result.setdefault(domain, {})[reason] = int(count)
        return result
