"""Data-independent quantization π: X → {0, …, k − 1} of Protocol A.

Bell, Bellet, Gascón & Kulkarni (AISTATS 2020), §3 (Algorithm 1 and Theorem 2): continuous
inputs in [lower, upper] are rounded into k equal bins before k-ary randomized response.
The bins are public and depend on nothing but (lower, upper, k), so quantization is
pre-processing and costs no privacy; bins computed from the data would leak it.

Convention (the paper's A.2 with its exact rounding rule is not in the main text): bin t
is [lower + t·w, lower + (t + 1)·w) with w = (upper − lower)/k, the last bin closed, and
inputs are clipped into [lower, upper] first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from privaudit.spec.errors import InvalidInputError, InvalidParameterError

__all__ = ["UniformQuantizer", "corollary1_bins"]


@dataclass(frozen=True, slots=True)
class UniformQuantizer:
    """k equal, public bins on [lower, upper].

    Parameters
    ----------
    lower, upper : float
        Public bounds, lower < upper (finite).
    bins : int
        k ≥ 1.

    Examples
    --------
    >>> q = UniformQuantizer(0.0, 1.0, 4)
    >>> q.index([0.0, 0.26, 0.5, 1.0]).tolist(), q.centres.tolist()
    ([0, 1, 2, 3], [0.125, 0.375, 0.625, 0.875])
    """

    lower: float
    upper: float
    bins: int

    def __post_init__(self) -> None:
        lo, hi = float(self.lower), float(self.upper)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise InvalidParameterError(
                f"quantizer bounds must be finite with lower < upper, got ({self.lower!r}, "
                f"{self.upper!r})"
            )
        if (
            isinstance(self.bins, bool)
            or not isinstance(self.bins, (int, np.integer))
            or int(self.bins) < 1
        ):
            raise InvalidParameterError(f"bins must be an integer >= 1, got {self.bins!r}")
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", hi)
        object.__setattr__(self, "bins", int(self.bins))

    @property
    def width(self) -> float:
        """Bin width (upper − lower)/k."""
        return (self.upper - self.lower) / self.bins

    @property
    def edges(self) -> np.ndarray:
        """The k + 1 bin edges."""
        return np.linspace(self.lower, self.upper, self.bins + 1)

    @property
    def centres(self) -> np.ndarray:
        """The k bin centres lower + (t + ½)·w."""
        return self.lower + (np.arange(self.bins) + 0.5) * self.width

    def index(self, x: Any) -> np.ndarray:
        """π(x) = min(⌊k (clip(x) − lower)/(upper − lower)⌋, k − 1), vectorised (int64).

        Raises
        ------
        InvalidInputError
            If ``x`` is not real or contains NaN.
        """
        arr = np.asarray(x)
        if arr.dtype.kind not in "iuf":
            raise InvalidInputError(f"quantizer inputs must be real numbers, got dtype {arr.dtype}")
        arr = arr.astype(np.float64, copy=False)
        if np.isnan(arr).any():
            raise InvalidInputError("quantizer inputs must not contain NaN")
        scaled = (np.clip(arr, self.lower, self.upper) - self.lower) * (
            self.bins / (self.upper - self.lower)
        )
        return np.minimum(np.floor(scaled).astype(np.int64), self.bins - 1)


def corollary1_bins(n: int, epsilon: float, lipschitz: float = 1.0) -> int:
    """k = max(1, round(n^{1/4} √(L ε))) of Corollary 1 (Bell et al. 2020, §3).

    With this k the MSE of Protocol A on [0, 1] is O(L/(√n ε)) for ε ≤ 1.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidParameterError(f"n must be an integer >= 1, got {n!r}")
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise InvalidParameterError(f"epsilon must be finite and > 0, got {epsilon!r}")
    if not (math.isfinite(lipschitz) and lipschitz > 0):
        raise InvalidParameterError(f"lipschitz must be finite and > 0, got {lipschitz!r}")
    return max(1, round(n**0.25 * math.sqrt(lipschitz * epsilon)))
