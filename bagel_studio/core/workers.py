"""What every worker process of the core does first: the checks' forked ones
(``checks.processes``) and the clip analysis's spawned ones (``audio.batch``)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent(parent: int) -> None:
    """Make this worker die with ``parent``: a killed ``check``, ``import``, ``export`` or
    ``analyze`` must not leave its workers behind (each holds the parent's lookups, and they
    would wait forever on a queue no one feeds), and a command that has finished may leave
    without waiting for them (``cli.LEAVE_AT_ONCE``). On Linux the kernel sends SIGKILL when
    the parent dies; if it died before that was asked for, the worker has been handed to
    another process and ends now. SIGTERM ends the worker too, instead of the parent's handler
    unwinding it. (libc's ``prctl`` is found among the symbols the interpreter already has:
    ``ctypes.util.find_library`` would start ``ldconfig`` in every worker)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)
