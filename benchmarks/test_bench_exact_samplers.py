"""Throughput of the exact samplers beside numpy, OpenDP and the scalar CKS20 reference.

Run with ``python -m pytest benchmarks/test_bench_exact_samplers.py -q --benchmark-only``.
The compiled exact samplers (``spec.noise._cks``) and the float-safe mechanisms draw
N = 10⁶ values per call; the scalar reference (one ``Fraction`` draw at a time) draws
2 000 and OpenDP's vector measurements 10⁵ (they cost ~10⁴ times more per draw).
``extra_info["draws_per_second"]`` records the throughput of the mean round.  Targets:
≥ 10⁷ exact draws/s each; float-safe mechanisms ≥ 0.3× their idealized counterparts.
The OpenDP cases run only when ``opendp`` (in the ``test`` extra) is importable.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from privaudit.mechanisms import (
    FloatSafeGaussianMechanism,
    FloatSafeLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
)
from privaudit.spec.noise import DiscreteGaussian, DiscreteLaplace
from privaudit.spec.noise import (
    discrete as scalar_reference,  # the CKS20 scalar reference lives here
)

N = 1_000_000
N_SCALAR = 2_000
N_OPENDP = 100_000

CASES = {
    "exact_discrete_laplace_scale1": (lambda g: DiscreteLaplace(scale=1.0).sample_exact(g, N), N),
    "exact_discrete_laplace_scale100": (
        lambda g: DiscreteLaplace(scale=100.0).sample_exact(g, N),
        N,
    ),
    "exact_discrete_gaussian_sigma3.73": (
        lambda g: DiscreteGaussian(sigma=3.73).sample_exact(g, N),
        N,
    ),
    "exact_discrete_gaussian_sigma100": (
        lambda g: DiscreteGaussian(sigma=100.0).sample_exact(g, N),
        N,
    ),
    "numpy_laplace": (lambda g: g.laplace(0.0, 1.0, N), N),
    "numpy_normal": (lambda g: g.normal(0.0, 3.73, N), N),
    "scalar_cks20_discrete_laplace": (
        lambda g: [scalar_reference._discrete_laplace_exact(g, 1, 1) for _ in range(N_SCALAR)],
        N_SCALAR,
    ),
    "scalar_cks20_discrete_gaussian": (
        lambda g: [
            scalar_reference._discrete_gaussian_exact(g, Fraction(3.73) ** 2)
            for _ in range(N_SCALAR)
        ],
        N_SCALAR,
    ),
    "laplace_mechanism_idealized": (lambda g: LaplaceMechanism(1.0, 1.0).sample(0.3, N, g), N),
    "laplace_mechanism_float_safe": (
        lambda g: FloatSafeLaplaceMechanism(1.0, 1.0).sample(0.3, N, g),
        N,
    ),
    "gaussian_mechanism_idealized": (
        lambda g: GaussianMechanism(1.0, 1e-5, 1.0).sample(0.3, N, g),
        N,
    ),
    "gaussian_mechanism_float_safe": (
        lambda g: FloatSafeGaussianMechanism(1.0, 1e-5, 1.0).sample(0.3, N, g),
        N,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_exact_sampler_throughput(benchmark, name):
    draw, n = CASES[name]
    gen = np.random.default_rng(0)
    benchmark.pedantic(draw, args=(gen,), rounds=3, iterations=1, warmup_rounds=1)
    benchmark.extra_info["draws_per_second"] = n / benchmark.stats.stats.mean


def _opendp_measurements():
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    ints = dp.vector_domain(dp.atom_domain(T=int))
    return {
        "opendp_discrete_laplace_scale1": dp.m.make_laplace(ints, dp.l1_distance(T=int), scale=1.0),
        "opendp_discrete_gaussian_sigma3.73": dp.m.make_gaussian(
            ints, dp.l2_distance(T=int), scale=3.73
        ),
    }


@pytest.mark.parametrize(
    "name", ["opendp_discrete_laplace_scale1", "opendp_discrete_gaussian_sigma3.73"]
)
def test_opendp_sampler_throughput(benchmark, name):
    meas = _opendp_measurements()[name]
    zeros = [0] * N_OPENDP
    benchmark.pedantic(meas, args=(zeros,), rounds=3, iterations=1, warmup_rounds=1)
    benchmark.extra_info["draws_per_second"] = N_OPENDP / benchmark.stats.stats.mean
