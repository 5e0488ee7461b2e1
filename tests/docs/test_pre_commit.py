"""The pre-commit hooks are the checks the test command runs before pytest, in the same order
and with the same arguments, so a commit that passes them passes the first half of
``bash packaging/bagel.sh test``; a check added to one without the other fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def checks_of_the_test_command() -> list[str]:
    """The ``.venv/bin/...`` lines of bagel.sh's ``test)`` case, before pytest."""
    script = (ROOT / "packaging" / "bagel.sh").read_text(encoding="utf-8")
    case = script.split("\n  test)\n", 1)[1].split('echo "== pytest"', 1)[0]
    return [line.strip() for line in case.splitlines() if line.strip().startswith(".venv/bin/")]


def hooks() -> list[dict[str, str]]:
    """Each hook of .pre-commit-config.yaml as {key: value} (the file is flat YAML: one key per
    line under ``- id:``)."""
    text = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    found: list[dict[str, str]] = []
    for line in text.splitlines():
        match = re.match(r"^\s+(-\s+)?(\w+):\s*(.*)$", line)
        if not match or match.group(2) in {"repos", "hooks"}:
            continue
        if match.group(1) and match.group(2) == "id":
            found.append({})
        if found:
            found[-1][match.group(2)] = match.group(3)
    return found


def test_the_hooks_run_what_the_test_command_runs_first() -> None:
    checks = checks_of_the_test_command()
    assert len(checks) == 4  # ruff check, ruff format --check, mypy, lint-imports
    assert [hook["entry"] for hook in hooks()] == checks


def test_every_hook_is_a_local_tool_run_once_over_the_whole_tree() -> None:
    text = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert "- repo: local" in text
    for hook in hooks():
        assert hook["language"] == "system", hook
        assert hook["pass_filenames"] == "false", hook  # the tools read their own configuration
        assert "pyproject" in hook["files"], hook  # a changed contract or rule set runs them
