"""Checks on the wording of any item: near-duplicate options, the gold answer leaked into the
stem, and stems that point at context a closed-book reader never sees."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

from rapidfuzz.distance import Indel

from bagel_studio.core.checks.interaction_types import (
    Reading,
    active_interaction,
    classify_option,
    names_interaction,
    same_way,
)
from bagel_studio.core.checks.quantities import (
    NUMBER_STEMS,
    Quantity,
    asked_units,
    hedged_inside,
    names_number,
    nested_ranges,
    quantities,
    same_quantities,
    unit_words,
)
from bagel_studio.core.checks.words import (
    STOP_WORDS,
    WORD_RE,
    singular,
    stem,
    stem_set,
    words,
)
from bagel_studio.core.domains import BIORXIV, GLOBI, LETTERS, XENO_CANTO
from bagel_studio.core.model import Flag, Item, Severity
from bagel_studio.core.taxonomy import parse_name

DUPLICATE_OPTIONS = "duplicate-options"
GOLD_IN_STEM = "gold-in-stem"
HIDDEN_CONTEXT = "hidden-context"

DESCRIPTIONS = {
    DUPLICATE_OPTIONS: "Two options say the same thing in different words (the same content "
    "words in an order that keeps their meaning, the same quantities in other units or number "
    "formats, each end of a range in its own unit, a bare number and the same number in the "
    "unit the stem asks, one range mostly inside the other, a hedged value inside a range that "
    "says no more, the same interaction in other verbs or interaction labels of one type the "
    'same way round ("has ectoparasite" / "is parasitized externally by"), a verb and the '
    'sound made of it with a light verb ("hiss" / "make hissing sounds"), or nearly the '
    "same text), so two answers are defensible; the words or numbers matched are named.",
    GOLD_IN_STEM: "The gold answer's text appears in the stem, so the stem gives it away: "
    "as a phrase (in any form of its words), or as all its content words scattered, each "
    "written as in the gold (a stem describing what a name names, the reflex that lets a cat "
    '"right itself", does not give away "the cat righting reflex"). A taxon a GloBI '
    "item's evidence names on both sides of one interaction (a pike eating pike) is the stem's "
    "own subject, which the stem has to name: no leak.",
    HIDDEN_CONTEXT: "The stem refers to something the reader never sees (the passage, this GloBI "
    "record, the source, the spectrogram, the recording...); items must be self-contained. A "
    'source counts as pointed at when "the" comes straight before such a noun, or before one of a '
    "few qualifiers of a source and the noun (given, original, GloBI, interaction, observation, "
    'linked...: "the records", "the GloBI records", "according to the records"), or '
    '"this"/"these"/"those" within two words of it ("these tick records"); one record is pointed '
    'at whatever qualifies it ("the tick record", "the museum record"), but not the world\'s '
    '("the fossil record", "the oldest record") nor the verb ("how does the tick record its '
    'host"). A body of records or data named by what it is about names a source the reader '
    'could look up ("in the tick records", "in the museum records", "records of tick hosts '
    'from Bogesund"): "in the tick data", "in GloBI records" and "according to GloBI" are not '
    'read as hidden context either, as "according to the authors" of a bioRxiv stem is not, '
    'nor "according to the" before a source named by its own name ("the 2019 Breeding Bird '
    'Survey"). A study the stem says was described, mentioned or cited, ending the phrase ("in '
    'the study described", "the experiment mentioned"), is hidden context too. A Xeno-canto '
    'stem that mentions the recording, clip, audio, file or track, or says "this sound"/"this '
    'call"/"this song", is flagged too.',
}

_HIDDEN_NOUNS = (
    r"passages?|texts?|records?|sources?|excerpts?|extracts?|articles?|paragraphs?|summary|"
    r"tables?|rows?|data|datasets?|data set|figures?|abstracts?|documents?|context|spectrograms?|"
    r"sonograms?|recordings?|clips?|files?|audio|evidence|snippets?|entry|entries|metadata|"
    r"description|information"
)
# Words after "this" that make the phrase about the world, not about a hidden source.
_NOT_HIDING = "fossil|world|historical|geological|track"
# Words before a single "record" that make it one of the world's ("the fossil record", "the
# oldest record"), and words after it that make it a verb ("the tick records its host").
_WORLD_RECORD = (
    "fossil|world|historical|geological|track|written|archaeological|earliest|oldest|first|"
    "last|latest|known|public|official"
)
_RECORD_OBJECT = (
    "the|a|an|its|their|his|her|how|what|when|where|whether|which|that|this|these|those|them|it"
)
_HIDDEN_RE = re.compile(
    rf"\b(?:the|this|that|these|those|above|given|provided|following|accompanying|attached|"
    rf"preceding)\s+(?:(?:above|given|provided|following|same|original|cited)\s+)?"
    rf"(?:{_HIDDEN_NOUNS})\b|"
    # "this GloBI record", "these two interaction records", "the linked observation data"
    rf"\b(?:this|these|those|above|given|provided|following|accompanying|attached|preceding)\s+"
    rf"(?!(?:{_NOT_HIDING})\b)(?:[a-z][\w-]*\s+){{1,2}}(?:{_HIDDEN_NOUNS})\b|"
    rf"\bthe\s+(?:globi|interaction|observation|linked|underlying|source|cited|original|"
    rf"accompanying|provided|given)\s+(?:[a-z][\w-]*\s+)?(?:{_HIDDEN_NOUNS})\b|"
    # "the tick record", "the museum record": one record the reader cannot see ("the tick
    # records", a body of records named by what they are about, names a source instead)
    rf"\bthe\s+(?!(?:{_WORLD_RECORD})\b)[a-z][\w-]*\s+record\b(?!\s+(?:{_RECORD_OBJECT})\b)|"
    rf"\b(?:mentioned|described|stated|shown|given|listed|cited) "
    rf"(?:above|earlier|below|here)\b|"
    # "according to the text", not "according to the 2019 Breeding Bird Survey": a source
    # named by its own name (a capital, after a year or not) is one the reader can look up
    rf"\baccording to (?:the(?!\s+(?:\d{{4}}\s+)?(?-i:[A-Z]))|this|that)(?:\s+[a-z]+)?\b|"
    rf"\bthis (?:study|paper)\b|"
    # "In the study described, ...": a study the reader is told of but never sees
    rf"\bthe (?:study|studies|experiments?|surveys?|trials?|analys[ie]s|investigations?|work) "
    rf"(?:described|mentioned|cited|referred to)(?=\s*(?:[,.;:?!)]|$))|"
    rf"\bthe (?:present|current) study\b|\bthe authors\b|\bspectrograms?\b|\bsonograms?\b",
    re.IGNORECASE,
)


def _alternatives(pattern: str) -> set[str]:
    """The words an alternation of words such as ``passages?|data set`` can match."""
    found: set[str] = set()
    for alternative in pattern.split("|"):
        for word in alternative.split():
            found |= {word[:-2], word[:-1]} if word.endswith("s?") else {word}
    return found


# Every match of _HIDDEN_RE holds one of these words (the nouns above, the verbs before "above"
# or "earlier", "according", "study"/"paper", "authors"), and every match of _XC_HIDDEN_RE one
# of the second set, or "this" and one of the third; _hidden_patterns skips a pattern for stems
# that hold none of its words.
_HIDDEN_WORDS = frozenset(
    _alternatives(_HIDDEN_NOUNS)
    | {"mentioned", "described", "stated", "shown", "given", "listed", "cited", "according"}
    | {"referred"}
    | {"study", "paper", "authors", "spectrogram", "spectrograms", "sonogram", "sonograms"}
)
_XC_HIDDEN_WORDS = frozenset(_alternatives("recordings?|recorded|clips?|audio|files?|tracks?"))
_XC_AFTER_THIS = frozenset({"sound", "call", "song", "vocalization", "vocalisation"})
_LETTER_RUNS = re.compile(r"[a-z]+")
_XC_HIDDEN_RE = re.compile(
    r"\b(?:recordings?|recorded (?:clip|sound|audio)|clips?|audio|files?|tracks?|"
    r"this (?:sound|call|song|vocali[sz]ation))\b",
    re.IGNORECASE,
)


def text_flags(item: Item) -> list[Flag]:
    """The wording checks of any item: ``duplicate-options``, ``gold-in-stem`` and
    ``hidden-context``."""
    options = [_option(o) for o in item.content.options]
    flags = [
        _duplicate_options(item, options),
        _gold_in_stem(item, options),
        _hidden_context(item),
    ]
    return [f for f in flags if f is not None]


def _letter(index: int) -> str:
    return LETTERS[index] if index < len(LETTERS) else str(index + 1)


class _Option:
    """What the text checks compare of one option, computed once per distinct option text (the
    same options recur across many items: species, interaction types, frequency bands)."""

    __slots__ = (
        "_interaction",
        "_label",
        "_negated",
        "_plain",
        "empty",
        "folded",
        "is_name",
        "name_key",
        "numbers",
        "phrase",
        "quantities",
        "rest",
        "said",
        "short",
        "stem_set",
        "text",
    )

    def __init__(self, text: str) -> None:
        found = WORD_RE.findall(text)  # words(text)
        self.text = text
        self.empty = not text.strip()
        self.folded = " ".join(text.split()).casefold()
        stems = stem_set(found)
        if not stems.isdisjoint(_SYNONYMS):
            stems = {_SYNONYMS.get(s, s) for s in stems}
        self.stem_set = stems  # never changed once made
        self.short = len(stems) <= LABEL_WORDS  # may be an interaction label (``label``)
        # what the words say, a sound made with a light verb left out ("make hissing sounds"
        # says "hiss"): the stems compared for the same words
        self.said = stems
        if not stems.isdisjoint(_SOUND_NOUNS) and not stems.isdisjoint(_LIGHT_VERBS):
            self.said = stems - _LIGHT_VERBS - _SOUND_NOUNS or stems
        # A scientific name starts with a capital A-Z (parse_name says no to anything else).
        first = text.lstrip()[:1]
        name = parse_name(text) if "A" <= first <= "Z" else None
        self.is_name = name is not None
        # the species an option names: itself, or in brackets ("Wild boar (Sus scrofa)")
        self.name_key = _bracketed_name(text) if "(" in text else None
        if self.name_key is None and name is not None and name.epithets:
            self.name_key = name.key if name.key == self.folded else None
        self.numbers = _NUMBER.findall(text)
        self.phrase = " ".join(found).lower()  # normalized_phrase(text), from the same words
        self._negated: bool | None = None
        self._interaction: object = _UNREAD
        self._label: object = _UNREAD
        self._plain: frozenset[str] | None = None
        maybe = (
            self.numbers
            or not stems.isdisjoint(NUMBER_STEMS)
            or ("-" in text and names_number(stems))  # "one-fifth", "thirty-two"
        )
        self.quantities: tuple[Quantity, ...] = quantities(text) if maybe else ()
        # the content words beside the quantities (their numbers and units left to them)
        self.rest = frozenset(stems) - unit_words(text) if self.quantities else frozenset()

    @property
    def plain(self) -> frozenset[str]:
        """The option's stems that are no interaction word (found when first asked)."""
        if self._plain is None:
            self._plain = frozenset(w for w in self.stem_set if not names_interaction(w))
        return self._plain

    @property
    def interaction(self) -> tuple[frozenset[str], tuple[str, ...], frozenset[str]] | None:
        """The interaction the option says its subject does, the words naming it and the other
        content words (found when first asked: few pairs get that far)."""
        if self._interaction is _UNREAD:
            found = active_interaction(self.text)
            if found is None:
                self._interaction = None
            else:
                named = {stem(w) for w in found[1]}
                named |= {_SYNONYMS.get(n, n) for n in named}
                self._interaction = (*found, self.stem_set - named)
        return self._interaction  # type: ignore[return-value]

    @property
    def label(self) -> Reading | None:
        """The interaction the option is a label of ("has ectoparasite", "is parasitized
        externally by"), when it is one the table reads (found when first asked)."""
        if self._label is _UNREAD:
            is_label, reading = classify_option(self.text)
            self._label = reading if is_label else None
        return self._label  # type: ignore[return-value]

    @property
    def negated(self) -> bool:
        """Negated an odd number of times (found when first asked: few pairs get that far)."""
        if self._negated is None:
            self._negated = _negated(self.phrase)
        return self._negated


_UNREAD = object()  # an _Option's interaction or label before it is first asked for
# The most content words of a label the table reads: two ("has stomach contents"), and "internally"
# or "externally" (a test keeps it true)
LABEL_WORDS = 3
_NESTED = "one range mostly inside the other"
_INSIDE = "a hedged value inside a range that says no more"


# Room for the options that recur (species, interaction types, frequency bands); a bulk check of
# options that never recur (bench_scale's: 47,000 distinct at 11,852 items) kept 65,536 of them
# for nothing, some 50 MB.
@lru_cache(maxsize=8192)
def _option(text: str) -> _Option:
    return _Option(text)


def forget_options() -> None:
    """Drop the options prepared by a bulk run. Freed at once by reference counting, they are
    not left for the cyclic collector to walk (tens of thousands of objects, on every full
    collection and once more when the process exits: 0.3 s of CPU after 11,852 items)."""
    _option.cache_clear()


_NUMBER = re.compile(r"\d+")
SIMILAR = 0.93  # SequenceMatcher ratio from which two option texts count as nearly the same
_NEGATIONS = frozenset({"not", "no", "never", "none", "neither", "nor", "without", "cannot"})
# Verbs of feeding that options use for one another ("drinks nectar", "feeds on nectar"), as
# their stems: compared as one word.
_SYNONYMS = {"drink": "eat", "sip": "eat", "feed": "eat", "consum": "eat", "ingest": "eat"}
# A light verb and a generic noun of sound around a verb say no more than the verb: "They make
# hissing sounds" is "They hiss", "emits a hissing noise" is "hisses" (as stems).
_LIGHT_VERBS = frozenset(
    stem(w)
    for w in "make makes made making produce produces produced producing emit emits emitted "  # noqa: SIM905
    "emitting utter utters uttered uttering give gives gave giving".split()
)
_SOUND_NOUNS = frozenset({stem("sound"), stem("noise")})
_BRACKETED = re.compile(r"\(([A-Z][a-z]+ [a-z][a-z-]+(?: [a-z][a-z-]+)?)\)")


def _bracketed_name(text: str) -> str | None:
    """The key of a binomial an option gives in brackets after a common name."""
    if "(" not in text:
        return None
    match = _BRACKETED.search(text)
    name = parse_name(match.group(1)) if match else None
    return name.key if name is not None and name.epithets else None


def _prefixed(a: str, b: str) -> bool:
    """Whether two phrases differ by a word and the same word with a prefix ("male" /
    "female", "venomous" / "nonvenomous"): opposites that look alike to the similarity."""
    first, second = set(a.split()), set(b.split())
    only_a, only_b = first - second, second - first
    return any(
        (x.endswith(y) and len(x) - len(y) >= 2) or (y.endswith(x) and len(y) - len(x) >= 2)
        for x in only_a
        for y in only_b
    )


# Words whose two sides differ in meaning: "Males are larger than females" is not "Females are
# larger than males", though both hold the same words (``_crossed``).
_DIRECTED = frozenset(
    "than before after above below over under from to into onto toward towards by against "  # noqa: SIM905
    "versus vs more less fewer most least then not but only except unlike rather instead "
    "whereas while".split()
)


# Words of direction a quantity's bound does not carry: two options with the same quantities
# and other words but another direction say opposite things ("It sweeps up by more than 2 kHz"
# / "It sweeps down by more than 2 kHz"), though their content words (stop words aside) agree.
_DIRECTIONS = re.compile(
    r"\b(?:up|down|upward|downward|upwards|downwards|upstream|downstream|uphill|downhill|"
    r"rising|falling|rises|falls|rise|fall|ascending|descending|increas\w*|decreas\w*|"
    r"north\w*|south\w*|east\w*|west\w*|before|after|earlier|later)\b"
)


def _directions(phrase: str) -> list[str]:
    """The words of direction of a phrase (``_Option.phrase``), in order."""
    return _DIRECTIONS.findall(phrase)


_NEGATION_RE = re.compile(r"\b(?:not|no|never|none|neither|nor|without|cannot)\b|n['’]t\b")


def _negated(phrase: str) -> bool:
    """Whether the phrase (``_Option.phrase``) is negated an odd number of times."""
    return len(_NEGATION_RE.findall(phrase)) % 2 == 1


def _near_same(a: _Option, b: _Option) -> bool:
    return _why_same(a, b) is not None


def _why_same(a: _Option, b: _Option, units: frozenset[str] | None = None) -> str | None:
    """What makes two options say the same thing (for the flag's message), or None: the same
    content words in an order that keeps their meaning (case, articles and plurals
    aside), the same quantities with the same other words ("37 °C" / "about 37 degrees
    Celsius", "3 to 4 weeks" / "three to four weeks", "Up to 350 kg" / "Up to about 770 lb"),
    ranges one mostly inside the other or a hedged value inside a narrow range ("About 70-80%"
    / "Roughly three quarters"), or nearly the same text.

    Never near-same: an option and its negation ("Males are not larger..."), options whose
    words cross a word between them ("Males are larger than females" / "Females are larger than
    males"), distinct scientific names ("Phoenicopterus andinus" / "Phoenicoparrus andinus"),
    options whose quantities differ ("~3-5 kHz" / "~6-8 kHz", "Over 2,500" / "Under 2,500").
    The cheap tests come first; the similarity ratio is computed only for the few pairs they
    leave open.
    """
    if a.folded == b.folded:
        return None  # identical: the structural check options-not-distinct reports it
    if a.name_key is not None and a.name_key == b.name_key:
        return f"the same species, {a.name_key.capitalize()}"
    if a.is_name and b.is_name and not (a.quantities or b.quantities):
        return None  # two names ("Panthera leo" / "Panthera leo leo") are two taxa
    if a.quantities or b.quantities:
        if same_quantities(a.quantities, b.quantities, units):
            how = "the same quantity" if len(a.quantities) == 1 else "the same quantities"
        elif nested_ranges(a.quantities, b.quantities):
            how = _NESTED
        elif hedged_inside(a.quantities, b.quantities):
            how = _INSIDE
        else:
            return None
        # the thing counted is the unit of a count ("Three" is "3 chicks" where chicks are
        # counted), not a word one option adds
        counted = {
            q.dimension[6:] for q in (*a.quantities, *b.quantities) if q.dimension[:6] == "count:"
        }
        if a.rest - counted == b.rest - counted:
            if a.negated != b.negated or _crossed(a.text, b.text):
                return None
            if _directions(a.phrase) != _directions(b.phrase) or _opposed(a, b):
                return None
            pairs = zip(a.quantities, b.quantities, strict=True)
            join = " and " if how in (_NESTED, _INSIDE) else " = "
            return f"{how}, " + "; ".join(f"{q.text!r}{join}{r.text!r}" for q, r in pairs)
    elif a.said and a.said == b.said:
        if a.negated != b.negated or _crossed(a.text, b.text):
            return None
        if _directions(a.phrase) != _directions(b.phrase) or _opposed(a, b):
            return None
        return _same_words(a, b)
    else:
        interaction = _same_interaction(a, b)
        if interaction is not None:
            return interaction
        if a.numbers != b.numbers:
            return None
        # two labels of one type the same way round (a label holds a few words, no number)
        if a.short and b.short and a.label is not None and a.label == b.label:
            return f"the same interaction, {a.label.type}: {a.text.strip()!r} = {b.text.strip()!r}"
    if not _similar_text(a, b) or a.negated != b.negated or _prefixed(a.phrase, b.phrase):
        return None
    if _directions(a.phrase) != _directions(b.phrase) or _opposed(a, b):
        return None
    return "nearly the same text"


def _same_words(a: _Option, b: _Option) -> str:
    """The message of two options of the same content words: the words, and the light verb
    and noun of sound one of them adds ("hiss" / "make hissing sounds")."""
    plain = a if a.said is a.stem_set else b
    written = [w for w in WORD_RE.findall(plain.text) if w.lower() not in STOP_WORDS]
    how = f"the same words: {', '.join(dict.fromkeys(written))}"
    added = [
        w
        for o in (a, b)
        if o.said is not o.stem_set
        for w in WORD_RE.findall(o.text)
        if stem(w) in _LIGHT_VERBS or stem(w) in _SOUND_NOUNS
    ]
    return f'{how} ("{" ... ".join(dict.fromkeys(added))}" adds nothing)' if added else how


def _opposed(a: _Option, b: _Option) -> bool:
    """Whether two options that look alike say opposite things: interaction labels of
    different relations or the same relation the other way round ("preys on" / "preyed upon
    by": GloBI's types have inverses), a word turned into its antonym ("Females with higher
    levels..." / "Females with lower levels..."), or the negation falling on other words ("Body
    size did, age did not" / "Age did, body size did not"). Asked only of the few pairs about
    to be called the same."""
    first, second = classify_option(a.text)[1], classify_option(b.text)[1]
    if first is not None and second is not None:
        return first.type != second.type or not same_way(first, second)
    if _antonyms(a.phrase, b.phrase):
        return True
    return _negation_scope(a.text) != _negation_scope(b.text)


# Words and their opposites (both directions are looked up): an option that holds one where the
# other holds its antonym says the opposite, however alike the rest.
_ANTONYM_PAIRS = (
    "higher lower, high low, highest lowest, larger smaller, large small, largest smallest, "
    "bigger smaller, big small, biggest smallest, greater lesser, greater smaller, more less, "
    "more fewer, most least, most fewest, longer shorter, long short, longest shortest, "
    "heavier lighter, heavy light, heaviest lightest, older younger, old young, oldest youngest, "
    "earlier later, early late, earliest latest, faster slower, fast slow, fastest slowest, "
    "stronger weaker, strong weak, strongest weakest, wider narrower, wide narrow, "
    "louder softer, louder quieter, loud soft, loud quiet, warmer cooler, warm cool, "
    "hotter colder, hot cold, deeper shallower, deep shallow, thicker thinner, thick thin, "
    "increase decrease, increases decreases, increased decreased, increasing decreasing, "
    "increased reduced, increase reduce, rose fell, rise fall, rises falls, rising falling, "
    "risen fallen, gain loss, gained lost, positive negative, positively negatively, "
    "upper lower, inner outer, left right, maximum minimum, present absent, presence absence, "
    "dominant subordinate, diurnal nocturnal, accept reject, accepted rejected, "
    "attracted repelled, attract repel, win lose, won lost, above below, before after, "
    "up down, inside outside, north south, east west, always never, all none"
)
_ANTONYMS: dict[str, frozenset[str]] = {}
for _pair in _ANTONYM_PAIRS.split(","):
    _x, _y = _pair.split()
    _ANTONYMS[_x] = _ANTONYMS.get(_x, frozenset()) | {_y}
    _ANTONYMS[_y] = _ANTONYMS.get(_y, frozenset()) | {_x}


def _antonyms(a: str, b: str) -> bool:
    """Whether one phrase (``_Option.phrase``) holds a word the other does not where the other
    holds its antonym."""
    first, second = set(a.split()), set(b.split())
    only_a, only_b = first - second, second - first
    return any(not _ANTONYMS.get(word, frozenset()).isdisjoint(only_b) for word in only_a)


_CLAUSES = re.compile(r"[,;:]|\b(?:but|whereas|while|although|though|yet)\b")


def _negation_scope(text: str) -> dict[str, bool]:
    """{stem: negated} of the content words of each clause of an option that holds a negation
    (empty for one that holds none): "Body size did, age did not" negates age alone."""
    lower = text.lower()
    if _NEGATION_RE.search(lower) is None:
        return {}
    scope: dict[str, bool] = {}
    for clause in _CLAUSES.split(lower):
        negated = _negated(clause)
        for word in WORD_RE.findall(clause):
            if word not in STOP_WORDS:
                scope.setdefault(stem(word), negated)
    return scope


def _same_interaction(a: _Option, b: _Option) -> str | None:
    """Two options that say their subject does the same thing to the same partner in other
    verbs ("It preys on the frog" / "It hunts and eats the frog"): the same most specific
    interaction (``interaction_types.active_interaction``), in active verbs, with the same other
    words and negation; what they share, for the message, or None."""
    # Cheap first: the same words besides any interaction words ("frog" in "preys on the
    # frog" / "hunts and eats the frog"), and some (the partner): most pairs end here.
    if a.stem_set.isdisjoint(b.stem_set):
        return None
    # the same words besides interaction words: every word one of them holds alone is one
    # (settled on those few words, before either option's words are all looked at)
    if not all(map(names_interaction, a.stem_set ^ b.stem_set)):
        return None
    plain = a.plain
    if not plain or plain != b.plain:
        return None
    first = a.interaction
    if first is None or not first[2]:
        return None  # an interaction and nothing else ("Eats"): a label, compared by the table
    second = b.interaction
    if second is None or first[0] != second[0] or first[2] != second[2]:
        return None
    if a.negated != b.negated:
        return None
    types = ", ".join(sorted(first[0]))
    mine = ", ".join(repr(w) for w in first[1])
    theirs = ", ".join(repr(w) for w in second[1])
    return f"the same interaction, {types}: {mine} = {theirs}"


def _similar_text(a: _Option, b: _Option) -> bool:
    """Nearly the same text: difflib's ratio of the phrases at least SIMILAR."""
    norm_a, norm_b = a.phrase, b.phrase
    shorter = min(len(norm_a), len(norm_b))
    if shorter < 12:
        return False
    # The ratio is 2 M / T, M characters matched of T in both: M is at most the shorter phrase's
    # length, so phrases of lengths too far apart are ruled out before any comparison.
    if 2 * shorter < (SIMILAR - _MARGIN) * (len(norm_a) + len(norm_b)):
        return False
    # The rule is difflib's ratio (the flags must not change). Its matching blocks are a common
    # subsequence, so rapidfuzz's Indel similarity (the longest common subsequence, in C) is an
    # upper bound of it: only the rare pairs that bound does not rule out pay for difflib.
    if not Indel.normalized_similarity(norm_a, norm_b, score_cutoff=SIMILAR - _MARGIN):
        return False
    return SequenceMatcher(None, norm_a, norm_b).ratio() >= SIMILAR


_MARGIN = 1e-9  # float rounding of the bound must never rule out a pair difflib would keep


_SIGN_SET = frozenset("<>≤≥→←")
_SIGNS = re.compile("[<>≤≥→←]")
# Signs of order between the words of a ranking ("Red > yellow > green"): directed words.
_RANKING = re.compile(rf"{WORD_RE.pattern}|[<>≤≥→←]")


def _sequence(text: str) -> list[str]:
    """The content words of ``text`` (stems) and its directed words (a ranking's signs among
    them), in order, first time each."""
    seen: dict[str, None] = {}
    for word in (_RANKING if _SIGNS.search(text) else WORD_RE).findall(text):
        lower = word.lower()
        if lower in _DIRECTED or lower in _SIGN_SET:
            seen.setdefault(lower, None)
        elif lower not in STOP_WORDS:
            seen.setdefault(stem(word), None)
    return list(seen)


def _crossed(first: str, second: str) -> bool:
    """True when two texts of the same words put a word on one side of another word in one and
    on the other side in the other, and a word the other way round: the two swapped around it
    ("larger" in "Males are larger than females" / "Females are larger than males"). A phrase
    turned about as a whole ("Eucalyptus leaves" / "Leaves of eucalyptus") swaps nothing
    around a word."""
    a, b = _sequence(first), _sequence(second)
    if a == b:
        return False
    where = {word: at for at, word in enumerate(b)}
    for at, pivot in enumerate(a):
        other = where.get(pivot)
        if other is None:
            continue
        before_a, after_a = set(a[:at]), set(a[at + 1 :])
        before_b, after_b = set(b[:other]), set(b[other + 1 :])
        if before_a & after_b and after_a & before_b:
            return True
    return False


def _duplicate_options(item: Item, prepared: list[_Option]) -> Flag | None:
    options = item.content.options
    # a bare number is read in the unit the stem asks in ("For how many days": "Six" is "6
    # days"), only asked for when an option holds a quantity
    units = asked_units(item.content.question) if any(o.quantities for o in prepared) else None
    for i in range(len(options)):
        for j in range(i + 1, len(options)):
            first, second = prepared[i], prepared[j]
            if first.empty or second.empty:
                continue
            why = _why_same(first, second, units)
            if why is not None:
                return Flag(
                    DUPLICATE_OPTIONS,
                    Severity.WARNING,
                    f"Options {_letter(i)} and {_letter(j)} say nearly the same thing: "
                    f"{options[i].strip()!r} / {options[j].strip()!r} ({why})",
                    {"options": [_letter(i), _letter(j)]},
                )
    return None


def _gold_in_stem(item: Item, options: list[_Option]) -> Flag | None:
    content = item.content
    gold = content.answer_text
    if not gold or not gold.strip():
        return None
    gold_phrase = options[content.answer_index or 0].phrase
    if not gold_phrase:
        return None
    question = words(content.question)  # normalized_phrase and content_stems from one pass
    if f" {gold_phrase} " in f" {' '.join(question).lower()} ":
        how = "verbatim"
    else:
        gold_stems = options[content.answer_index or 0].stem_set
        if not gold_stems or not stem_set(question).issuperset(gold_stems):
            return None
        if f" {_stemmed(WORD_RE.findall(gold))} " in f" {_stemmed(question)} ":
            how = "verbatim"  # in another form of its words ("Ruminant": "are ruminants")
        elif len(gold_stems) < 2:
            return None
        elif not _written_alike(WORD_RE.findall(gold), question):
            return None  # "right itself" describes what "righting" names: no leak
        else:
            how = "all its content words"
    # A phrase every option shares (the species named in each) gives nothing away.
    others = [o for i, o in enumerate(options) if i != content.answer_index]
    if others and all(f" {gold_phrase} " in f" {o.phrase} " for o in others):
        return None
    # A taxon a GloBI item's evidence names on both sides of one interaction (a record of the
    # pike eating pike): the stem has to name the taxon whose partner it asks for, and that is
    # the gold. (A passage of a text naming a species twice is no such record.)
    gold_words = WORD_RE.findall(gold)
    if (
        item.domain == GLOBI
        and options[content.answer_index or 0].is_name
        and any(
            len(_places(gold_words, WORD_RE.findall(line))) >= 2
            for line in item.supporting_evidence
        )
    ):
        return None
    # A stem that names the candidates ("Did body size or age...?", "ranked red, yellow and
    # green") singles none of them out: a distractor whose content words the stem holds too,
    # besides the words of the gold it gives away as a phrase ("Salamandra" of "Salamandra
    # atra" is no naming of "Salamandra salamandra"), makes the gold's no leak.
    asked = stem_set(_cut(question, gold_words) if how == "verbatim" else question)
    if any(o.stem_set and asked.issuperset(o.stem_set) for o in others):
        return None
    letter = content.answer_letter or "?"
    return Flag(
        GOLD_IN_STEM,
        Severity.WARNING,
        f"The stem contains the gold answer {letter} ({how}): {gold.strip()!r}",
        {"options": [letter], "match": how},
    )


def _places(part: list[str], whole: list[str]) -> list[int]:
    """Where the words ``part`` stand in ``whole``, in any form of them (``words.stem``),
    without overlaps: the index of each first word."""
    if not part:
        return []
    wanted, found = [stem(w) for w in part], [stem(w) for w in whole]
    places: list[int] = []
    at = 0
    while at + len(wanted) <= len(found):
        if found[at : at + len(wanted)] == wanted:
            places.append(at)
            at += len(wanted)
        else:
            at += 1
    return places


def _cut(question: list[str], gold: list[str]) -> list[str]:
    """The stem's words with every place of the gold's words left out."""
    places: set[int] = set()
    for at in _places(gold, question):
        places.update(range(at, at + len(gold)))
    return [w for i, w in enumerate(question) if i not in places]


def _written_alike(gold: list[str], question: list[str]) -> bool:
    """Whether the stem holds each content word of the gold as the gold writes it (case and
    plural aside): scattered words give a gold away as written, not in another form of the
    word (a stem describing the reflex that lets a cat "right itself" does not name "the cat
    righting reflex")."""
    held = {singular(w) for w in question}
    return all(singular(w) in held for w in gold if w.lower() not in STOP_WORDS)


def _stemmed(found: list[str]) -> str:
    """Words (``words``) as their stems, in order: a phrase in any form of its words."""
    return " ".join(map(stem, found))


def _hidden_patterns(question: str, domain: str) -> tuple[bool, bool]:
    """Whether _HIDDEN_RE, and whether _XC_HIDDEN_RE (Xeno-canto stems only), can match: False
    when the stem holds none of the words every match of the pattern contains. Decided on the
    stem's runs of letters, which for ASCII text are exactly the words the patterns' word
    boundaries delimit (other text always goes on to the patterns: case folding beyond ASCII is
    the regex engine's business)."""
    xeno_canto = domain == XENO_CANTO
    if not question.isascii():
        return True, xeno_canto
    present = set(_LETTER_RUNS.findall(question.lower()))
    if xeno_canto:
        xeno_canto = not _XC_HIDDEN_WORDS.isdisjoint(present) or (
            "this" in present and not _XC_AFTER_THIS.isdisjoint(present)
        )
    return not _HIDDEN_WORDS.isdisjoint(present), xeno_canto


def _may_hide_context(question: str, domain: str) -> bool:
    """False when no pattern of the hidden-context check can match (see _hidden_patterns)."""
    return any(_hidden_patterns(question, domain))


# "the authors", "according to the author(s)": a bioRxiv stem naming the study's authors
_AUTHORS = re.compile(r"\bthe authors?$", re.IGNORECASE)


def _hidden_context(item: Item) -> Flag | None:
    question = item.content.question
    general, xeno_canto = _hidden_patterns(question, item.domain)
    found = [m.group(0) for m in _HIDDEN_RE.finditer(question)] if general else []
    if item.domain == BIORXIV:  # a study's stem names its authors: that is no hidden source
        found = [f for f in found if _AUTHORS.search(f) is None]
    if xeno_canto:
        found += [m.group(0) for m in _XC_HIDDEN_RE.finditer(question)]
    if not found:
        return None
    unique = list(dict.fromkeys(f.lower() for f in found))
    quoted = ", ".join(f'"{f}"' for f in unique)
    return Flag(
        HIDDEN_CONTEXT,
        Severity.WARNING,
        f"The stem refers to context the reader cannot see: {quoted}",
        {"phrases": unique},
    )
