"""The options-only baseline: what the reference models pick from the four options alone.

``bagel-studio evaluate PROJECT --model M --options-only`` asks a model the paper's evaluation
prompt with the question removed (``llm.templates.options_only_template``) through the same
evaluation runner, and stores its answers under that prompt's hash. Here the stored answers are
read back: per model and domain, the options-only accuracy (with its binomial p-value against
25%) beside the full prompt's accuracy on the same items, and the items every reference model
answers correctly without the question, which are flagged ``answerable-without-stem``. The
reference models are the profiles that have options-only answers; only answers to an item's
content as it stands now count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from bagel_studio.core.audit.baselines import Score, binomial_p
from bagel_studio.core.audit.items import AuditItem
from bagel_studio.core.audit.report import ModelBaseline, OptionsOnly
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.llm.project import load_profiles
from bagel_studio.core.llm.templates import evaluation_prompt_hash, options_only_prompt_hash
from bagel_studio.core.store import Store


def _correct_by_item(
    store: Store, profiles: list[tuple[str, str]], prompt_hash: str, current: dict[str, str]
) -> dict[str, dict[str, bool]]:
    """profile -> item id -> correct, from the newest answer to the item's current content."""
    result: dict[str, dict[str, bool]] = defaultdict(dict)
    for row in store.llm.latest_answers(profiles, prompt_hash):
        item_id = row["item_id"]
        if current.get(item_id) == row["content_hash"] and row["correct"] is not None:
            result[row["profile"]][item_id] = bool(row["correct"])
    return result


def _score(answers: Sequence[bool]) -> Score:
    hits = sum(answers)
    return Score(hits / len(answers), len(answers), binomial_p(hits, len(answers)))


def options_only_baseline(store: Store, items: Sequence[AuditItem]) -> OptionsOnly:
    """The options-only scores of every profile that has options-only answers."""
    profiles = [(p.label, p.settings_hash()) for p in load_profiles(store)]
    if not profiles:
        return OptionsOnly()
    current = {item.id: item.content.content_hash() for item in items}
    alone = _correct_by_item(store, profiles, options_only_prompt_hash(), current)
    if not alone:
        return OptionsOnly()
    full = _correct_by_item(store, list(profiles), evaluation_prompt_hash(), current)
    domains = {item.id: item.domain for item in items}
    models: dict[str, dict[str, ModelBaseline]] = {}
    for label, answers in alone.items():
        by_domain: dict[str, list[bool]] = defaultdict(list)
        full_by_domain: dict[str, list[bool]] = defaultdict(list)
        for item_id, correct in answers.items():
            by_domain[domains[item_id]].append(correct)
            if item_id in full.get(label, {}):
                full_by_domain[domains[item_id]].append(full[label][item_id])
        models[label] = {
            domain: ModelBaseline(
                _score(values),
                _score(full_by_domain[domain]) if full_by_domain[domain] else None,
            )
            for domain, values in sorted(by_domain.items(), key=lambda kv: _rank(kv[0]))
        }
    answerable = [item.id for item in items if all(alone[label].get(item.id) for label in alone)]
    wanted = set(answerable)
    golds = {
        item.id: f"{LETTERS[item.answer_index]} {item.gold.strip()!r}"
        for item in items
        if item.id in wanted
    }
    return OptionsOnly(models, answerable, golds)


def _rank(domain: str) -> int:
    from bagel_studio.core.domains import DOMAINS

    return DOMAINS.index(domain) if domain in DOMAINS else len(DOMAINS)
