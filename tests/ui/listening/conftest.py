"""A real project with two real Xeno-canto clips and items about them, and a listening panel.

The clips are copied from ``resources/data/xeno_canto`` into the test's folder; the project is a
real SQLite file; the panel runs on real executors (``Services``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from bagel_studio.core.audio import SpectrogramSettings, save_settings
from bagel_studio.core.model import ItemContent
from bagel_studio.core.prefs import Preferences
from bagel_studio.core.store import NewItem, Store
from bagel_studio.ui.listening import ListeningPanel
from bagel_studio.ui.services import Services

SPARROW = "XC625750"  # House Sparrow, 44.1 kHz stereo; measured band ~2.9-5.0 kHz
CROWNED = "XC236243"  # White-crowned Sparrow
FREQ_ITEM = "xeno-canto:house-sparrow:freq"
WRONG_GOLD_ITEM = "xeno-canto:house-sparrow:wrong-gold"
DURATION_ITEM = "xeno-canto:house-sparrow:duration"
CROWNED_ITEM = "xeno-canto:white-crowned:freq"
FREQ_OPTIONS = ("~9-11 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz")
DURATION_OPTIONS = ("80-150 ms", "200-400 ms", "0.8-1.2 s", "1.5-2.0 s")


def _item(item_id: str, recording: str, options: tuple[str, ...], gold: int, dim: str) -> NewItem:
    question = f"What is the typical {dim.lower()} of the call of this bird?"
    content = ItemContent(question, options, gold, dim)
    return NewItem(id=item_id, domain="Xeno-canto", content=content, recording_id=recording)


def build_project(folder: Path, data_dir: Path, leading: Sequence[NewItem] = ()) -> Store:
    """A project file with the two clips and four items (one with a wrong gold band), after
    ``leading`` items if given (the queue's first)."""
    audio = folder / "audio"
    audio.mkdir(parents=True, exist_ok=True)
    recordings = []
    for xc, scientific, common in (
        (SPARROW, "Passer domesticus", "House Sparrow"),
        (CROWNED, "Zonotrichia leucophrys", "White-crowned Sparrow"),
    ):
        copy = audio / f"{xc}.mp3"
        shutil.copyfile(data_dir / "xeno_canto" / f"{xc}.mp3", copy)
        recordings.append({
            "id": xc, "scientific_name": scientific, "common_name": common,
            "vocalization_type": "call", "audio_path": str(copy), "file_name": copy.name,
            "licence": "CC BY-NC-SA 4.0", "recordist": "xeno-canto recordist",
        })  # fmt: skip
    store = Store.open(folder / "project.bagel", owner="t")
    store.evidence.upsert_recordings(recordings, None)
    store.items.add_items(
        [
            *leading,
            _item(FREQ_ITEM, SPARROW, FREQ_OPTIONS, 1, "Dominant frequency range"),
            _item(WRONG_GOLD_ITEM, SPARROW, FREQ_OPTIONS, 0, "Dominant frequency range"),
            _item(DURATION_ITEM, SPARROW, DURATION_OPTIONS, 0, "Call / syllable duration"),
            _item(CROWNED_ITEM, CROWNED, FREQ_OPTIONS, 1, "Dominant frequency range"),
        ],
        None,
    )
    return store


@pytest.fixture
def services(tmp_path: Path, data_dir: Path) -> Iterator[Services]:
    store = build_project(tmp_path, data_dir)
    services = Services(store=store, prefs=Preferences(curator="t"))
    yield services
    services.close()


@pytest.fixture
def linear_services(services: Services) -> Services:
    """The same project with linear-frequency settings stored in it (y axis in Hz)."""
    save_settings(services.store, SpectrogramSettings(scale="linear"))
    return services


def idle(qtbot: QtBot, services: Services) -> None:
    """Wait until every job on both executors has delivered its result."""
    qtbot.waitUntil(
        lambda: services.workers.pending == 0 and services.writer.pending == 0, timeout=30000
    )


def open_panel(qtbot: QtBot, services: Services, **kwargs: object) -> ListeningPanel:
    panel = ListeningPanel(services, **kwargs)  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.resize(1280, 720)
    panel.show()
    return panel


def show_and_wait(qtbot: QtBot, panel: ListeningPanel, item_id: str) -> None:
    """Show an item and wait for its spectrogram and measurement to arrive."""
    panel.show_item(panel.services.store.items.get(item_id))
    idle(qtbot, panel.services)
    assert panel.clip is not None, panel.notice.text()


@pytest.fixture
def panel(qtbot: QtBot, services: Services) -> Iterator[ListeningPanel]:
    widget = open_panel(qtbot, services)
    yield widget
    widget.shutdown()
    idle(qtbot, services)


@pytest.fixture
def linear_panel(qtbot: QtBot, linear_services: Services) -> Iterator[ListeningPanel]:
    widget = open_panel(qtbot, linear_services)
    yield widget
    widget.shutdown()
    idle(qtbot, linear_services)
