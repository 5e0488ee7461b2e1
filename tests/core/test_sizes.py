"""The store and the export stay in pieces a reader can hold: no class of theirs is over 500
lines (their functions' complexity, at most 15, is ruff's C901, set in pyproject.toml)."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "bagel_studio" / "core"
PACKAGES = ("store", "export")
MAX_CLASS_LINES = 500


def class_lengths(folder: Path) -> dict[str, int]:
    """``file:Class`` -> its lines (decorators and docstring included), of every class under
    ``folder``, nested ones too."""
    lengths = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                assert node.end_lineno is not None
                name = f"{path.relative_to(folder)}:{node.name}"
                lengths[name] = node.end_lineno - first + 1
    return lengths


def test_no_class_of_the_store_or_the_export_is_over_500_lines() -> None:
    lengths = {
        f"{package}/{name}": n
        for package in PACKAGES
        for name, n in class_lengths(CORE / package).items()
    }
    assert len(lengths) > 20  # the walk saw the store's parts and the export's classes
    assert "store/store.py:Store" in lengths
    assert {name: n for name, n in lengths.items() if n > MAX_CLASS_LINES} == {}


def test_a_long_class_is_measured_whole(tmp_path: Path) -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(600))
    (tmp_path / "long.py").write_text(f"@decorated\nclass Long:\n{body}\n", encoding="utf-8")
    assert class_lengths(tmp_path) == {"long.py:Long": 602}
