"""Peak memory of the measured process alone, for the benchmarks.

``ru_maxrss`` does not give it: ``RUSAGE_SELF`` includes the benchmark's own set-up (generating
items, building the project, baselines), ``RUSAGE_CHILDREN`` is the largest of all finished
children, and even one child's own figure (``RUSAGE_SELF`` inside it, or ``wait4``) includes its
parent's peak, which Linux folds in when the child replaces the address space it was forked from
(``exec``). ``VmHWM`` in ``/proc/PID/status`` is the high-water mark of the process's current
address space only: read inside the measured process, after the measured work, it is that work's
peak and nothing else's.

``module_command`` runs a Python module (``bagel_studio``: the command line) in a fresh
interpreter that writes its own ``VmHWM`` into a file as it exits; ``read_peak_mb`` reads it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

_VMHWM = re.compile(r"^VmHWM:\s+(\d+)\s+kB$", re.MULTILINE)

_REPORT_PEAK_AT_EXIT = """
import atexit, re, runpy, sys
peak_file, module = sys.argv.pop(1), sys.argv.pop(1)
def report():
    status = open("/proc/self/status").read()
    with open(peak_file, "w") as out:
        out.write(re.search(r"^VmHWM:\\s+(\\d+)\\s+kB$", status, re.MULTILINE).group(1))
atexit.register(report)
sys.argv[0] = module
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def own_peak_mb() -> float:
    """The peak resident memory of this process's address space so far (VmHWM), in MB."""
    found = _VMHWM.search(Path("/proc/self/status").read_text())
    if found is None:
        raise RuntimeError("VmHWM is not in /proc/self/status (Linux only)")
    return int(found.group(1)) / 1024


def module_command(module: str, args: list[str], peak_file: Path) -> list[str]:
    """``python -m MODULE ARGS`` that writes its own VmHWM (kB) into ``peak_file`` on exit."""
    return [sys.executable, "-c", _REPORT_PEAK_AT_EXIT, str(peak_file), module, *args]


def read_peak_mb(peak_file: Path) -> float:
    """The peak written by a ``module_command`` process, in MB (NaN if it wrote none)."""
    try:
        return int(peak_file.read_text()) / 1024
    except (OSError, ValueError):
        return float("nan")


_PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>


def adopt_orphans() -> None:
    """Make this process the one that orphaned descendants are handed to (Linux): a measured
    command that ends without waiting for its worker processes (``bagel_studio.__main__.leave``;
    they die with it) leaves them to this process, whose ``reap_orphans`` then counts them."""
    import ctypes

    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def reap_orphans() -> tuple[float, float]:
    """Wait for every child left to this process (``adopt_orphans``): their CPU time (user +
    system, s) and the largest of their peak RSS (MB; 0 when there were none)."""
    import os

    cpu, peak = 0.0, 0.0
    while True:
        try:
            _, _, usage = os.wait4(-1, 0)
        except ChildProcessError:
            return cpu, peak
        cpu += usage.ru_utime + usage.ru_stime
        peak = max(peak, usage.ru_maxrss / 1024)
