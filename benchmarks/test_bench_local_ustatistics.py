"""Locally private U-statistics (Bell, Bellet, Gascón & Kulkarni, AISTATS 2020): time per call.

Run with ``python -m pytest benchmarks/test_bench_local_ustatistics.py -q --benchmark-only``.
Targets: Protocol A's server estimate for n = 10⁶ users and k = 36 cells under 0.5 s
(histogram O(n) + fast form O(k²)); Protocol B for n = 10⁶ users at depth α = 10 under
5 s (batched Hadamard reports of all users, one FWHT per level, the private walk).  The
user-side randomization is benchmarked separately (one batched draw for all users).
Nothing here asserts on time; each benchmark checks its result.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.estimators.local_ustatistics import (
    KaryRandomizer,
    fast_u_statistic,
    hadamard_reports,
    kendall_table,
    level_estimates,
    private_auc_hierarchical,
    report_histogram,
)

N = 1_000_000


@pytest.fixture(scope="module")
def kendall_reports():
    rng = np.random.default_rng(0)
    cells = rng.integers(0, 36, N)
    return KaryRandomizer(36, 1.0).randomize(cells, rng)


def test_protocol_a_server_estimate_n1e6_k36(benchmark, kendall_reports):
    randomizer, table = KaryRandomizer(36, 1.0), kendall_table(6)

    def server():
        return fast_u_statistic(report_histogram(kendall_reports, 36), table, randomizer)

    value = benchmark(server)
    assert -1.5 < value < 1.5


def test_protocol_a_user_randomization_n1e6_k36(benchmark):
    cells = np.random.default_rng(1).integers(0, 36, N)
    randomizer = KaryRandomizer(36, 1.0)
    out = benchmark(randomizer.randomize, cells, 2)
    assert out.shape == (N,) and out.max() < 36


@pytest.fixture(scope="module")
def scored_users():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, N)
    scores = np.where(labels == 1, rng.integers(300, 1024, N), rng.integers(0, 724, N))
    return scores, labels


@pytest.mark.parametrize("variant", ["S", "C"])
def test_protocol_b_end_to_end_n1e6_depth10(benchmark, scored_users, variant):
    scores, labels = scored_users
    res = benchmark(private_auc_hierarchical, scores, labels, 10, 2.0, variant=variant, rng=4)
    assert np.isfinite(res.estimate)


def test_protocol_b_server_only_n1e6_depth10(benchmark, scored_users):
    scores, _ = scored_users
    reports = hadamard_reports(scores, 10, 2.0, "S", 5)
    est = benchmark(level_estimates, reports)
    assert est.levels[0][0] == N and len(est.levels) == 11
