"""Plain data types shared by the core: an item's content, decisions, flags, evidence; and what
a curator's name may be (``curator_name_problem``)."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass, field, replace
from enum import StrEnum
from json.encoder import encode_basestring
from typing import Any

from bagel_studio.core.domains import LETTERS

CURATOR_MAX = 80  # characters of a curator's name
# Unicode categories a name may not hold: controls, format characters (bidi overrides and
# isolates, zero-width spaces and joiners, the byte order mark), surrogates, private use,
# unassigned code points, and line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_LINE_BREAKS = "\n\r\x0b\x0c\x85\u2028\u2029"


def cleaned_curator_name(given: str) -> str:
    """A curator's name as it is recorded: composed to NFC, without surrounding blanks. Every
    name is cleaned so before ``curator_name_problem`` is asked of it (a decision's, a review
    plan's, a hand-out's and a package's), so that " alice" and "alice" are one curator."""
    return unicodedata.normalize("NFC", given or "").strip()


def curator_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a curator, or None: the one rule of every curator's name, asked
    by every decision (``operations.reviews.curator_name``) and by the review plans
    (``assignment.PlanSettings``), whose names name each curator's folder of the hand-out and
    are bound into that curator's package; both clean the name given first
    (``cleaned_curator_name``). A name is not empty, at most ``CURATOR_MAX``
    characters, one line, NFC, without surrounding blanks, without a character that does not
    show or that reorders the text around it (``\u202eecila`` shows as "alice"), and not a
    path of its own (no ``/`` or ``\\``, no leading dot). Each message says which."""
    if not name.strip():
        return "a curator name is needed (the name given is empty)"
    if name != name.strip():
        return f"a curator name may not start or end with a blank: {name!r}"
    if any(c in name for c in _LINE_BREAKS):
        return f"a curator name must be one line: {name!r} is not"
    for char in name:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            what = unicodedata.name(char, "a control character")
            written = name.encode("unicode_escape").decode("ascii")
            return (
                f"a curator name may not hold U+{ord(char):04X} ({what}), a character that does"
                f" not show or that reorders the text around it: {written!r}"
            )
    if len(name) > CURATOR_MAX:
        return f"a curator name may be at most {CURATOR_MAX} characters ({len(name):,} given)"
    if unicodedata.normalize("NFC", name) != name:
        return f"a curator name must be in Unicode's composed form (NFC): {name!r} is not"
    for char in "/\\":
        if char in name:
            return (
                f"a curator name may not hold {char!r}: it names the curator's folder of a"
                f" review plan's hand-out ({name!r})"
            )
    if name.startswith("."):
        return (
            f"a curator name may not start with a dot: it names the curator's folder of a review"
            f" plan's hand-out, which would be hidden or a path of its own ({name!r})"
        )
    return None


class Decision(StrEnum):
    """What a curator (or adjudicator) decided about an item."""

    ACCEPT = "accept"
    REVISE = "revise"  # accept with revision: the curator's edited content is released
    REJECT = "reject"
    SKIP = "skip"
    UNCERTAIN = "uncertain"


class Status(StrEnum):
    """An item's review status, derived from its decisions and shown in the queue."""

    UNREVIEWED = "unreviewed"
    ACCEPTED = "accepted"
    REVISED = "revised"
    REJECTED = "rejected"
    SKIPPED = "skipped"
    UNCERTAIN = "uncertain"
    DISPUTED = "disputed"  # curators disagree and no adjudicator has decided yet


DECISION_STATUS: dict[Decision, Status] = {
    Decision.ACCEPT: Status.ACCEPTED,
    Decision.REVISE: Status.REVISED,
    Decision.REJECT: Status.REJECTED,
    Decision.SKIP: Status.SKIPPED,
    Decision.UNCERTAIN: Status.UNCERTAIN,
}

# The fixed list of reasons a curator may give for rejecting an item.
REJECT_REASONS: dict[str, str] = {
    "ambiguous": "Ambiguous question",
    "several-answers": "Several defensible answers",
    "taxonomic-granularity": "Taxonomic granularity (overlapping taxa)",
    "factually-wrong": "Factually wrong gold answer",
    "not-self-contained": "Not self-contained (refers to hidden context)",
    "answer-leaked": "Answer leaked in the stem",
    "trivial": "Trivial",
    "acoustic-mismatch": "Claim does not match the recording",
    "off-topic": "Off topic (not about the species, record, paper or recording)",
    "invalid-dimension": "Invalid dimension (the question fits none of the domain's labels)",
    "other": "Other (see note)",
}


class Severity(StrEnum):
    BLOCKING = "blocking"  # the item cannot be accepted until fixed
    WARNING = "warning"
    INFO = "info"


SEVERITY_RANK = {Severity.BLOCKING: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True)
class ItemContent:
    """The curatable part of an item: what a curator may edit and what is released."""

    question: str
    options: tuple[str, ...]
    answer_index: int | None
    dimension: str | None
    level: str | None = None

    @property
    def answer_letter(self) -> str | None:
        if self.answer_index is None or not 0 <= self.answer_index < len(LETTERS):
            return None
        return LETTERS[self.answer_index]

    @property
    def answer_text(self) -> str | None:
        if self.answer_index is None or not 0 <= self.answer_index < len(self.options):
            return None
        return self.options[self.answer_index]

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "options": list(self.options),
            "answer_index": self.answer_index,
            "dimension": self.dimension,
            "level": self.level,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ItemContent:
        return cls(
            question=str(data.get("question", "")),
            options=tuple(str(o) for o in data.get("options", ())),
            answer_index=data.get("answer_index"),
            dimension=data.get("dimension"),
            level=data.get("level"),
        )

    def revises(self, original: ItemContent) -> bool:
        """Whether accepting this content instead of ``original`` is a revision: the curator's
        content (stem, options, gold, dimension) differs. The level is left out: the models'
        agreement sets it (``levels --apply``), and an accept after it stays an accept."""
        return replace(self, level=original.level) != original

    def with_changes(self, **changes: Any) -> ItemContent:
        if "options" in changes:
            changes["options"] = tuple(changes["options"])
        return replace(self, **changes)

    def options_json(self) -> str:
        """The options as ``json.dumps(list(options), sort_keys=True, ensure_ascii=False)``
        writes them."""
        try:
            return json_strings(self.options)
        except TypeError:  # not all strings
            return json.dumps(list(self.options), sort_keys=True, ensure_ascii=False)

    def canonical_json(self, options_json: str | None = None) -> str:
        """``to_json()`` as ``json.dumps(..., sort_keys=True, ensure_ascii=False)`` writes it
        (``options_json``: ``self.options_json()`` when the caller has it already).

        Built from the fields directly because an import writes this for every item, and
        ``json.dumps`` sets up a new encoder on each call; values of unexpected types fall back
        to ``json.dumps`` so the text is always the same.
        """
        index = self.answer_index
        if index is None or type(index) is int:
            return (
                f'{{"answer_index": {"null" if index is None else index}, '
                f'"dimension": {_json_text(self.dimension)}, "level": {_json_text(self.level)}, '
                f'"options": {options_json or self.options_json()}, '
                f'"question": {_json_text(self.question)}}}'
            )
        return json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False)

    def content_hash(self) -> str:
        """A stable hash of the content, used to match items across project files."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()[:16]


def json_strings(values: tuple[str, ...] | list[str]) -> str:
    """A list of strings as ``json.dumps(list(values), ensure_ascii=False)`` writes it."""
    return "[" + ", ".join(map(encode_basestring, values)) + "]"


def _json_text(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is str:
        return str(encode_basestring(value))
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Flag:
    """The result of one check on one item."""

    check: str
    severity: Severity
    message: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Item:
    """An item as stored: its identity, original and current content, and evidence links."""

    id: str
    domain: str
    content: ItemContent
    original: ItemContent
    status: Status
    source: dict[str, Any]
    supporting_evidence: tuple[str, ...] = ()
    rationale: str | None = None
    globi_ref: str | None = None
    recording_id: str | None = None
    text_key: str | None = None
    source_file: str | None = None
    source_line: int | None = None
    # The gold answer as the generator gave it, kept when it matched none of the options
    given_answer: str | None = None

    @property
    def is_revised(self) -> bool:
        """Whether an accept of it is a revision (``ItemContent.revises``: not for a level)."""
        return self.content.revises(self.original)


@dataclass(frozen=True)
class Review:
    """One curator's current decision on one item."""

    item_id: str
    curator: str
    decision: Decision
    reason: str | None
    note: str | None
    content: ItemContent
    blind_answer: int | None
    decided_at: str
    origin: str

    def to_json(self) -> dict[str, Any]:
        """The review as a history entry (its ``before`` and ``after``) and a merge hold it."""
        return {
            "item_id": self.item_id,
            "curator": self.curator,
            "decision": self.decision.value,
            "reason": self.reason,
            "note": self.note,
            "content": self.content.to_json(),
            "blind_answer": self.blind_answer,
            "decided_at": self.decided_at,
            "origin": self.origin,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Review:
        return cls(
            item_id=data["item_id"],
            curator=data["curator"],
            decision=Decision(data["decision"]),
            reason=data.get("reason"),
            note=data.get("note"),
            content=ItemContent.from_json(data["content"]),
            blind_answer=data.get("blind_answer"),
            decided_at=data["decided_at"],
            origin=data.get("origin", "local"),
        )

    def canonical_json(self) -> str:
        """``to_json()`` as ``json.dumps(..., sort_keys=True, ensure_ascii=False)`` writes it:
        the text of a history entry's ``before`` or ``after``."""
        return json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class HistoryEntry:
    id: int
    item_id: str
    curator: str
    at: str
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    undone: bool
