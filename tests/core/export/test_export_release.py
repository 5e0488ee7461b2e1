"""The release folder from real project files: content, balance, determinism, audit trail."""

from __future__ import annotations

import hashlib
import json
import socket
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.export import (
    ExportBlockedError,
    OutDirExistsError,
    export_release,
    plan_export,
)
from bagel_studio.core.model import Decision, Flag, ItemContent, Severity
from bagel_studio.core.store import NewItem, Store
from tests.core.export.conftest import MakeProject
from tests.core.export.export_support import decide_all, paper_items, read_jsonl, release_files


def test_paper_items_come_out_balanced(paper_store: Store, tmp_path: Path) -> None:
    result = export_release(paper_store, tmp_path / "out", seed=2024)
    rows = read_jsonl(tmp_path / "out" / "data" / "all.jsonl")
    assert len(rows) == 17
    before = [it.content.answer_index for it in paper_store.items.iterate()]
    assert before.count(1) >= 12  # the paper's items: gold mostly at B
    for domain, balance in result.manifest["balance"].items():
        counts = [c for c in balance["after"].values()]
        assert max(counts) - min(counts) <= 1, domain
        domain_rows = [r for r in rows if r["domain"] == domain]
        observed = [sum(1 for r in domain_rows if r["answer"] == x) for x in LETTERS]
        assert observed == counts
    wikipedia = result.manifest["balance"]["Wikipedia"]
    assert wikipedia["before"] == {"A": 0, "B": 8, "C": 0, "D": 0}
    assert wikipedia["after"] == {"A": 2, "B": 2, "C": 2, "D": 2}
    overall_b = sum(1 for r in rows if r["answer"] == "B")
    assert overall_b <= 5


def test_same_seed_gives_identical_bytes_and_another_seed_differs(
    paper_store: Store, tmp_path: Path
) -> None:
    export_release(paper_store, tmp_path / "one", seed=7)
    export_release(paper_store, tmp_path / "two", seed=7)
    export_release(paper_store, tmp_path / "three", seed=8)
    one, two, three = (release_files(tmp_path / n) for n in ("one", "two", "three"))
    assert one == two
    assert any(name.endswith(".png") for name in one)
    assert one["data/all.jsonl"] != three["data/all.jsonl"]
    first = json.loads(one["manifest.json"])
    third = json.loads(three["manifest.json"])
    assert first["content_sha256"] == third["content_sha256"]  # the same items, another order
    assert (first["seed"], third["seed"]) == (7, 8)


def test_left_out_items_are_absent_and_counted(
    make_project: MakeProject, tmp_path: Path, data_dir: Path
) -> None:
    store = make_project(paper_items(data_dir))
    ids = store.items.ids()
    rejected, skipped, uncertain, disputed, unreviewed = ids[0], ids[1], ids[2], ids[3], ids[4]
    decide_all(store, ids[5:])
    operations.decide(store, rejected, "ada", Decision.REJECT, reason="several-answers")
    operations.decide(store, skipped, "ada", Decision.SKIP)
    operations.decide(store, uncertain, "ada", Decision.UNCERTAIN)
    operations.decide(store, disputed, "ada", Decision.ACCEPT)
    operations.decide(store, disputed, "bob", Decision.REJECT, reason="ambiguous")

    result = export_release(store, tmp_path / "out", seed=1)

    released = {r["id"] for r in read_jsonl(tmp_path / "out" / "data" / "all.jsonl")}
    provenance = {r["id"] for r in read_jsonl(tmp_path / "out" / "provenance.jsonl")}
    assert released == provenance == set(ids[5:])
    for absent in (rejected, skipped, uncertain, disputed, unreviewed):
        assert absent not in released
    left_out = {s: v["total"] for s, v in result.manifest["counts"]["left_out"].items()}
    assert left_out == {"disputed": 1, "rejected": 1, "skipped": 1, "uncertain": 1, "unreviewed": 1}
    reasons = result.manifest["counts"]["reject_reasons"]
    assert reasons == {"Wikipedia": {"several-answers": 1}}
    report = (tmp_path / "out" / "report" / "report.md").read_text(encoding="utf-8")
    assert "Several defensible answers" in report


def test_reject_reasons_count_each_rejected_item_once_per_reason(
    make_project: MakeProject, data_dir: Path
) -> None:
    """Curators' distinct reasons each count, the same reason twice once, none is "other",
    and an adjudication's reason replaces the curators' (the plan counts them in SQL)."""
    store = make_project(paper_items(data_dir))
    ids = store.items.ids()
    decide_all(store, ids[4:])
    reject = Decision.REJECT
    for curator, reason in (("ada", "ambiguous"), ("bob", "several-answers"), ("cy", "ambiguous")):
        operations.decide(store, ids[0], curator, reject, reason=reason)
    for curator in ("ada", "bob"):
        operations.decide(store, ids[1], curator, reject, reason="trivial")
    with sqlite3.connect(store.path) as conn:  # as an older project may hold them: no reason
        conn.execute("UPDATE reviews SET reason = NULL WHERE item_id = ?", [ids[1]])
    operations.decide(store, ids[2], "ada", reject, reason="ambiguous")
    operations.decide(store, ids[2], "bob", Decision.ACCEPT)
    operations.adjudicate(store, ids[2], "eve", reject, reason="factually-wrong")
    operations.decide(store, ids[3], "ada", reject, reason="trivial")
    operations.adjudicate(store, ids[3], "eve", reject)
    plan = plan_export(store, seed=1)
    domains = {store.items.get(i).domain for i in ids[:4]}
    counted: Counter[str] = Counter()
    for domain in domains:
        counted.update(plan.reject_reasons.get(domain, {}))
    assert counted == {"ambiguous": 1, "several-answers": 1, "other": 2, "factually-wrong": 1}
    assert sum(plan.left_out["rejected"].values()) == 4
    assert sum(sum(by.values()) for by in plan.outcomes.values()) == len(ids)


def test_answer_is_the_approved_gold_text(paper_store: Store, tmp_path: Path) -> None:
    export_release(paper_store, tmp_path / "out", seed=3)
    for row in read_jsonl(tmp_path / "out" / "data" / "all.jsonl"):
        approved = paper_store.reviews.final_content(row["id"])
        assert approved is not None
        assert row["options"][row["answer_index"]] == approved.answer_text
        assert row["answer"] == LETTERS[row["answer_index"]]
        assert sorted(row["options"]) == sorted(approved.options)
        assert row["question"] == approved.question


def test_edits_and_adjudicated_content_are_released(paper_store: Store, tmp_path: Path) -> None:
    item_id = "wikipedia:kea:0"
    item = paper_store.items.get(item_id)
    edited = item.content.with_changes(
        question="Which cognitive ability of the kea is documented in problem-solving studies?",
        options=(*item.content.options[:3], "They can navigate by the stars"),
    )
    operations.edit(paper_store, item_id, "ada", edited)
    operations.decide(paper_store, item_id, "ada", Decision.ACCEPT)
    adjudicated_id = "globi:pallisentis:0"
    adjudicated = paper_store.items.get(adjudicated_id).content.with_changes(
        options=("Anabantidae", "Channa striata", "Heteropneustes fossilis", "Clarias batrachus")
    )
    operations.decide(
        paper_store, adjudicated_id, "bob", Decision.REJECT, reason="taxonomic-granularity"
    )
    operations.adjudicate(paper_store, adjudicated_id, "cy", Decision.ACCEPT, adjudicated)

    export_release(paper_store, tmp_path / "out", seed=3)

    rows = {r["id"]: r for r in read_jsonl(tmp_path / "out" / "data" / "all.jsonl")}
    assert rows[item_id]["question"] == edited.question
    assert "They can navigate by the stars" in rows[item_id]["options"]
    assert rows[item_id]["options"][rows[item_id]["answer_index"]] == edited.answer_text
    assert "Cichlidae" not in rows[adjudicated_id]["options"]
    assert rows[adjudicated_id]["options"][rows[adjudicated_id]["answer_index"]] == "Channa striata"
    provenance = {r["id"]: r for r in read_jsonl(tmp_path / "out" / "provenance.jsonl")}
    kea = provenance[item_id]
    assert kea["revised"] is True
    assert kea["before"]["question"] == item.original.question
    assert kea["after"]["question"] == edited.question
    assert [d["decision"] for d in kea["decisions"]] == ["revise"]
    pallisentis = provenance[adjudicated_id]
    assert pallisentis["adjudication"]["adjudicator"] == "cy"
    assert {d["curator"]: d["decision"] for d in pallisentis["decisions"]} == {
        "ada": "accept",
        "bob": "reject",
    }
    assert provenance["wikipedia:andean-flamingo:0"]["revised"] is False


def test_provenance_maps_released_options_to_the_original_order(
    paper_store: Store, tmp_path: Path
) -> None:
    export_release(paper_store, tmp_path / "out", seed=99)
    rows = {r["id"]: r for r in read_jsonl(tmp_path / "out" / "data" / "all.jsonl")}
    for record in read_jsonl(tmp_path / "out" / "provenance.jsonl"):
        row = rows[record["source_item_id"]]
        original = record["original_options"]
        assert [original[i] for i in record["permutation"]] == row["options"]
        assert record["permutation"][row["answer_index"]] == record["original_answer_index"]


def _item(item_id: str, options: tuple[str, ...], gold: int) -> NewItem:
    return NewItem(
        id=item_id,
        domain="Xeno-canto",
        content=ItemContent(
            "Which clip has the higher dominant frequency?",
            options,
            gold,
            "Dominant frequency range",
            "hard",
        ),
    )


def test_fixed_order_options_keep_their_place(make_project: MakeProject, tmp_path: Path) -> None:
    sounds = ("Sound 1", "Sound 2", "Sound 3", "All are indistinguishable")
    catch_all = ("~1-2 kHz", "~3-5 kHz", "~6-8 kHz", "None of the above")
    items = [_item(f"xc:sounds:{n}", sounds, n % 4) for n in range(4)]
    items += [_item(f"xc:ranges:{n}", catch_all, 1) for n in range(12)]
    store = make_project(items)
    decide_all(store, store.items.ids())

    result = export_release(store, tmp_path / "out", seed=5)

    rows = read_jsonl(tmp_path / "out" / "data" / "all.jsonl")
    for row in rows:
        if row["id"].startswith("xc:sounds:"):
            assert row["options"] == list(sounds)
        else:
            assert row["options"][3] == "None of the above"
            assert row["options"][row["answer_index"]] == "~3-5 kHz"
    balance = result.manifest["balance"]["Xeno-canto"]
    assert balance["immovable"] == 4
    assert balance["movable_after"] == {"A": 4, "B": 4, "C": 4, "D": 0}
    assert result.manifest["immovable_items"] == 4


def test_manifest_hashes_match_the_files(paper_store: Store, tmp_path: Path) -> None:
    result = export_release(paper_store, tmp_path / "out", seed=1)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest == result.manifest
    files = release_files(tmp_path / "out")
    assert set(manifest["files"]) == set(files) - {"manifest.json"}
    for name, entry in manifest["files"].items():
        assert entry["sha256"] == hashlib.sha256(files[name]).hexdigest()
        assert entry["bytes"] == len(files[name])
    assert manifest["seed"] == 1
    assert manifest["tool"] == "bagel-studio"
    assert manifest["counts"]["released"]["total"] == 17
    assert sum(manifest["counts"]["released"]["by_domain"].values()) == 17


def test_release_records_nothing_about_the_run(paper_store: Store, tmp_path: Path) -> None:
    export_release(paper_store, tmp_path / "out", seed=1)
    for name, data in release_files(tmp_path / "out").items():
        if name.endswith(".png"):
            assert b"Software" not in data and b"tIME" not in data
            continue
        text = data.decode("utf-8")
        assert str(tmp_path) not in text, name
        assert socket.gethostname() not in text, name
        assert "\r" not in text


def test_dataset_card_declares_configs_and_data_files(paper_store: Store, tmp_path: Path) -> None:
    export_release(paper_store, tmp_path / "out", seed=1)
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    header = card.split("---\n")[1]
    for config, path in [
        ("all", "data/all.jsonl"),
        ("wikipedia", "data/wikipedia.jsonl"),
        ("globi", "data/globi.jsonl"),
        ("biorxiv", "data/biorxiv.jsonl"),
        ("xeno-canto", "data/xeno-canto.jsonl"),
    ]:
        assert f"config_name: {config}" in header
        assert f"path: {path}" in header
        assert (tmp_path / "out" / path).is_file()
    assert "license: cc-by-nc-sa-4.0" in header
    assert "| Wikipedia | Taxonomy | 1 |" in card  # the Table 2 layout
    assert "Before shuffling" in card and "After shuffling" in card


def test_blocking_flag_stops_the_export(paper_store: Store, tmp_path: Path) -> None:
    flag = Flag("gold-unsupported", Severity.BLOCKING, "The gold answer is not in the evidence")
    paper_store.flags.replace_flags("globi:2:0", [flag])
    with pytest.raises(ExportBlockedError) as caught:
        export_release(paper_store, tmp_path / "out", seed=1)
    assert [b.item_id for b in caught.value.blocked] == ["globi:2:0"]
    assert "globi:2:0" in str(caught.value)
    assert not (tmp_path / "out").exists()
    assert not list(tmp_path.glob("out.tmp-*"))


def test_adjudicated_content_that_breaks_the_structure_blocks(
    paper_store: Store, tmp_path: Path
) -> None:
    broken = paper_store.items.get("wikipedia:kea:0").content.with_changes(
        options=("Puzzles", "Puzzles", "Songs", "Stars")
    )
    operations.adjudicate(paper_store, "wikipedia:kea:0", "cy", Decision.ACCEPT, broken)
    with pytest.raises(ExportBlockedError) as caught:
        export_release(paper_store, tmp_path / "out", seed=1)
    assert "are the same" in str(caught.value)


def test_recording_under_a_no_derivatives_licence_blocks(
    make_project: MakeProject, tmp_path: Path, data_dir: Path
) -> None:
    items = paper_items(data_dir)
    store = make_project(items)
    store.evidence.upsert_recordings(
        [
            {"id": "XC464184", "licence": "https://creativecommons.org/licenses/by-nc-nd/4.0/"},
            {"id": "XC625750", "licence": "https://creativecommons.org/licenses/by-nc-sa/4.0/"},
        ],
        None,
    )
    decide_all(store, store.items.ids())
    with pytest.raises(ExportBlockedError) as caught:
        export_release(store, tmp_path / "out", seed=1)
    assert [b.item_id for b in caught.value.blocked] == ["xeno-canto:western-corella:0"]
    assert "XC464184" in str(caught.value)
    operations.decide(store, "xeno-canto:western-corella:0", "ada", Decision.REJECT, reason="other")
    result = export_release(store, tmp_path / "out", seed=1)
    assert result.released == 16


def test_existing_folder_is_refused_unless_forced(paper_store: Store, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(OutDirExistsError):
        export_release(paper_store, out, seed=1)
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep me"
    export_release(paper_store, out, seed=1, force=True)
    assert not (out / "notes.txt").exists()
    assert (out / "manifest.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out")) == ["out"]
    empty = tmp_path / "empty"
    empty.mkdir()
    export_release(paper_store, empty, seed=1)  # an empty folder is fine without force
    assert (empty / "data" / "all.jsonl").is_file()


def test_plan_uses_the_stores_final_content(make_project: MakeProject, data_dir: Path) -> None:
    """The plan reads decisions in bulk; it must agree with ``store.reviews.final_content``
    everywhere."""
    store = make_project(paper_items(data_dir))
    ids = store.items.ids()
    decide_all(store, ids[:10])
    decide_all(store, ids[:6], curator="bob")
    operations.decide(store, ids[6], "bob", Decision.SKIP)
    operations.decide(store, ids[7], "bob", Decision.REJECT, reason="trivial")
    changed = store.items.get(ids[8]).content.with_changes(question="Reworded stem?")
    operations.edit(store, ids[8], "bob", changed)
    operations.decide(
        store, ids[8], "bob", Decision.ACCEPT
    )  # same decision, other content: disputed
    operations.adjudicate(store, ids[9], "cy", Decision.REJECT, reason="ambiguous")
    operations.adjudicate(store, ids[10], "cy", Decision.ACCEPT)
    plan = plan_export(store, seed=1)
    released = {r.item.id: r.content for r in plan.items}
    for item_id in ids:
        assert released.get(item_id) == store.reviews.final_content(item_id), item_id
    assert set(released) == {*ids[:7], ids[10]}


@pytest.mark.parametrize("spelling", ["dotdot", "symlink"])
def test_forced_export_never_replaces_the_folder_holding_the_project(
    spelling: str, data_dir: Path, tmp_path: Path
) -> None:
    """The project's folder written another way (``..``, a symbolic link) is still refused."""
    folder = tmp_path / "work"
    folder.mkdir()
    (tmp_path / "link").symlink_to(folder, target_is_directory=True)
    if spelling == "dotdot":
        project, out = folder / "p.bagel", folder / ".." / "work"
    else:
        project, out = tmp_path / "link" / "p.bagel", folder
    with Store.open(project) as store:
        store.items.add_items(paper_items(data_dir), None)
        decide_all(store, store.items.ids())
        with pytest.raises(OutDirExistsError, match="holds the project"):
            export_release(store, out, seed=1, force=True)
    assert (folder / "p.bagel").is_file()
    with Store.open(folder / "p.bagel", read_only=True) as store:
        assert store.items.count() == 17
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "work"]
