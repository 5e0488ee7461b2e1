"""Handing a review plan's items out: one package per curator (``store.package``).

A package is a project file holding the curator's items of one round in the plan's order, with
their evidence, flags, model answers and the measurements and species detections of their
recordings, and the audio files of those recordings copied into an ``audio`` folder beside it,
so that a curator on another machine can listen. It is bound to the curator and to the plan
(``assignment.binding``: the plan's key signs the plan, the curator and the round, and the key
stays in the project), which ``collect`` checks. The project itself is only read, through a
copy made with SQLite's online backup API, so a hand-out works while the desk has the project
open (and holds its writer lock): it needs the plan, made before, and nothing else.

Layout: ``OUTDIR/CURATOR/PROJECT-CURATOR.bagel`` (``-roundN`` after the curator's name from the
second round) and ``OUTDIR/CURATOR/audio/``. An existing package is never overwritten: its
curator may be working in it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bagel_studio.core.assignment import PlanError, binding
from bagel_studio.core.audio.project import cache_key, resolve_audio_path
from bagel_studio.core.changes import Done
from bagel_studio.core.model import cleaned_curator_name
from bagel_studio.core.operations.team import require_plan
from bagel_studio.core.store import Store
from bagel_studio.core.store.package import PackageContents, prune_to_package

AUDIO_FOLDER = "audio"


@dataclass
class PackageWritten:
    """One curator's package."""

    curator: str
    round: int
    path: Path
    items: int
    recordings: int
    audio_missing: list[str] = field(default_factory=list)  # recordings whose file was not found

    def to_json(self) -> dict[str, Any]:
        return {
            "curator": self.curator,
            "round": self.round,
            "path": str(self.path),
            "items": self.items,
            "recordings": self.recordings,
            "audio_missing": self.audio_missing,
        }


@dataclass
class HandOut:
    """The packages of one round of the current plan."""

    plan_id: str
    round: int
    packages: list[PackageWritten] = field(default_factory=list)


def package_name(project: Path, curator: str, round_: int) -> str:
    """The file name of ``curator``'s package of ``round_`` of ``project``."""
    suffix = "" if round_ == 1 else f"-round{round_}"
    return f"{project.stem}-{curator}{suffix}.bagel"


def hand_out(
    store: Store,
    out_dir: Path,
    *,
    round_: int | None = None,
    curators: list[str] | None = None,
) -> Done[HandOut]:
    """Write the packages of ``round_`` (the newest when None) of the current plan into
    ``out_dir``, one folder per curator (of ``curators``, cleaned as every curator's name is,
    or all with items in the round). The
    project is only read; raises ``PlanError`` (no plan, no such round, a curator not in it, a
    package already there) before anything is written."""
    plan = require_plan(store)
    number = round_ or store.team.last_round(plan.id)
    in_round = store.team.round_curators(plan.id, number)
    if not in_round:
        raise PlanError(f"plan {plan.id} has no round {number}")
    chosen = [cleaned_curator_name(c) for c in curators] if curators else in_round
    missing = [c for c in chosen if c not in in_round]
    if missing:
        raise PlanError(f"{', '.join(missing)}: no items in round {number} of plan {plan.id}")
    targets = {c: out_dir / c / package_name(store.path, c, number) for c in chosen}
    there = [str(p) for p in targets.values() if p.exists()]
    if there:
        raise PlanError(
            f"{there[0]} exists: a package is never overwritten (its curator may be working in"
            " it); move it away or hand out into another folder"
        )
    result = HandOut(plan.id, number)
    for curator, target in targets.items():
        result.packages.append(_write(store, plan.id, plan.secret, curator, number, target))
    return Done(result)


def _write(
    store: Store, plan_id: str, secret: str, curator: str, round_: int, target: Path
) -> PackageWritten:
    assignments = store.team.assignments(plan_id, curator, round_)
    item_ids = [a.item_id for a in assignments]
    links = store.team.evidence_links(item_ids)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    recordings: dict[str, str | None] = {}
    keys: list[str] = []
    missing: list[str] = []
    names: set[str] = set()
    for recording_id in links.recordings:
        recording = store.evidence.recording(recording_id)
        if recording is None:
            continue
        keys.append(cache_key(recording))
        source = resolve_audio_path(store, recording)
        if source is None:
            missing.append(str(recording["id"]))
            recordings[str(recording["id"])] = None
            continue
        name = source.name if source.name not in names else f"{recording['id']}-{source.name}"
        names.add(name)
        _copy_audio(source, folder / AUDIO_FOLDER / name)
        recordings[str(recording["id"])] = f"{AUDIO_FOLDER}/{name}"
    texts = []
    for text_key in links.text_keys:
        text = store.evidence.find_text(text_key)
        if text is not None:
            texts.append(str(text["key"]))
    meta = {
        "curator": curator,
        "plan": plan_id,
        "round": round_,
        "binding": binding(secret, plan_id, curator, round_),
        "handed_out_at": store.clock(),
        "project": store.path.name,
        "items": len(item_ids),
    }
    contents = PackageContents(curator, plan_id, round_, item_ids, texts, recordings, keys, meta)
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        store.copy_to(partial)
        prune_to_package(partial, contents)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return PackageWritten(curator, round_, target, len(item_ids), len(recordings), missing)


def _copy_audio(source: Path, target: Path) -> None:
    """Copy one recording beside the package (once: a later round's package shares it)."""
    if target.exists() and target.stat().st_size == source.stat().st_size:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
