"""The report's Table 2 gives each dimension's share of its domain, and a table gives the mean
stem and option lengths per domain; both are checked against the released rows themselves."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bagel_studio.core.export import export_release
from bagel_studio.core.store import Store
from tests.core.export.export_support import read_jsonl


def _report(paper_store: Store, out: Path) -> tuple[str, list[dict]]:
    export_release(paper_store, out, seed=5)
    report = (out / "report" / "report.md").read_text(encoding="utf-8")
    return report, read_jsonl(out / "data" / "all.jsonl")


def test_table_2_shares_in_domain(paper_store: Store, tmp_path: Path) -> None:
    report, rows = _report(paper_store, tmp_path / "out")
    assert "| Domain | Dimension | Items | Share in domain |" in report
    per_domain = Counter(r["domain"] for r in rows)
    per_dimension = Counter((r["domain"], r["dimension"]) for r in rows)
    for (domain, dimension), count in per_dimension.items():
        share = f"{100 * count / per_domain[domain]:.1f}%"
        assert f"| {domain} | {dimension} | {count} | {share} |" in report
    for domain, count in per_domain.items():
        share = f"{100 * count / len(rows):.1f}%"
        assert f"| **{domain}** | **all** | **{count}** | **{share}** |" in report


def test_mean_stem_and_option_lengths(paper_store: Store, tmp_path: Path) -> None:
    report, rows = _report(paper_store, tmp_path / "out")
    section = report.split("## Stem and option lengths")[1].split("\n## ")[0]

    def means(chosen: list[dict]) -> list[str]:
        stems = [r["question"] for r in chosen]
        options = [o for r in chosen for o in r["options"]]
        return [
            str(len(chosen)),
            f"{sum(len(s.split()) for s in stems) / len(stems):.1f}",
            f"{sum(len(o.split()) for o in options) / len(options):.1f}",
            f"{sum(len(s) for s in stems) / len(stems):.1f}",
            f"{sum(len(o) for o in options) / len(options):.1f}",
        ]

    for domain in sorted({r["domain"] for r in rows}):
        cells = means([r for r in rows if r["domain"] == domain])
        assert f"| {domain} | " + " | ".join(cells) + " |" in section
    overall = means(rows)
    assert "| **All** | " + " | ".join(f"**{c}**" for c in overall) + " |" in section
    assert float(overall[1]) > 3  # real stems, not empty ones
