"""The labeled check corpus stays consistent with itself and with the checks' ids.

``tests/benchmarks/bench_checks.py`` measures every check's precision and recall on this corpus;
these tests keep the measuring instrument sound: the truth file and the item files name the same
items, every check the truth names exists, every warning-level and blocking check is planted
often enough for its recall to mean something, the scripted answers name options the items have,
and every item's evidence is in its own split.
"""

from __future__ import annotations

import csv
import json
from collections import Counter

import pytest

from bagel_studio.core.checks import CHECKS
from tests.support.check_corpus import (
    DOMAINS,
    JUDGE_VERDICTS,
    KINDS,
    REFERENCE_MODELS,
    SCRIPT_KEYS,
    SPLITS,
    Truth,
    corpus_items,
    load_truth,
    options_of,
    readme_severities,
    split_dir,
)

# Planted items per check over both splits, by the check's severity in the README's table.
MIN_PLANTED = {"blocking": 3, "warning": 5, "info": 3}
MIN_ITEMS = 400


@pytest.fixture(scope="module")
def truths() -> dict[str, Truth]:
    return load_truth()


@pytest.fixture(scope="module")
def written() -> dict[str, dict[str, object]]:
    items: dict[str, dict[str, object]] = {}
    for split in SPLITS:
        for item_id, item in corpus_items(split):
            assert item_id not in items, f"{item_id} is written twice"
            items[item_id] = {"split": split, **item}
    return items


def test_the_truth_file_and_the_item_files_name_the_same_items(
    truths: dict[str, Truth], written: dict[str, dict[str, object]]
) -> None:
    assert sorted(set(truths) - set(written)) == []  # truth lines without an item
    assert sorted(set(written) - set(truths)) == []  # items the truth file does not label
    moved = [i for i, t in truths.items() if written[i]["split"] != t.split]
    assert moved == []  # each item is in the split its truth line says


def test_every_check_the_truth_names_exists(truths: dict[str, Truth]) -> None:
    named = Counter(c for t in truths.values() for c in t.raise_ | t.allow | t.tempts)
    assert sorted(set(named) - set(CHECKS)) == []


def test_each_truth_line_is_well_formed(truths: dict[str, Truth]) -> None:
    for truth in truths.values():
        assert truth.split in SPLITS and truth.domain in DOMAINS and truth.kind in KINDS, truth.id
        assert truth.note, f"{truth.id} says nothing about why"
        if truth.kind == "flawed":
            assert truth.raise_, f"{truth.id} is flawed but raises nothing"
        else:
            assert not truth.raise_, f"{truth.id} is {truth.kind} but raises {sorted(truth.raise_)}"
        assert not truth.raise_ & truth.allow, truth.id
        assert not truth.tempts & (truth.raise_ | truth.allow), truth.id


def test_every_warning_and_blocking_check_is_planted_often_enough(
    truths: dict[str, Truth],
) -> None:
    severities = readme_severities()
    assert set(severities) == set(CHECKS)  # the README's table names every check once
    planted = Counter(c for t in truths.values() for c in t.raise_)
    short = {
        check: planted[check]
        for check, severity in severities.items()
        if planted[check] < MIN_PLANTED[severity]
    }
    assert short == {}


def test_the_corpus_is_large_and_split(truths: dict[str, Truth]) -> None:
    assert len(truths) >= MIN_ITEMS
    # most of it in parts written by people who had not read the checks (every part but dev,
    # the one the checks were first fixed on)
    written_unseen = sum(1 for t in truths.values() if t.split != "dev")
    assert written_unseen >= len(truths) / 2
    cells = Counter((t.split, t.domain, t.kind) for t in truths.values())
    missing = [
        (split, domain, kind)
        for split in SPLITS
        for domain in DOMAINS
        for kind in KINDS
        if not cells[(split, domain, kind)]
    ]
    assert missing == []  # every split has clean, hard-clean and flawed items of every domain


def test_scripted_answers_name_options_of_their_items(
    truths: dict[str, Truth], written: dict[str, dict[str, object]]
) -> None:
    for truth in truths.values():
        script = truth.script
        assert set(script) <= set(SCRIPT_KEYS), truth.id
        options = options_of(written[truth.id])
        for key in ("models", "options_only"):
            for model, answer in script.get(key, {}).items():
                assert model in REFERENCE_MODELS and answer in options, (truth.id, key, answer)
        if "judge" in script:
            assert script["judge"]["verdict"] in JUDGE_VERDICTS, truth.id
            assert script["judge"]["key"] in options, truth.id
        for blind in script.get("blind", ()):
            assert blind["answer"] in options and blind["curator"], truth.id
            assert blind.get("decision", "uncertain") in ("uncertain", "skip", "accept"), truth.id


def test_options_only_scripts_tell_their_items_apart(
    truths: dict[str, Truth], written: dict[str, dict[str, object]]
) -> None:
    """Without a stem the scripted server knows an item by its options: a scripted one must be
    the only item of its split with that set of options."""
    sets = Counter((w["split"], frozenset(options_of(w))) for w in written.values())
    ambiguous = [
        t.id
        for t in truths.values()
        if "options_only" in t.script and sets[(t.split, frozenset(options_of(written[t.id])))] > 1
    ]
    assert ambiguous == []


def test_every_item_finds_its_evidence_in_its_own_split(
    written: dict[str, dict[str, object]],
) -> None:
    for split in SPLITS:
        folder = split_dir(split)
        texts = {p.name for p in (folder / "wikipedia").glob("*.txt")}
        papers = {p.name for p in (folder / "biorxiv").glob("*.json")}
        tables = {p.name for p in (folder / "globi").glob("*.tsv")}
        recordings: dict[str, str] = {}
        metadata = folder / "xeno_canto" / "recordings.csv"
        if metadata.exists():
            with metadata.open(encoding="utf-8") as f:
                recordings = {f"XC{row['id']}": row["file-name"] for row in csv.DictReader(f)}
        for path in sorted((folder / "items").glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                data = json.loads(line)
                source = data.get("source") or {}
                if "extract_file" in source:
                    assert source["extract_file"] in texts, data["id"]
                if "text_file" in source:
                    assert source["text_file"] in papers, data["id"]
                if "table" in source:
                    assert source["table"] in tables, data["id"]
                recording = source.get("recording") or data.get("recording")
                if recording:
                    assert recording in recordings, data["id"]
                    assert (folder / "xeno_canto" / recordings[recording]).exists(), recording
