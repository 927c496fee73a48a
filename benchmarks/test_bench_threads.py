"""The test split of two DP-Sniper mechanisms, serially and on a pool of two threads.

Run with ``python -m pytest benchmarks/test_bench_threads.py --benchmark-only``.  One
call is :func:`privaudit.auditing.distinguish.distinguish_pair` on the first pair of the
suite case, with ``SAMPLES`` test outputs per side and a small search split, so that
the streamed test split (the part a :class:`~privaudit.execution.threads.ThreadExecutor`
runs on threads) dominates.  ``extra_info`` records the seconds spent in the executor
and the ε lower bound, which is the same on every executor.  Nothing here asserts on
time.

* ``SparseVectorTechnique2`` (Lyu, Su & Li, PVLDB 2017, Algorithm 2): finite outputs,
  the cost is drawing;
* ``SVT34Parallel`` (Algorithms 3 and 4 side by side): 30 numbers per output, the cost
  is drawing and scoring the mixed outputs.
"""

from __future__ import annotations

import pytest
from _test_split import time_test_split

from privaudit.auditing.pairs import verified_pair
from privaudit.execution.streaming import SerialExecutor
from privaudit.execution.threads import ThreadExecutor
from privaudit.suites import dpsniper_cases

#: Test outputs per side of each mechanism.
SAMPLES = {"SparseVectorTechnique2": 4_000_000, "SVT34Parallel": 1 << 19}


@pytest.fixture(scope="module", params=["serial", 2], ids=["serial", "2_threads"])
def executor(request):
    if request.param == "serial":
        yield SerialExecutor()
        return
    with ThreadExecutor(threads=request.param) as run:
        yield run


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_test_split(benchmark, executor, name):
    case = next(c for c in dpsniper_cases() if c.name.endswith(f".{name}"))
    pair = verified_pair(case.mechanism.spec, *case.input_pairs[0], "explicit")
    result = time_test_split(benchmark, case.mechanism, pair, executor, samples=SAMPLES[name])
    assert result.test_sizes[0] > SAMPLES[name] // 2  # Poisson: never below half
