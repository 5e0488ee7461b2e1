"""The bundled demo project: real evidence from ``resources/data`` and items over it."""

from __future__ import annotations

from pathlib import Path

from bagel_studio.core.prefs import data_dir
from bagel_studio.core.resources import RESOURCES


def demo_sources(resources: Path = RESOURCES) -> list[Path]:
    """The files the demo imports: evidence first, then items (in queue order)."""
    data = resources / "data"
    demo = resources / "demo"
    missing = [p for p in (data, demo) if not p.is_dir()]
    if missing:
        raise FileNotFoundError(f"demo resources not found: {', '.join(map(str, missing))}")
    return [
        *sorted((data / "globi").glob("*interactions.tsv")),
        *sorted((data / "wikipedia").glob("*.txt")),
        *sorted((data / "biorxiv").glob("*.json")),
        data / "xeno_canto" / "recordings.csv",
        *sorted((data / "xeno_canto").glob("*.mp3")),
        # The demo's own items first (the queue opens on an item with its evidence), then the
        # paper's printed items, most of which have no evidence bundled.
        *(
            demo / f"{track}_generator_outputs.jsonl"
            for track in ("wikipedia", "globi", "biorxiv", "xeno_canto")
        ),
        demo / "items_with_problems.jsonl",
        data / "items" / "paper_examples.jsonl",
    ]


def default_demo_path() -> Path:
    """Where ``bagel-studio demo`` builds the demo project: the user's data folder, so that it is
    built once and kept between runs."""
    return data_dir() / "demo.bagel"


def build_demo_project(target: Path | None = None, *, rebuild: bool = False) -> Path:
    """Create the demo project at ``target`` (built once: an existing one, with the curator's
    decisions in it, is kept unless ``rebuild``) and return its path."""
    from bagel_studio.core.domains import XENO_CANTO
    from bagel_studio.core.importers import import_paths
    from bagel_studio.core.operations import analyze_recordings
    from bagel_studio.core.operations.project import recheck
    from bagel_studio.core.store import QueueFilter, Store

    target = target or default_demo_path()
    if target.exists() and not rebuild:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".building")
    for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
        leftover.unlink(missing_ok=True)
    with Store.open(partial, owner="demo builder") as store:
        import_paths(store, demo_sources())
        # Measure the nine clips now (about a second) so the acoustic flags are in the queue
        # from the start rather than appearing as each recording is first opened.
        analyze_recordings(store)
        recheck(store, store.items.ids(QueueFilter(domain=XENO_CANTO)))
        store.checkpoint()
    if rebuild:
        for old in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
            old.unlink(missing_ok=True)
    partial.replace(target)
    Path(f"{partial}.lock").unlink(missing_ok=True)
    return target
