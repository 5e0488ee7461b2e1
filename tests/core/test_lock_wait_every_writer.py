"""Every command that may write a project waits for another writer (``--wait SECONDS``), the model
commands and the audit included; the commands that only read never need to.

Before, ``evaluate``, ``levels --apply``, ``judge``, ``regenerate``, ``batch-export``,
``batch-import`` and ``audit`` gave up at once when the desk or another command had the project
open, so scripts had to retry them by hand. The list of commands comes from the CLI's own registry,
so a command added later is covered.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core.cli import COMMANDS, run
from bagel_studio.core.store import Store
from tests.support.lock_holder import held, waits_then_runs

# never open a project for writing (repair reads PROJECT only, and writes NEWFILE, a file no one
# else has open; hand-out reads it through a copy, so it works while the desk writes)
READ_ONLY = {"stats", "agreement", "audio", "verify", "repair", "hand-out"}


def make_project(path: Path) -> None:
    """Two items that say the same thing (the audit flags them near-duplicate) and a third."""
    stems = [
        "Which habitat does the spotted marsh frog prefer during the breeding season each year?",
        "Which habitat does the spotted marsh frog prefer during the breeding season every year?",
        "What does the barn owl eat most often in farmland across its European range?",
    ]
    items = path.with_suffix(".jsonl")
    items.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"w{i}",
                    "domain": "Wikipedia",
                    "dimension": "Habitat",
                    "question": stem,
                    "options": ["Shallow ponds", "Dry scrub", "Open sea", "Alpine scree"],
                    "answer": "A",
                }
            )
            + "\n"
            for i, stem in enumerate(stems)
        ),
        encoding="utf-8",
    )
    assert run(["import", str(path), str(items)]) == 0


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - READ_ONLY))
def test_every_command_that_writes_takes_wait(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([command, "--help"]) == 0
    assert "--wait SECONDS" in capsys.readouterr().out


def test_audit_waits_for_the_writer_then_sets_its_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "p.bagel"
    make_project(project)
    status = waits_then_runs(project, lambda: run(["audit", str(project)]))  # default --wait 5
    assert status == 0, capsys.readouterr().err
    with Store.open(project, read_only=True) as store:
        assert store.flags.counts().get("near-duplicate") == 2


def test_audit_gives_up_after_wait_naming_the_owner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "p.bagel"
    make_project(project)
    with held(project):
        status = run(["audit", str(project), "--wait", "0.5"])
        read = run(["stats", str(project)])  # a reader is never kept out
    assert status == 2
    assert read == 0
    err = capsys.readouterr().err
    assert "already open for writing by alice" in err and "waited 0.5 s" in err
