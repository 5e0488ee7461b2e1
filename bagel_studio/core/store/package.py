"""A curator's package: a project file holding only what one curator of a review plan needs.

``write_package`` copies the project with SQLite's online backup API (``Store.copy_to``: it
reads one consistent moment, committed writes only, while another process, the desk, goes on
writing) and then, in the copy alone, removes what is not the curator's: the other items, every
other curator's decisions and history, the adjudications, the evidence no kept item uses, the
logs of imports, merges and releases, the other plans, and the plan's key. The items are
renumbered in the order the plan gives them to the curator, so the queue shows them so, and
their statuses are those the curator's own decisions give. The copy
is then rebuilt (``VACUUM``: nothing removed can be read back from free pages, so a curator
cannot see another's decision on a shared item) and written as one file (no write-ahead log).

The GloBI records are all kept: the checks read the loaded records as a whole (another record
of the same taxa makes a key record-specific), so a package's flags are the project's.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bagel_studio.core.store.database import add_functions
from bagel_studio.core.store.reviews import Reviews
from bagel_studio.core.store.team import PACKAGE_META

# Flags read from other curators' decisions, which a package does not hold.
FROM_OTHERS_DECISIONS = ("blind-answer-wrong",)


@dataclass(frozen=True)
class PackageContents:
    """What a package keeps: the curator's items in queue order, the evidence they use, the
    new (relative) audio paths of their recordings, and what binds it to the plan."""

    curator: str
    plan_id: str
    round: int
    item_ids: Sequence[str]
    text_keys: Sequence[str]
    recordings: Mapping[str, str | None]  # recording id -> its audio path in the package
    measurement_keys: Sequence[str]  # the measurement and detection cache keys they use
    binding: Mapping[str, Any]  # the package's meta: curator, plan, round, binding, ...


def prune_to_package(path: Path, contents: PackageContents) -> None:
    """Turn the project copy at ``path`` (``Store.copy_to``) into ``contents.curator``'s
    package, in place: one transaction removes and renumbers, then the file is rebuilt whole and
    left as one file. The copy must be no one else's (a new file in the hand-out's folder)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("PRAGMA recursive_triggers = on")
        conn.execute("BEGIN IMMEDIATE")
        try:
            _prune(conn, contents)
        except BaseException:
            conn.rollback()
            raise
        conn.commit()
        conn.execute("INSERT INTO items_fts(items_fts) VALUES ('rebuild')")
        conn.execute("VACUUM")
        problems = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            raise sqlite3.DatabaseError(f"the package failed its check: {problems[0]}")
    finally:
        conn.close()


def _keep(conn: sqlite3.Connection, table: str, values: Sequence[Any]) -> None:
    conn.execute(f"CREATE TEMP TABLE {table} (value PRIMARY KEY)")
    conn.executemany(f"INSERT OR IGNORE INTO {table} VALUES (?)", [(v,) for v in values])


def _prune(conn: sqlite3.Connection, c: PackageContents) -> None:
    # the plan's rows are the curator's by the name cleaned as ``Team.assignments`` reads it:
    # rows edited by hand into " alice" are alice's (they were removed from her package)
    add_functions(conn)
    conn.execute("CREATE TEMP TABLE keep_items (id TEXT PRIMARY KEY, position INTEGER)")
    conn.executemany(
        "INSERT INTO keep_items VALUES (?, ?)", [(i, n) for n, i in enumerate(c.item_ids, 1)]
    )
    _keep(conn, "keep_texts", list(c.text_keys))
    _keep(conn, "keep_recordings", list(c.recordings))
    _keep(conn, "keep_measurements", list(c.measurement_keys))
    kept = "SELECT id FROM keep_items"
    for sql, params in (
        (f"DELETE FROM items WHERE id NOT IN ({kept})", []),
        (
            "UPDATE items SET seq = (SELECT position FROM keep_items k WHERE k.id = items.id)",
            [],
        ),
        (
            f"DELETE FROM flags WHERE item_id NOT IN ({kept})"
            " OR check_id IN (SELECT value FROM json_each(?))",
            [json.dumps(FROM_OTHERS_DECISIONS)],
        ),
        (f"DELETE FROM pending_checks WHERE item_id NOT IN ({kept})", []),
        (f"DELETE FROM reviews WHERE curator != ? OR item_id NOT IN ({kept})", [c.curator]),
        ("DELETE FROM adjudications", []),
        (f"DELETE FROM history WHERE curator != ? OR item_id NOT IN ({kept})", [c.curator]),
        (f"DELETE FROM llm_answers WHERE item_id NOT IN ({kept})", []),
        (f"DELETE FROM llm_verdicts WHERE item_id NOT IN ({kept})", []),
        (f"DELETE FROM llm_regenerations WHERE item_id NOT IN ({kept})", []),
        ("DELETE FROM texts WHERE key NOT IN (SELECT value FROM keep_texts)", []),
        ("DELETE FROM recordings WHERE id NOT IN (SELECT value FROM keep_recordings)", []),
        (
            "DELETE FROM audio_measurements"
            " WHERE audio_sha256 NOT IN (SELECT value FROM keep_measurements)",
            [],
        ),
        (
            "DELETE FROM species_detections"
            " WHERE audio_sha256 NOT IN (SELECT value FROM keep_measurements)",
            [],
        ),
        ("DELETE FROM rejects", []),
        ("DELETE FROM generator_rejections", []),
        ("DELETE FROM import_files", []),
        ("DELETE FROM merges", []),
        ("DELETE FROM exports", []),
        ("DELETE FROM plan_collections", []),
        (
            "DELETE FROM plan_assignments"
            " WHERE plan_id != ? OR cleaned_curator(curator) != ? OR round != ?",
            [c.plan_id, c.curator, c.round],
        ),
        ("DELETE FROM review_plans WHERE id != ?", [c.plan_id]),
        ("UPDATE review_plans SET secret = ''", []),
    ):
        conn.execute(sql, params)
    # the statuses the curator's own decisions give (another's reject is not shown as theirs)
    Reviews._refresh_statuses(conn, list(c.item_ids))
    conn.executemany(
        "UPDATE recordings SET audio_path = ? WHERE id = ?",
        [(audio, recording) for recording, audio in c.recordings.items()],
    )
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        [PACKAGE_META, json.dumps(dict(c.binding), ensure_ascii=False, sort_keys=True)],
    )
