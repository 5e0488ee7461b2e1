"""Collecting the curators' packages back into the project (``bagel-studio collect``).

The project and the files are checked as a merge checks them (``Store.require_sound``); the
files are opened read-only (a missing file, one that is not a project, a damaged one, or this
project itself is refused with one line before anything else is read); ``operations.team.collect``
then checks every package against the plan and merges them in one transaction, or refuses
them all (``CollectRefused``: one line per package that cannot be collected, naming why).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bagel_studio.core.changes import Done
from bagel_studio.core.merge import MergeError, open_other
from bagel_studio.core.operations.team import Collected, CollectRefused, collect
from bagel_studio.core.store import Store


def collect_packages(store: Store, paths: Sequence[str | Path]) -> Done[Collected]:
    """Collect every package of ``paths`` into ``store``, all or none (``CollectRefused``)."""
    store.require_sound()
    others: list[Store] = []
    refusals: list[str] = []
    try:
        for path in paths:
            try:
                others.append(open_other(store, path))
            except MergeError as exc:
                refusals.append(str(exc))
        if refusals:
            raise CollectRefused(refusals)
        return collect(store, others)
    finally:
        for other in others:
            other.close()


__all__ = ["CollectRefused", "Collected", "collect_packages"]
