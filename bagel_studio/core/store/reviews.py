"""Decisions, edits, undo, adjudication and their append-only history: a mixin of ``Store``.

Each method writes one change with its history entry (curator, time, before, after) and the item's
refreshed status, inside the caller's transaction (or its own): the rules of a curator's action and
the checks it re-runs live in ``bagel_studio.core.operations``, which calls these.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from bagel_studio.core.model import (
    DECISION_STATUS,
    Decision,
    HistoryEntry,
    Item,
    ItemContent,
    Review,
)
from bagel_studio.core.store.database import Database
from bagel_studio.core.store.errors import StoreError
from bagel_studio.core.store.paging import distinct_by_seeking
from bagel_studio.core.store.rows import (
    REVIEW_UPSERT,
    _dumps,
    _history_from_row,
    _loads,
    _review_from_json,
    _review_from_row,
    _review_to_json,
    _same_review,
    derive_status,
    released_content,
    review_row,
)

CURATORS = "idx_reviews_curator"  # schema.m_reviews_curator_index


class ReviewsMixin:
    db: Database

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def clock(self) -> str:
        raise NotImplementedError

    def get_item(self, item_id: str) -> Item:
        raise NotImplementedError

    def item_count(self) -> int:
        raise NotImplementedError

    # -- decisions, edits and their history ----------------------------------------------------
    #
    # Write primitives: each joins the caller's transaction (``core.operations`` opens one per
    # curator action, applies the rules, and re-runs the checks of what it touched).

    def record_decision(self, review: Review) -> Review | None:
        """Write ``review`` as its curator's current decision, with its history entry and the
        item's new status; return the curator's previous review of the item, if any."""
        with self.transaction() as conn:
            before = self.review(review.item_id, review.curator)
            self._write_review(conn, review)
            self._append_history(
                conn,
                review.item_id,
                review.curator,
                "decide",
                _review_to_json(before) if before else None,
                _review_to_json(review),
            )
            self._refresh_status(conn, review.item_id)
        return before

    def record_edit(
        self, item_id: str, curator: str, before: ItemContent, after: ItemContent
    ) -> None:
        """Write an item's new current content, with its history entry."""
        with self.transaction() as conn:
            self._write_content(conn, item_id, after)
            self._append_history(conn, item_id, curator, "edit", before.to_json(), after.to_json())

    def last_undoable(self, curator: str) -> HistoryEntry | None:
        """``curator``'s newest local decision or edit not yet undone, or None."""
        row = self.db.execute(
            "SELECT id FROM history h WHERE curator = ? AND action IN ('decide', 'edit')"
            " AND origin = 'local'"
            " AND NOT EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.id)"
            " ORDER BY id DESC LIMIT 1",
            [curator],
        ).fetchone()
        return None if row is None else self.history_entry(int(row[0]))

    def record_undo(self, entry: HistoryEntry) -> dict[str, Any] | None:
        """Put back what ``entry`` (a decision or an edit) replaced, with an ``undo`` history
        entry and the item's new status; return what was current before (review or content)."""
        curator = entry.curator
        with self.transaction() as conn:
            current: dict[str, Any] | None
            if entry.action == "decide":
                review = self.review(entry.item_id, curator)
                current = _review_to_json(review) if review else None
                if entry.before is None:
                    conn.execute(
                        "DELETE FROM reviews WHERE item_id = ? AND curator = ?",
                        [entry.item_id, curator],
                    )
                else:
                    self._write_review(conn, _review_from_json(entry.before))
                self._refresh_status(conn, entry.item_id)
            else:
                current = self.get_item(entry.item_id).content.to_json()
                assert entry.before is not None
                self._write_content(conn, entry.item_id, ItemContent.from_json(entry.before))
            self._append_history(
                conn, entry.item_id, curator, "undo", current, entry.before, undoes=entry.id
            )
        return current

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
        with self.transaction() as conn:
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
                    self.clock(),
                ],
            )
            before = None
            if before_row:
                before = dict(
                    zip(("adjudicator", "decision", "reason", "note"), before_row[:4], strict=True)
                )
                before["content"] = _loads(before_row[4])
            self._append_history(conn, item_id, adjudicator, "adjudicate", before, after)
            self._refresh_status(conn, item_id)

    def adjudication(self, item_id: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT adjudicator, decision, reason, note, content, decided_at FROM adjudications"
            " WHERE item_id = ?",
            [item_id],
        ).fetchone()
        if row is None:
            return None
        keys = ("adjudicator", "decision", "reason", "note", "content", "decided_at")
        data = dict(zip(keys, row, strict=True))
        data["content"] = ItemContent.from_json(_loads(data["content"]))
        return data

    def import_review(self, review: Review, source: str) -> bool:
        """Bring in another curator's decision (merge); False when it was already here."""
        with self.transaction() as conn:
            existing = self._review_json(review.item_id, review.curator)
            incoming = _review_to_json(review)
            if existing is not None and _same_review(existing, incoming):
                return False
            if existing is not None and existing["decided_at"] >= review.decided_at:
                return False  # ours is newer: nothing is overwritten
            self._write_review(conn, review)
            self._append_history(
                conn, review.item_id, review.curator, "merge", existing, incoming, origin=source
            )
            self._refresh_status(conn, review.item_id)
        return True

    def import_older_review(self, theirs: Review, ours: Review, source: str) -> bool:
        """Keep another curator's decision that is older than ours (merge) in the history only,
        as a ``merge-older`` entry (before = theirs, after = ours); False when it was already
        there."""
        before = _review_to_json(theirs)
        with self.transaction() as conn:
            already = conn.execute(
                "SELECT 1 FROM history WHERE item_id = ? AND curator = ?"
                " AND action = 'merge-older' AND before = ?",
                [theirs.item_id, theirs.curator, _dumps(before)],
            ).fetchone()
            if already is not None:
                return False
            self._append_history(
                conn,
                theirs.item_id,
                theirs.curator,
                "merge-older",
                before,
                _review_to_json(ours),
                origin=source,
            )
        return True

    def import_adjudication(self, item_id: str, adjudication: dict[str, Any], source: str) -> str:
        """Bring in another file's adjudication (merge) for an item that has none here, keeping
        its time and author; ``adjudication`` is a row of that file's ``adjudications`` table
        (``content`` as stored JSON text). Returns "added", "unchanged" (the same one is here)
        or "kept" (a different one is here and stays)."""
        keys = ("adjudicator", "decision", "reason", "note")
        with self.transaction() as conn:
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
            self._append_history(
                conn, item_id, adjudication["adjudicator"], "adjudicate", None, after, origin=source
            )
            self._refresh_status(conn, item_id)
        return "added"

    def adjudication_rows(
        self, item_ids: Sequence[str] | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        """Every adjudication (or those of ``item_ids``) as (item id, row), ``content`` as stored
        JSON text (what ``import_adjudication`` takes), by item id."""
        where, params = _among(item_ids)
        rows = self.db.execute(
            "SELECT item_id, adjudicator, decision, reason, note, content, decided_at"
            f" FROM adjudications{where} ORDER BY item_id",
            params,
        ).fetchall()
        keys = ("adjudicator", "decision", "reason", "note", "content", "decided_at")
        return [(r[0], dict(zip(keys, r[1:], strict=True))) for r in rows]

    def blind_answers(self, item_id: str | None = None) -> dict[str, list[tuple[str, int]]]:
        """Item id -> (curator, option index) of every blind answer, by curator: of one item,
        or of all items when None."""
        sql = "SELECT item_id, curator, blind_answer FROM reviews WHERE blind_answer IS NOT NULL"
        params: list[str] = []
        if item_id is not None:
            sql += " AND item_id = ?"
            params.append(item_id)
        result: dict[str, list[tuple[str, int]]] = {}
        for found, curator, answer in self.db.execute(sql + " ORDER BY curator", params):
            result.setdefault(str(found), []).append((str(curator), int(answer)))
        return result

    def verdict_rows(self) -> list[tuple[str, str, str, str]]:
        """(item id, domain, curator, decision) of every decision that is not a skip, in queue
        order then by curator (what agreement is computed from)."""
        return self.db.execute(
            "SELECT r.item_id, i.domain, r.curator, r.decision FROM reviews r"
            " JOIN items i ON i.id = r.item_id WHERE r.decision != 'skip'"
            " ORDER BY i.seq, r.curator"
        ).fetchall()

    def review_rows(self, item_ids: Sequence[str] | None = None) -> list[tuple[Any, ...]]:
        """Every review (or those of ``item_ids``) as a raw row (item_id, curator, decision,
        reason, note, content JSON, blind_answer, decided_at, origin), by item and curator: the
        export's bulk read."""
        where, params = _among(item_ids)
        return self.db.execute(
            "SELECT item_id, curator, decision, reason, note, content, blind_answer, decided_at,"
            f" origin FROM reviews{where} ORDER BY item_id, curator",
            params,
        ).fetchall()

    def merged_before(self, sha256: str) -> bool:
        """Whether a file with this SHA-256 was merged into the project before."""
        row = self.db.execute("SELECT 1 FROM merges WHERE sha256 = ? LIMIT 1", [sha256])
        return row.fetchone() is not None

    def record_merge(self, path: str, sha256: str, summary: dict[str, Any]) -> None:
        """Note a merged file in the ``merges`` table."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO merges (path, sha256, merged_at, summary) VALUES (?,?,?,?)",
                [path, sha256, self.clock(), json.dumps(summary, sort_keys=True)],
            )

    def merges(self) -> list[dict[str, Any]]:
        """Every merge recorded in the project, oldest first."""
        rows = self.db.execute(
            "SELECT path, sha256, merged_at, summary FROM merges ORDER BY id"
        ).fetchall()
        return [
            {"path": r[0], "sha256": r[1], "merged_at": r[2], "summary": json.loads(r[3] or "{}")}
            for r in rows
        ]

    def review(self, item_id: str, curator: str) -> Review | None:
        """``curator``'s current decision on an item, or None."""
        row = self.db.execute(
            "SELECT item_id, curator, decision, reason, note, content, blind_answer, decided_at,"
            " origin FROM reviews WHERE item_id = ? AND curator = ?",
            [item_id, curator],
        ).fetchone()
        return _review_from_row(row) if row else None

    def reviews(self, item_id: str) -> list[Review]:
        rows = self.db.execute(
            "SELECT item_id, curator, decision, reason, note, content, blind_answer, decided_at,"
            " origin FROM reviews WHERE item_id = ? ORDER BY curator",
            [item_id],
        ).fetchall()
        return [_review_from_row(r) for r in rows]

    def all_reviews(self) -> list[Review]:
        rows = self.db.execute(
            "SELECT r.item_id, r.curator, r.decision, r.reason, r.note, r.content, r.blind_answer,"
            " r.decided_at, r.origin FROM reviews r JOIN items i ON i.id = r.item_id"
            " ORDER BY i.seq, r.curator"
        ).fetchall()
        return [_review_from_row(r) for r in rows]

    def curators(self) -> list[str]:
        """Every curator with a decision in the project, sorted (the desk's Curator filter, at
        each start): by seeking through ``idx_reviews_curator``, not a row per decision."""
        return [str(c) for c in distinct_by_seeking(self.db, "reviews", ("curator",), CURATORS)]

    def history(self, item_id: str) -> list[HistoryEntry]:
        rows = self.db.execute(
            "SELECT h.id, h.item_id, h.curator, h.at, h.action, h.before, h.after,"
            " EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.id)"
            " FROM history h WHERE item_id = ? ORDER BY id",
            [item_id],
        ).fetchall()
        return [_history_from_row(r) for r in rows]

    def history_entry(self, entry_id: int) -> HistoryEntry:
        row = self.db.execute(
            "SELECT h.id, h.item_id, h.curator, h.at, h.action, h.before, h.after,"
            " EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.id)"
            " FROM history h WHERE id = ?",
            [entry_id],
        ).fetchone()
        if row is None:
            raise StoreError(f"no history entry {entry_id}")
        return _history_from_row(row)

    def final_content(self, item_id: str) -> ItemContent | None:
        """The content to release for an accepted or revised item, else None."""
        adjudication = self.adjudication(item_id)
        reviews = self.reviews(item_id) if adjudication is None else []
        return released_content(adjudication, reviews)

    def progress(self, curator: str | None = None) -> tuple[int, int]:
        """(reviewed, total): reviewed by ``curator``, or by anyone when None."""
        total = self.item_count()
        if curator:
            reviewed = self.db.execute(
                "SELECT count(*) FROM reviews WHERE curator = ? AND decision != 'skip'", [curator]
            ).fetchone()[0]
        else:
            to_do = self.db.execute(  # the status index answers IN, not NOT IN
                "SELECT count(*) FROM items WHERE status IN ('unreviewed', 'skipped')"
            ).fetchone()[0]
            reviewed = total - int(to_do)
        return int(reviewed), total

    # -- internals -----------------------------------------------------------------------------

    def _review_json(self, item_id: str, curator: str) -> dict[str, Any] | None:
        review = self.review(item_id, curator)
        return _review_to_json(review) if review else None

    @staticmethod
    def _write_review(conn: sqlite3.Connection, review: Review) -> None:
        conn.execute(REVIEW_UPSERT, review_row(review))

    @staticmethod
    def _write_content(conn: sqlite3.Connection, item_id: str, content: ItemContent) -> None:
        conn.execute(
            "UPDATE items SET question = ?, options = ?, answer_index = ?, dimension = ?,"
            " level = ? WHERE id = ?",
            [
                content.question,
                _dumps(list(content.options)),
                content.answer_index,
                content.dimension,
                content.level,
                item_id,
            ],
        )

    def _append_history(
        self,
        conn: sqlite3.Connection,
        item_id: str,
        curator: str,
        action: str,
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
        *,
        undoes: int | None = None,
        origin: str = "local",
    ) -> None:
        conn.execute(
            "INSERT INTO history (item_id, curator, at, action, before, after, undoes, origin)"
            " VALUES (?,?,?,?,?,?,?,?)",
            [
                item_id,
                curator,
                self.clock(),
                action,
                None if before is None else _dumps(before),
                None if after is None else _dumps(after),
                undoes,
                origin,
            ],
        )

    @staticmethod
    def _refresh_status(conn: sqlite3.Connection, item_id: str) -> None:
        adjudicated = conn.execute(
            "SELECT decision FROM adjudications WHERE item_id = ?", [item_id]
        ).fetchone()
        if adjudicated:
            status = DECISION_STATUS[Decision(adjudicated[0])]
        else:
            rows = conn.execute(
                "SELECT decision, content FROM reviews WHERE item_id = ?", [item_id]
            ).fetchall()
            status = derive_status([(Decision(r[0]), r[1]) for r in rows])
        conn.execute("UPDATE items SET status = ? WHERE id = ?", [status.value, item_id])


def _among(item_ids: Sequence[str] | None) -> tuple[str, list[str]]:
    """A WHERE clause limiting a query to ``item_ids`` (none when None), and its parameter."""
    if item_ids is None:
        return "", []
    return " WHERE item_id IN (SELECT value FROM json_each(?))", [json.dumps(list(item_ids))]
