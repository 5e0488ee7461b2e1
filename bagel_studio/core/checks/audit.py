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
    "source; or it asks of the same species, text or GloBI record under the same dimension in any "
    "words; or of the same recording under the same dimension. Two recordings of one species "
    "asked the same with the same gold are one fact twice, and so are two GloBI records of one "
    "species' interaction; two items on one recording asking "
    "different facts (a count of its notes, their shape) are not. Or it asks of the same text or "
    "GloBI record under the same dimension with a gold worded otherwise that each item states: "
    'in other units, rounded to its own figures ("About 17 cm a year" / "About 7 inches" where '
    'the stem says each year), a part of the other\'s statement ("The false killer whale" where '
    "the other gold names both parents and this stem the dolphin), a count without its noun "
    'where the stem asks it ("Five" / "5 colours"; "About 650 individuals", a count of a '
    'generic noun, counts what its stem asks: "About 650" lions), or a long gold with words '
    "added or left out; "
    'the same number of other things ("5 trials"), a word in another\'s place or the same words '
    "in other roles are other facts. Keep one. Set by audit, naming the others and what they "
    "share.",
    LEAKS_ANSWER_OF: "The stem states the gold answer of another item about the same species, "
    "record or recording, and speaks of what that item asks (two of its stem's content words "
    "besides the answer's; of a GloBI item, every taxon its stem names too, the partner whose "
    'prey, host or interaction it asks), so one item answers the other: "how tall is a red '
    'kangaroo?" names the answer of "which kangaroo is Osphranter rufus?" without stating it. '
    "The answer is looked for without a hedge, or a pronoun or article before two words or more "
    '("They slow down" is stated by "cavefish slow down"), or a pronoun ending four words or '
    'more ("They have no effect on it" by "have no effect on wolf vocalization"); a lone number '
    "with the words its stem counts "
    '("13" of "how many thoracic vertebrae?" by "13 thoracic vertebrae"); a gold of four content '
    "words or more also in any order. Set by audit on the "
    "item whose stem gives the answer away, naming the item whose answer it gives; that other "
    "item is not flagged for it (it is flagged only where its own stem gives another item's "
    "answer away).",
    ANSWERABLE_WITHOUT_STEM: "Every reference model picked the gold from the options alone (the "
    "question removed): the options give the answer away. Set by audit.",
}
AUDIT_CHECKS = frozenset(DESCRIPTIONS)
# The flags' origin in the store: kept by ``store.flags.replace_flags``, replaced by the next audit.
ORIGIN = "audit"
