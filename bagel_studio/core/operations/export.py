"""Recording a written release in the project."""

from __future__ import annotations

from bagel_studio.core.store import Store


def record_export(store: Store, out_dir: str, seed: int, manifest: dict[str, object]) -> int:
    """Note an export in the project's ``exports`` table; return its id."""
    with store.transaction():
        return store.project.record_export(out_dir, seed, manifest)
