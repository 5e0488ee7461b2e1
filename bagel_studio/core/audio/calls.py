"""Finding a clip's calls in time, at the resolution each needs: an owl's hoot, a bat's pulse.

A hoot lasts half a second; a bat's echolocation pulse a millisecond; a cricket's trill is a
train of 10 ms notes. No one energy window times all of them, so the band's energy (the band
from ``bands``) is smoothed over windows one octave apart, from a few cycles of the band up to
50 ms (a running sum: each costs one pass), and each window finds calls of its own:

* **Thresholds from the noise floor.** At each window the noise's mean power and spread are read
  from the envelope's quiet part (``NoiseFloor``: the smoothed energy of noise follows a gamma
  distribution whose shape grows with the window). A call reaches a level noise alone passes
  once in a million windows, and lasts while above what noise stays under 95 % of the time.
  The noise's mean is the same at every window (only its spread changes), so no window reads
  it far under the windows' median: between a recorder's clicks, windows shorter than their
  spacing see a floor ten times under the noise's mean, and every click would stand out.
* **From coarse to fine.** At the coarsest window a pulse train or a run of notes is one event
  and noise is smoothest. Going finer, an event is split into the calls a finer window finds in
  it when real gaps part them (long against that window, dipping well under both sides), and a
  call only a finer window finds (a pulse too short for the coarser ones) is added once the
  window twice as long sees it too; so each call is found at the window that fits it.
* **The caller's calls.** Calls far fainter than the loud ones (another animal, far off), and
  scraps beside a louder call (its tail, an echo), are left out.
* **Ends.** Each call's start and end are read at a window an eighth of its length, where its
  energy falls into the noise or 25 dB under its peak, with what the window adds taken off.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from bagel_studio.core.audio import dsp
from bagel_studio.core.lazy import lazy_import

special = lazy_import("scipy.special")

MAX_SCALE_S = 0.05  # the coarsest energy window
MIN_WINDOW_SAMPLES = 8
FINEST_CYCLES = 4.0  # the finest window averages this many independent samples of the band
HIGH_FALSE_ALARM, HIGH_DB = 1e-6, 6.0  # a call reaches a level noise seldom does (see _Scale)
LOW_QUANTILE, LOW_DB = 0.95, 3.0  # and lasts while above what noise mostly stays under
DYNAMIC_DB = 40.0  # the low threshold at least this far under the loudest (a noiseless clip)
MIN_WINDOWS = 2.0  # a call lasts this many windows at least (a click lasts one)...
RESOLVE = 4.0  # ...and a window finds calls lasting this many windows
EDGE_WINDOWS = 8.0  # a call's ends are read at a window this many times shorter than it
GAP_WINDOWS = 1.5  # a dip shorter than this many windows is noise, not a gap
GAP_RESOLVE = 3.0  # a gap that splits a call lasts this many windows...
DIP_DB = 6.0  # ...and dips this far under the quieter side
PART_DB = 10.0  # the calls a call splits into are within this of the loudest of them...
PART_SHARE = 0.5  # ...and hold this share of its energy
END_DB = 25.0  # a call ends where its energy falls this far under its peak (or into the noise)
LOUDEST_SPAN_DB = 20.0  # calls this far under the loud ones are background, not the caller
SCRAP_SHARE, SCRAP_GAP = 0.1, 0.5  # see _without_scraps
NOISE_SPREAD_DB = 3.0  # a window's reading of the noise's mean lies within this of the
# windows' median (see find_calls)
STATIONARY_DB = 6.0  # nothing found, and the envelope spans less than this: one steady sound


@dataclass(frozen=True)
class Calls:
    """The calls of a clip: where they are, and how they were found."""

    rate: int  # the sample rate they were measured at
    band_hz: tuple[float, float]  # the analysis band (survey band widened)
    window_s: float  # the energy window the durations were read at
    segments: tuple[tuple[float, float], ...]  # (start, end) seconds
    stationary: bool  # nothing comes and goes: the clip is one steady sound


def find_calls(samples: np.ndarray, rate: int, band: tuple[float, float]) -> Calls:
    """The calls in ``samples`` (at ``rate``) within ``band``: found from the coarsest window
    down (``_split_down``), the faint ones and the scraps left out, each one's length read at a
    window short against it (``_edges``)."""
    filtered = dsp.bandpass(samples, rate, band)
    energy = np.concatenate(([0.0], np.cumsum(filtered.astype(np.float64) ** 2)))
    width = max(band[1] - band[0], 1.0)
    finest = max(MIN_WINDOW_SAMPLES / rate, FINEST_CYCLES / width)
    windows = [finest * 2.0**k for k in range(40) if finest * 2.0**k <= MAX_SCALE_S] or [finest]
    envelopes = [_envelope(energy, rate, window) for window in windows]
    floors = [NoiseFloor.of(env) for env, _ in envelopes]
    least = float(np.median([floor.mean for floor in floors])) * 10 ** (-NOISE_SPREAD_DB / 10)
    scales = [
        _Scale.of(env, hop_s, window, floor.at_least(least))
        for (env, hop_s), window, floor in zip(envelopes, windows, floors, strict=True)
    ]
    events = _without_scraps(_loud(_split_down(scales), scales), scales)
    if not events:
        coarsest = scales[-1]
        steady = coarsest.env.max(initial=0.0) < coarsest.noise.mean * 10 ** (STATIONARY_DB / 10)
        whole = ((0.0, samples.size / rate),) if steady else ()
        return Calls(rate, band, coarsest.window_s, whole, steady)
    segments = tuple(_edges(event, scales) for event in events)
    window = float(np.median([scales[e.scale].window_s for e in events]))
    return Calls(rate, band, window, segments, False)


@dataclass(frozen=True)
class _Event:
    """A call as found at one window: seconds, peak power, the window's index."""

    start: float
    end: float
    peak: float
    scale: int

    def overlaps(self, other: _Event) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class NoiseFloor:
    """The noise in an energy envelope: its mean power and how many independent samples each
    window averages (the shape of its gamma distribution: the mean of K squared Gaussian
    pairs), read from the envelope's lower part (5th and 20th percentiles), which calls seldom
    reach as they seldom fill 80 % of a clip."""

    mean: float
    shape: float

    @classmethod
    def of(cls, env: np.ndarray) -> NoiseFloor:
        if env.size == 0:
            return cls(1e-30, 1.0)
        p05, p20 = (float(v) for v in np.percentile(env, [5.0, 20.0]))
        ratio = p20 / p05 if p05 > 0 else np.inf
        ratios, shapes = _shape_table()
        shape = float(np.interp(ratio, ratios, shapes)) if np.isfinite(ratio) else shapes[-1]
        mean = p20 / (float(special.gammaincinv(shape, 0.2)) / shape)
        return cls(max(mean, 1e-30), shape)

    def at_least(self, mean: float) -> NoiseFloor:
        """This floor with its mean raised to ``mean`` if under it (its spread kept)."""
        return self if self.mean >= mean else NoiseFloor(mean, self.shape)

    def quantile(self, q: float) -> float:
        """The power noise alone stays under with probability ``q``."""
        return self.mean * float(special.gammaincinv(self.shape, q)) / self.shape


@cache
def _shape_table() -> tuple[np.ndarray, np.ndarray]:
    """(p20 / p05 of the gamma distribution of each shape, the shapes), by rising ratio."""
    shapes = np.geomspace(1e5, 0.25, 200)
    return special.gammaincinv(shapes, 0.2) / special.gammaincinv(shapes, 0.05), shapes


@dataclass(frozen=True)
class _Scale:
    """The band's energy at one window: its envelope, noise, thresholds and the calls found.

    High: what noise alone passes once in HIGH_FALSE_ALARM windows, and HIGH_DB over its mean
    at least. Low: what it stays under LOW_QUANTILE of the time, LOW_DB over its mean at least,
    and within DYNAMIC_DB of the loudest (a noiseless recording has no floor to speak of)."""

    window_s: float
    hop_s: float
    env: np.ndarray  # mean power over the window, every hop (a quarter window)
    noise: NoiseFloor
    high: float
    low: float
    events: list[tuple[int, int, float]]  # (first, past-last) hop, peak power; RESOLVE windows
    seen: list[tuple[int, int, float]]  # the same, MIN_WINDOWS windows long or more

    @classmethod
    def of(cls, env: np.ndarray, hop_s: float, window_s: float, noise: NoiseFloor) -> _Scale:
        high = max(noise.quantile(1 - HIGH_FALSE_ALARM), noise.mean * 10 ** (HIGH_DB / 10))
        low = max(
            noise.quantile(LOW_QUANTILE),
            noise.mean * 10 ** (LOW_DB / 10),
            float(env.max(initial=0.0)) * 10 ** (-DYNAMIC_DB / 10),
        )
        low = min(low, high)
        seen = _detect(env, high, low, round(GAP_WINDOWS * window_s / hop_s))
        seen = [e for e in seen if (e[1] - e[0]) * hop_s >= MIN_WINDOWS * window_s]
        events = [e for e in seen if (e[1] - e[0]) * hop_s >= RESOLVE * window_s]
        return cls(window_s, hop_s, env, noise, high, low, events, seen)

    def sees(self, event: _Event) -> bool:
        """Whether this window finds ``event`` too (a blip of the finer window's noise fades
        once the window doubles; a call of RESOLVE finer windows still lasts two)."""
        a, b = self.index(event.start), self.index(event.end)
        return any(start < b and a < stop for start, stop, _ in self.seen)

    def index(self, seconds: float) -> int:
        return int(np.clip(round(seconds / self.hop_s), 0, self.env.size))


def _envelope(energy: np.ndarray, rate: int, window_s: float) -> tuple[np.ndarray, float]:
    """The mean power over ``window_s`` every quarter window (from the running sum
    ``energy``), and that hop in seconds."""
    n = max(1, round(window_s * rate))
    hop = max(1, n // 4)
    total = energy.size - 1
    centres = np.arange(0, total, hop)
    lo = np.clip(centres - n // 2, 0, total)
    hi = np.clip(centres - n // 2 + n, 0, total)
    return np.maximum((energy[hi] - energy[lo]) / np.maximum(hi - lo, 1), 0.0), hop / rate


def _detect(env: np.ndarray, high: float, low: float, bridge: int) -> list[tuple[int, int, float]]:
    """Runs above ``low`` (dips shorter than ``bridge`` hops bridged) that reach ``high``; a run
    holding calls of different loudness is cut again at END_DB under its own peak, so a loud
    call and the fainter one just after it (or its echo) stay two."""
    events = []
    for start, stop in _runs(env, low, bridge):
        peak = float(env[start:stop].max())
        own = peak * 10 ** (-END_DB / 10)
        parts = _runs(env[start:stop], own, bridge) if own > low else [(0, stop - start)]
        for a, b in parts:
            top = float(env[start + a : start + b].max())
            if top >= high:
                events.append((start + a, start + b, top))
    return events


def _runs(env: np.ndarray, level: float, bridge: int) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, stop in dsp.runs_above(env > level):
        if merged and start - merged[-1][1] < bridge:
            merged[-1][1] = stop
        else:
            merged.append([start, stop])
    return [(a, b) for a, b in merged]


def _split_down(scales: list[_Scale]) -> list[_Event]:
    """The calls, from the coarsest window (where a pulse train or a song's run of notes is one
    event, and noise is smoothest) to the finest: a call is replaced by the calls a finer window
    finds within it when real gaps part them (``_parts``); a call only a finer window finds (a
    pulse too short for the coarser ones) is added when the window twice as long sees it too."""
    found: list[_Event] = []
    for k in reversed(range(len(scales))):
        scale = scales[k]
        here = [_Event(a * scale.hop_s, b * scale.hop_s, peak, k) for a, b, peak in scale.events]
        kept: list[_Event] = []
        for event in found:
            inside = [e for e in here if e.overlaps(event)]
            parts = _parts(inside, scale, event) if len(inside) > 1 else []
            kept.extend(parts if len(parts) > 1 else [event])
        coarser = scales[k + 1] if k + 1 < len(scales) else None
        kept.extend(
            e
            for e in here
            if not any(e.overlaps(old) for old in kept) and (coarser is None or coarser.sees(e))
        )
        found = sorted(kept, key=lambda e: e.start)
    return found


def _parts(inside: list[_Event], scale: _Scale, whole: _Event) -> list[_Event]:
    """``inside`` (a finer window's calls within the call ``whole``) less those PART_DB under
    the loudest of them (a call's own ripples, which a fine window makes much of), joined across
    the gaps that are not real: a real gap lasts GAP_RESOLVE windows and dips DIP_DB under the
    quieter side's peak. None when the parts hold under PART_SHARE of the call's energy (they
    are the loudest moments of one diffuse sound, not calls of their own)."""
    loudest = max(e.peak for e in inside)
    loud = [e for e in inside if e.peak >= loudest * 10 ** (-PART_DB / 10)]
    held = sum(_energy(e, scale) for e in loud)
    if held < PART_SHARE * _energy(whole, scale):
        return []
    parts = [loud[0]]
    for event in loud[1:]:
        last = parts[-1]
        gap = scale.env[scale.index(last.end) : scale.index(event.start)]
        deep = gap.size > 0 and gap.min() <= min(last.peak, event.peak) * 10 ** (-DIP_DB / 10)
        if event.start - last.end >= GAP_RESOLVE * scale.window_s and deep:
            parts.append(event)
        else:
            parts[-1] = _Event(last.start, event.end, max(last.peak, event.peak), last.scale)
    return parts


def _energy(event: _Event, scale: _Scale) -> float:
    """The energy ``event`` holds above the noise, in ``scale``'s envelope."""
    env = scale.env[scale.index(event.start) : scale.index(event.end)]
    return float(np.maximum(env - scale.noise.mean, 0.0).sum() * scale.hop_s)


def _loud(events: list[_Event], scales: list[_Scale]) -> list[_Event]:
    """The caller's calls: those reaching halfway (in dB) from the noise floor to the loud ones
    (the median of the loudest tenth, three at least, so that one click sets nothing), and
    within LOUDEST_SPAN_DB of them; fainter ones are other animals, far off, or ripples of the
    background."""
    if not events:
        return []
    above = [10 * np.log10(e.peak / scales[e.scale].noise.mean) for e in events]
    loud = float(np.median(sorted(above)[-max(3, len(above) // 10) :]))
    least = max(loud / 2, loud - LOUDEST_SPAN_DB)
    return [e for e, db in zip(events, above, strict=True) if db >= least]


def _without_scraps(events: list[_Event], scales: list[_Scale]) -> list[_Event]:
    """The calls less the scraps: a call holding under SCRAP_SHARE of the energy of a neighbour
    closer to it than SCRAP_GAP of that neighbour's length is that call's tail, a fragment or
    an echo, not a call of its own; a pulse train's pulses, a trill's notes and a song's notes
    are spaced further apart, or alike in energy."""
    energies = [_energy(e, scales[e.scale]) for e in events]
    kept = []
    for i, event in enumerate(events):
        scrap = False
        for j in (i - 1, i + 1):
            if 0 <= j < len(events):
                other = events[j]
                gap = event.start - other.end if j < i else other.start - event.end
                near = gap < SCRAP_GAP * (other.end - other.start)
                scrap = scrap or (near and energies[i] < SCRAP_SHARE * energies[j])
        if not scrap:
            kept.append(event)
    return kept


def _edges(event: _Event, scales: list[_Scale]) -> tuple[float, float]:
    """(start, end) seconds of one call: read again at the coarsest window EDGE_WINDOWS times
    shorter than the call (or the finest), within a window of where it was found, from the first to
    the last stretch of two windows above that window's low threshold and END_DB under the
    call's peak there; what the window's own length adds taken off."""
    found = scales[event.scale]
    begin, end = event.start, event.end
    fitting = [s for s in scales if s.window_s * EDGE_WINDOWS <= end - begin]
    scale = fitting[-1] if fitting else scales[0]
    first = scale.index(begin - found.window_s)
    env = scale.env[first : scale.index(end + found.window_s) + 1]
    peak = float(env.max(initial=0.0))
    level = max(scale.low, peak * 10 ** (-END_DB / 10))
    runs = [(a, b) for a, b in dsp.runs_above(env > level) if b - a >= MIN_WINDOWS * 4]
    if not runs or peak <= 0:
        return begin, end
    start = (first + runs[0][0] - 0.5) * scale.hop_s
    stop = (first + runs[-1][1] - 0.5) * scale.hop_s
    spread = scale.window_s * max(0.0, 1.0 - 2.0 * level / peak)
    shrink = min(spread, 0.5 * (stop - start)) / 2
    return start + shrink, stop - shrink
