"""Proving a release is what was exported: ``verify_release(folder) -> Verification``.

The manifest holds the SHA-256 and size of every file and the content hash of the released
items; the items are written twice (``data/all.jsonl`` and their domain's file) and the
provenance says how each one's options were shuffled. A changed byte therefore shows three ways:
a file's hash, an item line that differs from its other copy, and an item that no longer matches
its provenance. Each problem names its file and, where it can, the item.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bagel_studio.core.domains import LETTERS
from bagel_studio.core.importers.signing import (
    Signature,
    SigningError,
    check_signature,
)
from bagel_studio.core.model import ItemContent
from bagel_studio.core.report import layout
from bagel_studio.core.report.layout import ITEM_FIELDS, SIGNATURE

CHUNK = 1 << 20


@dataclass(frozen=True)
class Problem:
    file: str
    message: str
    item_id: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        item = f" item {self.item_id}:" if self.item_id else ""
        return f"{where}:{item} {self.message}"


@dataclass
class Verification:
    folder: Path
    problems: list[Problem] = field(default_factory=list)
    files_checked: int = 0
    items_checked: int = 0
    signature: Signature | None = None  # what the manifest's signature says (None: not asked)

    @property
    def intact(self) -> bool:
        return not self.problems

    def add(
        self, file: str, message: str, item_id: str | None = None, line: int | None = None
    ) -> None:
        self.problems.append(Problem(file, message, item_id, line))

    @property
    def differing_files(self) -> list[str]:
        return sorted({p.file for p in self.problems})

    @property
    def differing_items(self) -> list[str]:
        return sorted({p.item_id for p in self.problems if p.item_id})


def is_release(folder: Path) -> bool:
    """True for a folder holding a BAGEL Studio release's manifest."""
    try:
        manifest = json.loads((folder / layout.MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("format") == layout.FORMAT_NAME


def release_without_manifest(path: Path) -> Path | None:
    """The release folder ``path`` is (or lies in) when that folder has lost its manifest: its
    items (``data/all.jsonl``) are there with what only a release holds beside them (its
    provenance, its report, its dataset card), ``manifest.json`` is not. Nothing then proves
    what it holds is what was exported."""
    for folder in [path, *path.parents][:3]:
        if (folder / layout.MANIFEST).exists() or not (folder / layout.ALL_ITEMS).is_file():
            continue
        if (folder / layout.PROVENANCE).is_file() or (folder / layout.REPORT).is_file():
            return folder
        card = folder / layout.README
        if card.is_file() and "BAGEL Studio" in card.read_text("utf-8", "replace")[:20_000]:
            return folder
    return None


def release_root(path: Path) -> Path | None:
    """The release folder ``path`` is (or lies in: ``data/all.jsonl``), if any."""
    for folder in [path, *path.parents][:3]:
        if folder.is_dir() and (folder / layout.MANIFEST).is_file() and is_release(folder):
            return folder
    return None


class NotARelease(ValueError):
    """A folder without a readable BAGEL Studio manifest: there is nothing to verify it against."""


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The release manifest of ``folder``; raises ``NotARelease`` saying why there is none."""
    path = Path(folder) / layout.MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NotARelease(f"no {layout.MANIFEST} in it") from None
    except OSError as exc:
        raise NotARelease(f"{layout.MANIFEST} cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise NotARelease(f"{layout.MANIFEST} is not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != layout.FORMAT_NAME:
        raise NotARelease(f"{layout.MANIFEST} is not a BAGEL Studio release manifest")
    return manifest


def verify_release(folder: str | Path, allowed_signers: Path | None = None) -> Verification:
    """Every way the release in ``folder`` differs from what its manifest says was exported
    (a manifest that cannot be read is the one problem then; ``read_manifest`` tells first),
    and whether its manifest's signature holds (``signing``: checked against
    ``allowed_signers`` when given, which then requires one)."""
    root = Path(folder)
    result = Verification(root)
    try:
        manifest = read_manifest(root)
    except NotARelease as exc:
        result.add(layout.MANIFEST, str(exc))
        return result
    try:
        result.signature = check_signature(root, allowed_signers)
    except SigningError as exc:
        result.add(SIGNATURE, f"cannot be checked: {exc}")
    else:
        if not result.signature.good:
            result.add(SIGNATURE, result.signature.problem)
    listed = manifest.get("files")
    files: dict[str, Any] = listed if isinstance(listed, dict) else {}
    _check_files(root, files, result)
    items = _read_items(root, layout.ALL_ITEMS, result)
    if items is not None:
        _check_domain_files(root, files, items, result)
        _check_provenance(root, items, manifest, result)
        _check_counts(items, manifest, result)
    return result


def _sha256(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def _check_files(root: Path, files: dict[str, Any], result: Verification) -> None:
    for relative, expected in sorted(files.items()):
        path = root / relative
        if not path.is_file():
            result.add(relative, "listed in the manifest but missing")
            continue
        try:
            sha, size = _sha256(path)
        except OSError as exc:
            result.add(relative, f"cannot be read ({exc.strerror or exc})")
            continue
        result.files_checked += 1
        if isinstance(expected, dict) and sha != expected.get("sha256"):
            was = expected.get("bytes")
            sizes = f" ({size:,} bytes, manifest says {was:,})" if was != size else ""
            result.add(relative, f"SHA-256 differs from the manifest{sizes}")
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if (
            path.is_file()
            and relative not in (layout.MANIFEST, SIGNATURE)
            and relative not in files
        ):
            result.add(relative, "not listed in the manifest (added after the export)")


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        yield from enumerate(handle, start=1)


def _read_items(
    root: Path, relative: str, result: Verification
) -> dict[str, tuple[int, str]] | None:
    """{id: (line number, line)} of an item file; problems for lines that are no release item."""
    path = root / relative
    if not path.is_file():
        return None
    items: dict[str, tuple[int, str]] = {}
    try:
        for number, line in _lines(path):
            row = _item(relative, number, line, result)
            if row is None:
                continue
            item_id = str(row["id"])
            if item_id in items:
                result.add(relative, "appears twice", item_id, number)
                continue
            items[item_id] = (number, line)
    except OSError as exc:
        result.add(relative, f"cannot be read ({exc.strerror or exc})")
        return None
    return items


def _item(relative: str, number: int, line: str, result: Verification) -> dict[str, Any] | None:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        result.add(relative, f"not valid JSON ({exc.msg})", line=number)
        return None
    if not isinstance(row, dict) or "id" not in row:
        result.add(relative, "not a release item (no id)", line=number)
        return None
    item_id = str(row["id"])
    unknown = sorted(set(row) - set(ITEM_FIELDS))
    if unknown:
        result.add(relative, f"unexpected fields {', '.join(unknown)}", item_id, number)
    letter, index = row.get("answer"), row.get("answer_index")
    options = row.get("options")
    if not (isinstance(index, int) and isinstance(options, list) and 0 <= index < len(options)):
        result.add(relative, f"answer_index {index!r} names no option", item_id, number)
    elif letter != LETTERS[index]:
        result.add(
            relative, f"answer {letter!r} and answer_index {index} disagree", item_id, number
        )
    return row


def _check_domain_files(
    root: Path, files: dict[str, Any], items: dict[str, tuple[int, str]], result: Verification
) -> None:
    """Every domain file's lines are copies of ``all.jsonl``'s, and every item is in one."""
    seen: set[str] = set()
    for relative in sorted(files):
        if not relative.startswith("data/") or relative == layout.ALL_ITEMS:
            continue
        domain_items = _read_items(root, relative, result)
        for item_id, (number, line) in (domain_items or {}).items():
            seen.add(item_id)
            if item_id not in items:
                result.add(relative, f"not in {layout.ALL_ITEMS}", item_id, number)
            elif items[item_id][1] != line:
                result.add(
                    relative,
                    f"differs from line {items[item_id][0]} of {layout.ALL_ITEMS}",
                    item_id,
                    number,
                )
            elif layout.domain_file(json.loads(line).get("domain", "")) != relative:
                result.add(relative, "is in another domain's file", item_id, number)
    for item_id, (number, _) in items.items():
        if item_id not in seen:
            result.add(layout.ALL_ITEMS, "in no domain file", item_id, number)


def _check_provenance(
    root: Path, items: dict[str, tuple[int, str]], manifest: dict[str, Any], result: Verification
) -> None:
    """Each item against how the provenance says it was shuffled; then the content hash."""
    path = root / layout.PROVENANCE
    if not path.is_file():
        return
    hashed: list[str] = []
    found: set[str] = set()
    for number, line in _lines(path):
        try:
            record = json.loads(line)
            item_id = str(record["id"])
            original = list(record["original_options"])
            order = [int(i) for i in record["permutation"]]
            options = [original[i] for i in order]
            answer = int(record["answer_index"])
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            result.add(layout.PROVENANCE, f"unreadable provenance line ({exc})", line=number)
            continue
        found.add(item_id)
        if item_id not in items:
            result.add(layout.PROVENANCE, f"names an item missing from {layout.ALL_ITEMS}", item_id)
            continue
        item_line, text = items[item_id]
        row = json.loads(text)
        if row.get("options") != options or row.get("answer_index") != answer:
            result.add(
                layout.ALL_ITEMS,
                "options or answer differ from the provenance's shuffle",
                item_id,
                item_line,
            )
        after = record.get("after")
        if isinstance(after, dict) and any(
            row.get(key) != after.get(key) for key in ("question", "dimension", "level")
        ):
            result.add(layout.ALL_ITEMS, "differs from the revised content", item_id, item_line)
        hashed.append(_hash_line(row, original, record.get("original_answer_index")))
    for item_id, (number, _) in items.items():
        if item_id not in found:
            result.add(layout.ALL_ITEMS, f"not in {layout.PROVENANCE}", item_id, number)
    content_hash = hashlib.sha256("".join(hashed).encode("utf-8")).hexdigest()
    if manifest.get("content_sha256") and content_hash != manifest["content_sha256"]:
        result.add(
            layout.MANIFEST, "content hash of the released items differs from the manifest's"
        )


def _hash_line(row: dict[str, Any], options: list[Any], answer: Any) -> str:
    """The item's line of the release content hash (``ExportPlan.content_hash``)."""
    content = ItemContent(
        str(row.get("question", "")),
        tuple(str(o) for o in options),
        answer if isinstance(answer, int) else None,
        row.get("dimension"),
        row.get("level"),
    )
    dumps = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode
    return (
        f'{{"content": {content.canonical_json()}, "domain": {dumps(row.get("domain"))}, '
        f'"id": {dumps(row.get("id"))}, "recording": {dumps(row.get("recording"))}}}\n'
    )


def _check_counts(
    items: dict[str, tuple[int, str]], manifest: dict[str, Any], result: Verification
) -> None:
    released = manifest.get("counts", {}).get("released", {})
    total = released.get("total") if isinstance(released, dict) else None
    if isinstance(total, int) and total != len(items):
        result.add(layout.ALL_ITEMS, f"holds {len(items):,} items, the manifest says {total:,}")
