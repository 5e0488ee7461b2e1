"""Starting the desk: ``bagel-studio`` (most recent project or the start screen),
``bagel-studio open PROJECT`` and ``bagel-studio demo``. Returns the Qt loop's exit code."""

from __future__ import annotations

import sys
from pathlib import Path

USAGE = """\
usage: bagel-studio                 open the most recent project (or the start screen)
       bagel-studio open PROJECT    open PROJECT (asks before creating a missing one)
       bagel-studio demo            build the demo project from resources/demo and open it
       bagel-studio COMMAND ...     the command line (bagel-studio --help for its commands)

Testing hooks (environment): BAGEL_STUDIO_TEST_SCRIPT, BAGEL_STUDIO_SCREENSHOT,
BAGEL_STUDIO_WINDOW_SIZE (see bagel_studio/ui/testing_hooks.py).
"""


def launch(args: list[str]) -> int:
    if any(a in ("-h", "--help") for a in args):
        sys.stdout.write(USAGE)
        return 0
    if args and args[0] == "open" and len(args) != 2:
        sys.stderr.write("bagel-studio open: give exactly one project path\n" + USAGE)
        return 2
    if args and args[0] not in ("open", "demo"):
        sys.stderr.write(USAGE)
        return 2
    demo_path: Path | None = None
    if args and args[0] == "demo":
        demo_path = _build_demo()
        if demo_path is None:
            return 2

    from bagel_studio.ui import testing_hooks
    from bagel_studio.ui.app import DeskApp

    desk = DeskApp()
    if demo_path is not None:
        opened = desk.open(demo_path, create=False)
    elif args:
        opened = _open_path(desk, Path(args[1]).expanduser())
    else:
        opened = _open_recent(desk)
    if not opened and desk.start_screen is None:
        return 1
    hooks = testing_hooks.install(desk.window) if desk.window is not None else None
    code = desk.exec()
    del hooks  # kept alive for the whole event loop
    return code


def _build_demo() -> Path | None:
    try:
        from bagel_studio.core.demo import build_demo_project
    except ImportError as exc:
        sys.stderr.write(f"bagel-studio demo: the demo builder is not available ({exc})\n")
        return None
    try:
        return Path(build_demo_project())
    except Exception as exc:
        sys.stderr.write(f"bagel-studio demo: could not build the demo project: {exc}\n")
        return None


def _open_path(desk: object, path: Path) -> bool:
    from bagel_studio.ui.app import DeskApp
    from bagel_studio.ui.plain import plain_question

    assert isinstance(desk, DeskApp)
    if path.exists():
        return desk.open(path, create=False)
    if not plain_question(
        None, "Create project?", f"{path} does not exist.\n\nCreate a new, empty project there?"
    ):
        return False
    return desk.open(path, create=True)


def _open_recent(desk: object) -> bool:
    from bagel_studio.ui.app import DeskApp

    assert isinstance(desk, DeskApp)
    for recent in desk.prefs.recent_projects:
        if Path(recent).exists() and desk.open(Path(recent), create=False):
            return True
    desk.show_start()
    return False
