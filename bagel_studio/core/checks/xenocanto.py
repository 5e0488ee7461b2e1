"""Xeno-canto text checks: is the vocalization type of the recording known, single and certain,
and does the stem say which one it asks about?

Acoustic claims ("~3-5 kHz", "80-150 ms") only mean something for a known kind of sound: a song
and a call of the same bird differ in band and duration. The type comes from the recording's
``type`` metadata (e.g. "call, life stage uncertain, sex uncertain, song" for XC625750) or the
envelope's ``vocalization_type``. Sex and life-stage remarks in that field are not about the sound
and are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bagel_studio.core.model import Flag, Item, Severity

if TYPE_CHECKING:
    from bagel_studio.core.checks.context import CheckContext

VOCALIZATION_MISSING = "vocalization-missing"
VOCALIZATION_MIXED = "vocalization-mixed"
VOCALIZATION_UNCERTAIN = "vocalization-uncertain"
STEM_VOCALIZATION = "stem-vocalization"

DESCRIPTIONS = {
    VOCALIZATION_MISSING: "Neither the recording's metadata nor the item's source says whether "
    "the sound is a song or a call.",
    VOCALIZATION_MIXED: "The recording is typed as both song and call, so an acoustic claim may "
    "describe either.",
    VOCALIZATION_UNCERTAIN: "The recording's vocalization type is marked uncertain.",
    STEM_VOCALIZATION: "The stem does not name the vocalization type it asks about (song, "
    "call...; a bat's echolocation pulses or clicks name a call), or names another one than the "
    "recording's. The words that name a type are song, subsong, sing, singing, call, call "
    "note, drumming and duet, the parts trill, rattle and chatter (of a song or a call) "
    "and alarm (a call), echolocation, pulse and click (a call), and, where the stem "
    "names no type outright, the birders' words for a call (chip, chirp, chirrup, chink, "
    "tchip, tsip, tseep, seet, zeep, peep, tink, squawk, scold) and for a song (warble, "
    'strophe): "the chip notes" ask about a call, "each chip of the song" about the song; '
    '"note", "whistle" and "sound" name none.',
}

_NOT_ABOUT_SOUND = re.compile(
    r"\b(sex|life stage|stage|age|male|female|adult|juvenile|immature|uncertain sex)\b", re.I
)
_UNCERTAIN = re.compile(r"\?|\b(uncertain|unknown|unsure|possibly|probably|maybe|unclear)\b", re.I)
# Each pattern over a whole stem looks at the first letter of a word, (?=[...]): the first letters
# of its alternatives, before it tries them, so that most places of a stem are passed over at
# once (tests/core/checks/test_checks_first_letters.py keeps the letters complete).
_STEM_TYPES = re.compile(
    r"\b(?=[acdeprst])"
    r"(songs?|subsongs?|sings?|singing|calls?|call notes?|drumming|duets?|rattles?|"
    r"alarm|chatter|trills?|echolocation(?:\s+(?:pulses?|clicks?|signals?|sounds?))?|"
    r"pulses?|clicks?)\b",
    re.IGNORECASE,
)


# The birders' words for one kind of sound: a chip, a chirp, a tsip is a call; a warble or a
# strophe is (part of) a song. They name the type when the stem names none outright: "each chip
# of the song" asks about the song.
_SOUND_WORDS = (
    (
        re.compile(
            r"\b(?=[cpstz])"
            r"(chips?|chipp?ing|chirps?|chirping|chirrups?|chinks?|tchips?|tsips?|tseeps?|"
            r"seets?|zeeps?|peeps?|tinks?|squawks?|scold(?:s|ing)?)\b",
            re.IGNORECASE,
        ),
        "call",
    ),
    (re.compile(r"\b(?=[sw])(warbl(?:e|es|ing)|strophes?)\b", re.IGNORECASE), "song"),
)


# Parts of a vocalization a stem may name, with the types they may be part of: a trill, a
# rattle or a chatter is sung or called; an alarm is a call.
_PARTS_OF = {
    "trill": frozenset({"song", "call"}),
    "trills": frozenset({"song", "call"}),
    "rattle": frozenset({"song", "call"}),
    "rattles": frozenset({"song", "call"}),
    "chatter": frozenset({"song", "call"}),
    "alarm": frozenset({"call"}),
}
# A bat's echolocation pulses, clicks and buzzes are calls.
_CALL_PARTS = re.compile(r"echolocation|pulse|click", re.IGNORECASE)


@dataclass(frozen=True)
class Vocalization:
    raw: str  # the type text as found
    where: str  # "XC625750" or "the item's source"
    kinds: frozenset[str]  # "song", "call" or another named sound
    uncertain: tuple[str, ...]  # the parts marked uncertain


def kind_of(text: str) -> str:
    """One vocalization type as the checks compare them: any kind of song is ``song``, any call
    ``call``, anything else as written, lower-cased."""
    lower = text.lower()
    if "song" in lower or "sing" in lower:
        return "song"
    if "call" in lower:
        return "call"
    return lower.strip()


def parse_vocalization(raw: str, where: str) -> Vocalization:
    """The kinds of sound a type field names (``song, alarm call``: song and call) and its
    uncertain parts (``call?``); ``where`` says whose field it was, for the messages. Parts
    about something else than the sound are passed over."""
    kinds: set[str] = set()
    uncertain: list[str] = []
    for part in (p.strip() for p in raw.split(",")):
        if not part or _NOT_ABOUT_SOUND.search(part):
            continue
        if _UNCERTAIN.search(part):
            uncertain.append(part)
            part = _UNCERTAIN.sub("", part).strip(" ?")
        if part:
            kinds.add(kind_of(part))
    return Vocalization(raw, where, frozenset(kinds), tuple(uncertain))


def recording_id(item: Item) -> str | None:
    """The id of the recording an item is about, from its link or its source, or None."""
    value = item.recording_id or item.source.get("recording") or item.source.get("recording_id")
    return str(value) if value else None


def vocalization_of(ctx: CheckContext, item: Item) -> Vocalization | None:
    """The vocalization type of the item's recording, from the recording's metadata, else from
    the item's source; None when neither names one."""
    rec_id = recording_id(item)
    recording = ctx.recording(rec_id)
    if recording is not None:
        raw = recording.get("vocalization_type") or _metadata_type(recording.get("metadata"))
        if isinstance(raw, str) and raw.strip():
            name = str(recording.get("id") or rec_id)
            return parse_vocalization(raw, name if name.upper().startswith("XC") else f"XC{name}")
    raw = item.source.get("vocalization_type")
    if isinstance(raw, str) and raw.strip():
        return parse_vocalization(raw, "the item's source")
    return None


def _metadata_type(metadata: Any) -> str | None:
    if isinstance(metadata, dict):
        value = metadata.get("type")
        return value if isinstance(value, str) else None
    return None


def xeno_canto_flags(ctx: CheckContext, item: Item) -> list[Flag]:
    """The vocalization checks of a Xeno-canto item: its type missing, mixed (song and call),
    uncertain, or not the one the stem asks about."""
    voc = vocalization_of(ctx, item)
    flags: list[Flag] = []
    details: dict[str, Any] = {"recording": recording_id(item)}
    if voc is None or not voc.kinds:
        rec_id = recording_id(item)
        if rec_id is None:
            where = "this item (no recording)"
        elif ctx.recording(rec_id) is None:
            where = f"{rec_id} (recording not loaded)"
        else:
            where = rec_id
        flags.append(
            Flag(
                VOCALIZATION_MISSING,
                Severity.WARNING,
                f"No vocalization type for {where}: neither the recording's type field nor "
                "the item's source names one" + (f" (only {voc.raw!r})" if voc else ""),
                details | {"type": voc.raw if voc else None},
            )
        )
    if voc is not None and {"song", "call"} <= voc.kinds:
        flags.append(
            Flag(
                VOCALIZATION_MIXED,
                Severity.WARNING,
                f"{voc.where} is typed {voc.raw!r}: song and call mixed, so the claim may describe "
                "either",
                details | {"type": voc.raw},
            )
        )
    if voc is not None and voc.uncertain:
        flags.append(
            Flag(
                VOCALIZATION_UNCERTAIN,
                Severity.WARNING,
                f"{voc.where} marks its vocalization type uncertain: "
                + ", ".join(repr(u) for u in voc.uncertain),
                details | {"type": voc.raw},
            )
        )
    stem_flag = _stem_vocalization(item, voc, details)
    if stem_flag is not None:
        flags.append(stem_flag)
    return flags


def _stem_vocalization(
    item: Item, voc: Vocalization | None, details: dict[str, Any]
) -> Flag | None:
    question = item.content.question
    named = {kind_of(m.group(0)) for m in _STEM_TYPES.finditer(question)}
    said_by = ""  # the birders' word that named the type, for the message
    if not named:
        for pattern, kind in _SOUND_WORDS:
            found = pattern.search(question)
            if found is not None:
                named.add(kind)
                said_by = said_by or f' ("{found.group(0).lower()}" is a {kind})'
    known = voc.kinds if voc is not None else frozenset()
    if not named:
        said = f" ({voc.where}: {', '.join(sorted(known))})" if known and voc else ""
        return Flag(
            STEM_VOCALIZATION,
            Severity.WARNING,
            f"The stem does not name the vocalization type it asks about{said}",
            details | {"stem": [], "type": sorted(known)},
        )
    fits = set(named)
    for part in named:
        fits |= _PARTS_OF.get(part, frozenset())
        if _CALL_PARTS.search(part):
            fits.add("call")
    if known and voc is not None and not fits & known:
        return Flag(
            STEM_VOCALIZATION,
            Severity.WARNING,
            f"The stem asks about the {'/'.join(sorted(named))}{said_by} but {voc.where} is typed "
            f"{voc.raw!r}",
            details | {"stem": sorted(named), "type": sorted(known)},
        )
    return None
