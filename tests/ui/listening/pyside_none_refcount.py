"""Stop-gap for a PySide6 6.12.0 bug on CPython 3.11: every call of a void Qt method (``update()``,
``setText()``, ``setInterval()``, each paint) drops one reference to ``None``, and some overridden
virtuals drop references to ``True``/``False``. CPython 3.11 starts with about 5,000 references to
``None``, so a few seconds of repainting abort the interpreter with "Fatal Python error:
none_dealloc" (or "bool_dealloc"). From 3.12 on these objects are immortal and the bug is
harmless.

The real fix belongs to the project (run on Python >= 3.12, or pin a PySide6 without the bug, or
apply this at application start-up); until then the listening tests and benchmark give these
singletons enough references to outlive any session.
"""

from __future__ import annotations

import ctypes
import sys

_HEADROOM = 1 << 40


def immortalise_none() -> None:
    """Add 2**40 references to None, True and False (a refcount is an object's first field)."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    for singleton in (None, True, False):
        refcount = ctypes.c_ssize_t.from_address(id(singleton))
        if refcount.value < _HEADROOM:
            refcount.value += _HEADROOM
