"""Propose-test-release quality cases: broken PTR medians and their correct controls.

All release [released, value] for the median of 11 records in [0, 1], proposed bound
b = 0.05, claimed (1, 10⁻⁶)-DP (:func:`~privaudit.estimators.stability.ptr_median_mechanism`):
the correct mechanism; ``no_test`` releases median + Lap(2b/ε) without any test;
``local_test`` tests "LS(x) > b" itself (a distance of unbounded sensitivity: 0 or ∞);
``halved_threshold`` divides ln(1/(2δ)) by ε instead of ε/2, so a data set with
LS > b releases with probability √(2δ)/2 ≈ 7·10⁻⁴ instead of δ.  The true ε of each
broken case at the claimed δ is derived in ``docs/stability_mechanisms.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from privaudit.estimators.stability import ptr_median_mechanism, ptr_threshold
from privaudit.estimators.stability.order_statistics import (
    distance_to_instability,
    median_rank,
    order_statistic_local_sensitivity,
)
from privaudit.mechanisms import FunctionMechanism, declare_mechanism
from privaudit.suites._base import BenchmarkCase

__all__ = ["PTR_PAIRS", "ptr_broken_cases", "ptr_control_cases", "ptr_median_variant"]

_SOURCE = "Dwork & Lei, STOC 2009 (PTR); privaudit/suites/_stability_cases.py"
N, LO, HI, EPSILON, DELTA, BOUND = 11, 0.0, 1.0, 1.0, 1e-6, 0.05

#: (x, y) with the largest median jump (both LS > b, d = 0), and (x, y) with LS(x) = 0 ≤ b
#: and LS(y) = 0.5 > b (d(x) = 1, d(y) = 0).
PTR_PAIRS = (
    (np.array([0.0] * 5 + [1.0] * 6), np.array([0.0] * 6 + [1.0] * 5)),
    (np.array([0.0] * 4 + [0.5] * 3 + [1.0] * 4), np.array([0.0] * 5 + [0.5] * 2 + [1.0] * 4)),
)


def ptr_median_variant(kind: str) -> FunctionMechanism:
    """The PTR median of this module's constants with the sampler of ``kind``.

    Parameters
    ----------
    kind : {"correct", "no_test", "local_test", "halved_threshold"}
        Which sampler; every variant keeps the correct mechanism's spec (its claim).

    Returns
    -------
    FunctionMechanism
    """
    correct = ptr_median_mechanism(N, LO, HI, EPSILON, DELTA, BOUND)
    if kind == "correct":
        return correct
    m = median_rank(N)
    half = EPSILON / 2.0
    tau = ptr_threshold(EPSILON, DELTA)
    tests: dict[str, Callable[[np.ndarray], tuple[float, float]]] = {
        "no_test": lambda v: (math.inf, tau),
        "local_test": lambda v: (
            0.0 if order_statistic_local_sensitivity(v, m, LO, HI) > BOUND else math.inf,
            tau,
        ),
        "halved_threshold": lambda v: (
            distance_to_instability(v, m, LO, HI, BOUND),
            math.log(1.0 / (2.0 * DELTA)) / EPSILON,
        ),
    }
    if kind not in tests:
        raise ValueError(f"unknown PTR variant {kind!r}")
    test = tests[kind]

    def sampler(x: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
        values = np.sort(np.asarray(x, dtype=np.float64))
        distance, threshold = test(values)
        noisy = distance + rng.laplace(0.0, 1.0 / half, count)
        noise = rng.laplace(0.0, BOUND / half, count)
        released = noisy > threshold
        out = np.zeros((count, 2))
        out[:, 0] = released
        out[:, 1] = np.where(released, values[m - 1] + noise, 0.0)
        return out

    spec = correct.spec.model_copy(update={"name": f"broken.ptr_median_{kind}"})
    return declare_mechanism(
        spec,
        sampler=sampler,
        statistic=correct.statistic,
        local_sensitivity_bound=correct.local_sensitivity_bound,
    )


def _laplace_epsilon_at(shift_over_scale: float, leak: float, delta: float) -> float:
    """Smallest e with leak·(1 − e^{(e − μ)/2}) ≤ δ: a Laplace shift μ released w.p. ``leak``."""
    return shift_over_scale + 2.0 * math.log(1.0 - delta / leak)


def ptr_broken_cases() -> tuple[BenchmarkCase, ...]:
    """The three broken PTR medians (claimed (1, 10⁻⁶)), with their true ε at δ = 10⁻⁶.

    Returns
    -------
    tuple of BenchmarkCase
        ``broken.ptr_median_no_test``: true ε = ε'·(hi − lo)/b + 2 ln(1 − δ) ≈ 10 (the
        Laplace mechanism at a median jump of 1 = 20 b);
        ``broken.ptr_median_local_test``: true ε = ∞ (⊥ has mass 1 − δ on y, 0 on x);
        ``broken.ptr_median_halved_threshold``: true ε = 10 + 2 ln(1 − δ/p) with
        p = √(2δ)/2 the release probability at d = 0 (the jump-1 pair).
    """
    half = EPSILON / 2.0
    mu = half * (HI - LO) / BOUND
    leak = 0.5 * math.exp(-half * math.log(1.0 / (2.0 * DELTA)) / EPSILON)
    truths = {
        "no_test": (_laplace_epsilon_at(mu, 1.0, DELTA), "Always releases median + Lap(2b/eps)."),
        "local_test": (math.inf, "Tests LS(x) > b directly: d in {0, inf} is not 1-Lipschitz."),
        "halved_threshold": (
            _laplace_epsilon_at(mu, leak, DELTA),
            f"Threshold ln(1/(2 delta))/eps: release w.p. {leak:.3g} at d = 0.",
        ),
    }
    return tuple(
        BenchmarkCase(
            name=f"broken.ptr_median_{kind}",
            mechanism=ptr_median_variant(kind),
            true_epsilon=true_eps,
            claimed_epsilon=EPSILON,
            claimed_delta=DELTA,
            input_pairs=PTR_PAIRS,
            source=_SOURCE,
            notes=note + " Claimed (1, 1e-6).",
        )
        for kind, (true_eps, note) in truths.items()
    )


def ptr_control_cases() -> tuple[BenchmarkCase, ...]:
    """The correct PTR median: (1, 10⁻⁶)-DP (proven; true ε ≤ 1, exactness not shown)."""
    return (
        BenchmarkCase(
            name="ptr.median",
            mechanism=ptr_median_variant("correct"),
            true_epsilon=EPSILON,
            claimed_epsilon=EPSILON,
            claimed_delta=DELTA,
            input_pairs=PTR_PAIRS,
            source=_SOURCE,
            notes="Generic PTR[b] at (eps/2, 2 delta): (eps, delta)-DP.",
            true_epsilon_exact=False,
        ),
    )
