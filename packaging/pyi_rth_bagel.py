"""PyInstaller runtime hook: runs inside the bundle before the application is imported.

On Linux ``ctypes.util.find_library`` looks only at the system's libraries, so sounddevice would
load the machine's PortAudio (or fail where there is none) instead of the copy in the bundle:
look in the bundle first. numba cannot cache compiled functions beside modules that are frozen
into the archive: give it a cache folder of its own under the user's cache.
"""

import ctypes.util
import glob
import os
import sys

_system_find_library = ctypes.util.find_library


def _find_library(name):
    bundled = sorted(glob.glob(os.path.join(sys._MEIPASS, f"lib{name}.so*")))
    return bundled[0] if bundled else _system_find_library(name)


ctypes.util.find_library = _find_library

if "NUMBA_CACHE_DIR" not in os.environ:
    _cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(_cache, "bagel-studio", "numba")
