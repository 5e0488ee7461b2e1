"""The project's own settings and its logs of releases written and files merged in
(``store.project``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bagel_studio.core.store.part import Part
from bagel_studio.core.store.rows import _dumps


class Project(Part):
    """The ``meta``, ``exports`` and ``merges`` tables."""

    # -- settings ------------------------------------------------------------------------------

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else default

    def set_meta(self, key: str, value: Any) -> None:
        with self._store.transaction() as conn:
            conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, _dumps(value)],
            )

    # -- releases written from the project ------------------------------------------------------

    def record_export(self, out_dir: str, seed: int, manifest: Mapping[str, Any]) -> int:
        """Note a written release in the ``exports`` table; return its id."""
        with self._store.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO exports (out_dir, seed, exported_at, manifest) VALUES (?,?,?,?)",
                [
                    out_dir,
                    seed,
                    self._store.clock(),
                    json.dumps(manifest, ensure_ascii=False, sort_keys=True),
                ],
            )
            return int(cursor.lastrowid or 0)

    def last_export_seed(self) -> int | None:
        """The seed of the newest recorded export, or None."""
        row = self.db.execute("SELECT seed FROM exports ORDER BY id DESC LIMIT 1").fetchone()
        return int(row[0]) if row and row[0] is not None else None

    # -- files merged in -----------------------------------------------------------------------

    def record_merge(self, path: str, sha256: str, summary: dict[str, Any]) -> None:
        """Note a merged file in the ``merges`` table."""
        with self._store.transaction() as conn:
            conn.execute(
                "INSERT INTO merges (path, sha256, merged_at, summary) VALUES (?,?,?,?)",
                [path, sha256, self._store.clock(), json.dumps(summary, sort_keys=True)],
            )

    def merged_before(self, sha256: str) -> bool:
        """Whether a file with this SHA-256 was merged into the project before."""
        row = self.db.execute("SELECT 1 FROM merges WHERE sha256 = ? LIMIT 1", [sha256])
        return row.fetchone() is not None

    def merges(self) -> list[dict[str, Any]]:
        """Every merge recorded in the project, oldest first."""
        rows = self.db.execute(
            "SELECT path, sha256, merged_at, summary FROM merges ORDER BY id"
        ).fetchall()
        return [
            {"path": r[0], "sha256": r[1], "merged_at": r[2], "summary": json.loads(r[3] or "{}")}
            for r in rows
        ]
