"""Helpers shared by the subcommands: opening projects with clear messages, JSON output."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

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
) -> Store:
    """Open a project for a command, turning every failure into a one-line UsageError."""
    project = Path(path)
    if not create and not project.exists():
        raise UsageError(f"{path}: no such project")
    try:
        return Store.open(project, create=create, read_only=read_only, owner=owner, wait=wait)
    except (ProjectLockedError, SchemaTooNewError, StoreError) as exc:
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from exc


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2, sort_keys=False)
    sys.stdout.write("\n")
