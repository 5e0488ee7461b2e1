"""``bagel-studio verify RELEASE_DIR``: prove a release is what was exported.

Exit status: 0 intact, 1 when something differs (every differing file and item is named),
2 for usage errors and a folder that is not a release (no readable BAGEL Studio manifest).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bagel_studio.core.cli import UsageError
from bagel_studio.core.commands.common import print_json

HELP = "check a release against its manifest: file hashes, item copies, shuffles"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "verify",
        help=HELP,
        description=(
            "Check a release folder written by `bagel-studio export`: every file's SHA-256 and"
            " size against manifest.json, files added since, every item of a domain file against"
            " its line in data/all.jsonl, each item's options and answer against the shuffle its"
            " provenance records, answer letters against answer_index, and the content hash;"
            " and manifest.json's signature (export --sign), saying which key made it and, with"
            " --allowed-signers, who. Prints every differing file and item."
        ),
        epilog=(
            "exit status: 0 intact, 1 something differs (each difference listed), 2 usage error"
            " or not a release (no readable BAGEL Studio manifest.json)"
        ),
    )
    parser.add_argument("release", metavar="RELEASE_DIR", help="the release folder")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--allowed-signers",
        metavar="FILE",
        help="the keys allowed to sign a release (OpenSSH's allowed-signers format, as git's"
        " gpg.ssh.allowedSignersFile: a principal such as an e-mail address, then a public key,"
        " a line each): say who signed manifest.json, and fail unless one of them did",
    )


def run(args: argparse.Namespace) -> int:
    from bagel_studio.core.importers.release import NotARelease, read_manifest, verify_release

    folder = Path(args.release)
    if not folder.is_dir():
        raise UsageError(f"{args.release}: no such folder")
    try:
        read_manifest(folder)
    except NotARelease as exc:
        raise UsageError(f"{args.release}: not a release that can be verified: {exc}") from None
    allowed = Path(args.allowed_signers) if args.allowed_signers else None
    if allowed is not None and not allowed.is_file():
        raise UsageError(f"--allowed-signers: {args.allowed_signers}: no such file")
    result = verify_release(folder, allowed)
    signature = result.signature
    if args.json:
        print_json(
            {
                "intact": result.intact,
                "signed": bool(signature and signature.present),
                "signed_by": signature.signer or None if signature else None,
                "signing_key": signature.key or None if signature else None,
                "files_checked": result.files_checked,
                "differing_files": result.differing_files,
                "differing_items": result.differing_items,
                "problems": [
                    {"file": p.file, "line": p.line, "item_id": p.item_id, "message": p.message}
                    for p in result.problems
                ],
            }
        )
    elif result.intact:
        signed = f"; {signature.describe()}" if signature is not None else ""
        sys.stdout.write(f"{args.release}: intact ({result.files_checked} files match){signed}\n")
    else:
        out = sys.stdout
        out.write(
            f"{args.release}: {len(result.problems)} difference(s) from its manifest in"
            f" {len(result.differing_files)} file(s), {len(result.differing_items)} item(s)\n"
        )
        for problem in result.problems:
            out.write(f"  {problem}\n")
    return 0 if result.intact else 1
