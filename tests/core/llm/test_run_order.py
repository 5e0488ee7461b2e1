"""Model results say what was measured: the order a model was shown the options in (a release's
shuffle seed, or the project's order) is part of a run's identity, of what is stored and of every
row that reports it; ``evaluate --seed N`` asks only the items that release holds and names the
others; strict and lenient accuracy are reported apart; items without a valid gold are left out
of every accuracy, and said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.export import shown_order
from bagel_studio.core.model import Decision, ItemContent
from bagel_studio.core.operations import decide_many
from bagel_studio.core.store import NewItem, Store
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer

RELEASED = ["wiki:1", "wiki:2", "globi:1", "bio:1"]  # accepted; xc:1 and xc:2 are not


@pytest.fixture
def reviewed(llm_project: Path) -> Path:
    with Store.open(llm_project) as store:
        decide_many(store, RELEASED, "ann", Decision.ACCEPT)
    return llm_project


def evaluate(project: Path, url: str, *options: str) -> int:
    return run(["evaluate", str(project), "--base-url", url, *options])


def test_seed_asks_only_the_release_in_its_order_and_names_the_rest(
    reviewed: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evaluate(reviewed, scripted.url, "--model", "gold", "--seed", "7") == 0
    out = capsys.readouterr().out
    assert "gold (gold), asked in the order of the release with seed 7: 4 items" in out
    assert "2 items left out: not in the release with seed 7 (xc:1, xc:2)" in out
    asked = {question for (_, question), n in scripted.asked.items() if n}
    assert len(asked) == 4 and not any("chiffchaff" in q or "goldcrest" in q for q in asked)
    with Store.open(reviewed, read_only=True) as store:
        shown = shown_order(store, 7)
        answers = store.llm.all_answers("gold")
    assert {a["item_id"] for a in answers} == set(RELEASED)
    for answer in answers:
        assert answer["shown_seed"] == 7
        assert json.loads(answer["option_order"]) == list(shown[answer["item_id"]][1])
    # An item outside the release is refused by name, nothing asked.
    before = scripted.total()
    assert evaluate(reviewed, scripted.url, "--model", "gold", "--seed", "7",
                    "--items", "wiki:1", "xc:1") == 2  # fmt: skip
    assert "not in the release with seed 7: xc:1" in capsys.readouterr().err
    assert scripted.total() == before


def test_the_order_is_part_of_a_runs_identity(
    reviewed: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evaluate(reviewed, scripted.url, "--model", "gold") == 0
    asked = scripted.total()
    # Every released item is asked again in the release's order, even one whose shuffle left
    # its options where they were: an answer in another order is another run's.
    assert evaluate(reviewed, scripted.url, "--model", "gold", "--seed", "7") == 0
    assert scripted.total() - asked == 1 + len(RELEASED)  # the listing and each item
    assert evaluate(reviewed, scripted.url, "--model", "gold", "--seed", "7") == 0  # resumes
    assert scripted.total() - asked == 2 + len(RELEASED)  # only the listing
    capsys.readouterr()
    assert run(["stats", str(reviewed), "--json"]) == 0
    models = json.loads(capsys.readouterr().out)["models"]
    assert set(models) == {"gold", "gold (seed 7)"}
    assert models["gold"]["order"] == "project order" and models["gold"]["answered"] == len(ITEMS)
    assert models["gold (seed 7)"]["order"] == "seed 7"
    assert models["gold (seed 7)"]["profile"] == "gold"
    assert models["gold (seed 7)"]["answered"] == len(RELEASED)


def test_strict_and_lenient_accuracy_are_apart(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evaluate(llm_project, scripted.url, "--model", "verbose") == 0  # lenient replies
    out = capsys.readouterr().out
    assert "accuracy: strict 0.0% (0 of 6 replies), lenient 100.0% (6 of 6)" in out
    assert evaluate(llm_project, scripted.url, "--model", "gold", "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["strict_accuracy"], summary["accuracy"]) == (1.0, 1.0)
    assert run(["stats", str(llm_project), "--json"]) == 0
    verbose = json.loads(capsys.readouterr().out)["models"]["verbose"]
    assert verbose["strict_accuracy"]["overall"] == 0.0
    assert verbose["accuracy"]["overall"] == 1.0


def test_items_without_a_valid_gold_are_left_out_of_accuracy(
    llm_project: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(llm_project) as store:
        content = ItemContent("Which one is it?", ("W", "X", "Y", "Z"), None, "Diet")
        store.items.add_items([NewItem("wiki:9", "Wikipedia", content)], None)
    assert evaluate(llm_project, scripted.url, "--model", "gold", "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["accuracy"], summary["no_gold"]) == (1.0, 1)
    assert evaluate(llm_project, scripted.url, "--model", "always-A") == 0
    out = capsys.readouterr().out
    assert "1 item without a valid gold: asked, left out of the accuracy" in out
    assert run(["stats", str(llm_project), "--json"]) == 0
    gold = json.loads(capsys.readouterr().out)["models"]["gold"]
    assert gold["accuracy"]["overall"] == 1.0 and gold["no_gold"] == 1
    assert gold["answered"] == len(ITEMS) + 1
    with Store.open(llm_project, read_only=True) as store:
        answer = next(a for a in store.llm.all_answers("gold") if a["item_id"] == "wiki:9")
    assert answer["correct"] is None


def test_levels_read_one_order(
    reviewed: Path, scripted: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    for model in ("gold", "always-A"):
        assert evaluate(reviewed, scripted.url, "--model", model, "--seed", "7") == 0
    capsys.readouterr()
    assert run(["levels", str(reviewed), "--models", "gold", "always-A"]) == 2
    assert "asked in the project's order" in capsys.readouterr().err
    assert run(["levels", str(reviewed), "--models", "gold", "always-A", "--seed", "7"]) == 1
    out = capsys.readouterr().out
    assert "Reference levels from gold and always-A, asked in the order of the release with " \
           "seed 7:" in out  # fmt: skip


def test_the_release_report_tells_runs_apart_and_names_the_levels_models(
    llm_project: Path, scripted: ScriptedServer, tmp_path: Path
) -> None:
    url = scripted.url
    assert evaluate(llm_project, url, "--model", "gold") == 0  # the project's order
    assert evaluate(llm_project, url, "--model", "always-A") == 0
    assert evaluate(llm_project, url, "--model", "verbose") == 0  # lenient letters
    assert run(["levels", str(llm_project), "--models", "gold", "always-A", "--apply"]) == 0
    with Store.open(llm_project) as store:
        decide_many(store, RELEASED, "ann", Decision.ACCEPT)
    assert evaluate(llm_project, url, "--model", "gold", "--seed", "3") == 0  # the release's
    assert evaluate(llm_project, url, "--model", "always-A", "--seed", "5") == 0  # another's
    out = tmp_path / "release"
    assert run(["export", str(llm_project), str(out), "--seed", "3"]) == 0
    report = (out / "report" / "report.md").read_text(encoding="utf-8")
    # The settings: the sampling seed is named as such, beside the runs' orders.
    assert "| Label | Model | API | Grammar | Temperature | Sampling seed | Max tokens |" in report
    # Table 3 names its two models and the order they were asked in.
    assert ("Levels from the answers of **gold** and **always-A**, asked in the project's "
            "order") in report  # fmt: skip
    assert "| Wikipedia | 1 (50.0%) | 1 (50.0%) | 0 (0.0%) | 2 |" in report
    # Table 4: one row per run and metric, the order named in each.
    table4 = report.split("(Table 4, %)")[1].split("Strict:")[0]
    assert "| gold | the project's order | strict |" in table4
    assert "| gold | this release's order (seed 3) | strict |" in table4
    assert "| always-A | another release's order (seed 5) | lenient |" in table4
    verbose = [line for line in table4.splitlines() if line.startswith("| verbose |")]
    assert [line.split("|")[3].strip() for line in verbose] == ["strict", "lenient"]
    assert "| 0.0 |" in verbose[0] and "| 100.0 |" in verbose[1]  # apart, not folded
    # Table 11: only the run asked in this release's order; the others are named, not shown.
    table11 = report.split("(Table 11)")[1].split("## ")[0]
    assert "in this release's order (seed 3)" in table11
    letter_rows = [line for line in table11.splitlines() if line.startswith("| ")][2:]
    assert letter_rows and all(line.startswith("| gold |") for line in letter_rows)
    assert (
        "Not shown: gold in the project's order, always-A in the project's order, always-A in "
        "another release's order (seed 5), verbose in the project's order"
    ) in table11
    manifest = json.loads((out / "manifest.json").read_text())
    runs = manifest["llm"]["runs"]
    assert runs["gold (seed 3)"] == {"profile": "gold", "order": "seed 3", "seed": 3,
                                     "release_order": True}  # fmt: skip
    assert runs["gold"]["order"] == "project order" and not runs["gold"]["release_order"]
