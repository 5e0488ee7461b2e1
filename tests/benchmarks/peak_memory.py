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
