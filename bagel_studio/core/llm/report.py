"""The models' part of a release: the paper's Tables 3, 4, 5-7 and 11 over the released items,
with plots (the report's ``Section``), and what the manifest records (models, settings, the
evaluation prompt's hash).

``model_report(store, item_ids)`` is computed while the release is planned, so the writer needs
no project; an empty dict means no model was evaluated and the report has no model section.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from typing import Any

from bagel_studio.core.domains import LETTERS, LEVELS
from bagel_studio.core.llm.metrics import (
    INVALID_WARN_SHARE,
    PROJECT_ORDER,
    Run,
    answers_by_run,
    dimension_accuracy,
    domain_order,
    model_summary,
)
from bagel_studio.core.llm.project import load_profiles
from bagel_studio.core.llm.templates import evaluation_template
from bagel_studio.core.report.plots import PALETTE, Series, bar_chart
from bagel_studio.core.report.release import Section
from bagel_studio.core.report.tables import markdown_table
from bagel_studio.core.store import Store
from bagel_studio.core.store.llm import LEVELS_SOURCE


def model_report(
    store: Store, released: Sequence[tuple[str, str, str | None]], seed: int | None = None
) -> dict[str, Any]:
    """From (item id, domain, level) of each released item of the release with ``seed``: the
    models' tables, or {}. Each run (a profile in one order of the options) is its own row, and
    says whether it was asked in this release's order."""
    profiles = load_profiles(store)
    runs: dict[Run, list[dict[str, Any]]] = {}
    if profiles:  # the released ids are gathered only when there are answers to filter
        found = answers_by_run(store, profiles, {item_id for item_id, _, _ in released})
        runs = {run: answers for run, answers in found.items() if answers}
        profiles = [p for p in profiles if any(r.label == p.label for r in runs)]
    levels: dict[str, dict[str, int]] = {}
    for (domain, level), count in Counter([(d, v) for _, d, v in released]).items():
        if level in LEVELS:
            levels.setdefault(domain, dict.fromkeys(LEVELS, 0))[level] += count
    if not profiles and not levels:
        return {}
    prompt = evaluation_template().encode("utf-8")
    return {
        "evaluation_prompt_sha256": hashlib.sha256(prompt).hexdigest(),
        "seed": seed,
        "models": {p.label: {**p.measured(), "settings_hash": p.settings_hash()} for p in profiles},
        "runs": {
            run.name: {
                "profile": run.label,
                "order": run.order,
                "seed": run.seed,
                "release_order": seed is not None and run.seed == seed,
            }
            for run in runs
        },
        "summary": {run.name: model_summary(answers) for run, answers in runs.items()},
        "dimensions": {
            run.name: {
                domain: {dim: list(cell) for dim, cell in dims.items()}
                for domain, dims in dimension_accuracy(answers).items()
            }
            for run, answers in runs.items()
        },
        "levels": levels,
        "levels_source": store.project.get_meta(LEVELS_SOURCE) if levels else None,
    }


def release_section(report: dict[str, Any]) -> Section:
    """The report's "Models" section with its plots (nothing without models)."""
    return Section("\n" + report_tables(report) if report else "", report_plots(report))


def manifest_entry(report: dict[str, Any]) -> dict[str, Any]:
    """What the manifest names: the models, their settings, their runs (the order each was
    asked in) and the prompt's hash."""
    if not report:
        return {}
    return {
        "evaluation_prompt_sha256": report["evaluation_prompt_sha256"],
        "models": report["models"],
        "runs": report["runs"],
    }


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _accuracy(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _shown_in(run: dict[str, Any], seed: int | None) -> str:
    """Where a run's options were: this release's order, another's, or the project's."""
    if run["release_order"]:
        return f"this release's order (seed {seed})"
    if run["seed"] is None:
        return "the project's order"
    return f"another release's order (seed {run['seed']})"


def _levels_part(report: dict[str, Any]) -> list[str]:
    """Table 3 with the sentence that names the two models its levels came from."""
    parts = ["\n### Reference levels (Table 3)\n"]
    levels, source = report["levels"], report.get("levels_source")
    if not levels:
        return [*parts, "No released item has a level.\n", "![Reference levels per domain]"
                "(levels.png)\n"]  # fmt: skip
    if source:
        first, second = source["models"]
        order = source["order"]
        asked = (
            "the project's order" if order == PROJECT_ORDER
            else f"the order of the release with {order}"
        )  # fmt: skip
        parts.append(
            f"Levels from the answers of **{first}** and **{second}**, asked in {asked} "
            "(`levels --apply`): easy when both answered correctly, medium when one did, hard "
            "when neither; a level a curator set instead is kept.\n"
        )
    else:
        parts.append("Levels as imported or set by curators (no `levels --apply` here).\n")
    rows = []
    for domain, counts in levels.items():
        n = sum(counts.values())
        rows.append([domain, *[f"{counts[lv]} ({_percent(counts[lv], n)})" for lv in LEVELS], n])
    parts.append(markdown_table(["Domain", *LEVELS, "Items"], rows))
    parts.append("![Reference levels per domain](levels.png)\n")
    return parts


def report_tables(report: dict[str, Any]) -> str:
    """The models' section of report.md (empty without models)."""
    if not report:
        return ""
    parts = ["## Models\n"]
    models, runs, seed = report["models"], report.get("runs", {}), report.get("seed")
    if models:
        rows = [
            [label, m["model"], m["api_style"], "yes" if m["grammar"] else "no",
             m["temperature"], m["seed"], m["max_tokens"]]
            for label, m in models.items()
        ]  # fmt: skip
        parts.append(
            f"Closed-book evaluation with the paper's prompt (SHA-256 "
            f"`{report['evaluation_prompt_sha256'][:16]}…`), over the released items. The "
            "sampling seed is the one sent with each request; the order of the options each run "
            "was shown is in the tables below (a run is a model in one order):\n"
        )
        parts.append(
            markdown_table(
                ["Label", "Model", "API", "Grammar", "Temperature", "Sampling seed", "Max tokens"],
                rows,
                2,
            )
        )
    parts.extend(_levels_part(report))
    summary = report["summary"]
    if summary:
        parts.extend(_accuracy_parts(report, runs, seed))
    return "\n".join(parts)


def _accuracy_parts(report: dict[str, Any], runs: dict[str, Any], seed: int | None) -> list[str]:
    """Tables 4, 5-7 and 11: accuracy per run and domain, strict and lenient apart, per
    dimension, and the letters of the runs asked in this release's order."""
    summary = report["summary"]
    domains = domain_order({d for s in summary.values() for d in s["letters"]})
    parts = ["\n### Accuracy per domain (Table 4, %)\n"]
    rows = []
    for name, s in summary.items():
        shown = _shown_in(runs[name], seed)
        for metric, key in (("strict", "strict_accuracy"), ("lenient", "accuracy")):
            rows.append([runs[name]["profile"], shown, metric,
                         *[_accuracy(s[key].get(d)) for d in domains],
                         _accuracy(s[key]["overall"]), s["answered"], s["invalid"]])  # fmt: skip
    parts.append(markdown_table(
        ["Model", "Options shown in", "Accuracy", *domains, "Overall", "Answered", "Invalid"], rows
    ))  # fmt: skip
    parts.append(
        "Strict: the reply is the gold's letter and nothing else; lenient: the first standalone "
        "letter A-D of the reply is the gold's (lm-evaluation-harness's strict-match and "
        "flexible-extract). Options shown in: the order the model saw the options in, this "
        "release's (asked with `evaluate --seed` of this release), another release's or the "
        "project's; the same model in two orders is two runs. Invalid: replies that held no "
        "letter A-D; they count as answered and wrong.\n"
    )
    parts.extend(
        f"- **{name}**: {s['note']}.\n"
        for name, s in summary.items()
        if s.get("note") and s["invalid"] > INVALID_WARN_SHARE * s["answered"]
    )
    parts.append("![Accuracy per domain and model](model_accuracy.png)\n")
    parts.append("\n### Accuracy per dimension (Tables 5-7, strict / lenient, %)\n")
    for domain in domains:
        dims = sorted({dim for d in report["dimensions"].values() for dim in d.get(domain, {})})
        rows = []
        for name, by_domain in report["dimensions"].items():
            cells = by_domain.get(domain, {})
            rows.append([name, *[_two(cells[dim]) if dim in cells else "-" for dim in dims]])
        parts.append(f"\n{domain}:\n\n" + markdown_table(["Model", *dims], rows))
    parts.append("\n### Emitted letters (Table 11)\n")
    here = [name for name in summary if runs[name]["release_order"]]
    elsewhere = [name for name in summary if not runs[name]["release_order"]]
    if here:
        rows = []
        for name in here:
            for domain, counts in summary[name]["letters"].items():
                n = sum(counts.values())
                cells = [f"{counts[x]} ({_percent(counts[x], n)})" for x in LETTERS]
                rows.append([runs[name]["profile"], domain, *cells])
        parts.append(
            f"The letters the models answered with, in this release's order (seed {seed}):\n"
        )
        parts.append(markdown_table(["Model", "Domain", *LETTERS], rows, 2))
    else:
        parts.append(
            f"No model was asked in this release's order (`evaluate --seed {seed}`), so no "
            "letter here refers to a position of this release.\n"
        )
    if elsewhere:
        parts.append(
            "Not shown: "
            + ", ".join(
                f"{runs[name]['profile']} in {_shown_in(runs[name], seed)}" for name in elsewhere
            )
            + ", whose letters name positions this release does not have.\n"
        )
    if here:
        parts.append("![Emitted letters per model](model_letters.png)\n")
    return parts


def _two(cell: Sequence[int]) -> str:
    """``strict / lenient`` percentages of a (strictly right, right, graded) cell."""
    strict, right, graded = cell
    if not graded:
        return "-"
    return f"{100 * strict / graded:.1f} / {100 * right / graded:.1f}"


def report_plots(report: dict[str, Any]) -> dict[str, bytes]:
    """{file name: PNG} of the models' plots (none without models)."""
    if not report:
        return {}
    levels = report["levels"]
    colours = {"easy": "#2e8b57", "medium": "#e6a23c", "hard": "#c0392b"}
    domains = list(levels)
    plots = {
        "levels.png": bar_chart(
            "Reference levels per domain",
            domains,
            [Series(lv, colours[lv], [levels[d][lv] for d in domains]) for lv in LEVELS],
            "released items",
            empty="No released item has a level",
        )
    }
    summary, runs = report["summary"], report.get("runs", {})
    if summary:
        names = list(summary)
        all_domains = domain_order({d for s in summary.values() for d in s["letters"]})
        rows = [f"{name}: {d}" for name in names for d in all_domains]
        strict = [100 * (summary[n]["strict_accuracy"].get(d) or 0.0)
                  for n in names for d in all_domains]  # fmt: skip
        lenient = [100 * (summary[n]["accuracy"].get(d) or 0.0)
                   for n in names for d in all_domains]  # fmt: skip
        plots["model_accuracy.png"] = bar_chart(
            "Accuracy per run and domain (%): strict, and lenient beyond it",
            rows,
            [
                Series("strict", PALETTE[0], strict),
                Series(
                    "lenient only",
                    PALETTE[1],
                    [b - a for a, b in zip(strict, lenient, strict=True)],
                ),
            ],
            "% correct",
            totals=False,
        )
        here = [n for n in names if runs.get(n, {}).get("release_order")]
        if here:
            letter_rows = [f"{n}: {d}" for n in here for d in summary[n]["letters"]]
            series = [
                Series(x, PALETTE[i],
                       [summary[n]["letters"][d][x] for n in here for d in summary[n]["letters"]])
                for i, x in enumerate(LETTERS)
            ]  # fmt: skip
            plots["model_letters.png"] = bar_chart(
                "Letters emitted per model and domain, in this release's order",
                letter_rows,
                series,
                "answers",
            )
    return plots
