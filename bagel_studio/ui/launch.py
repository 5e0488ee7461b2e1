"""Starting the desk: ``bagel-studio`` (most recent project or the start screen),
``bagel-studio open PROJECT`` and ``bagel-studio demo``. Returns the Qt loop's exit code.

``open --help`` and ``demo --help`` print their own usage. Without a visible screen (see
``headless.py``) the desk takes the curator's name from ``--curator``, ``BAGEL_STUDIO_CURATOR``,
the preferences or the OS user name instead of asking, and says how to see it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

USAGE = """\
usage: bagel-studio                 open the most recent project (or the start screen)
       bagel-studio open PROJECT    open PROJECT (asks before creating a missing one)
       bagel-studio demo            build the demo project (once) and open it
       bagel-studio COMMAND ...     the command line (bagel-studio --help for its commands)

bagel-studio open --help and bagel-studio demo --help explain each.
"""
CURATOR_HELP = (
    "the name recorded with your decisions (default: the one you gave before; without a visible "
    "screen, $BAGEL_STUDIO_CURATOR or your OS user name instead of asking)"
)
HEADLESS_EPILOG = (
    "Without a visible screen (bash packaging/bagel.sh demo on a server starts the desk on a "
    "virtual X screen and sets BAGEL_STUDIO_HEADLESS=1) the desk prints how to attach a VNC "
    "viewer and writes a screenshot every few seconds to a path it prints "
    "($BAGEL_STUDIO_HEADLESS_SCREENSHOT to choose it). Ctrl+C quits."
)


def _parser(command: str) -> argparse.ArgumentParser:
    if command == "open":
        parser = argparse.ArgumentParser(
            prog="bagel-studio open",
            description="Open the review desk on PROJECT (a .bagel file). A missing file is "
            "created after you confirm; a project another desk has open is offered read-only.",
            epilog=HEADLESS_EPILOG,
        )
        parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    else:
        from bagel_studio.core.demo import default_demo_path

        parser = argparse.ArgumentParser(
            prog="bagel-studio demo",
            description="Build the demo project from the bundled resources (real GloBI rows, "
            "Wikipedia and bioRxiv texts, Xeno-canto clips, and items over them, some with "
            f"problems to find) in your own data folder, {default_demo_path()}, once; then "
            "open it in the desk. Your decisions in it are kept between runs.",
            epilog=HEADLESS_EPILOG,
        )
        parser.add_argument(
            "--rebuild", action="store_true", help="build the demo afresh (drops your decisions)"
        )
    parser.add_argument("--curator", metavar="NAME", help=CURATOR_HELP)
    return parser


def launch(args: list[str]) -> int:
    """Ctrl+C while the demo is built or the desk opens ends it with a line, not a traceback
    (the demo is built aside and renamed when whole: nothing half-built is left to open). Once
    the desk runs, Ctrl+C closes it (``headless.HeadlessWatcher``)."""
    try:
        return _launch(args)
    except KeyboardInterrupt:
        sys.stderr.write("bagel-studio: interrupted before the desk was open\n")
        return 130


def _launch(args: list[str]) -> int:
    command = args[0] if args else None
    if command in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if command not in (None, "open", "demo"):
        sys.stderr.write(USAGE)
        return 2
    if command is None:
        options = argparse.Namespace(project=None, curator=None, rebuild=False)
    else:
        parser = _parser(command)
        try:
            options = parser.parse_args(args[1:])
        except SystemExit as exit_:  # --help (0) or a usage error (2, already explained)
            return int(exit_.code or 0)
    demo_path: Path | None = None
    if command == "demo":
        demo_path = _build_demo(rebuild=bool(options.rebuild))
        if demo_path is None:
            return 2
    return _run_desk(command, options, demo_path)


def _run_desk(command: str | None, options: argparse.Namespace, demo_path: Path | None) -> int:
    from bagel_studio.core.store import StoreError
    from bagel_studio.ui import headless, testing_hooks
    from bagel_studio.ui.app import DeskApp

    try:  # a name the desk would refuse in its dialog is refused from outside too
        headless.curator_from_outside(options.curator)
    except StoreError as exc:
        where = "--curator" if options.curator else headless.CURATOR_ENV
        sys.stderr.write(f"bagel-studio: {where}: {exc}\n")
        return 2

    desk = DeskApp()
    desk.headless = headless.is_headless()
    if desk.headless and (refused := headless.refused_kept_name(desk.prefs, options.curator)):
        sys.stderr.write(f"bagel-studio: {refused}\n")  # no one could answer the dialog
        return 2
    watcher = _prepare_headless(desk, options.curator)
    if demo_path is not None:
        opened = desk.open(demo_path, create=False)
    elif command == "open":
        opened = _open_path(desk, Path(options.project).expanduser())
    else:
        opened = _open_recent(desk)
    if not opened and desk.start_screen is None:
        return 2 if desk.failed is not None else 1  # 2: the project could not be opened
    hooks = testing_hooks.install(desk.window) if desk.window is not None else None
    code = desk.exec()
    del hooks, watcher  # kept alive for the whole event loop
    return code


def _prepare_headless(desk: object, given_curator: str | None) -> object:
    """The curator's name without a dialog where none can be seen; the how-to-see notice and the
    screenshot writer. Returns the watcher (None with a visible screen)."""
    import os

    from bagel_studio.core.prefs import data_dir
    from bagel_studio.ui import headless
    from bagel_studio.ui.app import DeskApp

    assert isinstance(desk, DeskApp)
    outside = headless.curator_from_outside(given_curator)
    if outside is not None:
        desk.prefs.curator = outside[0]
    if not headless.is_headless():
        return None
    if not desk.prefs.curator:
        desk.prefs.curator = headless.os_user_name()
        source = "your OS user name"
    else:
        source = outside[1] if outside is not None else "your preferences"
    screenshot = Path(
        os.environ.get(headless.SCREENSHOT_ENV) or data_dir() / "headless-desk.png"
    ).expanduser()
    headless.announce(
        headless.how_to_see(os.environ.get("DISPLAY"), screenshot)
        + f"  Reviewing as {desk.prefs.curator!r} (from {source}; --curator NAME to change).\n"
    )
    return headless.HeadlessWatcher(lambda: desk.window, screenshot)


def _build_demo(*, rebuild: bool = False) -> Path | None:
    try:
        from bagel_studio.core.demo import build_demo_project, default_demo_path
    except ImportError as exc:
        sys.stderr.write(f"bagel-studio demo: the demo builder is not available ({exc})\n")
        return None
    target = default_demo_path()
    if rebuild or not target.exists():
        sys.stdout.write(f"bagel-studio demo: building the demo project (once) in {target}…\n")
        sys.stdout.flush()
    try:
        path = Path(build_demo_project(rebuild=rebuild))
        sys.stdout.write(f"bagel-studio demo: opening {path}\n")
        sys.stdout.flush()
        return path
    except Exception as exc:
        sys.stderr.write(f"bagel-studio demo: could not build the demo project: {exc}\n")
        return None


def _open_path(desk: object, path: Path) -> bool:
    from bagel_studio.ui.app import DeskApp
    from bagel_studio.ui.headless import is_headless
    from bagel_studio.ui.plain import plain_question

    assert isinstance(desk, DeskApp)
    if path.exists():
        return desk.open(path, create=False)
    if is_headless():  # nobody could answer the question below
        sys.stderr.write(f"bagel-studio open: {path} does not exist (create it with import)\n")
        return False
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
