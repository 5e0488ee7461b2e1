"""What the card and the report read of a release, and what a feature adds to the report.

``Release`` is a protocol: the export's plan (``export.ExportPlan``) is one without this package
knowing the export. ``Section`` is a part of report.md that a feature contributes after the
release's own tables, with the plots it links to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class DomainBalance:
    """Gold positions of one domain before and after shuffling."""

    before: tuple[int, ...]  # curated order, every released item
    after: tuple[int, ...]  # shuffled, every released item
    movable_after: tuple[int, ...]  # shuffled, only the items whose gold could move
    movable: int
    immovable: int

    @property
    def spread(self) -> int:
        """Largest difference between two positions among the movable items (the target is <= 1)."""
        return max(self.movable_after) - min(self.movable_after) if self.movable else 0


class Release(Protocol):
    """The counts of a release (or of a release planned and not written)."""

    @property
    def seed(self) -> int: ...

    @property
    def items(self) -> Sized: ...  # the released items (only their number is read)

    @property
    def blocked(self) -> Sequence[object]: ...  # the items that block it, each as a line

    @property
    def left_out(self) -> Mapping[str, Mapping[str, int]]: ...  # status -> domain -> items

    @property
    def outcomes(self) -> Mapping[str, Mapping[str, int]]: ...  # domain -> status -> items

    @property
    def reject_reasons(self) -> Mapping[str, Mapping[str, int]]: ...  # domain -> reason -> items

    @property
    def balance(self) -> Mapping[str, DomainBalance]: ...  # every domain, in release order

    @property
    def licences(self) -> Mapping[str, int]: ...  # recording licence -> released items

    @property
    def unknown_licence(self) -> Sequence[str]: ...  # recordings without a known licence

    @property
    def domains(self) -> list[str]: ...

    def released_by_domain(self) -> dict[str, int]: ...

    def dimension_counts(self) -> dict[str, dict[str, int]]: ...  # domain -> dimension -> items


@dataclass(frozen=True)
class Section:
    """A part of report.md after the release's own tables, from a feature (the models' tables,
    the benchmark audit): its Markdown, starting with the blank line before its heading, and
    the plots it links to ({file name in the report folder: PNG})."""

    markdown: str
    plots: dict[str, bytes] = field(default_factory=dict)
