"""Bring other curators' project files into this one.

Each curator works in a copy of the project; their decisions (and the edits inside them: a
"revise" decision carries the edited content) come together here. Merging is additive and
idempotent:

* Items are matched by id **and** by the content they were imported with (``original_hash``).
  An item whose id exists here with other original content is a conflict: its decisions are not
  merged, and the conflict is reported. Items this project does not have are reported too (import
  their source first); neither is guessed at.
* Every review of a matched item comes in through ``Store.import_review``. The rule when the same
  curator has different decisions in both files: the newer decision is the curator's current one;
  the older is never lost. If theirs is newer, ours moves to the history (``merge`` entry, before ->
  after). If ours is newer, theirs is written to the history as a ``merge-older`` entry (before =
  their older review, after = ours) and counted in the report.
* The other file's adjudications come in only for items that have none here; a different
  adjudication here is kept and reported.
* Each merged file is recorded in the ``merges`` table (path, sha256 of the file, when, summary).
  A file whose sha256 was merged before is skipped and counted once; a changed file merges again
  and only what is new changes anything.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from bagel_studio.core.checks import check_all
from bagel_studio.core.model import ItemContent, Review
from bagel_studio.core.store import Store, StoreError

Progress = Callable[[int, int], None]


class MergeError(StoreError):
    """A file that cannot be merged at all (missing, not a project, this project itself)."""


@dataclass
class FileMerge:
    """What merging one other project file did."""

    path: str
    name: str
    sha256: str
    already_merged: bool = False
    items_matched: int = 0
    reviews_added: int = 0  # a curator's decision on an item this project had none of theirs on
    reviews_updated: int = 0  # theirs was newer; ours went to the history
    reviews_unchanged: int = 0  # the same decision was already here
    reviews_older: int = 0  # ours was newer; theirs went to the history
    adjudications_added: int = 0
    adjudications_kept: int = 0  # both files adjudicated the item differently; ours is kept
    conflicts: list[dict[str, str]] = field(default_factory=list)  # same id, other content
    unknown_items: list[str] = field(default_factory=list)  # not in this project
    curators: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return self.reviews_added + self.reviews_updated + self.adjudications_added

    def summary(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("path")
        data.pop("name")
        data.pop("sha256")
        return data


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


def file_sha256(path: Path) -> str:
    """The sha256 of a project file, including a write-ahead log not yet checkpointed."""
    digest = hashlib.sha256()
    for part in (path, path.with_name(path.name + "-wal")):
        if part.exists():
            with open(part, "rb") as handle:
                while block := handle.read(1 << 20):
                    digest.update(block)
    return digest.hexdigest()


def open_other(store: Store, path: str | Path) -> Store:
    """Open another project read-only, refusing missing files, non-projects and ourselves."""
    other_path = Path(path)
    if not other_path.is_file():
        raise MergeError(f"{path}: no such project file")
    if str(store.path) != ":memory:" and other_path.resolve() == store.path.resolve():
        raise MergeError(f"{path}: is this project itself")
    try:
        return Store.open(other_path, read_only=True)
    except StoreError as exc:
        raise MergeError(str(exc)) from exc
    except sqlite3.DatabaseError as exc:
        raise MergeError(f"{path}: not a BAGEL Studio project ({exc})") from exc


def merge_projects(
    store: Store, paths: Sequence[str | Path], progress: Progress | None = None
) -> MergeReport:
    """Merge every file in ``paths`` into ``store``.

    All files are opened before anything is written, so an unreadable one (MergeError) leaves the
    project untouched. Each file is then merged in its own transaction.
    """
    others = []
    try:
        for path in paths:
            others.append(open_other(store, path))
        report = MergeReport()
        for done, other in enumerate(others, start=1):
            report.files.append(merge_file(store, other))
            if progress is not None:
                progress(done, len(others))
    finally:
        for other in others:
            other.close()
    report.disputed = int(
        store.db.execute("SELECT count(*) FROM items WHERE status = 'disputed'").fetchone()[0]
    )
    return report


def merge_file(store: Store, other: Store) -> FileMerge:
    """Merge one open project (read-only) into ``store``; see the module docstring for the rules."""
    sha = file_sha256(other.path)
    result = FileMerge(path=str(other.path), name=other.path.name, sha256=sha)
    if _merged_before(store, sha):
        result.already_merged = True
        return result
    matched = _match_items(store, other, result)
    result.items_matched = len(matched)
    touched: set[str] = set()
    with store.transaction() as conn:
        curators: set[str] = set()
        for review in other.all_reviews():
            if review.item_id in matched:
                curators.add(review.curator)
                if _merge_review(store, review, result):
                    touched.add(review.item_id)
        for item_id, adjudication in _adjudications(other):
            if item_id in matched:
                _merge_adjudication(store, item_id, adjudication, result)
        result.curators = sorted(curators)
        conn.execute(
            "INSERT INTO merges (path, sha256, merged_at, summary) VALUES (?,?,?,?)",
            [result.path, sha, store.clock(), json.dumps(result.summary(), sort_keys=True)],
        )
    if touched:  # flags that read the reviews (a wrong blind answer) follow the new decisions
        check_all(store, sorted(touched))
    return result


def merge_history(store: Store) -> list[dict[str, Any]]:
    """Every merge recorded in the project, oldest first."""
    rows = store.db.execute(
        "SELECT path, sha256, merged_at, summary FROM merges ORDER BY id"
    ).fetchall()
    return [
        {"path": r[0], "sha256": r[1], "merged_at": r[2], "summary": json.loads(r[3] or "{}")}
        for r in rows
    ]


def _merged_before(store: Store, sha: str) -> bool:
    row = store.db.execute("SELECT 1 FROM merges WHERE sha256 = ? LIMIT 1", [sha]).fetchone()
    return row is not None


def _match_items(store: Store, other: Store, result: FileMerge) -> set[str]:
    """Ids of the other file's items that are the same items here (same id, same original)."""
    ours = {
        row[0]: row[1] or _hash_of(row[2])
        for row in store.db.execute("SELECT id, original_hash, original FROM items")
    }
    matched: set[str] = set()
    for item_id, their_hash, original in other.db.execute(
        "SELECT id, original_hash, original FROM items ORDER BY seq"
    ):
        their_hash = their_hash or _hash_of(original)
        if item_id not in ours:
            result.unknown_items.append(item_id)
        elif ours[item_id] != their_hash:
            result.conflicts.append(
                {
                    "item_id": item_id,
                    "reason": "same id, different original content; its decisions were not merged",
                }
            )
        else:
            matched.add(item_id)
    return matched


def _hash_of(original_json: str) -> str:
    return ItemContent.from_json(json.loads(original_json)).content_hash()


def _merge_review(store: Store, review: Review, result: FileMerge) -> bool:
    """Merge one review; True when the curator's current decision changed here."""
    source = Path(result.path).name
    if review.origin == "local":  # say where it came from; keep the origin of a relayed review
        review = replace(review, origin=source)
    ours = store.review(review.item_id, review.curator)
    if store.import_review(review, source=source):
        if ours is None:
            result.reviews_added += 1
        else:
            result.reviews_updated += 1
        return True
    if ours is None or _same_decision(ours, review):
        result.reviews_unchanged += 1
        return False
    result.reviews_older += 1
    store.import_older_review(review, ours, source=source)
    return False


def _same_decision(a: Review, b: Review) -> bool:
    """The same review, whichever file it was last written in."""
    return replace(a, origin="") == replace(b, origin="")


def _adjudications(other: Store) -> list[tuple[str, dict[str, Any]]]:
    rows = other.db.execute(
        "SELECT item_id, adjudicator, decision, reason, note, content, decided_at"
        " FROM adjudications ORDER BY item_id"
    ).fetchall()
    keys = ("adjudicator", "decision", "reason", "note", "content", "decided_at")
    return [(r[0], dict(zip(keys, r[1:], strict=True))) for r in rows]


def _merge_adjudication(
    store: Store, item_id: str, theirs: dict[str, Any], result: FileMerge
) -> None:
    """Bring in an adjudication for an item that has none here, keeping its time and author."""
    outcome = store.import_adjudication(item_id, theirs, source=Path(result.path).name)
    if outcome == "added":
        result.adjudications_added += 1
    elif outcome == "kept":
        result.adjudications_kept += 1
