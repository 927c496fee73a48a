"""Distributions on a finite alphabet near the uniform law, for uniformity-testing studies.

The private uniformity test (Chaudhuri et al. 2024, Section 5.1) separates

* H0 (approximately uniform): ℓ2(p, U) ≤ δ/√(2m), and
* H1 (far): ℓ2(p, U) ≥ δ/√m,

for p_v = (1 + a_v)/m with |a_v| ≤ 1 and Σ_v a_v = 0.  :func:`plus_minus_perturbation`
builds the standard ±s perturbation at a prescribed ℓ2 distance, so that
``plus_minus_perturbation(m, delta / sqrt(m))`` is an alternative on the H1 boundary and
``plus_minus_perturbation(m, delta / sqrt(2 m))`` a distribution on the boundary of the
tolerant null.  Labels are coded 0, …, m − 1.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privaudit.spec import RandomLike, as_generator
from privaudit.spec.errors import InvalidParameterError

__all__ = ["AlphabetDistribution", "plus_minus_perturbation", "uniform_distribution"]


def _check_alphabet(m: Any) -> int:
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or int(m) < 2:
        raise InvalidParameterError(f"the alphabet size m must be an integer >= 2, got m={m!r}")
    return int(m)


@dataclass(frozen=True)
class AlphabetDistribution:
    """A probability vector p over the labels 0, …, m − 1.

    Attributes
    ----------
    probabilities : numpy.ndarray
        p, shape (m,), non-negative, summing to 1 (read-only).
    label : str
        A short description (e.g. ``"uniform"`` or ``"+-0.1"``).
    """

    probabilities: np.ndarray = field(repr=False)
    label: str = ""

    def __post_init__(self) -> None:
        p = np.array(self.probabilities, dtype=np.float64)
        if p.ndim != 1 or p.size < 2:
            raise InvalidParameterError(
                f"probabilities must be a vector of length m >= 2, got shape {p.shape}"
            )
        if (
            not np.all(np.isfinite(p))
            or np.any(p < 0)
            or not math.isclose(float(p.sum()), 1.0, rel_tol=0.0, abs_tol=1e-9)
        ):
            raise InvalidParameterError(
                f"probabilities must be finite, >= 0 and sum to 1, got sum {float(p.sum())!r}"
            )
        p.setflags(write=False)
        object.__setattr__(self, "probabilities", p)

    @property
    def m(self) -> int:
        """The alphabet size."""
        return int(self.probabilities.size)

    @property
    def l2_distance(self) -> float:
        """‖p − U‖₂, the ℓ2 distance to the uniform law."""
        return float(np.linalg.norm(self.probabilities - 1.0 / self.m))

    @property
    def collision_probability(self) -> float:
        """θ = Σ_v p_v² = (1 + ‖a‖²/m)/m (Lemma A.19), the mean of the collision kernel."""
        return float(np.sum(self.probabilities**2))

    def sample(self, n: int, rng: RandomLike = None) -> np.ndarray:
        """n i.i.d. labels (int64, shape (n,))."""
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or int(n) < 1:
            raise InvalidParameterError(f"n must be an integer >= 1, got {n!r}")
        gen = as_generator(rng)
        cumulative = np.cumsum(self.probabilities)
        cumulative[-1] = 1.0
        return np.searchsorted(cumulative, gen.random(int(n)), side="right").astype(np.int64)


def uniform_distribution(m: int) -> AlphabetDistribution:
    """The uniform law on m labels.

    Examples
    --------
    >>> uniform_distribution(4).probabilities.tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    size = _check_alphabet(m)
    return AlphabetDistribution(np.full(size, 1.0 / size), label="uniform")


def plus_minus_perturbation(m: int, l2_distance: float) -> AlphabetDistribution:
    """p_v = (1 ± s)/m on 2⌊m/2⌋ labels (alternating signs), 1/m on the last if m is odd.

    The amplitude s = l2_distance·m/√(2⌊m/2⌋) puts p at exactly the requested ℓ2 distance
    from the uniform law (‖p − U‖₂² = s²·2⌊m/2⌋/m²); Σ a_v = 0 by construction.

    Parameters
    ----------
    m : int
        Alphabet size, m ≥ 2.
    l2_distance : float
        The target ‖p − U‖₂ ≥ 0.

    Raises
    ------
    InvalidParameterError
        If the amplitude s would exceed 1 (p_v < 0), i.e. l2_distance > √(2⌊m/2⌋)/m.

    Examples
    --------
    >>> q = plus_minus_perturbation(100, 0.5 / 10)   # delta = 0.5 at the H1 boundary
    >>> round(q.l2_distance, 12), q.probabilities[:2].tolist()
    (0.05, [0.015, 0.005])
    """
    size = _check_alphabet(m)
    if (
        isinstance(l2_distance, bool)
        or not isinstance(l2_distance, numbers.Real)
        or not math.isfinite(float(l2_distance))
        or float(l2_distance) < 0
    ):
        raise InvalidParameterError(f"l2_distance must be finite and >= 0, got {l2_distance!r}")
    paired = 2 * (size // 2)
    amplitude = float(l2_distance) * size / math.sqrt(paired)
    if amplitude > 1.0 + 1e-12:
        raise InvalidParameterError(
            f"l2_distance={l2_distance!r} needs amplitude s = {amplitude:.6g} > 1 on m={size} "
            f"labels (largest reachable distance {math.sqrt(paired) / size:.6g})"
        )
    amplitude = min(amplitude, 1.0)
    a = np.zeros(size)
    a[:paired:2] = amplitude
    a[1:paired:2] = -amplitude
    return AlphabetDistribution((1.0 + a) / size, label=f"+-{amplitude:.4g}")
