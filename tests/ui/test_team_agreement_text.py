"""The Team view's agreement lines say what each kappa is computed over: on a plan where no item
outside the calibration share has been decided by every curator, Fleiss' kappa on the overlap is
the calibration share's (the same items, the same decisions) and the line says so, rather than
showing one number twice as if copied."""

from __future__ import annotations

from bagel_studio.core.agreement import agreement_block
from bagel_studio.ui.team_view import agreement_lines

TEAM = ("alice", "bob", "carol")


def _ratings() -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """Three calibration items every curator decided, and two items of two curators."""
    calibration = {
        "c1": dict.fromkeys(TEAM, "keep"),
        "c2": {"alice": "keep", "bob": "reject", "carol": "keep"},
        "c3": {"alice": "reject", "bob": "reject", "carol": "reject"},
    }
    overlap = {
        **calibration,
        "o1": {"alice": "keep", "bob": "keep"},
        "o2": {"bob": "reject", "carol": "keep"},
    }
    return calibration, overlap


def test_equal_fleiss_kappas_are_said_to_rest_on_the_same_items() -> None:
    calibration, overlap = _ratings()
    first, second = agreement_lines(
        agreement_block("calibration", calibration), agreement_block("overlap", overlap)
    )
    assert first.startswith("Agreement on the calibration share (items every curator has):")
    assert "3 items decided by two or more" in first
    assert "over the 3 items all 3 curators (alice, bob, carol) decided" in first
    assert "mean Cohen's κ of the 3 pairs" in first
    assert second.startswith("Agreement on the overlap (every item two or more curators decided):")
    assert "5 items decided by two or more" in second
    kappa = agreement_block("calibration", calibration).fleiss_kappa
    assert kappa is not None
    assert f"Fleiss' κ {kappa:.3f} over the same 3 items as on the calibration share" in second
    assert "no other item has been decided by all 3 curators" in second


def test_fleiss_kappas_on_different_items_say_how_many_each() -> None:
    calibration, overlap = _ratings()
    overlap["r1"] = {"alice": "keep", "bob": "reject", "carol": "reject"}  # a risky item
    _first, second = agreement_lines(
        agreement_block("calibration", calibration), agreement_block("overlap", overlap)
    )
    assert "over the 4 items all 3 curators (alice, bob, carol) decided" in second
    assert "same" not in second
