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

    def to_json(self) -> dict[str, Any]:
        return {
            "models": {
                label: {domain: score.to_json() for domain, score in domains.items()}
                for label, domains in self.models.items()
            },
            "answerable_without_stem": self.answerable,
        }


@dataclass(frozen=True)
class AuditReport:
    items: int  # items audited (not rejected, four options, a valid gold)
    baselines: BaselineTable
    artifacts: list[Artifact]
    duplicates: list[list[str]]
    leaks: list[Leak]
    options_only: OptionsOnly = field(default_factory=OptionsOnly)

    def to_json(self) -> dict[str, Any]:
        return {
            "items": self.items,
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
