"""A full disk, a read-only project and failing writes end in one clear line and exit status 2,
with the project intact (real limits: RLIMIT_FSIZE on a real process, a read-only mount)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.store import Store
from tests.core.test_cli import make_project

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo"


def _cli(*args: str, file_limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``bagel-studio ARGS`` in a process whose files may not grow past ``file_limit`` bytes
    (the kernel then refuses the write with EFBIG, as a full disk refuses it with ENOSPC)."""

    def limit() -> None:
        if file_limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fail the write, do not kill
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run(
        [sys.executable, "-m", "bagel_studio", *args],
        cwd=ROOT,
        preexec_fn=limit,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _intact(project: Path, *, on_read_only_media: bool = False) -> int:
    """Check the project file with SQLite's own integrity check; return its item count."""
    mode = "immutable=1" if on_read_only_media else "mode=ro"
    conn = sqlite3.connect(f"file:{project}?{mode}", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return int(conn.execute("SELECT count(*) FROM items").fetchone()[0])
    finally:
        conn.close()


def _one_clear_line(result: subprocess.CompletedProcess[str], command: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"bagel-studio {command}: could not write")


def _big_items(path: Path, count: int) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(count):
            item = {
                "id": f"big-{i}",
                "domain": "Wikipedia",
                "dimension": "Diet",
                "question": f"What does animal number {i} eat most of the year?",
                "options": [f"Leaves {i}", f"Seeds {i}", f"Insects {i}", f"Fish {i}"],
                "answer": "A",
            }
            handle.write(json.dumps(item) + "\n")
    return path


def test_disk_full_during_import_is_one_line_and_the_project_survives(tmp_path: Path) -> None:
    project = tmp_path / "p.bagel"
    with Store.open(project):
        pass
    big = _big_items(tmp_path / "big.jsonl", 5_000)  # ~3.5 MB of project: past the limit
    demo_items = DEMO / "wikipedia_generator_outputs.jsonl"
    inputs = (str(demo_items), str(big))
    result = _cli("import", str(project), *inputs, file_limit=project.stat().st_size + 1_000_000)
    _one_clear_line(result, "import")
    kept = _intact(project)
    assert kept > 0  # the first file came in before the disk filled
    again = _cli("import", str(project), *inputs)  # room again: the rest comes in
    assert again.returncode == 0, again.stderr
    fresh = tmp_path / "fresh.bagel"
    assert _cli("import", str(fresh), *inputs).returncode == 0
    assert _intact(project) == _intact(fresh) == kept + 5_000


def test_disk_full_during_decide_keeps_the_decision_out(tmp_path: Path) -> None:
    project = tmp_path / "p.bagel"
    make_project(project)
    result = _cli("decide", str(project), "w0", "--curator", "ana", "--accept", file_limit=4096)
    _one_clear_line(result, "decide")
    _intact(project)
    with Store.open(project, read_only=True) as store:
        assert store.reviews("w0") == []


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder whose files cannot be written: a read-only bind mount as root (root ignores file
    modes), else modes without write permission."""
    source = tmp_path / "source"
    source.mkdir()
    target = tmp_path / "ro"
    target.mkdir()
    if os.geteuid() != 0:
        yield source
        for path in [source, *source.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        return
    mount = shutil.which("mount")
    if mount is None:
        pytest.skip("no mount command to make a read-only folder as root")
    bound = subprocess.run([mount, "--bind", str(source), str(target)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount as root here: {bound.stderr.decode().strip()}")
    try:
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=False)


def test_read_only_project_is_one_line(read_only_folder: Path) -> None:
    project = read_only_folder / "p.bagel"
    make_project(project)
    if os.geteuid() == 0:
        remount = ["mount", "-o", "remount,bind,ro", str(read_only_folder)]
        subprocess.run(remount, check=True)
    else:
        for path in read_only_folder.iterdir():
            path.chmod(0o444)
        read_only_folder.chmod(0o555)
    result = _cli("decide", str(project), "w0", "--curator", "ana", "--accept")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert _intact(project, on_read_only_media=True) == 7
    assert "read-only" in result.stderr.lower() or "readonly" in result.stderr.lower()
