"""Code outside ``spec`` uses ``spec``'s public surface only.

``spec`` exports its public helpers (the base model, the annotated field types, the
``check_*`` validators, the injected-randomness helpers) from :mod:`spec` and its public
submodules; its private modules (``spec._types``, ``spec.noise._cks``, ...) may change
without notice.  This test walks every Python file of the repository outside ``spec/`` and
refuses:

* an import of a private module of ``spec`` (``from spec._types import ...``,
  ``import spec.domains._base``, ``from spec.noise import _cks``);
* in library code, scripts and benchmarks (not in tests, which may test private
  functions white-box), an import of a private name from ``spec``
  (``from spec.mechanism_spec import _helper``).
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from privaudit import spec

ROOT = Path(__file__).resolve().parents[3]

#: White-box unit tests of one private module of ``spec``, with the reason.
WHITE_BOX = {
    "tests/unit/spec/test_exact_samplers.py": "the unit test of spec.noise._cks itself",
}


def _python_files() -> list[Path]:
    return sorted(
        p
        for p in ROOT.rglob("*.py")
        if p.relative_to(ROOT).parts[0] != "spec"
        and not any(part.startswith(".") for part in p.relative_to(ROOT).parts)
    )


def _in_spec(module: str) -> bool:
    return module == "privaudit.spec" or module.startswith("privaudit.spec.")


def _private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split(".")[2:])


def _is_submodule(package: str, name: str) -> bool:
    try:
        return importlib.util.find_spec(f"{package}.{name}") is not None
    except ModuleNotFoundError:
        return False


def _offences(rel: str, source: str) -> list[str]:
    """The forbidden imports of ``source``, the file at ``rel`` (relative to the root)."""
    in_tests = rel.startswith("tests/")
    found = []
    for node in ast.walk(ast.parse(source, filename=rel)):
        if isinstance(node, ast.Import):
            found += [
                f"{rel}:{node.lineno}: import {a.name}"
                for a in node.names
                if _in_spec(a.name) and _private(a.name)
            ]
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and _in_spec(node.module)
        ):
            if _private(node.module):
                found.append(f"{rel}:{node.lineno}: from {node.module} import ...")
                continue
            for a in node.names:
                if not a.name.startswith("_"):
                    continue
                if _is_submodule(node.module, a.name):
                    found.append(
                        f"{rel}:{node.lineno}: from {node.module} import {a.name} "
                        "(a private module)"
                    )
                elif not in_tests:
                    found.append(
                        f"{rel}:{node.lineno}: from {node.module} import {a.name} (a private name)"
                    )
    return [] if rel in WHITE_BOX else found


def test_no_module_outside_spec_imports_its_private_modules():
    files = _python_files()
    assert len(files) > 100  # the walk found the repository
    offences = [
        o
        for path in files
        for o in _offences(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"))
    ]
    assert not offences, "import from spec's public surface instead:\n" + "\n".join(offences)


def test_the_walk_catches_every_form():
    source = (
        "from privaudit.spec._types import check_epsilon\n"
        "import privaudit.spec.domains._base\n"
        "from privaudit.spec.noise import _cks\n"
        "from privaudit.spec.mechanism_spec import _Delivered\n"
        "from privaudit.spec import check_epsilon, SpecModel\n"
        "from privaudit.spec.noise.discrete import DiscreteLaplace\n"
    )
    found = _offences("scripts/probe.py", source)
    assert [line.split(": ", 1)[1] for line in found] == [
        "from privaudit.spec._types import ...",
        "import privaudit.spec.domains._base",
        "from privaudit.spec.noise import _cks (a private module)",
        "from privaudit.spec.mechanism_spec import _Delivered (a private name)",
    ]
    # tests may import private names (white-box), never private modules
    assert [line.split(": ", 1)[1] for line in _offences("tests/unit/probe.py", source)] == [
        "from privaudit.spec._types import ...",
        "import privaudit.spec.domains._base",
        "from privaudit.spec.noise import _cks (a private module)",
    ]


def test_the_public_helpers_are_exported_from_spec():
    for name in (
        "SpecModel",
        "HASH_SCHEMA",
        "RandomLike",
        "as_generator",
        "WeightedChoice",
        "Epsilon",
        "Delta",
        "ExtendedEpsilon",
        "PositiveInt",
        "NonNegativeInt",
        "PositiveFloat",
        "Probability",
        "check_alpha",
        "check_confidence",
        "check_delta",
        "check_epsilon",
        "check_positive",
        "check_probability",
        "check_sample_size",
    ):
        assert name in spec.__all__ and getattr(spec, name) is not None, name
