"""Opening a project whose last import stopped before its checks finishes them, and says so."""

from __future__ import annotations

import json
from pathlib import Path

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store
from tests.ui.desk_harness import close_desk, open_desk


def test_desk_open_finishes_pending_checks(qtbot, tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    rows = [
        {
            "id": f"w{i}",
            "domain": "Wikipedia",
            "dimension": "Diet",
            "question": f"Does animal {i} eat Seeds {i}?",  # the gold in the stem: a warning
            "options": [f"Seeds {i}", f"Leaves {i}", f"Fish {i}", f"Insects {i}"],
            "answer": "A",
        }
        for i in range(60)
    ]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    path = tmp_path / "p.bagel"
    with Store.open(path) as store:  # the items committed, the checking step never run
        import_paths(store, [items], full_checks=False)
        assert len(store.flags.pending_check_ids()) == 60
        assert store.flags.of_item("w1") == []
    window = open_desk(qtbot, path)
    messages: list[str] = []
    window.statusBar().messageChanged.connect(messages.append)
    qtbot.waitUntil(lambda: not window.store.flags.pending_check_ids(), timeout=30_000)
    finished = "Finished the checks of 60 items an interrupted import left unchecked."
    shown = window.statusBar().currentMessage
    qtbot.waitUntil(lambda: finished in [*messages, shown()], timeout=10_000)
    assert "gold-in-stem" in {f.check for f in window.store.flags.of_item("w1")}
    close_desk(window)
