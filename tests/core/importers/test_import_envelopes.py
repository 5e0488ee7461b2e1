"""Raw generator outputs of the four tracks, wrapped in their envelopes (FORMATS.md 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core.checks.xenocanto import VOCALIZATION_MISSING, VOCALIZATION_MIXED
from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store

ASH = "ashForestInteractions__interactions.tsv"
KOALA_DIMENSIONS = [
    "Taxonomy",
    "behaviour",
    "Communication",
    "Morphology",
    "Habitat",
    "Cognition",
    "Geographic distribution",
    "DIET",
]


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def koala_envelope() -> dict[str, Any]:
    questions = [
        {
            "dimension": dim,
            "question": f"Koala question {i}?",
            "options": [f"wrong {i}a", f"right {i}", f"wrong {i}b", f"wrong {i}c"],
            "answer": f"right {i}",
        }
        for i, dim in enumerate(KOALA_DIMENSIONS)
    ]
    return {
        "id": "wikipedia:koala",
        "domain": "Wikipedia",
        "source": {
            "scientific_name": "Phascolarctos cinereus",
            "common_names": ["koala"],
            "taxonomy": {"kingdom": "Animalia", "genus": "Phascolarctos"},
            "title": "Koala",
            "extract_file": "Koala.txt",
        },
        "output": {"questions": questions},
    }


def globi_output(usable: Any, **extra: Any) -> dict[str, Any]:
    return {
        "usable": usable,
        "dimension": "Masked participant identification",
        "question": "Which taxon does the Syrian woodpecker nestling eat in Poland?",
        "options": {"A": "Lepidoptera", "B": "Quercus robur", "C": "Canis lupus", "D": "Fungi"},
        "correct_answer": "A",
        "supporting_evidence": ["Dendrocopos syriacus eats"],
        "rationale": "The record says it eats caterpillars.",
        **extra,
    }


def test_wikipedia_envelope_with_eight_questions(
    store: Store, tmp_path: Path, data_dir: Path
) -> None:
    items = write_jsonl(tmp_path / "wiki.jsonl", [koala_envelope()])
    report = import_paths(store, [items, data_dir / "wikipedia" / "Koala.txt"])

    assert report.added_by_domain == {"Wikipedia": 8} and report.exit_status == 0
    ids = [f"wikipedia:koala:{i}" for i in range(8)]
    assert report.new_item_ids == ids
    for index, item_id in enumerate(ids):
        item = store.items.get(item_id)
        assert item.content.answer_index == 1
        assert item.content.answer_text == f"right {index}"
        assert item.text_key == "title:Koala"
        assert item.source["scientific_name"] == "Phascolarctos cinereus"
        assert item.source_line == 1
        assert store.flags.blocking(item_id) == []
    dimensions = [store.items.get(i).content.dimension for i in ids]
    assert dimensions == [
        "Taxonomy",
        "Behavior",
        "Communication",
        "Morphology",
        "Habitat",
        "Cognition",
        "Geographic Distribution",
        "Diet",
    ]
    text = store.evidence.find_text(store.items.get(ids[0]).text_key)
    assert text is not None and text["scientific_name"] == "Phascolarctos cinereus"


def test_globi_usable_and_rejected_outputs(store: Store, tmp_path: Path, data_dir: Path) -> None:
    records = [
        {
            "id": "globi:s-true",
            "domain": "GloBI",
            "source": {"table": f"data/globi/{ASH}", "row": 1, "summary": "D. syriacus eats"},
            "output": globi_output("true"),
        },
        {
            "id": "globi:b-true",
            "domain": "GloBI",
            "source": {"table": ASH, "row": 2},
            "output": globi_output(True),
        },
        {
            "id": "globi:s-false",
            "domain": "GloBI",
            "source": {"table": ASH, "row": 3},
            "output": {"usable": "false", "rejection_reason": "too_sparse"},
        },
        {
            "id": "globi:b-false",
            "domain": "GloBI",
            "source": {"table": ASH, "row": 4},
            "output": {"usable": False, "rejection_reason": "lexical_leakage"},
        },
        {
            "id": "globi:s-false-2",
            "domain": "GloBI",
            "source": {"table": ASH, "row": 5},
            "output": {"usable": "False", "rejection_reason": "too_sparse"},
        },
        {
            "id": "globi:inline",
            "domain": "GloBI",
            "source": {
                "record": {
                    "sourceTaxonName": "Vulpes vulpes",
                    "interactionTypeName": "eats",
                    "targetTaxonName": "Microtus arvalis",
                    "decimalLatitude": "53.1",
                }
            },
            "output": globi_output("true"),
        },
    ]
    items = write_jsonl(tmp_path / "globi.jsonl", records)
    report = import_paths(store, [items, data_dir / "globi" / ASH])  # items named first

    assert report.added_by_domain == {"GloBI": 3}
    assert report.generator_rejections == {"GloBI": {"too_sparse": 2, "lexical_leakage": 1}}
    assert store.imports.generator_rejection_counts() == report.generator_rejections
    assert report.exit_status == 0  # the generator's own rejections are not input errors
    usable = store.items.get("globi:s-true")
    assert usable.globi_ref == f"{ASH}#1"
    assert usable.content.answer_text == "Lepidoptera"
    assert usable.supporting_evidence == ("Dendrocopos syriacus eats",)
    assert usable.rationale == "The record says it eats caterpillars."
    assert usable.source["summary"] == "D. syriacus eats"
    record = store.evidence.globi_record(usable.globi_ref)
    assert record is not None and record["target_taxon"] == "Lepidoptera"
    assert store.items.get("globi:b-true").globi_ref == f"{ASH}#2"
    inline = store.items.get("globi:inline")
    assert inline.globi_ref == "inline:globi:inline"
    inline_record = store.evidence.globi_record("inline:globi:inline")
    assert inline_record is not None
    assert inline_record["source_taxon"] == "Vulpes vulpes"
    assert inline_record["latitude"] == pytest.approx(53.1)


def test_biorxiv_envelope_with_supporting_evidence(
    store: Store, tmp_path: Path, data_dir: Path
) -> None:
    envelope = {
        "id": "biorxiv:bats:0",
        "domain": "bioRxiv",
        "source": {
            "doi": "10.1101/2020.02.11.942060",
            "title": "Birds versus bats",
            "text_file": "biorxiv_2020.02.11.942060_birds_versus_bats.json",
        },
        "output": {
            "dimension": "Result interpretation",
            "question": "What explains success?",
            "options": {"A": "Size", "B": "Stoops and rolling grabs", "C": "Night", "D": "Flocks"},
            "correct_answer": "B",
            "supporting_evidence": [
                "executing a stoop or rolling grab manoeuvre",
                "three-quarters of all attacks",
            ],
            "reason": "The abstract attributes success to stoops.",
        },
    }
    items = write_jsonl(tmp_path / "biorxiv.jsonl", [envelope])
    import_paths(store, [items, data_dir / "biorxiv"])

    item = store.items.get("biorxiv:bats:0")
    assert item.content.dimension == "Result Interpretation"
    assert item.content.answer_index == 1
    assert item.supporting_evidence == (
        "executing a stoop or rolling grab manoeuvre",
        "three-quarters of all attacks",
    )
    assert item.rationale == "The abstract attributes success to stoops."
    assert item.text_key == "doi:10.1101/2020.02.11.942060"
    text = store.evidence.find_text(item.text_key)
    assert text is not None
    for span in item.supporting_evidence:
        assert span in text["text"]


def test_xeno_canto_envelopes_list_and_object_options(
    store: Store, tmp_path: Path, data_dir: Path
) -> None:
    records = [
        {
            "id": "xeno-canto:xc625750:0",
            "domain": "Xeno-canto",
            "source": {
                "recording": "XC625750",
                "common_name": "House Sparrow",
                "scientific_name": "Passer domesticus",
                "vocalization_type": "song",
                "topic": "Dominant frequency range",
            },
            "output": {
                "question": "What is the dominant frequency of the song?",
                "options": {"A": "~1-2 kHz", "B": "~3-5 kHz", "C": "~6-8 kHz", "D": "~9-11 kHz"},
                "answer": "B",
            },
        },
        {
            "id": "xeno-canto:sparrow:1",
            "domain": "xeno canto",
            "source": {"recording": "xc 625750", "topic": "call/ syllable duration"},
            "output": {
                "question": "How long is one call?",
                "options": ["80-150 ms", "200-400 ms", "0.8-1.2 s", "1.5-2.0 s"],
                "answer": 0,
                "level": "Hard",
            },
        },
    ]
    items = write_jsonl(tmp_path / "xc.jsonl", records)
    import_paths(store, [data_dir / "xeno_canto", items])

    first = store.items.get("xeno-canto:xc625750:0")
    assert first.recording_id == "XC625750"
    assert first.content.dimension == "Dominant frequency range"  # from the source's topic
    assert first.content.answer_text == "~3-5 kHz"
    second = store.items.get("xeno-canto:sparrow:1")
    assert second.domain == "Xeno-canto" and second.recording_id == "XC625750"
    assert second.content.dimension == "Call / syllable duration"
    assert (second.content.answer_index, second.content.level) == (0, "hard")
    recording = store.evidence.recording(second.recording_id)
    assert recording is not None and recording["audio_path"].endswith("XC625750.mp3")


def test_answer_aliases_and_forms(store: Store, tmp_path: Path) -> None:
    base = {
        "domain": "GloBI",
        "dimension": "Masked interaction type inference",
        "question": "Which interaction?",
        "options": ["eats", "pollinates", "parasite of", "visits"],
    }
    forms = {
        "letter": {"answer": "c"},
        "index": {"answer": 2},
        "text": {"gold": "parasite of"},
        "correct": {"correct_answer": "C)"},
        "answer_index": {"answer_index": 2},
        "label": {"label": "C"},
        "spaced": {"answer": "  Parasite   of "},
    }
    items = write_jsonl(
        tmp_path / "forms.jsonl",
        [base | {"id": f"globi:{name}"} | form for name, form in forms.items()],
    )
    report = import_paths(store, [items])

    assert report.rejects == []
    for name in forms:
        assert store.items.get(f"globi:{name}").content.answer_index == 2, name


def test_items_without_ids_get_stable_ids(store: Store, tmp_path: Path) -> None:
    item = {
        "domain": "Wikipedia",
        "dimension": "Diet",
        "question": "What do koalas eat?",
        "options": ["Eucalyptus leaves", "Grass", "Insects", "Fish"],
        "answer": "A",
    }
    first = import_paths(store, [write_jsonl(tmp_path / "a.jsonl", [item])])
    (item_id,) = first.new_item_ids
    assert item_id.startswith("wikipedia:")

    second = import_paths(store, [write_jsonl(tmp_path / "b.jsonl", [item, item | {"x": 1}])])
    assert second.new_item_ids == [] and second.unchanged == 2
    assert second.already_by_domain == {"Wikipedia": 1}
    assert store.items.count() == 1


def test_existing_ids_are_left_alone(store: Store, tmp_path: Path) -> None:
    item = {
        "id": "wikipedia:x:0",
        "domain": "Wikipedia",
        "dimension": "Diet",
        "question": "Original?",
        "options": ["a", "b", "c", "d"],
        "answer": "A",
    }
    import_paths(store, [write_jsonl(tmp_path / "a.jsonl", [item])])
    changed = item | {"question": "Changed?"}
    report = import_paths(store, [write_jsonl(tmp_path / "b.jsonl", [changed])])

    assert report.unchanged == 1 and report.added == 0
    assert store.items.get("wikipedia:x:0").content.question == "Original?"


def test_evidence_arriving_later_rechecks_linked_items(
    store: Store, tmp_path: Path, data_dir: Path
) -> None:
    envelope = {
        "id": "xeno-canto:xc625750:late",
        "domain": "Xeno-canto",
        "source": {"recording": "XC625750"},
        "output": {
            "question": "Which song frequency?",
            "dimension": "Dominant frequency range",
            "options": ["1 kHz", "4 kHz", "8 kHz", "12 kHz"],
            "answer": "B",
        },
    }
    import_paths(store, [write_jsonl(tmp_path / "xc.jsonl", [envelope])])
    assert store.evidence.recording("XC625750") is None
    before = {f.check for f in store.flags.of_item("xeno-canto:xc625750:late")}
    assert VOCALIZATION_MISSING in before

    import_paths(store, [data_dir / "xeno_canto" / "recordings.csv"])
    item = store.items.get("xeno-canto:xc625750:late")
    recording = store.evidence.recording(item.recording_id)
    assert recording is not None and recording["common_name"] == "House Sparrow"
    after = {
        f.check for f in store.flags.of_item(item.id)
    }  # its "call, ..., song" type is now known
    assert VOCALIZATION_MISSING not in after and VOCALIZATION_MIXED in after
