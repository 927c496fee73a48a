"""Module docstrings stay short, and the engine's code names no benchmark, seed or issue.

A module docstring says what the module is for, and what it is not for, in a few lines (a
package ``__init__`` may add a bullet map of its modules).  Derivations, measurements and
narrative go to ``docs/``: ``docs/engine_notes.md`` (one section per module, titled with its
dotted path) or ``docs/derivations.md``, where the docstring points.  The engine
(``privaudit/auditing``, ``privaudit/statistics``, ``privaudit/execution``) states its rules
without the anecdotes behind them: the benchmark, seed and issue of a measurement are named
in the notes, not in the code.
"""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "privaudit"
#: Most lines of a module docstring, from its opening to its closing quotes.
LIMIT = 15
#: Most lines of a package ``__init__``'s docstring, which may map the package's modules
#: (``privaudit.auditing.distinguish`` names each of its 29 modules).
INIT_LIMIT = 30
#: Names of benchmark mechanisms, seeds and issue numbers, which the engine's code (its
#: comments and docstrings included) must not carry.
ANECDOTE = re.compile(
    r"SVT34Parallel|ReportNoisyMax|NumericalSVT|SparseVector|issue [0-9]+|\(issue|seed [0-9]+"
)
ENGINE = ("auditing", "statistics", "execution")


def _relative(path: pathlib.Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _modules() -> list[pathlib.Path]:
    return sorted(PACKAGE.rglob("*.py"))


def docstring_lines(source: str) -> int:
    """Lines of the module docstring of ``source`` as written (0 when it has none)."""
    body = ast.parse(source).body
    first = body[0] if body else None
    if not (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        and first.value.value.strip()
    ):
        return 0
    assert first.end_lineno is not None
    return first.end_lineno - first.lineno + 1


def _limit(path: pathlib.Path) -> int:
    return INIT_LIMIT if path.name == "__init__.py" else LIMIT


def test_the_measure_counts_the_docstring_as_written():
    assert docstring_lines('"""One line."""\nx = 1\n') == 1
    assert docstring_lines('"""Summary.\n\nMore.\n"""\n') == 4
    assert docstring_lines("x = 1\n") == 0
    assert docstring_lines('""" """\n') == 0
    assert docstring_lines("") == 0


def test_the_scan_sees_the_package():
    names = {_relative(path) for path in _modules()}
    assert {"privaudit/auditing/auditor.py", "privaudit/statistics/rate_ratio.py"} <= names


def test_every_module_has_a_short_docstring():
    problems = []
    for path in _modules():
        rel = _relative(path)
        lines = docstring_lines(path.read_text(encoding="utf-8"))
        if not lines:
            problems.append(f"{rel}: no module docstring (say what the module is for)")
        elif lines > _limit(path):
            problems.append(f"{rel}: a module docstring of {lines} lines (limit {_limit(path)})")
    assert not problems, (
        "module docstrings too long or missing: keep what the module is for and not for (and "
        "key references), and move derivations, measurements and narrative to "
        'docs/engine_notes.md ("## <dotted.module.path>") or docs/derivations.md:\n'
        + "\n".join(problems)
    )


@pytest.mark.parametrize(
    "text",
    [
        "(ReportNoisyMax3: 0.2303 → 0.2476)",
        "SVT34Parallel's halving pool",
        "NumericalSVT, whose released answers",
        "SparseVectorTechnique1 and 2",
        "no check is skipped in silence (issue 27)",
        "(issue 31: 4 different choices",
        "the pool at seed 2",
    ],
)
def test_the_pattern_catches_anecdotes(text):
    assert ANECDOTE.search(text)


@pytest.mark.parametrize(
    "text",
    ["sparse-vector outputs", "a seed derived from the test's id", "``SeedSequence(seed)``"],
)
def test_the_pattern_spares_rules(text):
    assert not ANECDOTE.search(text)


def test_engine_code_names_no_benchmark_seed_or_issue():
    found = []
    for folder in ENGINE:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if ANECDOTE.search(line):
                    found.append(f"{_relative(path)}:{number}: {line.strip()[:100]}")
    assert not found, (
        "the engine names a benchmark, seed or issue: state the rule in the code and move the "
        'measurement to docs/engine_notes.md, under "## <dotted.module.path>":\n' + "\n".join(found)
    )
