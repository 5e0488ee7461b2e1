"""How many of the project's modules run when the curator accepts an item at the desk.

A profiler (``sys.setprofile`` on the main thread, ``threading.setprofile`` for the threads the
desk starts, among them the writer) notes the module of every Python function called from the key
press until the desk is ready for the next key (``write_finished``): the operation on the writer
thread, the change set handed to the windows and what they redraw, then the move to the next item.
The move (``ReviewController.show_next``: the next item this curator has not reviewed, shown as J
shows one) is counted apart, so that the accept's own path (key, operation, store, change set,
redraws) is seen on its own. The second accept of a session is measured, once the listening panel
is built (a curator's first pause builds it) and the work the desk started on its threads (the
sound device looked for) has come back: the first accept imports the write path's modules.
The test prints the lists: ``pytest -s tests/ui/test_accept_path.py`` shows them.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from PySide6.QtCore import Qt

from bagel_studio.ui import review_controller
from tests.ui.desk_harness import close_desk, listening_panel, open_desk
from tests.ui.desk_project import BIORXIV_ID, GLOBI_ID, KOALA_ID, build_project

PACKAGE = "bagel_studio"
MOVING_ON = review_controller.ReviewController.show_next.__code__
# The accept's own path, measured so: 18 modules before change sets (21 once the store was split
# into parts), 15 with them, 12 since a decision's write runs only the reviews part and the
# transaction, and the machine enables the decision bar's buttons (Anki answers a card through 4).
ACCEPT_MODULES = 12


@dataclass
class Modules:
    """The project's modules whose code ran, by part of the path."""

    accept: set[str] = field(default_factory=set)  # key press, write, change set, redraws
    moving_on: set[str] = field(default_factory=set)  # showing the next item
    background: set[str] = field(default_factory=set)  # the worker pool (clips, spectrograms)
    recording: bool = False
    _inside: dict[int, int] = field(default_factory=dict)  # thread -> depth in show_next

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if not self.recording or event not in ("call", "return"):
            return
        thread = threading.get_ident()
        if frame.f_code is MOVING_ON:
            self._inside[thread] = self._inside.get(thread, 0) + (1 if event == "call" else -1)
            if event == "return":
                return
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(PACKAGE):
            return
        if threading.current_thread().name.startswith("bagel-work"):
            self.background.add(module)
        elif self._inside.get(thread, 0) > 0:
            self.moving_on.add(module)
        else:
            self.accept.add(module)


@contextmanager
def profiled(modules: Modules) -> Iterator[None]:
    """The profiler on this thread and every thread started meanwhile (the desk's executors
    start theirs at their first task)."""
    threading.setprofile(modules.profile)
    sys.setprofile(modules.profile)
    try:
        yield
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]


def accept_modules(qtbot: Any, folder: Path, data_dir: Path) -> Modules:
    """The modules that ran while the second item of the desk's test project was accepted."""
    path = folder / "desk.bagel"
    build_project(path, data_dir)
    modules = Modules()
    with profiled(modules):
        window = open_desk(qtbot, path)
        assert window.current_item_id() == KOALA_ID
        with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
            qtbot.keyClick(window, Qt.Key.Key_A)
        assert window.current_item_id() == GLOBI_ID
        listening_panel(qtbot, window)  # built while the desk is idle
        services = window.services  # and what the desk started on its threads has come back
        qtbot.waitUntil(lambda: not services.workers.pending and not services.writer.pending)
        modules.recording = True
        with qtbot.waitSignal(window.controller.write_finished, timeout=10_000):
            qtbot.keyClick(window, Qt.Key.Key_A)
        modules.recording = False
    assert window.current_item_id() == BIORXIV_ID
    close_desk(window)
    return modules


def report(modules: Modules) -> str:
    whole = modules.accept | modules.moving_on
    lines = [f"accept: {len(modules.accept)} modules", *sorted(modules.accept)]
    lines += [f"moving on to the next item: {len(modules.moving_on)} modules"]
    lines += sorted(modules.moving_on)
    lines += [f"together: {len(whole)} modules; worker pool: {sorted(modules.background)}"]
    return "\n".join(lines)


def test_accepting_an_item_runs_few_modules(qtbot: Any, tmp_path: Path, data_dir: Path) -> None:
    modules = accept_modules(qtbot, tmp_path, data_dir)
    print(report(modules))
    assert len(modules.accept) <= ACCEPT_MODULES, report(modules)
    # the write itself goes key -> controller -> services -> operation -> store
    assert {
        "bagel_studio.ui.shortcuts",
        "bagel_studio.ui.review_controller",
        "bagel_studio.ui.services",
        "bagel_studio.core.operations.reviews",
    } <= modules.accept
