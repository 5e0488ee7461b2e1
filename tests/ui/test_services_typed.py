"""The desk receives the typed ``Services`` (so mypy checks the UI against it), never ``Any``."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from bagel_studio.ui.services import Services

UI = Path(__file__).resolve().parents[2] / "bagel_studio" / "ui"


def test_no_window_takes_untyped_services() -> None:
    untyped = {
        str(path.relative_to(UI)): line.strip()
        for path in sorted(UI.rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"\bservices: (Any|object)\b", line)
    }
    assert untyped == {}
    typed = [p for p in UI.rglob("*.py") if "services: Services" in p.read_text(encoding="utf-8")]
    assert len(typed) >= 4  # main window, review controller, import dialog, evidence view


def test_services_holds_the_project_preferences_and_executors() -> None:
    assert [f.name for f in fields(Services)] == ["store", "prefs", "writer", "workers"]
