"""species-not-detected and other-species-dominant on a real project: the nine Xeno-canto clips
and the bat imported with their metadata and the demo's items, analysed (BirdNET runs), one clip
relabelled with another chickadee of the same genus."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.audio import birdnet
from bagel_studio.core.audio.species_project import card_line, item_answer
from bagel_studio.core.importers import import_paths
from bagel_studio.core.operations import analyze_recordings
from bagel_studio.core.store import Store
from tests.conftest import DATA

RELABELLED = "XC143244"  # a Chestnut-backed Chickadee, relabelled Black-capped
BAT_ITEM = "xeno-canto:xc826198:dominant"


def project_folder(data_dir: Path, folder: Path, relabel: bool) -> Path:
    """The clips, their metadata and one item per clip (the demo's, and one for the bat)."""
    folder.mkdir()
    for clip in (data_dir / "xeno_canto").glob("*.mp3"):
        shutil.copy(clip, folder / clip.name)
    for name in ("metadata.csv", "XC826198-Carollia_sowelli-2013.02.15-CL00829.wav"):
        shutil.copy(data_dir / "bats" / name, folder / name)
    table = (data_dir / "xeno_canto" / "recordings.csv").read_text(encoding="utf-8")
    items = (data_dir.parent / "demo" / "xeno_canto_generator_outputs.jsonl").read_text("utf-8")
    if relabel:
        table = table.replace(
            "143244,Poecile,rufescens,Chestnut-backed Chickadee",
            "143244,Poecile,atricapillus,Black-capped Chickadee",
        )
        items = items.replace("Chestnut-backed Chickadee", "Black-capped Chickadee")
        items = items.replace("Poecile rufescens", "Poecile atricapillus")
    bat = {
        "id": BAT_ITEM,
        "domain": "Xeno-canto",
        "source": {"recording": "XC826198", "scientific_name": "Carollia sowelli"},
        "output": {
            "question": "What is the dominant frequency range of the echolocation call of "
            "Sowell's short-tailed bat (Carollia sowelli)?",
            "options": {"A": "~20-30 kHz", "B": "~60-90 kHz", "C": "~3-5 kHz", "D": "~150 kHz"},
            "answer": "B",
            "dimension": "Dominant frequency range",
        },
    }
    (folder / "recordings.csv").write_text(table, encoding="utf-8")
    (folder / "items.jsonl").write_text(items + json.dumps(bat) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    root = tmp_path_factory.mktemp("species")
    folder = project_folder(DATA, root / "clips", relabel=True)
    with Store.open(root / "project.bagel") as store:
        import_paths(store, [folder])
        report = analyze_recordings(store, workers=1).result
        assert report.detected == 10 and report.species_note is None
        yield store


def species_flags(store: Store, item_id: str) -> dict[str, str]:
    wanted = {"species-not-detected", "other-species-dominant"}
    return {f.check: f.message for f in store.flags.of_item(item_id) if f.check in wanted}


@pytest.mark.slow
def test_every_true_label_is_confirmed_and_the_relabel_flagged(analysed: Store) -> None:
    ids = [i for i in analysed.items.ids() if i != BAT_ITEM]
    assert len(ids) == 9
    for item_id in ids:
        item = analysed.items.get(item_id)
        found = item_answer(analysed, item).answer
        assert found is not None
        if item.recording_id == RELABELLED:
            assert found.verdict == "not detected"
            flags = species_flags(analysed, item_id)
            assert set(flags) == {"species-not-detected", "other-species-dominant"}
            missing, dominant = flags["species-not-detected"], flags["other-species-dominant"]
            assert "Poecile atricapillus (Black-capped Chickadee)" in missing
            assert "Poecile rufescens (Chestnut-backed Chickadee)" in dominant
            assert "2 of 3 windows" in dominant
        else:
            assert found.confirmed, (item_id, found)
            assert species_flags(analysed, item_id) == {}


@pytest.mark.slow
def test_a_bat_is_not_covered_and_not_flagged(analysed: Store) -> None:
    known = item_answer(analysed, analysed.items.get(BAT_ITEM))
    assert known.species == "Carollia sowelli"
    assert known.answer is not None and known.answer.verdict == "not covered"
    assert species_flags(analysed, BAT_ITEM) == {}
    assert card_line(known) == "not covered (Carollia sowelli is not in its list)"


@pytest.mark.slow
def test_detections_are_stored_once_per_clip_with_the_model(analysed: Store) -> None:
    rows = analysed.db.execute("SELECT DISTINCT model, version FROM species_detections").fetchall()
    assert rows == [("BirdNET GLOBAL 6K V2.4", "BirdNET GLOBAL 6K V2.4/1")]
    again = analyze_recordings(analysed, workers=1).result  # resumes: nothing left to do
    assert again.detected == 0 and again.measured == 0 and again.already == 10


@pytest.mark.slow
def test_without_the_extra_analyze_measures_and_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = project_folder(DATA, tmp_path / "clips", relabel=False)
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)  # as if the extra were missing
    with Store.open(tmp_path / "project.bagel") as store:
        import_paths(store, [folder])
        report = analyze_recordings(store, workers=1).result
        assert report.species_note == birdnet.INSTALL_HINT
        assert report.measured == 10 and report.detected == 0 and report.unreadable == 0
        count = store.db.execute("SELECT COUNT(*) FROM species_detections").fetchone()[0]
        assert count == 0
        assert all(species_flags(store, i) == {} for i in store.items.ids())
        monkeypatch.delitem(sys.modules, "ai_edge_litert")  # installed afterwards
        later = analyze_recordings(store, workers=1).result
        assert later.detected == 10 and later.measured == 0 and later.species_note is None


@pytest.mark.slow
def test_the_release_report_counts_what_the_recordings_confirm(
    analysed: Store, tmp_path: Path
) -> None:
    from bagel_studio.core.export import export_release
    from bagel_studio.core.model import Decision
    from bagel_studio.core.operations import decide_many

    decide_many(analysed, analysed.items.ids(), "curator", Decision.ACCEPT)
    export_release(analysed, tmp_path / "release", seed=1)
    report = (tmp_path / "release" / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Is the species in the recording?" in report
    header = "| Domain | Confirms the species | Does not | Not covered | Not analysed |"
    assert header in report
    assert "| Xeno-canto | 8 | 1 | 1 | 0 |" in report  # the relabel does not; the bat
    card = (tmp_path / "release" / "README.md").read_text(encoding="utf-8")
    assert "checked with BirdNET GLOBAL 6K V2.4" in card and "CC BY-NC-SA 4.0" in card
