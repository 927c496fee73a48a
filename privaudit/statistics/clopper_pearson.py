"""Exact (Clopper–Pearson) binomial confidence bounds, vectorised.

For k successes in n trials, the one-sided lower bound at level α is the α-quantile of
Beta(k, n − k + 1) (0 when k = 0) and the upper bound the (1 − α)-quantile of
Beta(k + 1, n − k) (1 when k = n); P(p < lower) ≤ α for every p.  ``betaincinv`` is wrong
at some extreme arguments, so every quantile is checked through the forward function
(``betainc``/``betaincc``), and one whose tail probability is off by more than
:data:`TAIL_RTOL` (relative) is recomputed by bisection, keeping the conservative end.

Reference: Clopper & Pearson, Biometrika 1934.  Details (the errors of ``betaincinv``):
``docs/engine_notes.md``, "privaudit.statistics.clopper_pearson".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special

from privaudit.spec.errors import InvalidParameterError

__all__ = ["TAIL_RTOL", "BinomialInterval", "clopper_pearson", "cp_lower", "cp_upper"]


def _check(k: npt.ArrayLike, n: npt.ArrayLike, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    k_arr = np.asarray(k)
    n_arr = np.asarray(n)
    if not (np.issubdtype(k_arr.dtype, np.integer) and np.issubdtype(n_arr.dtype, np.integer)):
        raise InvalidParameterError(f"counts must be integers, got k={k!r}, n={n!r}")
    if np.any(n_arr < 1) or np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise InvalidParameterError(f"need 0 <= k <= n and n >= 1, got k={k!r}, n={n!r}")
    if not (0.0 < float(alpha) < 1.0):
        raise InvalidParameterError(f"alpha must lie in (0, 1), got {alpha!r}")
    return k_arr.astype(np.float64), n_arr.astype(np.float64)


#: Relative error of a quantile's tail probability above which ``betaincinv``'s result is
#: recomputed by bisection (its own accuracy is about 10⁻¹³; its failures are gross).
TAIL_RTOL = 1e-6
#: Bisection steps on log x over [10⁻³⁰⁰, 1]: 690 / 2⁸⁰ < 10⁻²¹ in log x.
_BISECTIONS = 80
_SMALLEST = 1e-300


def _tail(a: np.ndarray, b: np.ndarray, x: np.ndarray, *, upper: bool) -> np.ndarray:
    """The tail probability a quantile must leave: I_x(a, b) for a lower bound, 1 − I_x(a, b)
    (``betaincc``, exact in the upper tail) for an upper bound."""
    with np.errstate(all="ignore"):
        return np.asarray(special.betaincc(a, b, x) if upper else special.betainc(a, b, x))


def _bisect(a: np.ndarray, b: np.ndarray, alpha: float, *, upper: bool) -> np.ndarray:
    """The quantiles of Beta(a, b) by bisection on log x, conservative end of the bracket.

    Lower bound (``upper=False``): the largest bracket end x with I_x(a, b) ≤ α.  Upper
    bound: the smallest x with 1 − I_x(a, b) ≤ α.  Either way ``valid`` marks the x whose
    tail is at most α: a valid lower bound raises ``lo``, a valid upper bound lowers ``hi``.
    """
    lo = np.full(a.shape, _SMALLEST)
    hi = np.ones(a.shape)
    for _ in range(_BISECTIONS):
        mid = np.sqrt(lo * hi)
        valid = _tail(a, b, mid, upper=upper) <= alpha
        moves_hi = valid if upper else ~valid
        lo, hi = np.where(moves_hi, lo, mid), np.where(moves_hi, mid, hi)
    return hi if upper else lo


def _checked(
    out: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float, valid: np.ndarray, *, upper: bool
) -> np.ndarray:
    """``out`` where its tail probability is α to :data:`TAIL_RTOL`, else bisection's
    (``valid`` marks the bounds that are quantiles at all, not the 0 or 1 of an edge)."""
    bad = valid & ~(np.abs(_tail(a, b, out, upper=upper) - alpha) <= TAIL_RTOL * alpha)
    if not np.any(bad):
        return out
    out = np.array(out, dtype=np.float64, copy=True)
    out[bad] = _bisect(a[bad], b[bad], alpha, upper=upper)
    return out


def cp_lower(k: npt.ArrayLike, n: npt.ArrayLike, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound: P(p < bound) ≤ α.

    The α-quantile of Beta(k, n − k + 1), checked through ``betainc`` (module docstring).
    """
    kf, nf = _check(k, n, alpha)
    kf, nf = np.broadcast_arrays(kf, nf)
    a, b = kf, nf - kf + 1.0
    with np.errstate(all="ignore"):
        out = np.asarray(special.betaincinv(a, b, alpha), dtype=np.float64)
    out = _checked(out, a, b, float(alpha), kf > 0, upper=False)
    return np.where(kf == 0, 0.0, out)


def cp_upper(k: npt.ArrayLike, n: npt.ArrayLike, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bound: P(p > bound) ≤ α.

    The (1 − α)-quantile of Beta(k + 1, n − k), checked through ``betaincc`` (module
    docstring).
    """
    kf, nf = _check(k, n, alpha)
    kf, nf = np.broadcast_arrays(kf, nf)
    a, b = kf + 1.0, nf - kf
    with np.errstate(all="ignore"):
        out = np.asarray(special.betaincinv(a, b, 1.0 - alpha), dtype=np.float64)
    out = _checked(out, a, b, float(alpha), kf < nf, upper=True)
    return np.where(kf == nf, 1.0, out)


@dataclass(frozen=True, slots=True)
class BinomialInterval:
    """A two-sided exact interval for a binomial proportion."""

    successes: int
    trials: int
    low: float
    high: float
    confidence: float

    @property
    def estimate(self) -> float:
        """The point estimate k/n."""
        return self.successes / self.trials


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> BinomialInterval:
    """The two-sided Clopper–Pearson interval at the given confidence level.

    Examples
    --------
    >>> ci = clopper_pearson(0, 100, 0.95)
    >>> ci.low, round(ci.high, 4)
    (0.0, 0.0362)
    """
    alpha = 1.0 - float(confidence)
    lo = float(cp_lower(k, n, alpha / 2))
    hi = float(cp_upper(k, n, alpha / 2))
    return BinomialInterval(
        successes=int(k), trials=int(n), low=lo, high=hi, confidence=float(confidence)
    )
