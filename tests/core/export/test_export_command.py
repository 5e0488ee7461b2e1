"""``bagel-studio export``: exit statuses, output, the exports table, and a kill midway."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.export import export_release
from bagel_studio.core.model import Flag, Severity
from bagel_studio.core.store import Store
from tests.core.export.export_support import (
    interrupt_export,
    new_project,
    paper_items,
    read_jsonl,
)


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
        store.flags.replace_flags(
            "globi:tree-fungus:0", [Flag("x", Severity.BLOCKING, "Broken gold")]
        )
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


def test_killed_export_leaves_no_partial_release(paper_project: Path, tmp_path: Path) -> None:
    out = tmp_path / "release"
    process, leftover = interrupt_export(paper_project, out, signal.SIGKILL)
    assert process.returncode == -signal.SIGKILL
    assert not out.exists()
    assert leftover.is_dir()  # clearly named as temporary, next to where OUTDIR would be

    with Store.open(paper_project, read_only=True) as store:
        export_release(store, out, seed=1)  # the next export cleans up after the killed one
    assert not leftover.exists()
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    process, leftover = interrupt_export(paper_project, out, signal.SIGKILL, "--force")
    assert process.returncode == -signal.SIGKILL and leftover.is_dir()
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    rows = read_jsonl(out / "data" / "all.jsonl")
    assert len(rows) == 17


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


def test_the_command_leaves_at_once_with_its_output_and_no_worker_behind(
    paper_project: Path, tmp_path: Path
) -> None:
    """``bagel-studio export`` ends without tearing the interpreter down (``__main__.leave``):
    all it printed arrives, its exit status too, and nothing it started outlives it."""
    import os
    import subprocess
    import sys
    import time
    import uuid

    marker = uuid.uuid4().hex
    code = (
        "import sys; from bagel_studio.__main__ import main; sys.argv[1:] = sys.argv[2:];"
        " sys.exit(main())"
    )
    out = tmp_path / "release"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "-",
            "export",
            str(paper_project),
            str(out),
            "--seed",
            "3",
            "--workers",
            "2",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "BAGEL_TEST_MARKER": marker},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Released 17 items (seed 3)" in done.stdout and done.stdout.endswith("\n")
    assert "Traceback" not in done.stderr
    assert (out / "manifest.json").is_file()

    def marked() -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
        return found

    deadline = time.monotonic() + 10
    while marked() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marked() == []
