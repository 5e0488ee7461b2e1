"""Every command has help; stats and decide behave as documented."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bagel_studio.core.cli import COMMANDS, build_parser, run
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"usage: bagel-studio {command}" in out
    assert len(out.splitlines()) > 3


def test_top_level_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--help"]) == 0
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert command in out


def _subcommand_parsers(parser: argparse.ArgumentParser) -> dict[str, str]:
    """{command name: its one-line help} as the parser's subcommand action holds them."""
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: str(choice.help) for choice in action._choices_actions}


def test_the_table_help_is_the_help_each_module_registers() -> None:
    """``bagel-studio --help`` shows the table's line without importing the module: it must be
    the line the module itself registers, so the two never drift apart."""
    lazy = _subcommand_parsers(build_parser())
    loaded = _subcommand_parsers(build_parser("*"))
    assert lazy == {name: command.help for name, command in COMMANDS.items()}
    assert loaded == lazy


def _modules_after(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter has imported after ``bagel-studio ARGV``."""
    code = (
        "import sys; from bagel_studio.core.cli import run; run(sys.argv[1:]);"
        "print(' '.join(sys.modules), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True
    )
    return set(done.stderr.strip().splitlines()[-1].split())


def _commands_imported(argv: list[str]) -> list[str]:
    prefix = "bagel_studio.core.commands."
    return sorted(
        m for m in _modules_after(argv) if m.startswith(prefix) and m != prefix + "common"
    )


def test_help_imports_no_command_and_a_command_imports_only_itself() -> None:
    assert _commands_imported(["--help"]) == []
    assert _commands_imported(["--version"]) == []
    assert _commands_imported(["stats", "--help"]) == ["bagel_studio.core.commands.stats"]
    assert "bagel_studio.core.checks" not in _modules_after(["stats", "--help"])


def test_unknown_command_and_missing_project_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["frobnicate"]) == 2
    assert run(["stats", str(tmp_path / "nope.bagel")]) == 2
    assert "no such project" in capsys.readouterr().err


def make_project(path: Path) -> None:
    items = [
        NewItem(
            id=f"w{i}",
            domain="Wikipedia",
            content=ItemContent(f"Q{i}?", ("a", "b", "c", "d"), i % 4, "Diet", "easy"),
        )
        for i in range(6)
    ] + [
        NewItem(
            id="g0",
            domain="GloBI",
            content=ItemContent("G?", ("a", "b", "c"), 1, "Masked participant identification"),
        )
    ]
    with Store.open(path) as store:
        store.items.add_items(items, None)
        from bagel_studio.core.checks import check_all

        check_all(store)


def test_stats_json(project_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_project(project_path)
    assert run(["stats", str(project_path), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["items"] == 7
    assert stats["by_domain"] == {"Wikipedia": 6, "GloBI": 1}
    assert stats["rejected"] == 0
    assert stats["gold_positions"]["Wikipedia"] == {"A": 2, "B": 2, "C": 1, "D": 1}
    assert stats["gold_positions"]["GloBI"] == {"A": 0, "B": 1, "C": 0, "D": 0}
    assert stats["flags"] == {"option-count": 1}


def test_decide_accepts_rejects_and_refuses_blocked(
    project_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(project_path)
    assert run(["decide", str(project_path), "w0", "w1", "--curator", "ana", "--accept"]) == 0
    assert (
        run(
            [
                "decide",
                str(project_path),
                "w2",
                "--curator",
                "ana",
                "--reject",
                "trivial",
                "--note",
                "too easy",
            ]
        )
        == 0
    )
    assert run(["decide", str(project_path), "g0", "--curator", "ana", "--accept"]) == 1
    assert "cannot be accepted" in capsys.readouterr().err
    assert run(["decide", str(project_path), "w3", "--curator", "ana", "--reject", "nonsense"]) == 2
    with Store.open(project_path, read_only=True) as store:
        decisions = {r.item_id: (r.decision.value, r.reason, r.note) for r in store.reviews.all()}
        assert decisions == {
            "w0": ("accept", None, None),
            "w1": ("accept", None, None),
            "w2": ("reject", "trivial", "too easy"),
        }
        assert len(store.history.of_item("w2")) == 1


@pytest.mark.parametrize(
    "command",
    [["stats"], ["check"], ["agreement"], ["export", "OUT", "--seed", "1"], ["decide", "x"]],
)
def test_a_folder_given_as_the_project_is_a_usage_error(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "not-a-project"
    folder.mkdir()
    args = [a.replace("OUT", str(tmp_path / "out")) for a in command[1:]]
    extra = ["--curator", "ana", "--accept"] if command[0] == "decide" else []
    assert run([command[0], str(folder), *args, *extra]) == 2
    err = capsys.readouterr().err
    assert "not-a-project" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_output_cut_short_by_a_closed_pipe_is_no_traceback(project_path: Path) -> None:
    """``bagel-studio check P --json | head`` : the reader goes away; no traceback on stderr."""
    items = [
        NewItem(
            id=f"x{i}",
            domain="Wikipedia",
            content=ItemContent(f"Q{i}?", ("a", "b", "c"), 0, "Diet"),
        )
        for i in range(1500)
    ]
    with Store.open(project_path) as store:
        store.items.add_items(items, None)
    process = subprocess.Popen(
        [sys.executable, "-m", "bagel_studio", "check", str(project_path), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()  # far more than a pipe holds is still to come
    process.stdout.close()
    err = process.stderr.read().decode()
    process.stderr.close()
    process.wait()
    assert "Traceback" not in err


def test_the_entry_point_keeps_numpy_from_starting_a_spinning_thread_pool() -> None:
    """``bagel-studio`` asks OpenBLAS (and OpenMP, MKL) for one thread before numpy is imported:
    a pool's idle thread spins and takes a core from the worker processes; a value the user set
    is kept."""
    import os
    import subprocess
    import sys

    code = (
        "import os, sys; sys.argv[1:] = ['--version']; import bagel_studio.__main__ as m;"
        " code = m.main(); import numpy; from pathlib import Path;"
        " print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'],"
        " len(list(Path('/proc/self/task').iterdir())))"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.split()[-3:] == ["1", "1", "1"], done.stderr
    env["OPENBLAS_NUM_THREADS"] = "3"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.split()[-3:-1] == ["3", "1"], done.stderr
