"""Parsing option text into acoustic claims, and comparing claims with a measurement."""

from __future__ import annotations

import pytest

from bagel_studio.core.audio import CHECKS, Claim, Measurement, parse_claim
from bagel_studio.core.audio.claims import CALL, EITHER, PHRASE, duration_unit, mismatch


@pytest.mark.parametrize(
    ("text", "kind", "low", "high"),
    [
        ("~3-5 kHz", "frequency", 3000, 5000),
        ("2–4 kHz", "frequency", 2000, 4000),
        ("~1-2kHz", "frequency", 1000, 2000),
        ("0.5-1 kHz", "frequency", 500, 1000),
        ("500 Hz-2 kHz", "frequency", 500, 2000),
        ("~9 – 11 kHz", "frequency", 9000, 11000),
        ("1,000-1,500 Hz", "frequency", 1000, 1500),
        ("between 2 and 3 kHz", "frequency", 2000, 3000),
        ("80-150 ms", "duration", 0.08, 0.15),
        ("0.8-1.2 s", "duration", 0.8, 1.2),
        ("1.5-2.0 s", "duration", 1.5, 2.0),
        ("200 ms – 0.4 s", "duration", 0.2, 0.4),
        ("about 3 seconds", "duration", 3.0, 3.0),
        ("~4 kHz", "frequency", 4000, 4000),
        ("below 1 kHz", "frequency", None, 1000),
        ("> 8 kHz", "frequency", 8000, None),
        ("< 50 ms", "duration", None, 0.05),
    ],
)
def test_ranges(text: str, kind: str, low: float | None, high: float | None) -> None:
    claim = parse_claim(text)
    assert claim is not None
    assert claim.kind == kind and claim.label == text and claim.value is None
    assert claim.low == (pytest.approx(low) if low is not None else None)
    assert claim.high == (pytest.approx(high) if high is not None else None)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("Rising glide", "modulation", "rising"),
        ("Falling glide", "modulation", "falling"),
        ("Trill", "modulation", "trill"),
        ("Sinusoidal vibrato", "modulation", "vibrato"),
        ("Rise-fall (arched) note", "modulation", "up-down"),
        ("Constant frequency", "modulation", "flat"),
        ("Strong harmonics", "harmonicity", "strong-harmonics"),
        ("Weak harmonics", "harmonicity", "weak-harmonics"),
        ("Broadband", "harmonicity", "broadband"),
        ("Tonal whistle", "harmonicity", "tonal"),
        ("Noisy, inharmonic rasp", "harmonicity", "broadband"),
        ("It rises briefly, then falls (downslurred)", "modulation", "up-down"),
        ("Falls, then rises again", "modulation", "down-up"),
        ("Oscillating pitch", "modulation", "vibrato"),
        ("Chirps with a fainter harmonic above", "harmonicity", "weak-harmonics"),
        ("Weaker harmonics above the fundamental", "harmonicity", "weak-harmonics"),
    ],
)
def test_categories(text: str, kind: str, value: str) -> None:
    assert parse_claim(text) == Claim(kind, None, None, text, value)


@pytest.mark.parametrize(
    "text",
    [
        "Parulidae (New World warblers)",  # no warble: a name, not a sound
        "They slide, falling or rising within each note",  # either shape: nothing to test
        "A steady whistle followed by descending notes",  # two patterns, one after the other
    ],
)
def test_no_single_pattern(text: str) -> None:
    claim = parse_claim(text)
    assert claim is None or claim.kind != "modulation"


@pytest.mark.parametrize("text", ["", "   ", "Sound 1", "None of the above", "Cichlidae"])
def test_no_claim(text: str) -> None:
    assert parse_claim(text) is None


def _measurement(**changes: object) -> Measurement:
    base = dict(
        sample_rate=48000,
        analysis_rate=16000,
        channels=1,
        duration_s=6.0,
        peak=0.5,
        clipped=False,
        too_short=False,
        too_quiet=False,
        clarity=0.7,
        snr_db=30.0,
        harmonic_ratio=0.5,
        spectral_flatness=0.1,
        clipping_penalty=0.0,
        dominant_band_hz=(6100.0, 7900.0),
        peak_freq_hz=7000.0,
        syllable_durations_s=(0.1, 0.12, 0.11),
        syllable_median_s=0.11,
        syllable_min_s=0.1,
        syllable_max_s=0.12,
        harmonicity=0.9,
        modulation="rising",
    )
    base.update(changes)
    return Measurement(**base)  # type: ignore[arg-type]


def test_gold_band_contradicted_and_distractor_fits() -> None:
    options = ("~9-11 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz")
    flag = mismatch(options, 1, _measurement())
    assert flag is not None and flag.check == "acoustic-mismatch"
    assert flag.message == (
        "gold ~3-5 kHz but the clip's dominant band is 6.1-7.9 kHz (peak 7.0 kHz); "
        "option C ~6-8 kHz fits"
    )
    assert flag.details["fitting_options"] == ["C"]
    assert mismatch(options, 2, _measurement()) is None


def test_duration_claims() -> None:
    options = ("80-150 ms", "200-400 ms", "0.8-1.2 s", "1.5-2.0 s")
    assert mismatch(options, 0, _measurement()) is None
    flag = mismatch(options, 2, _measurement())
    assert flag is not None
    assert "calls last 110 ms (median of 3; middle half 105 ms-115 ms, all 100 ms-120 ms)" in (
        flag.message
    )
    assert "option A 80-150 ms fits" in flag.message
    # Just outside the range, within tolerance, with no distractor fitting: no flag.
    assert mismatch(("120-300 ms", "1-2 s", "3-4 s", "5-6 s"), 0, _measurement()) is None


@pytest.mark.parametrize(
    ("stem", "unit"),
    [
        ("What is the typical duration of a single chip note in the song of X?", CALL),
        ("How long is a single chirp call of the House Sparrow?", CALL),
        ("What is the typical duration of a single echolocation call of the bat?", CALL),
        ("How long does one chick-a-dee call series of X typically last?", PHRASE),
        ("How long does the trilled song of X typically last?", PHRASE),
        ("How long does a whole song of X last?", PHRASE),
        ("What is the typical call duration of X?", EITHER),
        # the first thing the stem names decides: the song, not the note it starts from...
        ("How long does the song of X last from its first note to its end?", PHRASE),
        ("How long does the opening whistle of the song of X last?", CALL),
        ("How long does one hoot of the owl's song last?", CALL),
        ("What is the song's call / syllable duration?", CALL),
        # ...and "one call" may be a note or a series (a chick-a-dee call): either
        ("How long does one chick-a-dee call of X last?", EITHER),
    ],
)
def test_the_stem_says_what_a_duration_times(stem: str, unit: str) -> None:
    assert duration_unit(stem) == unit


def test_duration_claims_against_calls_or_phrases() -> None:
    """Notes of ~110 ms in songs of ~1.5 s: a claim of 1-2 s fits the songs, not the notes."""
    m = _measurement(phrase_durations_s=(1.4, 1.5, 1.6))
    options = ("80-150 ms", "1-2 s", "5-10 s", "10-20 ms")
    note = "How long is a single note of the song of X?"
    song = "How long does the song of X last?"
    assert mismatch(options, 1, m, song) is None
    assert mismatch(options, 0, m, note) is None
    flag = mismatch(options, 1, m, note)
    assert flag is not None and flag.details["fitting_options"] == ["A"]
    assert "calls last 110 ms" in flag.message and "phrases" not in flag.message
    flag = mismatch(options, 0, m, song)
    assert flag is not None and flag.details["fitting_options"] == ["B"]
    assert flag.message.startswith("gold 80-150 ms but the clip's phrases (calls close together) ")
    assert "1.50 s (median of 3; " in flag.message
    assert mismatch(options, 0, m) is None and mismatch(options, 1, m) is None  # either fits
    flag = mismatch(options, 2, m)
    assert flag is not None and flag.details["fitting_options"] == ["A", "B"]
    assert "calls last 110 ms" in flag.message and "its phrases (calls close together) 1.50 s" in (
        flag.message
    )


@pytest.mark.parametrize(
    ("stem", "options"),
    [
        (
            "How far apart are the two call notes of X?",
            ("About 2 s", "About 50 ms", "0.5 s", "5 ms"),
        ),
        ("What is the gap between successive notes of X?", ("About 50 ms", "1 s", "2 s", "5 s")),
        ("How long is the pause between two songs of X?", ("About 50 ms", "1 s", "2 s", "5 s")),
        (
            "About how often does the phrase of X repeat?",
            ("About every 50 ms", "1 s", "2 s", "5 s"),
        ),
        ("What is the typical interval between X's phrases?", ("About 50 ms", "1 s", "2 s", "5 s")),
    ],
)
def test_the_time_between_sounds_is_not_a_sounds_duration(
    stem: str, options: tuple[str, ...]
) -> None:
    """Calls of ~110 ms: a gap or a period of 50 ms is not a claim about how long they last."""
    gold = next(i for i, o in enumerate(options) if "50 ms" in o)
    assert mismatch(options, gold, _measurement(), stem) is None
    # the same gold asked of the calls themselves is compared
    assert mismatch(
        ("About 50 ms", "1 s", "2 s", "5 s"), 0, _measurement(), "How long is a note of X?"
    )


def test_a_song_is_any_of_the_phrases_the_clip_holds() -> None:
    """A clip holds a song and the fragments around it (chips, a neighbour's notes), each a
    phrase: which one the stem means cannot be told, so a song length within the phrases'
    range is not contradicted, while one outside all of them is."""
    m = _measurement(
        phrase_durations_s=(0.03, 0.08, 0.16, 0.6, 1.7),
        syllable_durations_s=(0.03, 0.04, 0.08, 0.1, 0.12, 0.16),
    )
    song = "How long does one song of X last?"
    options = ("About 1.5-2 s", "About 0.1-0.2 s", "About 4-5 s", "About 8-10 s")
    assert mismatch(options, 0, m, song) is None
    flag = mismatch(options, 3, m, song)
    assert flag is not None and flag.details["fitting_options"] == ["B"]  # the middle half


@pytest.mark.parametrize(
    ("text", "dimension", "kind", "value"),
    [
        (
            "Steep downward sweeps from about 6 kHz to about 3.3 kHz",
            "Modulation pattern",
            "modulation",
            "falling",
        ),
        (
            "It rises and then falls quickly, within about 3-4 kHz",
            "Modulation pattern",
            "modulation",
            "up-down",
        ),
        (
            "Harmonic chirps: a fundamental near 3-4 kHz with a fainter harmonic near 7 kHz",
            "Harmonic structure / tonality vs. broadband",
            "harmonicity",
            "weak-harmonics",
        ),
        ("A tonal whistle at 3-4 kHz", "Dominant frequency range", "frequency", None),
        ("Notes of 20 ms repeated at 6 kHz", "Call / syllable duration", "duration", None),
    ],
)
def test_the_dimension_says_what_an_option_claims(
    text: str, dimension: str, kind: str, value: str | None
) -> None:
    """An option naming a shape and the frequencies it spans claims the shape when the item
    asks the modulation pattern (the numbers are the sweep's extent, not its dominant band)."""
    claim = parse_claim(text, dimension)
    assert claim is not None and claim.kind == kind
    assert claim.value == value
    assert parse_claim("Pure tones", "Modulation pattern") is None
    assert parse_claim("About 3-4 kHz", "Call / syllable duration") is None


def test_a_shape_with_its_frequencies_is_compared_as_a_shape() -> None:
    m = _measurement(dominant_band_hz=(3900.0, 5700.0), peak_freq_hz=4900.0, modulation="falling")
    options = (
        "Slow upward sweeps",
        "A steady whistle held at one pitch",
        "Steep downward sweeps from about 6 kHz to about 3.3 kHz",
        "Noisy broadband bursts",
    )
    assert mismatch(options, 2, m, "What is the modulation pattern?", "Modulation pattern") is None
    flag = mismatch(options, 0, m, "What is the modulation pattern?", "Modulation pattern")
    assert flag is not None and flag.details["fitting_options"] == ["C"]


def test_a_notes_shape_is_compared_with_the_notes_of_a_trill() -> None:
    """A trill of falling notes: "steep downward sweeps" fits it, and so does "a trill"."""
    m = _measurement(modulation="trill", call_modulation="falling")
    options = ("Slow upward sweeps", "A steady whistle", "Steep downward sweeps", "A buzz")
    stem = "What is the modulation pattern of each note in the trill?"
    assert mismatch(options, 2, m, stem, "Modulation pattern") is None
    flag = mismatch(options, 0, m, stem, "Modulation pattern")
    assert flag is not None and flag.details["fitting_options"] == ["C"]
    assert "the clip's calls form a trill, each mostly falling" in flag.message
    trill = ("A rapid trill", "One long whistle", "Two slow hoots", "A rising sweep")
    assert mismatch(trill, 0, m, "How is the song built?", "Modulation pattern") is None
    flag = mismatch(trill, 0, _measurement(), "How is the song built?", "Modulation pattern")
    assert flag is not None and "mostly rising" in flag.message


@pytest.mark.parametrize(
    "text",
    [
        "Broadband notes spanning several kHz",
        "Harsh chirps with energy spread over several kilohertz",
        "Noisy and buzzy, with energy spread over several kHz (about 4-8 kHz)",
    ],
)
def test_a_spread_in_frequency_is_no_claim_of_noise(text: str) -> None:
    """Notes "spanning several kHz" are wide, as a harmonic stack is: how noisy they are the
    spectral flatness measures, how wide they are it does not, so such an option claims
    nothing the harmonicity could contradict."""
    assert parse_claim(text, "Harmonic structure / tonality vs. broadband") is None
    claim = parse_claim(
        "Broadband noise bursts with no pitch", "Harmonic structure / tonality vs. broadband"
    )
    assert claim is not None and claim.value == "broadband"


@pytest.mark.parametrize(
    "text",
    [
        "Buzzy notes that rise to a higher final phrase",
        "A clear whistle followed by buzzy, falling notes",
        "Notes descending step by step",
    ],
)
def test_a_songs_course_is_no_claim_of_each_calls_shape(text: str) -> None:
    """A song "rising to a higher final phrase" or "a whistle followed by falling notes" tells
    how the song goes from note to note, not the shape of its calls the contour measures."""
    assert parse_claim(text, "Modulation pattern") is None


def test_an_arch_and_a_glide_are_not_told_apart() -> None:
    """A call that "rises briefly, then falls" is an arch to one ear and a fall to another:
    where the measurement reads one and the claim says the other, it cannot tell."""
    falling = _measurement(modulation="falling", call_modulation="falling")
    options = ("It rises briefly, then falls", "It stays constant", "It rises", "A trill")
    stem = "How does the pitch of each note change?"
    assert mismatch(options, 0, falling, stem, "Modulation pattern") is None
    arch = _measurement(modulation="up-down", call_modulation="up-down")
    glides = ("It falls", "It rises", "It stays flat", "It rises and falls twice")
    assert mismatch(glides, 0, arch, stem, "Modulation pattern") is None
    assert mismatch(glides, 1, falling, stem, "Modulation pattern") is not None
    assert mismatch(glides, 2, falling, stem, "Modulation pattern") is not None


def test_a_packed_trills_notes_are_no_shorter_than_they_are_heard() -> None:
    """Notes 48 ms apart measured 37 ms long, 11 ms between them: what trails each note (its
    echo, the next one's onset) cannot be told from the note, so a note of 20 ms is not
    contradicted; one of 200 ms is. Notes far apart are timed as they are."""
    starts = tuple(1.0 + 0.048 * k for k in range(12))
    packed = _measurement(syllable_durations_s=(0.037,) * 12, syllable_starts_s=starts)
    options = ("About 20 ms", "About 200 ms", "About 1 s", "About 2 ms")
    stem = "About how long is each note of the trill?"
    assert mismatch(options, 0, packed, stem) is None
    flag = mismatch(options, 1, packed, stem)
    assert flag is not None and flag.details["fitting_options"] == []
    assert "packed 11 ms apart" in flag.message
    # a gold near the notes' length and a distractor far shorter: the distractor fits no
    # better for the notes being packed
    near = ("About 45-60 ms", "About 2-3 ms", "About 1 s", "About 5 s")
    assert mismatch(near, 0, packed, stem) is None
    apart = _measurement(
        syllable_durations_s=(0.037,) * 12,
        syllable_starts_s=tuple(1.0 + 0.1 * k for k in range(12)),
    )
    assert mismatch(options, 0, apart, stem) is not None


def test_a_trill_run_together_into_one_long_call_is_not_ruled_out() -> None:
    """A junco's trill timed as one call of 1.5 s (its notes never fall far enough between
    them to part): the clip is not measured a trill, but one call lasts as long as a trill,
    so a claim of a trill is not contradicted; a clip of short calls alone contradicts it."""
    trill = ("A rapid trill of similar notes", "Two slow hoots", "One long buzz", "Clicks")
    stem = "How are the notes of the song arranged?"
    long_call = _measurement(
        modulation="up-down",
        syllable_durations_s=(0.015, 0.03, 1.52, 0.05),
        call_modulation="up-down",
    )
    assert mismatch(trill, 0, long_call, stem, "Modulation pattern") is None
    short = _measurement(modulation="flat", call_modulation="flat")
    assert mismatch(trill, 0, short, stem, "Modulation pattern") is not None


def test_a_tonal_note_with_a_fainter_harmonic_claims_either() -> None:
    """ "Tonal, with a fainter harmonic" names two qualities: a clip measured as either fits."""
    dimension = "Harmonic structure / tonality vs. broadband"
    text = "Tonal, with a fainter harmonic at about twice the fundamental"
    claim = parse_claim(text, dimension)
    assert claim is not None and claim.value == "tonal+weak-harmonics"
    options = (text, "Broadband noise", "Clicks", "Low hoots")
    stem = "Is the call tonal or noisy?"
    assert mismatch(options, 0, _measurement(harmonicity=1.0), stem, dimension) is None
    assert mismatch(options, 0, _measurement(harmonicity=0.35), stem, dimension) is None
    flag = mismatch(options, 0, _measurement(harmonicity=0.1), stem, dimension)
    assert flag is not None and flag.details["fitting_options"] == ["B"]


def test_weak_harmonics_are_not_told_from_a_pure_tone() -> None:
    """The spectral flatness tells a tone from noise, not a tone alone from a tone with a weak
    harmonic: a chip "with a weaker harmonic" measured fully tonal is not contradicted."""
    dimension = "Harmonic structure / tonality vs. broadband"
    options = ("A chip with a weaker harmonic", "Broadband noise", "Clicks", "Low hoots")
    assert mismatch(options, 0, _measurement(harmonicity=1.0), "Tonal?", dimension) is None
    assert mismatch(options, 0, _measurement(harmonicity=0.1), "Tonal?", dimension) is not None


def test_categorical_claims() -> None:
    modulation = ("Rising glide", "Sinusoidal vibrato", "Falling glide", "Trill")
    assert mismatch(modulation, 0, _measurement()) is None
    flag = mismatch(modulation, 2, _measurement())
    assert flag is not None and "mostly rising" in flag.message and "option A" in flag.message
    tonal = ("Strong harmonics", "Weak harmonics", "Broadband", "Tonal whistle")
    assert mismatch(tonal, 0, _measurement()) is None
    flag = mismatch(tonal, 2, _measurement())
    assert flag is not None and "harmonicity is 0.90" in flag.message


def test_nothing_to_compare() -> None:
    assert mismatch(("Sound 1", "Sound 2", "Sound 3", "Sound 4"), 0, _measurement()) is None
    no_calls = _measurement(
        syllable_durations_s=(),
        syllable_median_s=None,
        syllable_min_s=None,
        syllable_max_s=None,
        modulation=None,
    )
    assert mismatch(("80-150 ms", "1-2 s", "3-4 s", "5-6 s"), 1, no_calls) is None
    assert mismatch(("Trill", "Rising", "Falling", "Flat"), 0, no_calls) is None


def test_check_descriptions() -> None:
    for check in ("acoustic-mismatch", "clip-too-short", "clip-too-quiet", "audio-unreadable"):
        assert CHECKS[check].endswith(".") and "\n" not in CHECKS[check]
