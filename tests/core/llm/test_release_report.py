"""The release report's model tables (3, 4, 5-7, 11) and plots, and the manifest's models."""

from __future__ import annotations

import json
from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.cli import run
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.llm.conftest import ITEMS
from tests.support.llm_server import ScriptedServer


def test_report_has_the_model_tables_and_the_manifest_names_the_models(
    llm_project: Path, scripted: ScriptedServer, tmp_path: Path
) -> None:
    for model in ("gold", "always-A"):
        assert (
            run(["evaluate", str(llm_project), "--model", model, "--base-url", scripted.url]) == 0
        )
    assert run(["levels", str(llm_project), "--models", "gold", "always-A", "--apply"]) == 0
    with Store.open(llm_project) as store:
        for item_id, *_ in ITEMS:
            operations.decide(store, item_id, "ann", Decision.ACCEPT)
    # Table 11 shows the letters of a run asked in the release's order (only such letters name
    # positions the release has).
    assert run(["evaluate", str(llm_project), "--model", "always-A", "--seed", "3"]) == 0
    out = tmp_path / "release"
    assert run(["export", str(llm_project), str(out), "--seed", "3"]) == 0
    report = (out / "report" / "report.md").read_text()
    for heading in ("Table 3", "Table 4", "Tables 5-7", "Table 11"):
        assert heading in report
    assert "| always-A | Wikipedia | 2 (100.0%) | 0 (0.0%) | 0 (0.0%) | 0 (0.0%) |" in report
    assert "| gold |" in report and "| 100.0 |" in report
    for plot in ("levels.png", "model_accuracy.png", "model_letters.png"):
        png = (out / "report" / plot).read_bytes()
        assert png.startswith(b"\x89PNG") and f"({plot})" in report
    manifest = json.loads((out / "manifest.json").read_text())
    models = manifest["llm"]["models"]
    assert set(models) == {"gold", "always-A"}
    assert models["gold"]["temperature"] == 0.0 and models["gold"]["seed"] == 0
    assert len(manifest["llm"]["evaluation_prompt_sha256"]) == 64
    assert "report/model_letters.png" in manifest["files"]
    # Byte-identical again with the same seed.
    again = tmp_path / "again"
    assert run(["export", str(llm_project), str(again), "--seed", "3"]) == 0
    assert (again / "report" / "report.md").read_bytes() == report.encode()


def test_release_without_models_has_no_model_section(llm_project: Path, tmp_path: Path) -> None:
    with Store.open(llm_project) as store:
        for item_id, *_ in ITEMS:
            operations.decide(store, item_id, "ann", Decision.ACCEPT)
    out = tmp_path / "release"
    assert run(["export", str(llm_project), str(out), "--seed", "3"]) == 0
    assert "## Models" not in (out / "report" / "report.md").read_text()
    assert "llm" not in json.loads((out / "manifest.json").read_text())
