"""Sampling throughput of the built-in mechanisms against raw numpy generation of the same law.

Run with ``python -m pytest benchmarks/test_bench_mechanisms.py`` (pytest-benchmark).  For
each mechanism, N = 10⁶ outputs are drawn through ``Mechanism.sample`` (input validation,
statistic, the spec's law, addition) and, as the baseline, by calling numpy's
``Generator`` directly for the same law.  The target is an overhead within 2×;
:func:`test_overhead_within_target` checks it with min-of-repeats wall-clock timings.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np
import pytest

from privaudit.mechanisms import (
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    smooth_median_mechanism,
)

N = 1_000_000
TARGET_RATIO = 2.0
MEDIAN_INPUT = np.linspace(0.0, 1.0, 101) ** 2


def _raw_laplace(mech: Mechanism) -> Callable[[np.random.Generator], np.ndarray]:
    b = mech.spec.noise.law.scale
    return lambda rng: rng.laplace(0.0, b, N) + 0.5


def _raw_gaussian(mech: Mechanism) -> Callable[[np.random.Generator], np.ndarray]:
    sigma = mech.spec.noise.law.sigma
    return lambda rng: rng.normal(0.0, sigma, N) + 0.5


def _raw_discrete_laplace(mech: Mechanism) -> Callable[[np.random.Generator], np.ndarray]:
    p = -math.expm1(-1.0 / mech.spec.noise.law.scale)
    return lambda rng: rng.geometric(p, N) - rng.geometric(p, N) + 7


def _raw_inverse_quartic(mech: Mechanism) -> Callable[[np.random.Generator], np.ndarray]:
    f = mech.statistic(MEDIAN_INPUT)
    scale = mech.noise_scale(MEDIAN_INPUT)

    def draw(rng: np.random.Generator) -> np.ndarray:
        ratio = rng.standard_gamma(0.25, N) / rng.standard_gamma(0.75, N)
        z = np.sqrt(np.sqrt(ratio))
        z[rng.random(N) < 0.5] *= -1.0
        return f + scale * z

    return draw


CASES: dict[str, tuple[Callable[[], Mechanism], object, Callable]] = {
    "laplace": (lambda: LaplaceMechanism(1.0, 1.0), 0.5, _raw_laplace),
    "gaussian": (lambda: GaussianMechanism(1.0, 1e-5, 1.0), 0.5, _raw_gaussian),
    "discrete_laplace": (lambda: DiscreteLaplaceMechanism(1.0, 1), 7, _raw_discrete_laplace),
    "smooth_inverse_quartic": (
        lambda: smooth_median_mechanism(101, 0.0, 1.0, 1.0),
        MEDIAN_INPUT,
        _raw_inverse_quartic,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_mechanism_sample(benchmark, name):
    build, x, _ = CASES[name]
    mech = build()
    benchmark.group = name
    benchmark.name = f"{name}: Mechanism.sample"
    rng = np.random.default_rng(0)
    out = benchmark(mech.sample, x, N, rng)
    assert out.shape == (N,)


@pytest.mark.parametrize("name", sorted(CASES))
def test_raw_numpy(benchmark, name):
    build, _, raw = CASES[name]
    draw = raw(build())
    benchmark.group = name
    benchmark.name = f"{name}: raw numpy"
    rng = np.random.default_rng(0)
    out = benchmark(draw, rng)
    assert out.shape == (N,)


def _best_of(fn: Callable[[], object], repeats: int = 7) -> float:
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("name", sorted(CASES))
def test_overhead_ratio_report(name, record_property):
    build, x, raw = CASES[name]
    mech = build()
    draw = raw(mech)
    rng = np.random.default_rng(1)
    t_mech = _best_of(lambda: mech.sample(x, N, rng))
    t_raw = _best_of(lambda: draw(rng))
    ratio = t_mech / t_raw
    record_property("ratio", ratio)
    # Reported, not asserted: wall-clock ratios are measurements, never test outcomes.
    print(
        f"\n{name}: mechanism {t_mech * 1e3:.1f} ms, raw numpy {t_raw * 1e3:.1f} ms, "
        f"ratio {ratio:.2f} (target < {TARGET_RATIO})"
    )
