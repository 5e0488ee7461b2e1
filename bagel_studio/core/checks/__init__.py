"""Automatic checks: each flag has a stable check id, a severity and a one-line explanation that
names its evidence.

``check_item`` runs every check on one item; ``recheck_item`` and ``check_all`` compute and store
the flags (``run``). Structural checks block acceptance; the others warn (or inform). The checks
of an item depend only on its content and the evidence loaded in the project, so re-running them
is always safe.

The names above come from ``run``, imported when first asked for: a command that needs one check
(the export asks ``structural``, the audit ``words``) does not import every check, and with them
the audio package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bagel_studio.core.checks.run import BATCH as BATCH
    from bagel_studio.core.checks.run import BULK_THRESHOLD as BULK_THRESHOLD
    from bagel_studio.core.checks.run import CHECKS as CHECKS
    from bagel_studio.core.checks.run import Progress as Progress
    from bagel_studio.core.checks.run import check_all as check_all
    from bagel_studio.core.checks.run import check_item as check_item
    from bagel_studio.core.checks.run import recheck_item as recheck_item
    from bagel_studio.core.checks.run import run_checks as run_checks

_FROM_RUN = frozenset(
    {
        "BATCH",
        "BULK_THRESHOLD",
        "CHECKS",
        "Progress",
        "check_all",
        "check_item",
        "recheck_item",
        "run_checks",
    }
)


def __getattr__(name: str) -> Any:
    if name in _FROM_RUN:
        from bagel_studio.core.checks import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
