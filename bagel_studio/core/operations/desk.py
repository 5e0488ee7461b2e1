"""The desk's scripted review operations: revise an item (edit and accept in one transaction).

``revise`` is what the desk's Ctrl+Enter does (edit the content, then accept it as revised) as one
operation: the edit, its history entry, the re-check and the decision commit together or not at
all, so a revision that leaves a blocking flag (an invalid dimension, a gold that matches no
option) is refused and the project is as it was.

``parse_edits`` turns the edits a script gives (JSON: ``question``, ``options``, ``answer``,
``dimension``, ``level``) into the item's new content, with a clear message for each mistake.
"""

from __future__ import annotations

import json
from typing import Any

from bagel_studio.core.changes import Done
from bagel_studio.core.domains import LETTERS, LEVELS, normalize_dimension
from bagel_studio.core.model import Decision, Item, ItemContent, Review
from bagel_studio.core.operations import reviews
from bagel_studio.core.store import Store

EDIT_FIELDS = ("question", "options", "answer", "dimension", "level")
ANSWER_FORMS = "a letter A-D, an index 0-3 or the text of one of the options"


class EditsError(ValueError):
    """Edits that cannot become an item's content; the message says what is wrong."""


def load_edits(text: str) -> dict[str, Any]:
    """The edits as a JSON object, or an EditsError that quotes where the JSON went wrong."""
    try:
        edits = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EditsError(f"the edits are not valid JSON: {exc}") from None
    if not isinstance(edits, dict) or not edits:
        raise EditsError(
            "the edits must be a JSON object with at least one of: " + ", ".join(EDIT_FIELDS)
        )
    unknown = sorted(set(edits) - set(EDIT_FIELDS))
    if unknown:
        raise EditsError(
            f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}: "
            f"the edits may change {', '.join(EDIT_FIELDS)}"
        )
    return edits


def parse_edits(item: Item, edits: dict[str, Any]) -> ItemContent:
    """``item``'s content with ``edits`` applied (fields not named are kept)."""
    content = item.content
    changes: dict[str, Any] = {}
    if "question" in edits:
        question = edits["question"]
        if not isinstance(question, str) or not question.strip():
            raise EditsError("question must be non-empty text")
        changes["question"] = question.strip()
    options = content.options
    if "options" in edits:
        given = edits["options"]
        if isinstance(given, dict):
            given = [given.get(letter) for letter in LETTERS]
        if not isinstance(given, list) or not all(isinstance(o, str) for o in given):
            raise EditsError('options must be a list of four texts (or {"A": ..., "D": ...})')
        options = tuple(o.strip() for o in given)
        changes["options"] = options
    if "answer" in edits:
        changes["answer_index"] = _answer_index(edits["answer"], options)
    if "dimension" in edits:
        dimension = normalize_dimension(item.domain, edits["dimension"])
        if dimension is None:
            raise EditsError(f"{edits['dimension']!r} is not a dimension of {item.domain}")
        changes["dimension"] = dimension
    if "level" in edits:
        level = edits["level"]
        if level is not None and (not isinstance(level, str) or level.lower() not in LEVELS):
            raise EditsError(f"level must be one of {', '.join(LEVELS)} (or null)")
        changes["level"] = level.lower() if isinstance(level, str) else None
    return content.with_changes(**changes)


def _answer_index(answer: Any, options: tuple[str, ...]) -> int:
    if isinstance(answer, bool):
        raise EditsError(f"answer must be {ANSWER_FORMS}")
    if isinstance(answer, int):
        if 0 <= answer < len(options):
            return answer
        raise EditsError(f"answer {answer} is out of range: {ANSWER_FORMS}")
    if isinstance(answer, str):
        text = answer.strip()
        if text.upper() in LETTERS[: len(options)] and len(text) == 1:
            return LETTERS.index(text.upper())
        matches = [i for i, option in enumerate(options) if option.strip() == text]
        if len(matches) == 1:
            return matches[0]
    raise EditsError(f"answer {answer!r} names no option: give {ANSWER_FORMS}")


def revise(
    store: Store, item_id: str, curator: str, edits: dict[str, Any], note: str | None = None
) -> Done[Review]:
    """Apply ``edits`` to ``item_id`` and accept it as revised, in one transaction.

    Raises EditsError for edits that cannot apply (nothing written), StoreError when the item is
    unknown, and BlockedError when the revised item has a blocking flag (rolled back: nothing
    written).
    """
    item = store.items.get(item_id)
    content = parse_edits(item, edits)
    if content == item.content:
        raise EditsError("the edits change nothing: use --accept to accept the item as it is")
    with store.transaction():
        edited = reviews.edit(store, item_id, curator, content)
        accepted = reviews.decide(store, item_id, curator, Decision.ACCEPT, note=note)  # revised
    return Done(accepted.result, edited.changes | accepted.changes)
