"""``bagel-studio import``: exit status 0 / 1 / 2, the printed report, and a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from bagel_studio.core.store import Store

ROOT = Path(__file__).resolve().parents[3]


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["import", "--help"]) == 0
    out = capsys.readouterr().out
    assert "PROJECT" in out and "PATH" in out and "exit status" in out


def test_everything_imported_exits_0(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "new" / "p.bagel"
    status = run(
        [
            "import",
            str(project),
            str(data_dir / "items" / "paper_examples.jsonl"),
            str(data_dir / "globi"),
        ]
    )
    out = capsys.readouterr().out

    assert status == 0
    assert "Wikipedia: 8 added, 0 already present" in out
    assert "Xeno-canto: 5 added, 0 already present" in out
    assert "Evidence: 5,700 GloBI records" in out
    assert "Project now holds 17 items and 0 rejected lines." in out

    assert run(["import", str(project), str(data_dir / "items")]) == 0
    assert "Skipped" in capsys.readouterr().out


def test_rejected_input_exits_1_and_lists_rejects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "items.jsonl"
    good = {
        "id": "w:0",
        "domain": "Wikipedia",
        "dimension": "Diet",
        "question": "Eats?",
        "options": ["a", "b", "c", "d"],
        "answer": "A",
    }
    rows = [json.dumps(good)] + [f'{{"id": "bad {i}"' for i in range(60)]
    items.write_text("\n".join(rows) + "\n", encoding="utf-8")
    project = tmp_path / "p.bagel"
    status = run(["import", str(project), str(items)])
    out = capsys.readouterr().out

    assert status == 1
    assert "Rejected 60 line(s)" in out
    assert f"{items}:2: truncated JSON" in out
    assert "... and 10 more" in out
    with Store.open(project) as store:
        assert store.imports.reject_count() == 60 and store.items.count() == 1


def test_json_report(tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = run(
        [
            "import",
            "--json",
            str(tmp_path / "p.bagel"),
            str(data_dir / "xeno_canto" / "recordings.csv"),
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert status == 0 and report["exit_status"] == 0
    assert report["evidence"]["recordings"] == 9 and report["evidence"]["audio_files"] == 9


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "p.bagel"
    assert run(["import", str(project), str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "missing.jsonl: no such file or folder" in err and len(err.strip().splitlines()) == 1
    assert not project.exists()  # nothing created for a typo

    assert run(["import", str(project)]) == 2  # no PATH
    not_a_project = tmp_path / "notes.bagel"
    not_a_project.write_text("hello", encoding="utf-8")
    assert run(["import", str(not_a_project), str(not_a_project)]) == 2
    assert "not a BAGEL Studio project" in capsys.readouterr().err


def test_as_a_subprocess(tmp_path: Path, data_dir: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"domain": "GloBI", "question": "Q?", "options": "abcd"}\n', encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bagel_studio",
            "import",
            "p.bagel",
            str(data_dir / "wikipedia"),
            "bad.jsonl",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 1, result.stderr
    assert "Evidence: 4 texts" in result.stdout
    assert "bad.jsonl:1: options must be a list or an object with keys A-D, not text" in (
        result.stdout
    )
    assert (tmp_path / "p.bagel").exists()


def test_a_truncated_mp3_gives_our_reject_and_no_decoder_noise(
    tmp_path: Path, data_dir: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # libsndfile's MP3 decoder prints "Warning: Xing stream size off by more than 1%..." to C's
    # stderr; the curator sees our one reject line and nothing else.
    folder = tmp_path / "xc"
    folder.mkdir()
    source = data_dir / "xeno_canto"
    for clip in source.glob("*.mp3"):
        (folder / clip.name).write_bytes(clip.read_bytes())
    (folder / "recordings.csv").write_bytes((source / "recordings.csv").read_bytes())
    cut = folder / "XC625750.mp3"
    cut.write_bytes(cut.read_bytes()[:40_000])  # a download cut short
    assert run(["import", str(tmp_path / "p.bagel"), str(folder), str(data_dir / "items")]) == 1
    out, err = capfd.readouterr()
    assert err == ""
    (reject,) = [line for line in out.splitlines() if "unreadable audio" in line]
    assert reject.strip().startswith(
        "XC625750.mp3:1: unreadable audio: XC625750.mp3: truncated or corrupt MP3 (decoded"
    )
    os.write(2, b"still ours\n")  # the descriptor is the process's stderr again
    assert capfd.readouterr().err == "still ours\n"
