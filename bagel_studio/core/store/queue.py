"""What the queue shows: filters over the items table, and their order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NO_FLAG = 9  # flag_severity of an item without flags (sorts after every severity)

# The columns of a queue row (``Store.queue_rows``), declared once: the desk's queue shows these
# (``flag_severity`` and ``flag_checks`` as its Flags column).
QUEUE_COLUMNS = (
    "id",
    "domain",
    "dimension",
    "level",
    "status",
    "question",
    "flag_severity",
    "flag_checks",
)


@dataclass(frozen=True)
class QueueFilter:
    """What the queue shows: every field narrows, None means any."""

    domain: str | None = None
    dimension: str | None = None
    level: str | None = None
    status: str | None = None
    check: str | None = None  # a check id, or "any" for items with any flag
    curator: str | None = None  # items this curator has reviewed
    unreviewed_by: str | None = None  # items this curator has not reviewed yet
    search: str | None = None
    ambiguity_first: bool = False

    def where(self) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for column in ("domain", "dimension", "level", "status"):
            value = getattr(self, column)
            if value:
                clauses.append(f"items.{column} = ?")
                params.append(value)
        if self.check == "any":
            clauses.append(f"items.flag_severity < {NO_FLAG}")
        elif self.check:
            clauses.append("items.flag_checks LIKE ?")
            params.append(f"%,{self.check},%")
        if self.curator:
            clauses.append(
                "EXISTS (SELECT 1 FROM reviews r WHERE r.item_id = items.id AND r.curator = ?)"
            )
            params.append(self.curator)
        if self.unreviewed_by:
            clauses.append(
                "NOT EXISTS (SELECT 1 FROM reviews r WHERE r.item_id = items.id "
                "AND r.curator = ? AND r.decision != 'skip')"
            )
            params.append(self.unreviewed_by)
        if self.search:
            pattern = f"%{self.search}%"
            clauses.append("(items.question LIKE ? OR items.options LIKE ? OR items.id LIKE ?)")
            params.extend([pattern, pattern, pattern])
        return (" AND ".join(clauses) or "1"), params

    def order(self) -> str:
        if self.ambiguity_first:
            return (
                "ORDER BY (items.domain != 'GloBI'), items.flag_severity, "
                "length(items.flag_checks) DESC, items.seq"
            )
        return "ORDER BY items.seq"
