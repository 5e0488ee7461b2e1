"""A valid item record as the generator writes it, for the tests that import good and bad input
side by side: ``good(ID)`` is one that imports cleanly, ``good(ID, answer="E")`` one bad field."""

from __future__ import annotations

from typing import Any


def good(item_id: str, **changes: Any) -> dict[str, Any]:
    return {
        "id": item_id,
        "domain": "Wikipedia",
        "dimension": "Diet",
        "level": "easy",
        "question": f"What does animal {item_id} eat?",
        "options": ["Leaves", "Fish", "Insects", "Seeds"],
        "answer": "A",
    } | changes
