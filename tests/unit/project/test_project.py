"""Project-wide contracts: public façades, dependency direction, the exception tree."""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import types

import pytest

import privaudit.spec.errors as errors_module
from privaudit.spec.errors import PrivauditError, PrivauditWarning

ROOT = pathlib.Path(__file__).resolve().parents[3]
FACADES = [
    "privaudit.spec",
    "privaudit.spec.domains",
    "privaudit.spec.noise",
    "privaudit.spec.relations",
    "privaudit.mechanisms",
    "privaudit.estimators",
    "privaudit.estimators.graphs",
    "privaudit.estimators.hypothesis_tests",
    "privaudit.estimators.models",
    "privaudit.estimators.ustatistics",
    "privaudit",
    "privaudit.auditing.distinguish",
]


@pytest.mark.parametrize("name", FACADES)
def test_all_is_sorted_and_exhaustive(name):
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported), f"{name}.__all__ is not sorted"
    assert len(set(exported)) == len(exported)
    for item in exported:
        assert hasattr(module, item), f"{name}.__all__ names missing {item!r}"
    public = {
        k
        for k, v in vars(module).items()
        if not k.startswith("_")
        and not isinstance(v, types.ModuleType)
        and k not in {"annotations"}
    }
    assert public <= set(exported), f"{name} exposes names not in __all__: {public - set(exported)}"


ALLOWED = {
    "spec": {"spec"},
    "mechanisms": {"spec", "mechanisms"},
    "estimators": {"spec", "mechanisms", "estimators"},
    "privaudit": {"spec", "mechanisms", "estimators", "privaudit"},
}


def _package_of(name: str) -> str | None:
    """Which of our four packages the import name ``name`` belongs to (spec, mechanisms and
    estimators install as ``privaudit.spec`` …; pyproject.toml, [tool.setuptools.package-dir])."""
    parts = name.split(".")
    if parts[0] != "privaudit":
        return None
    if len(parts) > 1 and parts[1] in {"spec", "mechanisms", "estimators"}:
        return parts[1]
    return "privaudit"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_dependency_direction(package):
    """spec ← mechanisms ← estimators; privaudit may use them all, never the other way."""
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for full in names:
                assert full.split(".")[0] not in {"spec", "mechanisms", "estimators"}, (
                    f"{path.relative_to(ROOT)} imports {full}: import privaudit.{full}"
                )
                ours = _package_of(full)
                if ours is not None:
                    assert ours in ALLOWED[package], f"{path.relative_to(ROOT)} imports {full}"


def test_exception_tree_is_one_hierarchy_drawn_in_the_docstring():
    classes = [
        c
        for _, c in inspect.getmembers(errors_module, inspect.isclass)
        if c.__module__ == errors_module.__name__
    ]
    assert classes
    for cls in classes:
        if issubclass(cls, Warning):
            assert issubclass(cls, PrivauditWarning)
            continue
        assert issubclass(cls, PrivauditError), cls
        assert cls.__name__ in errors_module.__doc__, f"{cls.__name__} missing from the tree"


def test_value_errors_are_value_errors():
    from privaudit.spec.errors import InvalidInputError, SpecError, UnsupportedCombinationError

    assert issubclass(SpecError, ValueError)
    assert issubclass(InvalidInputError, ValueError)
    assert issubclass(UnsupportedCombinationError, TypeError)


def test_importing_the_pytest_plugin_is_cheap():
    """pytest imports the plugin at every start-up: it must not pull in numpy or scipy."""
    import subprocess
    import sys

    code = (
        "import sys, privaudit.interfaces.pytest_plugin; "
        "print('numpy' in sys.modules, 'scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
