"""``bagel-studio audit PROJECT``: the shortcuts a model could take through the release.

Prints the heuristic baselines per domain, the artifacts among them in words, the clusters of
near-duplicate items and the cross-item leaks, and sets the ``near-duplicate`` and
``leaks-answer-of`` flags (and ``answerable-without-stem`` from stored options-only answers) on the
items concerned, replacing those of the previous audit.
"""

from __future__ import annotations

import argparse
import sys

from bagel_studio.core.audit import AuditReport, audit_flags, format_p, run_audit
from bagel_studio.core.audit.baselines import BASELINES, CHANCE
from bagel_studio.core.commands.common import add_wait_argument, open_project, print_json
from bagel_studio.core.operations.audit import store_audit_flags

DESCRIPTION = (
    "Audit the items as they stand (final content; rejected items left out) for shortcuts a "
    "model could take. Heuristic baselines per domain and dimension: longest option, shortest "
    "option, most words shared with the stem (stem_overlap), the option most like the other "
    "three (centroid), the most frequent gold position (position); each with accuracy, n and "
    "a one-sided binomial p-value against 25% (ties share the credit; position's p is "
    "multiplied by 4 for picking its letter after looking). A baseline with p < 0.01 on a "
    "domain or dimension, after Holm's correction for the number of scores tested, is an "
    "artifact. Near-duplicate items (MinHash LSH over content words, "
    "the same fact asked twice about one species or source, one recording asked twice) and "
    "cross-item leaks (a stem stating another item's gold about the same subject) are listed "
    "and flagged near-duplicate / leaks-answer-of. The options-only baseline reads the answers "
    "stored by `bagel-studio evaluate PROJECT --model M --options-only` (the paper's prompt "
    "without the question): accuracy per model and domain beside the full prompt's; items "
    "every such model answers from the options alone are flagged answerable-without-stem."
)
EPILOG = (
    "--json prints {items, baselines: {name: {domain: {accuracy, n, p_value}}},"
    " baselines_by_dimension, artifacts: [{baseline, domain, dimension, accuracy, n, p_value,"
    " p_adjusted, finding}], duplicates: [[ids]], leaks: [{item_id, leaked_item_id}],"
    " options_only: {models: {profile: {domain: {accuracy, n, p_value, full_accuracy,"
    " full_n}}}, answerable_without_stem: [ids]}}.\n"
    "exit status: 0 (findings are not errors), 2 on usage errors"
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="find shortcuts: heuristic baselines, near-duplicates, cross-item leaks",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument("project", metavar="PROJECT", help="the project file (.bagel)")
    parser.add_argument("--json", action="store_true", help="print the audit as JSON")
    parser.add_argument(
        "--no-flags",
        action="store_true",
        help="only report; do not set the audit's flags",
    )
    add_wait_argument(parser)


def run(args: argparse.Namespace) -> int:
    with open_project(args.project, read_only=args.no_flags, wait=args.wait) as store:
        report = run_audit(store)
        if not args.no_flags:
            change = store_audit_flags(store, audit_flags(report)).result
    if args.json:
        print_json(report.to_json())
    else:
        sys.stdout.write("\n".join(report_lines(report)) + "\n")
        if not args.no_flags:
            sys.stderr.write(f"{change.flags} audit flags set on {len(change.item_ids)} items\n")
    return 0


def report_lines(report: AuditReport) -> list[str]:
    """The audit as text: baselines per domain, artifacts, duplicates, leaks."""
    lines = [report.coverage(), ""]
    domains = list(report.baselines.by_domain[BASELINES[0]])
    lines.append(f"Baselines (accuracy, chance {CHANCE:.0%}):")
    lines.append("  " + "baseline".ljust(14) + "".join(d.rjust(14) for d in domains))
    for name in BASELINES:
        row = report.baselines.by_domain[name]
        cells = "".join(f"{row[d].accuracy:.1%}".rjust(14) for d in domains)
        lines.append("  " + name.ljust(14) + cells)
    lines.append("")
    if report.artifacts:
        lines.append(f"Artifacts (p < 0.01, Holm-adjusted): {len(report.artifacts)}")
        lines.extend(f"  {artifact.sentence()}" for artifact in report.artifacts)
    else:
        lines.append("Artifacts (p < 0.01, Holm-adjusted): none")
    lines.append("")
    lines.extend(_options_only_lines(report))
    lines.append(f"Near-duplicate clusters: {len(report.duplicates)}")
    lines.extend(f"  {' = '.join(cluster)}" for cluster in report.duplicates)
    lines.append("")
    lines.append(f"Cross-item leaks: {len(report.leaks)}")
    lines.extend(
        f"  {leak.item_id} states the answer of {leak.leaked_item_id}: {leak.answer!r}"
        for leak in report.leaks
    )
    return lines


def _options_only_lines(report: AuditReport) -> list[str]:
    models = report.options_only.models
    if not models:
        return [
            "Options-only baseline: no answers yet (bagel-studio evaluate PROJECT --model M"
            " --options-only)",
            "",
        ]
    lines = ["Options-only baseline (accuracy without the question; full prompt beside it):"]
    for label, domains in models.items():
        cells = []
        for domain, score in domains.items():
            full = "n/a" if score.full is None else f"{score.full.accuracy:.1%}"
            cells.append(
                f"{domain} {score.options_only.accuracy:.1%} (n = {score.options_only.n:,},"
                f" {format_p(score.options_only.p_value)}; full {full})"
            )
        lines.append(f"  {label}: " + "; ".join(cells))
    answerable = report.options_only.answerable
    lines.append(f"  answerable without the stem by every model: {len(answerable):,} items")
    lines.append("")
    return lines


__all__ = ["add_parser", "format_p", "report_lines", "run"]
