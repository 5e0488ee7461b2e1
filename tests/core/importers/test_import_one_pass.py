"""Each input file is read once: hashed by the pass that parses it. An unchanged file is passed
over on a later import without being parsed, and without being read at all when its stat is
the one noted when it was read (``importers.reading``)."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from bagel_studio.core.importers import import_paths, reading
from bagel_studio.core.store import Store


@pytest.fixture
def store(project_path: Path) -> Iterator[Store]:
    with Store.open(project_path) as opened:
        yield opened


@pytest.fixture
def inputs(tmp_path: Path, data_dir: Path) -> Path:
    """The bundled data of every kind (items, GloBI, texts, Xeno-canto metadata and clips)."""
    folder = tmp_path / "data"
    shutil.copytree(data_dir, folder)
    return folder


def sizes(names: list[str]) -> int:
    return sum(Path(name).stat().st_size for name in names)


def test_every_file_is_read_once_and_not_parsed_again(
    store: Store, inputs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "SETTLED_NS", 10**18)  # as if just written: stats untrusted
    first = import_paths(store, [inputs], full_checks=False)
    assert len(first.files) > 15 and first.skipped_files == []
    assert first.bytes_read == sizes(first.files)  # not twice: hashed as parsed
    imported = {i["name"]: i for i in store.imports.all()}
    csv_import = imported[str(inputs / "xeno_canto" / "recordings.csv")]
    assert csv_import["sha256"] and csv_import["summary"]["recordings"] == 9

    # Their stats not trusted (see reading.SETTLED_NS), the files are hashed, not parsed.
    again = import_paths(store, [inputs], full_checks=False)
    assert again.files == [] and sorted(again.skipped_files) == sorted(first.files)
    assert again.bytes_read == sizes(first.files)
    assert len(store.imports.all()) == len(first.files)


def test_a_file_with_the_stat_it_was_read_with_is_not_read(
    store: Store, inputs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "SETTLED_NS", 0)  # as if the files had been written long ago
    items = inputs / "items" / "paper_examples.jsonl"
    first = import_paths(store, [inputs], full_checks=False)
    again = import_paths(store, [inputs], full_checks=False)
    assert again.bytes_read == 0 and sorted(again.skipped_files) == sorted(first.files)

    copy = tmp_path / "copy.jsonl"  # the same content elsewhere: hashed once, then known
    shutil.copy(items, copy)
    copied = import_paths(store, [copy], full_checks=False)
    assert copied.skipped_files == [str(copy)] and copied.bytes_read == copy.stat().st_size
    assert import_paths(store, [copy], full_checks=False).bytes_read == 0

    data = items.read_bytes()  # the same size, another content, its times set back
    stat = items.stat()
    items.write_bytes(data.replace(b"Which", b"WHICH", 1))
    os.utime(items, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    changed = import_paths(store, [items], full_checks=False)
    assert changed.files == [str(items)] and changed.rejects != []  # read, and contradicting
    assert changed.bytes_read == 2 * len(data)  # a size seen before: hashed, then parsed


def test_a_file_of_a_new_size_is_parsed_and_hashed_in_one_pass(
    store: Store, tmp_path: Path, data_dir: Path
) -> None:
    source = (data_dir / "items" / "paper_examples.jsonl").read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_text("".join(lines[:5]), encoding="utf-8")
    two.write_text("".join(lines[5:]), encoding="utf-8")
    report = import_paths(store, [one, two], full_checks=False)
    assert report.added == len(lines)
    assert report.bytes_read == one.stat().st_size + two.stat().st_size
    hashes = {i["name"]: i["sha256"] for i in store.imports.all()}
    assert hashes[str(one)] == hashlib.sha256(one.read_bytes()).hexdigest()
    assert hashes[str(two)] == hashlib.sha256(two.read_bytes()).hexdigest()
