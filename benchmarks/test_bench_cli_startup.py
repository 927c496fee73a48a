"""Start-up of the command line: ``privaudit --help``, an argument error, ``privaudit
list`` and ``registry.status``, each in a fresh interpreter (the import cost is the point).

Run with ``python -m pytest benchmarks/test_bench_cli_startup.py`` (pytest-benchmark).
Which modules the fast paths load is asserted in ``tests/unit/privaudit/cli/test_cli_startup.py``;
``python -X importtime -m privaudit --help`` shows where the rest of the time goes.
"""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(*argv: str) -> int:
    return subprocess.run([sys.executable, *argv], capture_output=True, check=False).returncode


@pytest.mark.parametrize(
    "argv",
    [("--help",), ("audit", "--samples", "-3"), ("list",), ("list", "--check")],
    ids=["help", "argument-error", "list", "list-check"],
)
def test_cli_start_up(benchmark, argv):
    code = benchmark.pedantic(_run, args=("-m", "privaudit", *argv), rounds=3, iterations=1)
    if "--check" in argv:
        assert code in (0, 1)  # 1 (EXIT_VIOLATION) while a certificate is stale
    else:
        assert code == (2 if "-3" in argv else 0)


def test_registry_status_start_up(benchmark):
    code = benchmark.pedantic(
        _run,
        args=("-c", "from privaudit import registry; registry.status('laplace')"),
        rounds=3,
        iterations=1,
    )
    assert code == 0
