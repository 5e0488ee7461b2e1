"""Checks that come from the curators' own answers: a blind answer that misses the gold.

In blind mode a curator picks an answer before the gold is revealed. When a careful reader picks
another option, the item may be ambiguous or its gold wrong, so it is flagged for a second look.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Flag, Item, Severity

if TYPE_CHECKING:
    from bagel_studio.core.checks.context import CheckContext

BLIND_ANSWER_WRONG = "blind-answer-wrong"

DESCRIPTIONS = {
    BLIND_ANSWER_WRONG: "A curator answering blind (before the gold was shown) chose another "
    "option: the item may be ambiguous or its gold wrong.",
}


def _letter(index: int | None) -> str:
    return LETTERS[index] if index is not None and 0 <= index < len(LETTERS) else "?"


def blind_flags(ctx: CheckContext, item: Item) -> list[Flag]:
    """The ``blind-answer-wrong`` flag when a curator answering blind chose another option than
    the gold: a hint that the item is ambiguous or its gold wrong."""
    gold = item.content.answer_index
    misses = [(c, a) for c, a in ctx.blind_answers(item.id) if a != gold]
    if not misses:
        return []
    who = ", ".join(f"{curator} chose {_letter(answer)}" for curator, answer in misses)
    gold_text = item.content.answer_text or ""
    return [
        Flag(
            BLIND_ANSWER_WRONG,
            Severity.WARNING,
            f"Answered blind, {who}; the gold is {_letter(gold)} {gold_text!r}",
            {"curators": [c for c, _ in misses], "answers": [_letter(a) for _, a in misses]},
        )
    ]
