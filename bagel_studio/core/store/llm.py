"""The LLM tables: profiles, answers, judge verdicts, regenerations (``store.llm``).

Each writer joins the caller's transaction (``bagel_studio.core.operations.llm`` opens it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bagel_studio.core.store.part import Part

LEVELS_SOURCE = "levels_source"  # the project setting naming where the applied levels came from
ANSWER_COLUMNS = (
    "profile",
    "settings_hash",
    "prompt_hash",
    "item_id",
    "content_hash",
    "option_order",
    "shown_seed",
    "model",
    "raw_reply",
    "parse",
    "letter",
    "option_index",
    "correct",
    "error",
    "latency_ms",
    "prompt_tokens",
    "completion_tokens",
    "attempts",
    "origin",
    "answered_at",
    "reply_note",
)
# One answer per run (profile, settings, prompt, order shown: ``shown_seed``, NULL the project's)
# and item content as shown (m_llm_answers_order_in_key).
_KEY = (
    "profile, settings_hash, prompt_hash, item_id, content_hash, option_order,"
    " coalesce(shown_seed, -1)"
)
# The origin of answers to the prompt without its question (the audit's options-only baseline):
# they are not closed-book answers, so the readers of models' choices leave them out.
OPTIONS_ONLY = "options-only"


@dataclass(frozen=True)
class AnswerRow:
    """One model's answer to one item as shown (``option_order``: shown i = options[order[i]])."""

    profile: str
    settings_hash: str
    prompt_hash: str
    item_id: str
    content_hash: str
    option_order: str
    shown_seed: int | None
    model: str
    raw_reply: str | None
    parse: str
    letter: str | None
    option_index: int | None
    correct: bool | None
    error: str | None
    latency_ms: float | None
    prompt_tokens: int | None
    completion_tokens: int | None
    attempts: int
    origin: str
    answered_at: str
    reply_note: str | None = None  # the reply is stored cut (``llm.client.REPLY_LIMIT``)

    def values(self) -> tuple[Any, ...]:
        return tuple(
            int(v) if isinstance(v, bool) else v
            for v in (getattr(self, name) for name in ANSWER_COLUMNS)
        )


class Llm(Part):
    """The ``llm_profiles``, ``llm_answers``, ``llm_verdicts`` and ``llm_regenerations``
    tables."""

    # -- profiles ----------------------------------------------------------------------------------

    def write_profile(self, label: str, profile: dict[str, Any], at: str) -> None:
        with self._store.transaction() as conn:
            conn.execute(
                "INSERT INTO llm_profiles (label, profile, created_at, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT(label) DO UPDATE SET profile = excluded.profile,"
                " updated_at = excluded.updated_at",
                [label, json.dumps(profile, sort_keys=True), at, at],
            )

    def delete_profile(self, label: str) -> None:
        with self._store.transaction() as conn:
            conn.execute("DELETE FROM llm_profiles WHERE label = ?", [label])

    def profile_rows(self) -> list[tuple[str, dict[str, Any]]]:
        rows = self.db.execute("SELECT label, profile FROM llm_profiles ORDER BY created_at, label")
        return [(r[0], json.loads(r[1])) for r in rows.fetchall()]

    # -- answers -----------------------------------------------------------------------------------

    def write_answers(self, answers: Sequence[AnswerRow]) -> int:
        """Insert answers; an answer with the same key replaces a failed one, never a real one.
        Returns how many rows were written."""
        columns = ", ".join(ANSWER_COLUMNS)
        marks = ", ".join("?" * len(ANSWER_COLUMNS))
        updates = ", ".join(f"{c} = excluded.{c}" for c in ANSWER_COLUMNS)
        with self._store.transaction() as conn:
            cursor = conn.executemany(
                f"INSERT INTO llm_answers ({columns}) VALUES ({marks}) ON CONFLICT({_KEY})"
                f" DO UPDATE SET {updates} WHERE llm_answers.parse = 'failed'",
                [a.values() for a in answers],
            )
            return max(cursor.rowcount, 0)

    def answered_keys(
        self, profile: str, settings_hash: str, prompt_hash: str, shown_seed: int | None
    ) -> set[tuple[str, str, str]]:
        """(item id, content hash, option order) of every stored, non-failed answer of a
        profile's run in one order (``shown_seed``; None: the project's)."""
        rows = self.db.execute(
            "SELECT item_id, content_hash, option_order FROM llm_answers WHERE profile = ?"
            " AND settings_hash = ? AND prompt_hash = ? AND shown_seed IS ?"
            " AND parse != 'failed'",
            [profile, settings_hash, prompt_hash, shown_seed],
        )
        return {(r[0], r[1], r[2]) for r in rows}

    def latest_answers(
        self, profiles: Iterable[tuple[str, str]], prompt_hash: str, *, by_order: bool = False
    ) -> list[dict[str, Any]]:
        """Per (profile, settings hash) given, the newest non-failed answer per item (per item
        and order shown, ``by_order``: one per run), with the item's domain, dimension and
        current gold (``gold``: NULL when it has no valid one)."""
        result: list[dict[str, Any]] = []
        group = "item_id, coalesce(shown_seed, -1)" if by_order else "item_id"
        for label, settings_hash in profiles:
            cursor = self.db.execute(
                "SELECT a.profile, a.item_id, i.domain, i.dimension, a.letter, a.option_index,"
                " a.correct, a.parse, a.model, a.content_hash, a.option_order, a.answered_at,"
                " a.shown_seed, i.answer_index AS gold"
                " FROM llm_answers a JOIN items i ON i.id = a.item_id"
                " WHERE a.id IN (SELECT max(id) FROM llm_answers WHERE profile = ?"
                " AND settings_hash = ? AND prompt_hash = ? AND parse != 'failed'"
                f" GROUP BY {group}) ORDER BY i.seq",
                [label, settings_hash, prompt_hash],
            )
            columns = [c[0] for c in cursor.description]
            result += [dict(zip(columns, row, strict=True)) for row in cursor]
        return result

    def answers_for_item(self, item_id: str) -> list[dict[str, Any]]:
        cursor = self.db.execute(
            "SELECT * FROM llm_answers WHERE id IN (SELECT max(id) FROM llm_answers"
            " WHERE item_id = ? AND origin != ? GROUP BY profile, settings_hash) ORDER BY profile",
            [item_id, OPTIONS_ONLY],
        )
        columns = [c[0] for c in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor]

    def answer_count(self, profile: str | None = None) -> int:
        sql, params = "SELECT count(*) FROM llm_answers", []
        if profile is not None:
            sql += " WHERE profile = ?"
            params.append(profile)
        return int(self.db.execute(sql, params).fetchone()[0])

    def all_answers(self, profile: str) -> list[dict[str, Any]]:
        cursor = self.db.execute(
            "SELECT * FROM llm_answers WHERE profile = ? ORDER BY id", [profile]
        )
        columns = [c[0] for c in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor]

    # -- verdicts and regenerations ----------------------------------------------------------------

    def write_verdict(self, verdict: dict[str, Any]) -> int:
        columns = ", ".join(verdict)
        marks = ", ".join("?" * len(verdict))
        with self._store.transaction() as conn:
            cursor = conn.execute(
                f"INSERT INTO llm_verdicts ({columns}) VALUES ({marks})", list(verdict.values())
            )
            return int(cursor.lastrowid or 0)

    def verdicts_for_item(self, item_id: str) -> list[dict[str, Any]]:
        cursor = self.db.execute(
            "SELECT * FROM llm_verdicts WHERE item_id = ? ORDER BY id DESC", [item_id]
        )
        columns = [c[0] for c in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor]

    def latest_verdicts(self, item_id: str | None = None) -> dict[str, dict[str, Any]]:
        """The newest successful verdict per item (of one item, or all)."""
        only = " AND item_id = ?" if item_id is not None else ""
        cursor = self.db.execute(
            "SELECT * FROM llm_verdicts WHERE id IN (SELECT max(id) FROM llm_verdicts"
            f" WHERE error IS NULL{only} GROUP BY item_id)",
            [item_id] if item_id is not None else [],
        )
        columns = [c[0] for c in cursor.description]
        return {row[1]: dict(zip(columns, row, strict=True)) for row in cursor}

    def write_regeneration(self, record: dict[str, Any]) -> None:
        columns = ", ".join(record)
        marks = ", ".join("?" * len(record))
        with self._store.transaction() as conn:
            conn.execute(
                f"INSERT INTO llm_regenerations ({columns}) VALUES ({marks})",
                list(record.values()),
            )

    def regenerations(self, item_id: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM llm_regenerations", []
        if item_id is not None:
            sql += " WHERE regenerated_from = ? OR item_id = ?"
            params += [item_id, item_id]
        cursor = self.db.execute(sql + " ORDER BY id", params)
        columns = [c[0] for c in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor]

    def level_edits_by_others(self, item_ids: Sequence[str], tool: str) -> set[str]:
        """Items whose level a curator (not ``tool``) changed by an edit: their level wins."""
        cursor = self.db.execute(
            "SELECT DISTINCT item_id FROM history WHERE action = 'edit' AND curator != ?"
            " AND coalesce(json_extract(before, '$.level'), '')"
            " != coalesce(json_extract(after, '$.level'), '')"
            " AND item_id IN (SELECT value FROM json_each(?))",
            [tool, json.dumps(list(item_ids))],
        )
        return {r[0] for r in cursor}

    def model_choices(self, item_id: str | None) -> dict[str, list[tuple[str, int | None, str]]]:
        """Per item, (profile label, chosen option index, content hash) of each profile's newest
        non-failed answer (all items when ``item_id`` is None)."""
        sql = (
            "SELECT item_id, profile, option_index, content_hash FROM llm_answers WHERE id IN"
            " (SELECT max(id) FROM llm_answers WHERE parse != 'failed' AND origin != ?"
            + (" AND item_id = ?" if item_id is not None else "")
            + " GROUP BY item_id, profile) ORDER BY profile"
        )
        result: dict[str, list[tuple[str, int | None, str]]] = {}
        params = [OPTIONS_ONLY] + ([item_id] if item_id is not None else [])
        for found, label, index, content_hash in self.db.execute(sql, params):
            result.setdefault(str(found), []).append((str(label), index, str(content_hash)))
        return result

    def has_answers(self) -> bool:
        return bool(self.db.execute("SELECT EXISTS (SELECT 1 FROM llm_answers)").fetchone()[0])
