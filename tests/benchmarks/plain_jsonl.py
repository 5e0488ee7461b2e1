"""The export's floor (issue 11): read the accepted and revised items of a project and write
them once as JSONL rows (json.loads of the options, json.dumps of the row): the least an export
does. Timed two ways (``bench_export``, ``bench_scale``):

* in the benchmark's own process, whose interpreter is running and whose modules are imported;
* as a command, like the export it is compared with: a fresh interpreter runs this file
  (``python plain_jsonl.py PROJECT OUT``), from its start to its exit. This file imports only
  what the write needs, so the command is the least a program that writes the rows pays.

Run: python tests/benchmarks/plain_jsonl.py PROJECT OUT
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path


def write_plain(project: Path, out: Path) -> None:
    """The accepted and revised items of ``project`` as JSONL rows in ``out``."""
    conn = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    with out.open("w", encoding="utf-8") as handle:
        for row in conn.execute(
            "SELECT id, domain, dimension, level, question, options, answer_index FROM items"
            " WHERE status IN ('accepted', 'revised') ORDER BY seq"
        ):
            item = dict(zip(("id", "domain", "dimension", "level", "question"), row, strict=False))
            item["options"] = json.loads(row[5])
            item["answer_index"] = row[6]
            handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    conn.close()


def jsonl_floor(project: Path, out: Path) -> float:
    """Seconds the plain write takes in this process."""
    start = time.perf_counter()
    write_plain(project, out)
    return time.perf_counter() - start


def jsonl_floor_command(project: Path, out: Path) -> float:
    """Seconds the plain write takes as a command: a fresh interpreter, started and waited for
    as the benchmarks start and wait for ``bagel-studio export``."""
    import subprocess  # only the benchmark needs it, not the command

    start = time.perf_counter()
    subprocess.run([sys.executable, __file__, str(project), str(out)], check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    # No argparse: this command is timed as the least a program that writes the rows pays.
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        print(f"usage: python {Path(__file__).name} PROJECT OUT\n\n{__doc__}")
        sys.exit(0 if sys.argv[1:] in (["-h"], ["--help"]) else 2)
    write_plain(Path(sys.argv[1]), Path(sys.argv[2]))
