"""The bundled demo project: built from the repository's own resources, as issue 2 asks."""

from __future__ import annotations

import json
from pathlib import Path

from bagel_studio.core import operations
from bagel_studio.core.checks.structural import DESCRIPTIONS as STRUCTURAL
from bagel_studio.core.demo import RESOURCES, build_demo_project, demo_sources
from bagel_studio.core.domains import DOMAINS
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store


def test_demo_sources_live_inside_the_repository() -> None:
    for source in demo_sources():
        assert source.is_file()
        assert RESOURCES in source.parents


def test_demo_project_has_what_a_curator_needs(demo_template: Path) -> None:
    with Store.open(demo_template, read_only=True) as store:
        assert store.items.count() >= 40
        assert set(store.queue.distinct_values("domain")) == set(DOMAINS)
        flagged = store.flags.counts()
        assert set(STRUCTURAL) <= set(flagged)  # every structural check catches an item
        assert flagged["acoustic-mismatch"] >= 1  # the clips are measured when the demo is built
        paper = RESOURCES / "data" / "items" / "paper_examples.jsonl"
        paper_ids = [json.loads(line)["id"] for line in paper.read_text().splitlines()]
        assert set(paper_ids) <= set(store.items.ids())
        first = store.items.get(store.items.ids()[0])
        assert store.evidence.find_text(first.text_key) is not None  # the queue opens on evidence
        assert [r.reason for r in store.imports.rejects()] != []  # the truncated line is kept
        assert store.imports.generator_rejection_counts()["GloBI"]
        assert len(store.evidence.recordings()) == 9
        assert all(r["audio_path"] for r in store.evidence.recordings())


def test_building_twice_keeps_the_curators_work(demo_copy: Path) -> None:
    path = demo_copy  # built once (for the session), then built again below
    with Store.open(path) as store:
        operations.decide(store, store.items.ids()[0], "ana", Decision.ACCEPT)
    assert build_demo_project(path) == path
    with Store.open(path, read_only=True) as store:
        assert len(store.reviews.all()) == 1
