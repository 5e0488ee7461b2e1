"""``bagel-studio check`` through the CLI dispatcher, on a real project file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from checks_support import new_item, record

from bagel_studio.core.cli import run
from bagel_studio.core.model import ItemContent
from bagel_studio.core.store import NewItem, Store

PEARSONEMA_Q = (
    "Which taxon is likely to be the host in the interaction where Pearsonema plica is an "
    "endoparasite?"
)


@pytest.fixture
def project(project_path: Path) -> Path:
    with Store.open(project_path, owner="test") as store:
        store.evidence.add_globi_records(
            [record("Canis lupus", "host of", "Pearsonema plica", row=40)], None
        )
        store.items.add_items(
            [
                new_item(
                    "globi:2:0",
                    "GloBI",
                    PEARSONEMA_Q,
                    ["Procyon lotor", "Ursus americanus", "Canis lupus", "Lynx rufus"],
                    "A",
                    "Masked participant identification",
                ),
                new_item(
                    "wikipedia:koala:0",
                    "Wikipedia",
                    "According to the passage, what do koalas eat?",
                    ["Eucalyptus leaves", "Bamboo", "Insects", "Grass"],
                    "A",
                    "Diet",
                ),
            ],
            None,
        )
    return project_path


def test_check_json_lists_current_flags(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", str(project), "--json", "--no-audio"]) == 0
    listed = json.loads(capsys.readouterr().out)
    by_item = {(row["item_id"], row["check"]): row for row in listed}
    documented = by_item[("globi:2:0", "also-documented")]
    assert documented["severity"] == "warning"
    assert documented["details"]["records"] == ["curated.tsv#40"]
    assert "Canis lupus host of Pearsonema plica" in documented["message"]
    assert ("wikipedia:koala:0", "hidden-context") in by_item
    with Store.open(project, read_only=True) as store:  # the flags were stored, too
        assert {f.check for f in store.flags.of_item("globi:2:0")} == {"also-documented"}


def test_check_filters_by_domain_and_check(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["check", str(project), "--domain", "wikipedia", "--no-audio"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "wikipedia:koala:0  warning  hidden-context  The stem refers to context the reader "
        'cannot see: "according to the passage"'
    ]
    assert run(["check", str(project), "--check", "also-documented", "--json", "--no-audio"]) == 0
    assert [r["item_id"] for r in json.loads(capsys.readouterr().out)] == ["globi:2:0"]


def test_blocking_flag_exits_1(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Store.open(project, owner="test") as store:
        content = ItemContent("Which is a bird?", ("Kea", "Kea", "Lion", "Wolf"), 0, "Taxonomy")
        store.items.add_items([NewItem("wikipedia:kea:9", "Wikipedia", content)], None)
    assert run(["check", str(project), "--no-audio"]) == 1
    assert "wikipedia:kea:9  blocking  options-not-distinct" in capsys.readouterr().out


def test_usage_errors_exit_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", str(project), "--check", "no-such-check"]) == 2
    assert run(["check", str(project), "--domain", "Mars"]) == 2
    assert run(["check", str(project.parent / "missing.bagel")]) == 2
    assert "unknown check id no-such-check" in capsys.readouterr().err


def test_help_explains_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--help"]) == 0
    out = capsys.readouterr().out
    for check_id in ("also-documented", "taxon-overlap", "vocalization-mixed", "gold-in-stem"):
        assert f"  {check_id}\n" in out
