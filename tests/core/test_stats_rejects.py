"""``stats --rejects``: the rejected input lines an import kept, listed again after its summary
closed (``stats`` gave only their count): ``file:line: reason``, file by file in the order they
were imported, each by line; ``--match`` narrows them, ``--json`` gives them as data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bagel_studio.core.cli import run
from tests.support.items import good


def project_with_rejects(tmp_path: Path) -> Path:
    first = tmp_path / "first.jsonl"
    first.write_text(
        json.dumps(good("w:1"))
        + "\n"
        + '{"id": "w:2", "que\n'
        + json.dumps(good("w:3"))
        + "\n"
        + "not json\n",
        encoding="utf-8",
    )
    second = tmp_path / "second.jsonl"
    second.write_text(json.dumps({"question": "Which?"}) + "\n", encoding="utf-8")
    project = tmp_path / "p.bagel"
    assert run(["import", str(project), str(first), str(second)]) == 1
    return project


def test_stats_lists_every_rejected_line_by_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = project_with_rejects(tmp_path)
    capsys.readouterr()
    assert run(["stats", str(project), "--rejects"]) == 0
    lines = capsys.readouterr().out.splitlines()
    first, second = str(tmp_path / "first.jsonl"), str(tmp_path / "second.jsonl")
    assert [line.split(": ")[0] for line in lines[:-1]] == [
        f"{first}:2",
        f"{first}:4",
        f"{second}:1",
    ]
    assert lines[0].startswith(f"{first}:2: truncated JSON")
    assert lines[-1] == "3 rejected lines in 2 files"

    assert run(["stats", str(project), "--rejects", "--match", "TRUNCATED"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[-1] == "1 rejected line in 1 file matching 'TRUNCATED'"

    assert run(["stats", str(project), "--rejects", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files"] == {first: 2, second: 1}
    listed = [(r["file"], r["line"]) for r in data["rejects"]]
    assert listed == [(first, 2), (first, 4), (second, 1)]

    assert run(["stats", str(project), "--match", "x"]) == 2  # --match belongs to --rejects
