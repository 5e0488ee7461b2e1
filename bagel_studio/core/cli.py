"""The command line: the same core the desk uses, from a terminal.

Every subcommand is one row of ``COMMANDS`` (name -> module under ``bagel_studio.core.commands``
and the one-line help that ``bagel-studio --help`` shows). A module has ``add_parser(subparsers)``
and ``run(args) -> int`` and is imported only when its command runs (or asks for its ``--help``), so
starting any command costs only that command's imports. To add a command, append a row here; a
test checks that the row's help is the help the module registers. Exit status: 0 success, 1 when
some input was rejected or a check failed, 2 for usage errors and unreadable files.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from bagel_studio import __version__


@dataclass(frozen=True)
class Command:
    """One subcommand: the module that implements it and its one-line help."""

    module: str
    help: str


COMMANDS: dict[str, Command] = {
    "import": Command("importing", "import items and evidence (format detected from content)"),
    "stats": Command(
        "stats", "counts per domain, dimension, status and level; rejects; gold positions"
    ),
    "check": Command("check", "recompute the automatic flags and list them"),
    "decide": Command(
        "decide", "record decisions on items (accept, revise, reject, skip, uncertain)"
    ),
    "export": Command("export", "write the adjudicated release (shuffled, balanced, reproducible)"),
    "audio": Command(
        "audio",
        "decode an audio file and print its measurements (clarity, band, call durations)",
    ),
    "merge": Command("merge", "merge other curators' project files into a project"),
    "agreement": Command("agreement", "inter-curator agreement (Cohen's and Fleiss' kappa)"),
    "plan": Command(
        "plan", "plan a review team: who reviews which items, more eyes where the risk is"
    ),
    "hand-out": Command(
        "hand_out", "write one project file per curator of the review plan, with their audio"
    ),
    "collect": Command("collect", "collect the curators' packages back into the project"),
    "evaluate": Command(
        "evaluate", "ask a model every item with the paper's closed-book prompt; store answers"
    ),
    "levels": Command(
        "levels", "reference levels from two models (easy/medium/hard, the paper's Table 3)"
    ),
    "judge": Command(
        "judge", "a model's second opinion on items (a JSON verdict with its reason; never decides)"
    ),
    "regenerate": Command(
        "regenerate", "regenerate items from their evidence with the paper's generation prompts"
    ),
    "batch-export": Command(
        "batch_export", "write the evaluation as an OpenAI Batch API input file (for a cluster)"
    ),
    "batch-import": Command(
        "batch_import", "read a Batch API output file and store its answers as evaluate would"
    ),
    "audit": Command(
        "audit", "find shortcuts: heuristic baselines, near-duplicates, cross-item leaks"
    ),
    "analyze": Command(
        "analyze", "measure every recording of a project on all cores or a Dask cluster"
    ),
    "verify": Command(
        "verify", "check a release against its manifest: file hashes, item copies, shuffles"
    ),
    "repair": Command("repair", "copy what is sound of a damaged project into a new project file"),
}
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


class Terminated(BaseException):
    """SIGTERM arrived: unwinds like Ctrl+C, so open transactions roll back and an export's
    temporary folder is removed, then the command exits with 143 (128 + SIGTERM)."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


@contextlib.contextmanager
def _sigterm_terminates() -> Iterator[None]:
    """Turn SIGTERM into ``Terminated`` while a command runs, then put the previous handler
    back: ``run`` is also called inside other programs (the tests, the desk's caller), whose
    own SIGTERM handling (a timeout's stop, the default exit) must work again once the command
    returns. Only the main thread may set handlers; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        # None: a handler not set from Python, which cannot be put back; the default is.
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def command_module(name: str) -> CommandModule:
    """Import the module of subcommand ``name`` (raises ImportError when it cannot load)."""
    module: CommandModule = importlib.import_module(
        f"bagel_studio.core.commands.{COMMANDS[name].module}"
    )
    return module


def build_parser(load: str | tuple[str, ...] | None = None) -> argparse.ArgumentParser:
    """The parser of ``bagel-studio``, with the full parser of the commands named in ``load``
    (``"*"`` for all of them) and only the name and help of the others."""
    loaded = tuple(COMMANDS) if load == "*" else (load,) if isinstance(load, str) else load or ()
    parser = argparse.ArgumentParser(
        prog="bagel-studio",
        description="Curate the BAGEL benchmark: import, check, review, adjudicate, export.",
        epilog="Desktop app:\n" + APP_COMMANDS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"bagel-studio {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        if name not in loaded:
            subparsers.add_parser(name, help=command.help)
            continue
        try:
            module = command_module(name)
        except ImportError as exc:  # one broken command must not take the others down
            broken = subparsers.add_parser(name, help=f"(unavailable: {exc})")
            broken.set_defaults(unavailable=f"{name} is unavailable: {exc}")
            continue
        module.add_parser(subparsers)
    return parser


def _command_named(argv: list[str]) -> str | None:
    """The subcommand argv names: its first word that is not an option (the top-level parser
    takes no option with a value)."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    return first if first in COMMANDS else None


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``argv`` parsed, with a command's positional words allowed after its options too
    (``judge PROJECT --model M ID...``, ``decide PROJECT --accept ID...``), which plain argparse
    refuses when the words follow an optional list of them."""
    args, extras = parser.parse_known_args(argv)
    name = getattr(args, "command", None)
    if not extras:
        return args
    if name is None:
        return parser.parse_args(argv)  # the usual error
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    subparser: argparse.ArgumentParser = commands[name]
    mixed = subparser.parse_intermixed_args(argv[argv.index(name) + 1 :])
    mixed.command = name
    return mixed


# Commands after which the process may end without tearing the interpreter down
# (``__main__.leave``): everything they write is written and closed when they return (files
# renamed into place, the project committed and closed), and their worker processes die with
# this one (``core.workers.die_with_parent``).
# The commands that ask a model are among them: after a second Ctrl+C or SIGTERM the requests
# cut off are not waited for (``commands.llm_common.RunSignals``).
LEAVE_AT_ONCE = frozenset(
    {"export", "import", "check", "decide", "evaluate", "judge", "regenerate"}
)


def run(argv: list[str], own_process: bool = False) -> int:
    """Run the command line ``argv``; ``own_process``: this process is the command's alone
    (``bagel-studio``, not a caller's), so the command's module is imported with the cyclic
    garbage collector held off, and what the imports made is frozen out of its later passes
    (``gc.freeze``: long-lived objects, never garbage; forked workers then share their pages)."""
    if own_process:
        gc.disable()
    try:
        parser = build_parser(_command_named(argv))  # imports the command's module
        try:
            args = _parse(parser, argv)
        except SystemExit as exc:  # argparse exits 2 on usage errors and 0 after --help
            return int(exc.code or 0)
        if not args.command:
            parser.print_help()
            return 2
        if getattr(args, "unavailable", None):
            print(f"bagel-studio: {args.unavailable}", file=sys.stderr)
            return 2
    finally:
        if own_process:
            gc.freeze()
            gc.enable()
    with _sigterm_terminates():
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int:
    """Run the parsed command, turning what may stop it into its exit status and one line."""
    try:
        return int(command_module(args.command).run(args))
    except Terminated:
        print("terminated", file=sys.stderr)
        return 143
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
    except Exception as exc:
        if _worker_died(exc):
            print(
                f"bagel-studio {args.command}: a worker process ended abruptly (killed, or out"
                " of memory?); the step that failed was undone, everything committed before"
                " it is kept. Run it again, or with --workers 1",
                file=sys.stderr,
            )
            return 1
        if _damaged(exc):
            print(f"bagel-studio {args.command}: {_damage_message(exc)}", file=sys.stderr)
            return 2
        if not _storage_error(exc):
            raise
        print(f"bagel-studio {args.command}: {_storage_message(exc)}", file=sys.stderr)
        return 2


_STORAGE_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EFBIG, errno.EROFS, errno.EIO, errno.EDQUOT, errno.EACCES, errno.EPERM}
)


def _worker_died(exc: BaseException) -> bool:
    """A pool of worker processes broken by one of them ending abruptly (``--workers``)."""
    futures = sys.modules.get("concurrent.futures")
    return futures is not None and isinstance(exc, futures.BrokenExecutor)


def _storage_error(exc: BaseException) -> bool:
    """A write the machine refused (full disk, read-only file or folder, failing storage),
    from the operating system or from SQLite; not a bug, so no traceback."""
    if isinstance(exc, OSError):
        return exc.errno in _STORAGE_ERRNOS
    sqlite3 = sys.modules.get("sqlite3")
    if sqlite3 is None:
        return False
    # OperationalError: disk full, I/O error, read-only; DatabaseError itself: a corrupt file
    return isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError


# SQLite's result codes of storage that refused a read (SQLITE_IOERR_READ, _SHORT_READ), that
# could not open a file (SQLITE_CANTOPEN) or ran out of memory (SQLITE_NOMEM); the others a
# storage error has are writes refused (full, read-only, an I/O error writing or syncing)
_SQLITE_READ_CODES = frozenset({266, 522})
_SQLITE_OTHER_CODES = {14: "could not open", 7: "out of memory"}
_NOT_WRITE_ERRNOS = {
    errno.EIO: "could not read or write",
    errno.EACCES: "no permission (a read-only file or folder?)",
    errno.EPERM: "no permission",
}


def _damaged(exc: BaseException) -> bool:
    """A damaged project file (or one holding what the studio did not create), found while the
    command ran: said as such, never as a storage failure."""
    integrity = sys.modules.get("bagel_studio.core.store.integrity")
    if integrity is None:
        return False
    if isinstance(exc, integrity.DamagedProjectError):
        return True
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in integrity.DAMAGE_CODES


def _damage_message(exc: BaseException) -> str:
    from bagel_studio.core.store.integrity import DamagedProjectError, recovery

    if isinstance(exc, DamagedProjectError):
        return str(exc)
    return f"the project file is damaged ({exc}); {recovery('PROJECT')}"


def _storage_message(exc: BaseException) -> str:
    """A write refused names the storage that refused it (disk full, read-only, failing);
    anything else storage did (a read that failed, a file that cannot be opened: a read-only
    command meets those too) says what it was, without calling it a write."""
    reason = exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)
    where = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
    undone = "the step that failed was undone, everything committed before it is kept"
    code = getattr(exc, "sqlite_errorcode", 0)
    if isinstance(exc, OSError) and exc.errno in _NOT_WRITE_ERRNOS:
        return f"{_NOT_WRITE_ERRNOS[exc.errno]}{where}: {reason}; {undone}"
    if code in _SQLITE_READ_CODES:
        return f"could not read{where}: {reason} (failing storage?); {undone}"
    if code & 0xFF in _SQLITE_OTHER_CODES:
        return f"{_SQLITE_OTHER_CODES[code & 0xFF]}{where}: {reason}; {undone}"
    return f"could not write{where}: {reason} (disk full, read-only or failing storage?); {undone}"
