"""One rule for a curator's name (``model.curator_name_problem``), asked by the review plans
(``assignment.PlanSettings``) and by every decision (``operations.reviews.curator_name``), each
after cleaning the name the same way (``model.cleaned_curator_name``): a name a plan refuses is
refused as a decision's too, with the same message saying why."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from bagel_studio.core.assignment import PlanError, PlanSettings
from bagel_studio.core.model import Decision, curator_name_problem
from bagel_studio.core.operations import decide
from bagel_studio.core.operations.reviews import curator_name
from bagel_studio.core.store import Store, StoreError
from tests.core.test_cli import make_project
from tests.support.storage import cli, one_line

# a name -> what the message says of it
REFUSED = {
    "a/b": "may not hold '/'",
    "night\\shift": "may not hold '\\\\'",
    ".ana": "may not start with a dot",
    "..": "may not start with a dot",
    "\u202eecila": "U+202E",
    "al\u200bice": "U+200B",
    "ana\nbo": "one line",
    "ana\U000e0080": "U+E0080",  # unassigned
    "x" * 81: "at most 80 characters",
    "   ": "empty",
}


@pytest.mark.parametrize(("name", "said"), sorted(REFUSED.items()))
def test_a_name_a_plan_refuses_a_decision_refuses_with_the_same_message(
    name: str, said: str
) -> None:
    with pytest.raises(PlanError) as planned:
        PlanSettings((name,))
    with pytest.raises(StoreError) as decided:
        curator_name(name)
    assert str(planned.value) == str(decided.value) == curator_name_problem(name)
    assert said in str(decided.value) and str(decided.value).startswith("a curator name")


def test_a_decision_by_a_name_a_plan_refuses_writes_nothing(tmp_path: Path) -> None:
    project = tmp_path / "p.bagel"
    make_project(project)
    with Store.open(project) as store:
        for name in ("a/b", ".ana"):
            with pytest.raises(StoreError, match="hand-out"):
                decide(store, "w0", name, Decision.ACCEPT)
        assert store.reviews.of_item("w0") == []
    line = one_line(cli("decide", str(project), "w0", "--curator", "ops/bo", "--accept"), "decide")
    assert "may not hold '/'" in line
    with Store.open(project, read_only=True) as store:
        assert store.reviews.of_item("w0") == []


def test_a_plan_cleans_names_as_a_decision_does() -> None:
    """What a curator types is trimmed and composed before it is recorded, as a decision's name
    or a plan's: one person is one name everywhere."""
    decomposed = unicodedata.normalize("NFD", "Zoë")
    for given in (" alice", decomposed):
        cleaned = curator_name(given)
        assert curator_name_problem(cleaned) is None
        assert PlanSettings((given,)).curators == (cleaned,)


def test_names_both_take() -> None:
    for name in ("alice", "Zoë Müller", "李明", "o'brien", "ana-2", "a.b", "x" * 80):
        assert curator_name_problem(name) is None
        assert curator_name(name) == name
        assert PlanSettings((name,)).curators == (name,)
