"""SQL has one home: no module outside ``bagel_studio/core/store/`` holds a SQL statement or runs
one. The store offers the reads and writes the other parts need."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "bagel_studio"
STORE = PACKAGE / "core" / "store"

# The start of a statement, in SQL's own capitals, as the project writes it.
SQL = re.compile(
    r"\b(SELECT\s+(\*|DISTINCT|count\(|[a-z_][\w.]*\s*(,|FROM))|INSERT\s+(OR\s+\w+\s+)?INTO"
    r"|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX|VIRTUAL)|DROP\s+(TABLE|INDEX)"
    r"|ALTER\s+TABLE|PRAGMA\s+\w+|BEGIN(\s+IMMEDIATE)?\b|WITH\s+\w+\s+AS\s*\()"
)
RUNNERS = {"execute", "executemany", "executescript"}


def sql_outside_the_store(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = SQL.search(node.value)
            if match and not _docstring(tree, node):
                found.append(f"line {node.lineno}: SQL {match.group(0)!r}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in RUNNERS
        ):
            found.append(f"line {node.lineno}: runs SQL (.{node.func.attr})")
    return found


def _docstring(tree: ast.AST, constant: ast.Constant) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and body[0].value is constant:
                return True
    return False


def test_no_sql_outside_the_store() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if STORE not in path.parents and (found := sql_outside_the_store(path))
    }
    assert offenders == {}


def test_the_finder_sees_sql(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Mentions SELECT id FROM items in a docstring, which is fine."""\n'
        'ROWS = "SELECT id, domain FROM items"\n'
        'store.db.execute("DELETE FROM flags")\n'
        'conn.executemany(f"INSERT OR REPLACE INTO flags VALUES (?)", rows)\n'
        'TEXT = "Select the best option"\n',
        encoding="utf-8",
    )
    found = sql_outside_the_store(sample)
    assert {line.split(":")[0] for line in found} == {"line 2", "line 3", "line 4"}
    assert sum("runs SQL" in line for line in found) == 2
    assert len(list(STORE.glob("*.py"))) > 5  # the store itself is where SQL lives
