"""Test set-up shared by the whole suite.

Qt runs offscreen (set here, before anything imports Qt), project files are real SQLite files in a
temporary folder, and test data comes from ``resources/data`` (never from outside the repository).
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("BAGEL_STUDIO_CONFIG_DIR", "")  # set per test by isolated_config
# The desk would start a PulseAudio for the user when it finds no output device: not from the
# tests (they start private servers; tests/core/audio/test_sound_server.py passes its own env).
os.environ.setdefault("BAGEL_STUDIO_NO_SOUND_SERVER", "1")

# A suite started in the background of a script (``command &``) inherits Ctrl+C ignored, and
# so would every process the tests start (an ignored signal stays ignored across exec): the
# Ctrl+C tests need it as a terminal gives it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "resources" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The bundled third-party data (GloBI tables, Xeno-canto clips, texts, paper items)."""
    return DATA


@pytest.fixture(autouse=True)
def isolated_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Preferences and recent projects go to a fresh folder in every test."""
    folder = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("BAGEL_STUDIO_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    return tmp_path / "project.bagel"


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project, built once per session (it measures nine clips): read it, or write to
    a copy (``demo_copy``)."""
    from bagel_studio.core.demo import build_demo_project

    return build_demo_project(tmp_path_factory.mktemp("demo") / "demo.bagel")


@pytest.fixture
def demo_copy(demo_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the demo project, this test's to change."""
    return Path(shutil.copyfile(demo_template, tmp_path / "demo.bagel"))


@pytest.fixture
def qtbot(qapp: object, request: pytest.FixtureRequest) -> object:
    """pytest-qt's ``qtbot``, with waits that give their condition at least a minute on a busy
    machine (tests/support/qt_waits.py); they still return as soon as it holds."""
    from tests.support.qt_waits import PatientQtBot

    return PatientQtBot(request)


@pytest.fixture(scope="session")
def pulse_sink() -> Iterator[str]:
    """A running PulseAudio server with a null sink; yields the monitor source name.

    Started by the tests themselves so that real playback can be recorded and checked.
    """
    from tests.support.pulse import running_null_sink

    with running_null_sink() as monitor:
        yield monitor
