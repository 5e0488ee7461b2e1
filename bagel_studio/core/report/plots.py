"""The report's plots as PNG bytes, identical from run to run and from machine to machine.

Bar charts (``bar_chart``, which the models' plots use too) and the release's four plots
(``release_plots``), drawn on the small canvas of ``raster.py`` with its built-in font (see there
why not matplotlib): nothing about the run, the machine or a user's settings reaches the pixels,
and the PNGs carry no metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import REJECT_REASONS
from bagel_studio.core.report.raster import BLACK, Canvas, colour, text_font, title_font
from bagel_studio.core.report.release import Release
from bagel_studio.core.report.tables import STATUS_ORDER

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
PALETTE = ["#1f6fb4", "#2e8b57", "#e6a23c", "#8e44ad", "#c0392b", "#555555"]
WIDTH = 800  # pixels, as the report's plots have always been
ROW = 28  # pixels per bar of a horizontal bar chart


def release_plots(release: Release) -> dict[str, bytes]:
    """{file name: PNG bytes} of the release's own plots (a ``Section`` brings its own)."""
    return {
        "gold_positions.png": _gold_positions(release),
        "counts.png": _counts(release),
        "review_outcomes.png": _outcomes(release),
        "reject_reasons.png": _reject_reasons(release),
    }


@dataclass(frozen=True)
class Series:
    """One colour of a chart: its name in the legend and a value per bar."""

    name: str
    colour: str
    values: Sequence[float]


def _gold_positions(release: Release) -> bytes:
    """Per domain, the share of gold answers at A-D before and after shuffling."""
    domains = release.domains or ["(no items)"]
    panel, left, top, plot_h = 250, 60, 50, 220
    canvas = Canvas(left + panel * len(domains) + 10, top + plot_h + 70)
    suptitle = "Gold positions per domain (dashed: 25%)"
    canvas.text(canvas.width // 2, 14, suptitle, font=title_font(), align="center")
    canvas.text(14, top + plot_h // 2, "gold answer at position (%)", align="center", vertical=True)
    for index, domain in enumerate(domains):
        x0, x1 = left + panel * index, left + panel * (index + 1) - 14
        balance = release.balance.get(domain)
        before = _shares(balance.before if balance else (0, 0, 0, 0))
        after = _shares(balance.after if balance else (0, 0, 0, 0))
        n = sum(balance.after) if balance else 0
        canvas.text((x0 + x1) // 2, top - 12, f"{domain} (n={n})", align="center")
        for share in range(0, 101, 20):
            y = top + plot_h - round(plot_h * share / 100)
            canvas.hline(x0 - 4, x0, y, BLACK)
            if index == 0:
                canvas.text(x0 - 7, y, str(share), align="right")
        slot = (x1 - x0) / len(LETTERS)
        for position, letter in enumerate(LETTERS):
            centre = x0 + slot * (position + 0.5)
            for offset, values, fill in ((-1, before, BEFORE), (0, after, AFTER)):
                height = round(plot_h * values[position] / 100)
                bar_x = round(centre + offset * slot * 0.4)
                bar_w = round(slot * 0.4)
                canvas.rect(bar_x, top + plot_h - height, bar_x + bar_w, top + plot_h, colour(fill))
            canvas.text(round(centre), top + plot_h + 6, letter, valign="top")
        canvas.hline(x0, x1, top + plot_h - round(plot_h * 0.25), BLACK, dash=4)
        canvas.frame(x0, top, x1, top + plot_h)
    legend = [Series("before shuffling", BEFORE, ()), Series("after shuffling", AFTER, ())]
    _legend(canvas, canvas.height - 18, legend)
    return canvas.png()


def _shares(counts: Sequence[int]) -> list[float]:
    whole = sum(counts)
    return [100 * c / whole if whole else 0.0 for c in counts]


def _counts(release: Release) -> bytes:
    labels: list[str] = []
    colours: list[str] = []
    values: list[int] = []
    for index, (domain, dims) in enumerate(release.dimension_counts().items()):
        for dimension, count in dims.items():
            labels.append(f"{domain}: {dimension}")
            values.append(count)
            colours.append(PALETTE[index % len(PALETTE)])
    series = [  # one series per bar, for its domain's colour
        Series("", c, [v if i == j else 0 for j, v in enumerate(values)])
        for i, c in enumerate(colours)
    ]
    title = f"Released items per domain and dimension (total {len(release.items)})"
    return bar_chart(title, labels, series, "released items", legend=False, totals=True)


def _outcomes(release: Release) -> bytes:
    domains = list(release.outcomes)
    series = [
        Series(status, STATUS_COLOURS.get(status, "#999999"), counts)
        for status in STATUS_ORDER
        if any(counts := [release.outcomes[d].get(status, 0) for d in domains])
    ]
    return bar_chart("Review outcomes per domain", domains, series, "items")


def _reject_reasons(release: Release) -> bytes:
    reasons = [r for r in REJECT_REASONS if any(r in by for by in release.reject_reasons.values())]
    reasons += sorted({r for by in release.reject_reasons.values() for r in by} - set(reasons))
    series = [
        Series(
            domain,
            PALETTE[
                release.domains.index(domain) % len(PALETTE)
            ],  # a domain's colour in every plot
            [by.get(r, 0) for r in reasons],
        )
        for domain, by in release.reject_reasons.items()
    ]
    labels = [REJECT_REASONS.get(r, r) for r in reasons]
    return bar_chart(
        "Reject reasons", labels, series, "rejected items", empty="No item was rejected"
    )


def bar_chart(
    title: str,
    labels: list[str],
    series: list[Series],
    xlabel: str,
    *,
    legend: bool = True,
    totals: bool = False,
    empty: str = "No items",
) -> bytes:
    """Horizontal bars, one per label from the top, each stacked from ``series``; ``totals``
    writes each bar's total after it."""
    font = text_font()
    sums = [sum(s.values[i] for s in series) for i in range(len(labels))]
    left = max([font.width(label) for label in labels] + [0]) + 20
    right = WIDTH - 20 - (font.width(f" {max(sums, default=0)}") if totals else 0)
    top = 40
    plot_h = ROW * max(len(labels), 3)
    rows_of_legend = (len(series) + 3) // 4 if legend and labels else 0
    canvas = Canvas(WIDTH, top + plot_h + 50 + 22 * rows_of_legend)
    canvas.text(WIDTH // 2, 18, title, font=title_font(), align="center")
    bottom = top + plot_h
    if not labels:
        canvas.frame(left, top, right, bottom)
        canvas.text((left + right) // 2, (top + bottom) // 2, empty, align="center")
        canvas.text((left + right) // 2, bottom + 26, xlabel, align="center", valign="top")
        return canvas.png()
    limit = 1.05 * max(sums) or 1  # a little room after the longest bar
    ticks = [tick for tick in _ticks(limit) if tick <= limit]
    scale = (right - left) / limit
    for index, label in enumerate(labels):
        centre = top + ROW * index + ROW // 2 + (plot_h - ROW * len(labels)) // 2
        canvas.text(left - 8, centre, label, align="right")
        start = 0.0
        for s in series:
            value = s.values[index]
            if value:
                x0, x1 = left + round(start * scale), left + round((start + value) * scale)
                canvas.rect(
                    x0,
                    centre - ROW * 2 // 5,
                    max(x1, x0 + 1),
                    centre + ROW * 2 // 5,
                    colour(s.colour),
                )
            start += value
        if totals:
            canvas.text(left + round(start * scale) + 4, centre, str(sums[index]))
    for tick in ticks:
        x = left + round(tick * scale)
        canvas.vline(x, bottom, bottom + 4, BLACK)
        canvas.text(x, bottom + 6, str(tick), align="center", valign="top")
    canvas.frame(left, top, right, bottom)
    canvas.text((left + right) // 2, bottom + 26, xlabel, align="center", valign="top")
    if legend:
        _legend(canvas, bottom + 56, series)
    return canvas.png()


def _ticks(largest: float) -> list[int]:
    """Round, whole-number ticks from 0 that cover ``largest`` in at most eight steps."""
    step = 1
    while largest / step > 8:
        for factor in (2, 2.5, 2):  # 1, 2, 5, 10, 20, 50, ...
            step = round(step * factor)
            if largest / step <= 8:
                break
    count = -(-int(largest) // step) if largest else 1
    return [step * i for i in range(count + 1)]


def _legend(canvas: Canvas, y: int, series: Sequence[Series]) -> None:
    """Coloured squares and names, centred, four to a row from ``y`` down."""
    font = text_font()
    for row in range(0, len(series), 4):
        entries = series[row : row + 4]
        widths = [24 + font.width(s.name) for s in entries]
        x = (canvas.width - sum(widths) - 20 * (len(entries) - 1)) // 2
        for s, width in zip(entries, widths, strict=True):
            canvas.rect(x, y - 5, x + 18, y + 5, colour(s.colour))
            canvas.text(x + 24, y, s.name)
            x += width + 20
        y += 22
