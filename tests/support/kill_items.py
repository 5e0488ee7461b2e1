"""Items and counts for the tests that kill an import during its checks (the importers' and
the store's lock tests): items whose checking phase writes flags, and a count read that tolerates
a project in the middle of being written."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path


def items_file(path: Path, count: int) -> Path:
    """Items of which every third gives its gold away in the stem (a ``gold-in-stem`` warning,
    written only by the checking phase)."""
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(count):
            gold = f"Seeds of plant {i}"
            stem = f"Which food does animal {i} prefer" + (f", {gold}?" if i % 3 == 0 else "?")
            item = {
                "id": f"w{i}",
                "domain": "Wikipedia",
                "dimension": "Diet",
                "question": stem,
                "options": [gold, f"Leaves {i}", f"Fish {i}", f"Insects {i}"],
                "answer": "A",
            }
            handle.write(json.dumps(item) + "\n")
    return path


def count_rows(project: Path, sql: str) -> int:
    try:
        conn = sqlite3.connect(f"file:{project}?mode=ro", uri=True, timeout=0.05)
    except sqlite3.Error:
        return -1
    try:
        return int(conn.execute(sql).fetchone()[0])
    except sqlite3.Error:
        return -1
    finally:
        conn.close()
