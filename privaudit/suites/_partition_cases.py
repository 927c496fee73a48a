"""Partition-selection quality cases: a histogram with no threshold, and correct controls.

:class:`NoThresholdHistogram` releases every key present in the data with a Laplace noisy
count, under the (ε, δ) claim of the thresholded Laplace histogram: a key with one user
appears on one side of an add/remove pair and never on the other, so δ(ε) = 1 at every ε
(true ε = ∞).  :func:`partition_control_cases` holds the three correct mechanisms of
:class:`~privaudit.mechanisms.KeyedHistogramMechanism` on the same universe.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.mechanisms import KeyedHistogramMechanism
from privaudit.suites._base import BenchmarkCase

__all__ = ["NoThresholdHistogram", "partition_broken_cases", "partition_control_cases"]

_SOURCE = "privaudit quality suite (privaudit/suites/_partition_cases.py)"
#: The universe and the claim of every case: K = 4 keys, (ε, δ) = (1, 10⁻³).
UNIVERSE, EPSILON, DELTA = 4, 1.0, 1e-3


class NoThresholdHistogram(KeyedHistogramMechanism):
    """The thresholded Laplace histogram with its threshold left out.

    Parameters
    ----------
    universe_size : int
        K.
    epsilon, delta : float
        The claim (that of the thresholded Laplace histogram).

    Notes
    -----
    Every key with n ≥ 1 users is released with count + Lap(1/ε): P[key k appears] = 1
    on the side of a pair where k has one user and 0 on the side where it has none, so
    δ(ε) = 1 for every ε.  Its spec is the correct mechanism's spec, unchanged.

    References
    ----------
    Korolova, Kenthapadi, Mishra & Ntoulas, WWW 2009, §4 (why the threshold is needed);
    Desfontaines, Voss, Gipson & Mandayam, PoPETS 2022, §1.
    """

    def __init__(
        self, universe_size: int = UNIVERSE, epsilon: float = EPSILON, delta: float = DELTA
    ) -> None:
        super().__init__(universe_size, epsilon, delta, method="laplace")

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        counts = self.counts(data)
        noisy = counts + rng.laplace(0.0, self.noise_scale, (size, counts.size))
        present = np.broadcast_to(counts > 0, noisy.shape)
        return self.keyed_release.encode(present, noisy)


def _pairs() -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    x = np.array([0, 0, 1, 2])
    y = np.array([0, 0, 1, 2, 3])  # key 3: no user in x, one in y
    return ((x, y), (y, x))


def partition_broken_cases() -> tuple[BenchmarkCase, ...]:
    """``broken.histogram_no_threshold``: K = 4, claimed (1, 10⁻³), true ε = ∞.

    Returns
    -------
    tuple of BenchmarkCase
    """
    m = NoThresholdHistogram()
    return (
        BenchmarkCase(
            name="broken.histogram_no_threshold",
            mechanism=m,
            true_epsilon=math.inf,
            claimed_epsilon=EPSILON,
            claimed_delta=DELTA,
            input_pairs=_pairs(),
            source=_SOURCE,
            notes="Every present key released with a Laplace count: a key with one user "
            "appears with probability 1 on one side, 0 on the other (delta(eps) = 1).",
        ),
    )


def partition_control_cases() -> tuple[BenchmarkCase, ...]:
    """The thresholded Laplace, thresholded Gaussian and optimal partition selection on
    K = 4 keys, each exactly (1, 10⁻³)-DP (true ε at the claimed δ: 1).

    Returns
    -------
    tuple of BenchmarkCase
    """
    cases = []
    for method in ("laplace", "gaussian", "optimal"):
        m = KeyedHistogramMechanism(UNIVERSE, EPSILON, DELTA, method=method)
        cases.append(
            BenchmarkCase(
                name=f"partition_selection.{method}",
                mechanism=m,
                true_epsilon=EPSILON,
                claimed_epsilon=EPSILON,
                claimed_delta=DELTA,
                input_pairs=_pairs(),
                source=_SOURCE,
                notes="Correct: delta(eps) at the claimed eps equals the claimed delta.",
            )
        )
    return tuple(cases)
