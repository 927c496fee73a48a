"""k-ary randomized response as Algorithm 1's local randomizer (run once per user).

Bell, Bellet, Gascón & Kulkarni (AISTATS 2020), Algorithm 1, with retention parameter
β = k/(k + e^ε − 1): with probability 1 − β the user reports its bin t, otherwise a
uniform draw from all k bins (which may be t).  Hence

    P(x̃ = t) = 1 − β + β/k = e^ε/(k + e^ε − 1),   P(x̃ = u ≠ t) = β/k = 1/(k + e^ε − 1),

a ratio of exactly e^ε: standard k-RR.  Equation (9) as printed gives "1 − β for the true
value, β/k otherwise", which does not sum to one (0.851 at k = 5, ε = 1) and under which the
paper's own debiasing (1 − β)^{-1}(e_x̃ − b) is biased; the mixture reading above is the only
one consistent with the debiasing (``docs/ldp_ustat_study.md``, errata).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from privaudit.spec import RandomLike, as_generator, check_epsilon
from privaudit.spec.errors import InvalidInputError, InvalidParameterError

__all__ = ["KaryRandomizer", "eq9_probabilities"]


@dataclass(frozen=True, slots=True)
class KaryRandomizer:
    """Algorithm 1's randomizer over k cells at budget ε.

    Examples
    --------
    >>> r = KaryRandomizer(5, 1.0)
    >>> round(r.beta, 4), round(r.keep_probability, 4), round(r.other_probability, 4)
    (0.7442, 0.4046, 0.1488)
    """

    k: int
    epsilon: float

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or int(self.k) < 2:
            raise InvalidParameterError(f"k must be an integer >= 2, got {self.k!r}")
        object.__setattr__(self, "k", int(self.k))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    @property
    def beta(self) -> float:
        """β = k/(k + e^ε − 1), the probability of replacing the value by a uniform draw."""
        return self.k / (self.k + math.expm1(self.epsilon))

    @property
    def keep_probability(self) -> float:
        """P(x̃ = t) = e^ε/(k + e^ε − 1)."""
        return 1.0 / (1.0 + (self.k - 1) * math.exp(-self.epsilon))

    @property
    def other_probability(self) -> float:
        """P(x̃ = u) for each u ≠ t: 1/(k + e^ε − 1)."""
        return 1.0 / (self.k + math.expm1(self.epsilon))

    def probabilities(self, t: int) -> np.ndarray:
        """The output law P(· | t) over the k cells."""
        row = np.full(self.k, self.other_probability)
        row[self._cells(t, "t")] = self.keep_probability
        return row

    def randomize(self, cells: Any, rng: RandomLike = None) -> np.ndarray:
        """One report per entry of ``cells`` (int64), all drawn in one vectorised call.

        Two-stage sampler of Algorithm 1: keep with probability 1 − β, else uniform on k.
        """
        t = self._cells(cells, "cells")
        gen = as_generator(rng)
        replace = gen.random(t.shape) < self.beta
        uniform = gen.integers(0, self.k, t.shape, dtype=np.int64)
        return np.where(replace, uniform, t)

    def _cells(self, cells: Any, what: str) -> np.ndarray:
        arr = np.asarray(cells)
        if arr.dtype.kind not in "iu":
            raise InvalidInputError(
                f"{what} must be integer cells in [0, {self.k}), got {arr.dtype}"
            )
        bad = (arr < 0) | (arr >= self.k)
        if bad.any():
            raise InvalidInputError(
                f"{what} must lie in [0, {self.k}), got {arr[bad].ravel()[0]!r}"
            )
        return arr.astype(np.int64, copy=False)


def eq9_probabilities(
    k: int, epsilon: float, reading: Literal["mixture", "printed"] = "mixture"
) -> tuple[float, float]:
    """(P(true cell), P(each other cell)) of eq. 9 under the two readings.

    ``"mixture"`` (correct): (1 − β + β/k, β/k).  ``"printed"``: (1 − β, β/k) as the text
    prints it, which is not a probability law for k ≥ 2 (the erratum).
    """
    r = KaryRandomizer(k, epsilon)
    if reading == "mixture":
        return 1.0 - r.beta + r.beta / r.k, r.beta / r.k
    if reading == "printed":
        return 1.0 - r.beta, r.beta / r.k
    raise InvalidParameterError(f"reading must be 'mixture' or 'printed', got {reading!r}")
