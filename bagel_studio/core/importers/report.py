"""What an import run brought in, refused and skipped: shown by the CLI and the desk."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from bagel_studio.core.domains import DOMAINS
from bagel_studio.core.store import Reject

EVIDENCE_KINDS = ("globi_records", "texts", "recordings", "audio_files")
EVIDENCE_LABELS = {  # plural; one of a kind drops the final "s" ("1 text")
    "globi_records": "GloBI records",
    "texts": "texts",
    "recordings": "recordings",
    "audio_files": "audio files",
}
# The rejects a report holds (its summary lists them); the project keeps every one, with its
# text up to its first MiB, written as the import meets them.
KEPT_REJECTS = 50
REPORT_RAW = 4096  # of a kept reject's text, the report holds this much


@dataclass
class ImportReport:
    """The outcome of one ``import_paths`` call (this run only; the project keeps the totals)."""

    added_by_domain: dict[str, int] = field(default_factory=dict)
    already_by_domain: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0
    # The first KEPT_REJECTS rejects of the run and how many there were: memory does not grow
    # with them (a file of 200,000 malformed lines). All are in the project, after
    # ``rejects_after`` (the id of its last reject before the run: one writer at a time).
    rejects: list[Reject] = field(default_factory=list)
    reject_count: int = 0
    rejects_after: int = 0
    generator_rejections: dict[str, dict[str, int]] = field(default_factory=dict)
    evidence: dict[str, int] = field(default_factory=lambda: dict.fromkeys(EVIDENCE_KINDS, 0))
    skipped_files: list[str] = field(default_factory=list)
    new_item_ids: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    # Of the ignored files, JSON found in a folder that holds no items, evidence or recording
    # metadata, with what it holds (``sniff.without_items``)
    passed_over: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Items whose full checks are due: the new ones, then earlier ones whose evidence arrived.
    check_item_ids: list[str] = field(default_factory=list)
    # Seconds taken: "import" (files, with structural checks) and "checks" (the other checks).
    timings: dict[str, float] = field(default_factory=dict)
    # Bytes of input read to hash and parse the files (each read once; a file passed over by
    # its stat is not read at all), besides the head of each file read to tell its format.
    bytes_read: int = 0

    @property
    def added(self) -> int:
        return sum(self.added_by_domain.values())

    @property
    def exit_status(self) -> int:
        """0 when everything came in, 1 when some input was rejected, 2 when a file was
        unreadable (the command-line contract)."""
        if self.unreadable:
            return 2
        return 1 if self.reject_count else 0

    def note_rejects(self, rejects: Iterable[Reject]) -> None:
        """Count ``rejects`` (written to the project by the caller), keeping the first few."""
        for reject in rejects:
            self.reject_count += 1
            if len(self.rejects) < KEPT_REJECTS:
                if len(reject.raw) > REPORT_RAW:
                    reject = replace(reject, raw=reject.raw[:REPORT_RAW])
                self.rejects.append(reject)

    def add_generator_rejection(self, domain: str, reason: str) -> None:
        by_reason = self.generator_rejections.setdefault(domain, {})
        by_reason[reason] = by_reason.get(reason, 0) + 1

    def summary_lines(self, reject_limit: int = KEPT_REJECTS) -> list[str]:
        """The report as lines of text: items per domain, evidence, generator rejections, files
        skipped, and the rejects as ``file:line: reason`` (at most ``reject_limit`` of them, and
        of the KEPT_REJECTS the report holds)."""
        lines: list[str] = []
        domains = [d for d in DOMAINS if d in self.added_by_domain or d in self.already_by_domain]
        if not domains:
            lines.append("Items: none")
        for domain in domains:
            added = self.added_by_domain.get(domain, 0)
            already = self.already_by_domain.get(domain, 0)
            lines.append(f"{domain}: {added:,} added, {already:,} already present")
        evidence = []
        for kind in EVIDENCE_KINDS:
            count = self.evidence.get(kind, 0)
            label = EVIDENCE_LABELS[kind]
            if count:
                evidence.append(f"{count:,} {label[:-1] if count == 1 else label}")
        if evidence:
            lines.append("Evidence: " + ", ".join(evidence))
        for domain, reasons in sorted(self.generator_rejections.items()):
            total = sum(reasons.values())
            parts = ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items()))
            lines.append(f"Generator rejections ({domain}, usable=false): {total} ({parts})")
        lines.extend(self.notes)
        for name in self.skipped_files[:10]:
            lines.append(f"Skipped {name}: already imported")
        if len(self.skipped_files) > 10:
            lines.append(f"Skipped {len(self.skipped_files) - 10} more files already imported")
        said = [n for n in self.ignored if n in self.passed_over]  # what they hold: first
        for name in [*said, *(n for n in self.ignored if n not in self.passed_over)][:10]:
            lines.append(f"Ignored {name}: {self.passed_over.get(name, 'not an input format')}")
        if len(self.ignored) > 10:
            lines.append(f"Ignored {len(self.ignored) - 10} more files that are not input formats")
        if self.timings:
            took = [
                f"{label} in {self.timings[key]:.2f} s"
                for key, label in (("import", "imported"), ("checks", "checked"))
                if key in self.timings
            ]
            lines.append(", ".join(took).capitalize())
        if self.reject_count:
            shown = self.rejects[:reject_limit]
            lines.append(f"Rejected {self.reject_count:,} line(s) (kept in the project):")
            lines.extend(f"  {reject}" for reject in shown)
            if self.reject_count > len(shown):
                lines.append(f"  ... and {self.reject_count - len(shown):,} more")
        return lines

    def to_json(self) -> dict[str, Any]:
        """The report as JSON: ``rejects`` holds the ones kept (the command line lists every
        one, read back from the project), ``reject_count`` how many there were."""
        return {
            "added_by_domain": self.added_by_domain,
            "already_by_domain": self.already_by_domain,
            "unchanged": self.unchanged,
            "evidence": self.evidence,
            "generator_rejections": self.generator_rejections,
            "rejects": [{"file": r.file, "line": r.line, "reason": r.reason} for r in self.rejects],
            "reject_count": self.reject_count,
            "skipped_files": self.skipped_files,
            "unreadable": self.unreadable,
            "ignored": self.ignored,
            "passed_over": self.passed_over,
            "files": self.files,
            "notes": self.notes,
            "timings": self.timings,
            "bytes_read": self.bytes_read,
            "exit_status": self.exit_status,
        }
