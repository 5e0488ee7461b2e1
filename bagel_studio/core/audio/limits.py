"""The audio checks' limits and explanations, in a module that imports nothing heavy.

``checks.run`` lists every check's explanation and ``checks.species`` names BirdNET's threshold
in its own; both are imported by every command that checks, also for a project without one
recording, which should not pay for numpy and the decoders (``analysis``, ``claims`` and
``species`` import them, and take these values from here).
"""

from __future__ import annotations

MIN_DURATION_S = 5.0  # the paper drops clips shorter than this
MIN_PEAK = 0.1  # ... or peaking below this share of full scale
SPECIES_THRESHOLD = 0.5  # a species is heard in a window at this confidence (``audio.species``)

# The acoustic checks' ids and explanations (``claims.acoustic_flags`` raises them).
DESCRIPTIONS: dict[str, str] = {
    "acoustic-mismatch": "The recording's measured acoustics contradict the gold option "
    "(dominant band, call or phrase duration as the stem asks, harmonicity or modulation), "
    "or a distractor fits better.",
    "clip-too-short": f"The recording's whole file lasts less than {MIN_DURATION_S:g} s of real "
    "time (the paper drops such clips), whatever it holds and whether or not it was cut: a bat's "
    'complete 1.5 s hand-release recording is "too short" by this rule and is flagged too, for '
    "the curator to keep knowingly.",
    "clip-too-quiet": f"The recording peaks below {MIN_PEAK:g} of full scale "
    "(the paper drops such clips).",
    "audio-unreadable": "The item's audio file is truncated or corrupt, or is not audio.",
}
