"""Every action that changes a project: one function, one transaction.

Each operation applies the rule of its action, writes through the store's primitives, re-runs the
checks of what it touched inside the same transaction and returns ``Done(result, changes)``: its
result and what it changed (``core.changes``), which the desk hands to every open window. The
desk and the command line call these, never the store's write methods. Qt-free.

* ``decide``, ``edit``, ``edit_and_accept``, ``undo``, ``adjudicate`` (``operations.reviews``)
* ``merge_in`` another curator's project file (``operations.merge``)
* ``store_measurement``, ``store_detection`` of a clip, ``analyze_recordings`` of every clip
  (``operations.audio``)
* ``record_export`` of a written release (``operations.export``)
* ``recheck``, ``save_spectrogram_settings``, ``save_copy`` (``operations.project``)
* model results of ``core.llm`` (``operations.llm``)
* ``decide_many``: one decision on many items, all or nothing (``operations.decisions``)
* the audit's flags, ``store_audit_flags`` (``operations.audit``)
* what an import writes, one input file per transaction: ``import_file`` (``operations.imports``)
* a review team's plan and its further rounds: ``make_plan``, ``next_round``, and ``collect``
  of the packages ``hand_out`` wrote (``operations.team``, ``operations.handout``)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bagel_studio.core.lazy import package_names

if TYPE_CHECKING:
    from bagel_studio.core.operations.audio import AnalysisReport as AnalysisReport
    from bagel_studio.core.operations.audio import analyze_recordings as analyze_recordings
    from bagel_studio.core.operations.audio import store_detection as store_detection
    from bagel_studio.core.operations.audio import store_measurement as store_measurement
    from bagel_studio.core.operations.decisions import DecisionRefused as DecisionRefused
    from bagel_studio.core.operations.decisions import decide_many as decide_many
    from bagel_studio.core.operations.export import record_export as record_export
    from bagel_studio.core.operations.merge import FileMerge as FileMerge
    from bagel_studio.core.operations.merge import merge_in as merge_in
    from bagel_studio.core.operations.reviews import adjudicate as adjudicate
    from bagel_studio.core.operations.reviews import decide as decide
    from bagel_studio.core.operations.reviews import edit as edit
    from bagel_studio.core.operations.reviews import edit_and_accept as edit_and_accept
    from bagel_studio.core.operations.reviews import require_curator as require_curator
    from bagel_studio.core.operations.reviews import undo as undo

# name -> the module that defines it: imported when the name is first asked for, so that an
# operation's module (``operations.export``, which the export command uses) does not bring in
# every other (the checks, the audio package).
_HOMES = {
    "AnalysisReport": "audio",
    "DecisionRefused": "decisions",
    "FileMerge": "merge",
    "adjudicate": "reviews",
    "analyze_recordings": "audio",
    "decide": "reviews",
    "decide_many": "decisions",
    "edit": "reviews",
    "edit_and_accept": "reviews",
    "merge_in": "merge",
    "record_export": "export",
    "require_curator": "reviews",
    "store_detection": "audio",
    "store_measurement": "audio",
    "undo": "reviews",
}

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
    "store_detection",
    "store_measurement",
    "undo",
]


__getattr__ = package_names(__name__, _HOMES, globals())
