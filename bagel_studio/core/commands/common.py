"""Helpers shared by the subcommands: opening projects with clear messages, JSON output."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from bagel_studio.core.cli import UsageError
from bagel_studio.core.store import ProjectLockedError, SchemaTooNewError, Store, StoreError

DEFAULT_WAIT = 5.0  # seconds a writing command waits for another writer to close the project


def add_wait_argument(parser: argparse.ArgumentParser) -> None:
    """``--wait SECONDS``: how long a writing command waits for the project's writer lock."""
    parser.add_argument(
        "--wait",
        metavar="SECONDS",
        type=float,
        default=DEFAULT_WAIT,
        help="when another process is writing the project, wait this long for it to finish"
        f" before giving up (default {DEFAULT_WAIT:g}; 0 gives up at once)",
    )


def open_project(
    path: str,
    *,
    create: bool = False,
    read_only: bool = False,
    owner: str = "command line",
    wait: float = 0.0,
    check_pages: bool = True,
) -> Store:
    """Open a project for a command, turning every failure into a one-line UsageError. A
    project an older release wrote is brought up to date before a command reads it, as opening
    it for writing does (a command that only reads would otherwise miss what it reads).

    A file that fails the check on open (``Store.findings``) is refused with what was found
    and how to recover; only a command that reads may go on with one that merely holds objects
    the studio did not create (a warning says which), never with a damaged one.
    ``check_pages=False`` (``Store.open``'s): a command that checks the file in full itself
    (the export) leaves SQLite's quick check of the pages out of the opening."""
    project = Path(path)
    if not create and not project.exists():
        raise UsageError(f"{path}: no such project")
    store = _opened(
        project,
        create=create,
        read_only=read_only,
        owner=owner,
        wait=wait,
        check_pages=check_pages,
    )
    _refuse_damaged(store, read_only=read_only)
    if not read_only or not store.schema_behind():
        return store
    store.close()
    try:
        Store.open(project, create=False, owner=owner, wait=wait).close()
    except (ProjectLockedError, SchemaTooNewError, StoreError, OSError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise UsageError(
            f"{path}: written by an older BAGEL Studio, and could not be brought up to date"
            f" ({reason}); open it once with this version for writing, then try again"
        ) from exc
    store = _opened(
        project, create=False, read_only=True, owner=owner, wait=wait, check_pages=check_pages
    )
    _refuse_damaged(store, read_only=True)
    return store


def _refuse_damaged(store: Store, *, read_only: bool) -> None:
    findings, damage = store.findings, store.damage
    if findings is None or damage is None:
        return
    if read_only and not findings.integrity and not store.schema_behind():
        sys.stderr.write(f"bagel-studio: warning: {damage}\n")
        return
    store.close()
    raise UsageError(damage)


def _opened(project: Path, **options: Any) -> Store:
    """``Store.open`` with its failures as one-line UsageErrors."""
    try:
        return Store.open(project, **options)
    except (ProjectLockedError, SchemaTooNewError, StoreError) as exc:
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        raise UsageError(f"{project}: {exc.strerror or exc}") from exc


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2, sort_keys=False)
    sys.stdout.write("\n")


def print_json_listing(data: dict[str, Any], key: str, rows: Iterable[Any]) -> None:
    """``print_json(data | {key: list(rows)})``, ``key`` last, each of ``rows`` written as it
    is read (one a line), so that a listing of any length is never held whole."""
    head = json.dumps(
        {k: v for k, v in data.items() if k != key} | {key: []},
        ensure_ascii=False,
        indent=2,
    )
    empty = "[]\n}"
    assert head.endswith(empty)
    out = sys.stdout
    out.write(head[: -len(empty)] + "[")
    separator = "\n    "
    for row in rows:
        out.write(separator + json.dumps(row, ensure_ascii=False))
        separator = ",\n    "
    out.write("\n  ]\n}\n" if separator.startswith(",") else "]\n}\n")


def add_workers_argument(parser: argparse.ArgumentParser) -> None:
    """``--workers N``: processes for the checks of a large project (default: every CPU)."""
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        default=os.cpu_count() or 1,
        help="processes that run the checks of a large project (default: one per CPU, "
        f"{os.cpu_count() or 1} here)",
    )


class TerminalProgress:
    """How far a long command has come, on one line of a terminal (stderr), redrawn in place
    at most ten times a second and wiped when the command is done, before it prints anything
    else; nothing at all when stderr is not a terminal, so scripts and logs read as before.
    Called as ``progress(done, total)`` (items, bytes or percent alike); a context manager."""

    WIDTH = 20  # characters of the bar

    def __init__(self, what: str, stream: TextIO | None = None) -> None:
        self.what = what
        self.stream = sys.stderr if stream is None else stream
        try:
            self.live = self.stream.isatty()
        except (AttributeError, ValueError, OSError):
            self.live = False
        self.start = time.monotonic()
        self._drawn = float("-inf")
        self._shown = 0  # characters on the line now

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def __call__(self, done: int, total: int) -> None:
        if not self.live:
            return
        now = time.monotonic()
        if now - self._drawn < 0.1 and done < total:
            return
        self._drawn = now
        share = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
        filled = round(share * self.WIDTH)
        line = f"{self.what} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {share:4.0%}"
        elapsed = now - self.start
        if 0.05 <= share < 1 and elapsed >= 2:
            line += f"  about {elapsed * (1 - share) / share:,.0f} s left"
        self._write("\r" + line.ljust(self._shown))
        self._shown = len(line)

    def stage(self, what: str) -> Callable[[int, int], None]:
        """A ``progress(done, total)`` for the command's next stage, shown on the same line
        under its own name (an import reads its files, then checks their items)."""

        def report(done: int, total: int) -> None:
            if self.what != what:
                self.what, self.start, self._drawn = what, time.monotonic(), float("-inf")
            self(done, total)

        return report

    def close(self) -> None:
        """Wipe the line: what the command prints next starts at its beginning."""
        if self.live and self._shown:
            self._write("\r" + " " * self._shown + "\r")
            self._shown = 0

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: the command goes on
            self.live = False
