"""Throughput of the batched noise samplers against raw numpy baselines.

Run with ``python -m pytest benchmarks -q --benchmark-only``.  Each benchmark draws
N = 10⁶ variates per call from a fixed-seed PCG64 generator; ``extra_info`` records the
samples per second of the mean round.  Target: every continuous sampler within 2x of its
raw numpy baseline (validation overhead per call is O(1)).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.spec.noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    Gaussian,
    InverseQuartic,
    Laplace,
)

N = 1_000_000


def _raw_quartic(rng: np.random.Generator, n: int) -> np.ndarray:
    """The gamma-ratio construction with no validation: sign·(G₁/G₂)^{1/4}."""
    ratio = rng.standard_gamma(0.25, n) / rng.standard_gamma(0.75, n)
    return np.copysign(np.sqrt(np.sqrt(ratio)), rng.random(n) - 0.5)


_P_GEOM = -math.expm1(-1.0 / 3.0)

CASES = {
    "laplace": lambda rng: Laplace(scale=1.0).sample(rng, N),
    "raw_numpy_laplace": lambda rng: rng.laplace(0.0, 1.0, N),
    "gaussian": lambda rng: Gaussian(sigma=1.0).sample(rng, N),
    "raw_numpy_normal": lambda rng: rng.normal(0.0, 1.0, N),
    "inverse_quartic": lambda rng: InverseQuartic().sample(rng, N),
    "raw_numpy_gamma_ratio": lambda rng: _raw_quartic(rng, N),
    "discrete_laplace": lambda rng: DiscreteLaplace(scale=3.0).sample(rng, N),
    "raw_numpy_two_geometrics": lambda rng: rng.geometric(_P_GEOM, N) - rng.geometric(_P_GEOM, N),
    "discrete_gaussian": lambda rng: DiscreteGaussian(sigma=3.0).sample(rng, N),
}


@pytest.mark.parametrize("name", list(CASES))
def test_sampling_throughput(benchmark, name):
    rng = np.random.default_rng(12345)
    draw = CASES[name]
    out = benchmark(draw, rng)
    assert out.shape == (N,)
    benchmark.extra_info["samples_per_second"] = N / benchmark.stats.stats.mean
