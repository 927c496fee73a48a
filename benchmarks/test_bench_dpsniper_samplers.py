"""Sampling cost of DP-Sniper's 20 benchmark mechanisms: 10⁶ outputs per call.

Run with ``python3 -m pytest benchmarks/test_bench_dpsniper_samplers.py --benchmark-only
-q``.  Each benchmark draws N = 10⁶ outputs of one mechanism on the first input of its
first pair (``privaudit.suites.dpsniper_cases``) from a fixed-seed generator;
``extra_info`` records the outputs per second of the mean round and the output shape.
Nothing is asserted about time (the machine is shared); ``scripts/sampler_speed.py``
prints the same measurements as a table.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.suites import dpsniper_cases

N = 1_000_000
CASES = {case.name: case for case in dpsniper_cases()}


@pytest.mark.parametrize("name", list(CASES))
def test_dpsniper_sampler_throughput(benchmark, name):
    case = CASES[name]
    x = case.input_pairs[0][0]
    rng = np.random.default_rng(2024)
    out = benchmark.pedantic(
        case.mechanism.sample, args=(x, N, rng), rounds=3, iterations=1, warmup_rounds=1
    )
    d = case.spec.output_dimension
    assert out.shape == ((N,) if d == 1 else (N, d))
    benchmark.extra_info["outputs_per_second"] = N / benchmark.stats.stats.mean
    benchmark.extra_info["output_shape"] = list(out.shape)
