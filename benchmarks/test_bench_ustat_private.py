"""Algorithm 1 end to end (validation, projections, band, weights, Ã_n, S, spec, noise).

Run with ``python3 -m pytest benchmarks/test_bench_ustat_private.py -q --benchmark-only``.
Every call is one full :func:`private_mean_local_hajek` (or Wrapper 1) release at n = 10⁴,
k = 2 (variance kernel, records in [0, 1]): building the mechanism and its spec, the exact
U-statistic and all local Hájek projections, the band level, the weights, the
min-weighted tuple sums when some weight is below 1, the smooth-sensitivity table and the
noise.  The variance kernel has a closed form for U_n and the ĥ(i) (O(n)); the last
benchmark hides it, so every pair is enumerated (O(n²), the generic k = 2 path).  Nothing
here asserts on time; each benchmark checks its result.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.estimators.ustatistics import (
    Kernel,
    private_mean_local_hajek,
    private_median_of_means,
    variance_kernel,
)

N = 10_000
KERNEL = variance_kernel(0.0, 1.0)


def _half_squared_difference(data: np.ndarray, tuples: np.ndarray) -> np.ndarray:
    diff = data[tuples[:, 0]] - data[tuples[:, 1]]
    return 0.5 * diff * diff


#: The variance kernel without its closed form: the exact sums enumerate all C(n, 2) pairs.
GENERIC = Kernel(
    "variance_without_fast_path", 2, _half_squared_difference, 0.0, 0.5, domain=KERNEL.domain
)


@pytest.fixture(scope="module")
def uniform() -> np.ndarray:
    return np.random.default_rng(0).uniform(0.0, 1.0, N)


@pytest.fixture(scope="module")
def with_outliers() -> np.ndarray:
    x = np.random.default_rng(1).uniform(0.45, 0.55, N)
    x[:40] = np.linspace(0.0, 1.0, 40)  # 40 records far from the bulk: weights below 1
    return x


def test_algorithm_one_all_records_in_the_band(benchmark, uniform):
    result = benchmark(private_mean_local_hajek, uniform, KERNEL, 1.0, xi=0.1, rng=0)
    assert result.level == 1 and result.weighted_statistic == result.u_statistic
    assert abs(result.u_statistic - np.var(uniform, ddof=1)) < 1e-12


def test_algorithm_one_with_down_weighted_records(benchmark, with_outliers):
    result = benchmark(private_mean_local_hajek, with_outliers, KERNEL, 1.0, xi=0.001, rng=0)
    assert result.weighted_statistic != result.u_statistic  # the min-weighted sums ran
    assert np.isfinite(result.estimate)


def test_algorithm_one_paper_mode(benchmark, uniform):
    result = benchmark(
        private_mean_local_hajek, uniform, KERNEL, 10.0, xi=0.1, sensitivity_mode="paper", rng=0
    )
    assert result.spec.proof_status == "unproven"


def test_wrapper_one_of_algorithm_one(benchmark, uniform):
    result = benchmark(private_median_of_means, uniform, KERNEL, 1.0, alpha=0.05, xi=0.1, rng=0)
    assert result.chunks == 25 and np.isfinite(result.estimate)


def test_algorithm_one_generic_kernel_without_fast_path(benchmark, uniform):
    result = benchmark.pedantic(
        private_mean_local_hajek,
        args=(uniform, GENERIC, 1.0),
        kwargs={"xi": 0.1, "rng": 0},
        rounds=3,
        iterations=1,
    )
    assert abs(result.u_statistic - np.var(uniform, ddof=1)) < 1e-9
