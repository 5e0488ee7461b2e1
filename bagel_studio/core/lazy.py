"""Deferred imports of heavy modules (scipy.signal alone takes ~0.5 s to import), so that the
desk starts fast and pays for signal processing only when a clip is first analysed.

Not ``importlib.util.LazyLoader``: on Python 3.11 two threads touching a lazily loaded module at
once can see it half-initialised (the desk analyses clips on two worker threads). Here the first
use imports the module through the ordinary import machinery under one lock shared by every
deferred module: two threads importing two of scipy's subpackages at once (``scipy.signal`` and
``scipy.ndimage``, which import each other's parts) make Python's import locks break the cycle by
handing one of them a half-initialised ``scipy`` ("Module 'scipy' has no attribute '_lib'").
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

_IMPORTING = threading.Lock()  # one deferred import at a time, whichever module it is


class LazyModule:
    """Stands for module ``name`` and imports it on first attribute access."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def load(self) -> ModuleType:
        """The module, imported now if it was not yet (to pay its import ahead of first use)."""
        return self._module or self._load()

    def _load(self) -> ModuleType:
        with _IMPORTING:
            if self._module is None:
                self._module = importlib.import_module(self._name)
            return self._module

    def __getattr__(self, attribute: str) -> Any:
        module = self._module or self._load()
        return getattr(module, attribute)

    def __repr__(self) -> str:
        state = "loaded" if self._module is not None else "not loaded yet"
        return f"<lazy module {self._name!r}, {state}>"


def lazy_import(name: str) -> Any:
    """``name`` as an object whose attributes come from the module, imported on first use."""
    return LazyModule(name)


def package_names(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A package's module ``__getattr__`` (PEP 562): a name of ``homes`` is imported from its
    module when first asked for and kept in the package's ``namespace`` (later lookups find it
    without this function); any other name is tried as a submodule (``audio.dsp``)."""

    def getattr_(name: str) -> Any:
        home = homes.get(name)
        if home is not None:
            value = getattr(importlib.import_module(f"{package}.{home}"), name)
            namespace[name] = value
            return value
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return getattr_
