"""The scripts of ``scripts/`` use privaudit's public API only.

A table or study script is what a user would write, and it must keep running when a private
module is renamed.  So every import of privaudit in ``scripts/*.py`` (read with :mod:`ast`:
module level, inside functions and under ``if``/``try``) is one of

* ``import privaudit`` or ``import privaudit.X`` where ``privaudit.X`` is a *package* (a
  folder with an ``__init__.py``; ``privaudit.spec``, ``privaudit.auditing.distinguish``, ...);
* ``from P import name`` where ``P`` is ``privaudit`` or one of its packages and ``name`` is
  in ``P.__all__`` (read from the package's ``__init__.py``) and does not start with ``_``;

never an import of a module that is not a package (``privaudit.auditing.pairs``), nor of a
name a package does not export.  Attribute chains on an imported package
(``privaudit.auditing.pairs.verified_pair`` after ``import privaudit``) follow the same
rule.  The scripts' own helper modules (``scripts/_*.py``, imported as top-level modules)
are not privaudit and may be imported freely.

The one exception is an import marked ``# private: <reason>`` (on its lines or in the
comment right above it), for an internal that no public name gives: a script that patches
one (no ``AuditConfig`` field, ``audit()`` keyword or report field does the same), or that
times one.  The reason says why; a marker on an import the rule accepts fails as stale.
"""

from __future__ import annotations

import ast
import functools
import importlib
import pathlib
import re
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCRIPTS = sorted((ROOT / "scripts").glob("*.py"))
#: Import name → folder of the repository (pyproject.toml, [tool.setuptools.package-dir]).
_PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
PACKAGE_DIRS: dict[str, str] = _PYPROJECT["tool"]["setuptools"]["package-dir"]


def _folder(module: str) -> pathlib.Path | None:
    """The folder of package ``module`` in the checkout, or None if it is not a package."""
    roots = [name for name in PACKAGE_DIRS if module == name or module.startswith(name + ".")]
    if not roots:
        return None
    root = max(roots, key=len)
    rest = module[len(root) :].lstrip(".")
    folder = ROOT / PACKAGE_DIRS[root] / pathlib.Path(*rest.split(".") if rest else ())
    return folder if (folder / "__init__.py").is_file() else None


def _literal_names(node: ast.expr) -> list[str] | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return None
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else None


@functools.cache
def _exported(package: str) -> frozenset[str]:
    """``package.__all__``, read from its ``__init__.py`` (imported only when it is not
    a literal); empty when the package declares none."""
    init = _folder(package) / "__init__.py"  # type: ignore[operator]
    names: list[str] = []
    for node in ast.parse(init.read_text("utf-8")).body:
        target = getattr(node, "target", None) or (getattr(node, "targets", None) or [None])[0]
        if not (isinstance(target, ast.Name) and target.id == "__all__"):
            continue
        found = _literal_names(node.value) if node.value is not None else None  # type: ignore[attr-defined]
        if found is None:  # computed: ask the package itself
            return frozenset(getattr(importlib.import_module(package), "__all__", ()))
        names = names + found if isinstance(node, ast.AugAssign) else found
    return frozenset(names)


def _is_privaudit(module: str) -> bool:
    return module == "privaudit" or module.startswith("privaudit.")


def _check_name(package: str, name: str) -> str | None:
    """Why ``from package import name`` breaks the rule (None when it does not)."""
    if name.startswith("_"):
        return f"{name!r} is private"
    if name not in _exported(package):
        return f"{name!r} is not in {package}.__all__"
    return None


#: The marker that keeps one import private, with its reason: on the import's lines or in
#: the comment block right above it (``# private: <why no public name does it>``).
PRIVATE = re.compile(r"#\s*private:\s*(\S.*)")


def _private_reason(lines: list[str], node: ast.stmt) -> str | None:
    """The reason of the ``# private:`` marker of import ``node``, or None."""
    first, last = node.lineno, node.end_lineno or node.lineno
    candidates = lines[first - 1 : last]
    above = first - 2
    while above >= 0 and lines[above].lstrip().startswith("#"):
        candidates.append(lines[above])
        above -= 1
    for line in candidates:
        if found := PRIVATE.search(line):
            return found.group(1).strip()
    return None


def _findings(path: pathlib.Path) -> list[tuple[int, str, str, str | None]]:
    """Every import of ``path`` that breaks the rule: (line, import, why, private reason)."""
    text = path.read_text("utf-8")
    tree, lines = ast.parse(text, filename=str(path)), text.splitlines()
    found: list[tuple[int, str, str, str | None]] = []
    bound: dict[str, str] = {}  # local name → the package it is bound to by ``import``

    def report(node: ast.AST, why: str, statement: ast.stmt) -> None:
        reason = _private_reason(lines, statement)
        found.append((node.lineno, ast.unparse(node), why, reason))  # type: ignore[attr-defined]

    statements: dict[int, ast.stmt] = {}  # id(expression) → the statement holding it
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.stmt):
            for child in ast.walk(stmt):
                statements.setdefault(id(child), stmt)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _is_privaudit(alias.name):
                    continue
                if _folder(alias.name) is None:
                    report(node, f"{alias.name} is a module, not a package", node)
                elif alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound[alias.name.partition(".")[0]] = "privaudit"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not _is_privaudit(node.module):
                continue
            if _folder(node.module) is None:
                report(node, f"{node.module} is a module, not a package", node)
                continue
            for alias in node.names:
                why = _check_name(node.module, alias.name)
                if why is not None:
                    report(node, why, node)
    # attribute chains on a bound package: privaudit.auditing.distinguish.distinguish_pair
    parents = {
        id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)
    }
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            continue
        if node.value.id not in bound:
            continue
        package, chain = bound[node.value.id], [node.attr]
        follower: ast.AST = node
        while isinstance(up := parents.get(id(follower)), ast.Attribute) and up.value is follower:
            chain.append(up.attr)
            follower = up
        for attr in chain:
            if attr.startswith("__") and attr.endswith("__"):
                break
            if _folder(f"{package}.{attr}") is not None:
                package = f"{package}.{attr}"
                continue
            why = _check_name(package, attr)
            if why is not None:
                report(follower, why, statements[id(node)])
            break
    return found


def _violations(path: pathlib.Path) -> list[str]:
    """The findings of ``path`` without a ``# private:`` reason, one line each."""
    return [
        f"scripts/{path.name}:{line}: {code}  ({why})"
        for line, code, why, reason in _findings(path)
        if reason is None
    ]


def test_there_are_scripts_to_check():
    assert len(SCRIPTS) > 10
    assert _exported("privaudit") >= {"audit", "AuditConfig", "registry"}


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_a_script_imports_only_public_names(path):
    found = _violations(path)
    assert not found, (
        "scripts import privaudit's public API only: names in privaudit.__all__ or in the "
        "__all__ of a package's __init__.py, never a module that is not a package nor a "
        "name starting with '_' (export what a script needs from its package):\n" + "\n".join(found)
    )


def test_every_private_marker_keeps_an_import_that_needs_it():
    """A ``# private:`` marker names its reason and sits on an import the rule refuses (a
    marker left after the name was exported is stale: remove it)."""
    stale = []
    for path in SCRIPTS:
        marked = {line for line, *_ in _findings(path)}
        text = path.read_text("utf-8")
        tree, lines = ast.parse(text), text.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                reason = _private_reason(lines, node)
                if reason is not None and node.lineno not in marked:
                    stale.append(f"scripts/{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert not stale, "# private: on imports of public names:\n" + "\n".join(stale)


def test_the_rule_catches_each_kind_of_private_import(tmp_path):
    script = tmp_path / "example.py"
    script.write_text(
        "import privaudit\n"
        "import privaudit.auditing.pairs as pairs\n"
        "from privaudit.auditing.pairs import verified_pair\n"
        "from privaudit.spec import _base\n"
        "from privaudit.spec import not_a_name\n"
        "from privaudit.spec import Laplace\n"
        "from privaudit import audit\n"
        "def f():\n"
        "    from privaudit.statistics.power import detectable_epsilon\n"
        "    return privaudit.statistics.clopper_pearson, privaudit.statistics.nothing\n"
        "# private: patched below, and no public option does it\n"
        "import privaudit.auditing.auditor as auditor_module\n",
        encoding="utf-8",
    )
    lines = sorted(int(v.split(":")[1]) for v in _violations(script))
    assert lines == [2, 3, 4, 5, 9, 10]
    kept = [(line, reason) for line, _, _, reason in _findings(script) if reason is not None]
    assert kept == [(12, "patched below, and no public option does it")]
