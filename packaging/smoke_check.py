"""Checks of the bundle's smoke test that are easier in Python than in shell; run by
packaging/smoke.sh with the *reference* installation's Python (never inside the bundle).

    python smoke_check.py ids PROJECT          the project's item ids, one per line
    python smoke_check.py acceptable PROJECT   the ids of the items no blocking flag holds back
    python smoke_check.py nonblank PNG W H     the screenshot is W x H and shows a drawn window
    python smoke_check.py same-json A B        two JSON files hold the same value
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path


def item_ids(project: str) -> int:
    with sqlite3.connect(f"file:{project}?mode=ro", uri=True) as db:
        for (item_id,) in db.execute("SELECT id FROM items ORDER BY id"):
            print(item_id)
    return 0


def acceptable_ids(project: str) -> int:
    with sqlite3.connect(f"file:{project}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT id FROM items WHERE id NOT IN"
            " (SELECT item_id FROM flags WHERE severity = 'blocking') ORDER BY id"
        )
        for (item_id,) in rows:
            print(item_id)
    return 0


def nonblank(png: str, width: str, height: str) -> int:
    from PySide6.QtGui import QImage

    image = QImage(png)
    if image.isNull():
        print(f"smoke: {png} is not a readable image", file=sys.stderr)
        return 1
    if (image.width(), image.height()) != (int(width), int(height)):
        print(f"smoke: {png} is {image.width()}x{image.height()}, not {width}x{height}")
        return 1
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
    }
    if len(colours) < 50:
        print(f"smoke: {png} is nearly blank ({len(colours)} colours)", file=sys.stderr)
        return 1
    print(f"smoke: {png}: {image.width()}x{image.height()}, {len(colours)} colours sampled")
    return 0


def same_json(first: str, second: str) -> int:
    a, b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in (first, second))
    for value in (a, b):
        if isinstance(value, dict):
            value.pop("file", None)  # where the clip lies may differ; what it measures may not
    if a != b:
        print(f"smoke: {first} and {second} differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    checks = {
        "ids": item_ids,
        "acceptable": acceptable_ids,
        "nonblank": nonblank,
        "same-json": same_json,
    }
    sys.exit(checks[command](*args))
