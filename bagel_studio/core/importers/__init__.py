"""Import of every input format (FORMATS.md 1-5), detected from content.

``import_paths(store, paths)`` takes files and folders: GloBI tables, Wikipedia and bioRxiv texts,
Xeno-canto metadata and audio first, then item files (flat items and the four tracks' generator
envelopes). What cannot become an item is kept in the project as a reject (``file:line: reason``);
the generator's own ``usable: "false"`` outputs are kept and counted; re-importing a file changes
nothing. Items arrive with their structural flags; ``run_full_checks`` (run by ``import_paths``
unless ``full_checks=False``) adds the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bagel_studio.core.changes import Changes, Done, Part
from bagel_studio.core.importers.report import ImportReport
from bagel_studio.core.importers.runner import Progress, import_paths, run_full_checks
from bagel_studio.core.store import Store

__all__ = ["ImportReport", "import_files", "import_paths", "run_full_checks"]


def import_files(
    store: Store, paths: Sequence[str | Path], progress: Progress | None = None
) -> Done[ImportReport]:
    """``import_paths`` as the desk runs it, one write among the others: its report, and what it
    changed. That is said of every item (new items, the flags of those its evidence links),
    never item by item: an import's ids grow with its files."""
    report = import_paths(store, paths, progress=progress)
    changes = Changes.of_every_item(Part.NEW | Part.FLAGS, evidence=True)
    return Done(report, changes | Changes(imports=True))
