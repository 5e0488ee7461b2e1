"""Heuristic baselines: how often a rule that never reads the question the way a person would
still finds the gold answer.

Each baseline scores the four options of an item and picks the best; ties share the credit (a
tie of k options containing the gold counts 1/k), so a baseline with nothing to go on scores
exactly chance. Accuracy is compared with chance (25%) by a one-sided binomial test. The
position baseline picks, per group, the letter most often gold; as it chooses among four letters
after looking, its p-value is multiplied by four (Bonferroni) so that it stays a valid test.
A score is an artifact when it beats chance at p < 0.01 after Holm's correction over all the
scores of the audit: five baselines on four domains and fifteen dimensions are ninety-odd tests,
and at a bare 0.01 a clean project would show about one "artifact" by chance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Indel
from rapidfuzz.process import cpdist

from bagel_studio.core.domains import DIMENSIONS, DOMAINS, LETTERS

CHANCE = 0.25
EXACT_N = 256  # up to this many items, the p-value is summed in integers (at chance 1/4)
ARTIFACT_P = 0.01  # beating chance at this level (Holm-adjusted) on a domain or dimension

LONGEST = "longest"
SHORTEST = "shortest"
STEM_OVERLAP = "stem_overlap"
CENTROID = "centroid"
POSITION = "position"
BASELINES = (LONGEST, SHORTEST, STEM_OVERLAP, CENTROID, POSITION)

# How a finding states what each baseline picks ("... is the gold 61% of the time").
PICKS = {
    LONGEST: "the longest option",
    SHORTEST: "the shortest option",
    STEM_OVERLAP: "the option sharing most words with the stem",
    CENTROID: "the option most like the other three",
}


@dataclass(frozen=True)
class Score:
    """A baseline on one group of items: accuracy, n and the p-value against chance."""

    accuracy: float
    n: int
    p_value: float
    letter: str | None = None  # the position baseline's letter

    def to_json(self) -> dict[str, float | int]:
        return {"accuracy": round(self.accuracy, 4), "n": self.n, "p_value": self.p_value}


@dataclass(frozen=True)
class Artifact:
    """A baseline that beats chance (p < 0.01, Holm-adjusted) on a domain, or on one dimension
    of it."""

    baseline: str
    domain: str
    dimension: str | None
    score: Score
    p_adjusted: float = 0.0  # after Holm's correction for the number of scores tested

    def to_json(self) -> dict[str, object]:
        return {
            "baseline": self.baseline,
            "domain": self.domain,
            "dimension": self.dimension,
            "accuracy": round(self.score.accuracy, 4),
            "n": self.score.n,
            "p_value": self.score.p_value,
            "p_adjusted": self.p_adjusted,
        }

    def sentence(self) -> str:
        """The finding in words: "GloBI / Masked participant identification: the longest
        option is the gold 61% of the time, n = 1,380, p < 1e-40"."""
        where = self.domain if self.dimension is None else f"{self.domain} / {self.dimension}"
        score = self.score
        if self.baseline == POSITION:
            what = f"the gold is in position {score.letter}"
        else:
            what = f"{PICKS[self.baseline]} is the gold"
        return (
            f"{where}: {what} {format_share(score.accuracy)} of the time, n = {score.n:,},"
            f" {format_p(score.p_value)}"
        )


def format_share(share: float) -> str:
    """A share in whole percent ("61%"), with a decimal where rounding would say 0% or 100% of
    something that is not all or nothing ("99.5%")."""
    whole = f"{share:.0%}"
    if whole in ("0%", "100%") and 0 < share < 1:
        return f"{share:.1%}"
    return whole


def format_p(p: float) -> str:
    """A p-value as a reader wants it: "p < 1e-40" for the astronomically small ones."""
    if p < 1e-40:
        return "p < 1e-40"
    if p < 0.001:
        return f"p = {p:.1e}"
    return f"p = {p:.3f}"


def binomial_p(successes: int, n: int, chance: float = CHANCE) -> float:
    """One-sided p-value of ``successes`` or more out of ``n`` at ``chance`` (the binomial
    survival function, ``scipy.stats.binom.sf(successes - 1, n, chance)``, to about 1e-14
    relative, where scipy's is good to about 1e-11: scipy.special alone takes longer to import
    than a release's whole audit takes). Small groups are summed exactly in integers, so that a
    p-value such as 7/16 prints as the tie it is.

    The probability of ``successes`` comes from Loader's saddle-point form (R's ``dbinom``),
    accurate to a few units of the last place at any ``n``; the tail is summed from there by
    the ratio of neighbouring terms, outward until the terms no longer count (above the mean),
    or as one minus the lower tail (at or below it, where the p-value is at least about 1/2).
    """
    if n <= 0 or successes <= 0:
        return 1.0
    if successes > n:
        return 0.0
    k = successes
    if n <= EXACT_N and chance == CHANCE:  # in integers: exact, ties of the rounding included
        term = math.comb(n, k) * 3 ** (n - k)
        tail = 0
        for i in range(k, n + 1):
            tail += term
            term = term * (n - i) // ((i + 1) * 3)
        return float(tail / 4**n)  # ints divided to a float: correctly rounded, as by Fraction
    odds = chance / (1.0 - chance)
    if k > n * chance:  # the terms fall from k upward
        total = term = 1.0
        for i in range(k, n):
            term *= (n - i) / (i + 1) * odds
            total += term
            if term < total * 1e-17:
                break
        log_p = _log_binomial_pmf(k, n, chance) + math.log(total)
        return min(1.0, math.exp(log_p)) if log_p > -800 else 0.0
    total = term = 1.0  # the lower tail, falling from k - 1 downward
    for i in range(k - 1, 0, -1):
        term *= i / (n - i + 1) / odds
        total += term
        if term < total * 1e-17:
            break
    lower = math.exp(_log_binomial_pmf(k - 1, n, chance) + math.log(total))
    return min(1.0, max(0.0, 1.0 - lower))


_STIRLING = (1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188)
_LOG_2PI = math.log(2 * math.pi)


def _stirling_error(n: int) -> float:
    """log(n!) - log(sqrt(2 pi n) (n / e)**n), Loader's ``stirlerr``."""
    if n <= 15:
        return math.lgamma(n + 1) - (n + 0.5) * math.log(n) + n - _LOG_2PI / 2
    s0, s1, s2, s3, s4 = _STIRLING
    nn = float(n) * n
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _deviance(x: float, mean: float) -> float:
    """x log(x / mean) + mean - x, without cancellation when x is near mean (Loader's
    ``bd0``)."""
    if abs(x - mean) < 0.1 * (x + mean):
        v = (x - mean) / (x + mean)
        s = (x - mean) * v
        term = 2 * x * v
        v *= v
        for j in range(1, 1000):
            term *= v
            following = s + term / (2 * j + 1)
            if following == s:
                return following
            s = following
        return s
    return x * math.log(x / mean) + mean - x


def _log_binomial_pmf(k: int, n: int, chance: float) -> float:
    """log P(X = k) for X ~ Binomial(n, chance)."""
    if k == 0:
        return n * math.log1p(-chance)
    if k == n:
        return n * math.log(chance)
    log_c = (
        _stirling_error(n)
        - _stirling_error(k)
        - _stirling_error(n - k)
        - _deviance(k, n * chance)
        - _deviance(n - k, n * (1.0 - chance))
    )
    return log_c - 0.5 * (_LOG_2PI + math.log(k) + math.log1p(-k / n))


# -- scoring ---------------------------------------------------------------------------------

Group = tuple[str, str | None]  # (domain, dimension or None for the whole domain)
_PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def option_scores(
    lengths: np.ndarray, overlap: np.ndarray, folded: Sequence[str]
) -> dict[str, np.ndarray]:
    """Each baseline's score of each option, as an (items x 4) array: the option with the
    highest score is the baseline's pick. ``lengths``: each option's length without the
    whitespace around it; ``overlap``: how many content words it shares with its stem;
    ``folded``: the options case-folded with their whitespace made single spaces, four per item
    one item after another."""
    centroid = np.zeros(lengths.shape, dtype=float)
    for i, j in _PAIRS:  # the similarity of every pair of options, one column pair at a time
        similarity = cpdist(
            folded[i::4],
            folded[j::4],
            scorer=Indel.normalized_similarity,
            dtype=np.float64,
        )
        centroid[:, i] += similarity
        centroid[:, j] += similarity
    return {LONGEST: lengths, SHORTEST: -lengths, STEM_OVERLAP: overlap, CENTROID: centroid}


def credits(scores: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Per item, the share of a random tie-break among the best-scoring options that lands on
    the gold."""
    winners = scores == scores.max(axis=1, keepdims=True)
    credit: np.ndarray = winners[np.arange(len(gold)), gold] / winners.sum(axis=1)
    return credit


@dataclass(frozen=True)
class BaselineTable:
    """Every baseline's score per domain and per (domain, dimension)."""

    by_domain: dict[str, dict[str, Score]]  # baseline -> domain -> score
    by_dimension: dict[str, dict[str, dict[str, Score]]]  # baseline -> domain -> dimension

    def artifacts(self) -> list[Artifact]:
        """Every score that beats chance at p < 0.01 after Holm's correction for the number of
        scores tested (five baselines on every domain and dimension: by chance alone about one
        of a hundred would pass the bare threshold), domains first. A dimension that is its
        domain's only one is not tested twice."""
        tests: list[tuple[str, str, str | None, Score]] = []
        for baseline in BASELINES:
            for domain, score in self.by_domain.get(baseline, {}).items():
                tests.append((baseline, domain, None, score))
                dimensions = self.by_dimension.get(baseline, {}).get(domain, {})
                if len(dimensions) > 1:
                    tests.extend((baseline, domain, d, s) for d, s in dimensions.items())
        adjusted = holm([score.p_value for *_, score in tests])
        return [
            Artifact(baseline, domain, dimension, score, p)
            for (baseline, domain, dimension, score), p in zip(tests, adjusted, strict=True)
            if p < ARTIFACT_P
        ]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error control), in the given order."""
    m = len(p_values)
    adjusted = [1.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def item_credits(
    lengths: np.ndarray, overlap: np.ndarray, folded: Sequence[str], gold: np.ndarray
) -> dict[str, np.ndarray]:
    """Each option-scoring baseline's credit (``credits``) on each item (``option_scores``'s
    arguments; ``gold``: each item's gold position): what the baseline table sums, computable a
    batch of items at a time."""
    if not len(gold):
        return {name: np.zeros(0) for name in BASELINES if name != POSITION}
    scores = option_scores(lengths, overlap, folded)
    return {name: credits(table, gold) for name, table in scores.items()}


def table_of_credits(
    kinds: Sequence[tuple[str, str]],
    kind: np.ndarray,
    gold: np.ndarray,
    credit: dict[str, np.ndarray],
) -> BaselineTable:
    """The baseline table from each item's kind (``kind``: its (domain, dimension) as a
    position in ``kinds``), gold position and the baselines' credits on it (``item_credits``),
    all in item order."""
    groups: dict[Group, int] = {}
    of_domain = [groups.setdefault((domain, None), len(groups)) for domain, _ in kinds]
    of_dimension = [groups.setdefault(pair, len(groups)) for pair in kinds]
    kind = kind.astype(np.int64, copy=False)
    # Per item: its domain's group, its dimension's group.
    index = [
        np.array(of_domain, dtype=np.int64)[kind],
        np.array(of_dimension, dtype=np.int64)[kind],
    ]
    counts = np.zeros(len(groups), dtype=np.int64)
    for i in index:
        counts += np.bincount(i, minlength=len(groups))
    scores: dict[str, dict[Group, Score]] = {b: {} for b in BASELINES}
    if len(gold):
        for name, item_credit in credit.items():
            sums = np.zeros(len(groups))
            for i in index:
                sums += np.bincount(i, weights=item_credit, minlength=len(groups))
            for group, g in groups.items():
                n, hits = int(counts[g]), float(sums[g])
                scores[name][group] = Score(hits / n, n, binomial_p(round(hits), n))
        flat = np.zeros(4 * len(groups), dtype=np.int64)
        for i in index:
            flat += np.bincount(i * 4 + gold, minlength=4 * len(groups))
        letters = flat.reshape(-1, 4)  # group -> how often each letter is gold
        for group, g in groups.items():
            n, letter = int(counts[g]), int(np.argmax(letters[g]))
            top = int(letters[g][letter])
            p = min(1.0, 4 * binomial_p(top, n))
            scores[POSITION][group] = Score(top / n, n, p, LETTERS[letter])
    by_domain: dict[str, dict[str, Score]] = {b: {} for b in BASELINES}
    by_dimension: dict[str, dict[str, dict[str, Score]]] = {b: {} for b in BASELINES}
    for name, found in scores.items():
        for (domain, dimension), score in sorted(found.items(), key=_group_order):
            if dimension is None:
                by_domain[name][domain] = score
            else:
                by_dimension[name].setdefault(domain, {})[dimension] = score
    return BaselineTable(by_domain, by_dimension)


def _group_order(entry: tuple[Group, Score]) -> tuple[int, str, int, str]:
    (domain, dimension), _ = entry
    rank = DOMAINS.index(domain) if domain in DOMAINS else len(DOMAINS)
    labels = DIMENSIONS.get(domain, ())
    order = labels.index(dimension) if dimension in labels else len(labels)
    return rank, domain, order, dimension or ""
