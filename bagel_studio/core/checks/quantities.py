"""Numbers and units as the checks compare them: "More than 2,500" and "over 2 500", "five" and
"5", "37 °C" and "about 37 degrees Celsius", "3 to 4 weeks" and "three to four weeks", "21-28
days" and "3-4 weeks" say the same, and "About 40%" is not "within 40 km".

``quantities(text)`` finds every quantity of a text: a value or a range, a unit (converted to the
base unit of its dimension: metres, kilograms, seconds, hertz, degrees Celsius...; a count of
things takes the thing's stem as its unit, "3 eggs"), and a bound ("more than", "up to"; "about"
and "~" change nothing). Two quantities are the same when their dimension and bound agree and
their values agree within a part in a hundred. ``unit_words`` are the words the quantities were
made of, which the word comparisons then leave out. Small curated tables (number words, units,
bounds), nothing learnt: the verdicts can be checked by eye.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

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
NUMBER_WORDS |= {"dozen": 12.0, "a dozen": 12.0, "half": 0.5, "a hundred": 100.0}
NUMBER_WORDS |= {"single": 1.0, "a single": 1.0, "a pair of": 2.0, "pair of": 2.0}
SCALES = {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9}

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
    "less than|fewer than|under|below|up to|at most|no more than|not more than|not exceeding|<=|≤|<"
)
_APPROX = (
    "about|approximately|approx\\.?|around|roughly|circa|c\\.|ca\\.|some|~|≈|nearly|almost|"
    "close to|just over|just under|an estimated|estimated|an average of|on average|averaging"
)

_NUMBER_WORD_RE = "|".join(
    sorted((re.escape(w) for w in (*NUMBER_WORDS, *SCALES)), key=len, reverse=True)
)
# A number: digits with thousands grouped by commas, spaces (also thin and no-break) or
# apostrophes, or a decimal; or words ("twenty-five", "three hundred", "a dozen"); then an
# optional scale word ("1.5 million").
_DIGITS = r"\d{1,3}(?:(?:,|[ \u2009\u202f\u00a0'])\d{3})+(?![\d.,]\d)|\d+(?:[.,]\d+)?"
_WORDS = rf"(?:{_NUMBER_WORD_RE})(?:[- ](?:{_NUMBER_WORD_RE}))*"
_NUMBER = rf"(?:{_DIGITS}|\b{_WORDS}\b)(?:\s+(?:hundred|thousand|million|billion)\b)?"
_UNIT_RE = "|".join(sorted((re.escape(u) for u in _UNIT_TABLE), key=len, reverse=True))
_RANGE_JOIN = r"\s*(?:-|–|—|to|or|and|until|through)\s*"
QUANTITY_RE = re.compile(
    rf"(?:(?P<lead>between|from)\s+)?"
    rf"(?:(?P<bound>{_AT_LEAST}|{_AT_MOST}|{_APPROX})\s*)?"
    rf"(?:(?P<span>between|from)\s+)?"
    rf"(?P<low>{_NUMBER})"
    rf"(?:\s*(?P<low_unit>{_UNIT_RE})(?![a-z]))?"
    rf"(?:(?P<join>{_RANGE_JOIN})(?P<high>{_NUMBER}))?"
    rf"(?:\s*(?P<unit>{_UNIT_RE})(?![a-z]))?"
    rf"(?:\s+(?P<noun>[a-z][a-z-]{{2,}}))?",
    re.IGNORECASE,
)
_BOUNDS = {
    "ge": re.compile(rf"^(?:{_AT_LEAST})$", re.IGNORECASE),
    "le": re.compile(rf"^(?:{_AT_MOST})$", re.IGNORECASE),
}
# Words after a number that are no unit of it ("3 to 4 weeks of age" keeps "weeks").
_NOT_NOUNS = frozenset(
    "and or to of in on at by for from with the a an than per each every is are was were be "  # noqa: SIM905
    "times old long wide high deep tall away apart".split()
)
_MAYBE = re.compile(r"\d|\b(?:" + _NUMBER_WORD_RE + r")\b", re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    """A value or range in a base unit, with its bound ("ge", "le" or "" for about/exactly)."""

    low: float
    high: float
    dimension: str  # "" for a bare number, a unit's dimension, or "count:<stem>"
    bound: str
    text: str  # as written, for messages

    def same(self, other: Quantity) -> bool:
        return (
            self.dimension == other.dimension
            and self.bound == other.bound
            and _close(self.low, other.low)
            and _close(self.high, other.high)
        )

    def within(self, other: Quantity) -> bool:
        """True when this value (or range) is stated by ``other``: the same, or, for a bare
        value of a range's end, one of its ends ("3 weeks" in "3 to 4 weeks"). A value with a
        unit needs that unit's dimension ("About 2 km" is not "2009"); a bare one takes any."""
        if self.dimension and self.dimension != other.dimension:
            return False
        if self.bound != other.bound and other.bound:
            return False
        if _close(self.low, other.low) and _close(self.high, other.high):
            return True
        return self.low == self.high and (
            _close(self.low, other.low) or _close(self.low, other.high)
        )


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-12)


def may_hold_quantity(text: str) -> bool:
    """False when ``text`` holds no digit and no number word (the common case, settled fast)."""
    return _MAYBE.search(text) is not None


@lru_cache(maxsize=65536)
def quantities(text: str) -> tuple[Quantity, ...]:
    """Every quantity of ``text``, in order (cached per distinct text)."""
    if not may_hold_quantity(text):
        return ()
    found = []
    for match in QUANTITY_RE.finditer(text):
        quantity = _quantity(match)
        if quantity is not None:
            found.append(quantity)
    return tuple(found)


@lru_cache(maxsize=65536)
def unit_words(text: str) -> frozenset[str]:
    """The stems of the words the quantities of ``text`` are written with (numbers, units,
    bounds, hedges): what a word comparison leaves to the quantities."""
    if not may_hold_quantity(text):
        return frozenset()
    found: set[str] = set()
    for match in QUANTITY_RE.finditer(text):
        if _quantity(match) is None:
            continue
        end = match.start("noun") if match.group("noun") else match.end()
        for word in WORD_RE.findall(match.string, match.start(), end):
            found.add(stem(word))
    return frozenset(found)


def _quantity(match: re.Match[str]) -> Quantity | None:
    low = _number(match.group("low"))
    if low is None:
        return None
    high_text = match.group("high")
    high = _number(high_text) if high_text else low
    if high is None:
        return None
    join = (match.group("join") or "").strip().lower()
    span = (match.group("span") or match.group("lead") or "").lower()
    if join == "and" and span != "between":
        high = low  # "3 and 4" outside "between": two numbers, the first one here
    unit = (match.group("unit") or match.group("low_unit") or "").lower()
    dimension, low, high = _in_base_unit(unit, low, high)
    if not unit:
        noun = (match.group("noun") or "").lower()
        if noun and noun not in _NOT_NOUNS and noun not in STOP_WORDS:
            dimension = "count:" + stem(noun)
    bound = ""
    bound_text = match.group("bound") or ""
    for name, pattern in _BOUNDS.items():
        if pattern.match(bound_text):
            bound = name
    text = match.group(0).strip()
    if not dimension and low == high and _lone_article(match):
        return None
    return Quantity(min(low, high), max(low, high), dimension, bound, text)


def _lone_article(match: re.Match[str]) -> bool:
    """ "one", "a single" or "half" with no unit, thing, bound or range ("one of the largest")
    is a way of speaking, not a quantity."""
    low = match.group("low").strip().lower()
    alone = not match.group("bound") and not match.group("high")
    return alone and low in ("one", "single", "a single", "half")


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
    """ "twenty-five" 25, "three hundred" 300, "a dozen" 12, "two thousand five hundred"."""
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


def same_quantities(first: tuple[Quantity, ...], second: tuple[Quantity, ...]) -> bool:
    """The two texts state the same quantities (in any order)."""
    if len(first) != len(second):
        return False
    left = list(second)
    for quantity in first:
        match = next((q for q in left if quantity.same(q)), None)
        if match is None:
            return False
        left.remove(match)
    return True
