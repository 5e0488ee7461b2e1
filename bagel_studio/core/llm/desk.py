"""What the desk shows of the models for one item: each model's choice and the newest verdict."""

from __future__ import annotations

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Item
from bagel_studio.core.store import Store


def _seen(verdict: dict[str, object]) -> str:
    """How much of the evidence the judge saw, when not all of it (shortened to fit)."""
    sent, total = verdict.get("evidence_chars"), verdict.get("evidence_total_chars")
    if not verdict.get("evidence_note") or not isinstance(sent, int):
        return ""
    if not isinstance(total, int) or not total:
        return ""
    return f" (saw {sent:,} of the evidence's {total:,} characters, {100 * sent / total:.0f}%)"


def model_choice_lines(store: Store, item: Item) -> list[str]:
    """One line per model that answered the item's current content (its letter, right or not,
    strict/lenient/invalid), then the newest second opinion."""
    current = item.content.content_hash()
    lines = []
    for answer in store.llm.answers_for_item(item.id):
        if answer["content_hash"] != current or answer["parse"] == "failed":
            continue
        index = answer["option_index"]
        choice = f"{LETTERS[index]}" if index is not None else "no letter"
        mark = "?" if answer["correct"] is None else "✓" if answer["correct"] else "✗"
        cut = f"; reply {answer['reply_note']}" if answer.get("reply_note") else ""
        lines.append(f"{answer['profile']}: {choice} {mark} ({answer['parse']}{cut})")
    verdicts = [v for v in store.llm.verdicts_for_item(item.id) if v["error"] is None]
    if verdicts and verdicts[0]["content_hash"] == current:
        v = verdicts[0]
        key = LETTERS[v["key_index"]] if v["key_index"] is not None else "?"
        lines.append(
            f"Judge {v['profile']} ({str(v['asked_at'])[:16]}): {v['verdict']}, would key {key}"
            + (f" — {v['reason']}" if v["reason"] else "")
            + _seen(v)
        )
    return lines
