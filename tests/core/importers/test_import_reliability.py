"""Input that must not cost good lines or memory: gold letters that disagree with their index,
NUL bytes in one line, UTF-16/32 files, special files, overlong lines, unreadable audio."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bagel_studio.core.importers import import_paths
from bagel_studio.core.store import Store
from tests.support.items import good

ROOT = Path(__file__).resolve().parents[3]


def jsonl(*rows: dict[str, Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_answer_letter_and_index_that_disagree_are_a_reject(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(
        jsonl(
            good("w:1", answer="B", answer_index=1),
            good("w:2", answer="B", answer_index=2),
            good("w:3", answer="Fish", answer_index=3),
        ),
        encoding="utf-8",
    )
    report = import_paths(store, [path])
    assert sorted(report.new_item_ids) == ["w:1"]
    reasons = {r.line: r.reason for r in store.imports.rejects()}
    assert reasons == {
        2: "answer 'B' and answer_index 2 name different options",
        3: "answer 'Fish' and answer_index 3 name different options",
    }
    assert report.exit_status == 1


def test_a_nul_byte_rejects_only_its_line(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    broken = json.dumps(good("w:2")).replace("animal", "ani\x00mal").encode("utf-8")
    rows = [json.dumps(good("w:1")).encode(), broken, json.dumps(good("w:3")).encode()]
    path.write_bytes(b"\n".join(rows) + b"\n")
    report = import_paths(store, [path])
    assert sorted(report.new_item_ids) == ["w:1", "w:3"]
    assert [(r.line, r.reason) for r in store.imports.rejects()] == [
        (2, "NUL byte in the line (binary data); not parsed")
    ]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_utf16_and_utf32_with_a_byte_order_mark_are_read(
    store: Store, tmp_path: Path, encoding: str
) -> None:
    text = jsonl(good("w:1", question="Où vit le lièvre d’Europe ?"), good("w:2"))
    data = text.encode(encoding)
    if not encoding.endswith(("16", "32")):  # the -be codecs write no mark of their own
        data = ("\ufeff" + text).encode(encoding)
    path = tmp_path / "items.jsonl"
    path.write_bytes(data)
    report = import_paths(store, [path])
    assert sorted(report.new_item_ids) == ["w:1", "w:2"], report.notes
    assert store.items.get("w:1").content.question == "Où vit le lièvre d’Europe ?"
    assert report.exit_status == 0


def test_special_files_are_never_read(store: Store, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)  # opening it to read would wait forever for a writer
    folder = tmp_path / "folder"
    folder.mkdir()
    os.mkfifo(folder / "inside.jsonl")
    (folder / "items.jsonl").write_text(jsonl(good("w:1")), encoding="utf-8")
    report = import_paths(store, ["/dev/zero", fifo, folder])
    assert report.new_item_ids == ["w:1"]
    assert "/dev/zero" in report.unreadable and str(fifo) in report.unreadable
    assert any("not a regular file" in note for note in report.notes)
    assert report.exit_status == 2


def test_import_of_dev_zero_is_refused_at_once(tmp_path: Path) -> None:
    project = tmp_path / "p.bagel"
    result = subprocess.run(
        [sys.executable, "-m", "bagel_studio", "import", str(project), "/dev/zero"],
        cwd=ROOT,  # this checkout's bagel_studio, whatever PYTHONPATH says
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "not a regular file" in result.stdout + result.stderr


def test_an_overlong_line_is_a_reject_even_alone(store: Store, tmp_path: Path) -> None:
    """A single 12 MB line (one JSON object) is rejected without being parsed or stored whole."""
    huge = good("w:big", question="x" * 12_000_000)
    alone = tmp_path / "one-line.jsonl"
    alone.write_text(json.dumps(huge), encoding="utf-8")
    beside = tmp_path / "with-others.jsonl"
    beside.write_text(jsonl(good("w:1"), huge, good("w:2")), encoding="utf-8")
    report = import_paths(store, [alone, beside])
    assert sorted(report.new_item_ids) == ["w:1", "w:2"]
    rejects = store.imports.rejects()
    assert len(rejects) == 2
    assert all("longer than the 10 MB an item may take" in r.reason for r in rejects)
    assert all(len(r.raw or "") <= 1 << 20 for r in rejects)  # the head only


def test_the_line_limit_is_configurable(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(jsonl(good("w:1"), good("w:2", question="y" * 3_000_000)), encoding="utf-8")
    project = tmp_path / "p.bagel"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bagel_studio",
            "import",
            str(project),
            str(path),
            "--max-line-mb=2",
        ],
        cwd=ROOT,  # this checkout's bagel_studio, whatever PYTHONPATH says
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "longer than the 2 MB an item may take" in result.stdout


@pytest.mark.slow
def test_memory_stays_bounded_for_a_huge_line(tmp_path: Path) -> None:
    """A file that is one 100 MB line: rejected with the memory of reading the file, not of
    parsing it (it became one item, at 865 MB, when the file was parsed as one document)."""
    path = tmp_path / "huge.jsonl"
    path.write_text(json.dumps(good("w:huge", question="z" * 100_000_000)), encoding="utf-8")
    code = (  # VmHWM: this program's peak (ru_maxrss would count the forking test process's)
        "import re, sys\n"
        "from bagel_studio.core.cli import run\n"
        "status = run(['import', sys.argv[1], sys.argv[2]])\n"
        "status_text = open('/proc/self/status').read()\n"
        "print(status, re.search(r'VmHWM:\\s+(\\d+)', status_text).group(1))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "p.bagel"), str(path)],
        cwd=ROOT,  # this checkout's bagel_studio, whatever PYTHONPATH says
        capture_output=True,
        text=True,
        timeout=300,
    )
    status, peak_kb = result.stdout.strip().splitlines()[-1].split()
    assert status == "1"
    assert int(peak_kb) < 450_000, f"peak {int(peak_kb) / 1000:.0f} MB"


CLIPS = ("XC536501.mp3", "XC236243.mp3")


def _clips(folder: Path, data_dir: Path, names: tuple[str, ...] = CLIPS) -> list[str]:
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(data_dir / "xeno_canto" / name, folder / name)
    return list(names)


@pytest.mark.parametrize(
    ("header", "rows"),
    [
        (
            "xc_id,Genus,Species,English name,License,File Name",
            [
                "536501,Melozone,crissalis,California Towhee,by-nc-sa,XC536501.mp3",
                "236243,Zonotrichia,leucophrys,White-crowned Sparrow,by-nc-sa,XC236243.mp3",
            ],
        ),
        (  # no id column: the ids live inside the file names and URLs, as builders export them
            "genus\tspecies\tcommon_name\tlicense\turl\tfilename",
            [
                "Melozone\tcrissalis\tCalifornia Towhee\tby-nc-sa\thttps://xeno-canto.org/536501"
                "\tXC536501.mp3",
                "Zonotrichia\tleucophrys\tWhite-crowned Sparrow\tby-nc-sa"
                "\thttps://xeno-canto.org/236243\tXC236243.mp3",
            ],
        ),
    ],
)
def test_xeno_canto_metadata_is_recognised_by_its_content(
    store: Store, tmp_path: Path, data_dir: Path, header: str, rows: list[str]
) -> None:
    folder = tmp_path / "xc"
    _clips(folder, data_dir)
    (folder / "metadata.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    report = import_paths(store, [folder])
    assert report.exit_status == 0, [str(r) for r in report.rejects] + report.notes
    towhee = store.evidence.recording("XC536501")
    assert towhee is not None and towhee["scientific_name"] == "Melozone crissalis"
    assert towhee["common_name"] == "California Towhee"
    assert str(towhee["audio_path"]).endswith("XC536501.mp3")
    assert store.evidence.recording("XC236243") is not None


def test_truncated_audio_is_reported_at_import_and_flags_its_items(
    store: Store, tmp_path: Path, data_dir: Path
) -> None:
    import numpy as np
    import soundfile as sf

    folder = tmp_path / "xc"
    _clips(folder, data_dir, ("XC536501.mp3",))
    rate = 22050
    tone = (0.5 * np.sin(2 * np.pi * 3000 * np.arange(6 * rate) / rate)).astype("float32")
    sf.write(str(folder / "XC999001.wav"), tone, rate)
    whole = (folder / "XC999001.wav").read_bytes()
    (folder / "XC999001.wav").write_bytes(whole[: len(whole) // 3])  # a download cut short
    items = [
        good(
            f"xc:{rec}",
            domain="Xeno-canto",
            dimension="Dominant frequency range",
            question="What is the dominant frequency range of this bird's song?",
            options=["1-2 kHz", "2-4 kHz", "4-8 kHz", "8-12 kHz"],
            recording=rec,
        )
        for rec in ("XC999001", "XC536501")
    ]
    (folder / "items.jsonl").write_text(jsonl(*items), encoding="utf-8")
    report = import_paths(store, [folder])
    assert report.exit_status == 1
    (reject,) = store.imports.rejects()
    assert reject.file == "XC999001.wav" and "truncated or corrupt WAV" in reject.reason
    assert "audio-unreadable" in {f.check for f in store.flags.of_item("xc:XC999001")}
    assert "audio-unreadable" not in {f.check for f in store.flags.of_item("xc:XC536501")}


def test_a_file_that_contradicts_an_earlier_one_is_reported(store: Store, tmp_path: Path) -> None:
    first = tmp_path / "all.jsonl"
    first.write_text(jsonl(good("w:1"), good("w:2")), encoding="utf-8")
    second = tmp_path / "wikipedia.jsonl"
    changed = good("w:2", options=["Fish", "Leaves", "Insects", "Seeds"])
    second.write_text(jsonl(good("w:1"), changed), encoding="utf-8")
    import_paths(store, [first])
    report = import_paths(store, [second])
    assert [(r.line, r.reason) for r in report.rejects] == [
        (
            2,
            f"item w:2 is already in the project with other content ({first}:2);"
            " the project keeps that version",
        )
    ]
    assert store.items.get("w:2").content.options[0] == "Leaves"
    assert report.exit_status == 1


def test_the_import_knows_the_release_manifest_by_its_name() -> None:
    from bagel_studio.core.importers import runner
    from bagel_studio.core.report import layout

    assert runner.RELEASE_MANIFEST == layout.MANIFEST  # verify releases only where one may be
