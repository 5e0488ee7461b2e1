"""The command line: the same core the desk uses, from a terminal.

Each subcommand lives in ``bagel_studio.core.commands.<name>`` with ``add_parser(subparsers)``
and ``run(args) -> int``. Exit status: 0 success, 1 when some input was rejected or a check failed,
2 for usage errors and unreadable files.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Protocol

from bagel_studio import __version__

COMMANDS = (
    "import",
    "stats",
    "check",
    "decide",
    "export",
    "audio",
    "merge",
    "agreement",
    "audit",
)
APP_COMMANDS_HELP = (
    "  open PROJECT     open the desk on a project (the default with no arguments)\n"
    "  demo             build the bundled demo project and open it in the desk\n"
)


class CommandModule(Protocol):
    def add_parser(
        self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]
    ) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


class UsageError(Exception):
    """Bad arguments or unreadable input: exit status 2."""


def _module(name: str) -> CommandModule:
    module_name = "importing" if name == "import" else name
    module: CommandModule = importlib.import_module(f"bagel_studio.core.commands.{module_name}")
    return module


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bagel-studio",
        description="Curate the BAGEL benchmark: import, check, review, adjudicate, export.",
        epilog="Desktop app:\n" + APP_COMMANDS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"bagel-studio {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = _module(name)
        except ImportError as exc:  # one broken command must not take the others down
            broken = subparsers.add_parser(name, help=f"(unavailable: {exc})")
            broken.set_defaults(unavailable=f"{name} is unavailable: {exc}")
            continue
        module.add_parser(subparsers)
    return parser


def run(argv: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors and 0 after --help
        return int(exc.code or 0)
    if not args.command:
        parser.print_help()
        return 2
    if getattr(args, "unavailable", None):
        print(f"bagel-studio: {args.unavailable}", file=sys.stderr)
        return 2
    try:
        return int(_module(args.command).run(args))
    except UsageError as exc:
        print(f"bagel-studio {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``... | head``): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the flush at exit does not fail again
        os.close(devnull)
        return 1
