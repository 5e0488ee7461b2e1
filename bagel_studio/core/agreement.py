"""How much the curators agree: Cohen's kappa per pair, Fleiss' kappa over all of them.

Ratings are the curators' own decisions, mapped to categories by one of two schemes:

* ``keep`` (the default): ``keep`` (accept, or accept with revision), ``reject`` and ``uncertain``;
  accept and revise count as the same category.
* ``verdicts``: WoW-Bench's three verdicts, ``accept`` (as is), ``revise`` (accept with revision)
  and ``discard`` (reject); an ``uncertain`` is no verdict and is left out, like a skip.

Skips are not ratings, and the adjudicator's decision is not a curator's rating.

Items with missing ratings: Cohen's kappa for a pair uses the items both curators rated. Fleiss'
kappa needs the same number of ratings per item, so it uses only the items rated by every curator
being compared (all curators who rated anything in the scope); ``fleiss_items`` says how many that
is. A kappa that is undefined (no items, or every rating in one category so that chance agreement
is 1) is ``None``.

Also here: ``blind_mismatches``, the blind answers that missed the gold.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, NamedTuple

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import Decision
from bagel_studio.core.store import Store

CATEGORIES: tuple[str, ...] = ("keep", "reject", "uncertain")
CATEGORY_OF: dict[str, str] = {
    Decision.ACCEPT.value: "keep",
    Decision.REVISE.value: "keep",
    Decision.REJECT.value: "reject",
    Decision.UNCERTAIN.value: "uncertain",
}
VERDICTS: tuple[str, ...] = ("accept", "revise", "discard")
VERDICT_OF: dict[str, str] = {
    Decision.ACCEPT.value: "accept",
    Decision.REVISE.value: "revise",
    Decision.REJECT.value: "discard",
}
SCHEMES: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "keep": (CATEGORIES, CATEGORY_OF),
    "verdicts": (VERDICTS, VERDICT_OF),
}
SCHEME_TITLES = {
    "keep": "keep (accept or revise) / reject / uncertain",
    "verdicts": "accept / revise / discard (WoW-Bench's three verdicts)",
}


def cohen_kappa(pairs: Iterable[tuple[Hashable, Hashable]]) -> float | None:
    """Cohen's kappa of two raters from their (rating of A, rating of B) pairs, one per subject.

    kappa = (p_o - p_e) / (1 - p_e), with p_e from each rater's own category frequencies.
    """
    pairs = list(pairs)
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(1 for a, b in pairs if a == b) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    expected = sum(first[c] * second[c] for c in first) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa from a subjects x categories matrix of how many raters chose each category.

    Every row must sum to the same number of raters (at least two).
    """
    rows = [list(r) for r in counts]
    if not rows:
        return None
    width = len(rows[0])
    if width == 0 or any(len(r) != width or min(r) < 0 for r in rows):
        raise ValueError("every row needs one non-negative count per category")
    raters = sum(rows[0])
    if raters < 2 or any(sum(r) != raters for r in rows):
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of ratings for every subject")
    n_subjects = len(rows)
    totals = [sum(r[j] for r in rows) for j in range(width)]
    shares = [t / (n_subjects * raters) for t in totals]
    per_subject = [(sum(c * c for c in r) - raters) / (raters * (raters - 1)) for r in rows]
    observed = sum(per_subject) / n_subjects
    expected = sum(p * p for p in shares)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


@dataclass(frozen=True)
class PairAgreement:
    a: str
    b: str
    n: int  # items both rated
    kappa: float | None
    observed: float | None  # share of those items on which they agree

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "kappa": _round(self.kappa),
            "n": self.n,
            "observed_agreement": _round(self.observed),
        }


@dataclass(frozen=True)
class AgreementBlock:
    """Agreement within one scope (all items, or one domain)."""

    scope: str
    curators: tuple[str, ...]
    items_rated: int  # items with at least one rating
    fleiss_items: int  # items rated by every curator (those Fleiss' kappa uses)
    fleiss_kappa: float | None
    observed: float | None  # mean pairwise agreement on those items (Fleiss' P-bar)
    pairs: tuple[PairAgreement, ...]
    category_counts: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "curators": list(self.curators),
            "items_rated": self.items_rated,
            "fleiss_items": self.fleiss_items,
            "fleiss_kappa": _round(self.fleiss_kappa),
            "observed_agreement": _round(self.observed),
            "cohen_kappa": [p.to_json() for p in self.pairs],
            "categories": self.category_counts,
        }


@dataclass(frozen=True)
class AgreementReport:
    """The overall block (or the requested domain's) and one block per domain."""

    overall: AgreementBlock
    domains: dict[str, AgreementBlock] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = self.overall.to_json()
        data["domains"] = {d: b.to_json() for d, b in self.domains.items()}
        return data


Ratings = dict[str, dict[str, str]]  # item id -> curator -> category


def agreement_report(
    store: Store, domain: str | None = None, scheme: str = "keep"
) -> AgreementReport:
    """Agreement over the whole project (or one domain), with a block per domain, the decisions
    mapped to categories by ``scheme`` (``SCHEMES``)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown category scheme {scheme!r}: choose from {', '.join(SCHEMES)}")
    categories, category_of = SCHEMES[scheme]
    by_domain: dict[str, Ratings] = {}
    for item_id, item_domain, curator, decision in store.reviews.verdict_rows():
        if decision in category_of and (domain is None or item_domain == domain):
            by_domain.setdefault(item_domain, {}).setdefault(item_id, {})[curator] = category_of[
                decision
            ]
    blocks = {
        d: agreement_block(d, ratings, categories) for d, ratings in sorted(by_domain.items())
    }
    everything: Ratings = {}
    for ratings in by_domain.values():
        everything.update(ratings)
    overall = agreement_block(domain or "all", everything, categories)
    return AgreementReport(overall=overall, domains=blocks)


def agreement_block(
    scope: str, ratings: Ratings, categories: tuple[str, ...] = CATEGORIES
) -> AgreementBlock:
    """Cohen's kappa per pair and Fleiss' kappa over ``ratings`` (item -> curator -> category)."""
    curators = tuple(sorted({c for per_item in ratings.values() for c in per_item}))
    pairs = []
    for a, b in combinations(curators, 2):
        both = [(r[a], r[b]) for r in ratings.values() if a in r and b in r]
        observed = sum(1 for x, y in both if x == y) / len(both) if both else None
        pairs.append(PairAgreement(a, b, len(both), cohen_kappa(both), observed))
    complete = [r for r in ratings.values() if len(curators) >= 2 and len(r) == len(curators)]
    matrix = [[sum(1 for v in r.values() if v == c) for c in categories] for r in complete]
    kappa = fleiss_kappa(matrix) if matrix else None
    observed = _mean_pairwise_agreement(matrix)
    counts = Counter(v for r in ratings.values() for v in r.values())
    return AgreementBlock(
        scope=scope,
        curators=curators,
        items_rated=len(ratings),
        fleiss_items=len(complete),
        fleiss_kappa=kappa,
        observed=observed,
        pairs=tuple(pairs),
        category_counts={c: counts.get(c, 0) for c in categories},
    )


def _mean_pairwise_agreement(matrix: Sequence[Sequence[int]]) -> float | None:
    if not matrix:
        return None
    raters = sum(matrix[0])
    per_item = [(sum(c * c for c in r) - raters) / (raters * (raters - 1)) for r in matrix]
    return sum(per_item) / len(per_item)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


class BlindMismatch(NamedTuple):
    """A curator's blind answer that was not the gold of the item they decided on."""

    item_id: str
    curator: str
    blind_letter: str
    gold_letter: str


def blind_mismatches(store: Store) -> list[BlindMismatch]:
    """Every blind answer that missed the gold (the gold as the curator saw it when deciding).

    The checks package should raise a ``blind-answer-wrong`` flag from the same comparison.
    """
    result = []
    for review in store.reviews.all():
        if review.blind_answer is None or review.blind_answer == review.content.answer_index:
            continue
        result.append(
            BlindMismatch(
                review.item_id,
                review.curator,
                _letter(review.blind_answer),
                _letter(review.content.answer_index),
            )
        )
    return result


def _letter(index: int | None) -> str:
    if index is None or not 0 <= index < len(LETTERS):
        return "?"
    return LETTERS[index]
