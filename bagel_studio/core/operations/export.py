"""Recording a written release in the project."""

from __future__ import annotations

from bagel_studio.core.changes import Changes, Done
from bagel_studio.core.store import Store


def record_export(store: Store, out_dir: str, seed: int, manifest: dict[str, object]) -> Done[int]:
    """Note an export in the project's ``exports`` table; return its id."""
    with store.transaction():
        export_id = store.project.record_export(out_dir, seed, manifest)
    return Done(export_id, Changes(exports=True))
