"""The release report audits what it releases: the baselines over the released (shuffled) items
in a table and a plot against the 25% line, the artifacts in words, duplicates and leaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.audit import run_audit
from bagel_studio.core.export import export_release, plan_export
from bagel_studio.core.export.audit_section import release_audit
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store
from tests.core.audit.planted import LEAKED_ID, LEAKING_ID, planted_project


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("release")
    path = planted_project(folder / "planted.bagel")
    with Store.open(path) as store:
        for item_id in store.items.ids():
            if not item_id.startswith("biorxiv:") or item_id.endswith("0"):
                operations.decide(store, item_id, "ana", Decision.ACCEPT)
        export_release(store, folder / "out", seed=3)
    return folder / "out"


def section(release: Path) -> str:
    report = (release / "report" / "report.md").read_text(encoding="utf-8")
    return report[report.index("## Benchmark audit") :]


def test_the_report_names_the_released_artifact_with_its_numbers(release: Path) -> None:
    text = section(release)
    assert "| `longest` |" in text and "**61.9% (p < 1e-40)**" in text
    assert (
        "- GloBI / Masked participant identification: the longest option is the gold 99.5% of"
        " the time, n = 201, p < 1e-40" in text
    )
    # The shuffle balanced the gold positions: no position artifact is left in the release,
    # although bioRxiv had its gold in B seven times in ten before.
    assert "position B" not in text
    assert "bioRxiv: the" not in text


def test_the_report_lists_duplicates_and_leaks_and_plots_the_baselines(release: Path) -> None:
    text = section(release)
    # the leaking pair asks two facts (the prey, the interaction): a leak, not a duplicate
    assert "Near-duplicate clusters among the released items: 4." in text
    assert "- wikipedia:para:1a = wikipedia:para:1b" in text
    assert f"- {LEAKING_ID} states the answer of {LEAKED_ID}" in text
    assert "![Heuristic baselines per domain against chance](audit_baselines.png)" in text
    png = (release / "report" / "audit_baselines.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5_000


def test_the_audit_section_is_reproducible(release: Path, tmp_path: Path) -> None:
    """Same project, same seed: the same report and plot, byte for byte."""
    path = release.parent / "planted.bagel"
    with Store.open(path) as store:
        export_release(store, tmp_path / "again", seed=3)
    for name in ("report.md", "audit_baselines.png"):
        assert (tmp_path / "again" / "report" / name).read_bytes() == (
            release / "report" / name
        ).read_bytes()


def test_the_release_audit_is_the_project_audit_of_the_released_items(tmp_path: Path) -> None:
    """With every item accepted, the release audits what the project's audit audits: the same
    clusters and leaks; the option baselines score the same (they do not depend on the
    options' order, which the release shuffles)."""
    path = planted_project(tmp_path / "planted.bagel")
    with Store.open(path) as store:
        operations.decide_many(store, store.items.ids(), "ana", Decision.ACCEPT)
        project = run_audit(store)
        release = release_audit(plan_export(store, seed=8))
    assert project.items == release.items == 750
    assert {frozenset(c) for c in project.duplicates} == {frozenset(c) for c in release.duplicates}
    assert len(project.duplicates) == 4
    assert {(x.item_id, x.leaked_item_id, x.answer) for x in project.leaks} == {
        (x.item_id, x.leaked_item_id, x.answer) for x in release.leaks
    }
    assert project.leaks
    for name in ("longest", "shortest", "stem_overlap", "centroid"):
        for domain, score in project.baselines.by_domain[name].items():
            released = release.baselines.by_domain[name][domain]
            assert (released.n, released.accuracy) == (score.n, pytest.approx(score.accuracy))
