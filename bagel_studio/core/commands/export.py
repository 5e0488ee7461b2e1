"""``bagel-studio export PROJECT OUTDIR --seed N``: write the adjudicated release.

The export reads the project open read-only, so it runs even while a curator has the project open
in the desk. Afterwards it notes the export in the project's ``exports`` table when it can open the
project for writing; when another process holds the project it says so and leaves the table alone
(the release itself is complete either way, and its manifest says everything the row would).

The file is checked once per export: in full, beside the export (``Store.sound_beside``). Both
openings leave SQLite's quick check of the pages out (``check_pages=False``): the full check
covers the pages, and its verdict is what the second opening records under
(``Store.take_verdict``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import (
    TerminalProgress,
    add_wait_argument,
    open_project,
    print_json,
)
from bagel_studio.core.domains import LETTERS
from bagel_studio.core.export import (
    ExportBlockedError,
    ExportError,
    ExportResult,
    NothingToReleaseError,
    OutDirExistsError,
    export_release,
    record_export,
)
from bagel_studio.core.store import ProjectLockedError, Store, StoreError
from bagel_studio.core.store.integrity import Findings


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write the adjudicated release (shuffled, balanced, reproducible)",
        description=(
            "Write the accepted and revised items of PROJECT to OUTDIR: one JSONL file per domain"
            " and one with all items (options shuffled under the seed, gold positions balanced per"
            " domain), manifest.json, provenance.jsonl, a dataset card (README.md) and a report"
            " with plots. The same project and seed give byte-identical files. The folder appears"
            " complete or not at all. Exit status: 0 written, 1 blocked (items with a blocking"
            " flag or a NoDerivatives recording, listed), nothing accepted yet, or not written"
            " (the project changed while it was read), 2"
            " usage error (missing project, OUTDIR not empty without --force)."
        ),
    )
    parser.add_argument("project", metavar="PROJECT")
    parser.add_argument("out_dir", metavar="OUTDIR")
    parser.add_argument("--seed", type=int, required=True, help="shuffle seed (an integer)")
    parser.add_argument(
        "--force", action="store_true", help="replace OUTDIR if it exists and is not empty"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--sign",
        metavar="KEY",
        help="sign manifest.json with this SSH key (ssh-keygen -Y sign, namespace"
        " bagel-release, as git signs commits): manifest.json.sig beside it says who made the"
        " release (bagel-studio verify --allowed-signers)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        default=1,
        help="accepted for scripts written for earlier versions, which rendered a large release"
        " on N processes; the export runs on one, and the files are the same either way",
    )
    add_wait_argument(parser)


def run(args: argparse.Namespace) -> int:
    sign = _signer(args.sign)
    # the pages are checked by the export's full check (``Store.sound_beside``)
    store = open_project(args.project, read_only=True, check_pages=False)
    try:
        with TerminalProgress("exporting") as progress:
            result = export_release(
                store,
                args.out_dir,
                args.seed,
                force=args.force,
                progress=progress,
                sign=sign,
            )
    except OutDirExistsError as exc:
        raise UsageError(str(exc)) from exc
    except ExportBlockedError as exc:
        if args.json:
            print_json({"exported": False, "blocked": [_blocked_json(b) for b in exc.blocked]})
        sys.stderr.write(f"bagel-studio export: nothing written; {exc}\n")
        return 1
    except NothingToReleaseError as exc:
        if args.json:
            print_json({"exported": False, "blocked": [], "reason": str(exc)})
        sys.stderr.write(f"bagel-studio export: {exc}\n")
        return 1
    except ExportError as exc:  # the project changed while it was read
        if args.json:
            print_json({"exported": False, "blocked": [], "reason": str(exc)})
        sys.stderr.write(f"bagel-studio export: nothing written; {exc}\n")
        return 1
    except OSError as exc:
        raise UsageError(f"{args.out_dir}: {exc.strerror or exc}") from exc
    finally:
        store.close()
    checked = store.findings if store.pages_checked else None  # the full check's verdict
    recorded = _record(Path(args.project), result, args.wait, checked)
    if args.json:
        print_json(summary_json(result, recorded))
    else:
        sys.stdout.write(summary_text(result, recorded))
    return 0


def _signer(key: str | None) -> Callable[[bytes], bytes] | None:
    """What signs the manifest with ``--sign KEY`` (checked before anything is read)."""
    if key is None:
        return None
    # imported only to sign: the import package it lives in is not what an export needs
    from bagel_studio.core.importers.signing import SigningError, sign_manifest, ssh_keygen

    path = Path(key).expanduser()
    if not path.is_file():
        raise UsageError(f"--sign: {key}: no such key file")
    try:
        ssh_keygen()
    except SigningError as exc:
        raise UsageError(f"--sign: {exc}") from exc

    def sign(manifest: bytes) -> bytes:
        try:
            return sign_manifest(manifest, path)
        except SigningError as exc:
            raise UsageError(f"nothing written: {exc}") from exc

    return sign


def _record(
    project: Path, result: ExportResult, wait: float, checked: Findings | None
) -> str | None:
    """Note the export in the project; return why not when it could not be done. ``checked``:
    the export's full check of the file, taken for the check of the pages before the write."""
    try:
        with Store.open(
            project,
            create=False,
            owner="bagel-studio export",
            wait=wait,
            check_pages=checked is None,
        ) as store:
            if checked is not None:
                store.take_verdict(checked)
            record_export(store, result)
    except ProjectLockedError:
        return "the project is open for writing elsewhere"
    except (StoreError, OSError) as exc:
        return str(exc)
    return None


def _blocked_json(blocked: Any) -> dict[str, Any]:
    return {"item_id": blocked.item_id, "domain": blocked.domain, "reasons": list(blocked.reasons)}


def summary_json(result: ExportResult, not_recorded: str | None) -> dict[str, Any]:
    manifest = result.manifest
    return {
        "exported": True,
        "out_dir": str(result.out_dir),
        "seed": result.seed,
        "released": manifest["counts"]["released"],
        "left_out": {s: v["total"] for s, v in manifest["counts"]["left_out"].items()},
        "balance": manifest["balance"],
        "immovable_items": manifest["immovable_items"],
        "content_sha256": manifest["content_sha256"],
        "recorded_in_project": not_recorded is None,
    }


def summary_text(result: ExportResult, not_recorded: str | None) -> str:
    plan = result.plan
    lines = [f"Released {result.released} items (seed {result.seed}) to {result.out_dir}"]
    width = max((len(d) for d in plan.domains), default=6)
    for domain, count in plan.released_by_domain().items():
        lines.append(f"  {domain:<{width}}  {count:>6}")
    left_out = plan.left_out_totals()
    if left_out:
        lines.append("Left out: " + ", ".join(f"{n} {s}" for s, n in left_out.items()))
    else:
        lines.append("Left out: none")
    lines.append("")
    lines.append("Gold positions, before -> after shuffling:")
    lines.append(f"  {'':<{width}}  " + "  ".join(f"{x:>11}" for x in LETTERS) + "  max-min")
    for domain, b in plan.balance.items():
        cells = "  ".join(f"{f'{x} -> {y}':>11}" for x, y in zip(b.before, b.after, strict=True))
        lines.append(f"  {domain:<{width}}  {cells}  {b.spread:>7}")
    immovable = sum(b.immovable for b in plan.balance.values())
    if immovable:
        lines.append(f"({immovable} items keep their gold in place: a fixed-order option)")
    if plan.unknown_licence:
        lines.append("Recordings without a known licence: " + ", ".join(plan.unknown_licence))
    lines.append(f"Report: {result.report_path}")
    if not_recorded:
        lines.append(f"Not recorded in the project: {not_recorded}")
    return "\n".join(lines) + "\n"
