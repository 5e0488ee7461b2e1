"""The adjudicator's final decision on an item, which outranks its curators'
(``store.adjudications``).

Each write joins the caller's transaction (or opens its own) and writes the adjudication with its
history entry and the item's refreshed status.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.store.part import Part
from bagel_studio.core.store.reviews import among
from bagel_studio.core.store.rows import _dumps, _loads

KEYS = ("adjudicator", "decision", "reason", "note", "content", "decided_at")


class Adjudications(Part):
    """The ``adjudications`` table."""

    def record_adjudication(
        self,
        item_id: str,
        adjudicator: str,
        decision: Decision,
        content: ItemContent,
        *,
        reason: str | None = None,
        note: str | None = None,
    ) -> None:
        """Write the adjudicator's final decision (replacing an earlier one), with its history
        entry and the item's new status."""
        with self._store.transaction() as conn:
            before_row = conn.execute(
                "SELECT adjudicator, decision, reason, note, content FROM adjudications"
                " WHERE item_id = ?",
                [item_id],
            ).fetchone()
            after = {
                "adjudicator": adjudicator,
                "decision": decision.value,
                "reason": reason,
                "note": note,
                "content": content.to_json(),
            }
            conn.execute(
                "INSERT OR REPLACE INTO adjudications"
                " (item_id, adjudicator, decision, reason, note, content, decided_at)"
                " VALUES (?,?,?,?,?,?,?)",
                [
                    item_id,
                    adjudicator,
                    decision.value,
                    reason,
                    note,
                    _dumps(content.to_json()),
                    self._store.clock(),
                ],
            )
            before = None
            if before_row:
                before = dict(
                    zip(("adjudicator", "decision", "reason", "note"), before_row[:4], strict=True)
                )
                before["content"] = _loads(before_row[4])
            self._store.history.append_entry(
                conn, item_id, adjudicator, "adjudicate", before, after
            )
            self._store.reviews.refresh_status(conn, item_id)

    def import_adjudication(self, item_id: str, adjudication: dict[str, Any], source: str) -> str:
        """Bring in another file's adjudication (merge) for an item that has none here, keeping
        its time and author; ``adjudication`` is a row of that file's ``adjudications`` table
        (``content`` as stored JSON text). Returns "added", "unchanged" (the same one is here)
        or "kept" (a different one is here and stays)."""
        keys = ("adjudicator", "decision", "reason", "note")
        with self._store.transaction() as conn:
            row = conn.execute(
                "SELECT adjudicator, decision, reason, note, content FROM adjudications"
                " WHERE item_id = ?",
                [item_id],
            ).fetchone()
            if row is not None:
                same = all(row[i] == adjudication[k] for i, k in enumerate(keys))
                same = same and json.loads(row[4]) == json.loads(adjudication["content"])
                return "unchanged" if same else "kept"
            conn.execute(
                "INSERT INTO adjudications"
                " (item_id, adjudicator, decision, reason, note, content, decided_at)"
                " VALUES (?,?,?,?,?,?,?)",
                [
                    item_id,
                    *(adjudication[k] for k in keys),
                    adjudication["content"],
                    adjudication["decided_at"],
                ],
            )
            after = {k: adjudication[k] for k in keys}
            after["content"] = json.loads(adjudication["content"])
            self._store.history.append_entry(
                conn, item_id, adjudication["adjudicator"], "adjudicate", None, after, origin=source
            )
            self._store.reviews.refresh_status(conn, item_id)
        return "added"

    def get(self, item_id: str) -> dict[str, Any] | None:
        """An item's adjudication (``content`` as ``ItemContent``), or None."""
        row = self.db.execute(
            "SELECT adjudicator, decision, reason, note, content, decided_at FROM adjudications"
            " WHERE item_id = ?",
            [item_id],
        ).fetchone()
        if row is None:
            return None
        data = dict(zip(KEYS, row, strict=True))
        data["content"] = ItemContent.from_json(_loads(data["content"]))
        return data

    def first_dated_after(self, latest: str) -> tuple[str, str, str] | None:
        """(item id, adjudicator, date) of an adjudication dated after ``latest`` (an ISO time)
        or not dated readably, or None (the merge's date rule)."""
        row = self.db.execute(
            "SELECT item_id, adjudicator, decided_at FROM adjudications"
            " WHERE julianday(decided_at) IS NULL OR julianday(decided_at) > julianday(?)"
            " LIMIT 1",
            [latest],
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]), str(row[2]))

    def rows(self, item_ids: Sequence[str] | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Every adjudication (or those of ``item_ids``) as (item id, row), ``content`` as stored
        JSON text (what ``import_adjudication`` takes), by item id."""
        where, params = among(item_ids)
        rows = self.db.execute(
            "SELECT item_id, adjudicator, decision, reason, note, content, decided_at"
            f" FROM adjudications{where} ORDER BY item_id",
            params,
        ).fetchall()
        return [(r[0], dict(zip(KEYS, r[1:], strict=True))) for r in rows]
