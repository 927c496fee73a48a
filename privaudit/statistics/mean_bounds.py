"""One-sided lower confidence bounds on the mean of i.i.d. [0, 1]-valued samples.

For the privacy profile δ(ε) = E[(1 − e^{ε−L})₊].  The predictable plug-in
empirical-Bernstein bound of Waudby-Smith & Ramdas, in a one-sided form that uses the lower
end of the range only: :func:`mean_lower_bound` (sequential predictable plug-ins) and
:func:`eb_lower_bound_from_sums` with :func:`tune_eb_bet` (one bet chosen on independent
data, so the bound needs only Σ X_i and Σ (X_i − c)²).  Both are exact at every n.

References: Waudby-Smith & Ramdas, JRSS-B 2024, Theorem 2; Fan, Grama & Liu, EJP 2015;
Howard, Ramdas, McAuliffe & Sekhon, Ann. Statist. 2021.  Details (the supermartingale and
its proof): ``docs/engine_notes.md``, "privaudit.statistics.mean_bounds".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from privaudit.spec import check_alpha
from privaudit.spec.errors import InvalidInputError, InvalidParameterError

__all__ = [
    "eb_lower_bound_from_sums",
    "mean_lower_bound",
    "tune_eb_bet",
]

#: Largest u = λc allowed by the default tuning (Waudby-Smith & Ramdas use ½ or ¾).
BET_CAP = 0.75


def _finish(a: np.ndarray) -> Any:
    return a[()] if a.ndim == 0 else a


def _h(lam: np.ndarray, c: np.ndarray) -> np.ndarray:
    """h(λ, c) = φ(λc)/c² with φ(u) = −log(1 − u) − u, stable as c → 0."""
    lam = np.asarray(lam, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    u = lam * c
    small = u < 1e-3
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = (-np.log1p(-u) - u) / (c * c)
    series = lam * lam * (0.5 + u / 3.0 + u * u / 4.0 + u**3 / 5.0)
    return np.where(small, series, exact)


def mean_lower_bound(samples: npt.ArrayLike, *, alpha: float) -> Any:
    """A (1 − α) lower confidence bound on the mean of i.i.d. samples in [0, 1].

    The predictable plug-in empirical-Bernstein bound of Waudby-Smith & Ramdas (2024,
    Theorem 2, fixed-n tuning), one-sided (see ``docs/engine_notes.md``,
    "privaudit.statistics.mean_bounds", for the statement and the proof).

    Parameters
    ----------
    samples : array_like, shape (..., n)
        The observations, in the order they were drawn (the bound is valid for any order
        fixed independently of the values); leading axes are independent batches.
    alpha : float
        Error probability in (0, 1): P(μ < bound) ≤ α.

    Returns
    -------
    float or numpy.ndarray
        The bound, in [0, 1], one per batch.

    Raises
    ------
    InvalidInputError
        If a sample is outside [0, 1] (or NaN) or there are no samples.

    References
    ----------
    .. [1] Waudby-Smith & Ramdas, JRSS-B 2024, Theorem 2.
    .. [2] Fan, Grama & Liu, EJP 2015.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.beta(2.0, 8.0, size=10_000)          # mean 0.2
    >>> 0.19 < float(mean_lower_bound(x, alpha=0.05)) < 0.2
    True
    """
    a = check_alpha(alpha)
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise InvalidInputError(f"need at least one sample, got shape {x.shape}")
    if not np.all((x >= 0.0) & (x <= 1.0)):
        raise InvalidInputError("samples must lie in [0, 1] (and not be NaN)")
    n = x.shape[-1]
    log_inv = math.log(1.0 / a)
    idx = np.arange(1, n + 1, dtype=np.float64)  # i = 1 … n
    csum = np.cumsum(x, axis=-1)
    mu_incl = (0.5 + csum) / (idx + 1.0)  # μ̂_i (includes X_i)
    prev_sum = csum - x  # Σ_{j<i} X_j
    centre = (0.5 + prev_sum) / idx  # μ̂_{i−1}
    sq = np.cumsum((x - mu_incl) ** 2, axis=-1)
    var_prev = (0.25 + (sq - (x - mu_incl) ** 2)) / idx  # σ̂²_{i−1}
    lam = np.sqrt(2.0 * log_inv / (n * var_prev))
    lam = np.minimum(lam, BET_CAP / centre)
    y = x - centre
    numerator = np.sum(lam * x, axis=-1) - log_inv - np.sum(_h(lam, centre) * y * y, axis=-1)
    bound = numerator / np.sum(lam, axis=-1)
    return _finish(np.clip(bound, 0.0, 1.0))


def tune_eb_bet(
    mean_guess: npt.ArrayLike,
    var_guess: npt.ArrayLike,
    n: int,
    *,
    alpha: float,
    cap: float = BET_CAP,
) -> tuple[Any, Any]:
    """A constant bet (λ, c) for :func:`eb_lower_bound_from_sums`, from independent data.

    Parameters
    ----------
    mean_guess : float or array
        An estimate of the mean from data independent of the sample to be bounded (the
        centre c, clipped to [0, 1]).
    var_guess : float or array
        An estimate of E[(X − c)²] from the same independent data; floored at 1/n.
    n : int
        Size of the sample that will be bounded.
    alpha : float
        The error probability the bound will be used at.
    cap : float
        Largest u = λc allowed, in (0, 1).

    Returns
    -------
    lam, centre : float or array
        λ = min(√(2 log(1/α)/(n v)), cap/c) (the minimiser of the Gaussian
        approximation of the bound's slack) and c.
    """
    a = check_alpha(alpha)
    if not 0.0 < float(cap) < 1.0:
        raise InvalidParameterError(f"cap must lie in (0, 1), got {cap!r}")
    c = np.clip(np.asarray(mean_guess, dtype=np.float64), 0.0, 1.0)
    v = np.maximum(np.asarray(var_guess, dtype=np.float64), 1.0 / float(n))
    lam = np.sqrt(2.0 * math.log(1.0 / a) / (float(n) * v))
    with np.errstate(divide="ignore"):
        lam = np.minimum(lam, np.where(c > 0, float(cap) / c, np.inf))
    return _finish(np.asarray(lam)), _finish(np.asarray(c))


def eb_lower_bound_from_sums(
    sum_x: npt.ArrayLike,
    sum_sq_centred: npt.ArrayLike,
    n: int,
    *,
    alpha: float,
    lam: npt.ArrayLike,
    centre: npt.ArrayLike,
) -> Any:
    """The empirical-Bernstein lower bound for one constant bet (λ, c), from two sums.

    Parameters
    ----------
    sum_x : float or array
        Σ X_i over the n samples (each in [0, 1]).
    sum_sq_centred : float or array
        Σ (X_i − c)².
    n : int
        Number of samples.
    alpha : float
        Error probability in (0, 1).
    lam, centre : float or array
        The bet: λ > 0 and c ∈ [0, 1] with λc < 1, **chosen independently of the
        sample** (e.g. by :func:`tune_eb_bet` on a separate split).

    Returns
    -------
    float or numpy.ndarray
        ``(λ Σ X_i − log(1/α) − h(λ, c) Σ (X_i − c)²) / (λ n)``, clipped to [0, 1]
        (``docs/engine_notes.md``, with λ_i = λ and c_i = c constant).

    Examples
    --------
    >>> float(eb_lower_bound_from_sums(0.0, 0.0, 100, alpha=0.05, lam=1.0, centre=0.0))
    0.0
    """
    a = check_alpha(alpha)
    if int(n) < 1:
        raise InvalidParameterError(f"n must be >= 1, got {n!r}")
    lam_a = np.asarray(lam, dtype=np.float64)
    c = np.asarray(centre, dtype=np.float64)
    if np.any(~(lam_a > 0)) or np.any(~((c >= 0) & (c <= 1))) or np.any(lam_a * c >= 1.0):
        raise InvalidParameterError(
            f"need lam > 0, centre in [0, 1] and lam*centre < 1, got lam={lam!r}, centre={centre!r}"
        )
    s = np.asarray(sum_x, dtype=np.float64)
    q = np.maximum(np.asarray(sum_sq_centred, dtype=np.float64), 0.0)
    bound = (lam_a * s - math.log(1.0 / a) - _h(lam_a, c) * q) / (lam_a * float(n))
    return _finish(np.clip(bound, 0.0, 1.0))
