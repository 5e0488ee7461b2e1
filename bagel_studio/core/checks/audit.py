"""The audit's flags: found over the whole project by ``bagel-studio audit`` (``core.audit``),
not by an item's own checks.

An item's checks look at that item and its evidence; these look across items (two items saying
the same thing, one item's stem answering another) or come from model runs (options-only). The
store keeps them when an item's own checks are re-run, until the next audit replaces them.
"""

from __future__ import annotations

NEAR_DUPLICATE = "near-duplicate"
LEAKS_ANSWER_OF = "leaks-answer-of"
ANSWERABLE_WITHOUT_STEM = "answerable-without-stem"

DESCRIPTIONS = {
    NEAR_DUPLICATE: "Another item asks the same fact with the same gold (numbers read as "
    "quantities): its stem and gold share most content words and it names no other species or "
    "source; or it asks of the same species, text or GloBI record under the same dimension in "
    "any words; or of the same recording under the same dimension. Two recordings of one "
    "species asked the same with the same gold are one fact twice; two items on one recording "
    "asking different facts (a count of its notes, their shape) are not. Keep one. Found by the "
    "audit; the others and what they share are named.",
    LEAKS_ANSWER_OF: "The stem states the gold answer of another item about the same species, "
    "record or recording, so one item answers the other. Found by the audit; the other item "
    "is named.",
    ANSWERABLE_WITHOUT_STEM: "Every reference model picked the gold from the options alone "
    "(the question removed): the options give the answer away. Found by the audit.",
}
AUDIT_CHECKS = frozenset(DESCRIPTIONS)
# The flags' origin in the store: kept by ``store.flags.replace_flags``, replaced by the next audit.
ORIGIN = "audit"
