"""The release report's audit: the shortcuts a model could take through the release as written.

The heuristic baselines of ``core.audit`` run over the released items as released (shuffled
options, so the position baseline shows what the shuffle left), with their artifacts in words, and
the near-duplicates and cross-item leaks among the released items: one table, and one plot with a
panel per baseline against the 25% line. Deterministic like the rest of the report.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bagel_studio.core.audit import AuditReport
from bagel_studio.core.audit.baselines import (
    BASELINES,
    CHANCE,
    format_p,
    item_credits,
    table_of_credits,
)
from bagel_studio.core.audit.duplicates import (
    TokenSets,
    duplicate_clusters,
    group_keys,
    key_digests,
)
from bagel_studio.core.audit.items import AuditItem, subjects
from bagel_studio.core.audit.leaks import Leak, gold_phrase, leak_pairs
from bagel_studio.core.audit.words import phrase, stems
from bagel_studio.core.export.plan import ExportPlan, ReleasedItem
from bagel_studio.core.export.raster import BLACK, Canvas, colour, title_font
from bagel_studio.core.export.tables import markdown_table
from bagel_studio.core.model import ItemContent

PLOT = "audit_baselines.png"
BAR, ARTIFACT = "#1f6fb4", "#c0392b"
LISTED = 20  # clusters and leaks listed by id in the report (all are counted)


def audit_item(released: ReleasedItem) -> AuditItem:
    """A released item as the audit reads it: released content, released option order."""
    curated = released.content
    options = tuple([curated.options[i] for i in released.order])
    answer_index = released.answer_index
    content = ItemContent(curated.question, options, answer_index, curated.dimension, curated.level)
    item = released.item
    return AuditItem(
        item.id,
        item.domain,
        content.dimension or "(none)",
        content.question,
        options,
        answer_index,
        item.recording_id,
        subjects(item, content.question),
        content,
    )


def released_items(plan: ExportPlan) -> list[AuditItem]:
    """The released items as the audit reads them (all of them in memory: ``ReleaseAudit``
    audits a release without holding it)."""
    return [audit_item(released) for released in plan.items]


@dataclass(frozen=True)
class AuditFeatures:
    """What the release audit keeps of a batch of released items, in the batch's order: few
    numbers and short strings per item, and nothing that depends on the process that computed
    it (a worker process may; words travel as their stems)."""

    credit: dict[str, np.ndarray]  # baseline -> each item's credit (``item_credits``)
    gold: np.ndarray  # each item's released gold position
    domains: list[str]
    dimensions: list[str]
    vocabulary: list[str]  # the stems of the batch's word sets, sorted
    words: np.ndarray  # every item's word set (indexes into ``vocabulary``), one after another
    lengths: np.ndarray  # the size of each item's word set
    digests: bytes  # the 16-byte digests of the items' near-duplicate group keys
    positions: list[int]  # the item (in the batch) of each digest
    subjects: list[tuple[str, ...]]
    golds: list[str | None]  # gold phrases (``leaks.gold_phrase``), None: cannot leak
    answers: list[str | None]  # the gold answers as worded, where there is a gold phrase
    stems: list[str]  # the stems as phrases (``words.phrase``)


def audit_features(batch: Sequence[ReleasedItem]) -> AuditFeatures:
    return features_of([audit_item(released) for released in batch])


def features_of(items: Sequence[AuditItem]) -> AuditFeatures:
    """``audit_features`` of released items already read as the audit reads them (the release
    writer builds them from the stored rows, ``render``)."""
    credit = item_credits(items)
    local = TokenSets.of([item.question_words | item.gold_words for item in items])
    numbers, index = np.unique(local.tokens, return_inverse=True)
    found = stems(numbers.tolist())
    order = sorted(range(len(found)), key=found.__getitem__)
    rank = np.empty(len(found), dtype=np.int32)
    rank[order] = np.arange(len(found), dtype=np.int32)
    digests = bytearray()
    positions: list[int] = []
    golds: list[str | None] = []
    answers: list[str | None] = []
    for position, item in enumerate(items):
        for digest in key_digests(group_keys(item)):
            digests += digest
            positions.append(position)
        gold = gold_phrase(item.gold) if item.gold_words else None
        golds.append(gold)
        answers.append(None if gold is None else item.gold.strip())
    return AuditFeatures(
        credit,
        np.array([item.answer_index for item in items], dtype=np.int64),
        [item.domain for item in items],
        [item.dimension for item in items],
        [found[i] for i in order],
        rank[index.reshape(-1)] if len(found) else np.zeros(0, dtype=np.int32),
        local.lengths,
        bytes(digests),
        positions,
        [tuple(item.subjects) for item in items],
        golds,
        answers,
        [phrase(item.question) for item in items],
    )


class ReleaseAudit:
    """``audit_items`` of the released items, fed a batch at a time as the release is written.

    Of each item it keeps only what the audit's last steps need (``AuditFeatures``): the
    baselines' credits and the gold position (numbers), the word set of stem and gold (flat
    numpy arrays), the digests of its near-duplicate group keys, and for the leak search its
    subjects (numbered), its gold phrase and its stem as a phrase. Words are numbered here by
    their stems, finally by the rank of the stem among all the release's, so the near-duplicate
    search (MinHash of the numbers) sees the same numbers however the release was batched and
    whoever computed the features.
    ``report`` gives what ``audit_items`` gives.
    """

    def __init__(self) -> None:
        self._names: dict[str, str] = {}  # one string object per domain, dimension
        self.domains: list[str] = []
        self.dimensions: list[str] = []
        self.gold: list[np.ndarray] = []
        self.credit: dict[str, list[np.ndarray]] = {}
        self._vocabulary: dict[str, int] = {}
        self.words: list[TokenSets] = []
        self.digests = bytearray()
        self.positions = array("q")
        self._subject_numbers: dict[str, int] = {}
        self.subjects: list[tuple[int, ...]] = []
        self.golds: list[str | None] = []
        self.answers: list[str | None] = []
        self.stems: list[str] = []

    def __len__(self) -> int:
        return len(self.stems)

    def add(self, batch: Sequence[ReleasedItem]) -> None:
        self.merge(audit_features(batch))

    def merge(self, features: AuditFeatures) -> None:
        """Take in the next batch's features."""
        start = len(self.stems)
        for name, credit in features.credit.items():
            self.credit.setdefault(name, []).append(credit)
        self.gold.append(features.gold)
        vocabulary = self._vocabulary
        numbers = np.fromiter(
            (vocabulary.setdefault(s, len(vocabulary)) for s in features.vocabulary),
            dtype=np.int32,
            count=len(features.vocabulary),
        )
        self.words.append(TokenSets(numbers[features.words], features.lengths))
        names, subjects = self._names, self._subject_numbers
        self.domains += [names.setdefault(d, d) for d in features.domains]
        self.dimensions += [names.setdefault(d, d) for d in features.dimensions]
        self.digests += features.digests
        self.positions.extend([start + p for p in features.positions])
        self.subjects += [
            tuple([subjects.setdefault(s, len(subjects)) for s in about])
            for about in features.subjects
        ]
        self.golds += features.golds
        self.answers += features.answers
        self.stems += features.stems

    def _canonical(self, words: TokenSets) -> TokenSets:
        """``words`` with every stem numbered by its rank among all the stems of the release
        (the MinHash of the near-duplicate search then depends on the release alone: not on
        the batches, the workers, or what this process read before)."""
        found = list(self._vocabulary)
        rank = np.empty(len(found), dtype=np.int32)
        rank[sorted(range(len(found)), key=found.__getitem__)] = np.arange(
            len(found), dtype=np.int32
        )
        return TokenSets(rank[words.tokens], words.lengths)

    def report(self, ids: Sequence[str]) -> AuditReport:
        """The audit of everything added; ``ids``: the items' ids, in the order added. Each
        part is let go once used (the largest, the stems, first), so this is called once."""
        count = len(self)
        leaks = []
        for a, b in leak_pairs(self.subjects, self.golds, self.stems):
            answer = self.answers[b]
            assert answer is not None  # only an item with a gold phrase can be leaked
            leaks.append(Leak(ids[a], ids[b], answer))
        self.subjects, self.golds, self.answers, self.stems = [], [], [], []
        gold = np.concatenate(self.gold) if self.gold else np.zeros(0, dtype=np.int64)
        credit = {name: np.concatenate(parts) for name, parts in self.credit.items()}
        table = table_of_credits(self.domains, self.dimensions, gold, credit)
        self.gold, self.credit = [], {}
        words, self.words = self._canonical(TokenSets.joined(self.words)), []
        clusters = duplicate_clusters(words, bytes(self.digests), self.positions)
        duplicates = [[ids[i] for i in cluster] for cluster in clusters]
        return AuditReport(count, table, table.artifacts(), duplicates, leaks)


def release_audit(plan: ExportPlan) -> AuditReport:
    """The audit of the plan's released items, read a batch at a time (bounded memory)."""
    audit = ReleaseAudit()
    for batch in plan.items.batches():
        audit.add(batch)
    return audit.report([slot.item_id for slot in plan.items.slots])


def audit_markdown(report: AuditReport) -> str:
    """The report's audit section (without its heading)."""
    domains = list(report.baselines.by_domain[BASELINES[0]])
    if not domains:
        return "No items released: nothing to audit.\n"
    flagged = {(a.baseline, a.domain) for a in report.artifacts if a.dimension is None}
    rows = []
    for name in BASELINES:
        cells: list[object] = [f"`{name}`"]
        for domain in domains:
            score = report.baselines.by_domain[name][domain]
            text = f"{score.accuracy:.1%} ({format_p(score.p_value)})"
            cells.append(f"**{text}**" if (name, domain) in flagged else text)
        rows.append(cells)
    lines = [
        f"How often a rule that never reads the question finds the gold among the"
        f" {report.items:,} released items (chance {CHANCE:.0%}; one-sided binomial p-values;"
        f" artifacts in bold: p < 0.01 after Holm's correction). `bagel-studio audit` gives the"
        f" same per dimension.",
        "",
        markdown_table(["baseline", *domains], rows).rstrip("\n"),
        "",
        f"![Heuristic baselines per domain against chance]({PLOT})",
        "",
    ]
    if report.artifacts:
        lines.append("Artifacts:")
        lines.append("")
        lines.extend(f"- {artifact.sentence()}" for artifact in report.artifacts)
    else:
        lines.append("Artifacts: none.")
    lines.append("")
    lines.append(f"Near-duplicate clusters among the released items: {len(report.duplicates)}.")
    lines.append("")
    lines.extend(f"- {' = '.join(cluster)}" for cluster in report.duplicates[:LISTED])
    if len(report.duplicates) > LISTED:
        lines.append(f"- and {len(report.duplicates) - LISTED:,} more (`bagel-studio audit`)")
    lines.append("")
    lines.append(f"Cross-item leaks among the released items: {len(report.leaks)}.")
    lines.append("")
    lines.extend(
        f"- {leak.item_id} states the answer of {leak.leaked_item_id}"
        for leak in report.leaks[:LISTED]
    )
    if len(report.leaks) > LISTED:
        lines.append(f"- and {len(report.leaks) - LISTED:,} more (`bagel-studio audit`)")
    return "\n".join(lines) + "\n"


def audit_plot(report: AuditReport) -> bytes:
    """One panel per baseline: each domain's accuracy as a bar (red: an artifact), the 25%
    line dashed."""
    domains = list(report.baselines.by_domain[BASELINES[0]]) or ["(no items)"]
    flagged = {(a.baseline, a.domain) for a in report.artifacts if a.dimension is None}
    panel, left, top, plot_h = 190, 60, 50, 220
    canvas = Canvas(left + panel * len(BASELINES) + 10, top + plot_h + 56)
    title = "Heuristic baselines: accuracy per domain (dashed: chance, 25%; red: artifact)"
    canvas.text(canvas.width // 2, 14, title, font=title_font(), align="center")
    canvas.text(14, top + plot_h // 2, "gold found (%)", align="center", vertical=True)
    for index, name in enumerate(BASELINES):
        x0, x1 = left + panel * index, left + panel * (index + 1) - 14
        canvas.text((x0 + x1) // 2, top - 12, name, align="center")
        for share in range(0, 101, 20):
            y = top + plot_h - round(plot_h * share / 100)
            canvas.hline(x0 - 4, x0, y, BLACK)
            if index == 0:
                canvas.text(x0 - 7, y, str(share), align="right")
        slot = (x1 - x0) / len(domains)
        scores = report.baselines.by_domain[name]
        for position, domain in enumerate(domains):
            score = scores.get(domain)
            height = round(plot_h * score.accuracy) if score else 0
            bar_x = round(x0 + slot * (position + 0.2))
            fill = ARTIFACT if (name, domain) in flagged else BAR
            canvas.rect(
                bar_x, top + plot_h - height, round(bar_x + slot * 0.6), top + plot_h, colour(fill)
            )
            canvas.text(
                round(x0 + slot * (position + 0.5)),
                top + plot_h + 6,
                str(position + 1),
                align="center",
                valign="top",
            )
        canvas.hline(x0, x1, top + plot_h - round(plot_h * CHANCE), BLACK, dash=4)
        canvas.frame(x0, top, x1, top + plot_h)
    key = "   ".join(f"{position + 1}: {domain}" for position, domain in enumerate(domains))
    canvas.text(canvas.width // 2, top + plot_h + 36, key, align="center")
    return canvas.png()
