"""The curators' decisions: writing them one at a time or many at once, bringing in another
curator's (merge), reading them, and each item's status derived from them (``store.reviews``).

Each write joins the caller's transaction (or opens its own) and writes the review with its
history entry and the item's refreshed status: the rules of a curator's action and the checks it
re-runs live in ``bagel_studio.core.operations``, which calls these. ``record_decisions`` writes
one review (the desk's accept) or many in one transaction (``bagel-studio decide`` over thousands
of ids). The row a review is stored as, and the status rule, are here too: a decision's write
needs nothing of the store beyond this part and the transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bagel_studio.core.model import DECISION_STATUS, Decision, ItemContent, Review, Status
from bagel_studio.core.store.paging import distinct_by_seeking
from bagel_studio.core.store.part import Part
from bagel_studio.core.store.rows import released_content

T = TypeVar("T")
CHUNK = 5000  # ids per query (json_each takes any number; this bounds the rows held at once)
CURATORS = "idx_reviews_curator"  # schema.m_reviews_curator_index
REVIEW_COLUMNS = (
    "item_id, curator, decision, reason, note, content, blind_answer, decided_at, origin"
)
REVIEW_UPSERT = f"INSERT OR REPLACE INTO reviews ({REVIEW_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)"


@dataclass(frozen=True)
class DecisionTarget:
    """What deciding on an item needs to know of it."""

    item_id: str
    content: ItemContent  # current content: what a review records
    revised: bool  # the content differs from the imported one: an accept is a revision
    blocking: tuple[str, ...]  # messages of its blocking flags, by check id


class Reviews(Part):
    """The ``reviews`` table and the items' statuses."""

    # -- writing -------------------------------------------------------------------------------

    def record_decisions(self, curator: str, reviews: Sequence[Review]) -> dict[str, Review]:
        """Write ``curator``'s ``reviews`` in order, each with its history entry, and the items'
        new statuses, in one transaction; return the reviews they replaced, by item id (an id
        given twice replaces its own first review, as it would one by one). Each review replaces
        its curator's previous one, which its history entry holds as ``before``."""
        replaced: dict[str, Review] = {}
        with self._store.transaction() as conn:
            for chunk in _chunks(list(reviews)):
                current = self._curator_reviews(curator, [r.item_id for r in chunk])
                history = []
                for review in chunk:
                    before = current.get(review.item_id)
                    if before is not None and review.item_id not in replaced:
                        replaced[review.item_id] = before
                    history.append(
                        (
                            review.item_id,
                            curator,
                            self._store.clock(),
                            "decide",
                            None if before is None else before.canonical_json(),
                            review.canonical_json(),
                        )
                    )
                    current[review.item_id] = review
                conn.executemany(REVIEW_UPSERT, [_review_row(r) for r in chunk])
                conn.executemany(
                    "INSERT INTO history (item_id, curator, at, action, before, after, undoes,"
                    " origin) VALUES (?,?,?,?,?,?,NULL,'local')",
                    history,
                )
                self._refresh_statuses(conn, list(dict.fromkeys(r.item_id for r in chunk)))
        return replaced

    def import_review(self, review: Review, source: str) -> bool:
        """Bring in another curator's decision (merge); False when it was already here."""
        with self._store.transaction() as conn:
            before = self.get(review.item_id, review.curator)
            existing = before.to_json() if before else None
            incoming = review.to_json()
            if existing is not None and _same_review(existing, incoming):
                return False
            if existing is not None and existing["decided_at"] >= review.decided_at:
                return False  # ours is newer: nothing is overwritten
            self.write_review(conn, review)
            self._store.history.append_entry(
                conn, review.item_id, review.curator, "merge", existing, incoming, origin=source
            )
            self.refresh_status(conn, review.item_id)
        return True

    def import_older_review(self, theirs: Review, ours: Review, source: str) -> bool:
        """Keep another curator's decision that is older than ours (merge) in the history only,
        as a ``merge-older`` entry (before = theirs, after = ours); False when it was already
        there."""
        before = theirs.to_json()
        with self._store.transaction() as conn:
            already = conn.execute(
                "SELECT 1 FROM history WHERE item_id = ? AND curator = ?"
                " AND action = 'merge-older' AND before = ?",
                [theirs.item_id, theirs.curator, theirs.canonical_json()],
            ).fetchone()
            if already is not None:
                return False
            self._store.history.append_entry(
                conn,
                theirs.item_id,
                theirs.curator,
                "merge-older",
                before,
                ours.to_json(),
                origin=source,
            )
        return True

    @staticmethod
    def write_review(conn: sqlite3.Connection, review: Review) -> None:
        """Write ``review`` as its curator's current one (inside the caller's transaction)."""
        conn.execute(REVIEW_UPSERT, _review_row(review))

    @staticmethod
    def refresh_status(conn: sqlite3.Connection, item_id: str) -> None:
        """Set an item's status from its adjudication, or else from its reviews."""
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

    # -- reading -------------------------------------------------------------------------------

    def get(self, item_id: str, curator: str) -> Review | None:
        """``curator``'s current decision on an item, or None."""
        row = self.db.execute(
            f"SELECT {REVIEW_COLUMNS} FROM reviews WHERE item_id = ? AND curator = ?",
            [item_id, curator],
        ).fetchone()
        return _review_from_row(row) if row else None

    def of_item(self, item_id: str) -> list[Review]:
        """Every curator's current decision on an item, by curator."""
        rows = self.db.execute(
            f"SELECT {REVIEW_COLUMNS} FROM reviews WHERE item_id = ? ORDER BY curator",
            [item_id],
        ).fetchall()
        return [_review_from_row(r) for r in rows]

    def all(self) -> list[Review]:
        """Every decision of the project, in queue order then by curator."""
        rows = self.db.execute(
            "SELECT r.item_id, r.curator, r.decision, r.reason, r.note, r.content, r.blind_answer,"
            " r.decided_at, r.origin FROM reviews r JOIN items i ON i.id = r.item_id"
            " ORDER BY i.seq, r.curator"
        ).fetchall()
        return [_review_from_row(r) for r in rows]

    def stream(self) -> Iterator[Review]:
        """Every decision of the project, by item id and curator (the table's key: no sort), read
        as it is used: a merge of a million decisions holds one at a time."""
        for row in self.db.execute(
            f"SELECT {REVIEW_COLUMNS} FROM reviews ORDER BY item_id, curator"
        ):
            yield _review_from_row(row)

    def of_curator(self, curator: str) -> Iterator[Review]:
        """Every decision of ``curator``, by item id."""
        for row in self.db.execute(
            f"SELECT {REVIEW_COLUMNS} FROM reviews WHERE curator = ? ORDER BY item_id",
            [curator],
        ):
            yield _review_from_row(row)

    def count_not_by(self, curator: str) -> int:
        """How many decisions are not ``curator``'s."""
        row = self.db.execute("SELECT count(*) FROM reviews WHERE curator != ?", [curator])
        return int(row.fetchone()[0])

    def first_dated_after(self, latest: str) -> tuple[str, str, str] | None:
        """(item id, curator, date) of a decision dated after ``latest`` (an ISO time), or
        whose date is no date SQLite reads, or None: the merge's and the collect's date rule."""
        row = self.db.execute(
            "SELECT item_id, curator, decided_at FROM reviews"
            " WHERE julianday(decided_at) IS NULL OR julianday(decided_at) > julianday(?)"
            " LIMIT 1",
            [latest],
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]), str(row[2]))

    def rows(self, item_ids: Sequence[str] | None = None) -> list[tuple[Any, ...]]:
        """Every review (or those of ``item_ids``) as a raw row (item_id, curator, decision,
        reason, note, content JSON, blind_answer, decided_at, origin), by item and curator: the
        export's bulk read."""
        where, params = among(item_ids)
        return self.db.execute(
            f"SELECT {REVIEW_COLUMNS} FROM reviews{where} ORDER BY item_id, curator",
            params,
        ).fetchall()

    def decision_targets(self, item_ids: Sequence[str]) -> dict[str, DecisionTarget]:
        """What deciding on the ``item_ids`` that exist needs (a missing id is simply absent),
        read in a few queries however many ids there are."""
        targets: dict[str, DecisionTarget] = {}
        for chunk in _chunks(list(dict.fromkeys(item_ids))):
            ids = json.dumps(chunk)
            blocking: defaultdict[str, list[str]] = defaultdict(list)
            for item_id, message in self.db.execute(
                "SELECT item_id, message FROM flags WHERE severity = 'blocking'"
                " AND item_id IN (SELECT value FROM json_each(?)) ORDER BY item_id, check_id",
                [ids],
            ):
                blocking[item_id].append(message)
            for row in self.db.execute(
                "SELECT id, question, options, answer_index, dimension, level, original"
                " FROM items WHERE id IN (SELECT value FROM json_each(?))",
                [ids],
            ):
                item_id, question, options, answer_index, dimension, level, original = row
                content = ItemContent(
                    question, tuple(json.loads(options)), answer_index, dimension, level
                )
                revised = content.revises(ItemContent.from_json(json.loads(original)))
                targets[item_id] = DecisionTarget(
                    item_id, content, revised, tuple(blocking.get(item_id, ()))
                )
        return targets

    def curators(self) -> list[str]:
        """Every curator with a decision in the project, sorted (the desk's Curator filter, at
        each start): by seeking through ``idx_reviews_curator``, not a row per decision."""
        return [str(c) for c in distinct_by_seeking(self.db, "reviews", ("curator",), CURATORS)]

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

    def reject_reason_counts(self, rejected: str, reject: str) -> list[tuple[str, str, int]]:
        """(domain, reason, items) over the items whose status is ``rejected``: an adjudicated
        item counts under its adjudication's reason, any other under each distinct reason of
        its curators' ``reject`` decisions; a decision without a reason counts as "other"."""
        return self.db.execute(
            "SELECT domain, reason, count(*) FROM ("
            " SELECT i.domain AS domain, coalesce(nullif(a.reason, ''), 'other') AS reason"
            " FROM items AS i JOIN adjudications AS a ON a.item_id = i.id WHERE i.status = ?"
            " UNION ALL"
            " SELECT domain, reason FROM (SELECT DISTINCT i.id, i.domain AS domain,"
            " coalesce(nullif(r.reason, ''), 'other') AS reason"
            " FROM items AS i JOIN reviews AS r ON r.item_id = i.id"
            " WHERE i.status = ? AND r.decision = ?"
            " AND NOT EXISTS (SELECT 1 FROM adjudications AS a WHERE a.item_id = i.id)))"
            " GROUP BY domain, reason",
            [rejected, rejected, reject],
        ).fetchall()

    def final_content(self, item_id: str) -> ItemContent | None:
        """The content to release for an accepted or revised item, else None."""
        adjudication = self._store.adjudications.get(item_id)
        reviews = self.of_item(item_id) if adjudication is None else []
        return released_content(adjudication, reviews)

    def progress(self, curator: str | None = None) -> tuple[int, int]:
        """(reviewed, total): reviewed by ``curator``, or by anyone when None."""
        total = int(self.db.execute("SELECT count(*) FROM items").fetchone()[0])
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

    def _curator_reviews(self, curator: str, item_ids: list[str]) -> dict[str, Review]:
        rows = self.db.execute(
            f"SELECT {REVIEW_COLUMNS} FROM reviews"
            " WHERE curator = ? AND item_id IN (SELECT value FROM json_each(?))",
            [curator, json.dumps(item_ids)],
        )
        return {row[0]: _review_from_row(row) for row in rows}

    @staticmethod
    def _refresh_statuses(conn: sqlite3.Connection, item_ids: list[str]) -> None:
        """Each item's status from its adjudication or else its reviews (``refresh_status``)."""
        ids = json.dumps(item_ids)
        adjudicated = dict(
            conn.execute(
                "SELECT item_id, decision FROM adjudications"
                " WHERE item_id IN (SELECT value FROM json_each(?))",
                [ids],
            ).fetchall()
        )
        verdicts: defaultdict[str, list[tuple[Decision, str]]] = defaultdict(list)
        for item_id, decision, content in conn.execute(
            "SELECT item_id, decision, content FROM reviews"
            " WHERE item_id IN (SELECT value FROM json_each(?))",
            [ids],
        ):
            verdicts[item_id].append((Decision(decision), content))
        statuses = [
            (
                DECISION_STATUS[Decision(adjudicated[item_id])]
                if item_id in adjudicated
                else derive_status(verdicts[item_id])
            ).value
            for item_id in item_ids
        ]
        conn.executemany(
            "UPDATE items SET status = ? WHERE id = ?", list(zip(statuses, item_ids, strict=True))
        )


def among(item_ids: Sequence[str] | None) -> tuple[str, list[str]]:
    """A WHERE clause limiting a query to ``item_ids`` (none when None), and its parameter."""
    if item_ids is None:
        return "", []
    return " WHERE item_id IN (SELECT value FROM json_each(?))", [json.dumps(list(item_ids))]


def _chunks(values: list[T]) -> Iterator[list[T]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def derive_status(reviews: Sequence[tuple[Decision, str]]) -> Status:
    """The status of an item from its curators' (decision, content) pairs.

    Skips are not verdicts. Curators agree when they reach the same decision on the same content;
    otherwise the item is disputed and waits for an adjudicator.
    """
    verdicts = [(d, c) for d, c in reviews if d is not Decision.SKIP]
    if not verdicts:
        return Status.SKIPPED if reviews else Status.UNREVIEWED
    decisions = {d for d, _ in verdicts}
    if len(decisions) == 1:
        decision = decisions.pop()
        keeps = decision in (Decision.ACCEPT, Decision.REVISE)
        if keeps and len({c for _, c in verdicts}) > 1:
            return Status.DISPUTED
        return DECISION_STATUS[decision]
    return Status.DISPUTED


def _review_row(review: Review) -> tuple[object, ...]:
    """The values of ``REVIEW_UPSERT`` (``REVIEW_COLUMNS``) for ``review``."""
    return (
        review.item_id,
        review.curator,
        review.decision.value,
        review.reason,
        review.note,
        review.content.canonical_json(),
        review.blind_answer,
        review.decided_at,
        review.origin,
    )


def _review_from_row(row: Sequence[Any]) -> Review:
    """A review from its row (``REVIEW_COLUMNS``, in that order)."""
    return Review(
        item_id=row[0],
        curator=row[1],
        decision=Decision(row[2]),
        reason=row[3],
        note=row[4],
        content=ItemContent.from_json(json.loads(row[5])),
        blind_answer=row[6],
        decided_at=row[7],
        origin=row[8],
    )


def _same_review(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("decision", "reason", "note", "content", "blind_answer", "decided_at")
    return all(a.get(k) == b.get(k) for k in keys)
