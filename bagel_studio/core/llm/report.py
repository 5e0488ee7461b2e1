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
    answers_by_profile,
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


def model_report(store: Store, released: Sequence[tuple[str, str, str | None]]) -> dict[str, Any]:
    """From (item id, domain, level) of each released item: the models' tables, or {}."""
    profiles = load_profiles(store)
    if profiles:  # the released ids are gathered only when there are answers to filter
        answers = answers_by_profile(store, profiles, {item_id for item_id, _, _ in released})
        profiles = [p for p in profiles if answers[p.label]]
    levels: dict[str, dict[str, int]] = {}
    for (domain, level), count in Counter([(d, v) for _, d, v in released]).items():
        if level in LEVELS:
            levels.setdefault(domain, dict.fromkeys(LEVELS, 0))[level] += count
    if not profiles and not levels:
        return {}
    prompt = evaluation_template().encode("utf-8")
    return {
        "evaluation_prompt_sha256": hashlib.sha256(prompt).hexdigest(),
        "models": {p.label: {**p.measured(), "settings_hash": p.settings_hash()} for p in profiles},
        "summary": {p.label: model_summary(answers[p.label]) for p in profiles},
        "dimensions": {
            p.label: {
                domain: {dim: list(cell) for dim, cell in dims.items()}
                for domain, dims in dimension_accuracy(answers[p.label]).items()
            }
            for p in profiles
        },
        "levels": levels,
    }


def release_section(report: dict[str, Any]) -> Section:
    """The report's "Models" section with its plots (nothing without models)."""
    return Section("\n" + report_tables(report) if report else "", report_plots(report))


def manifest_entry(report: dict[str, Any]) -> dict[str, Any]:
    """What the manifest names: the models, their settings and the prompt's hash."""
    if not report:
        return {}
    return {
        "evaluation_prompt_sha256": report["evaluation_prompt_sha256"],
        "models": report["models"],
    }


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _accuracy(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def report_tables(report: dict[str, Any]) -> str:
    """The models' section of report.md (empty without models)."""
    if not report:
        return ""
    parts = ["## Models\n"]
    models = report["models"]
    if models:
        rows = [
            [label, m["model"], m["api_style"], "yes" if m["grammar"] else "no",
             m["temperature"], m["seed"], m["max_tokens"]]
            for label, m in models.items()
        ]  # fmt: skip
        parts.append(
            f"Closed-book evaluation with the paper's prompt (SHA-256 "
            f"`{report['evaluation_prompt_sha256'][:16]}…`), over the released items:\n"
        )
        parts.append(
            markdown_table(
                ["Label", "Model", "API", "Grammar", "Temperature", "Seed", "Max tokens"], rows, 2
            )
        )
    levels = report["levels"]
    parts.append("\n### Reference levels (Table 3)\n")
    if levels:
        rows = []
        for domain, counts in levels.items():
            n = sum(counts.values())
            rows.append(
                [domain, *[f"{counts[lv]} ({_percent(counts[lv], n)})" for lv in LEVELS], n]
            )
        parts.append(markdown_table(["Domain", *LEVELS, "Items"], rows))
    else:
        parts.append("No released item has a level.\n")
    parts.append("![Reference levels per domain](levels.png)\n")
    summary = report["summary"]
    if summary:
        domains = domain_order({d for s in summary.values() for d in s["letters"]})
        parts.append("\n### Accuracy per domain (Table 4, %)\n")
        rows = [
            [label, *[_accuracy(s["accuracy"].get(d)) for d in domains],
             _accuracy(s["accuracy"]["overall"]), s["answered"], s["invalid"]]
            for label, s in summary.items()
        ]  # fmt: skip
        parts.append(markdown_table(["Model", *domains, "Overall", "Answered", "Invalid"], rows))
        parts.append(
            "Invalid: replies that held no letter A-D; they count as answered and wrong.\n"
        )
        parts.extend(
            f"- **{label}**: {s['note']}.\n"
            for label, s in summary.items()
            if s.get("note") and s["invalid"] > INVALID_WARN_SHARE * s["answered"]
        )
        parts.append("![Accuracy per domain and model](model_accuracy.png)\n")
        parts.append("\n### Accuracy per dimension (Tables 5-7, %)\n")
        for domain in domains:
            dims = sorted({dim for d in report["dimensions"].values() for dim in d.get(domain, {})})
            rows = []
            for label, by_domain in report["dimensions"].items():
                cells = by_domain.get(domain, {})
                rows.append(
                    [label, *[_percent(*cells[dim]) if dim in cells else "-" for dim in dims]]
                )
            parts.append(f"\n{domain}:\n\n" + markdown_table(["Model", *dims], rows))
        parts.append("\n### Emitted letters (Table 11)\n")
        rows = []
        for label, s in summary.items():
            for domain, counts in s["letters"].items():
                n = sum(counts.values())
                cells = [f"{counts[x]} ({_percent(counts[x], n)})" for x in LETTERS]
                rows.append([label, domain, *cells])
        parts.append(markdown_table(["Model", "Domain", *LETTERS], rows, 2))
        parts.append("![Emitted letters per model](model_letters.png)\n")
    return "\n".join(parts)


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
    summary = report["summary"]
    if summary:
        labels = list(summary)
        all_domains = domain_order({d for s in summary.values() for d in s["letters"]})
        rows = [f"{label}: {d}" for label in labels for d in all_domains]
        accuracy = [
            100 * (summary[label]["accuracy"].get(d) or 0.0)
            for label in labels
            for d in all_domains
        ]
        plots["model_accuracy.png"] = bar_chart(
            "Accuracy per model and domain (%)",
            rows,
            [Series("accuracy", PALETTE[0], accuracy)],
            "% correct",
            legend=False,
            totals=False,
        )
        letter_rows = [f"{label}: {d}" for label in labels for d in summary[label]["letters"]]
        series = [
            Series(
                x,
                PALETTE[i],
                [
                    summary[label]["letters"][d][x]
                    for label in labels
                    for d in summary[label]["letters"]
                ],
            )
            for i, x in enumerate(LETTERS)
        ]
        plots["model_letters.png"] = bar_chart(
            "Letters emitted per model and domain", letter_rows, series, "answers"
        )
    return plots
