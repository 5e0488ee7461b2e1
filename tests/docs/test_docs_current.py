"""Docs that cannot drift: the references' tables follow the program's own registries.

Every check id in ``CHECKS`` has a row in the check table of docs/CHECKS.md (and no row names a
check the program does not have), with the severity the program gives its flags; every subcommand
of the CLI registry (``core.cli.COMMANDS``, so commands added later are covered) has its own
``--help`` text and a row in the command table of docs/COMMANDS.md.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from bagel_studio.core.checks import CHECKS
from bagel_studio.core.cli import COMMANDS, run

ROOT = Path(__file__).resolve().parents[2]
# The front door and the documents under docs/: each ``## `` section lives in one of them.
DOCUMENTS = {
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
}


def section(title: str) -> str:
    """The text under ``## title``, up to the next ``## `` heading, in the one document of
    README.md and docs/*.md that has that section."""
    found = {
        name: match.group(1)
        for name, text in DOCUMENTS.items()
        if (match := re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S))
    }
    assert found, f"no document (README.md, docs/*.md) has a '## {title}' section"
    assert len(found) == 1, f"'## {title}' is a section of {sorted(found)}: keep one"
    return next(iter(found.values()))


def table_first_cells(text: str) -> list[str]:
    """The first cell of every row of the Markdown tables in ``text`` (header and rule left out)."""
    cells = []
    for line in text.splitlines():
        if line.startswith("|") and not re.match(r"^\|\s*-", line):
            cells.append(line.split("|")[1].strip())
    return cells[1:] if cells else cells


def test_every_check_has_a_row_in_the_check_table() -> None:
    rows = [re.sub(r"`", "", c) for c in table_first_cells(section("Checks"))]
    rows = [r for r in rows if r != "check"]
    assert sorted(set(CHECKS) - set(rows)) == []  # checks without a row
    assert sorted(set(rows) - set(CHECKS)) == []  # rows of checks that do not exist
    assert len(rows) == len(set(rows))  # one row each


def test_the_check_table_gives_each_check_the_severity_of_its_flags(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The severity column against the flags ``check`` sets on the demo project, whose items
    trip most checks: a check whose severity changes must change its row too."""
    table = {}
    for line in section("Checks").splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) >= 3 and cells[0].startswith("`"):
            table[cells[0].strip("`")] = cells[1]
    capsys.readouterr()
    assert run(["check", str(demo_copy), "--json"]) in (0, 1)  # 1: the demo has blocking flags
    flags = json.loads(capsys.readouterr().out)
    set_by_the_program = {(flag["check"], flag["severity"]) for flag in flags}
    assert len({check for check, _ in set_by_the_program}) >= 15  # most checks were seen
    differing = sorted((c, s, table.get(c)) for c, s in set_by_the_program if table.get(c) != s)
    assert differing == []  # (check, severity of its flags, severity of its row)


def check_definitions(text: str) -> dict[str, str]:
    """{check id: its definition} from the last column of the check table in ``text``."""
    found = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) >= 3 and cells[0].startswith("`"):
            found[cells[0].strip("`")] = cells[-1]
    return found


def test_the_check_table_defines_each_check_in_the_programs_words() -> None:
    """One source of the definitions: the check modules' ``DESCRIPTIONS`` (``CHECKS``), which
    ``check --help`` and the desk show; the table's last column is the same text, Markdown's
    backticks aside. A changed definition is written in the module and copied here
    (``python -m tests.docs.test_docs_current`` rewrites the column from ``CHECKS``)."""
    table = check_definitions(section("Checks"))
    differing = sorted(c for c in CHECKS if table.get(c, "").replace("`", "") != CHECKS[c])
    assert differing == []  # checks whose row says other words than the program


def test_check_help_lists_every_definition_whole() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run(["check", "--help"]) == 0
    shown = " ".join(out.getvalue().split())
    missing = sorted(c for c in CHECKS if " ".join(CHECKS[c].split()) not in shown)
    assert missing == []  # checks whose definition --help cuts or rewraps into other words


def test_every_cli_command_has_a_row_in_the_command_table() -> None:
    rows = table_first_cells(section("Command line"))
    named = {m.group(1) for r in rows if (m := re.match(r"`bagel-studio ([a-z][\w-]*)", r))}
    assert sorted(set(COMMANDS) - named) == []
    assert len(COMMANDS) >= 10  # the registry really was read


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_cli_command_explains_itself_with_help(name: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = run([name, "--help"])
    text = out.getvalue()
    assert status == 0
    assert text.startswith(f"usage: bagel-studio {name}")
    description = text.split("\n\n", 2)[1] if "\n\n" in text else ""
    assert len(description.split()) >= 4, f"{name} --help has no description"
    assert "unavailable" not in text


def test_every_table_of_the_project_file_is_described_in_formats() -> None:
    from bagel_studio.core.store import Store

    formats = (ROOT / "docs" / "FORMATS.md").read_text(encoding="utf-8")
    with Store.memory() as store:
        tables = [
            str(row[0])
            for row in store.db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
    shadow = [t for t in tables if any(t.startswith(f"{v}_") for v in tables if v != t)]
    described = [t for t in tables if f"`{t}`" in formats]
    assert sorted(set(tables) - set(shadow) - set(described)) == []
    assert len(described) >= 15


def rewrite_check_definitions(path: Path = ROOT / "docs" / "CHECKS.md") -> list[str]:
    """Copy each check's definition from ``CHECKS`` into the last column of its row of the
    check table, where the two differ (Markdown's backticks aside); the ids rewritten."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    rewritten = []
    for n, line in enumerate(lines):
        cells = line.rstrip("\n").split("|")
        check = cells[1].strip().strip("`") if len(cells) > 4 else ""
        if check in CHECKS and cells[-2].strip().replace("`", "") != CHECKS[check]:
            cells[-2] = f" {CHECKS[check]} "
            lines[n] = "|".join(cells) + "\n"
            rewritten.append(check)
    path.write_text("".join(lines), encoding="utf-8")
    return rewritten


if __name__ == "__main__":
    # a deliberate change of a check's definition: copy it into docs/CHECKS.md
    for changed in rewrite_check_definitions():
        print(f"docs/CHECKS.md: {changed}")
