"""Merging in another curator's project file: one transaction per file.

The rules are those of ``bagel_studio.core.merge`` (its docstring): items matched by id and
original content, the newer of a curator's two decisions current and the older kept in the
history, adjudications brought in only where there is none. ``merge_in`` writes every review and
adjudication of one file, records the file in ``merges`` and re-runs the checks of the items whose
decisions changed (a wrong blind answer), all in one transaction.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bagel_studio.core.changes import Changes, Done, Part
from bagel_studio.core.checks import check_all
from bagel_studio.core.model import Review
from bagel_studio.core.store import Store


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


# How far ahead of this machine's clock a decision may be dated: another machine's clock may be
# that much ahead; a decision dated later is refused, since the newer decision wins a merge.
CLOCK_SKEW = timedelta(minutes=5)
SKEW_WORDS = "more than 5 minutes after this machine's clock"


def _when(text: str) -> datetime | None:
    """An ISO date and time (UTC when it names no zone), or None when it is not one."""
    try:
        when = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def latest_allowed(now: str) -> str:
    """The latest date a decision may carry when ``now`` (the store's clock) is the time."""
    when = _when(now) or datetime.now(UTC)
    return (when + CLOCK_SKEW).isoformat(timespec="milliseconds")


def date_problem(decided_at: str, latest: str, collected_at: str | None = None) -> str | None:
    """Why a decision dated ``decided_at`` cannot come in, or None: not a date, later than
    ``latest`` (``latest_allowed``), or later than ``collected_at`` (its package's first
    collection). Said after "the decision on ITEM"."""
    when = _when(decided_at)
    if when is None:
        return f"is dated {decided_at!r}, which is no date"
    if when > (_when(latest) or when):
        return f"is dated {decided_at}, in the future ({SKEW_WORDS})"
    collected = _when(collected_at) if collected_at else None
    if collected is not None and when > collected:
        return f"is dated {decided_at}, after the package was collected ({collected_at})"
    return None


def future_decision(other: Store, now: str) -> str | None:
    """Why another project's file cannot be merged for its dates, or None: a decision or an
    adjudication dated in the future (beyond ``CLOCK_SKEW``) or not dated at all would win
    every later merge (the newer decision is the current one)."""
    latest = latest_allowed(now)
    found = other.reviews.first_dated_after(latest)
    what = "decision"
    if found is None:
        found, what = other.adjudications.first_dated_after(latest), "adjudication"
    if found is None:
        return None
    item_id, who, decided_at = found
    problem = date_problem(decided_at, latest) or f"is dated {decided_at}"
    return f"{who}'s {what} on {item_id} {problem}"


def file_sha256(path: Path) -> str:
    """The sha256 of a project file, including a write-ahead log not yet checkpointed."""
    digest = hashlib.sha256()
    for part in (path, path.with_name(path.name + "-wal")):
        if part.exists():
            with open(part, "rb") as handle:
                while block := handle.read(1 << 20):
                    digest.update(block)
    return digest.hexdigest()


def merge_in(store: Store, other: Store) -> Done[FileMerge]:
    """Merge one open project (read-only) into ``store``; see the module docstring for the rules.
    Its changes name the items whose decisions or adjudication it brought in."""
    sha = file_sha256(other.path)
    result = FileMerge(path=str(other.path), name=other.path.name, sha256=sha)
    if store.project.merged_before(sha):
        result.already_merged = True
        return Done(result)
    matched = _match_items(store, other, result)
    result.items_matched = len(matched)
    touched: set[str] = set()  # a curator's current decision changed
    historied: set[str] = set()  # an older decision went to the history
    adjudicated: set[str] = set()
    with store.transaction():
        curators: set[str] = set()
        for review in other.reviews.stream():
            if review.item_id in matched:
                curators.add(review.curator)
                merged = merge_review(store, review, result)
                if merged == "current":
                    touched.add(review.item_id)
                elif merged == "older":
                    historied.add(review.item_id)
        for item_id, adjudication in other.adjudications.rows():
            if item_id in matched and _merge_adjudication(store, item_id, adjudication, result):
                adjudicated.add(item_id)
        result.curators = sorted(curators)
        store.project.record_merge(result.path, sha, result.summary())
        if touched:  # flags that read the reviews (a wrong blind answer) follow the decisions
            check_all(store, sorted(touched))
    parts = Part.STATUS | Part.REVIEWS | (Part.FLAGS if touched else Part.NONE)
    changed = Changes.of_items(historied, Part.REVIEWS) | Changes.of_items(
        touched | adjudicated, parts
    )
    return Done(result, changed)


def _match_items(store: Store, other: Store, result: FileMerge) -> set[str]:
    """Ids of the other file's items that are the same items here (same id, same original)."""
    ours = dict(store.items.original_hashes())
    matched: set[str] = set()
    for item_id, their_hash in other.items.original_hashes():
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


def merge_review(store: Store, review: Review, result: FileMerge) -> str:
    """Merge one review: "current" when the curator's current decision changed here, "older"
    when it went to their history, "" when it was here already."""
    source = Path(result.path).name
    if review.origin == "local":  # say where it came from; keep the origin of a relayed review
        review = replace(review, origin=source)
    ours = store.reviews.get(review.item_id, review.curator)
    if store.reviews.import_review(review, source=source):
        if ours is None:
            result.reviews_added += 1
        else:
            result.reviews_updated += 1
        return "current"
    if ours is None or _same_decision(ours, review):
        result.reviews_unchanged += 1
        return ""
    result.reviews_older += 1
    store.reviews.import_older_review(review, ours, source=source)
    return "older"


def _same_decision(a: Review, b: Review) -> bool:
    """The same review, whichever file it was last written in."""
    return replace(a, origin="") == replace(b, origin="")


def _merge_adjudication(
    store: Store, item_id: str, theirs: dict[str, Any], result: FileMerge
) -> bool:
    """Bring in an adjudication for an item that has none here, keeping its time and author;
    True when it was brought in."""
    outcome = store.adjudications.import_adjudication(
        item_id, theirs, source=Path(result.path).name
    )
    if outcome == "added":
        result.adjudications_added += 1
    elif outcome == "kept":
        result.adjudications_kept += 1
    return outcome == "added"
