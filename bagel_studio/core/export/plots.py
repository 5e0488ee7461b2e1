"""The report's plots as PNG bytes, identical from run to run.

Drawn with matplotlib's object API on an Agg canvas (no pyplot, no GUI backend, nothing global
but the style, which is held under a lock while drawing), in matplotlib's default style so that a
user's ``matplotlibrc`` does not change the bytes, and saved without the "Software" text chunk.
matplotlib is imported here lazily: a CLI run that never reaches the report does not pay for it.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.export.plan import ExportPlan
from bagel_studio.core.export.tables import STATUS_ORDER
from bagel_studio.core.model import REJECT_REASONS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_LOCK = threading.Lock()
DPI = 100
BEFORE, AFTER = "#b0b0b0", "#1f6fb4"
STATUS_COLOURS = {
    "accepted": "#2e8b57",
    "revised": "#7cbf6b",
    "rejected": "#c0392b",
    "skipped": "#b0b0b0",
    "uncertain": "#e6a23c",
    "disputed": "#8e44ad",
    "unreviewed": "#dddddd",
    "unresolved": "#555555",
}


def render_plots(plan: ExportPlan) -> dict[str, bytes]:
    """{file name: PNG bytes} of every plot in the report."""
    drawings: dict[str, Callable[[Figure, ExportPlan], None]] = {
        "gold_positions.png": _gold_positions,
        "counts.png": _counts,
        "review_outcomes.png": _outcomes,
        "reject_reasons.png": _reject_reasons,
    }
    return {name: _render(draw, plan) for name, draw in drawings.items()}


def _render(draw: Callable[[Figure, ExportPlan], None], plan: ExportPlan) -> bytes:
    import matplotlib
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with (
        _LOCK,
        matplotlib.style.context("default"),
        matplotlib.rc_context({"font.family": "DejaVu Sans", "font.size": 9}),
    ):
        figure = Figure(dpi=DPI, layout="constrained")
        FigureCanvasAgg(figure)
        draw(figure, plan)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _gold_positions(figure: Figure, plan: ExportPlan) -> None:
    domains = plan.domains or ["(no items)"]
    figure.set_size_inches(2.6 * len(domains) + 0.6, 3.5)
    axes = figure.subplots(1, len(domains), sharey=True, squeeze=False)[0]
    for ax, domain in zip(axes, domains, strict=True):
        balance = plan.balance.get(domain)
        before = list(balance.before) if balance else [0, 0, 0, 0]
        after = list(balance.after) if balance else [0, 0, 0, 0]
        x = range(len(LETTERS))
        ax.bar([i - 0.2 for i in x], _shares(before), 0.4, color=BEFORE, label="before shuffling")
        ax.bar([i + 0.2 for i in x], _shares(after), 0.4, color=AFTER, label="after shuffling")
        ax.axhline(25, color="black", linewidth=0.8, linestyle="--")
        ax.set_xticks(list(x), LETTERS)
        ax.set_title(f"{domain} (n={sum(after)})")
        ax.set_ylim(0, 100)
    axes[0].set_ylabel("gold answer at position (%)")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=2, frameon=False)
    figure.suptitle("Gold positions per domain (dashed: 25%)")


def _shares(counts: Sequence[int]) -> list[float]:
    whole = sum(counts)
    return [100 * c / whole if whole else 0.0 for c in counts]


def _counts(figure: Figure, plan: ExportPlan) -> None:
    labels: list[str] = []
    values: list[int] = []
    colours: list[str] = []
    palette = ["#1f6fb4", "#2e8b57", "#e6a23c", "#8e44ad", "#c0392b", "#555555"]
    for index, (domain, dims) in enumerate(plan.dimension_counts().items()):
        for dimension, count in dims.items():
            labels.append(f"{domain}: {dimension}")
            values.append(count)
            colours.append(palette[index % len(palette)])
    figure.set_size_inches(8, 0.28 * max(len(labels), 4) + 1.2)
    ax = figure.subplots()
    positions = list(range(len(labels)))[::-1]
    ax.barh(positions, values, color=colours)
    ax.set_yticks(positions, labels)
    for y, value in zip(positions, values, strict=True):
        ax.text(value, y, f" {value}", va="center", fontsize=8)
    ax.set_xlabel("released items")
    _integer_ticks(ax)
    ax.set_title(f"Released items per domain and dimension (total {len(plan.items)})")
    _no_data(ax, not labels)


def _outcomes(figure: Figure, plan: ExportPlan) -> None:
    domains = list(plan.outcomes)
    figure.set_size_inches(8, 0.5 * max(len(domains), 2) + 1.6)
    ax = figure.subplots()
    positions = list(range(len(domains)))[::-1]
    left = [0] * len(domains)
    for status in STATUS_ORDER:
        counts = [plan.outcomes[d].get(status, 0) for d in domains]
        if not any(counts):
            continue
        ax.barh(
            positions, counts, left=left, color=STATUS_COLOURS.get(status, "#999999"), label=status
        )
        left = [a + b for a, b in zip(left, counts, strict=True)]
    ax.set_yticks(positions, domains)
    ax.set_xlabel("items")
    _integer_ticks(ax)
    ax.set_title("Review outcomes per domain")
    if domains:
        figure.legend(loc="outside lower center", ncol=4, frameon=False)
    _no_data(ax, not domains)


def _reject_reasons(figure: Figure, plan: ExportPlan) -> None:
    reasons = [r for r in REJECT_REASONS if any(r in by for by in plan.reject_reasons.values())]
    reasons += sorted({r for by in plan.reject_reasons.values() for r in by} - set(reasons))
    figure.set_size_inches(8, 0.35 * max(len(reasons), 3) + 1.6)
    ax = figure.subplots()
    positions = list(range(len(reasons)))[::-1]
    left = [0] * len(reasons)
    palette = ["#1f6fb4", "#2e8b57", "#e6a23c", "#8e44ad", "#c0392b", "#555555"]
    for domain, by in plan.reject_reasons.items():
        index = plan.domains.index(domain)  # the same colour for a domain in every plot
        counts = [by.get(r, 0) for r in reasons]
        ax.barh(
            positions, counts, 0.6, left=left, color=palette[index % len(palette)], label=domain
        )
        left = [a + b for a, b in zip(left, counts, strict=True)]
    ax.set_yticks(positions, [REJECT_REASONS.get(r, r) for r in reasons])
    ax.set_xlabel("rejected items")
    _integer_ticks(ax)
    ax.set_title("Reject reasons")
    ax.set_ylim(-0.6, max(len(reasons), 3) - 0.4)
    if reasons:
        figure.legend(loc="outside lower center", ncol=4, frameon=False)
    _no_data(ax, not reasons, "No item was rejected")


def _no_data(ax: Any, empty: bool, text: str = "No items") -> None:
    if empty:
        ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])


def _integer_ticks(ax: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
