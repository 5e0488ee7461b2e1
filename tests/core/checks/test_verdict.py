"""The release verdict an import stores with each item (``checks.verdict``)."""

from __future__ import annotations

import hashlib
import inspect

import pytest

from bagel_studio.core import domains
from bagel_studio.core.checks import fixed, structural
from bagel_studio.core.checks.fixed import fixed_positions
from bagel_studio.core.checks.structural import structural_flags
from bagel_studio.core.checks.verdict import RULES, release_verdict, stored_fixed
from bagel_studio.core.model import ItemContent

# The rules a stored verdict stands for, as their source text: when this test fails, a module
# the verdict depends on changed. If what it finds changed (a structural check, the dimensions
# of a domain, which options keep their place), raise ``verdict.RULES`` so that the verdicts
# older versions stored are no longer read; then put the new fingerprint here.
RULES_SOURCE = "3e476ebb290c43c6"


def _content(options: tuple[str, ...], gold: int = 1, dimension: str = "Taxonomy") -> ItemContent:
    return ItemContent("Which one?", options, gold, dimension, "easy")


def test_the_rules_a_stored_verdict_stands_for_are_unchanged() -> None:
    digest = hashlib.sha256()
    for module in (structural, fixed, domains):
        digest.update(inspect.getsource(module).encode("utf-8"))
    assert digest.hexdigest()[:16] == RULES_SOURCE, (
        "the rules behind a stored release verdict changed: raise checks.verdict.RULES if what "
        "they find changed, then update RULES_SOURCE"
    )


@pytest.mark.parametrize(
    "options",
    [
        ("Phoenicopterus andinus", "Phoenicoparrus andinus", "P. chilensis", "P. jamesi"),
        ("~1-2 kHz", "~3-5 kHz", "~6-8 kHz", "None of the above"),
        ("Sound 1", "Sound 2", "Sound 3", "All are indistinguishable"),
        ("Both A and B", "Only A", "Only B", "Neither"),
        ("Sound  1", " Sound 2", "Sound 3 ", "Sound 4"),  # not in normal form: the slow path
    ],
)
def test_a_sound_content_stores_its_fixed_positions(options: tuple[str, ...]) -> None:
    content = _content(options)
    assert structural_flags("Wikipedia", content) == []
    verdict = release_verdict("Wikipedia", content)
    assert verdict is not None and verdict >> 4 == RULES
    assert stored_fixed(verdict) == fixed_positions(options)


@pytest.mark.parametrize(
    "content",
    [
        _content(("a", "b", "c")),  # three options
        _content(("a", "b", "c", "d", "e")),
        _content(("a", "b", "c", "")),
        _content(("a", "B", "b", "d")),  # the same option twice, but for case
        _content(("a", "b", "c", "d"), gold=4),
        _content(("a", "b", "c", "d"), dimension="Not a dimension"),
    ],
)
def test_a_content_that_fails_a_structural_check_stores_none(content: ItemContent) -> None:
    assert structural_flags("Wikipedia", content) != []
    assert release_verdict("Wikipedia", content) is None


def test_every_mask_reads_back_and_nothing_else_reads_as_a_verdict() -> None:
    for mask in range(16):
        assert stored_fixed(RULES << 4 | mask) == frozenset(i for i in range(4) if mask >> i & 1)
    for other in (None, "17", 16.0, True, (RULES + 1) << 4, (RULES - 1) << 4 | 3, -1):
        assert stored_fixed(other) is None, other
