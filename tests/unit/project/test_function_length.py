"""No function in the four packages (``privaudit/``, ``spec/``, ``mechanisms/``,
``estimators/``) is longer than :data:`LIMIT` lines, unless it is listed, with its reason,
in :data:`ALLOWED`.

A long function is cut along its stages (``privaudit.auditing.distinguish.pair.distinguish_pair``
calls one helper per stage: search split, budget, selection, test split, bounds,
profile, power), so that each stage can be read, tested and changed alone.
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[3]
#: Most lines of a function, from its ``def`` line to its last line (docstring included),
#: as ``ruff format`` lays it out.
LIMIT = 150
#: The folders whose functions are held to :data:`LIMIT`.
PACKAGES = ("privaudit", "spec", "mechanisms", "estimators")
#: ``"path/to/module.py:qualified.name"`` → why it may be longer.  Keep it empty: cut a
#: long function rather than list it.
ALLOWED: dict[str, str] = {}


def _functions(path: pathlib.Path) -> list[tuple[str, int]]:
    """(qualified name, lines) of every function and method in ``path``."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found.append((name, child.end_lineno - child.lineno + 1))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def test_the_walk_sees_nested_functions_and_methods(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(
        "class A:\n    def f(self):\n        def g():\n            pass\n        return g\n",
        encoding="utf-8",
    )
    assert _functions(source) == [("A.f", 4), ("A.f.g", 2)]


def test_no_function_in_the_packages_is_longer_than_the_limit():
    too_long = []
    for path in sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for name, lines in _functions(path):
            if lines > LIMIT and f"{rel}:{name}" not in ALLOWED:
                too_long.append(f"{rel}:{name} ({lines} lines)")
    assert not too_long, f"functions over {LIMIT} lines (cut them): {too_long}"


def test_the_allow_list_names_only_long_functions():
    """An entry whose function was cut (or removed) must leave the list."""
    for key in ALLOWED:
        rel, name = key.split(":")
        lengths = dict(_functions(ROOT / rel))
        assert lengths.get(name, 0) > LIMIT, f"{key} is not over {LIMIT} lines any more"
