"""The ``bagel-studio`` entry point: the desktop app, or the command line with a subcommand."""

from __future__ import annotations

import atexit
import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("open", "demo"):
        from bagel_studio.ui.launch import launch

        return launch(args)
    from bagel_studio.core.cli import LEAVE_AT_ONCE, run

    code = run(args, own_process=argv is None)
    if argv is None and args[0] in LEAVE_AT_ONCE:
        leave(code)
    return code


def leave(code: int) -> None:
    """End the process now that the command has finished: its output flushed and every exit
    handler run (a library's, a caller's), but without tearing the interpreter down, which
    frees every object one by one (tens of ms after a large release; mypy's command line skips
    it too). Only for the commands in ``cli.LEAVE_AT_ONCE``."""
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a reader gone away: nothing more can be said
        pass
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
