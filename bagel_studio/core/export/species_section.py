"""The release report's species table: per domain, the released items whose recording confirms
their species (BirdNET, from the project's cached detections), does not, or is not covered.

Counted once when the release is planned, from the released items that name a recording (the
others have no clip to ask); nothing here runs the model: a clip not analysed before the export
is counted as such (``bagel-studio analyze`` fills them in).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from bagel_studio.core.report.release import Section
from bagel_studio.core.report.tables import markdown_table

if TYPE_CHECKING:
    from bagel_studio.core.export.plan import ExportPlan
    from bagel_studio.core.store import Store

CONFIRMS = "confirms"
DOES_NOT = "does not"
NOT_COVERED = "not covered"
NOT_ANALYSED = "not analysed"
COLUMNS = (CONFIRMS, DOES_NOT, NOT_COVERED, NOT_ANALYSED)
BATCH = 1000


def species_counts(store: Store, plan: ExportPlan) -> dict[str, dict[str, int]]:
    """Domain -> verdict (``COLUMNS``) -> released items with a recording."""
    from bagel_studio.core.audio.species import NOT_COVERED as UNCOVERED
    from bagel_studio.core.audio.species_project import item_answer

    named = store.items.with_recording()  # the others have no clip: not read at all
    ids = [slot.item_id for slot in plan.items.slots if slot.item_id in named]
    counts: dict[str, Counter[str]] = {}
    recordings: dict[str, dict[str, Any] | None] = {}
    for start in range(0, len(ids), BATCH):
        for item in store.items.get_many(ids[start : start + BATCH]):
            if not item.recording_id:
                continue
            key = item.recording_id.upper()
            if key not in recordings:
                recordings[key] = store.evidence.recording(item.recording_id)
            known = item_answer(store, item, recordings[key])
            found = known.answer
            if found is None:
                verdict = NOT_ANALYSED
            elif found.verdict == UNCOVERED:
                verdict = NOT_COVERED
            else:
                verdict = CONFIRMS if found.confirmed else DOES_NOT
            counts.setdefault(item.domain, Counter())[verdict] += 1
    return {d: {c: counts[d][c] for c in COLUMNS} for d in sorted(counts)}


def species_section(plan: ExportPlan) -> list[Section]:
    """The report's section (none when no released item names a recording)."""
    return [Section(species_markdown(plan))] if plan.species else []


def species_markdown(plan: ExportPlan) -> str:
    """The section's Markdown (empty when no released item names a recording)."""
    if not plan.species:
        return ""
    from bagel_studio.core.audio.birdnet import MODEL_LICENCE, MODEL_NAME, MODEL_VERSION
    from bagel_studio.core.audio.species import THRESHOLD

    rows = [[d, *(by[c] for c in COLUMNS)] for d, by in plan.species.items()]
    table = markdown_table(
        ["Domain", "Confirms the species", "Does not", "Not covered", "Not analysed"], rows, 1
    )
    return f"""
## Is the species in the recording?

Released items with a recording, by what BirdNET ({MODEL_NAME} {MODEL_VERSION}, model licence
{MODEL_LICENCE}) hears in it: the item's species heard (confidence {THRESHOLD:g} or more in a 3 s
window) and no other species louder in most windows; not heard, or another species dominant;
a species BirdNET does not cover (bats, most insects, marine mammals); or the clip not analysed.

{table}"""


def card_sentence(plan: ExportPlan) -> str:
    """The dataset card's line on the model that checked the recordings' species."""
    if not plan.species:
        return ""
    from bagel_studio.core.audio.birdnet import MODEL_LICENCE, MODEL_NAME, MODEL_VERSION

    analysed = sum(n for by in plan.species.values() for c, n in by.items() if c != NOT_ANALYSED)
    if not analysed:
        return "\nThe species in the recordings were not checked (no clip was analysed).\n"
    return (
        f"\nWhether each recording holds its item's species was checked with {MODEL_NAME} "
        f"{MODEL_VERSION} (BirdNET, K. Lisa Yang Center for Conservation Bioacoustics, Cornell "
        f"Lab of Ornithology; model licence {MODEL_LICENCE}), run offline with LiteRT; the "
        "report's table counts the items it confirms.\n"
    )
