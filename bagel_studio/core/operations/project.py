"""Project-wide writes: re-running the checks, the shared spectrogram settings.

``recheck`` computes every flag first, outside any transaction (a check of the whole benchmark
takes seconds, during which the desk must still be able to write), then writes them all in one;
``save_spectrogram_settings`` is one setting, one transaction. (Measuring every clip is
``operations.audio.analyze_recordings``.) ``save_copy`` writes a consistent copy of the project
elsewhere (SQLite's online backup API) and changes nothing in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from bagel_studio.core.changes import NOTHING, Changes, Done, Part
from bagel_studio.core.checks import check_all
from bagel_studio.core.store import Store

if TYPE_CHECKING:
    from bagel_studio.core.audio.spectrogram import SpectrogramSettings

Progress = Callable[[int, int], None]


def recheck(
    store: Store,
    item_ids: Iterable[str] | None = None,
    progress: Progress | None = None,
    *,
    audio: bool = True,
    workers: int = 1,
) -> Done[int]:
    """Recompute the flags of the given items (all when None) and store them in one
    transaction; return how many flags they carry. ``audio=False`` leaves out the acoustic
    checks; ``workers`` > 1 checks a large project on that many processes (command line only,
    see ``checks.processes``)."""
    ids = None if item_ids is None else list(item_ids)
    count = check_all(store, ids, progress, audio=audio, workers=workers)
    if ids is None:
        return Done(count, Changes.of_every_item(Part.FLAGS))
    return Done(count, Changes.of_items(ids, Part.FLAGS))


def save_spectrogram_settings(store: Store, settings: SpectrogramSettings) -> Done[None]:
    """Store the spectrogram settings every curator of the project sees."""
    from bagel_studio.core.audio.spectrogram import save_settings  # numpy: not for ``recheck``

    save_settings(store, settings)
    return Done(None, Changes(settings=True))


def save_copy(store: Store, target: str | Path) -> Done[Path]:
    """*File → Save a copy…*: a consistent copy of the project at ``target`` (``Store.copy_to``:
    the backup API through a connection of its own, every committed write, the ones still in
    the write-ahead log too, while the project stays open); the project itself is unchanged."""
    return Done(store.copy_to(target), NOTHING)
