"""Every action that changes a project: one function, one transaction.

Each operation applies the rule of its action, writes through the store's primitives, re-runs the
checks of what it touched inside the same transaction and returns what changed. The desk and the
command line call these, never the store's write methods. Qt-free.

* ``decide``, ``edit``, ``edit_and_accept``, ``undo``, ``adjudicate`` (``operations.reviews``)
* ``merge_in`` another curator's project file (``operations.merge``)
* ``store_measurement`` of a clip, ``analyze_recordings`` of every clip (``operations.audio``)
* ``record_export`` of a written release (``operations.export``)
* ``recheck``, ``save_spectrogram_settings`` (``operations.project``)
* model results of ``core.llm`` (``operations.llm``)
* ``decide_many``: one decision on many items, all or nothing (``operations.decisions``)
* the audit's flags, ``store_audit_flags`` (``operations.audit``)
* what an import writes, one input file per transaction: ``import_file`` (``operations.imports``)
"""

from bagel_studio.core.operations.audio import (
    AnalysisReport,
    analyze_recordings,
    store_measurement,
)
from bagel_studio.core.operations.decisions import DecisionRefused, decide_many
from bagel_studio.core.operations.export import record_export
from bagel_studio.core.operations.merge import FileMerge, merge_in
from bagel_studio.core.operations.reviews import (
    adjudicate,
    decide,
    edit,
    edit_and_accept,
    require_curator,
    undo,
)

__all__ = [
    "AnalysisReport",
    "DecisionRefused",
    "FileMerge",
    "adjudicate",
    "analyze_recordings",
    "decide",
    "decide_many",
    "edit",
    "edit_and_accept",
    "merge_in",
    "record_export",
    "require_curator",
    "store_measurement",
    "undo",
]
