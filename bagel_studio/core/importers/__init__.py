"""Import of every input format (FORMATS.md 1-5), detected from content.

``import_paths(store, paths)`` takes files and folders: GloBI tables, Wikipedia and bioRxiv texts,
Xeno-canto metadata and audio first, then item files (flat items and the four tracks' generator
envelopes). What cannot become an item is kept in the project as a reject (``file:line: reason``);
the generator's own ``usable: "false"`` outputs are kept and counted; re-importing a file changes
nothing. Items arrive with their structural flags; ``run_full_checks`` (run by ``import_paths``
unless ``full_checks=False``) adds the others.
"""

from bagel_studio.core.importers.report import ImportReport
from bagel_studio.core.importers.runner import import_paths, run_full_checks

__all__ = ["ImportReport", "import_paths", "run_full_checks"]
