"""One timed test split, shared by the executor benchmarks (``test_bench_distributed``,
``test_bench_threads``): :func:`privaudit.auditing.distinguish.distinguish_pair` on an
executor wrapped in a :class:`~privaudit.execution.streaming.TimedExecutor`, whose
seconds (drawing and counting the test split: the part an executor runs) and ε bound go
to the benchmark's ``extra_info``."""

from __future__ import annotations

from typing import Any

from privaudit.auditing.distinguish import distinguish_pair, draw_pair_test
from privaudit.execution.streaming import TimedExecutor


def time_test_split(
    benchmark: Any,
    mechanism: Any,
    pair: Any,
    executor: Any,
    *,
    samples: int,
    search_samples: int = 5_000,
    rounds: int = 3,
) -> Any:
    """Benchmark ``rounds`` test splits of ``samples`` outputs per side (seed 0); returns
    the last result."""
    split_seconds: list[float] = []

    def run() -> Any:
        timed = TimedExecutor(executor)
        draws = draw_pair_test(
            mechanism, pair, samples=samples, search_samples=search_samples, rng=0
        )
        result = distinguish_pair(mechanism, pair, draws, alpha=0.05, executor=timed)
        split_seconds.append(timed.seconds)
        return result

    result = benchmark.pedantic(run, rounds=rounds, iterations=1, warmup_rounds=0)
    benchmark.extra_info["test_split_seconds_min"] = min(split_seconds)
    benchmark.extra_info["epsilon_lower_bound"] = result.epsilon_lower_bound
    benchmark.extra_info["test_sizes"] = list(result.test_sizes)
    return result
