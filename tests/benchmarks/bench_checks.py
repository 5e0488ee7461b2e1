"""Precision and recall of every check on the labeled corpus (``tests/data/check_corpus``).

Run: .venv/bin/python tests/benchmarks/bench_checks.py [--split SPLIT|all]
         [--show CHECK ...] [--json OUT]

Each split is built into its own project as a curator's would be: ``bagel-studio import`` of the
split's folder (items, GloBI tables, texts, recordings), two reference models asked every item
closed-book and from the options alone (``evaluate``, ``evaluate --options-only``) and a judge
asked the items the truth file scripts one for (``judge``), all against a scripted
OpenAI-compatible server that answers as the truth file says; curators' blind answers recorded
through ``operations.decide``; then ``audit`` and ``check --json``, whose flags are scored.

Per check: planted (items whose truth says it should raise the check), found (of those, flagged),
recall, false alarms (items flagged that should not be: neither in ``raise`` nor ``allow``) and
precision. Overall: flawed items with at least one correct flag, and clean and hard-clean items
with a warning-level flag they should not have. The numbers are a benchmark, not a test: the
corpus's consistency is what ``tests/core/checks/test_check_corpus.py`` asserts.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bagel_studio.core import operations  # noqa: E402
from bagel_studio.core.checks import CHECKS  # noqa: E402
from bagel_studio.core.cli import run  # noqa: E402
from bagel_studio.core.model import Decision  # noqa: E402
from bagel_studio.core.store import Store  # noqa: E402
from tests.support.check_corpus import (  # noqa: E402
    JUDGE_MODEL,
    KINDS,
    READ_SPLITS,
    REFERENCE_MODELS,
    SPLITS,
    Asked,
    CorpusServer,
    Truth,
    load_truth,
    readme_severities,
    split_dir,
)

KEY_ENV = "BAGEL_CHECK_CORPUS_KEY"  # the scripted server takes any key


@dataclass
class Scored:
    """One split's flags against its truth."""

    split: str
    truths: dict[str, Truth]
    flags: dict[str, dict[str, dict[str, Any]]]  # item -> check -> the flag as check --json
    missing: list[str] = field(default_factory=list)  # truth items the import did not make
    unknown: list[str] = field(default_factory=list)  # imported items the truth does not name
    seconds: float = 0.0


def quiet_run(argv: list[str]) -> tuple[int, str]:
    """Run a ``bagel-studio`` command in this process; its exit status and standard output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = run(argv)
    return status, out.getvalue()


def asked_items(project: Path) -> list[Asked]:
    with Store.open(project, create=False, read_only=True) as store:
        return [
            Asked(
                item.id,
                item.content.question,
                item.content.options,
                item.content.options[item.content.answer_index]
                if item.content.answer_index is not None
                and 0 <= item.content.answer_index < len(item.content.options)
                else None,
            )
            for item in store.items.iterate()
        ]


def record_blind_answers(project: Path, truths: dict[str, Truth], items: list[Asked]) -> None:
    """Each scripted blind answer, as the desk records it: the curator's decision with the
    option they chose before the gold was shown."""
    by_id = {item.id: item for item in items}
    with Store.open(project, create=False, owner="check corpus") as store:
        for truth in truths.values():
            item = by_id.get(truth.id)
            for blind in truth.script.get("blind", ()):
                if item is None or blind["answer"] not in item.options:
                    continue
                operations.decide(
                    store,
                    truth.id,
                    blind["curator"],
                    Decision(blind.get("decision", "uncertain")),
                    blind_answer=item.options.index(blind["answer"]),
                )


def build_and_check(split: str, truths: dict[str, Truth], folder: Path) -> Scored:
    start = time.perf_counter()
    project = folder / f"{split}.bagel"
    quiet_run(["import", str(project), str(split_dir(split)), "--wait", "60"])
    items = asked_items(project)
    os.environ.setdefault(KEY_ENV, "corpus")
    with CorpusServer(items, truths) as server:
        common = ["--base-url", server.url, "--api-key-env", KEY_ENV, "--wait", "60"]
        for model in REFERENCE_MODELS:
            quiet_run(["evaluate", str(project), "--model", model, *common])
            quiet_run(["evaluate", str(project), "--model", model, "--options-only", *common])
        judged = [t.id for t in truths.values() if "judge" in t.script]
        if judged:
            quiet_run(["judge", str(project), *judged, "--model", JUDGE_MODEL, *common])
    record_blind_answers(project, truths, items)
    quiet_run(["audit", str(project), "--wait", "60"])
    _, listing = quiet_run(["check", str(project), "--json", "--wait", "60"])
    flags: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for flag in json.loads(listing or "[]"):
        flags[flag["item_id"]][flag["check"]] = flag
    imported = {item.id for item in items}
    return Scored(
        split,
        truths,
        dict(flags),
        missing=sorted(set(truths) - imported),
        unknown=sorted(imported - set(truths)),
        seconds=time.perf_counter() - start,
    )


# -- scoring -----------------------------------------------------------------------------------


def severities(scored: list[Scored]) -> dict[str, str]:
    """Each check's severity as its flags carry it (the README's where none was raised)."""
    found = readme_severities()
    for s in scored:
        for by_check in s.flags.values():
            for check, flag in by_check.items():
                found[check] = flag["severity"]
    return found


def per_check(s: Scored) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {c: Counter() for c in CHECKS}
    for item_id, truth in s.truths.items():
        flagged = set(s.flags.get(item_id, {}))
        for check in CHECKS:
            planted, hit = check in truth.raise_, check in flagged
            table[check]["planted"] += planted
            table[check]["found"] += planted and hit
            table[check]["false"] += hit and not planted and check not in truth.allow
    return table


def ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "  -"


def report(s: Scored, severity: dict[str, str]) -> list[str]:
    kinds = Counter(t.kind for t in s.truths.values())
    lines = [
        f"== {s.split}: {len(s.truths)} items ("
        + ", ".join(f"{kinds[k]} {k}" for k in KINDS)
        + f"), built and checked in {s.seconds:.0f} s",
    ]
    if s.missing:
        lines.append(f"   NOT IMPORTED ({len(s.missing)}): {', '.join(s.missing[:8])}")
    if s.unknown:
        lines.append(f"   NOT IN THE TRUTH FILE ({len(s.unknown)}): {', '.join(s.unknown[:8])}")
    header = f"{'check':<28}{'severity':<10}{'planted':>8}{'found':>7}{'recall':>8}"
    lines.append(header + f"{'false alarms':>14}{'precision':>11}")
    for check, row in per_check(s).items():
        lines.append(
            f"{check:<28}{severity.get(check, '?'):<10}{row['planted']:>8}{row['found']:>7}"
            f"{ratio(row['found'], row['planted']):>8}{row['false']:>14}"
            f"{ratio(row['found'], row['found'] + row['false']):>11}"
        )
    flawed = [t for t in s.truths.values() if t.kind == "flawed"]
    caught = sum(bool(set(s.flags.get(t.id, {})) & t.raise_) for t in flawed)
    lines.append(
        f"flawed items with at least one correct flag: {caught}/{len(flawed)}"
        f" ({ratio(caught, len(flawed))})"
    )
    for kinds_counted in (("clean",), ("hard-clean",), ("clean", "hard-clean")):
        group = [t for t in s.truths.values() if t.kind in kinds_counted]
        warned = sum(bool(false_warnings(s, t, severity)) for t in group)
        lines.append(
            f"{' + '.join(kinds_counted)} items with a warning they should not have: "
            f"{warned}/{len(group)} ({ratio(warned, len(group))})"
        )
    return lines


def false_warnings(s: Scored, truth: Truth, severity: dict[str, str]) -> list[str]:
    return [
        check
        for check in s.flags.get(truth.id, {})
        if severity.get(check) == "warning"
        and check not in truth.raise_
        and check not in truth.allow
    ]


def details(s: Scored, checks: list[str]) -> list[str]:
    """The misses and false alarms of ``checks``, with the flags' messages."""
    lines = []
    for check in checks:
        lines.append(f"-- {s.split} / {check}")
        for item_id, truth in s.truths.items():
            flag = s.flags.get(item_id, {}).get(check)
            if check in truth.raise_ and flag is None:
                lines.append(f"   missed       {item_id}: {truth.note}")
            elif flag is not None and check not in truth.raise_ and check not in truth.allow:
                lines.append(f"   false alarm  {item_id} ({truth.kind}): {flag['message']}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--split",
        choices=(*SPLITS, "all"),
        default="all",
        help=f"'all': the parts already read ({', '.join(READ_SPLITS)}); an unseen part only "
        "when named",
    )
    parser.add_argument(
        "--show",
        nargs="+",
        default=[],
        metavar="CHECK",
        help="list the misses and false alarms of these checks ('all': every one)",
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the flags and scores")
    args = parser.parse_args()
    truths = load_truth()
    splits = READ_SPLITS if args.split == "all" else (args.split,)
    print(f"load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    scored = []
    with tempfile.TemporaryDirectory() as folder:
        for split in splits:
            mine = {i: t for i, t in truths.items() if t.split == split}
            scored.append(build_and_check(split, mine, Path(folder)))
    severity = severities(scored)
    shown = list(CHECKS) if args.show == ["all"] else args.show
    for s in scored:
        print("\n".join(report(s, severity)))
        if shown:
            print("\n".join(details(s, shown)))
        print()
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    s.split: {"per_check": per_check(s), "flags": s.flags, "missing": s.missing}
                    for s in scored
                },
                indent=1,
            ),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
