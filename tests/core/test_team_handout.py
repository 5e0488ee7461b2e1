"""Hand-out: one package per curator, made with SQLite's backup API while a writer holds the
project (its last writes still in the write-ahead log), holding the curator's items in the
plan's order with their evidence, measurements and audio, no one else's decisions, and the
plan without its key; Save a copy is the same consistent copy of the whole project."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bagel_studio.core import operations
from bagel_studio.core.assignment import PlanSettings
from bagel_studio.core.audio.project import resolve_audio_path
from bagel_studio.core.cli import run
from bagel_studio.core.model import Decision
from bagel_studio.core.operations.team import make_plan
from bagel_studio.core.store import QueueFilter, Store
from bagel_studio.core.store.team import PACKAGE_META

TEAM = ("alice", "bob", "carol")


def test_hand_out_while_a_writer_holds_the_project(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(demo_copy) as desk:  # the desk: the writer lock held, writes in the WAL
        plan = make_plan(desk, PlanSettings(TEAM, 2, 3, 0.1, 1)).result
        first = {c: desk.team.assignments(plan.plan_id, c)[0].item_id for c in TEAM}
        operations.decide(desk, first["alice"], "alice", Decision.ACCEPT)
        operations.decide(desk, first["bob"], "zed", Decision.REJECT, reason="trivial")
        assert Path(f"{demo_copy}-wal").stat().st_size > 0
        assert run(["hand-out", str(demo_copy), str(tmp_path / "out")]) == 0
        capsys.readouterr()
        recordings = {r["id"]: r for r in desk.evidence.recording_rows()}
        for curator in TEAM:
            path = tmp_path / "out" / curator / f"demo-{curator}.bagel"
            assert not Path(f"{path}-wal").exists()
            mine = desk.team.assignments(plan.plan_id, curator)
            with Store.open(path) as package:  # a valid project, open for writing
                ids = [r[0] for r in package.db.execute("SELECT id FROM items ORDER BY seq")]
                assert ids == [a.item_id for a in sorted(mine, key=lambda a: a.position)]
                meta = package.project.get_meta(PACKAGE_META)
                assert meta["curator"] == curator and meta["plan"] == plan.plan_id
                assert package.db.execute("SELECT secret FROM review_plans").fetchall() == [("",)]
                assert package.reviews.curators() == (["alice"] if curator == "alice" else [])
                assert package.adjudications.rows() == []
                statuses = dict(package.db.execute("SELECT id, status FROM items"))
                assert statuses == {  # their own decisions' (zed's reject is no one's here)
                    i: "accepted" if (curator, i) == ("alice", first["alice"]) else "unreviewed"
                    for i in ids
                }
                assert package.db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
                assert package.queue.count(QueueFilter()) == len(ids)  # search index rebuilt
                for row in package.evidence.recording_rows():
                    audio = resolve_audio_path(package, row)
                    assert audio is not None and audio.parent == path.parent / "audio"
                    source = resolve_audio_path(desk, recordings[row["id"]])
                    assert source is not None and audio.read_bytes() == source.read_bytes()
                linked = {
                    r[0]
                    for r in package.db.execute(
                        "SELECT DISTINCT recording_id FROM items WHERE recording_id IS NOT NULL"
                    )
                }
                known = {r for r in linked if desk.evidence.recording(r) is not None}
                assert {r["id"] for r in package.evidence.recording_rows()} == known
                measured = package.db.execute("SELECT count(*) FROM audio_measurements")
                assert (measured.fetchone()[0] > 0) == bool(linked)
    assert run(["hand-out", str(demo_copy), str(tmp_path / "out")]) == 2
    assert "never overwritten" in capsys.readouterr().err


def test_a_copy_made_while_a_writer_holds_the_project_holds_its_last_writes(
    demo_copy: Path, tmp_path: Path
) -> None:
    with Store.open(demo_copy) as desk:
        item_id = desk.items.ids()[0]
        operations.decide(desk, item_id, "alice", Decision.ACCEPT)
        plain = tmp_path / "plain.bagel"
        plain.write_bytes(demo_copy.read_bytes())  # what copying the file gives
        desk.copy_to(tmp_path / "copy.bagel")
    conn = sqlite3.connect(tmp_path / "copy.bagel")
    assert conn.execute("SELECT curator FROM reviews WHERE item_id = ?", [item_id]).fetchall() == [
        ("alice",)
    ]
    conn.close()
    conn = sqlite3.connect(plain)
    try:
        found = conn.execute("SELECT count(*) FROM reviews").fetchone()[0]
    except sqlite3.DatabaseError:
        found = None
    conn.close()
    assert found != 1  # the plain copy misses what the log held
