"""The tests' ``qtbot`` gives every wait at least a minute, and keeps longer and unlimited ones."""

from __future__ import annotations

from tests.support.qt_waits import WAIT_MS, PatientQtBot, _patient


def test_short_waits_are_lengthened_and_the_rest_kept() -> None:
    assert _patient(5_000) == _patient(30_000) == WAIT_MS == 60_000
    assert _patient(120_000) == 120_000
    assert _patient(None) is None and _patient(0) == 0


def test_the_qtbot_fixture_is_the_patient_one(qtbot: PatientQtBot) -> None:
    assert isinstance(qtbot, PatientQtBot)
    assert qtbot.wait_until.__func__ is PatientQtBot.waitUntil  # the pep-8 alias too
    qtbot.waitUntil(lambda: True)
