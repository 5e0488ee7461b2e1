"""Is the item's species in the clip? BirdNET's confidence of every species, per window of a clip.

A clip's first ``MAX_SECONDS`` (what the analysis reads) are cut into 3 s windows every 1.5 s (the
last one ending where the clip ends, a clip under 3 s padded with silence into one window) and run
through BirdNET (``birdnet.py``): a ``Detection`` keeps every label's confidence in every window,
to 1/255, so any species a curator or an edit names later is answered from the project without
running the model again. Detections are cached in the project by the audio's SHA-256 and
``DETECTION_VERSION``, which names the model and its version (``project.py``, table
``species_detections``).

``answer(detection, name)`` answers for one species, matched by scientific name (common names
differ between Xeno-canto and BirdNET: Xeno-canto's "Myrtle Warbler" is BirdNET's "Yellow-rumped
Warbler"): whether BirdNET covers it at all (it knows 6,522 labels, birds mostly: no bats, few
insects, no marine mammals), its best confidence and the windows where it is heard and leads, the
strongest other label, the one heard instead of it in most windows (if any), and the clip's top
three.

``THRESHOLD`` was chosen from the project's real clips (``tests/benchmarks/species_threshold.py``
prints the measurement): each of the nine Xeno-canto clips' own species peaks at 0.87-1.00 (the
House Sparrow lowest), while every other species of the same genus in BirdNET's list peaks at
0.33 at most in those clips (Magnolia Warbler in the Myrtle Warbler's clip; the rest under 0.19),
which is what a clip relabelled with a congener would score. 0.5 lies between the two with room
on both sides, and is the point where BirdNET's sigmoid says "more likely than not".
"""

from __future__ import annotations

import base64
import math
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from bagel_studio.core.audio import dsp
from bagel_studio.core.audio.analysis import MAX_SECONDS
from bagel_studio.core.audio.birdnet import (
    MODEL_NAME,
    MODEL_VERSION,
    SAMPLE_RATE,
    WINDOW_FRAMES,
    WINDOW_S,
    Label,
    label_index,
    labels,
    model,
)
from bagel_studio.core.audio.decode import DecodedAudio
from bagel_studio.core.audio.limits import SPECIES_THRESHOLD

# 1: 3 s windows every 1.5 s over the first 30 s, confidences to 1/255
DETECTION_VERSION = f"{MODEL_NAME} {MODEL_VERSION}/1"
HOP_S = 1.5
THRESHOLD = SPECIES_THRESHOLD  # a species is heard in a window at this confidence (see above)
LEVELS = 255  # confidences are kept as whole steps of 1/LEVELS
TOP = 3  # the clip's strongest labels shown beside the spectrogram
_END_SLACK_S = 0.05  # an uncovered tail shorter than this gets no window of its own

CONFIRMED = "confirmed"
NOT_DETECTED = "not detected"
OTHER_DOMINANT = "other species dominant"
NOT_COVERED = "not covered"


def window_starts(duration_s: float) -> tuple[float, ...]:
    """Where each 3 s window starts: every ``HOP_S`` while a whole window fits, then one ending
    where the clip ends if a tail is left; one window (padded) for a clip under 3 s."""
    if duration_s <= WINDOW_S + _END_SLACK_S:
        return (0.0,)
    count = math.floor((duration_s - WINDOW_S) / HOP_S + 1e-9) + 1
    starts = [round(k * HOP_S, 3) for k in range(count)]
    if duration_s - (starts[-1] + WINDOW_S) > _END_SLACK_S:
        starts.append(round(duration_s - WINDOW_S, 3))
    return tuple(starts)


def windows_of(samples: np.ndarray, starts: tuple[float, ...]) -> np.ndarray:
    """The windows of a 48 kHz mono signal, (windows, WINDOW_FRAMES) float32, zero-padded."""
    out = np.zeros((len(starts), WINDOW_FRAMES), dtype=np.float32)
    for row, start in enumerate(starts):
        first = round(start * SAMPLE_RATE)
        piece = samples[first : first + WINDOW_FRAMES]
        out[row, : len(piece)] = piece
    return out


@dataclass(frozen=True)
class Detection:
    """BirdNET's confidence of every label in every window of one clip."""

    model: str  # "BirdNET GLOBAL 6K V2.4"
    version: str  # DETECTION_VERSION
    duration_s: float  # seconds analysed: the clip's first MAX_SECONDS
    window_s: float
    starts: tuple[float, ...]
    levels: np.ndarray  # uint8 (windows, labels): confidence x LEVELS, rounded

    @property
    def confidences(self) -> np.ndarray:
        """float32 (windows, labels) in 0..1."""
        return self.levels.astype(np.float32) / np.float32(LEVELS)

    def to_json(self) -> dict[str, Any]:
        packed = zlib.compress(np.ascontiguousarray(self.levels, dtype=np.uint8).tobytes(), 9)
        return {
            "model": self.model,
            "version": self.version,
            "duration_s": self.duration_s,
            "window_s": self.window_s,
            "starts": list(self.starts),
            "labels": int(self.levels.shape[1]),
            "levels": base64.b64encode(packed).decode("ascii"),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Detection:
        starts = tuple(float(s) for s in data["starts"])
        raw = zlib.decompress(base64.b64decode(str(data["levels"])))
        levels = np.frombuffer(raw, dtype=np.uint8).reshape(len(starts), int(data["labels"]))
        return cls(
            model=str(data["model"]),
            version=str(data["version"]),
            duration_s=float(data["duration_s"]),
            window_s=float(data["window_s"]),
            starts=starts,
            levels=levels,
        )


def detect(audio: DecodedAudio) -> Detection:
    """Run BirdNET over the clip's first ``MAX_SECONDS`` (about 0.03 s of CPU per window: call
    it off the UI thread). Raises ``birdnet.BirdNETUnavailable`` without the extra."""
    runner = model()
    head = audio.mono(int(MAX_SECONDS * audio.sample_rate))
    signal = dsp.resample(head, audio.sample_rate, SAMPLE_RATE)
    duration = len(head) / audio.sample_rate
    starts = window_starts(duration)
    confidence = runner.confidences(windows_of(signal, starts))
    levels = np.rint(confidence * LEVELS).astype(np.uint8)
    return Detection(
        model=f"{MODEL_NAME} {MODEL_VERSION}",
        version=DETECTION_VERSION,
        duration_s=round(duration, 4),
        window_s=WINDOW_S,
        starts=starts,
        levels=levels,
    )


def species_key(name: str) -> str:
    """A scientific name as BirdNET's list is looked up: genus and species, casefolded (a
    subspecies' third word and stray spaces left out)."""
    return " ".join(name.split()[:2]).casefold()


@dataclass(frozen=True)
class Heard:
    """A label's showing in a clip: its best confidence and the windows where it reaches
    ``THRESHOLD``."""

    label: Label
    best: float
    windows: tuple[int, ...]


@dataclass(frozen=True)
class SpeciesAnswer:
    """What a detection says about one species (``covered`` False: BirdNET does not know it, and
    nothing else is said)."""

    species: str  # as the item names it
    covered: bool
    starts: tuple[float, ...]
    window_s: float
    label: Label | None = None
    curve: tuple[float, ...] = ()  # its confidence per window
    heard: tuple[int, ...] = ()  # windows where it reaches THRESHOLD
    leads: tuple[int, ...] = ()  # windows where it is the most confident label
    other: Heard | None = None  # the strongest other label over the clip
    rival: Heard | None = None  # the other label heard where it is not, in most windows
    top: tuple[Heard, ...] = ()  # the clip's strongest labels

    @property
    def best(self) -> float:
        return max(self.curve, default=0.0)

    @property
    def best_window(self) -> int | None:
        return int(np.argmax(self.curve)) if self.curve else None

    @property
    def detected(self) -> bool:
        return self.covered and self.best >= THRESHOLD

    @property
    def other_dominant(self) -> bool:
        return self.covered and self.rival is not None

    @property
    def verdict(self) -> str:
        if not self.covered:
            return NOT_COVERED
        if not self.detected:
            return NOT_DETECTED
        return OTHER_DOMINANT if self.other_dominant else CONFIRMED

    @property
    def confirmed(self) -> bool:
        return self.verdict == CONFIRMED


def answer(detection: Detection, species: str) -> SpeciesAnswer:
    """What ``detection`` says about ``species`` (a scientific name). Raises
    ``birdnet.BirdNETUnavailable`` without the model's labels."""
    names = labels()
    conf = detection.confidences
    top = tuple(_heard(names[i], conf[:, i]) for i in _strongest(conf, TOP))
    index = label_index().get(species_key(species))
    if index is None:
        return SpeciesAnswer(species, False, detection.starts, detection.window_s, top=top)
    own = conf[:, index]
    leaders = np.argmax(conf, axis=1)
    others = conf.copy()
    others[:, index] = -1.0
    strongest_other = int(np.argmax(others.max(axis=0)))
    return SpeciesAnswer(
        species=species,
        covered=True,
        starts=detection.starts,
        window_s=detection.window_s,
        label=names[index],
        curve=tuple(round(float(c), 4) for c in own),
        heard=tuple(int(w) for w in np.flatnonzero(own >= THRESHOLD)),
        leads=tuple(int(w) for w in np.flatnonzero(leaders == index)),
        other=_heard(names[strongest_other], conf[:, strongest_other]),
        rival=_rival(others, own, names),
        top=top,
    )


def _heard(label: Label, curve: np.ndarray) -> Heard:
    windows = tuple(int(w) for w in np.flatnonzero(curve >= THRESHOLD))
    return Heard(label, round(float(curve.max(initial=0.0)), 4), windows)


def _strongest(conf: np.ndarray, count: int) -> list[int]:
    best = conf.max(axis=0)
    order = np.lexsort((np.arange(best.size), -best))  # ties: the list's order
    return [int(i) for i in order[:count]]


def _rival(others: np.ndarray, own: np.ndarray, names: tuple[Label, ...]) -> Heard | None:
    """The other label heard (``THRESHOLD``) where the species is not, and more confident than
    it, in more than half of the windows: the one doing so in most windows (ties: the
    strongest). A window where the species itself is heard is its own, whatever else is louder
    there: BirdNET, with no place or date to go by, often hears a species of another continent
    beside the right one (a Dark-eyed Junco's trill is a Cirl Bunting's to it), and the clip
    holds the item's species either way."""
    above = (others > own[:, None]) & (others >= THRESHOLD) & (own < THRESHOLD)[:, None]
    counts = above.sum(axis=0)
    if counts.size == 0 or int(counts.max()) * 2 <= others.shape[0]:
        return None
    candidates = np.flatnonzero(counts == counts.max())
    chosen = int(candidates[np.argmax(others.max(axis=0)[candidates])])
    windows = tuple(int(w) for w in np.flatnonzero(above[:, chosen]))
    return Heard(names[chosen], round(float(others[:, chosen].max()), 4), windows)
