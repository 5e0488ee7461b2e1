"""Deferred imports are safe from several threads at once (the desk analyses clips on two)."""

from __future__ import annotations

import subprocess
import sys


def _first_uses_at_once(names: list[str], use: str) -> None:
    """Each of ``names`` used (``use``, a statement on ``module``) by its own thread, all at
    once, in a fresh interpreter each time (the race is at the very first use): no thread may
    fail. A name given twice is one deferred module used by two threads."""
    code = (
        "import threading\n"
        "from bagel_studio.core.lazy import lazy_import\n"
        f"names = {names!r}\n"
        "deferred = {name: lazy_import(name) for name in names}\n"
        "errors = []\n"
        "barrier = threading.Barrier(len(names))\n"
        "def run(module):\n"
        "    barrier.wait()\n"
        "    try:\n"
        f"        {use}\n"
        "    except Exception as exc:\n"
        "        errors.append(repr(exc))\n"
        "threads = [threading.Thread(target=run, args=(deferred[n],)) for n in names]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "print(errors)\n"
        "raise SystemExit(1 if errors else 0)\n"
    )
    for _ in range(3):
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_first_use_from_many_threads_sees_a_whole_module() -> None:
    _first_uses_at_once(["scipy.signal"] * 8, "module.get_window('hann', 16)")


def test_first_uses_of_several_modules_at_once_see_whole_modules() -> None:
    # scipy.signal and scipy.ndimage import parts of each other: imported by two threads at once
    # with nothing between them, one saw a half-initialised scipy (the desk's measurement and its
    # BirdNET line both failed with "Module 'scipy' has no attribute '_lib'")
    names = ["scipy.signal", "scipy.ndimage", "scipy.special", "scipy.fft"]
    _first_uses_at_once(names, "dir(module.load())")


def test_nothing_is_imported_before_first_use() -> None:
    code = (
        "import sys\n"
        "from bagel_studio.core.audio import dsp\n"
        "print('scipy.signal' in sys.modules)\n"
        "dsp.resample(__import__('numpy').zeros(480, dtype='float32'), 48000, 16000)\n"
        "print('scipy.signal' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.stdout.split() == ["False", "True"], result.stderr
