"""A review team's plans, who has which item, and the packages collected back (``store.team``).

A project has any number of plans, the newest of which is current: a package of an older plan is
refused when collected. A plan's key (``secret``) signs the bindings of its packages and is read
only here and by the operations that hand packages out and check them; a package holds the plan's
row with the key blanked (``store.package``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from bagel_studio.core.assignment import Assignment, PlanSettings
from bagel_studio.core.model import cleaned_curator_name
from bagel_studio.core.store.part import Part
from bagel_studio.core.store.rows import _dumps

PACKAGE_META = "team_package"  # the meta key of a package: whose, of which plan and round


@dataclass(frozen=True)
class PlanRecord:
    """A stored plan."""

    id: str
    created_at: str
    settings: PlanSettings
    secret: str


@dataclass(frozen=True)
class Collection:
    """A package collected back into the project."""

    curator: str
    round: int
    path: str
    sha256: str
    collected_at: str
    summary: dict[str, Any]


@dataclass(frozen=True)
class EvidenceLinks:
    """What evidence a set of items links to."""

    recordings: list[str]
    text_keys: list[str]


class Team(Part):
    """The ``review_plans``, ``plan_assignments`` and ``plan_collections`` tables."""

    # -- writing -------------------------------------------------------------------------------

    def add_plan(self, plan_id: str, settings: PlanSettings, secret: str) -> None:
        """Store a new plan, which becomes the current one."""
        with self._store.transaction() as conn:
            conn.execute(
                "INSERT INTO review_plans (id, created_at, settings, secret) VALUES (?,?,?,?)",
                [plan_id, self._store.clock(), _dumps(settings.to_json()), secret],
            )

    def add_assignments(self, plan_id: str, assignments: Iterable[Assignment]) -> None:
        """Store ``assignments`` of the plan ``plan_id`` (an item given twice to a curator is
        refused by the table's key)."""
        with self._store.transaction() as conn:
            conn.executemany(
                "INSERT INTO plan_assignments (plan_id, item_id, curator, round, position,"
                " reason) VALUES (?,?,?,?,?,?)",
                (
                    (plan_id, a.item_id, a.curator, a.round, a.position, a.reason)
                    for a in assignments
                ),
            )

    def record_collection(
        self,
        plan_id: str,
        curator: str,
        round_: int,
        path: str,
        sha256: str,
        summary: dict[str, Any],
    ) -> str:
        """Note a package collected back; return the time noted."""
        at = self._store.clock()
        with self._store.transaction() as conn:
            conn.execute(
                "INSERT INTO plan_collections (plan_id, curator, round, path, sha256,"
                " collected_at, summary) VALUES (?,?,?,?,?,?,?)",
                [plan_id, curator, round_, path, sha256, at, _dumps(summary)],
            )
        return at

    # -- a package ------------------------------------------------------------------------------

    def package(self) -> dict[str, Any] | None:
        """What binds this file, when it is a curator's package (``store.package``): its
        ``curator`` (its name cleaned as every curator's name is: ``model.cleaned_curator_name``),
        ``plan``, ``round`` and ``binding``; None for a project."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [PACKAGE_META]).fetchone()
        if row is None:
            return None
        value = json.loads(row[0])
        if not isinstance(value, dict) or not isinstance(value.get("curator"), str):
            return None
        return {**value, "curator": cleaned_curator_name(value["curator"])}

    # -- the plans -----------------------------------------------------------------------------

    def current_plan(self) -> PlanRecord | None:
        """The newest plan, or None."""
        row = self.db.execute(
            "SELECT id, created_at, settings, secret FROM review_plans ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return _plan(row) if row else None

    def plan(self, plan_id: str) -> PlanRecord | None:
        row = self.db.execute(
            "SELECT id, created_at, settings, secret FROM review_plans WHERE id = ?", [plan_id]
        ).fetchone()
        return _plan(row) if row else None

    def plan_ids(self) -> list[str]:
        """Every plan's id, oldest first."""
        return [str(r[0]) for r in self.db.execute("SELECT id FROM review_plans ORDER BY seq")]

    # -- what a plan reads of the project ------------------------------------------------------

    def item_domains(self) -> list[tuple[str, str]]:
        """(id, domain) of every item, in queue order."""
        rows = self.db.execute("SELECT id, domain FROM items ORDER BY seq")
        return [(str(i), str(d)) for i, d in rows]

    def risky_ids(self, info_checks: Sequence[str]) -> set[str]:
        """The items with a blocking or warning flag, or a flag of ``info_checks``."""
        return {
            str(r[0])
            for r in self.db.execute(
                "SELECT DISTINCT item_id FROM flags WHERE severity IN ('blocking', 'warning')"
                " OR check_id IN (SELECT value FROM json_each(?))",
                [json.dumps(list(info_checks))],
            )
        }

    # -- assignments ---------------------------------------------------------------------------

    def assignments(
        self, plan_id: str, curator: str | None = None, round_: int | None = None
    ) -> list[Assignment]:
        """The plan's assignments (of one curator, of one round), by curator and place, each
        naming its curator as every decision does (``model.cleaned_curator_name``: a name
        edited by hand into " alice" is alice's)."""
        sql = "SELECT item_id, cleaned_curator(curator) AS name, round, position, reason"
        sql += " FROM plan_assignments WHERE plan_id = ?"
        params: list[Any] = [plan_id]
        if curator is not None:
            sql += " AND name = ?"
            params.append(curator)
        if round_ is not None:
            sql += " AND round = ?"
            params.append(round_)
        rows = self.db.execute(sql + " ORDER BY name, position", params)
        return [Assignment(str(i), str(c), int(r), int(p), str(w)) for i, c, r, p, w in rows]

    def loads(self, plan_id: str) -> dict[str, int]:
        """Each curator's items in the plan, every round counted (by the cleaned name)."""
        rows = self.db.execute(
            "SELECT cleaned_curator(curator) AS name, count(*) FROM plan_assignments"
            " WHERE plan_id = ? GROUP BY name",
            [plan_id],
        )
        return {str(c): int(n) for c, n in rows}

    def last_round(self, plan_id: str) -> int:
        row = self.db.execute(
            "SELECT max(round) FROM plan_assignments WHERE plan_id = ?", [plan_id]
        ).fetchone()
        return int(row[0] or 0)

    def round_curators(self, plan_id: str, round_: int) -> list[str]:
        """The curators with items in round ``round_``, sorted (their names cleaned)."""
        rows = self.db.execute(
            "SELECT DISTINCT cleaned_curator(curator) AS name FROM plan_assignments"
            " WHERE plan_id = ? AND round = ? ORDER BY name",
            [plan_id, round_],
        )
        return [str(r[0]) for r in rows]

    def item_rows(self, plan_id: str) -> Iterator[tuple[str, str, str, str | None, bool]]:
        """(item id, curator, why they have it, the curator's decision or None, adjudicated) of
        every assignment, the items in queue order, each item's curators in the order they got
        it; the curator named as every decision names them (an assignment edited by hand into
        " alice" is alice's, with her decision)."""
        yield from (
            (str(i), str(c), str(w), d, bool(a))
            for i, c, w, d, a in self.db.execute(
                "SELECT a.item_id, cleaned_curator(a.curator), a.reason, r.decision,"
                " EXISTS (SELECT 1 FROM adjudications j WHERE j.item_id = a.item_id)"
                " FROM plan_assignments a JOIN items i ON i.id = a.item_id"
                " LEFT JOIN reviews r"
                " ON r.item_id = a.item_id AND r.curator = cleaned_curator(a.curator)"
                " WHERE a.plan_id = ? ORDER BY i.seq, a.round, a.position",
                [plan_id],
            )
        )

    def evidence_links(self, item_ids: Sequence[str]) -> EvidenceLinks:
        """The recordings and text keys the items ``item_ids`` link to (each once, sorted)."""
        recordings: set[str] = set()
        texts: set[str] = set()
        for recording, text in self.db.execute(
            "SELECT recording_id, text_key FROM items WHERE id IN (SELECT value FROM json_each(?))",
            [json.dumps(list(item_ids))],
        ):
            if recording:
                recordings.add(str(recording))
            if text:
                texts.add(str(text))
        return EvidenceLinks(sorted(recordings), sorted(texts))

    # -- collections ---------------------------------------------------------------------------

    def collections(self, plan_id: str) -> list[Collection]:
        """The packages of the plan collected so far, oldest first."""
        rows = self.db.execute(
            "SELECT curator, round, path, sha256, collected_at, summary FROM plan_collections"
            " WHERE plan_id = ? ORDER BY id",
            [plan_id],
        )
        return [
            Collection(str(c), int(r), str(p), str(s), str(t), json.loads(m or "{}"))
            for c, r, p, s, t, m in rows
        ]

    def first_collected(self, plan_id: str, curator: str, round_: int) -> str | None:
        """When the package of ``curator``'s round ``round_`` was first collected, or None."""
        row = self.db.execute(
            "SELECT min(collected_at) FROM plan_collections"
            " WHERE plan_id = ? AND curator = ? AND round = ?",
            [plan_id, curator, round_],
        ).fetchone()
        return None if row is None or row[0] is None else str(row[0])


def _plan(row: Sequence[Any]) -> PlanRecord:
    return PlanRecord(
        id=str(row[0]),
        created_at=str(row[1]),
        settings=PlanSettings.from_json(json.loads(row[2])),
        secret=str(row[3]),
    )
