"""What the queue shows: filters over the items table, and their order."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

NO_FLAG = 9  # flag_severity of an item without flags (sorts after every severity)
WORD = re.compile(r"\w+\*?")


def word_query(text: str) -> str | None:
    """An FTS5 query for the words of ``text``: every word must occur, each as a whole word
    (``bat*`` also finds words that begin with "bat"); None when ``text`` has no word. Words are
    quoted, so nothing the curator types is read as FTS5 syntax."""
    terms = []
    for word in WORD.findall(text):
        prefix = word.endswith("*")
        terms.append(f'"{word.rstrip("*")}"' + ("*" if prefix else ""))
    return " ".join(terms) or None


# The columns of a queue row (``store.queue.rows``, ``store.queue.page``), declared once: the
# desk's queue shows these (``flag_severity`` and ``flag_checks`` as its Flags column).
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
    search_inside_words: bool = False  # search matches any part of a word, not whole words
    ambiguity_first: bool = False

    def where(self, word_index: bool = True, joined: bool = False) -> tuple[str, list[Any]]:
        """SQL conditions on ``items`` and their parameters. ``word_index``: the project has
        the full-text index of ``m_items_word_search`` (a file opened read-only before that
        migration has not), else whole-word search falls back to matching inside words.
        ``joined``: the query reads ``items_fts`` joined to ``items`` (see ``words``), so the
        search is that table's MATCH."""
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
        words = self.words(word_index)
        if words and joined:
            clauses.append("items_fts MATCH ?")
            params.append(words)
        elif words:
            clauses.append("items.seq IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)")
            params.append(words)
        elif self.search:
            # the search's own "%", "_" and "\\" are text, not LIKE's wildcards
            pattern = f"%{like_escaped(self.search)}%"
            clauses.append(
                "(items.question LIKE ? ESCAPE '\\' OR items.options LIKE ? ESCAPE '\\'"
                " OR items.id LIKE ? ESCAPE '\\')"
            )
            params.extend([pattern, pattern, pattern])
        return (" AND ".join(clauses) or "1"), params

    def words(self, word_index: bool = True) -> str | None:
        """The FTS5 query of a whole-word search (None for no search, a search inside words,
        a search without any word, or a project without the word index)."""
        if not self.search or self.search_inside_words or not word_index:
            return None
        return word_query(self.search)

    def words_only(self) -> str | None:
        """The FTS5 query when the filter is a whole-word search and nothing else (its count is
        then read from the index alone), else None."""
        if not self.search or self.search_inside_words:
            return None
        rest = replace(self, search=None)
        return word_query(self.search) if rest == QueueFilter() else None

    def order_terms(self) -> tuple[str, ...]:
        """The queue order as ascending SQL expressions (the last, ``seq``, is unique), so that
        "the items after this one" is one row-value comparison (``(terms) > (its terms)``)."""
        if self.ambiguity_first:
            return (
                "(items.domain != 'GloBI')",
                "items.flag_severity",
                "-length(items.flag_checks)",
                "items.seq",
            )
        return ("items.seq",)

    def order(self) -> str:
        return "ORDER BY " + ", ".join(self.order_terms())


@dataclass(frozen=True)
class QueueSql:
    """How to read one queue: FROM, WHERE and its parameters, and the order as SQL terms."""

    source: str
    where: str
    params: list[Any]
    terms: tuple[str, ...]

    @property
    def order(self) -> str:
        return "ORDER BY " + ", ".join(self.terms)

    def after(self, op: str = ">") -> str:
        """True for the rows after a key given as parameters (``op="<="``: up to and with it)."""
        if len(self.terms) == 1:
            return f"{self.terms[0]} {op} ?"
        return f"({', '.join(self.terms)}) {op} ({', '.join('?' * len(self.terms))})"


def like_escaped(text: str) -> str:
    """``text`` matched literally by ``LIKE ... ESCAPE '\\'``."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
