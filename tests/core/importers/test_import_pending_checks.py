"""An import killed while checking: the project knows which items still await their checks and
finishes them on the next import, check or open, saying so (real processes, real SIGKILL)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store
from tests.support.kill_items import count_rows, items_file, kill, stopped_import

ROOT = Path(__file__).resolve().parents[3]
ITEMS = 12_000  # BAGEL's size


def _warnings(project: Path) -> set[tuple[str, str]]:
    conn = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT item_id, check_id FROM flags").fetchall()
    finally:
        conn.close()
    return {(r[0], r[1]) for r in rows}


def _kill_import(project: Path, items: Path, when: str, delay: float = 0.0) -> None:
    """Start ``bagel-studio import`` in a process and SIGKILL it: ``when`` = "checking" as the
    checks of its committed items begin (it stops there and says so), or "at" after ``delay``
    seconds, wherever it is."""
    if when == "checking":
        kill(stopped_import("checks", str(project), str(items)))
        return
    process = subprocess.Popen(
        [sys.executable, "-m", "bagel_studio", "import", str(project), str(items)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(delay)
        assert process.poll() is None, "the import finished before it could be killed"
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[tuple[str, str]]]:
    """The items file and the flags an uninterrupted import gives it."""
    folder = tmp_path_factory.mktemp("reference")
    items = items_file(folder / "items.jsonl", ITEMS)
    project = folder / "clean.bagel"
    with Store.open(project) as store:
        import_paths(store, [items])
    return items, _warnings(project)


@pytest.mark.slow
def test_import_killed_while_checking_is_finished_by_the_next_import(
    tmp_path: Path, reference: tuple[Path, set[tuple[str, str]]], capsys: pytest.CaptureFixture[str]
) -> None:
    items, flags = reference
    assert sum(1 for _, check in flags if check == "gold-in-stem") == ITEMS // 3
    project = tmp_path / "p.bagel"
    _kill_import(project, items, "checking")
    assert count_rows(project, "SELECT count(*) FROM items") == ITEMS
    waiting = count_rows(project, "SELECT count(*) FROM pending_checks")
    assert waiting > 0  # the project knows which items still await their checks
    assert _warnings(project) != flags
    assert run(["import", str(project), str(items)]) == 0  # "already imported", yet ...
    out = capsys.readouterr().out
    assert f"{waiting:,} items an interrupted import left unchecked" in out
    assert _warnings(project) == flags
    assert count_rows(project, "SELECT count(*) FROM pending_checks") == 0


@pytest.mark.slow
@pytest.mark.parametrize(("when", "delay"), [("at", 0.3), ("checking", 0.0)])
def test_import_killed_anywhere_is_finished_by_check(
    tmp_path: Path,
    reference: tuple[Path, set[tuple[str, str]]],
    when: str,
    delay: float,
    capsys: pytest.CaptureFixture[str],
) -> None:
    items, flags = reference
    project = tmp_path / "p.bagel"
    _kill_import(project, items, when, delay)
    imported = count_rows(project, "SELECT count(*) FROM items")
    assert imported in (0, -1, ITEMS)  # one file, one transaction: all or nothing
    if imported <= 0:  # killed before its items were committed: importing again does it all
        assert run(["import", str(project), str(items)]) == 0
    else:
        waiting = count_rows(project, "SELECT count(*) FROM pending_checks")
        assert waiting > 0 or when == "at"
        assert run(["check", str(project), "--no-audio"]) in (0, 1)
        if waiting:
            err = capsys.readouterr().err
            assert f"{waiting:,} items awaited their checks after an interrupted import" in err
    assert _warnings(project) == flags
    assert count_rows(project, "SELECT count(*) FROM pending_checks") == 0
