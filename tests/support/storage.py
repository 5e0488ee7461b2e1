"""What the tests of full disks and failing writes share: the CLI run in its own process (with a
file-size limit when asked), the one-line verdict it must end with, a file of items to import, and
the project's integrity and item count read back."""

from __future__ import annotations

import json
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, file_limit: int | None = None) -> subprocess.CompletedProcess[str]:
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


def one_line(result: subprocess.CompletedProcess[str], command: str, begins: str = "") -> str:
    """The single line the command ended with (exit status 2, no traceback), which must begin
    with ``bagel-studio COMMAND: BEGINS``."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"bagel-studio {command}: {begins}"), lines[0]
    return lines[0]


def items_file(path: Path, count: int, prefix: str = "w") -> Path:
    """``count`` valid Wikipedia items, ids PREFIX0, PREFIX1, ..., as JSON Lines."""
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(count):
            item = {
                "id": f"{prefix}{i}",
                "domain": "Wikipedia",
                "dimension": "Diet",
                "question": f"What does animal number {i} eat most of the year in the wild?",
                "options": [f"Leaves {i}", f"Seeds {i}", f"Insects {i}", f"Fish {i}"],
                "answer": "A",
            }
            handle.write(json.dumps(item) + "\n")
    return path


def intact(project: Path, *, on_read_only_media: bool = False) -> int:
    """Check the project file with SQLite's own integrity check; return its item count."""
    mode = "immutable=1" if on_read_only_media else "mode=ro"
    conn = sqlite3.connect(f"file:{project}?{mode}", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return int(conn.execute("SELECT count(*) FROM items").fetchone()[0])
    finally:
        conn.close()
