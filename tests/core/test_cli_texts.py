"""The command line's small texts read right: counts agree with their nouns, headers line up with
their columns, an item id is said once, a zero penalty is not '-0.00'."""

from __future__ import annotations

from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.cli import run
from bagel_studio.core.commands.audio import report
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.test_cli import make_project


def test_stats_gold_header_sits_over_its_columns(
    project_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(project_path)
    assert run(["stats", str(project_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if "Gold positions" in line)
    row = lines[header + 1]
    assert row.strip().startswith("Wikipedia")
    for letter in "ABCD":  # each letter ends where its count ends
        end = lines[header].index(letter) + 1
        assert row[end - 1].isdigit() and (end == len(row) or row[end] == " ")


def test_decide_names_a_blocked_item_once(
    project_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(project_path)  # g0 has three options: blocked
    assert run(["decide", str(project_path), "g0", "--curator", "ana", "--accept"]) == 1
    err = capsys.readouterr().err
    assert err.count("g0") == 1, err


def test_agreement_says_one_curator(project_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_project(project_path)
    with Store.open(project_path) as store:
        operations.decide(store, "w1", "ana", Decision.ACCEPT)
    assert run(["agreement", str(project_path)]) == 0
    out = capsys.readouterr().out
    assert "1 item rated by 1 curator (ana)" in out
    assert "1 curators" not in out


def test_audio_says_none_for_a_clip_without_clipping(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clip = data_dir / "xeno_canto" / "XC625750.mp3"  # peak 0.38: nothing clipped
    assert report(str(clip))["clipping_penalty"] < 0.005
    assert run(["audio", str(clip)]) == 0
    clarity = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("clarity"))
    assert "clipping none" in clarity and "-0.00" not in clarity
