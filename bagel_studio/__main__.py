"""The ``bagel-studio`` entry point: the desktop app, or the command line with a subcommand."""

from __future__ import annotations

import atexit
import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if argv is None:  # this process is bagel-studio's alone: numpy is not imported yet
        # numpy's OpenBLAS starts a thread that spins while it waits for work (a 0.2 s sleep
        # cost 0.1 s of CPU), taking a core from the worker processes of the export, the check
        # and the clip analysis, whose work is one thread each; nothing here multiplies
        # matrices large enough to gain from a pool. A value the user set is kept.
        for pool in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(pool, "1")
    if not args or args[0] in ("open", "demo"):
        from bagel_studio.ui.launch import launch

        return launch(args)
    from bagel_studio.core.cli import LEAVE_AT_ONCE, run

    code = run(args, own_process=argv is None)
    if argv is None and args[0] in LEAVE_AT_ONCE:
        leave(code)
    return code


def leave(code: int) -> None:
    """End the process now that the command has finished: its output flushed and the exit
    handlers run (a library's, a caller's; not multiprocessing's, which would wait for worker
    processes that end with this one: ``core.workers.die_with_parent``), but without tearing
    the interpreter down, which frees every object one by one (tens of ms after a large
    release; mypy's command line skips it too). Only for the commands in
    ``cli.LEAVE_AT_ONCE``."""
    processes = sys.modules.get("multiprocessing.util")
    if processes is not None:  # it would wait for worker processes that die with this one
        atexit.unregister(processes._exit_function)
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a reader gone away: nothing more can be said
        pass
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
