"""``cli.run`` turns SIGTERM into a clean stop while its command runs, and gives the process its
own SIGTERM handling back afterwards: the tests run commands in-process, and a timeout's SIGTERM
must still stop the suite after them."""

from __future__ import annotations

import argparse
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import pytest

from bagel_studio.core import cli
from bagel_studio.core.commands import stats

Handler = Callable[[int, FrameType | None], object]


class Received(Exception):
    """Raised by the test's own SIGTERM handler, so a signal reaching it is seen at once."""


def _mine(signum: int, frame: FrameType | None) -> None:
    raise Received


@pytest.fixture
def own_handler() -> Iterator[Handler]:
    """A SIGTERM handler of the calling program's own, put back as it was after the test."""
    before = signal.signal(signal.SIGTERM, _mine)
    try:
        yield _mine
    finally:
        signal.signal(signal.SIGTERM, before)


def _stats_runs(monkeypatch: pytest.MonkeyPatch, body: Callable[[], int]) -> list[object]:
    """Make ``stats`` run ``body``; returns the SIGTERM handlers seen while it ran."""
    seen: list[object] = []

    def fake(args: argparse.Namespace) -> int:
        seen.append(signal.getsignal(signal.SIGTERM))
        return body()

    monkeypatch.setattr(stats, "run", fake)
    return seen


def _raise(exc: BaseException) -> Callable[[], int]:
    def body() -> int:
        raise exc

    return body


def _sigterm_to_self() -> int:
    os.kill(os.getpid(), signal.SIGTERM)
    return 0  # not reached: the handler raises at once


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (lambda: 0, 0),
        (_raise(cli.UsageError("no such project")), 2),
        (_raise(KeyboardInterrupt()), 130),
        (_sigterm_to_self, 143),
    ],
    ids=["returns", "usage-error", "ctrl-c", "sigterm"],
)
def test_the_previous_sigterm_handler_is_back_after_a_command(
    body: Callable[[], int],
    status: int,
    own_handler: Handler,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen = _stats_runs(monkeypatch, body)
    assert cli.run(["stats", str(tmp_path / "p.bagel")]) == status
    assert seen == [cli._terminate]  # while the command ran, SIGTERM stopped it cleanly
    assert signal.getsignal(signal.SIGTERM) is own_handler
    with pytest.raises(Received):  # and a SIGTERM now reaches the program's handler
        os.kill(os.getpid(), signal.SIGTERM)
    assert ("terminated" in capsys.readouterr().err) == (status == 143)


def test_the_previous_handler_is_back_after_a_command_that_fails(
    own_handler: Handler, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen = _stats_runs(monkeypatch, _raise(RuntimeError("a bug")))
    with pytest.raises(RuntimeError, match="a bug"):
        cli.run(["stats", str(tmp_path / "p.bagel")])
    assert seen == [cli._terminate]
    assert signal.getsignal(signal.SIGTERM) is own_handler


def test_the_default_handler_is_back_after_a_real_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        assert cli.run(["stats", str(tmp_path / "nope.bagel")]) == 2
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGTERM, before)
    assert "no such project" in capsys.readouterr().err
