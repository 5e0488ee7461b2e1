"""Numbers and units as the checks compare them: "More than 2,500" and "over 2 500", "five" and
"5", "37 °C" and "about 37 degrees Celsius", "3 to 4 weeks" and "three to four weeks", "21-28
days" and "3-4 weeks" say the same, and "About 40%" is not "within 40 km".

``quantities(text)`` finds every quantity of a text: a value or a range, a unit (converted to the
base unit of its dimension: metres, kilograms, seconds, hertz, degrees Celsius...; a count of
things takes the thing's stem as its unit, "3 eggs"; each end of a range may carry its own,
"four seconds to one minute"), and a bound ("more than", "up to"; "about" and "~" change
nothing but the slack, also after a bound: "up to about 770 lb"). Two quantities are the same
when their dimension and bound agree and their values agree within a part in a hundred.
``unit_words`` are the words the quantities were made of, which the word comparisons then leave
out. Small curated tables (number words, units, bounds), nothing learnt: the verdicts can be
checked by eye.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from bagel_studio.core.checks.words import STOP_WORDS, WORD_RE, stem

TOLERANCE = 0.01  # relative difference under which two values are the same

_UNITS_UP_TO_TWENTY = (  # noqa: SIM905 (a list of words reads better as one string)
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
_TENS = {
    "thirty": 30,
    "forty": 40,
    "fourty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
NUMBER_WORDS: dict[str, float] = {w: float(n) for n, w in enumerate(_UNITS_UP_TO_TWENTY)}
NUMBER_WORDS |= {w: float(n) for w, n in _TENS.items()}
NUMBER_WORDS |= {"dozen": 12.0, "a dozen": 12.0, "a hundred": 100.0}
NUMBER_WORDS |= {"single": 1.0, "a single": 1.0, "a pair of": 2.0, "pair of": 2.0}
SCALES = {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9}
# Fractions, read as shares ("three quarters" is 75%, "one in ten" 10%).
FRACTIONS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fourth": 4,
    "fourths": 4,
    "fifth": 5,
    "fifths": 5,
    "tenth": 10,
    "tenths": 10,
}
# Multiples, read as factors ("tripled" and "threefold" are three times).
MULTIPLES = {
    "twice": 2.0,
    "double": 2.0,
    "doubled": 2.0,
    "doubles": 2.0,
    "twofold": 2.0,
    "triple": 3.0,
    "tripled": 3.0,
    "triples": 3.0,
    "threefold": 3.0,
    "quadruple": 4.0,
    "quadrupled": 4.0,
    "fourfold": 4.0,
    "fivefold": 5.0,
    "tenfold": 10.0,
}

# Unit spellings -> (dimension, factor to the dimension's base unit); temperatures are converted
# by _to_celsius. Longest spellings are tried first (the pattern is built from the keys).
_UNIT_TABLE: dict[str, tuple[str, float]] = {}


def _units(dimension: str, factor: float, *spellings: str) -> None:
    for spelling in spellings:
        _UNIT_TABLE[spelling] = (dimension, factor)


_units("percent", 1.0, "%", "percent", "per cent", "pct", "percentage points")
_units("length", 1e-3, "mm", "millimetre", "millimetres", "millimeter", "millimeters")
_units("length", 1e-2, "cm", "centimetre", "centimetres", "centimeter", "centimeters")
_units("length", 1.0, "m", "metre", "metres", "meter", "meters")
_units("length", 1e3, "km", "kilometre", "kilometres", "kilometer", "kilometers")
_units("length", 0.0254, "inch", "inches")
_units("length", 0.3048, "ft", "foot", "feet")
_units("length", 1609.344, "mi", "mile", "miles")
_units("length", 1e-6, "µm", "μm", "micrometre", "micrometres", "micrometer", "micrometers")
_units("mass", 1e-6, "mg", "milligram", "milligrams")
_units("mass", 1e-3, "g", "gram", "grams", "gramme", "grammes")
_units("mass", 1.0, "kg", "kilogram", "kilograms", "kilo", "kilos")
_units("mass", 1e3, "t", "tonne", "tonnes", "metric ton", "metric tons")
_units("mass", 0.45359237, "lb", "lbs", "pound", "pounds")
_units("mass", 0.028349523, "oz", "ounce", "ounces")
_units("time", 1e-3, "ms", "msec", "millisecond", "milliseconds")
_units("time", 1.0, "s", "sec", "secs", "second", "seconds")
_units("time", 60.0, "min", "mins", "minute", "minutes")
_units("time", 3600.0, "h", "hr", "hrs", "hour", "hours")
_units("time", 86400.0, "d", "day", "days")
_units("time", 604800.0, "wk", "wks", "week", "weeks")
# months and years are not a whole number of days: a dimension of their own, in months
_units("months", 1.0, "mo", "month", "months")
_units("months", 12.0, "yr", "yrs", "year", "years", "y")
_units("months", 120.0, "decade", "decades")
_units("frequency", 1.0, "hz", "hertz")
_units("frequency", 1e3, "khz", "kilohertz")
_units("frequency", 1e6, "mhz", "megahertz")
_units("area", 1e6, "km2", "km²", "sq km", "square kilometres", "square kilometers")
_units("area", 1.0, "m2", "m²", "square metres", "square meters")
_units("area", 1e4, "ha", "hectare", "hectares")
_units("speed", 1 / 3.6, "km/h", "kph", "kmh", "kilometres per hour", "kilometers per hour")
_units("speed", 0.44704, "mph", "miles per hour")
_units("speed", 1.0, "m/s", "metres per second", "meters per second")
_units("volume", 1e-3, "ml", "millilitre", "millilitres", "milliliter", "milliliters")
_units("volume", 1.0, "l", "litre", "litres", "liter", "liters")
_units("celsius", 1.0, "°c", "ºc", "° c", "degrees celsius", "degree celsius", "celsius")
_units("celsius", 1.0, "degrees c", "deg c", "c")
_units("fahrenheit", 1.0, "°f", "ºf", "° f", "degrees fahrenheit", "fahrenheit", "degrees f")
_units("degrees", 1.0, "°", "º", "degrees", "degree")

# Bounds: what a number is said to be. "About", "~" change nothing.
_AT_LEAST = (
    "more than|greater than|over|above|exceeding|in excess of|upwards of|at least|"
    "no fewer than|no less than|not less than|>=|≥|>"
)
_AT_MOST = (
    "less than|fewer than|under|below|up to|at most|no more than|not more than|not exceeding|"
    # "can last as long as 20 minutes": 20 at most
    "as (?:long|much|many|high|far|heavy|large|big|tall|old|deep|fast) as|<=|≤|<"
)
_APPROX = (
    "about|approximately|approx\\.?|around|roughly|circa|c\\.|ca\\.|some|~|≈|nearly|almost|"
    "close to|just over|just under|an estimated|estimated|an average of|on average|averaging"
)

_NUMBER_WORD_RE = "|".join(
    sorted((re.escape(w) for w in (*NUMBER_WORDS, *SCALES)), key=len, reverse=True)
)
_FRACTION_RE = "|".join(sorted(FRACTIONS, key=len, reverse=True))
_MULTIPLE_RE = "|".join(sorted(MULTIPLES, key=len, reverse=True))
# A number: digits with thousands grouped by commas, spaces (also thin and no-break) or
# apostrophes, or a decimal; or words ("twenty-five", "three hundred", "a dozen"); then an
# optional scale word ("1.5 million").
_DIGITS = r"\d{1,3}(?:(?:,|[ \u2009\u202f\u00a0'])\d{3})+(?![\d.,]\d)|\d+(?:[.,]\d+)?"
_WORDS = rf"(?:{_NUMBER_WORD_RE})(?:(?:[- ]|\s+and\s+)(?:{_NUMBER_WORD_RE}))*"
# "a year", "an hour": an article before a unit of time or measure is one of it ("a second" is
# also an ordinal and "a foot" a body part, so neither is read)
_ARTICLE_UNITS = (
    "minutes?|hours?|days?|weeks?|months?|years?|decades?|metres?|meters?|kilometres?|"
    "kilometers?|miles?|kilograms?|kilos?|tonnes?|litres?|liters?"
)
_ARTICLE = rf"\ban?(?=\s+(?:{_ARTICLE_UNITS})\b)"
_NUMBER = rf"(?:{_DIGITS}|\b{_WORDS}\b|{_ARTICLE})(?:\s+(?:hundred|thousand|million|billion)\b)?"
_UNIT_RE = "|".join(sorted((re.escape(u) for u in _UNIT_TABLE), key=len, reverse=True))
# A compound quantity, a larger unit and a smaller one of the same dimension ("6 feet 7 inches",
# "4 ft 7 in", "2 hours 30 minutes", "99 lb 3 oz"): "in" is an inch only after feet.
_FIGURE = r"\d+(?:\.\d+)?|\b(?:{words})\b"
_COMPOUND_PART = (
    r"(?P<{a}>{figure})\s*(?P<{u}>{units})\s*,?\s+(?:and\s+)?"
    r"(?P<{b}>\d+(?:\.\d+)?|\b(?:{words})\b)\s*(?P<{v}>{units}|in)(?![a-z])"
)
# "six- to nine-year": a hyphen left hanging before "to"; "to a high of 50%" after a "from a
# low of 5%"
_RANGE_JOIN = r"-?\s*(?:-|–|—|to|or|and|until|through)\s*(?:an?\s+(?:high|maximum|peak)\s+of\s+)?"
_ANY_BOUND = f"{_AT_LEAST}|{_AT_MOST}|{_APPROX}"


class _Patterns:
    """The patterns quantities are read with, compiled when first needed (most texts hold no
    number, and compiling them costs a command's start some 25 ms)."""

    def __init__(self) -> None:
        flags = re.IGNORECASE
        self.quantity = re.compile(
            rf"(?:(?P<lead>between|from)\s+)?"
            rf"(?:(?P<bound>{_ANY_BOUND})\s*)?"
            # "up to about 770 lb": a bound, then a hedge
            rf"(?:(?P<hedge>{_APPROX})\s*)?"
            rf"(?:(?P<span>between|from)\s+(?:an?\s+(?:low|minimum)\s+of\s+)?)?"
            rf"(?P<low>{_NUMBER})(?P<plus>\+)?"
            rf"(?:(?:\s*|-)(?P<low_unit>{_UNIT_RE})(?![a-z]))?"
            rf"(?:(?P<join>{_RANGE_JOIN})(?P<high>{_NUMBER}))?"
            rf"(?:(?:\s*|-)(?P<unit>{_UNIT_RE})(?![a-z]))?"
            rf"(?:\s+(?P<noun>[a-z][a-z-]{{2,}}))?",
            flags,
        )
        # "three quarters", "a third", "two-thirds", "one in ten", "half": shares
        # "two thirds to four fifths": a range of shares; "2/3": a fraction in figures (not
        # "24/7", not a date "3/4/2019")
        self.share = re.compile(
            rf"(?:(?P<bound>{_ANY_BOUND})\s*)?"
            rf"(?:(?P<num>\d+|{_NUMBER_WORD_RE}|an?)[- ](?P<fraction>{_FRACTION_RE})\b"
            rf"(?:{_RANGE_JOIN}(?P<num2>\d+|{_NUMBER_WORD_RE}|an?)[- ]"
            rf"(?P<fraction2>{_FRACTION_RE})\b)?"
            rf"|\b(?P<half>half)\b"
            rf"|(?<![\d/.,])(?P<over>\d{{1,2}})/(?P<under>\d{{1,2}})(?![\d/]|[.,]\d)"
            rf"|(?P<part>\d+|{_NUMBER_WORD_RE}) (?:in|out of) (?P<whole>\d+|{_NUMBER_WORD_RE})\b)",
            flags,
        )
        # "tripled", "3-fold", "three times": factors
        self.multiple = re.compile(
            rf"\b(?:(?P<word>{_MULTIPLE_RE})|(?P<num>\d+(?:\.\d+)?|{_NUMBER_WORD_RE})"
            rf"(?:-fold\b|\s*(?:fold|times|×|x)\b))",
            flags,
        )
        part = _COMPOUND_PART.replace("{figure}", _FIGURE).replace("{units}", _UNIT_RE)
        part = part.replace("{words}", _NUMBER_WORD_RE)
        first, second = part, part
        for mark, one, two in (("a", "a1", "b1"), ("u", "u1", "v1"), ("b", "a2", "b2")):
            first, second = first.replace(f"{{{mark}}}", one), second.replace(f"{{{mark}}}", two)
        first, second = first.replace("{v}", "u2"), second.replace("{v}", "v2")
        self.compound = re.compile(
            rf"(?:(?P<bound>{_ANY_BOUND})\s*)?(?<![\d.,])(?:{first})"
            rf"(?:(?:{_RANGE_JOIN})(?:{second}))?",
            flags,
        )
        self.bounds = {
            "ge": re.compile(rf"^(?:{_AT_LEAST})$", flags),
            "le": re.compile(rf"^(?:{_AT_MOST})$", flags),
        }
        self.hedge = re.compile(rf"^(?:{_APPROX})$", flags)
        self.maybe = re.compile(
            r"\d|\b(?:"
            + "|".join((_NUMBER_WORD_RE, _FRACTION_RE, _MULTIPLE_RE))
            + r")\b|"
            + _ARTICLE,
            flags,
        )


@cache
def _patterns() -> _Patterns:
    return _Patterns()


# Words after a number that are no unit of it ("3 to 4 weeks of age" keeps "weeks").
_NOT_NOUNS = frozenset(
    "and or to of in on at by for from with the a an than per each every is are was were be "  # noqa: SIM905
    "times old long wide high deep tall away apart".split()
)
_DIGIT = re.compile(r"\d")
# "between the years 1983 and 2009": a range, a few words after "between"
_BETWEEN_BEFORE = re.compile(r"\bbetween(?:\s+[a-z]+){0,3}\s*$", re.IGNORECASE)
# Every word a number, share or multiple may be written with (for ``may_hold_quantity``).
_VOCABULARY = frozenset(
    w
    for phrase in (*NUMBER_WORDS, *SCALES, *FRACTIONS, *MULTIPLES)
    for w in re.split(r"[- ]", phrase)
) - {"a", "an", "of"} | {u.rstrip("s?") for u in _ARTICLE_UNITS.split("|")}
# The stems of those words (``words.stem``): a text whose content words hold none of them and no
# digit holds no quantity (its stop words, "one" among them, make none alone).
NUMBER_STEMS = frozenset(stem(w) for w in _VOCABULARY)


def names_number(stems: AbstractSet[str]) -> bool:
    """Whether content words (their stems, ``words.stem``) may write a number without a digit:
    one of NUMBER_STEMS, or a hyphenated word with one among its parts ("one-fifth",
    "thirty-two", which the words keep whole)."""
    if not stems.isdisjoint(NUMBER_STEMS):
        return True
    return any("-" in s and not NUMBER_STEMS.isdisjoint(map(stem, s.split("-"))) for s in stems)


# Words after a quantity that say what it measures, not a thing counted ("23 weeks old").
_DESCRIPTORS = frozenset(["old", "long", "wide", "high", "deep", "tall", "away", "apart"])


@dataclass(frozen=True)
class Quantity:
    """A value or range in a base unit, with its bound ("ge", "le" or "" for about/exactly).

    A hedged value ("about 110", "almost 10%") stands for every value that rounds to it, a half
    rounded up or down: its ``slack`` is half the last unit it is written to (5 for "about
    110", 0.5 for "about 19": 18.5 and 19.5 are about 19), in the base unit; an exact one is
    matched exactly in the same unit ("1983" is not "1999") and within a part in a hundred in
    another (conversions are rounded: "1 mi (1.6 km)")."""

    low: float
    high: float
    dimension: str  # "" for a bare number, a unit's dimension, "count:<stem>", "percent"...
    bound: str
    text: str  # as written, for messages
    raw_low: float = 0.0  # the values as written, in their own unit (for a bare comparison)
    raw_high: float = 0.0
    slack: float = 0.0  # for a hedged value: how far a value may be and still round to it
    unit: str = ""  # the unit as written, lower case ("km", "degrees celsius"; "" for none)
    loose: bool = False  # "over three weeks": more than three, or for three (a duration)
    step: float = 0.0  # the last unit the value is written to, in the base unit (0: unknown)

    def same(self, other: Quantity) -> bool:
        if {self.dimension, other.dimension} == _MONTHS_AND_TIME:
            return self.in_time().same(other.in_time())
        return (
            self.dimension == other.dimension
            and self.bound == other.bound
            and self._ends_match(other.low, other.high, other)
        )

    def in_time(self) -> Quantity:
        """A span in months as one of time (an average month; months are a dimension of
        their own since a month is no whole number of days): "about five months" may be "about
        150 days", while "4 months" is no exact "115 days"."""
        if self.dimension != "months":
            return self
        return replace(
            self,
            low=self.low * _MONTH,
            high=self.high * _MONTH,
            dimension="time",
            slack=self.slack * _MONTH,
            step=self.step * _MONTH,
        )

    def within(self, other: Quantity, *, strict: bool = False) -> bool:
        """True when this value (or range) is stated by ``other``: the same, or, for a bare
        value of a range's end, one of its ends ("3 weeks" in "3 to 4 weeks"). A value with a
        unit needs that unit's dimension ("About 2 km" is not "2009"), a count a count of the
        same or a bare number ("5.5 wolves" in "5.5 in Europe"); a bare one takes any value, as
        written ("About 110" in "around 110 days"). ``strict``: the bounds must agree too ("up
        to four" is not held by "four lions"); without it a bare value is held by a span of
        time "over" it ("Five" by "over five days", which may say for how long)."""
        counted = self.dimension.startswith("count:") and not other.dimension
        if self.dimension and self.dimension != other.dimension and not counted:
            return False
        if strict and self.bound != other.bound:
            return False
        if self.bound != other.bound and other.bound and not (other.loose and not self.bound):
            return False
        if not self.dimension and other.dimension:
            low, high = other.raw_low, other.raw_high
        else:
            low, high = other.low, other.high
        if self._ends_match(low, high, other):
            return True
        single = self.low == self.high
        return single and (self._near(self.low, low, other) or self._near(self.low, high, other))

    def _ends_match(self, low: float, high: float, other: Quantity) -> bool:
        return self._near(self.low, low, other) and self._near(self.high, high, other)

    def _near(self, mine: float, theirs: float, other: Quantity) -> bool:
        # a hedge covers what rounds to its figure, but never a fifth of the value or more:
        # "about 1 kg" is not "about 500 g", "about one year" not "about six months"
        slack = min(max(self.slack, other.slack), HEDGE_SHARE * max(abs(mine), abs(theirs)))
        if slack:
            return abs(mine - theirs) <= slack * (1 + 1e-9)
        if self.unit == other.unit:
            return _close(mine, theirs, EXACT)
        # a conversion is rounded to its own figures ("10 km (6 mi)"): within a part in a
        # hundred, or half the finer figure's last unit, or half the coarser one's when that
        # figure has two or more ("30 km (19 mi)" rounds 18.6 miles up; "1 km" is no rounding
        # of "500 m")
        if _close(mine, theirs):
            return True
        if not (self.step and other.step):
            return False
        (fine, _), (coarse, value) = sorted(((self.step, mine), (other.step, theirs)))
        off = abs(mine - theirs) / (1 + 1e-9)
        return off <= 0.5 * fine or (off <= 0.5 * coarse and coarse <= 0.1 * abs(value))


_MONTHS_AND_TIME = frozenset({"months", "time"})
_MONTH = 30.436875 * 86400.0  # an average month (of the Gregorian year), in seconds
HEDGE_SHARE = 0.2  # the most a hedged value ("about 2") may stand for, as a share of it
EXACT = 1e-9  # relative difference of two values written in one unit: the same figures


def _close(a: float, b: float, tolerance: float = TOLERANCE) -> bool:
    return abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-12)


def may_hold_quantity(text: str, words: list[str] | None = None) -> bool:
    """False when ``text`` holds no digit and no number word (the common case, settled fast;
    ``words``: the text's words, when the caller has them, looked up in a set)."""
    if _DIGIT.search(text) is not None:
        return True
    if words is not None:
        return not _VOCABULARY.isdisjoint(map(str.lower, words))
    return _patterns().maybe.search(text) is not None


@lru_cache(maxsize=65536)
def quantities(text: str) -> tuple[Quantity, ...]:
    """Every quantity of ``text``, in order (cached per distinct text)."""
    return tuple(q for q, _ in _found(text))


def _found(text: str) -> list[tuple[Quantity, tuple[int, int, int]]]:
    """Every quantity of ``text`` with the span of its words (start, end of what counts as the
    quantity's words, end of the match): shares and multiples first, then the numbers not
    inside them."""
    if not may_hold_quantity(text):
        return []
    found: list[tuple[Quantity, tuple[int, int, int]]] = []
    taken: list[tuple[int, int]] = []
    patterns = _patterns()
    for match in patterns.compound.finditer(text):
        quantity = _compound(match)
        if quantity is not None:
            found.append((quantity, (match.start(), match.end(), match.end())))
            taken.append(match.span())
    for match in patterns.share.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue

        quantity = _share(match)
        if quantity is not None:
            found.append((quantity, (match.start(), match.end(), match.end())))
            taken.append(match.span())
    for match in patterns.multiple.finditer(text):
        if not any(a < match.end() and match.start() < b for a, b in taken):
            quantity = _multiple(match)
            if quantity is not None:
                found.append((quantity, (match.start(), match.end(), match.end())))
                taken.append(match.span())
    for match in patterns.quantity.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        quantity = _quantity(match)
        if quantity is not None:
            noun = match.group("noun")
            words_end = (
                match.start("noun") if noun and noun.lower() not in _DESCRIPTORS else match.end()
            )
            found.append((quantity, (match.start(), words_end, match.end())))
            second = (
                patterns.quantity.match(text, match.start("high")) if _two_numbers(match) else None
            )
            paired = _quantity(second) if second is not None else None
            if second is not None and paired is not None:  # the 0.35 of "0.20 and 0.35"
                found.append((paired, (second.start(), words_end, match.end())))
    found.sort(key=lambda pair: pair[1])
    return found


@lru_cache(maxsize=65536)
def unit_words(text: str) -> frozenset[str]:
    """The stems of the words the quantities of ``text`` are written with (numbers, units,
    bounds, hedges, "old" in "23 weeks old"): what a word comparison leaves to the
    quantities."""
    found: set[str] = set()
    for _, (start, end, _) in _found(text):
        for word in WORD_RE.findall(text, start, end):
            found.add(stem(word))
    return frozenset(found)


def _bound_of(text: str) -> str:
    for name, pattern in _patterns().bounds.items():
        if pattern.match(text):
            return name
    return ""


def _share(match: re.Match[str]) -> Quantity | None:
    """A share as a percentage: "three quarters" 75%, "a third" 33.3%, "one in ten" 10%."""
    high: float | None = None
    value: float | None
    if match.group("half"):
        value = 50.0
    elif match.group("fraction"):
        value = _fraction(match.group("num"), match.group("fraction"))
        if match.group("fraction2"):
            high = _fraction(match.group("num2"), match.group("fraction2"))
            if high is None:
                return None
    elif match.group("over"):
        over, under = int(match.group("over")), int(match.group("under"))
        if not 0 < over < under:
            return None  # "24/7", "0/5": no share
        value = 100.0 * over / under
    else:
        part, whole = _number(match.group("part")), _number(match.group("whole"))
        if part is None or not whole:
            return None
        value = 100.0 * part / whole
    if value is None:
        return None
    low, high = (value, value) if high is None else (min(value, high), max(value, high))
    bound_text = match.group("bound") or ""
    slack = 0.05 * high if _patterns().hedge.match(bound_text) else 0.0
    text = match.group(0).strip()
    return Quantity(low, high, "percent", _bound_of(bound_text), text, low, high, slack)


def _fraction(number: str, fraction: str) -> float | None:
    """A fraction in words as a percentage ("two thirds" 66.7, "a fifth" 20)."""
    number = number.lower()
    count = 1.0 if number in ("a", "an") else _number(number)
    return None if count is None else 100.0 * count / FRACTIONS[fraction.lower()]


def _multiple(match: re.Match[str]) -> Quantity | None:
    """A multiple as its factor: "tripled", "threefold", "3-fold", "three times" are 3."""
    word = match.group("word")
    value = MULTIPLES[word.lower()] if word else _number(match.group("num"))
    if value is None:
        return None
    text = match.group(0).strip()
    return Quantity(value, value, "times", "", text, value, value)


def _quantity(match: re.Match[str]) -> Quantity | None:
    low = _number(match.group("low"))
    if low is None:
        return None
    high_text = match.group("high")
    high = _number(high_text) if high_text else low
    if high is None:
        return None
    if _two_numbers(match):
        high = low  # "3 and 4" outside "between": two numbers, the first one here
    unit = (match.group("unit") or match.group("low_unit") or "").lower()
    raw_low, raw_high = min(low, high), max(low, high)
    low_unit = (match.group("low_unit") or "").lower()
    if low_unit and unit != low_unit and high_text:
        # each end in its own unit: "between four seconds and one minute"
        mixed = _ends_in_own_units(low_unit, unit, low, high)
        if mixed is not None:
            dimension, low, high, raw_low, raw_high = mixed
        else:
            dimension, low, high = _in_base_unit(unit, low, high)
    else:
        dimension, low, high = _in_base_unit(unit, low, high)
    if not unit:
        noun = (match.group("noun") or "").lower()
        if noun and noun not in _NOT_NOUNS and noun not in STOP_WORDS:
            dimension = "count:" + stem(noun)
    bound_text = match.group("bound") or ""
    bound = "ge" if match.group("plus") else _bound_of(bound_text)
    loose = bound_text.lower() == "over" and dimension in ("time", "months")
    text = match.group(0).strip()
    if not dimension and low == high and _lone_article(match):
        return None
    slack = 0.0
    factor = abs(max(low, high) / raw_high) if raw_high else 1.0
    step = _last_unit(match.group("high") or match.group("low")) * factor if unit else 0.0
    # "about 110", "up to about 110": whatever rounds to 110
    if _patterns().hedge.match(bound_text) or match.group("hedge"):
        slack = 0.5 * _last_unit(match.group("high") or match.group("low")) * factor
    return Quantity(
        min(low, high),
        max(low, high),
        dimension,
        bound,
        text,
        raw_low,
        raw_high,
        slack,
        unit,
        loose,
        step,
    )


def _compound(match: re.Match[str]) -> Quantity | None:
    """A compound quantity or a range of two ("6 feet 7 inches", "4 ft 7 in to 5 ft 11 in") in
    the base unit of its dimension; None when the second unit is not a smaller one of the
    first's dimension ("2 m 3 kg")."""
    ends: list[float] = []
    step = 0.0
    for a, u, b, v in (("a1", "u1", "a2", "u2"), ("b1", "v1", "b2", "v2")):
        if match.group(a) is None:
            break
        big, small = match.group(u).lower(), match.group(v).lower()
        if small == "in":
            if _UNIT_TABLE[big] != _UNIT_TABLE["ft"]:
                return None
            small = "inch"
        (dimension, factor), (other, small_factor) = _UNIT_TABLE[big], _UNIT_TABLE[small]
        if other != dimension or small_factor >= factor or dimension in _NOT_ADDED:
            return None
        first, second = _number(match.group(a)), _number(match.group(b))
        if first is None or second is None:
            return None
        ends.append(first * factor + second * small_factor)
        step = _last_unit(match.group(b)) * small_factor
    if len(ends) == 2 and match.group("v1").lower() != match.group("u1").lower():
        return None
    low, high = min(ends), max(ends)
    big = match.group("u1").lower()
    factor = _UNIT_TABLE[big][1]
    bound_text = match.group("bound") or ""
    slack = 0.5 * step if _patterns().hedge.match(bound_text) else 0.0
    return Quantity(
        low,
        high,
        _UNIT_TABLE[big][0],
        _bound_of(bound_text),
        match.group(0).strip(),
        low / factor,
        high / factor,
        slack,
        big,
        step=step,
    )


# Dimensions whose units are not added up (temperatures, shares, angles)
_NOT_ADDED = frozenset({"celsius", "fahrenheit", "degrees", "percent"})


def _two_numbers(match: re.Match[str]) -> bool:
    """Whether the match is two numbers joined by "and" outside "between" ("scores of 0.20 and
    0.35, respectively"), not a range."""
    join = (match.group("join") or "").strip().lower()
    span = (match.group("span") or match.group("lead") or "").lower()
    return (
        join == "and"
        and span != "between"
        and not _BETWEEN_BEFORE.search(match.string, max(0, match.start() - 40), match.start())
    )


def _last_unit(written: str) -> float:
    """The unit of the last figure a number is written to: 10 for "110", 0.1 for "5.5", 1 for
    "five"."""
    digits = written.strip().replace(" ", "").replace(",", "")
    if digits.lower() in ("a", "an"):  # "about a year": near a year, not half a year off
        return 0.1
    if not digits[:1].isdigit():
        value = _words(written.strip().lower())
        digits = str(int(value)) if value is not None and value == int(value) else "1"
    if "." in digits:
        return 10.0 ** -len(digits.split(".", 1)[1])
    stripped = digits.rstrip("0")
    zeros = len(digits) - len(stripped)
    if len(stripped) < 2:  # "10", "40", "100": the last zero may be a figure
        zeros -= 1
    return 10.0 ** max(zeros, 0)


def _lone_article(match: re.Match[str]) -> bool:
    """Whether a lone "one", "a single" or "half" with no unit, thing, bound or range ("one of
    the largest") is matched: a way of speaking, not a quantity."""
    low = match.group("low").strip().lower()
    alone = not match.group("bound") and not match.group("high")
    return alone and low in ("one", "single", "a single", "half")


def _ends_in_own_units(
    low_unit: str, high_unit: str, low: float, high: float
) -> tuple[str, float, float, float, float] | None:
    """A range whose ends carry units of their own ("four seconds to one minute", "2 weeks to
    3 months": a span of time) as (dimension, low, high in the base unit, and both in the
    high end's unit); None when the two units measure different things."""
    low_dimension, low_base, _ = _in_base_unit(low_unit, low, low)
    dimension, high_base, _ = _in_base_unit(high_unit, high, high)
    if low_dimension != dimension:
        if {low_dimension, dimension} != _MONTHS_AND_TIME:
            return None
        low_base *= _MONTH if low_dimension == "months" else 1.0
        high_base *= _MONTH if dimension == "months" else 1.0
        dimension = "time"
    factor = high_base / high if high else 1.0
    ends = sorted((low_base, high_base))
    return dimension, ends[0], ends[1], ends[0] / factor, ends[1] / factor


def _in_base_unit(unit: str, low: float, high: float) -> tuple[str, float, float]:
    if not unit:
        return "", low, high
    dimension, factor = _UNIT_TABLE[unit]
    if dimension == "fahrenheit":
        return "celsius", (low - 32) * 5 / 9, (high - 32) * 5 / 9
    if dimension == "degrees":
        return "celsius", low, high  # a bare degree in a biology item is a temperature
    return dimension, low * factor, high * factor


def _number(text: str) -> float | None:
    text = text.strip().lower()
    if text in ("a", "an"):  # "a year", "an hour" (only read before a unit)
        return 1.0
    scale = 1.0
    for word, value in SCALES.items():
        if text.endswith(" " + word) and not text[: -len(word)].strip().isalpha():
            text, scale = text[: -len(word)].strip(), value
            break
    if text[:1].isdigit():
        return _digits(text) * scale
    return _words(text) * scale if _words(text) is not None else None  # type: ignore[operator]


def _digits(text: str) -> float:
    grouped = re.fullmatch(r"\d{1,3}(?:[, \u2009\u202f\u00a0']\d{3})+", text)
    if grouped:
        return float(re.sub(r"\D", "", text))
    return float(text.replace(",", "."))


def _words(text: str) -> float | None:
    """The value of number words: "twenty-five" 25, "three hundred" 300, "a dozen" 12."""
    if text in NUMBER_WORDS:
        return NUMBER_WORDS[text]
    total = current = 0.0
    seen = False
    for word in re.split(r"[- ]+", text):
        if word in ("a", "and"):
            continue
        if word in NUMBER_WORDS:
            current += NUMBER_WORDS[word]
        elif word == "hundred":
            current = (current or 1.0) * 100
        elif word in SCALES:
            total += (current or 1.0) * SCALES[word]
            current = 0.0
        else:
            return None
        seen = True
    return total + current if seen else None


def same_quantities(
    first: tuple[Quantity, ...],
    second: tuple[Quantity, ...],
    units: frozenset[str] | None = None,
) -> bool:
    """The two texts state the same quantities (in any order). ``units``: when given, a bare
    number is also the same as that number with a unit (``unit_key``) among them, or with any
    unit when it is empty ("Six" is "6 days" where the stem asks in days, or names no unit)."""
    if len(first) != len(second):
        return False
    left = list(second)
    for quantity in first:
        match = next((q for q in left if _same(quantity, q, units)), None)
        if match is None:
            return False
        left.remove(match)
    return True


def _same(first: Quantity, second: Quantity, units: frozenset[str] | None) -> bool:
    if first.same(second):
        return True
    if units is None or bool(first.dimension) == bool(second.dimension):
        return False
    bare, united = (first, second) if second.dimension else (second, first)
    if units and unit_key(united) not in units:
        return False
    given = in_unit_of(bare, united)
    return given is not None and given.same(united)


def unit_key(quantity: Quantity) -> str:
    """What a quantity's unit is, to compare with the units a question asks in: the unit's
    dimension and factor ("time:86400" for days), or the thing counted ("count:egg")."""
    if quantity.dimension.startswith("count:"):
        return quantity.dimension
    dimension, factor = _UNIT_TABLE.get(quantity.unit, (quantity.dimension, 1.0))
    return f"{dimension}:{factor:g}"


def in_unit_of(bare: Quantity, united: Quantity) -> Quantity | None:
    """A bare number read in the unit of another quantity ("Six" as 6 days beside "6 days"), or
    None where the unit is not a plain factor (temperatures)."""
    if not united.raw_high:
        return None
    factor = united.high / united.raw_high
    if not _close(united.low, united.raw_low * factor, EXACT * 1e3):
        return None
    return Quantity(
        bare.raw_low * factor,
        bare.raw_high * factor,
        united.dimension,
        bare.bound,
        bare.text,
        bare.raw_low,
        bare.raw_high,
        bare.slack * factor,
        united.unit,
        bare.loose,
    )


_UNIT_WORD = re.compile(
    r"\b(?:how\s+many|number\s+of|in|many|much)\s+(?P<word>[a-z]+(?:\s+[a-z]+)?)", re.IGNORECASE
)


@lru_cache(maxsize=4096)
def asked_units(question: str) -> frozenset[str]:
    """The units a question asks its answer in (``unit_key``): a unit after "how many", "in",
    "number of" ("For how many days...", "How long, in weeks, ..."), or the thing "how many"
    counts ("How many eggs..."); empty when it names none."""
    found: set[str] = set()
    for match in _UNIT_WORD.finditer(question):
        words = match.group("word").lower().split()
        for length in (2, 1):
            phrase = " ".join(words[:length])
            if len(words) >= length and len(phrase) > 1 and phrase in _UNIT_TABLE:
                dimension, factor = _UNIT_TABLE[phrase]
                found.add(f"{dimension}:{factor:g}")
                break
        else:
            counted = words[0]
            if match.group(0).lower().startswith("how") and counted not in STOP_WORDS:
                found.add("count:" + stem(counted))
    return frozenset(found)


def hedged_inside(first: tuple[Quantity, ...], second: tuple[Quantity, ...]) -> bool:
    """A hedged value lies inside a range that says no more than it ("Roughly three quarters"
    in "About 70-80%", "About 5 weeks" in "4-6 weeks"): the range is within a hedge's reach of
    the value either way (HEDGE_SHARE of it), so whichever is right, so is the other. A range
    far wider than the value's hedge ("10-50 cm" / "About 30 cm") is another answer."""
    if len(first) != 1 or len(second) != 1:
        return False
    a, b = first[0], second[0]
    if {a.dimension, b.dimension} == _MONTHS_AND_TIME:
        a, b = a.in_time(), b.in_time()
    if a.dimension != b.dimension or a.bound or b.bound:
        return False
    span, value = (a, b) if a.low < a.high else (b, a)
    if span.low == span.high or value.low != value.high or not value.slack:
        return False
    if not span.low <= value.low <= span.high:
        return False
    reach = HEDGE_SHARE * abs(value.low)
    return value.low - span.low <= reach and span.high - value.low <= reach


OVERLAP = 0.5  # share of the wider range the narrower one must cover to be the same answer


def nested_ranges(first: tuple[Quantity, ...], second: tuple[Quantity, ...]) -> bool:
    """One range lies inside the other and covers at least OVERLAP of it ("40-75%" and "about
    one half to three quarters"): whenever the narrower is right, so is the wider."""
    if len(first) != 1 or len(second) != 1:
        return False
    a, b = first[0], second[0]
    if a.dimension != b.dimension or a.bound != b.bound or a.low == a.high or b.low == b.high:
        return False
    inner, outer = (a, b) if a.high - a.low <= b.high - b.low else (b, a)
    margin = TOLERANCE * (outer.high - outer.low)
    if inner.low < outer.low - margin or inner.high > outer.high + margin:
        return False
    return inner.high - inner.low >= OVERLAP * (outer.high - outer.low)
