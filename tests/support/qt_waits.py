"""pytest-qt's ``qtbot`` with waits that give their condition time on a busy machine.

pytest-qt's waits (``waitUntil``, ``waitSignal``, ``waitExposed``, ...) give up after 5 s unless
told otherwise, and the tests asked for 5-30 s: enough on a quiet machine, not where other jobs
share two cores (a window shown, a merge or a clip measured on a worker took longer there). Every
wait here gives its condition at least ``WAIT_MS``. A wait still returns as soon as its condition
holds, so a passing test is no slower; only a failing one takes longer to say so.
"""

from __future__ import annotations

from typing import Any

from pytestqt.qtbot import QtBot

WAIT_MS = 60_000


def _patient(timeout: int | None) -> int | None:
    if timeout is None or timeout <= 0:  # no limit: left as it is
        return timeout
    return max(timeout, WAIT_MS)


class PatientQtBot(QtBot):
    """``QtBot`` whose waits last at least ``WAIT_MS`` before they fail (the pep-8 aliases,
    ``wait_until`` and so on, are bound to these in ``QtBot.__init__``)."""

    def waitUntil(self, callback: Any, *, timeout: int = WAIT_MS) -> None:
        return super().waitUntil(callback, timeout=_patient(timeout))

    def waitSignal(self, signal: Any, *, timeout: int = WAIT_MS, **kwargs: Any) -> Any:
        return super().waitSignal(signal, timeout=_patient(timeout), **kwargs)

    def waitSignals(self, signals: Any, *, timeout: int = WAIT_MS, **kwargs: Any) -> Any:
        return super().waitSignals(signals, timeout=_patient(timeout), **kwargs)

    def waitExposed(self, widget: Any, *, timeout: int = WAIT_MS) -> Any:
        return super().waitExposed(widget, timeout=_patient(timeout))

    def waitActive(self, widget: Any, *, timeout: int = WAIT_MS) -> Any:
        return super().waitActive(widget, timeout=_patient(timeout))

    def waitCallback(self, *, timeout: int = WAIT_MS, **kwargs: Any) -> Any:
        return super().waitCallback(timeout=_patient(timeout), **kwargs)
