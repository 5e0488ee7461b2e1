"""The app as a separate process: a decision is made, the process is SIGKILLed, nothing is lost."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bagel_studio.core.store import Store
from tests.ui.desk_project import GLOBI_ID, KOALA_ID, build_project

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 60


def _count(path: Path, sql: str) -> int:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return int(conn.execute(sql).fetchone()[0])
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def _wait_for(condition, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        if process.poll() is not None:
            raise AssertionError(f"the app exited early: {process.stderr.read().decode()}")
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError("the decision did not reach the project file")
        time.sleep(0.05)


def test_sigkill_after_a_decision_loses_nothing(tmp_path: Path, data_dir: Path) -> None:
    project = tmp_path / "killed.bagel"
    build_project(project, data_dir)
    config = tmp_path / "config"
    config.mkdir()
    (config / "preferences.toml").write_text(
        'curator = "kim"\nblind_mode = false\nrecent_projects = []\n', encoding="utf-8"
    )
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        BAGEL_STUDIO_CONFIG_DIR=str(config),
        BAGEL_STUDIO_TEST_SCRIPT="A",  # accept the first item, through the shortcut table
        PYTHONPATH=str(ROOT),
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "bagel_studio", "open", str(project)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for(lambda: _count(project, "SELECT count(*) FROM reviews") >= 1, process)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()  # type: ignore[union-attr]
        process.stderr.close()  # type: ignore[union-attr]
    assert process.returncode == -signal.SIGKILL

    conn = sqlite3.connect(project)  # opening read-write recovers the WAL, as the app would
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()
    with Store.open(project) as store:  # the dead process's lock is gone
        reviews = store.reviews.all()
        assert [(r.item_id, r.curator, r.decision.value) for r in reviews] == [
            (KOALA_ID, "kim", "accept")
        ]
        history = store.history.of_item(KOALA_ID)
        assert [(h.action, h.curator, h.undone) for h in history] == [("decide", "kim", False)]
        assert store.history.of_item(GLOBI_ID) == []
