"""Is the item's species in its clip? Flags from the clip's cached BirdNET detection.

``species-not-detected``: BirdNET knows the species and no window of the clip reaches
``species.THRESHOLD``. ``other-species-dominant``: another label (a species, or a sound class
such as Engine) is heard, and more confident than the item's species, in most windows, the item's
species not heard in them. A species
BirdNET does not cover (bats, most insects, marine mammals) gets neither: the recording card says
"not covered". Nothing is flagged before the clip is detected, nor without the extra installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bagel_studio.core.audio.limits import SPECIES_THRESHOLD as THRESHOLD
from bagel_studio.core.model import Flag, Item, Severity

if TYPE_CHECKING:
    from bagel_studio.core.checks.context import CheckContext

SPECIES_NOT_DETECTED = "species-not-detected"
OTHER_SPECIES_DOMINANT = "other-species-dominant"

DESCRIPTIONS = {
    SPECIES_NOT_DETECTED: "BirdNET covers the item's species but does not hear it in any 3 s "
    f"window of the clip (confidence under {THRESHOLD:g}): the recording may be of another "
    "animal, or too faint. A clip cut short or turned down is heard as it is (the flag may "
    "come beside clip-too-short or clip-too-quiet); a file that cannot be decoded is not heard "
    "(audio-unreadable says so), nor a species BirdNET does not cover (bats).",
    OTHER_SPECIES_DOMINANT: "Another species (or a sound such as an engine) is heard instead of "
    "the item's species in most windows of the clip: its acoustic claims may describe the wrong "
    "animal.",
}


def species_flags(ctx: CheckContext, item: Item) -> list[Flag]:
    """The item's species flags from its clip's cached detection (none when BirdNET is not
    installed, the clip is not detected yet, or BirdNET does not cover the species)."""
    from bagel_studio.core.audio.species_project import item_answer

    known = item_answer(ctx.store, item, ctx.recording(item.recording_id))
    found = known.answer
    if found is None or not found.covered or found.label is None:
        return []
    windows = len(found.starts)
    recording = str(item.recording_id)
    details: dict[str, Any] = {
        "recording": recording,
        "species": found.label.scientific,
        "best": found.best,
        "windows": windows,
        "heard": list(found.heard),
    }
    flags = []
    other = found.rival or found.other
    instead = f"; it hears {other.label.shown} at {other.best:.2f}" if other else ""
    if not found.detected:
        flags.append(
            Flag(
                SPECIES_NOT_DETECTED,
                Severity.INFO,  # under 0.8 precision on the labeled corpus (docs/CHECKS.md)
                f"BirdNET does not hear {found.label.shown} in {recording}: best {found.best:.2f}"
                f" in {windows} window{'s' if windows != 1 else ''} (heard from {THRESHOLD:.2f})"
                + instead,
                details | {"other": other.label.scientific if other else None},
            )
        )
    if found.rival is not None:
        rival = found.rival
        flags.append(
            Flag(
                OTHER_SPECIES_DOMINANT,
                Severity.INFO,  # under 0.8 precision on the labeled corpus (docs/CHECKS.md)
                f"BirdNET hears {rival.label.shown} instead of {found.label.scientific} in "
                f"{len(rival.windows)} of {windows} windows of {recording} (best {rival.best:.2f}"
                f" against {found.best:.2f})",
                details | {"other": rival.label.scientific, "other_windows": list(rival.windows)},
            )
        )
    return flags
