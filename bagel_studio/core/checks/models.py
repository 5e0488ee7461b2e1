"""Checks from the models' closed-book answers: every reference model picks the same wrong option.

When two or more models, answering without the evidence, all choose one and the same distractor,
the key may be wrong or the item ambiguous (the paper's "hard" stratum partly reflects such
items). Only answers to the item's current content count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Flag, Item, Severity

if TYPE_CHECKING:
    from bagel_studio.core.checks.context import CheckContext

MODELS_REJECT_GOLD = "models-reject-gold"

DESCRIPTIONS = {
    MODELS_REJECT_GOLD: "Every reference model (two or more, answering closed-book) picked the "
    "same wrong option: a candidate for a wrong or ambiguous key.",
}


def model_flags(ctx: CheckContext, item: Item) -> list[Flag]:
    choices = ctx.model_choices(item.id)
    if len(choices) < 2:
        return []
    current = item.content.content_hash()
    picked = {index for _, index, content_hash in choices if content_hash == current}
    labels = [label for label, _, content_hash in choices if content_hash == current]
    gold = item.content.answer_index
    if len(labels) < 2 or len(picked) != 1:
        return []
    (index,) = picked
    if index is None or index == gold or not 0 <= index < len(item.content.options):
        return []
    return [
        Flag(
            MODELS_REJECT_GOLD,
            Severity.WARNING,
            f"{', '.join(labels)} all chose {LETTERS[index]} {item.content.options[index]!r}; "
            f"the gold is {LETTERS[gold] if gold is not None else '?'}",
            {"models": labels, "chosen": LETTERS[index]},
        )
    ]
