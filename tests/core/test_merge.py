"""Three curators' project files merged, disagreements found and adjudicated; merging is
idempotent, matches items by id and original content, and never overwrites a decision."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core import operations
from bagel_studio.core.cli import run
from bagel_studio.core.merge import MergeError, merge_history, merge_projects
from bagel_studio.core.model import Decision, ItemContent, Status
from bagel_studio.core.store import NewItem, QueueFilter, Store

W = [f"wikipedia:andean-flamingo:{i}" for i in range(7)]
G = "globi:2:0"


def paper_items(data_dir: Path) -> list[NewItem]:
    """The items printed in the BAGEL paper, as an importer would hand them to the store."""
    items = []
    for line in (data_dir / "items" / "paper_examples.jsonl").read_text("utf-8").splitlines():
        raw = json.loads(line)
        content = ItemContent(
            question=raw["question"],
            options=tuple(raw["options"]),
            answer_index="ABCD".index(raw["answer"]),
            dimension=raw["dimension"],
            level=raw.get("level"),
        )
        items.append(NewItem(id=raw["id"], domain=raw["domain"], content=content))
    return items


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def ticking_clock(start_day: int) -> Iterator[str]:
    minute = 0
    while True:
        minute += 1
        yield f"2025-03-{start_day:02d}T{minute // 60:02d}:{minute % 60:02d}:00.000+00:00"


def open_with_clock(path: Path, day: int) -> Store:
    ticks = ticking_clock(day)
    return Store.open(path, clock=lambda: next(ticks))


def edited(store: Store, item_id: str, curator: str, option: int, text: str) -> None:
    content = store.items.get(item_id).content
    options = list(content.options)
    options[option] = text
    assert operations.edit(store, item_id, curator, content.with_changes(options=options)).result


def decide_as_alice(store: Store) -> None:
    operations.decide(store, W[0], "alice", Decision.ACCEPT)
    operations.decide(store, W[1], "alice", Decision.ACCEPT)
    edited(store, W[2], "alice", 0, "Carnivorous predation of fish")
    operations.decide(store, W[2], "alice", Decision.ACCEPT)
    operations.decide(store, W[3], "alice", Decision.REJECT, reason="trivial")
    operations.decide(
        store, W[4], "alice", Decision.ACCEPT, blind_answer=2
    )  # blind answer C, gold B
    operations.decide(store, W[5], "alice", Decision.UNCERTAIN, note="check the legs")
    edited(store, W[6], "alice", 2, "Salt pans")
    operations.decide(store, W[6], "alice", Decision.ACCEPT)
    operations.decide(store, G, "alice", Decision.ACCEPT)


def decide_as_bob(store: Store) -> None:
    operations.decide(store, W[0], "bob", Decision.ACCEPT)
    operations.decide(store, W[1], "bob", Decision.ACCEPT)
    operations.decide(store, W[2], "bob", Decision.ACCEPT)
    operations.decide(store, W[3], "bob", Decision.REJECT, reason="ambiguous")
    operations.decide(store, W[4], "bob", Decision.SKIP)
    operations.decide(store, W[5], "bob", Decision.ACCEPT, blind_answer=1)
    edited(store, W[6], "bob", 2, "Salt pans")
    operations.decide(store, W[6], "bob", Decision.ACCEPT)
    operations.decide(store, G, "bob", Decision.REJECT, reason="several-answers")


def decide_as_carol(store: Store) -> None:
    operations.decide(store, W[0], "carol", Decision.ACCEPT)
    operations.decide(
        store, W[1], "carol", Decision.REJECT, reason="ambiguous", note="two answers fit"
    )
    operations.decide(store, W[2], "carol", Decision.ACCEPT)
    operations.decide(store, W[3], "carol", Decision.REJECT, reason="trivial")
    operations.decide(store, W[4], "carol", Decision.ACCEPT)
    operations.decide(store, G, "carol", Decision.ACCEPT)


# Curators disagree on W1 (decision), W2 (alice's edited gold content), W5 (uncertain vs accept)
# and G (accept vs reject); they agree on W0, W3 (reject, different reasons), W4 (bob skipped)
# and W6 (the same edit).
DISPUTED = {W[1], W[2], W[5], G}


@pytest.fixture
def curator_files(tmp_path: Path, data_dir: Path) -> dict[str, Path]:
    """A base project copied to three curators and an adjudicator, each deciding on their own."""
    base = tmp_path / "base.bagel"
    with Store.open(base) as store:
        store.items.add_items(paper_items(data_dir), None)
    files = {}
    for day, (name, decide) in enumerate(
        [("alice", decide_as_alice), ("bob", decide_as_bob), ("carol", decide_as_carol)], 1
    ):
        files[name] = tmp_path / f"{name}.bagel"
        shutil.copy(base, files[name])
        with open_with_clock(files[name], day) as store:
            decide(store)
    files["dana"] = tmp_path / "dana.bagel"
    shutil.copy(base, files["dana"])
    return files


def merged_three(files: dict[str, Path]) -> Store:
    store = open_with_clock(files["dana"], 10)
    report = merge_projects(store, [files["alice"], files["bob"], files["carol"]]).result
    assert report.complete
    return store


def test_three_curators_merge_into_exactly_their_disagreements(
    curator_files: dict[str, Path],
) -> None:
    with merged_three(curator_files) as store:
        assert set(store.items.ids(QueueFilter(status="disputed"))) == DISPUTED
        assert store.items.get(W[0]).status is Status.ACCEPTED
        assert store.items.get(W[3]).status is Status.REJECTED
        assert store.items.get(W[4]).status is Status.ACCEPTED
        assert store.items.get(W[6]).status is Status.REVISED
        assert store.reviews.curators() == ["alice", "bob", "carol"]
        # each decision stays its curator's, with where it came from
        carol = {r.curator: r for r in store.reviews.of_item(W[1])}["carol"]
        assert (carol.decision, carol.reason, carol.note) == (
            Decision.REJECT,
            "ambiguous",
            "two answers fit",
        )
        assert carol.origin == "carol.bagel"
        # the edit travelled inside alice's decision; dana's working copy is untouched
        alice = {r.curator: r for r in store.reviews.of_item(W[2])}["alice"]
        assert alice.decision is Decision.REVISE
        assert alice.content.options[0] == "Carnivorous predation of fish"
        assert store.items.get(W[2]).content.options[0] == "Carnivorous predation"
        assert store.reviews.final_content(W[6]) is not None
        assert store.reviews.final_content(W[6]).options[2] == "Salt pans"


def test_merging_again_changes_nothing_and_counts_once(curator_files: dict[str, Path]) -> None:
    with merged_three(curator_files) as store:
        reviews = store.reviews.all()
        history = store.db.execute("SELECT count(*) FROM history").fetchone()[0]
        again = merge_projects(store, [curator_files["carol"], curator_files["alice"]]).result
        assert [f.already_merged for f in again.files] == [True, True]
        assert all(f.changed == 0 for f in again.files)
        assert store.reviews.all() == reviews
        assert store.db.execute("SELECT count(*) FROM history").fetchone()[0] == history
        assert len(merge_history(store)) == 3
        assert sorted(Path(m["path"]).name for m in merge_history(store)) == [
            "alice.bagel",
            "bob.bagel",
            "carol.bagel",
        ]


def test_a_file_merged_through_another_counts_once(curator_files: dict[str, Path]) -> None:
    """Carol's decisions reach dana twice (directly and relayed in bob's file): counted once."""
    with Store.open(curator_files["bob"]) as bob:
        merge_projects(bob, [curator_files["carol"]])
    with Store.open(curator_files["dana"]) as store:
        first = merge_projects(store, [curator_files["bob"]]).result.files[0]
        assert first.curators == ["bob", "carol"]
        second = merge_projects(store, [curator_files["carol"]]).result.files[0]
        assert not second.already_merged  # another file ...
        assert second.reviews_added == 0  # ... whose decisions were all here already
        assert second.reviews_unchanged == 6
        assert len(store.reviews.all()) == 8 + 6  # bob decided on 8 items, carol on 6


def test_adjudication_settles_disputes_and_is_what_is_released(
    curator_files: dict[str, Path],
) -> None:
    with merged_three(curator_files) as store:
        alice_version = {r.curator: r for r in store.reviews.of_item(W[2])}["alice"].content
        operations.adjudicate(
            store, W[1], "dana", Decision.REJECT, reason="ambiguous", note="carol is right"
        )
        operations.adjudicate(
            store, W[2], "dana", Decision.ACCEPT, alice_version, reason="alice's version"
        )
        operations.adjudicate(store, W[5], "dana", Decision.ACCEPT, reason="legs are yellow")
        assert set(store.items.ids(QueueFilter(status="disputed"))) == {G}
        assert store.items.get(W[1]).status is Status.REJECTED
        assert store.reviews.final_content(W[1]) is None
        assert store.items.get(W[2]).status is Status.REVISED
        assert store.reviews.final_content(W[2]) == alice_version
        assert store.reviews.final_content(W[5]) == store.items.get(W[5]).original
        assert store.adjudications.get(W[1])["note"] == "carol is right"
        assert [h.action for h in store.history.of_item(W[1])][-1] == "adjudicate"


def test_adjudications_travel_with_the_file(curator_files: dict[str, Path], tmp_path: Path) -> None:
    with merged_three(curator_files) as store:
        operations.adjudicate(store, W[1], "dana", Decision.REJECT, reason="ambiguous")
        decided_at = store.adjudications.get(W[1])["decided_at"]
    erin = tmp_path / "erin.bagel"
    shutil.copy(curator_files["alice"], erin)
    with Store.open(erin) as store:
        report = merge_projects(store, [curator_files["dana"]]).result
        assert report.files[0].adjudications_added == 1
        assert store.items.get(W[1]).status is Status.REJECTED
        adjudication = store.adjudications.get(W[1])
        assert (adjudication["adjudicator"], adjudication["decided_at"]) == ("dana", decided_at)
        assert set(store.items.ids(QueueFilter(status="disputed"))) == DISPUTED - {W[1]}


def test_the_same_curator_in_two_files_keeps_the_newer_and_loses_nothing(
    curator_files: dict[str, Path], tmp_path: Path
) -> None:
    laptop = tmp_path / "alice-laptop.bagel"
    shutil.copy(curator_files["alice"], laptop)
    with open_with_clock(laptop, 20) as store:  # later: alice changes her mind on W0
        operations.decide(store, W[0], "alice", Decision.REJECT, reason="factually-wrong")
    older_copy = tmp_path / "alice-older.bagel"
    shutil.copy(curator_files["alice"], older_copy)

    with Store.open(curator_files["alice"]) as store:  # newer one comes in: ours to history
        result = merge_projects(store, [laptop]).result.files[0]
        assert result.reviews_updated == 1
        assert store.reviews.of_item(W[0])[0].decision is Decision.REJECT
        merge = [h for h in store.history.of_item(W[0]) if h.action == "merge"][-1]
        assert merge.before is not None and merge.before["decision"] == "accept"

    with Store.open(laptop) as store:  # older one comes in: ours kept, theirs to history
        result = merge_projects(store, [older_copy]).result.files[0]
        assert (result.reviews_older, result.reviews_added, result.reviews_updated) == (1, 0, 0)
        assert store.reviews.of_item(W[0])[0].decision is Decision.REJECT
        older = [h for h in store.history.of_item(W[0]) if h.action == "merge-older"]
        assert len(older) == 1 and older[0].before["decision"] == "accept"


def test_same_id_other_content_is_a_conflict_not_a_merge(
    curator_files: dict[str, Path], tmp_path: Path
) -> None:
    stranger = tmp_path / "stranger.bagel"
    changed = ItemContent(
        "What is the Andean flamingo's genus?", ("A", "B", "C", "D"), 1, "Taxonomy"
    )
    with Store.open(stranger) as store:
        store.items.add_items(
            [NewItem(W[0], "Wikipedia", changed), NewItem("w:new", "Wikipedia", changed)], None
        )
        operations.decide(store, W[0], "frank", Decision.REJECT, reason="trivial")
        operations.decide(store, "w:new", "frank", Decision.ACCEPT)
    with Store.open(curator_files["alice"]) as store:
        report = merge_projects(store, [stranger]).result
        assert not report.complete
        assert [c["item_id"] for c in report.files[0].conflicts] == [W[0]]
        assert report.files[0].unknown_items == ["w:new"]
        assert "frank" not in store.reviews.curators()
        assert any("conflict" in line for line in report.lines())


def test_unreadable_files_merge_nothing(curator_files: dict[str, Path], tmp_path: Path) -> None:
    junk = tmp_path / "notes.bagel"
    junk.write_text("not a project\n", encoding="utf-8")
    with Store.open(curator_files["dana"]) as store:
        for bad in (junk, tmp_path / "missing.bagel", curator_files["dana"]):
            with pytest.raises(MergeError):
                merge_projects(store, [curator_files["alice"], bad])
        assert store.reviews.all() == []
        assert merge_history(store) == []


def test_merge_command(curator_files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    others = [str(curator_files[n]) for n in ("alice", "bob", "carol")]
    assert run(["merge", str(curator_files["dana"]), *others]) == 0
    out = capsys.readouterr().out
    assert "alice.bagel: 17 items matched, 8 decisions added" in out
    assert "4 items disputed" in out
    assert run(["merge", str(curator_files["dana"]), others[0], "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files"][0]["already_merged"] is True
    assert data["disputed"] == 4


def test_merge_command_exit_status(
    curator_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.bagel"
    junk.write_bytes(b"\x00\x01 binary junk" * 10)
    assert run(["merge", str(curator_files["dana"]), str(junk)]) == 2
    err = capsys.readouterr().err.strip()
    assert "junk.bagel" in err and "not a BAGEL Studio project" in err
    assert len(err.splitlines()) == 1

    stranger = tmp_path / "stranger.bagel"
    with Store.open(stranger) as store:
        store.items.add_items(
            [NewItem("only:here", "Wikipedia", ItemContent("Q?", ("a", "b", "c", "d"), 0, "Diet"))],
            None,
        )
    assert run(["merge", str(curator_files["dana"]), str(stranger), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["files"][0]["unknown_items"] == ["only:here"]


def test_three_curators_merged_adjudicated_and_exported(
    curator_files: dict[str, Path], tmp_path: Path
) -> None:
    """End to end: the release carries the adjudicator's decisions, not a curator's."""
    from bagel_studio.core.export import export_release

    with merged_three(curator_files) as store:
        alice_version = {r.curator: r for r in store.reviews.of_item(W[2])}["alice"].content
        operations.adjudicate(store, W[1], "dana", Decision.REJECT, reason="ambiguous")
        operations.adjudicate(
            store, W[2], "dana", Decision.ACCEPT, alice_version, reason="alice's version"
        )
        operations.adjudicate(store, W[5], "dana", Decision.ACCEPT, note="legs are yellow")
        operations.adjudicate(store, G, "dana", Decision.REJECT, reason="several-answers")
        assert store.items.ids(QueueFilter(status="disputed")) == []
        result = export_release(store, tmp_path / "release", seed=7)
    rows = read_jsonl(result.out_dir / "data" / "all.jsonl")
    released = {row["id"]: row for row in rows}
    # agreed: W0 and W4 accepted, W6 revised; adjudicated: W2 (alice's edit) and W5 accepted;
    # W1 and G rejected by the adjudicator, W3 rejected by everyone; the rest was never reviewed
    assert set(released) == {W[0], W[2], W[4], W[5], W[6]}
    assert "Carnivorous predation of fish" in released[W[2]]["options"]
    assert released[W[2]]["options"][released[W[2]]["answer_index"]] == "Filter feeding"
    assert "Salt pans" in released[W[6]]["options"]
    provenance = {row["id"]: row for row in read_jsonl(result.out_dir / "provenance.jsonl")}
    assert provenance[W[2]]["adjudication"]["adjudicator"] == "dana"
    assert provenance[W[2]]["revised"] is True
    assert provenance[W[5]]["adjudication"]["note"] == "legs are yellow"
    assert {d["curator"] for d in provenance[W[5]]["decisions"]} == {"alice", "bob"}
