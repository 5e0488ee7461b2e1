"""What a write changed: the value every operation returns beside its result.

An operation (``core.operations``) returns ``Done(result, changes)``: what it was asked for (the
review written, a merge's counts) and a ``Changes`` saying what it changed in the project. The
desk hands the change set to every open window and each decides from it, in one method, what to
redraw (after Anki's ``OpChanges``): the queue re-reads the rows of the items named, the
adjudication queue re-reads itself when decisions changed, the Models panel when models did.

A change set may name more than changed, never less: a window that redraws what it names is up to
date. Changes of several writes (a merge of several files, a run of batches) join with ``|``.
More than ``MANY`` items are said as every item: a window redraws whole rather than row by row,
and a change set does not grow with the project.
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
MANY = 1000  # items named one by one; more are told as every item


class Part(enum.Flag):
    """What of an item changed."""

    NONE = 0
    CONTENT = enum.auto()  # question, options, gold, dimension or level (an edit, an undo)
    STATUS = enum.auto()  # its status, which its decisions and adjudication give
    REVIEWS = enum.auto()  # its decisions, adjudication or history entries
    FLAGS = enum.auto()  # its flags (a re-check, the audit)
    NEW = enum.auto()  # the item was added (an import, a regeneration)


@dataclass(frozen=True)
class Changes:
    """What one write (or several, joined with ``|``) changed in the project."""

    items: frozenset[str] = frozenset()  # the items that changed, unless ``every_item``
    parts: Part = Part.NONE  # what of those items changed
    every_item: bool = False  # any item may have changed (an import, a full re-check)
    models: bool = False  # model profiles, answers, second opinions, regenerations
    evidence: bool = False  # texts, GloBI records, recordings, clip measurements
    audit: bool = False  # the audit's flags were set anew
    settings: bool = False  # the project's shared settings (the spectrogram's)
    exports: bool = False  # a release was recorded
    imports: bool = False  # an import run: the files it recorded, the input lines it rejected
    team: bool = False  # the review plan: its assignments, rounds or packages collected

    @classmethod
    def of_items(
        cls,
        item_ids: Collection[str],
        parts: Part,
        *,
        models: bool = False,
        evidence: bool = False,
        audit: bool = False,
    ) -> Changes:
        """``parts`` of the items ``item_ids`` changed (and models, evidence or the audit)."""
        if len(item_ids) > MANY:
            return cls(parts=parts, every_item=True, models=models, evidence=evidence, audit=audit)
        items = frozenset(item_ids)
        parts = parts if items else Part.NONE
        return cls(items, parts, models=models, evidence=evidence, audit=audit)

    @classmethod
    def of_every_item(cls, parts: Part, *, evidence: bool = False) -> Changes:
        """``parts`` of any item may have changed: too many to name (an import, a merge)."""
        return cls(parts=parts, every_item=True, evidence=evidence)

    def __or__(self, other: Changes) -> Changes:
        items = self.items | other.items
        every = self.every_item or other.every_item or len(items) > MANY
        return Changes(
            items=frozenset() if every else items,
            parts=self.parts | other.parts,
            every_item=every,
            models=self.models or other.models,
            evidence=self.evidence or other.evidence,
            audit=self.audit or other.audit,
            settings=self.settings or other.settings,
            exports=self.exports or other.exports,
            imports=self.imports or other.imports,
            team=self.team or other.team,
        )

    def __bool__(self) -> bool:
        return bool(self.parts) or any(
            (
                self.models,
                self.evidence,
                self.audit,
                self.settings,
                self.exports,
                self.imports,
                self.team,
            )
        )

    def touches(self, item_id: str, parts: Part | None = None) -> bool:
        """Whether ``item_id`` changed (in any of ``parts``, when given)."""
        if not self.parts or (parts is not None and not self.parts & parts):
            return False
        return self.every_item or item_id in self.items

    def item_ids(self, parts: Part | None = None) -> frozenset[str]:
        """The items named as changed (in any of ``parts``, when given); none when every item
        may have (``every_item``), which a window redraws whole."""
        if parts is not None and not self.parts & parts:
            return frozenset()
        return self.items


NOTHING = Changes()


@dataclass(frozen=True)
class Done(Generic[T]):
    """An operation's result and what it changed."""

    result: T
    changes: Changes = NOTHING
