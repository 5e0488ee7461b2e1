"""What the stored answers say: accuracy per domain and dimension, emitted letters (position bias),
and the paper's reference levels from two models' agreement (its Table 3).

Each profile's newest answer per item under its current settings and the paper's prompt counts;
an invalid reply (no letter A-D in it) counts as answered and wrong, a failed request as not
answered. Wherever an accuracy is shown, ``invalid_note`` says how many of its replies were
invalid, and when they are many, that the figure measures the reply format, not the model.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from bagel_studio.core.domains import DOMAINS, LETTERS, LEVELS
from bagel_studio.core.llm.parse import INVALID
from bagel_studio.core.llm.profiles import Profile
from bagel_studio.core.llm.project import load_profiles
from bagel_studio.core.llm.templates import evaluation_prompt_hash
from bagel_studio.core.store import Store

EASY, MEDIUM, HARD = LEVELS


def domain_order(found: Iterable[str]) -> list[str]:
    """Domains in the paper's order, any others after them alphabetically, so that every table
    lists them the same way."""
    found = set(found)
    return [d for d in DOMAINS if d in found] + sorted(found - set(DOMAINS))


def answers_by_profile(
    store: Store, profiles: list[Profile] | None = None, item_ids: set[str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """{label: newest answers per item} for the given (default: every stored) profile."""
    profiles = load_profiles(store) if profiles is None else profiles
    rows = store.llm.latest_answers(
        [(p.label, p.settings_hash()) for p in profiles], evaluation_prompt_hash()
    )
    result: dict[str, list[dict[str, Any]]] = {p.label: [] for p in profiles}
    for row in rows:
        if item_ids is None or row["item_id"] in item_ids:
            result[row["profile"]].append(row)
    return result


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
    """One model's ``stats --json`` entry: answered, invalid, accuracy and letters per domain."""
    domains = domain_order(a["domain"] for a in answers)
    totals: Counter[str] = Counter(a["domain"] for a in answers)
    correct: Counter[str] = Counter(a["domain"] for a in answers if a["correct"])
    letters = {d: dict.fromkeys(LETTERS, 0) for d in domains}
    for answer in answers:
        if answer["letter"] in LETTERS:
            letters[answer["domain"]][answer["letter"]] += 1
    accuracy: dict[str, float | None] = {d: _ratio(correct[d], totals[d]) for d in domains}
    accuracy["overall"] = _ratio(sum(correct.values()), len(answers))
    invalid = sum(a["parse"] == INVALID for a in answers)
    return {
        "answered": len(answers),
        "invalid": invalid,
        "accuracy": accuracy,
        "letters": letters,
        "note": invalid_note(len(answers), invalid),
    }


def dimension_accuracy(answers: list[dict[str, Any]]) -> dict[str, dict[str, tuple[int, int]]]:
    """{domain: {dimension: (correct, answered)}} (the paper's Tables 5-7)."""
    result: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for answer in answers:
        cell = result[answer["domain"]][answer["dimension"] or "(none)"]
        cell[0] += bool(answer["correct"])
        cell[1] += 1
    return {
        d: {dim: (c[0], c[1]) for dim, c in sorted(result[d].items())} for d in domain_order(result)
    }


def models_stats(store: Store, item_ids: set[str] | None = None) -> dict[str, Any]:
    """``stats --json`` ``models``: {label: summary} for every stored profile."""
    return {
        label: model_summary(answers)
        for label, answers in answers_by_profile(store, item_ids=item_ids).items()
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
    store: Store, first: Profile, second: Profile
) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """The paper's levels: easy if both models answer correctly, medium if one does, hard if
    neither. Returns ({item id: level}, {item id: domain}, ids missing an answer of either)."""
    by_label = answers_by_profile(store, [first, second])
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
