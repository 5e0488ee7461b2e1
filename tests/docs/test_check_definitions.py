"""What docs/CHECKS.md says plainly of a check is what the check does: the words a row says a
check reads (or does not), the examples it gives, and on which item of a pair a flag goes, each
tried on the check itself, so that a definition that drifts from its check fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bagel_studio.core.audio.analysis import measure
from bagel_studio.core.audio.decode import decode
from bagel_studio.core.audit import AuditReport, audit_flags
from bagel_studio.core.audit.baselines import BaselineTable
from bagel_studio.core.audit.leaks import Leak
from bagel_studio.core.checks.interactions import leaky_words
from bagel_studio.core.store import Store
from tests.core.audio import audio_support as sig
from tests.core.checks.checks_support import checked, new_item

ROOT = Path(__file__).resolve().parents[2]
CHECKS_MD = (ROOT / "docs" / "CHECKS.md").read_text(encoding="utf-8")
INTERACTION = "Masked interaction type inference"


def row(check: str) -> str:
    """The text of ``check``'s row of the check table."""
    found = [line for line in CHECKS_MD.splitlines() if line.startswith(f"| `{check}` |")]
    assert len(found) == 1, f"one row of {check} in docs/CHECKS.md"
    return found[0]


def listed(text: str, after: str) -> list[str]:
    """The comma-separated words in the brackets that follow ``after`` in ``text``."""
    match = re.search(re.escape(after) + r"\s*\(([^)]*)\)", text)
    assert match is not None, f"{after!r} followed by a list in brackets"
    return [w.strip() for w in match.group(1).split(",")]


def test_leaky_verb_reads_the_words_of_the_roots_its_row_lists_and_not_the_other_words() -> None:
    text = row("leaky-verb")
    counted = listed(text, "Every word of their roots counts, in any case")
    not_counted = [*listed(text, "words of other roots do not"), "feeds", "symbiont"]
    assert '"feeds"' in text and '"symbiont"' in text
    for word in counted:
        assert leaky_words(f"How does Parus major relate to what it {word} in oaks?"), word
        assert leaky_words(f"HOW DOES IT RELATE TO WHAT IT {word.upper()}?"), word
    for word in not_counted:
        assert not leaky_words(f"How does Parus major relate to what it {word} in oaks?"), word


@pytest.mark.parametrize(
    ("phrase", "hidden"),
    [
        ("the records", True),
        ("the GloBI records", True),
        ("according to the records", True),
        ("these tick records", True),
        ("the tick record", True),
        ("the museum record", True),
        ("the fossil record", False),
        ("in the tick records", False),
        ("in the museum records", False),
        ("in the tick data", False),
        ("in GloBI records", False),
        ("according to GloBI", False),
        ("in the study described", True),
        ("the experiment mentioned", True),
    ],
)
def test_hidden_context_reads_its_rows_examples_as_the_row_says(phrase: str, hidden: bool) -> None:
    assert f'"{phrase}"' in row("hidden-context")
    item = new_item(
        "globi:tick:0",
        "GloBI",
        f"Which host does Ixodes ricinus have, {phrase}?",
        ["Capreolus capreolus", "Parus major", "Sitta europaea", "Apis mellifera"],
        "A",
        "Masked participant identification",
    )
    flags = checked(Store.memory(), item)["globi:tick:0"]
    assert ("hidden-context" in flags) is hidden


@pytest.mark.parametrize(
    ("word", "names_a_type"),
    [
        *[
            (w, True)
            for w in (
                "song",
                "subsong",
                "call",
                "call note",
                "drumming",
                "duet",
                "trill",
                "rattle",
                "chatter",
                "alarm",
                "echolocation",
                "pulse",
                "click",
                "chip",
                "chirp",
                "tsip",
                "warble",
            )
        ],
        *[(w, False) for w in ("note", "whistle", "sound")],
    ],
)
def test_stem_vocalization_names_a_type_by_the_words_its_row_says(
    word: str, names_a_type: bool
) -> None:
    text = row("stem-vocalization")
    said = text.split("The words that name a type are", 1)
    assert len(said) == 2 and (word in said[1] if names_a_type else f'"{word}"' in said[1])
    item = new_item(
        "xc:junco:0",
        "Xeno-canto",
        f"What is the dominant frequency range of the {word} of the Dark-eyed Junco?",
        ["~9-11 kHz", "~3-5 kHz", "~6-8 kHz", "~1-2 kHz"],
        "B",
        "Dominant frequency range",
        source={"vocalization_type": "song, call"},
    )
    flag = checked(Store.memory(), item)["xc:junco:0"].get("stem-vocalization")
    names_none = flag is not None and "does not name the vocalization type" in flag.message
    assert names_none is not names_a_type  # drumming, a duet: named, though not the recording's


def test_leaks_answer_of_goes_on_the_item_whose_stem_gives_the_answer_away() -> None:
    assert "on the item whose stem gives the answer away" in row("leaks-answer-of")
    report = AuditReport(
        items=2,
        baselines=BaselineTable({}, {}),
        artifacts=[],
        duplicates=[],
        leaks=[Leak("w:giving", "w:given", "osphranter rufus")],
    )
    flags = audit_flags(report)
    assert [f.check for f in flags["w:giving"]] == ["leaks-answer-of"]
    assert flags["w:giving"][0].details["items"] == ["w:given"]
    assert "w:given" not in flags


@pytest.mark.parametrize(("gold", "flagged"), [("A", True), ("B", True), ("C", False)])
def test_underspecified_interaction_with_the_vague_option_as_the_gold(
    gold: str, flagged: bool
) -> None:
    """A: vague, B: the specific one it covers, C and D: neither (the row's example)."""
    assert "whichever of the two is the gold" in row("underspecified-interaction")
    item = new_item(
        "globi:bee:0",
        "GloBI",
        "What is the relationship of Bombus terrestris to Fraxinus excelsior?",
        ["visits flowers of", "pollinates", "parasite of", "has habitat"],
        gold,
        INTERACTION,
    )
    flags = checked(Store.memory(), item)["globi:bee:0"]
    assert ("underspecified-interaction" in flags) is flagged


@pytest.mark.parametrize(
    ("specific", "flagged"),
    [("The bat hunts the midge", True), ("They roost in the same caves", False)],
)
def test_underspecified_interaction_reads_a_vague_gold_in_words_as_its_row_says(
    specific: str, flagged: bool
) -> None:
    """The row's example: a gold that says no more than that the two interact, beside a
    distractor saying what one does to the other; where they live is not enough."""
    text = row("underspecified-interaction")
    assert '"They interact with each other"' in text and '"The bat hunts the midge' in text
    assert "where they live is not enough" in text
    item = new_item(
        "globi:bat:0",
        "GloBI",
        "How is the bat Myotis daubentonii related to the midge Chironomus plumosus?",
        ["They interact with each other", specific, "They never meet", "They share no habitat"],
        "A",
        INTERACTION,
    )
    flag = checked(Store.memory(), item)["globi:bat:0"].get("underspecified-interaction")
    assert (flag is not None) is flagged
    assert flag is None or "record" not in flag.message  # the options alone are read


def test_clip_too_short_measures_the_whole_file_in_real_time(tmp_path: Path) -> None:
    """A whole 1.5 s recording of a bat at 192 kHz (288,000 samples, more than a 6 s clip at
    44.1 kHz holds) is too short; the same tone over 6 s is not."""
    text = row("clip-too-short")
    assert "whole file lasts less than 5 s of real time" in text
    assert "a bat's complete 1.5 s hand-release recording" in text
    rate = 192000
    whole = measure(decode(sig.write(tmp_path, "bat.wav", sig.tone(40000, 1.5, rate), rate)))
    assert whole.duration_s == pytest.approx(1.5) and whole.too_short
    longer = measure(decode(sig.write(tmp_path, "bat6.wav", sig.tone(40000, 6.0, rate), rate)))
    assert not longer.too_short
