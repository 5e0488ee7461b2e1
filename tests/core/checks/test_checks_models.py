"""The checks from the models' answers (``checks.models``) on an item whose gold is invalid."""

from __future__ import annotations

from typing import Any

from bagel_studio.core.checks.models import model_flags
from bagel_studio.core.model import Item, ItemContent, Status


class _Answers:
    """What ``model_flags`` reads of a check context: the models' newest answers, no judge."""

    def __init__(self, answers: list[tuple[str, int | None, str]]) -> None:
        self.answers = answers

    def model_choices(self, item_id: str) -> list[tuple[str, int | None, str]]:
        return self.answers

    def judge_verdict(self, item_id: str) -> dict[str, Any] | None:
        return None


def _item(gold: int | None) -> Item:
    content = ItemContent(
        "What is the meat of young goats called?",
        ("Cabrito", "Mutton", "Venison", "Veal"),
        gold,
        "Diet",
    )
    return Item("w:goat", "Wikipedia", content, content, Status.UNREVIEWED, {})


def test_models_that_agree_on_one_option_say_nothing_of_an_item_with_no_valid_gold() -> None:
    invalid = _item(None)
    answers = [(label, 0, invalid.content.content_hash()) for label in ("ref-a", "ref-b")]
    assert model_flags(_Answers(answers), invalid) == []  # type: ignore[arg-type]
    # the same answers against a valid gold they miss are flagged as before
    valid = _item(1)
    answers = [(label, 0, valid.content.content_hash()) for label in ("ref-a", "ref-b")]
    checks = {f.check for f in model_flags(_Answers(answers), valid)}  # type: ignore[arg-type]
    assert checks == {"models-reject-gold", "models-miss-gold"}
