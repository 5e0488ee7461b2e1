"""The README is a front door: the two commands first, then what the program is, in at most 150
lines; the manual and the references it links to live in docs/, and every link between these
documents (and every screenshot) leads to a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]
TWO_COMMANDS = [
    "bash packaging/bagel.sh demo",
    "bash packaging/bagel.sh test",
]


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150
    assert lines[0] == "# BAGEL Studio"
    first_block = lines[lines.index("```bash") + 1 : lines.index("```")]
    assert lines.index("```bash") == 2  # right after the title
    assert [line.split("#")[0].strip() for line in first_block] == TWO_COMMANDS


def test_the_readme_links_to_the_manual_and_the_references() -> None:
    text = README.read_text(encoding="utf-8")
    for document in ("MANUAL", "COMMANDS", "CHECKS", "FORMATS", "INSTALL", "ARCHITECTURE"):
        assert f"](docs/{document}.md)" in text


def test_every_relative_link_and_image_leads_to_a_file() -> None:
    broken = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            path = target.split("#")[0]
            if path and not (document.parent / path).exists():
                broken.append(f"{document.relative_to(ROOT)}: {target}")
    assert broken == []
