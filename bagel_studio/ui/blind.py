"""What blind mode hides besides the gold: the checks whose very name points at the key.

Blind mode (Ctrl+B) has the curator answer before anything that says which option is the gold is
shown. Flag messages name options, so while blind the item view shows none; a few checks say it
by their name alone, with what else is on screen: ``acoustic-mismatch`` beside the measurements
(the options that fit the clip are not the gold), ``stem-taxon-in-options`` (the stem's taxon is
a wrong option), ``gold-in-stem``, the evidence's and the models' verdicts on the gold. Those are
not named either (the item view counts them, the queue's tooltip too) until the answer.
"""

from __future__ import annotations

KEY_CHECKS = frozenset({
    "acoustic-mismatch", "gold-in-stem", "unsupported-gold", "supported-distractor",
    "stem-taxon-in-options", "also-documented", "blind-answer-wrong", "models-reject-gold",
    "models-miss-gold", "judge-disagrees", "answerable-without-stem",
})  # fmt: skip


def key_flags_line(count: int) -> str:
    """How the hidden key checks are said while blind: '2 flags about the answer'."""
    return "1 flag about the answer" if count == 1 else f"{count} flags about the answer"
