"""``bagel-studio agreement PROJECT``: Cohen's kappa per pair and Fleiss' kappa of the curators."""

from __future__ import annotations

import argparse
import sys

from bagel_studio.core.agreement import (
    SCHEME_TITLES,
    AgreementBlock,
    AgreementReport,
    agreement_report,
)
from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import open_project, print_json
from bagel_studio.core.domains import normalize_domain


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "agreement",
        help="inter-curator agreement (Cohen's and Fleiss' kappa)",
        description=(
            "Cohen's kappa for each pair of curators and Fleiss' kappa over all of them, overall"
            " and per domain, twice: with the categories keep (accept or revise), reject,"
            " uncertain; and with WoW-Bench's three verdicts accept (as is), revise (accept with"
            " revision), discard (reject), where uncertain is no verdict. Skips are not ratings."
            " Fleiss' kappa uses the items every curator rated. --json: the keep categories at"
            ' the top level, the three verdicts under "verdicts".'
        ),
    )
    parser.add_argument("project", metavar="PROJECT")
    parser.add_argument("--domain", help="only this domain (Wikipedia, GloBI, bioRxiv, Xeno-canto)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    domain = None
    if args.domain:
        domain = normalize_domain(args.domain)
        if domain is None:
            raise UsageError(f"unknown domain {args.domain!r}")
    store = open_project(args.project, read_only=True)
    try:
        report = agreement_report(store, domain)
        verdicts = agreement_report(store, domain, scheme="verdicts")
    finally:
        store.close()
    if args.json:
        data = report.to_json()
        data["verdicts"] = verdicts.to_json()
        print_json(data)
        return 0
    lines = _report_lines(report, domain, "keep")
    lines.append("")
    lines.extend(_report_lines(verdicts, domain, "verdicts"))
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _report_lines(report: AgreementReport, domain: str | None, scheme: str) -> list[str]:
    lines = [f"Categories: {SCHEME_TITLES[scheme]}", ""]
    lines.extend(_block_lines(report.overall, "Overall" if domain is None else domain))
    if domain is None:
        for name, block in report.domains.items():
            lines.append("")
            lines.extend(_block_lines(block, name))
    return lines


def _block_lines(block: AgreementBlock, title: str) -> list[str]:
    lines = [
        f"{title}: {_count(block.items_rated, 'item')} rated by "
        f"{_count(len(block.curators), 'curator')}"
        f" ({', '.join(block.curators) or 'none'})",
        f"  Fleiss' kappa {_fmt(block.fleiss_kappa)} over {block.fleiss_items} items rated by all",
    ]
    for pair in block.pairs:
        lines.append(f"  Cohen's kappa {pair.a} / {pair.b}: {_fmt(pair.kappa)} over {pair.n} items")
    return lines


def _count(n: int, noun: str) -> str:
    """'1 curator', '2 curators'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
