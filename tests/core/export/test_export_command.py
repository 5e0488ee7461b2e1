"""``bagel-studio export``: exit statuses, output, the exports table, and a kill midway."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.domains import DIMENSIONS, PAPER_DOMAIN_COUNTS
from bagel_studio.core.export import export_release
from bagel_studio.core.model import Flag, Severity
from bagel_studio.core.store import Store
from tests.core.export.export_support import (
    decide_all,
    new_project,
    paper_items,
    read_jsonl,
    synthetic_items,
)

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def paper_project(tmp_path: Path, data_dir: Path) -> Path:
    """A closed project file with the paper's items, all accepted."""
    path = tmp_path / "paper.bagel"
    with new_project(path, paper_items(data_dir)) as store:
        decide_all(store, store.item_ids())
    return path


def _exports(project: Path) -> list[tuple[str, int]]:
    with Store.open(project, read_only=True) as store:
        rows = store.db.execute("SELECT out_dir, seed FROM exports ORDER BY id").fetchall()
    return [(r[0], r[1]) for r in rows]


def test_export_prints_counts_and_balance_and_records_the_export(
    paper_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "release"
    assert run(["export", str(paper_project), str(out), "--seed", "12"]) == 0
    text = capsys.readouterr().out
    assert "Released 17 items (seed 12)" in text
    assert "Wikipedia" in text and "0 -> 2" in text and "8 -> 2" in text
    assert "Left out: none" in text
    assert (out / "manifest.json").is_file()
    assert _exports(paper_project) == [(str(out.absolute()), 12)]


def test_json_summary(
    paper_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "release"
    assert run(["export", str(paper_project), str(out), "--seed", "3", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["exported"] is True
    assert summary["released"]["total"] == 17
    assert summary["left_out"] == {}
    assert summary["balance"]["Wikipedia"]["after"] == {"A": 2, "B": 2, "C": 2, "D": 2}
    assert summary["recorded_in_project"] is True


def test_export_while_the_desk_holds_the_project(
    paper_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(paper_project, owner="desk"):
        out = str(tmp_path / "r")
        assert run(["export", str(paper_project), out, "--seed", "1", "--wait", "0"]) == 0
    assert "Not recorded in the project" in capsys.readouterr().out
    assert (tmp_path / "r" / "data" / "all.jsonl").is_file()
    assert _exports(paper_project) == []


def test_blocked_items_exit_1_and_are_listed(
    paper_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(paper_project) as store:
        store.replace_flags("globi:tree-fungus:0", [Flag("x", Severity.BLOCKING, "Broken gold")])
    out = tmp_path / "release"
    assert run(["export", str(paper_project), str(out), "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert "globi:tree-fungus:0" in err and "Broken gold" in err
    assert not out.exists()


def test_usage_errors_exit_2(
    paper_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["export", str(tmp_path / "missing.bagel"), str(tmp_path / "o"), "--seed", "1"]) == 2
    assert "no such project" in capsys.readouterr().err
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("x", encoding="utf-8")
    assert run(["export", str(paper_project), str(full), "--seed", "1"]) == 2
    assert "--force" in capsys.readouterr().err
    assert run(["export", str(paper_project), str(full), "--seed", "1", "--force"]) == 0
    assert not (full / "keep.txt").exists()
    assert run(["export", str(paper_project), str(tmp_path / "o")]) == 2  # --seed is required


def _big_project(path: Path) -> None:
    """BAGEL's size (11,852 accepted items): long enough to write that a kill lands midway."""
    items = []
    for domain, count in PAPER_DOMAIN_COUNTS.items():
        items += synthetic_items(count, domain, dimension=DIMENSIONS[domain][0])
    with new_project(path, items) as store:
        decide_all(store, store.item_ids())


def _kill_when_writing(project: Path, out: Path, *extra: str) -> Path:
    """Start the export in a process, SIGKILL it once its temporary folder exists; return it."""
    command = [
        sys.executable,
        "-m",
        "bagel_studio",
        "export",
        str(project),
        str(out),
        "--seed",
        "5",
        *extra,
    ]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    temporary: list[Path] = []
    while process.poll() is None and not temporary:
        temporary = list(out.parent.glob(f"{out.name}.tmp-{process.pid}-*"))
        time.sleep(0.001)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, process.stderr.read() if process.stderr else ""
    if process.stderr:
        process.stderr.close()
    assert temporary, "the export finished before it could be killed"
    return temporary[0]


@pytest.mark.slow
def test_killed_export_leaves_no_partial_release(tmp_path: Path) -> None:
    project = tmp_path / "big.bagel"
    _big_project(project)

    out = tmp_path / "release"
    leftover = _kill_when_writing(project, out)
    assert not out.exists()
    assert leftover.is_dir()  # clearly named as temporary, next to where OUTDIR would be

    with Store.open(project, read_only=True) as store:
        export_release(store, out, seed=1)  # the next export cleans up after the killed one
    assert not leftover.exists()
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    leftover = _kill_when_writing(project, out, "--force")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    rows = read_jsonl(out / "data" / "all.jsonl")
    assert len(rows) == sum(PAPER_DOMAIN_COUNTS.values())


def test_nothing_accepted_exits_1(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "fresh.bagel"
    with new_project(project, paper_items(data_dir)):
        pass
    assert run(["export", str(project), str(tmp_path / "out"), "--seed", "1"]) == 1
    assert "nothing to release" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_force_never_replaces_the_folder_holding_the_project(
    paper_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = paper_project.parent
    assert run(["export", str(paper_project), str(folder), "--seed", "1", "--force"]) == 2
    assert "holds the project" in capsys.readouterr().err
    assert paper_project.is_file()
