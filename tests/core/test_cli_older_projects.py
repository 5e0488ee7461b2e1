"""A command that only reads a project an older release wrote brings it up to date first, as
opening it for writing does, instead of failing on what the older schema lacks."""

from __future__ import annotations

import gzip
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.store.schema import migration_names

KEPT_V2 = Path(__file__).parent / "store" / "data" / "project_v2.bagel.gz"


@pytest.fixture
def old_project(tmp_path: Path) -> Path:
    """A project written by the release that had two migrations."""
    path = tmp_path / "old.bagel"
    with gzip.open(KEPT_V2, "rb") as source, path.open("wb") as out:
        shutil.copyfileobj(source, out)
    return path


def _version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    conn.close()
    return version


def test_exporting_an_older_project_updates_it_then_exports(
    old_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _version(old_project) == 2
    assert run(["export", str(old_project), str(tmp_path / "out"), "--seed", "1"]) == 0
    assert "Released 5 items" in capsys.readouterr().out
    assert _version(old_project) == len(migration_names())
    assert (tmp_path / "out" / "data" / "all.jsonl").read_text(encoding="utf-8").count("\n") == 5


def test_an_older_project_held_by_another_writer_is_a_clear_message(
    old_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another process holds the writer lock (an older release's desk, say): nothing can bring
    the project up to date, and the command says so in one line, changing nothing."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path;"
            "from bagel_studio.core.store.lock import WriterLock;"
            "lock = WriterLock(Path(sys.argv[1]), 'an older desk'); print('held', flush=True);"
            "sys.stdin.read()",
            str(old_project),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        code = run(["stats", str(old_project)])
    finally:
        holder.communicate("")
    err = capsys.readouterr().err
    assert code == 2
    assert "written by an older BAGEL Studio" in err and "an older desk" in err
    assert len(err.strip().splitlines()) == 1
    assert _version(old_project) == 2
