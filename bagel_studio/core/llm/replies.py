"""Reading JSON objects out of model replies (bare, fenced, or inside prose)."""

from __future__ import annotations

import json
from typing import Any


def json_object(text: str | None) -> dict[str, Any] | None:
    """The first JSON object in ``text``, or None."""
    if not text:
        return None
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None
