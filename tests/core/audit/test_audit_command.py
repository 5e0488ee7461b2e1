"""``bagel-studio audit``: the JSON the issue specifies, text output, flags, exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.store import Store
from tests.core.audit.planted import LEAKED_ID, LEAKING_ID, planted_project

BASELINE_NAMES = {"longest", "shortest", "stem_overlap", "centroid", "position"}


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return planted_project(tmp_path_factory.mktemp("planted-cli") / "planted.bagel")


def test_audit_json_has_the_documented_shape(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["audit", str(planted), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(BASELINE_NAMES) == set(data["baselines"])
    for by_domain in data["baselines"].values():
        assert set(by_domain) == {"Wikipedia", "GloBI", "bioRxiv", "Xeno-canto"}
        for score in by_domain.values():
            assert set(score) == {"accuracy", "n", "p_value"}
            assert 0 <= score["accuracy"] <= 1 and 0 <= score["p_value"] <= 1
    assert data["baselines"]["longest"]["GloBI"]["n"] == 402
    artifact = next(a for a in data["artifacts"] if a["dimension"] is not None)
    assert {k: artifact[k] for k in ("baseline", "domain", "dimension", "n")} == {
        "baseline": "longest",
        "domain": "GloBI",
        "dimension": "Masked participant identification",
        "n": 201,
    }
    assert artifact["p_value"] < 1e-40 and artifact["accuracy"] > 0.99
    assert ["wikipedia:para:1a", "wikipedia:para:1b"] in data["duplicates"]
    assert data["leaks"] == [{"item_id": LEAKING_ID, "leaked_item_id": LEAKED_ID}]


def test_audit_text_names_findings_and_sets_flags(
    planted: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy.bagel"
    copy.write_bytes(planted.read_bytes())
    assert run(["audit", str(copy)]) == 0
    captured = capsys.readouterr()
    assert "bioRxiv: the gold is in position B 70% of the time, n = 100" in captured.out
    assert f"{LEAKING_ID} states the answer of {LEAKED_ID}: 'Microtus arvalis'" in captured.out
    assert "audit flags set on" in captured.err
    with Store.open(copy, read_only=True) as store:
        assert "leaks-answer-of" in {f.check for f in store.flags.of_item(LEAKING_ID)}


def test_audit_no_flags_only_reads(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = planted.read_bytes()
    assert run(["audit", str(planted), "--no-flags"]) == 0
    assert "Near-duplicate clusters" in capsys.readouterr().out
    assert planted.read_bytes() == before


def test_audit_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["audit", str(tmp_path / "missing.bagel")]) == 2
    assert "no such project" in capsys.readouterr().err
    not_a_project = tmp_path / "notes.bagel"
    not_a_project.write_text("not sqlite", encoding="utf-8")
    assert run(["audit", str(not_a_project)]) == 2
    assert "not a BAGEL Studio project" in capsys.readouterr().err


def test_audit_of_an_empty_project_is_empty(tmp_path: Path) -> None:
    Store.open(tmp_path / "empty.bagel").close()
    result = subprocess.run(
        [sys.executable, "-m", "bagel_studio", "audit", str(tmp_path / "empty.bagel"), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["items"] == 0 and data["artifacts"] == [] and data["duplicates"] == []
    assert data["leaks"] == [] and set(data["baselines"]) == BASELINE_NAMES
