"""``bagel-studio verify``: an exported release proves itself; one changed byte is named."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.export import export_release
from bagel_studio.core.importers.release import verify_release
from bagel_studio.core.store import Store
from tests.core.export.export_support import decide_all, new_project, paper_items


@pytest.fixture
def release(tmp_path: Path, data_dir: Path) -> Path:
    project = tmp_path / "paper.bagel"
    with new_project(project, paper_items(data_dir)) as store:
        decide_all(store, store.items.ids())
        export_release(store, tmp_path / "release", seed=7)
    return tmp_path / "release"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def _rewrite_manifest_hash(release: Path, relative: str) -> None:
    """What a careful forger does: also fix the file's hash in the manifest."""
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    data = (release / relative).read_bytes()
    manifest["files"][relative] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    (release / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_an_exported_release_is_intact(release: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["verify", str(release)]) == 0
    assert "intact" in capsys.readouterr().out
    assert verify_release(release).files_checked >= 5


def test_one_changed_byte_names_the_file_and_the_item(
    release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = release / "data" / "all.jsonl"
    lines = _lines(path)
    row = json.loads(lines[3])
    lines[3] = lines[3].replace(row["question"][:4], row["question"][:3] + "x", 1)
    path.write_text("".join(lines), encoding="utf-8")
    assert run(["verify", str(release)]) == 1
    out = capsys.readouterr().out
    assert "data/all.jsonl: SHA-256 differs from the manifest" in out
    assert f"item {row['id']}" in out
    result = verify_release(release)
    assert result.differing_items == [row["id"]]


def test_letter_and_index_that_disagree_are_named_even_with_hashes_rewritten(
    release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    changed: str | None = None
    for relative in ("data/all.jsonl", "data/wikipedia.jsonl"):
        path = release / relative
        lines = _lines(path)
        row = json.loads(lines[0])
        changed = row["id"]
        wrong = "ABCD"[(row["answer_index"] + 1) % 4]
        lines[0] = lines[0].replace(f'"answer": "{row["answer"]}"', f'"answer": "{wrong}"')
        path.write_text("".join(lines), encoding="utf-8")
        _rewrite_manifest_hash(release, relative)
    assert run(["verify", str(release), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["differing_items"] == [changed]
    assert any("disagree" in p["message"] for p in result["problems"])


def test_a_domain_file_that_contradicts_all_jsonl_is_reported(release: Path) -> None:
    path = release / "data" / "wikipedia.jsonl"
    lines = _lines(path)
    row = json.loads(lines[1])
    row["options"][0], row["options"][1] = row["options"][1], row["options"][0]
    lines[1] = json.dumps(row, ensure_ascii=False) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    _rewrite_manifest_hash(release, "data/wikipedia.jsonl")
    result = verify_release(release)
    assert result.differing_files == ["data/wikipedia.jsonl"]
    assert result.differing_items == [row["id"]]
    assert "differs from line" in str(result.problems[0])


def test_missing_and_added_files(release: Path) -> None:
    (release / "report" / "report.md").unlink()
    (release / "data" / "extra.jsonl").write_text("{}\n", encoding="utf-8")
    messages = [str(p) for p in verify_release(release).problems]
    assert "report/report.md: listed in the manifest but missing" in messages
    assert any(m.startswith("data/extra.jsonl: not listed") for m in messages)


def test_import_verifies_a_release_first(
    release: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = release / "data" / "all.jsonl"
    lines = _lines(path)
    row = json.loads(lines[0])
    gold = row["options"][row["answer_index"]]
    lines[0] = lines[0].replace(json.dumps(gold, ensure_ascii=False), '"Something else"', 1)
    path.write_text("".join(lines), encoding="utf-8")
    target = tmp_path / "again.bagel"
    assert run(["import", str(target), str(release)]) == 2
    err = capsys.readouterr()
    assert "fails verification" in err.out + err.err and "--no-verify" in err.out + err.err
    with Store.open(target, read_only=True) as store:
        assert store.items.count() == 0
    assert run(["import", str(target), str(path)]) == 2  # a file inside it is checked too
    capsys.readouterr()
    assert run(["import", str(target), str(release), "--no-verify"]) in (0, 1)
    with Store.open(target, read_only=True) as store:
        assert store.items.get(row["id"]).content.options[row["answer_index"]] == "Something else"


@pytest.mark.parametrize(
    ("manifest", "why"),
    [
        (None, "no manifest.json in it"),
        ("{not json", "manifest.json is not valid JSON"),
        ('{"format": "something else"}', "not a BAGEL Studio release manifest"),
    ],
)
def test_a_folder_that_is_not_a_release_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], manifest: str | None, why: str
) -> None:
    # Status 1 means "differences found"; a folder with nothing to verify against is refused
    # input (2), with one line saying why, and nothing in it is touched.
    folder = tmp_path / "not-a-release"
    folder.mkdir()
    (folder / "notes.txt").write_text("kept\n", encoding="utf-8")
    if manifest is not None:
        (folder / "manifest.json").write_text(manifest, encoding="utf-8")
    for extra in ([], ["--json"]):
        assert run(["verify", str(folder), *extra]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.count("\n") == 1 and f"{folder}: not a release" in err and why in err
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "kept\n"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["notes.txt", *(["manifest.json"] if manifest is not None else [])]
    )
