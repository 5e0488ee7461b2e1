"""Many decisions at once (``bagel-studio decide`` over thousands of ids): a mixin of ``Store``.

``decision_targets`` reads what a decision needs of many items in a few queries;
``record_decisions`` writes many reviews, their history entries and the items' new statuses in
one transaction, with the same rows ``record_decision`` writes one by one: each review replaces its
curator's previous one, which its history entry holds as ``before``.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TypeVar

from bagel_studio.core.model import DECISION_STATUS, Decision, ItemContent, Review
from bagel_studio.core.store.database import Database
from bagel_studio.core.store.rows import (
    REVIEW_UPSERT,
    _dumps,
    _review_from_row,
    _review_to_json,
    derive_status,
    review_row,
)

T = TypeVar("T")
CHUNK = 5000  # ids per query (json_each takes any number; this bounds the rows held at once)


@dataclass(frozen=True)
class DecisionTarget:
    """What deciding on an item needs to know of it."""

    item_id: str
    content: ItemContent  # current content: what a review records
    revised: bool  # the content differs from the imported one: an accept is a revision
    blocking: tuple[str, ...]  # messages of its blocking flags, by check id


class DecisionsMixin:
    db: Database

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def clock(self) -> str:
        raise NotImplementedError

    def decision_targets(self, item_ids: Sequence[str]) -> dict[str, DecisionTarget]:
        """The targets of the ``item_ids`` that exist (a missing id is simply absent)."""
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
                revised = content != ItemContent.from_json(json.loads(original))
                targets[item_id] = DecisionTarget(
                    item_id, content, revised, tuple(blocking.get(item_id, ()))
                )
        return targets

    def record_decisions(self, curator: str, reviews: Sequence[Review]) -> dict[str, Review]:
        """Write ``curator``'s ``reviews`` in order, each with its history entry, and the items'
        new statuses, in one transaction; return the reviews they replaced, by item id (an id
        given twice replaces its own first review, as it would one by one)."""
        replaced: dict[str, Review] = {}
        with self.transaction() as conn:
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
                            self.clock(),
                            "decide",
                            None if before is None else _dumps(_review_to_json(before)),
                            _dumps(_review_to_json(review)),
                        )
                    )
                    current[review.item_id] = review
                conn.executemany(REVIEW_UPSERT, [review_row(r) for r in chunk])
                conn.executemany(
                    "INSERT INTO history (item_id, curator, at, action, before, after, undoes,"
                    " origin) VALUES (?,?,?,?,?,?,NULL,'local')",
                    history,
                )
                self._refresh_statuses(conn, list(dict.fromkeys(r.item_id for r in chunk)))
        return replaced

    def _curator_reviews(self, curator: str, item_ids: list[str]) -> dict[str, Review]:
        rows = self.db.execute(
            "SELECT item_id, curator, decision, reason, note, content, blind_answer, decided_at,"
            " origin FROM reviews"
            " WHERE curator = ? AND item_id IN (SELECT value FROM json_each(?))",
            [curator, json.dumps(item_ids)],
        )
        return {row[0]: _review_from_row(row) for row in rows}

    @staticmethod
    def _refresh_statuses(conn: sqlite3.Connection, item_ids: list[str]) -> None:
        """Each item's status from its adjudication or else its reviews (``_refresh_status``)."""
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


def _chunks(values: list[T]) -> Iterator[list[T]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]
