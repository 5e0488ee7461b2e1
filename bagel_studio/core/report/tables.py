"""The release's tables as Markdown, shared by the dataset card and the report.

Layouts follow the BAGEL paper: items per domain and dimension (its Table 2), gold positions per
domain before and after shuffling (its Tables 9 and 10).
"""

from __future__ import annotations

from collections.abc import Sequence

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.model import REJECT_REASONS, Status
from bagel_studio.core.report.release import Release

STATUS_ORDER = [s.value for s in Status] + ["unresolved"]


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[object]], align_right_from: int = 1
) -> str:
    """A GitHub-flavoured Markdown table, columns from ``align_right_from`` on right-aligned."""
    rule = ["---" if i < align_right_from else "---:" for i in range(len(header))]
    lines = [_row(header), _row(rule)]
    lines += [_row([_cell(c) for c in row]) for row in rows]
    return "\n".join(lines) + "\n"


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def percent(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage with one decimal, or '-' when there is no whole."""
    return f"{100 * part / whole:.1f}%" if whole else "-"


def dimension_table(release: Release) -> str:
    """Released items per domain and dimension with each dimension's share of its domain, and
    domain subtotals with the domain's share of the release (the paper's Table 2)."""
    rows: list[list[object]] = []
    total = len(release.items)
    for domain, dims in release.dimension_counts().items():
        in_domain = sum(dims.values())
        for dimension, count in dims.items():
            rows.append([domain, dimension, count, percent(count, in_domain)])
        rows.append(
            [f"**{domain}**", "**all**", f"**{in_domain}**", f"**{percent(in_domain, total)}**"]
        )
    rows.append(["**Total**", "", f"**{total}**", "**100.0%**" if total else "-"])
    header = ["Domain", "Dimension", "Items", "Share in domain"]
    return markdown_table(header, rows, align_right_from=2)


# ASCII's printable characters: what is left of an ASCII text without them is unprintable
_PRINTABLE_ASCII = bytes(range(32, 127))


def word_count(texts: Sequence[str]) -> int:
    """The words of all ``texts`` (separated by whitespace: the lengths table's unit),
    ``len(" ".join(texts).split())`` without making the words. The joining spaces split no
    word. When the only whitespace is single spaces between words (every other whitespace
    character is unprintable), the words are the spaces plus one: counted at C speed instead of
    making some 30,000 strings a batch of released items (ASCII text is told printable by
    deleting its printable bytes, several times faster than ``str.isprintable``)."""
    joined = " ".join(texts)
    if "  " in joined or joined[:1] == " " or joined[-1:] == " ":
        return len(joined.split())
    if joined.isascii():
        printable = not joined.encode("ascii").translate(None, _PRINTABLE_ASCII)
    else:
        printable = joined.isprintable()
    return (joined.count(" ") + 1 if joined else 0) if printable else len(joined.split())


class LengthSums:
    """What the lengths table needs, summed as the released items stream past: per domain, the
    items, their options, and the words and characters of stems and options."""

    def __init__(self) -> None:
        self.by_domain: dict[str, list[int]] = {}

    def add(self, domain: str, question: str, options: Sequence[str]) -> None:
        sums = self.by_domain.get(domain)
        if sums is None:
            sums = self.by_domain[domain] = [0] * 6
        sums[0] += 1
        sums[1] += word_count([question])
        sums[2] += len(question)
        sums[3] += len(options)
        sums[4] += word_count(options)
        sums[5] += sum(map(len, options))

    def add_all(
        self, domain: str, questions: Sequence[str], options: Sequence[Sequence[str]]
    ) -> None:
        """``add`` of many items of one domain at once (each item's question and options)."""
        sums = self.by_domain.get(domain)
        if sums is None:
            sums = self.by_domain[domain] = [0] * 6
        every = [option for item in options for option in item]
        sums[0] += len(questions)
        sums[1] += word_count(questions)
        sums[2] += sum(map(len, questions))
        sums[3] += len(every)
        sums[4] += word_count(every)
        sums[5] += sum(map(len, every))

    def merge(self, other: LengthSums) -> None:
        for domain, sums in other.by_domain.items():
            mine = self.by_domain.setdefault(domain, [0] * 6)
            for index, value in enumerate(sums):
                mine[index] += value

    def total(self) -> list[int]:
        return [sum(column) for column in zip(*self.by_domain.values(), strict=True)] or [0] * 6


def length_table(release: Release, lengths: LengthSums) -> str:
    """Mean stem and option lengths per domain and overall, in words and in characters."""
    domains = [d for d in release.domains if d in lengths.by_domain]
    domains += [d for d in lengths.by_domain if d not in domains]
    rows: list[list[object]] = [
        [domain, *_mean_lengths(lengths.by_domain[domain])] for domain in domains
    ]
    rows.append(["**All**", *(f"**{cell}**" for cell in _mean_lengths(lengths.total()))])
    header = [
        "Domain",
        "Items",
        "Stem (words)",
        "Option (words)",
        "Stem (characters)",
        "Option (characters)",
    ]
    return markdown_table(header, rows)


def _mean_lengths(sums: Sequence[int]) -> list[str]:
    items, stem_words, stem_chars, options, option_words, option_chars = sums
    if not items:
        return ["0", "-", "-", "-", "-"]

    def mean(total: int, count: int) -> str:
        return f"{total / count:.1f}" if count else "-"

    return [
        str(items),
        mean(stem_words, items),
        mean(option_words, options),
        mean(stem_chars, items),
        mean(option_chars, options),
    ]


def position_table(release: Release, which: str) -> str:
    """Gold positions per domain, ``which`` = "before" or "after" shuffling."""
    rows: list[list[object]] = []
    totals = [0] * len(LETTERS)
    for domain, balance in release.balance.items():
        counts = list(balance.before if which == "before" else balance.after)
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        rows.append([domain, *_with_percent(counts), sum(counts)])
    rows.append(["**All**", *_with_percent(totals), sum(totals)])
    return markdown_table(["Domain", *LETTERS, "Items"], rows)


def movable_table(release: Release) -> str:
    """Gold positions after shuffling among the items whose gold could move, and the spread."""
    rows = [
        [domain, *b.movable_after, b.movable, b.immovable, b.spread]
        for domain, b in release.balance.items()
    ]
    header = ["Domain", *LETTERS, "Movable", "Fixed gold", "Max - min"]
    return markdown_table(header, rows)


def _with_percent(counts: Sequence[int]) -> list[str]:
    whole = sum(counts)
    return [f"{c} ({percent(c, whole)})" for c in counts]


def outcome_table(release: Release) -> str:
    """Review outcomes per domain, over every item of the project."""
    statuses = [s for s in STATUS_ORDER if any(s in o for o in release.outcomes.values())]
    rows: list[list[object]] = []
    for domain, outcome in release.outcomes.items():
        rows.append([domain, *(outcome.get(s, 0) for s in statuses), sum(outcome.values())])
    return markdown_table(["Domain", *statuses, "Items"], rows)


def reject_table(release: Release) -> str:
    """Rejected items per reason and domain."""
    domains = list(release.reject_reasons)
    known = list(REJECT_REASONS)
    reasons = sorted(
        {r for by in release.reject_reasons.values() for r in by},
        key=lambda r: (known.index(r) if r in known else len(known), r),
    )
    if not reasons:
        return "No item was rejected.\n"
    rows = [
        [REJECT_REASONS.get(r, r), *(release.reject_reasons[d].get(r, 0) for d in domains)]
        for r in reasons
    ]
    return markdown_table(["Reason", *domains], rows)


def left_out_table(release: Release) -> str:
    """Items that stay out of the release, per status and domain."""
    if not release.left_out:
        return "Every item of the project is released.\n"
    domains = release.domains
    rows = [
        [status, *(by.get(d, 0) for d in domains), sum(by.values())]
        for status, by in sorted(
            release.left_out.items(),
            key=lambda kv: STATUS_ORDER.index(kv[0]) if kv[0] in STATUS_ORDER else 99,
        )
    ]
    return markdown_table(["Status", *domains, "Items"], rows)
