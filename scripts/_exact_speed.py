"""Throughput of the exact samplers, OpenDP's and the float-safe mechanisms (draws/s).

Used by ``scripts/sampler_speed.py --exact``.  Every sampler draws ``size`` values in one
call (the scalar CKS20 reference and OpenDP, one draw at a time inside, draw fewer:
2 000 and 10⁵), ``repeats`` times from fixed seeds; the table gives the best
throughput (the least disturbed call on a shared machine) and the median.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from privaudit.mechanisms import (
    FloatSafeGaussianMechanism,
    FloatSafeLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
)
from privaudit.spec import DiscreteGaussian, DiscreteLaplace, Gaussian, Laplace

# private: the speed table times the CKS20 scalar reference samplers (``_discrete_*_exact``)
# against the compiled kernel; they are internal by design and have no public name
from privaudit.spec.noise import (
    discrete as scalar_reference,  # the CKS20 scalar reference lives here
)

Draw = Callable[[int, int], object]  # (n, seed) -> draws


def _opendp() -> dict[str, tuple[Draw, int]]:
    """OpenDP's samplers (vector measurements on zeros), when ``opendp`` is importable."""
    try:
        import opendp.prelude as dp
    except ImportError:
        return {}
    dp.enable_features("contrib")
    out: dict[str, tuple[Draw, int]] = {}
    ints = dp.vector_domain(dp.atom_domain(T=int))
    floats = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    specs = {
        "OpenDP discrete Laplace (scale 1)": (
            dp.m.make_laplace(ints, dp.l1_distance(T=int), scale=1.0),
            0,
        ),
        "OpenDP discrete Gaussian (σ 3.73)": (
            dp.m.make_gaussian(ints, dp.l2_distance(T=int), scale=3.73),
            0,
        ),
        "OpenDP float Laplace (scale 1)": (
            dp.m.make_laplace(floats, dp.l1_distance(T=float), scale=1.0),
            0.0,
        ),
        "OpenDP float Gaussian (σ 3.73)": (
            dp.m.make_gaussian(floats, dp.l2_distance(T=float), scale=3.73),
            0.0,
        ),
    }
    for name, (meas, zero) in specs.items():
        out[name] = ((lambda n, seed, m=meas, z=zero: m([z] * n)), 100_000)
    return out


def _samplers(size: int) -> dict[str, tuple[Draw, int]]:
    lap, gau = Laplace(scale=1.0), Gaussian(sigma=3.73)
    table: dict[str, tuple[Draw, int]] = {
        "numpy Generator.laplace (scale 1)": (
            lambda n, s: np.random.default_rng(s).laplace(0.0, 1.0, n),
            size,
        ),
        "numpy Generator.normal (σ 3.73)": (
            lambda n, s: np.random.default_rng(s).normal(0.0, 3.73, n),
            size,
        ),
        "idealized Laplace law (scale 1)": (lambda n, s: lap.sample(s, n), size),
        "idealized Gaussian law (σ 3.73)": (lambda n, s: gau.sample(s, n), size),
    }
    for scale in (1.0, 1 / 0.3, 100.0):
        law = DiscreteLaplace(scale=scale)
        table[f"exact discrete Laplace (scale {scale:.4g})"] = (
            lambda n, s, law=law: law.sample_exact(s, n),
            size,
        )
    for sigma in (1.0, 3.73, 100.0):
        law_g = DiscreteGaussian(sigma=sigma)
        table[f"exact discrete Gaussian (σ {sigma:g})"] = (
            lambda n, s, law=law_g: law.sample_exact(s, n),
            size,
        )
    table["CKS20 scalar reference, discrete Laplace (scale 1)"] = (
        lambda n, s: [
            scalar_reference._discrete_laplace_exact(np.random.default_rng(s), 1, 1)
            for _ in range(n)
        ],
        2_000,
    )
    table["CKS20 scalar reference, discrete Gaussian (σ 3.73)"] = (
        lambda n, s: [
            scalar_reference._discrete_gaussian_exact(np.random.default_rng(s), Fraction(3.73) ** 2)
            for _ in range(n)
        ],
        2_000,
    )
    table.update(_opendp())
    mechs = {
        "LaplaceMechanism (idealized, ε 1)": LaplaceMechanism(1.0, 1.0),
        "FloatSafeLaplaceMechanism (ε 1, g 2⁻¹⁰)": FloatSafeLaplaceMechanism(1.0, 1.0),
        "GaussianMechanism (idealized, (1, 1e-5))": GaussianMechanism(1.0, 1e-5, 1.0),
        "FloatSafeGaussianMechanism ((1, 1e-5), g 2⁻¹⁰)": FloatSafeGaussianMechanism(
            1.0, 1e-5, 1.0
        ),
    }
    for name, mech in mechs.items():
        table[name] = (lambda n, s, m=mech: m.sample(0.3, n, rng=s), size)
    return table


def _rate(draw: Draw, n: int, repeats: int) -> tuple[float, float, float]:
    """(best, median) wall-clock and best CPU-time draws per second."""
    draw(min(n, 1000), 12345)  # warm caches (and load the compiled kernel)
    rates, cpu_rates = [], []
    for seed in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        draw(n, seed)
        rates.append(n / (time.perf_counter() - t0))
        cpu_rates.append(n / max(time.process_time() - c0, 1e-9))
    return max(rates), float(np.median(rates)), max(cpu_rates)


def exact_table(size: int, repeats: int, json_path: str | None) -> None:
    """Print the Markdown table (and save the numbers as JSON if asked).

    The CPU-time column (process time of the call) is the less load-sensitive figure on
    a shared machine: it does not count the time the process waited for a core.
    """
    results: dict[str, dict[str, float]] = {}
    print("| sampler | draws per call | best draws/s | median draws/s | best draws/CPU s |")
    print("|---|---|---|---|---|")
    for name, (draw, n) in _samplers(size).items():
        best, median, cpu = _rate(draw, n, repeats)
        results[name] = {"draws": n, "best": best, "median": median, "best_cpu": cpu}
        print(f"| {name} | {n:,} | {best:.3g} | {median:.3g} | {cpu:.3g} |", flush=True)
    if json_path:
        with open(json_path, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
