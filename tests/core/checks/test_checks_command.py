"""``bagel-studio check`` through the CLI dispatcher, on a real project file."""

from __future__ import annotations

import json
import subprocess
import sys
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


# The check command of a project run in a fresh interpreter (what the other tests imported does
# not count), printing which of the audio analysis' modules it loaded.
_AUDIO_MODULES = ("numpy", "scipy", "soundfile", "librosa")
_CHECK = f"""
import sys
from bagel_studio.core.cli import run
assert run(["check", sys.argv[1]]) == 0
print(" ".join(m for m in {_AUDIO_MODULES!r} if m in sys.modules) or "none")
"""


def test_check_of_a_project_without_recordings_imports_no_audio_analysis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check command of a text-only project (a Xeno-canto item without its recording among
    them) loads neither numpy nor the decoders: the acoustic checks' explanations and limits
    come from ``audio.limits``, and the clip analysis the command runs first finds no clip to
    analyse."""
    items = tmp_path / "items.jsonl"
    rows = [
        {
            "id": "xeno-canto:wren:0",
            "domain": "Xeno-canto",
            "dimension": "Dominant frequency range",
            "question": "What is the dominant frequency range of the Winter Wren's song?",
            "options": ["~1-2 kHz", "~3-8 kHz", "~10-12 kHz", "~15-20 kHz"],
            "answer": "B",
        },
        {
            "id": "wikipedia:koala:0",
            "domain": "Wikipedia",
            "dimension": "Diet",
            "question": "According to the passage, what do koalas eat?",
            "options": ["Eucalyptus leaves", "Bamboo", "Insects", "Grass"],
            "answer": "A",
        },
    ]
    items.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    project = tmp_path / "p.bagel"
    assert run(["import", str(project), str(items)]) == 0  # here: a new project's schema is
    capsys.readouterr()  # made by sqlite-utils, which imports numpy if it can
    result = subprocess.run(
        [sys.executable, "-c", _CHECK, str(project)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "vocalization-missing" in result.stdout  # the Xeno-canto item was checked
    assert result.stdout.splitlines()[-1] == "none", result.stdout + result.stderr
