"""Bring other curators' project files into this one.

Each curator works in a copy of the project; their decisions (and the edits inside them: a
"revise" decision carries the edited content) come together here. Merging is additive and
idempotent:

* Items are matched by id **and** by the content they were imported with (``original_hash``).
  An item whose id exists here with other original content is a conflict: its decisions are not
  merged, and the conflict is reported. Items this project does not have are reported too (import
  their source first); neither is guessed at.
* Every review of a matched item comes in through ``store.reviews.import_review``. The rule when
  the same curator has different decisions in both files: the newer decision is the curator's
  current one; the older is never lost. If theirs is newer, ours moves to the history (``merge``
  entry, before -> after). If ours is newer, theirs is written to the history as a
  ``merge-older`` entry (before = their older review, after = ours) and counted in the report.
* The other file's adjudications come in only for items that have none here; a different
  adjudication here is kept and reported.
* Each merged file is recorded in the ``merges`` table (path, sha256 of the file, when, summary).
  A file whose sha256 was merged before is skipped and counted once; a changed file merges again
  and only what is new changes anything.
* Dates are checked before anything is merged: a file holding a decision or adjudication dated
  in the future (more than ``operations.merge.CLOCK_SKEW``, 5 minutes, after this machine's
  clock) or not dated at all is refused whole, since the newer decision is the one kept and
  such a date would win every later merge. A curator's package of a review plan is refused
  too: ``collect`` takes it, checking whose it is.
* The other file's decisions are read one at a time, so memory does not grow with them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bagel_studio.core.changes import NOTHING, Done
from bagel_studio.core.operations.merge import FileMerge, file_sha256, future_decision, merge_in
from bagel_studio.core.operations.reviews import curator_name
from bagel_studio.core.store import QueueFilter, SchemaTooNewError, Store, StoreError
from bagel_studio.core.store.team import PACKAGE_META

Progress = Callable[[int, int], None]


class MergeError(StoreError):
    """A file that cannot be merged at all (missing, not a project, this project itself)."""


@dataclass
class MergeReport:
    """The outcome of merging several files, and the disputes the project holds afterwards."""

    files: list[FileMerge] = field(default_factory=list)
    disputed: int = 0

    @property
    def complete(self) -> bool:
        """True when every item of every file could be matched."""
        return not any(f.conflicts or f.unknown_items for f in self.files)

    def to_json(self) -> dict[str, Any]:
        return {
            "files": [asdict(f) for f in self.files],
            "disputed": self.disputed,
            "complete": self.complete,
        }

    def lines(self) -> list[str]:
        """A human-readable account, one line per file plus conflicts (CLI and desk)."""
        out: list[str] = []
        for f in self.files:
            if f.already_merged:
                out.append(f"{f.name}: already merged, nothing to do")
                continue
            out.append(
                f"{f.name}: {f.items_matched} items matched, {f.reviews_added} decisions added,"
                f" {f.reviews_updated} updated, {f.reviews_unchanged} already here,"
                f" {f.reviews_older} older than ours (kept in history),"
                f" {f.adjudications_added} adjudications added"
                + (f" ({', '.join(f.curators)})" if f.curators else "")
            )
            out.extend(f"  conflict: {c['item_id']}: {c['reason']}" for c in f.conflicts)
            if f.unknown_items:
                out.append(
                    f"  {len(f.unknown_items)} items not in this project (import their source"
                    f" first): {', '.join(f.unknown_items[:5])}"
                    + (" ..." if len(f.unknown_items) > 5 else "")
                )
        out.append(f"{self.disputed} items disputed (adjudication queue)")
        return out


def open_other(store: Store, path: str | Path) -> Store:
    """Open another project read-only, refusing missing files, non-projects and ourselves."""
    other_path = Path(path)
    if not other_path.is_file():
        raise MergeError(f"{path}: no such project file")
    if str(store.path) != ":memory:" and other_path.resolve() == store.path.resolve():
        raise MergeError(f"{path}: is this project itself")
    try:
        other = Store.open(other_path, read_only=True)
    except (StoreError, SchemaTooNewError) as exc:
        raise MergeError(str(exc)) from exc
    except sqlite3.DatabaseError as exc:
        raise MergeError(f"{path}: not a BAGEL Studio project ({exc})") from exc
    try:
        other.require_sound()
        _require_curator_names(other)
    except StoreError as exc:
        other.close()
        raise MergeError(str(exc)) from exc
    return other


def refuse_unmergeable(store: Store, other: Store) -> None:
    """Raise MergeError when ``other`` may not be merged as a whole project's copy: a curator's
    package of a review plan (collect checks whose it is and takes only that curator's own
    decisions), or a file holding a decision dated in the future (it would win every later
    merge, being the newer)."""
    package = other.project.get_meta(PACKAGE_META)
    if isinstance(package, dict):
        raise MergeError(
            f"{other.path.name}: is {package.get('curator')}'s package of review plan"
            f" {package.get('plan')}: collect it (bagel-studio collect), which checks whose it is"
        )
    problem = future_decision(other, store.clock())
    if problem is not None:
        raise MergeError(f"{other.path.name}: {problem}; nothing was merged")


def _require_curator_names(other: Store) -> None:
    """Every name in another curator's file is one the desk would take (``curator_name``): a
    decision by ``\u202eecila`` would show as alice's."""
    names = set(other.reviews.curators())
    names.update(str(a.get("adjudicator") or "") for _, a in other.adjudications.rows())
    for name in sorted(names):
        try:
            curator_name(name)
        except StoreError as exc:
            raise MergeError(
                f"{other.path}: holds decisions by a curator whose name is refused ({exc});"
                " nothing was merged"
            ) from None


def merge_projects(
    store: Store, paths: Sequence[str | Path], progress: Progress | None = None
) -> Done[MergeReport]:
    """Merge every file in ``paths`` into ``store``; the report, and what the files changed.

    All files are opened, and checked as the project is (``Store.require_sound``: their schema,
    SQLite's full check), before anything is written, so an unreadable, newer or damaged one
    (MergeError) leaves the project untouched. Each file is then merged in its own transaction.
    """
    store.require_sound()
    others = []
    changes = NOTHING
    try:
        for path in paths:
            others.append(open_other(store, path))
        for other in others:
            refuse_unmergeable(store, other)
        report = MergeReport()
        for done, other in enumerate(others, start=1):
            merged = merge_in(store, other)
            report.files.append(merged.result)
            changes |= merged.changes
            if progress is not None:
                progress(done, len(others))
    finally:
        for other in others:
            other.close()
    report.disputed = store.items.count(QueueFilter(status="disputed"))
    return Done(report, changes)


def merge_history(store: Store) -> list[dict[str, Any]]:
    """Every merge recorded in the project, oldest first."""
    return store.project.merges()


__all__ = [
    "FileMerge",
    "MergeError",
    "MergeReport",
    "file_sha256",
    "merge_history",
    "merge_in",
    "merge_projects",
    "open_other",
]
