"""The paper's structural checks: a valid dimension for the domain, exactly four non-empty
distinct options, exactly one gold answer that matches an option. Failing any of them blocks
acceptance until a curator fixes the item."""

from __future__ import annotations

from functools import lru_cache

from bagel_studio.core.domains import DIMENSIONS, LETTERS, normalize_dimension
from bagel_studio.core.model import Flag, ItemContent, Severity

DIMENSION_INVALID = "dimension-invalid"
OPTION_COUNT = "option-count"
OPTION_EMPTY = "option-empty"
OPTIONS_NOT_DISTINCT = "options-not-distinct"
GOLD_INVALID = "gold-invalid"

DESCRIPTIONS = {
    DIMENSION_INVALID: "The dimension label is not one of the domain's labels (paper, Table 2).",
    OPTION_COUNT: "An item must have exactly four options.",
    OPTION_EMPTY: "Every option must have text.",
    OPTIONS_NOT_DISTINCT: "The four options must differ from each other.",
    GOLD_INVALID: "Exactly one gold answer must match one of the options.",
}


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _letter(index: int) -> str:
    return LETTERS[index] if index < len(LETTERS) else str(index + 1)


@lru_cache(maxsize=1024)
def _valid_dimension(domain: str, dimension: str | None) -> bool:
    """True for one of the domain's own labels (few distinct pairs: asked once each)."""
    return bool(dimension) and normalize_dimension(domain, dimension) == dimension


def _sound(domain: str, content: ItemContent) -> bool:
    """True when no structural check can fail: the common case, settled without building
    messages (the import and the export run these checks on every item)."""
    options = content.options
    index = content.answer_index
    if not (
        len(options) == len(LETTERS)
        and type(index) is int
        and 0 <= index < len(options)
        and _valid_dimension(domain, content.dimension)
    ):
        return False
    joined = "\x00".join(options)
    if (
        all(map(str.isprintable, options))  # no whitespace but the space, and no NUL
        and "  " not in joined
        and " \x00" not in joined
        and "\x00 " not in joined
        and joined[:1] != " "
        and joined[-1:] != " "
    ):
        # every option is already in ``_norm``'s form but for its case: fold them at once
        folded = set(joined.casefold().split("\x00"))
        return "" not in folded and len(folded) == len(options)
    return len({_norm(o) for o in options} - {""}) == len(options)


def structural_flags(
    domain: str, content: ItemContent, given_answer: str | None = None
) -> list[Flag]:
    """The paper's blocking flags of one item's content: an invalid dimension, not four options,
    an empty or repeated option, no valid gold. They alone decide whether the item may be
    accepted, so the import writes them with the item, before any other check has run.
    ``given_answer``: the gold as the generator gave it, when that matched no option
    (``Item.given_answer``), named by ``gold-invalid``."""
    if _sound(domain, content):
        return []
    flags: list[Flag] = []
    blocking = Severity.BLOCKING
    if not _valid_dimension(domain, content.dimension):
        allowed = ", ".join(DIMENSIONS.get(domain, ()))
        flags.append(
            Flag(
                DIMENSION_INVALID,
                blocking,
                f"Dimension {content.dimension!r} is not valid for {domain}"
                + (f" (one of: {allowed})" if allowed else ""),
            )
        )
    options = content.options
    if len(options) != len(LETTERS):
        flags.append(
            Flag(OPTION_COUNT, blocking, f"{len(options)} options; an item needs exactly 4")
        )
    empty = [LETTERS[i] if i < 4 else str(i + 1) for i, o in enumerate(options) if not o.strip()]
    if empty:
        flags.append(Flag(OPTION_EMPTY, blocking, f"Option {', '.join(empty)} is empty"))
    seen: dict[str, int] = {}
    for index, option in enumerate(options):
        key = _norm(option)
        if key and key in seen:
            first, second = seen[key], index
            flags.append(
                Flag(
                    OPTIONS_NOT_DISTINCT,
                    blocking,
                    f"Options {_letter(first)} and {_letter(second)} are the same: "
                    f"{option.strip()!r}",
                )
            )
            break
        seen[key] = index
    if content.answer_index is None or not 0 <= content.answer_index < len(options):
        flags.append(_gold_invalid(given_answer))
    return flags


def _gold_invalid(given_answer: str | None) -> Flag:
    if given_answer is None:  # not known (an older import, no answer at all)
        return Flag(
            GOLD_INVALID, Severity.BLOCKING, "The gold answer does not match any of the options"
        )
    quoted = '"' + given_answer.replace('"', '\\"') + '"'
    return Flag(
        GOLD_INVALID,
        Severity.BLOCKING,
        f"The generator's answer {quoted} matches none of the options",
        {"given_answer": given_answer},
    )
