"""Checks from the models' answers and the judge's verdicts (``core.llm``).

* ``models-reject-gold``: two or more models, answering closed-book, all chose one and the same
  distractor; the key may be wrong or the item ambiguous (the paper's "hard" stratum partly
  reflects such items).
* ``models-miss-gold``: some models miss the gold (n of m), for the queue filter.

A model whose reply held no letter (invalid) chose no option: it counts in neither flag; an
item with no valid gold (``gold-invalid``) gets neither.
* ``judge-disagrees``: the newest second opinion is not ``ok`` or keys another option.

Only answers and verdicts about the item's current content count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Flag, Item, Severity

if TYPE_CHECKING:
    from bagel_studio.core.checks.context import CheckContext

MODELS_REJECT_GOLD = "models-reject-gold"
MODELS_MISS_GOLD = "models-miss-gold"
JUDGE_DISAGREES = "judge-disagrees"
MODEL_CHECKS = (MODELS_REJECT_GOLD, MODELS_MISS_GOLD, JUDGE_DISAGREES)

DESCRIPTIONS = {
    MODELS_REJECT_GOLD: "Every reference model (two or more, answering closed-book) picked the "
    "same wrong option: a candidate for a wrong or ambiguous key.",
    MODELS_MISS_GOLD: "Some of the models that answered the item closed-book (n of m) chose "
    'another option than the gold (the queue\'s "models miss the gold" filter); a reply with no '
    "letter chose nothing and is not counted.",
    JUDGE_DISAGREES: "A model asked for a second opinion (judge) found the item ambiguous, its "
    "gold wrong, not self-contained or unsupported, or would key another option: a suggestion, "
    "not a decision.",
}


def _letter(index: int | None) -> str:
    return LETTERS[index] if index is not None and 0 <= index < len(LETTERS) else "?"


def model_flags(ctx: CheckContext, item: Item) -> list[Flag]:
    """The flags from the models' answers and the judge's newest verdict on ``item``
    (``models-miss-gold``, ``models-reject-gold``, ``judge-disagrees``). Answers given to
    other content than the item's current one are left out: they answered another question."""
    answers = ctx.model_choices(item.id)
    verdict = ctx.judge_verdict(item.id)
    if not answers and verdict is None:
        return []  # most items: no model was asked, no hash to compute
    current = item.content.content_hash()
    gold = item.content.answer_index
    # A reply with no letter A-D chose nothing: it is no evidence against the gold.
    choices = [(label, index) for label, index, h in answers if h == current and index is not None]
    flags: list[Flag] = []
    if gold is None or not 0 <= gold < len(item.content.options):
        # no valid gold (gold-invalid says so): nothing for the models' answers to miss
        choices = []
    misses = [(label, index) for label, index in choices if index != gold]
    if misses:
        who = ", ".join(f"{label} chose {_letter(index)}" for label, index in misses)
        flags.append(
            Flag(
                MODELS_MISS_GOLD,
                Severity.INFO,
                f"{len(misses)} of {len(choices)} models miss the gold {_letter(gold)}: {who}",
                {"missed": len(misses), "models": len(choices)},
            )
        )
    picked = {index for _, index in choices}
    if len(choices) >= 2 and len(picked) == 1:
        (index,) = picked
        if index is not None and index != gold and 0 <= index < len(item.content.options):
            labels = [label for label, _ in choices]
            flags.append(
                Flag(
                    MODELS_REJECT_GOLD,
                    Severity.WARNING,
                    f"{', '.join(labels)} all chose {LETTERS[index]} "
                    f"{item.content.options[index]!r}; the gold is {_letter(gold)}",
                    {"models": labels, "chosen": LETTERS[index]},
                )
            )
    if verdict is not None and verdict.get("content_hash") == current:
        key = verdict.get("key_index")
        if verdict.get("verdict") != "ok" or (key is not None and key != gold):
            flags.append(
                Flag(
                    JUDGE_DISAGREES,
                    Severity.INFO,
                    f"{verdict.get('profile')} ({verdict.get('asked_at', '')[:16]}): "
                    f"{verdict.get('verdict')}, would key {_letter(key)}; "
                    f"{verdict.get('reason') or ''}".rstrip("; "),
                    {"verdict": verdict.get("verdict"), "key": _letter(key)},
                )
            )
    return flags
