"""The flags the checks (and the audit) raise on items, the queue's summary of them on each item,
and the items whose checks are still due (``store.flags``).

Flags are written only by the checks package (``replace_flags``, ``replace_all_flags``) and the
audit (``replace_origin_flags``): each write keeps the item's flag summary (``flag_severity``,
``flag_checks``: what the queue filters and sorts on) in step with its flags.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence

from bagel_studio.core.model import SEVERITY_RANK, Flag, Severity
from bagel_studio.core.store.part import Part
from bagel_studio.core.store.queue import NO_FLAG
from bagel_studio.core.store.rows import _dumps, _loads

_SEVERITIES = {s.value: s for s in Severity}


class Flags(Part):
    """The ``flags`` and ``pending_checks`` tables, and the items' flag summaries."""

    # -- writing -------------------------------------------------------------------------------

    def replace_flags(self, item_id: str, flags: Sequence[Flag]) -> None:
        with self._store.transaction() as conn:
            self._write_flags(conn, item_id, flags)
            conn.execute("DELETE FROM pending_checks WHERE item_id = ?", [item_id])

    def replace_all_flags(self, flags_by_item: Mapping[str, Sequence[Flag]]) -> None:
        """Replace the flags of many items in one transaction (flags with an origin, the
        audit's, stay). The stored flags of the items are read in one query and only the items
        whose flags differ are rewritten (one delete, one insert of their flags); the items'
        flag summaries are updated where they differ. A re-check that changes nothing writes
        nothing. Their checks are then no longer pending."""
        if not flags_by_item:
            return
        ids = json.dumps(list(flags_by_item))
        with self._store.transaction() as conn:
            own, others = self._stored_flags(conn, ids)
            rows: list[tuple[str, str, str, str, str]] = []
            changed: list[str] = []
            summaries: list[tuple[int, str, str, int, str]] = []
            for item_id, flags in flags_by_item.items():
                new = [(f.check, f.severity.value, f.message, _dumps(f.details)) for f in flags]
                if own.get(item_id, set()) != set(new) or len(new) != len(set(new)):
                    changed.append(item_id)
                    rows += [(item_id, *flag) for flag in new]
                checks = {f.check for f in flags}  # an own flag replaces another of its check
                kept = [(c, Severity(s)) for c, s in others.get(item_id, ()) if c not in checks]
                severity, summary = _flag_summary([(f.check, f.severity) for f in flags] + kept)
                summaries.append((severity, summary, item_id, severity, summary))
            if changed:
                conn.execute(
                    "DELETE FROM flags WHERE origin IS NULL"
                    " AND item_id IN (SELECT value FROM json_each(?))",
                    [json.dumps(changed)],
                )
                conn.executemany(
                    "INSERT OR REPLACE INTO flags (item_id, check_id, severity, message, details)"
                    " VALUES (?,?,?,?,?)",
                    rows,
                )
            conn.executemany(
                "UPDATE items SET flag_severity = ?, flag_checks = ? WHERE id = ?"
                " AND (flag_severity IS NOT ? OR flag_checks IS NOT ?)",
                summaries,
            )
            if conn.execute("SELECT 1 FROM pending_checks LIMIT 1").fetchone() is not None:
                conn.execute(
                    "DELETE FROM pending_checks WHERE item_id IN (SELECT value FROM json_each(?))",
                    [ids],
                )

    def replace_origin_flags(
        self, origin: str, flags_by_item: Mapping[str, Sequence[Flag]]
    ) -> set[str]:
        """Replace every flag of ``origin`` (the audit's) with ``flags_by_item``, in one
        transaction; return the ids of the items whose flags changed (had some, or get some)."""
        with self._store.transaction() as conn:
            before = {
                row[0]
                for row in conn.execute("SELECT item_id FROM flags WHERE origin = ?", [origin])
            }
            conn.execute("DELETE FROM flags WHERE origin = ?", [origin])
            present = self._store.items.present_ids(list(flags_by_item))
            conn.executemany(
                "INSERT OR REPLACE INTO flags (item_id, check_id, severity, message, details,"
                " origin) VALUES (?,?,?,?,?,?)",
                [
                    (item_id, f.check, f.severity.value, f.message, _dumps(f.details), origin)
                    for item_id, flags in flags_by_item.items()
                    if item_id in present
                    for f in flags
                ],
            )
            changed = before | present
            for item_id in changed:
                rows = conn.execute(
                    "SELECT check_id, severity FROM flags WHERE item_id = ? ORDER BY check_id",
                    [item_id],
                ).fetchall()
                self._write_flag_summary(conn, item_id, _summary_pairs(rows))
        return changed

    def mark_checks_pending(self, item_ids: Iterable[str]) -> None:
        """Record that these items await their checks (inside the caller's transaction, so the
        record and the items or evidence that made them due are committed together)."""
        with self._store.transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO pending_checks (item_id) VALUES (?)",
                [(item_id,) for item_id in item_ids],
            )

    # -- reading -------------------------------------------------------------------------------

    def of_item(self, item_id: str) -> list[Flag]:
        """An item's flags, the most severe first."""
        rows = self.db.execute(
            "SELECT check_id, severity, message, details FROM flags WHERE item_id = ?", [item_id]
        ).fetchall()
        flags = [Flag(r[0], Severity(r[1]), r[2], _loads(r[3]) or {}) for r in rows]
        return sorted(flags, key=lambda f: (SEVERITY_RANK[f.severity], f.check))

    def of_items(self, item_ids: Sequence[str]) -> dict[str, list[Flag]]:
        """The flags of each of ``item_ids`` that has any, each item's most severe first."""
        found: dict[str, list[Flag]] = {}
        for start in range(0, len(item_ids), 5000):
            rows = self.db.execute(
                "SELECT item_id, check_id, severity, message, details FROM flags"
                " WHERE item_id IN (SELECT value FROM json_each(?))",
                [json.dumps(list(item_ids[start : start + 5000]))],
            )
            for item_id, check, severity, message, details in rows:
                flag = Flag(check, _SEVERITIES[severity], message, _loads(details) or {})
                found.setdefault(str(item_id), []).append(flag)
        for flags in found.values():
            flags.sort(key=lambda f: (SEVERITY_RANK[f.severity], f.check))
        return found

    def of_origin(self, origin: str) -> list[tuple[str, Flag]]:
        """(item id, flag) of every flag of ``origin`` (the audit's), in queue order."""
        rows = self.db.execute(
            "SELECT f.item_id, f.check_id, f.severity, f.message, f.details FROM flags f"
            " JOIN items i ON i.id = f.item_id WHERE f.origin = ? ORDER BY i.seq, f.check_id",
            [origin],
        )
        return [(str(r[0]), Flag(r[1], _SEVERITIES[r[2]], r[3], _loads(r[4]) or {})) for r in rows]

    def blocking(self, item_id: str) -> list[Flag]:
        return [f for f in self.of_item(item_id) if f.severity is Severity.BLOCKING]

    def all(self, *, details: bool = True) -> list[tuple[str, Flag]]:
        """Every flag of the project in queue order, as (item id, flag). ``details=False``
        leaves the flags' details empty, unread (a listing of messages needs none of them)."""
        column = "f.details" if details else "NULL"
        rows = self.db.execute(
            f"SELECT f.item_id, f.check_id, f.severity, f.message, {column} FROM flags f"
            " JOIN items i ON i.id = f.item_id ORDER BY i.seq, f.check_id"
        ).fetchall()
        severity = _SEVERITIES
        return [(r[0], Flag(r[1], severity[r[2]], r[3], _loads(r[4]) or {})) for r in rows]

    def counts(self) -> dict[str, int]:
        """Flags per check id."""
        rows = self.db.execute(
            "SELECT check_id, count(*) FROM flags GROUP BY check_id ORDER BY check_id"
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def blocking_messages(self) -> dict[str, list[str]]:
        """Item id -> messages of its blocking flags (by check), items in queue order."""
        rows = self.db.execute(
            "SELECT f.item_id, f.message FROM flags f JOIN items i ON i.id = f.item_id"
            " WHERE f.severity = 'blocking' ORDER BY i.seq, f.check_id"
        )
        result: dict[str, list[str]] = {}
        for item_id, message in rows:
            result.setdefault(item_id, []).append(message)
        return result

    def messages(
        self, item_ids: Sequence[str], checks: Sequence[str]
    ) -> dict[str, set[tuple[str, str]]]:
        """{item id: {(check, message)}} of the given checks' stored flags on the given items."""
        cursor = self.db.execute(
            "SELECT item_id, check_id, message FROM flags"
            " WHERE item_id IN (SELECT value FROM json_each(?))"
            " AND check_id IN (SELECT value FROM json_each(?))",
            [json.dumps(list(item_ids)), json.dumps(list(checks))],
        )
        result: dict[str, set[tuple[str, str]]] = {}
        for item_id, check, message in cursor:
            result.setdefault(str(item_id), set()).add((str(check), str(message)))
        return result

    def pending_check_ids(self) -> list[str]:
        """Items whose checks an interrupted import (or desk job) did not finish."""
        # CROSS JOIN: the few pending rows first, then sorted. With a plain JOIN SQLite walked
        # every item in queue order to probe pending_checks (0.14 s at 200,000 items, at each
        # desk start), though the table is nearly always empty.
        rows = self.db.execute(
            "SELECT p.item_id FROM pending_checks p CROSS JOIN items i ON i.id = p.item_id"
            " ORDER BY i.seq"
        ).fetchall()
        return [row[0] for row in rows]

    # -- internals -----------------------------------------------------------------------------

    @staticmethod
    def _stored_flags(
        conn: sqlite3.Connection, ids: str
    ) -> tuple[dict[str, set[tuple[str, str, str, str | None]]], dict[str, list[tuple[str, str]]]]:
        """The stored flags of the items ``ids`` (a JSON list): their own flags, by item, and
        (check, severity) of the flags with an origin (the audit's), by item."""
        own: dict[str, set[tuple[str, str, str, str | None]]] = {}
        others: dict[str, list[tuple[str, str]]] = {}
        for item_id, check, severity, message, details, origin in conn.execute(
            "SELECT item_id, check_id, severity, message, details, origin FROM flags"
            " WHERE item_id IN (SELECT value FROM json_each(?))",
            [ids],
        ):
            if origin is None:
                own.setdefault(item_id, set()).add((check, severity, message, details))
            else:
                others.setdefault(item_id, []).append((check, severity))
        return own, others

    @classmethod
    def _write_flags(cls, conn: sqlite3.Connection, item_id: str, flags: Sequence[Flag]) -> None:
        """Replace an item's own flags; flags with an origin (the audit's) stay."""
        conn.execute("DELETE FROM flags WHERE item_id = ? AND origin IS NULL", [item_id])
        conn.executemany(
            "INSERT OR REPLACE INTO flags (item_id, check_id, severity, message, details)"
            " VALUES (?,?,?,?,?)",
            [(item_id, f.check, f.severity.value, f.message, _dumps(f.details)) for f in flags],
        )
        kept = conn.execute(
            "SELECT check_id, severity FROM flags WHERE item_id = ? AND origin IS NOT NULL",
            [item_id],
        ).fetchall()
        cls._write_flag_summary(
            conn, item_id, [(f.check, f.severity) for f in flags] + _summary_pairs(kept)
        )

    @staticmethod
    def _write_flag_summary(
        conn: sqlite3.Connection, item_id: str, flags: Sequence[tuple[str, Severity]]
    ) -> None:
        """The queue's copy of an item's flags: its worst severity and its check ids."""
        conn.execute(
            "UPDATE items SET flag_severity = ?, flag_checks = ? WHERE id = ?",
            [*_flag_summary(flags), item_id],
        )


def _flag_summary(flags: Sequence[tuple[str, Severity]]) -> tuple[int, str]:
    """The items columns the queue filters on: the most severe flag's rank, the check ids."""
    severity = min((SEVERITY_RANK[s] for _, s in flags), default=NO_FLAG)
    return severity, "," + "".join(f"{c}," for c, _ in flags)


def _summary_pairs(rows: Iterable[tuple[str, str]]) -> list[tuple[str, Severity]]:
    return [(check, Severity(severity)) for check, severity in rows]
