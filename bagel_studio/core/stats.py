"""Project statistics: what is in the project and how far its review has come."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from bagel_studio.core.domains import DOMAINS, LETTERS
from bagel_studio.core.store import Store


def _domain_order(domains: set[str]) -> list[str]:
    known = [d for d in DOMAINS if d in domains]
    return known + sorted(domains - set(known))


def project_stats(store: Store) -> dict[str, Any]:
    """Counts per domain x dimension, status and level; rejects; gold positions per domain."""
    rows = store.items.stat_rows()
    by_domain = Counter(r[0] for r in rows)
    domains = _domain_order(set(by_domain))
    by_dimension: dict[str, dict[str, int]] = {d: {} for d in domains}
    gold: dict[str, dict[str, int]] = {d: dict.fromkeys(LETTERS, 0) for d in domains}
    no_gold: Counter[str] = Counter()
    for domain, dimension, _level, _status, answer in rows:
        label = dimension or "(none)"
        by_dimension[domain][label] = by_dimension[domain].get(label, 0) + 1
        if answer is not None and 0 <= answer < len(LETTERS):
            gold[domain][LETTERS[answer]] += 1
        else:
            no_gold[domain] += 1
    reviewed, _total = store.reviews.progress()
    return {
        "items": len(rows),
        "by_domain": {d: by_domain[d] for d in domains},
        "by_domain_dimension": {d: dict(sorted(v.items())) for d, v in by_dimension.items()},
        "by_status": dict(sorted(Counter(r[3] for r in rows).items())),
        "by_level": dict(sorted(Counter(r[2] or "(none)" for r in rows).items())),
        "reviewed": reviewed,
        "rejected": store.imports.reject_count(),
        "generator_rejections": store.imports.generator_rejection_counts(),
        "gold_positions": gold,
        "no_valid_gold": dict(no_gold),
        "flags": store.flags.counts(),
        "evidence": {
            "globi_records": store.evidence.globi_record_count(),
            "texts": store.evidence.text_count(),
            "recordings": len(store.evidence.recordings()),
        },
        "curators": store.reviews.curators(),
        **_model_stats(store),
    }


def reject_listing(store: Store, match: str | None = None) -> Iterator[tuple[str, int, str]]:
    """(file, line, reason) of every rejected input line kept in the project whose file or
    reason holds ``match``: file by file, in the order the files were imported, each by line
    (what the desk's Rejected lines lists, and ``stats --rejects`` prints)."""
    for file, _count in store.imports.reject_files(match):
        for _id, line, reason in store.imports.rejects_of_file(file, match):
            yield file, line, reason


def reject_summary(files: int, lines: int, match: str | None = None) -> str:
    """'34 rejected lines in 4 files' (with what they match)."""
    said = f"{lines:,} rejected line{'s' if lines != 1 else ''} in {files:,} file"
    said += "s" if files != 1 else ""
    return said + (f" matching {match!r}" if match else "")


def _model_stats(store: Store) -> dict[str, Any]:
    """``models`` (per run: a profile in one order; answered, invalid, strict and lenient
    accuracy, letters) and ``levels``."""
    from bagel_studio.core.llm.metrics import levels_stats, models_stats  # lazy

    return {"models": models_stats(store), "levels": levels_stats(store)}


def format_stats(stats: dict[str, Any]) -> list[str]:
    """The statistics as aligned text lines for the terminal."""
    lines = [
        f"{stats['items']} items, {stats['reviewed']} reviewed, "
        f"{stats['rejected']} input lines rejected"
    ]
    lines.append("")
    lines.append("Domain x dimension:")
    for domain, dims in stats["by_domain_dimension"].items():
        lines.append(f"  {domain} ({stats['by_domain'][domain]})")
        lines.extend(f"    {count:6d}  {dim}" for dim, count in dims.items())
    lines.append("")
    lines.append("Status:  " + ", ".join(f"{k} {v}" for k, v in stats["by_status"].items()))
    lines.append("Level:   " + ", ".join(f"{k} {v}" for k, v in stats["by_level"].items()))
    lines.append("")
    lines.append(f"  {'Gold positions':<18}" + "".join(f"{letter:>7}" for letter in LETTERS))
    for domain, counts in stats["gold_positions"].items():
        cells = "".join(f"{counts[letter]:7d}" for letter in LETTERS)
        lines.append(f"  {domain:<18}{cells}")
    if stats["generator_rejections"]:
        lines.append("")
        lines.append("Generator rejections (usable: false):")
        for domain, reasons in stats["generator_rejections"].items():
            lines.extend(f"  {domain}: {reason} {count}" for reason, count in reasons.items())
    if stats["flags"]:
        lines.append("")
        lines.append("Flags: " + ", ".join(f"{k} {v}" for k, v in stats["flags"].items()))
    for name, model in stats.get("models", {}).items():
        from bagel_studio.core.llm.metrics import letters_text  # lazy: the LLM part

        strict, lenient = model["strict_accuracy"].get("overall"), model["accuracy"].get("overall")
        letters = {x: sum(d.get(x, 0) for d in model["letters"].values()) for x in LETTERS}
        lines.append(
            f"Model {name} ({model['order']}): {model['answered']} answered, "
            f"{model['invalid']} invalid, accuracy strict {_share(strict)}, lenient "
            f"{_share(lenient)}; letters {letters_text(letters)}"
        )
        if model["no_gold"]:
            lines.append(f"  {model['no_gold']} answered items without a valid gold: left out "
                         "of the accuracy")  # fmt: skip
        if model.get("note"):
            lines.append(f"  {model['note']}")
    evidence = stats["evidence"]
    lines.append("")
    lines.append(
        f"Evidence: {evidence['globi_records']} GloBI records, {evidence['texts']} texts, "
        f"{evidence['recordings']} recordings"
    )
    return lines


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"
