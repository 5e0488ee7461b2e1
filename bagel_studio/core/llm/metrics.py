"""What the stored answers say: accuracy per domain and dimension, emitted letters (position bias),
and the paper's reference levels from two models' agreement (its Table 3).

A run is one profile's answers in one order of the options (``Run``): the project's, or the one
of the release with a shuffle seed (``evaluate --seed``); each run's newest answer per item under
the profile's current settings and the paper's prompt counts. Accuracy is two figures, as
lm-evaluation-harness reports them (strict-match and flexible-extract): strict counts a reply
that is the gold's letter and nothing else, lenient also a longer reply whose first standalone
letter is the gold's. An invalid reply (no letter A-D in it) counts as answered and wrong, a
failed request as not answered, a reply to an item without a valid gold as neither right nor
wrong (left out, and counted in ``no_gold``). Wherever an accuracy is shown, ``invalid_note``
says how many of its replies were invalid, and when they are many, that the figure measures the
reply format, not the model.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bagel_studio.core.domains import DOMAINS, LETTERS, LEVELS
from bagel_studio.core.llm.parse import INVALID, STRICT
from bagel_studio.core.llm.profiles import Profile
from bagel_studio.core.llm.project import load_profiles
from bagel_studio.core.llm.templates import evaluation_prompt_hash
from bagel_studio.core.store import Store

EASY, MEDIUM, HARD = LEVELS
PROJECT_ORDER = "project order"  # the options as the project holds them, not shuffled


def order_name(seed: int | None) -> str:
    """The order a run showed the options in: ``project order``, or ``seed N`` (a release's)."""
    return PROJECT_ORDER if seed is None else f"seed {seed}"


def domain_order(found: Iterable[str]) -> list[str]:
    """Domains in the paper's order, any others after them alphabetically, so that every table
    lists them the same way."""
    found = set(found)
    return [d for d in DOMAINS if d in found] + sorted(found - set(DOMAINS))


@dataclass(frozen=True)
class Run:
    """One profile's answers in one order of the options: the project's (``seed`` None) or
    the release's with that shuffle seed. Runs in different orders are different measures."""

    label: str
    seed: int | None

    @property
    def order(self) -> str:
        return order_name(self.seed)

    @property
    def name(self) -> str:
        """The profile's label for the project's order, ``LABEL (seed N)`` for a release's."""
        return self.label if self.seed is None else f"{self.label} (seed {self.seed})"


def answers_by_run(
    store: Store, profiles: list[Profile] | None = None, item_ids: set[str] | None = None
) -> dict[Run, list[dict[str, Any]]]:
    """{run: its newest answer per item} of the given (default: every stored) profiles, in the
    profiles' order, each profile's project order first, then its seeds."""
    profiles = load_profiles(store) if profiles is None else profiles
    rows = store.llm.latest_answers(
        [(p.label, p.settings_hash()) for p in profiles], evaluation_prompt_hash(), by_order=True
    )
    found: dict[Run, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if item_ids is None or row["item_id"] in item_ids:
            found[Run(row["profile"], row["shown_seed"])].append(row)
    rank = {p.label: i for i, p in enumerate(profiles)}
    return {
        run: found[run]
        for run in sorted(found, key=lambda r: (rank[r.label], r.seed is not None, r.seed or 0))
    }


def answers_by_profile(
    store: Store,
    profiles: list[Profile] | None = None,
    item_ids: set[str] | None = None,
    seed: int | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """{label: newest answers per item} of the given (default: every stored) profiles' runs
    in one order (``seed``; None: the project's)."""
    profiles = load_profiles(store) if profiles is None else profiles
    runs = answers_by_run(store, profiles, item_ids)
    return {p.label: runs.get(Run(p.label, seed), []) for p in profiles}


def graded(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answers to items with a valid gold: those an accuracy counts."""
    return [a for a in answers if a["correct"] is not None and a.get("gold", 0) is not None]


def strictly_right(answer: dict[str, Any]) -> bool:
    """The reply is the gold's letter and nothing else (strict-match)."""
    return bool(answer["correct"]) and answer["parse"] == STRICT


# More invalid replies than this share, and an accuracy says more about the reply format than
# about what the model knows.
INVALID_WARN_SHARE = 0.1


# What to do about many invalid replies, on the command line and in the desk's Models panel.
CLI_REMEDY = (
    "ask again with llama.cpp's one-letter grammar (--grammar), --api-style completions for a "
    "base model, or more --max-tokens, under another --label"
)
DESK_REMEDY = (
    "ask again under another label with the profile's one-letter grammar (llama.cpp) ticked, "
    "or the completions API for a base model"
)


def invalid_note(answered: int, invalid: int, remedy: str = CLI_REMEDY) -> str | None:
    """What must stand beside an accuracy over ``answered`` replies of which ``invalid`` held no
    letter A-D; None when every reply held one. ``remedy`` says how to ask better."""
    if not invalid:
        return None
    note = f"{invalid} of {answered} replies held no letter A-D and count as wrong"
    if invalid > INVALID_WARN_SHARE * answered:
        note += f": this accuracy measures the reply format more than the model; {remedy}"
    return note


def letters_text(letters: dict[str, int]) -> str:
    """``A 3, B 0, C 1, D 44 (D 77%)``: the emitted letters, the commonest one's share beside."""
    total = sum(letters.values())
    text = ", ".join(f"{x} {letters.get(x, 0)}" for x in LETTERS)
    if total:
        top = max(LETTERS, key=lambda x: letters.get(x, 0))
        text += f" ({top} {100 * letters.get(top, 0) / total:.0f}%)"
    return text


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def model_summary(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """One run's ``stats --json`` entry: answered, invalid, replies without a valid gold,
    lenient (``accuracy``) and strict accuracy, and letters, per domain and overall."""
    domains = domain_order(a["domain"] for a in answers)
    counted = graded(answers)
    totals: Counter[str] = Counter(a["domain"] for a in counted)
    correct: Counter[str] = Counter(a["domain"] for a in counted if a["correct"])
    strict: Counter[str] = Counter(a["domain"] for a in counted if strictly_right(a))
    letters = {d: dict.fromkeys(LETTERS, 0) for d in domains}
    for answer in answers:
        if answer["letter"] in LETTERS:
            letters[answer["domain"]][answer["letter"]] += 1
    accuracy: dict[str, float | None] = {d: _ratio(correct[d], totals[d]) for d in domains}
    accuracy["overall"] = _ratio(sum(correct.values()), len(counted))
    strict_accuracy: dict[str, float | None] = {d: _ratio(strict[d], totals[d]) for d in domains}
    strict_accuracy["overall"] = _ratio(sum(strict.values()), len(counted))
    invalid = sum(a["parse"] == INVALID for a in answers)
    return {
        "answered": len(answers),
        "invalid": invalid,
        "no_gold": len(answers) - len(counted),
        "strict_accuracy": strict_accuracy,
        "accuracy": accuracy,
        "letters": letters,
        "note": invalid_note(len(answers), invalid),
    }


def dimension_accuracy(
    answers: list[dict[str, Any]],
) -> dict[str, dict[str, tuple[int, int, int]]]:
    """{domain: {dimension: (strictly right, right, graded)}} (the paper's Tables 5-7), over
    the answers to items with a valid gold."""
    result: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for answer in graded(answers):
        cell = result[answer["domain"]][answer["dimension"] or "(none)"]
        cell[0] += strictly_right(answer)
        cell[1] += bool(answer["correct"])
        cell[2] += 1
    return {
        d: {dim: (c[0], c[1], c[2]) for dim, c in sorted(result[d].items())}
        for d in domain_order(result)
    }


def models_stats(store: Store, item_ids: set[str] | None = None) -> dict[str, Any]:
    """``stats --json`` ``models``: {run name: summary, with its profile and order} for every
    run of every stored profile (``Run.name``: the label for the project's order)."""
    return {
        run.name: {"profile": run.label, "order": run.order, **model_summary(answers)}
        for run, answers in answers_by_run(store, item_ids=item_ids).items()
    }


def levels_stats(store: Store) -> dict[str, dict[str, int]]:
    """``stats --json`` ``levels``: the items' stored levels per domain."""
    counts: dict[str, dict[str, int]] = {}
    for domain, level, count in store.items.level_counts():
        per_domain = counts.setdefault(domain, dict.fromkeys(LEVELS, 0))
        if level in per_domain:
            per_domain[level] += count
    return {d: counts[d] for d in domain_order(counts)}


def reference_levels(
    store: Store, first: Profile, second: Profile, seed: int | None = None
) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """The paper's levels: easy if both models answer correctly, medium if one does, hard if
    neither, from their runs in one order (``seed``; None: the project's). Returns ({item id:
    level}, {item id: domain}, ids missing an answer of either)."""
    by_label = answers_by_profile(store, [first, second], seed=seed)
    a = {row["item_id"]: row for row in by_label[first.label]}
    b = {row["item_id"]: row for row in by_label[second.label]}
    levels: dict[str, str] = {}
    domains: dict[str, str] = {}
    missing: list[str] = []
    for item_id in store.items.ids():
        if item_id not in a or item_id not in b:
            missing.append(item_id)
            continue
        right = bool(a[item_id]["correct"]) + bool(b[item_id]["correct"])
        levels[item_id] = (HARD, MEDIUM, EASY)[right]
        domains[item_id] = a[item_id]["domain"]
    return levels, domains, missing


def level_table(levels: dict[str, str], domains: dict[str, str]) -> dict[str, dict[str, int]]:
    """How many items of each domain got each reference level."""
    counts: dict[str, dict[str, int]] = {}
    for item_id, level in levels.items():
        counts.setdefault(domains[item_id], dict.fromkeys(LEVELS, 0))[level] += 1
    return {d: counts[d] for d in domain_order(counts)}


def format_level_table(table: dict[str, dict[str, int]]) -> list[str]:
    """The paper's Table 3 as text: counts and percentages per domain, and the total."""
    lines = [f"{'Domain':<14}{'easy':>16}{'medium':>16}{'hard':>16}{'items':>8}"]
    total = dict.fromkeys(LEVELS, 0)
    for domain, counts in [*table.items(), ("All", total)]:
        if domain != "All":
            for level in LEVELS:
                total[level] += counts[level]
        n = sum(counts.values())
        cells = "".join(
            f"{counts[level]:>8} {100 * counts[level] / n if n else 0:5.1f}%" for level in LEVELS
        )
        lines.append(f"{domain:<14}{cells}{n:>8}")
    return lines
