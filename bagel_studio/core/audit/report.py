"""What an audit finds (``AuditReport``), as plain values: kept apart from the code that finds it,
so that whoever shows a report (the release writer, the desk) need not import that code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bagel_studio.core.audit.baselines import BASELINES, Artifact, BaselineTable, Score
from bagel_studio.core.audit.leaks import Leak


@dataclass(frozen=True)
class ModelBaseline:
    """One reference model on one domain: options-only and full-prompt scores."""

    options_only: Score
    full: Score | None  # None when the model has no full-prompt answers there

    def to_json(self) -> dict[str, Any]:
        return {
            **self.options_only.to_json(),
            "full_accuracy": None if self.full is None else round(self.full.accuracy, 4),
            "full_n": 0 if self.full is None else self.full.n,
        }


@dataclass(frozen=True)
class OptionsOnly:
    models: dict[str, dict[str, ModelBaseline]] = field(default_factory=dict)  # profile, domain
    answerable: list[str] = field(default_factory=list)  # every model right without the stem
    golds: dict[str, str] = field(default_factory=dict)  # answerable id -> "A 'its gold'"

    def to_json(self) -> dict[str, Any]:
        return {
            "models": {
                label: {domain: score.to_json() for domain, score in domains.items()}
                for label, domains in self.models.items()
            },
            "answerable_without_stem": self.answerable,
        }


NAMED_LEFT_OUT = 5  # ids of the items left out that a summary names


@dataclass(frozen=True)
class LeftOut:
    """The items of a project an audit leaves out, on purpose: rejected ones never reach a
    release, and an item without four options and a gold among them has no option lengths or
    gold position to measure until it is fixed (its structural flag blocks it meanwhile)."""

    rejected: int = 0
    unsound: tuple[str, ...] = ()  # ids of the items without four options and a gold among them

    def __len__(self) -> int:
        return self.rejected + len(self.unsound)

    def to_json(self) -> dict[str, Any]:
        return {"rejected": self.rejected, "unsound": list(self.unsound)}


@dataclass(frozen=True)
class AuditReport:
    items: int  # items audited (not rejected, four options, a valid gold)
    baselines: BaselineTable
    artifacts: list[Artifact]
    duplicates: list[list[str]]
    leaks: list[Leak]
    options_only: OptionsOnly = field(default_factory=OptionsOnly)
    left_out: LeftOut = field(default_factory=LeftOut)  # the project's items not audited
    # what the items of each cluster of ``duplicates`` share (same order), for its flags
    duplicate_reasons: list[str] = field(default_factory=list)

    def coverage(self) -> str:
        """How many items were audited, in the curator's words, and which were left out and
        why ("56 of 58 items audited: 2 items without four options and a gold among them are
        left out until fixed (demo:three-options, demo:gold-not-an-option)"); the desk's audit
        panel and ``bagel-studio audit`` both open with it."""
        left = self.left_out
        if not len(left):
            return f"{_items(self.items)} audited"
        parts = []
        if left.rejected:
            parts.append(f"{_items(left.rejected, 'rejected item')} {_are(left.rejected)} left out")
        if left.unsound:
            named = ", ".join(left.unsound[:NAMED_LEFT_OUT])
            more = len(left.unsound) - NAMED_LEFT_OUT
            if more > 0:
                named += f" and {more:,} more"
            parts.append(
                f"{_items(len(left.unsound))} without four options and a gold among them"
                f" {_are(len(left.unsound))} left out until fixed ({named})"
            )
        return f"{self.items:,} of {self.items + len(left):,} items audited: {'; '.join(parts)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "left_out": self.left_out.to_json(),
            "baselines": {
                name: {d: s.to_json() for d, s in self.baselines.by_domain[name].items()}
                for name in BASELINES
            },
            "baselines_by_dimension": {
                name: {
                    domain: {dim: s.to_json() for dim, s in dims.items()}
                    for domain, dims in self.baselines.by_dimension[name].items()
                }
                for name in BASELINES
            },
            "artifacts": [a.to_json() | {"finding": a.sentence()} for a in self.artifacts],
            "duplicates": self.duplicates,
            "leaks": [leak.to_json() for leak in self.leaks],
            "options_only": self.options_only.to_json(),
        }


def _items(count: int, noun: str = "item") -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def _are(count: int) -> str:
    return "is" if count == 1 else "are"
