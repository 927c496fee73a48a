"""The test split of an expensive mechanism on 1 and 2 local Dask workers, and serially.

Run with ``python -m pytest benchmarks/test_bench_distributed.py --benchmark-only``
(needs the extra ``privaudit[distributed]``).  The mechanism is DP-Sniper's
``SVT34Parallel`` (Lyu, Su & Li, PVLDB 2017, Algorithms 3 and 4 side by side; outputs
of 30 numbers), on the first pair of its suite case; one call is
:func:`privaudit.auditing.distinguish.distinguish_pair` with 2¹⁹ test outputs per side (60 blocks of
8,738 rows) and a search split of 5·10³.  The Dask clusters (worker processes, one thread
each) are started once per module, outside the timing.  ``extra_info`` records the
seconds spent in the executor (drawing and counting the test split: the part that is
distributed) and the ε lower bound, which is the same on every executor.  Nothing here
asserts on time; ``scripts/distributed_scaling.py`` prints the speed-up table.
"""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")

from _test_split import time_test_split

from privaudit.auditing.distinguish import distinguish_pair, draw_pair_test
from privaudit.auditing.pairs import verified_pair
from privaudit.execution.distributed import DaskExecutor
from privaudit.execution.streaming import SerialExecutor
from privaudit.suites import dpsniper_cases

SAMPLES = 1 << 19
CASE = next(c for c in dpsniper_cases() if c.name.endswith(".SVT34Parallel"))
PAIR = verified_pair(CASE.mechanism.spec, *CASE.input_pairs[0], "explicit")


@pytest.fixture(
    scope="module", params=["serial", 1, 2], ids=["serial", "dask_1_worker", "dask_2_workers"]
)
def executor(request):
    if request.param == "serial":
        yield SerialExecutor()
        return
    with DaskExecutor(n_workers=request.param, processes=True) as ex:
        warm_up = draw_pair_test(CASE.mechanism, PAIR, samples=20_000, search_samples=1_000, rng=0)
        distinguish_pair(CASE.mechanism, PAIR, warm_up, alpha=0.05, executor=ex)  # workers import
        yield ex


def test_svt34_test_split(benchmark, executor):
    result = time_test_split(benchmark, CASE.mechanism, PAIR, executor, samples=SAMPLES)
    assert result.test_sizes[0] > SAMPLES // 2  # Poisson(2¹⁹): never below half
