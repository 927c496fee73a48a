"""Power of the event test: the smallest true ε an audit detects with a given probability.

The test of :mod:`privaudit.statistics.epsilon_bounds` rejects exactly when K_x reaches a
threshold k*(K_y), so its detection probability is an exact sum over the law of K_y, and
the smallest detected ε′ is found by bisection.  Every truncation lowers the computed
probability, so the reported ε′ errs on the high side.

References: Clopper & Pearson, Biometrika 1934; Bichsel et al., IEEE S&P 2021.  Details:
``docs/engine_notes.md``, "privaudit.statistics.power".
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from scipy import stats

from privaudit.spec.errors import InvalidParameterError
from privaudit.statistics.clopper_pearson import cp_upper

__all__ = ["detectable_epsilon", "detection_probability", "samples_to_detect"]

#: Binomial mass left out of the exact sums (each tail).
_TAIL = 1e-12
#: Largest number of y-counts at which thresholds are computed exactly.
_NODES = 256


def _count(n: Any, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or int(n) < 1:
        raise InvalidParameterError(f"{what} must be an integer >= 1, got {n!r}")
    return int(n)


def _real(v: Any, what: str, lo: float, hi: float, lo_open: bool, hi_open: bool) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise InvalidParameterError(f"{what} must be a real number, got {v!r}")
    x = float(v)
    ok = (x > lo if lo_open else x >= lo) and (x < hi if hi_open else x <= hi)
    if not ok:
        raise InvalidParameterError(
            f"{what} must lie in {'(' if lo_open else '['}{lo}, {hi}"
            f"{')' if hi_open else ']'}, got {v!r}"
        )
    return x


class _Rejection:
    """The y-side support, its mass and the rejection thresholds k*(k_y), computed once.

    When the truncated y-support has more than :data:`_NODES` points, the thresholds are
    computed exactly at :data:`_NODES` evenly spaced nodes and every k_y uses the
    threshold of the next node up.  k* is non-decreasing in k_y, so this can only raise
    thresholds: the computed probability is then a lower bound on the exact one (and
    the reported ε′ an upper bound), never an overstatement of power.
    """

    def __init__(
        self, p_y: float, n_x: int, n_y: int, alpha: float, delta: float, claimed_epsilon: float
    ) -> None:
        if p_y <= 0.0:
            ky = np.zeros(1, dtype=np.int64)
            pmf = np.ones(1)
        elif p_y >= 1.0:
            ky = np.full(1, n_y, dtype=np.int64)
            pmf = np.ones(1)
        else:
            lo = int(max(0, stats.binom.ppf(_TAIL, n_y, p_y) - 1))
            hi = int(min(n_y, stats.binom.isf(_TAIL, n_y, p_y) + 1))
            ky = np.arange(lo, hi + 1, dtype=np.int64)
            pmf = stats.binom.pmf(ky, n_y, p_y)
        self.exact = ky.size <= _NODES
        weights: np.ndarray  # pmf, or its sums per node (bincount with weights: float64)
        if self.exact:
            nodes, weights = ky, pmf
        else:
            nodes = np.unique(np.linspace(ky[0], ky[-1], _NODES).round().astype(np.int64))
            owner = np.searchsorted(nodes, ky, side="left")
            weights = np.bincount(owner, weights=pmf, minlength=nodes.size)
        upper = np.asarray(cp_upper(nodes, n_y, alpha / 2.0), dtype=np.float64)
        with np.errstate(over="ignore"):
            level = delta + np.exp(claimed_epsilon + np.log(upper))
        self.weights = weights
        self.k_star = _smallest_k_above(level, n_x, alpha / 2.0)

    def probability(self, p_x: float, n_x: int) -> float:
        tail = stats.binom.sf(self.k_star - 1, n_x, p_x)
        return float(np.sum(self.weights * tail))


def _smallest_k_above(level: np.ndarray, n: int, a: float) -> np.ndarray:
    """Smallest k in [1, n] with cp_lower(k, n, a) > level (n + 1 when none).

    By the definition of the CP lower bound (P_p(Bin(n, p) ≥ k) = a at p = cp_lower(k)
    and increasing in p), cp_lower(k) > c iff P_c(Bin(n, c) ≥ k) < a; the smallest such
    k is found from scipy's binomial ``isf`` and then checked and corrected with the
    exact survival function (one vectorised step at a time).
    """
    c = np.clip(level, 0.0, 1.0)
    with np.errstate(all="ignore"):
        guess = stats.binom.isf(a, n, c)
    k = np.clip(np.nan_to_num(guess, nan=n, posinf=n) + 1, 1, n + 1).astype(np.int64)
    never = c >= 1.0
    k = np.where(never, n + 1, k)

    def rejects(kk: np.ndarray) -> np.ndarray:  # P_c(X >= kk) < a, kk in [1, n+1]
        return stats.binom.sf(kk - 1, n, c) < a

    for _ in range(10_000):
        down = (k > 1) & ~never & rejects(np.maximum(k - 1, 1))
        up = (k <= n) & ~never & ~rejects(k)
        if not (down.any() or up.any()):
            return k
        k = k - down.astype(np.int64) + up.astype(np.int64)
    raise AssertionError("threshold search did not converge")  # pragma: no cover


def detection_probability(
    true_epsilon: float,
    p_y: float,
    n_x: int,
    n_y: int,
    *,
    alpha: float,
    delta: float,
    claimed_epsilon: float,
) -> float:
    """P(the event test reports ε_lb > claimed ε) when P[M(x) ∈ S] = min(1, e^{ε′}p_y + δ).

    Parameters are those of :func:`detectable_epsilon`, with ``true_epsilon`` = ε′.

    Examples
    --------
    >>> p = detection_probability(1.0, 0.184, 10**5, 10**5, alpha=0.05, delta=0.0,
    ...                           claimed_epsilon=0.9)
    >>> 0.99 < p <= 1.0
    True
    """
    p_y_, n_x_, n_y_, a, d, e_c = _check_common(p_y, n_x, n_y, alpha, delta, claimed_epsilon)
    eps = _real(true_epsilon, "true_epsilon", 0.0, math.inf, False, True)
    rejection = _Rejection(p_y_, n_x_, n_y_, a, d, e_c)
    return rejection.probability(_p_x(eps, p_y_, d), n_x_)


def _p_x(eps: float, p_y: float, delta: float) -> float:
    if p_y <= 0.0:
        return min(1.0, delta)
    return min(1.0, math.exp(min(eps + math.log(p_y), 0.0)) + delta)


def _check_common(
    p_y: Any, n_x: Any, n_y: Any, alpha: Any, delta: Any, claimed: Any
) -> tuple[float, int, int, float, float, float]:
    return (
        _real(p_y, "p_y", 0.0, 1.0, False, False),
        _count(n_x, "n_x"),
        _count(n_y, "n_y"),
        _real(alpha, "alpha", 0.0, 1.0, True, True),
        _real(delta, "delta", 0.0, 1.0, False, True),
        _real(claimed, "claimed_epsilon", 0.0, math.inf, False, True),
    )


def detectable_epsilon(
    p_y: float,
    n_x: int,
    n_y: int,
    *,
    alpha: float,
    delta: float,
    claimed_epsilon: float,
    probability: float = 0.9,
    tolerance: float = 1e-5,
) -> float:
    """The smallest true ε′ that the event test detects with the given probability.

    Parameters
    ----------
    p_y : float
        P[M(y) ∈ S], held fixed under the alternative.
    n_x, n_y : int
        Test-split sample sizes.
    alpha : float
        The event's error share (CP at α/2 on each side, as in
        :func:`~privaudit.statistics.epsilon_bounds.epsilon_lower_bound`).
    delta : float
        The δ at which ε_lb is computed (and added to p_x under the alternative).
    claimed_epsilon : float
        The ε the test must exceed.
    probability : float
        Target detection probability, in (0, 1).
    tolerance : float
        Absolute tolerance of the bisection in ε′.

    Returns
    -------
    float
        The smallest ε′ ≥ claimed ε with P(ε_lb > claimed ε) ≥ ``probability`` when
        P[M(x) ∈ S] = min(1, e^{ε′} p_y + δ) (up to ``tolerance``, rounded up); ``inf``
        when even P[M(x) ∈ S] = 1 is not detected with that probability (for example
        p_y = 0).

    Notes
    -----
    The detection probability is computed exactly (two independent binomials, truncated
    at 10⁻¹² of mass per tail; conservative nodes beyond 256 y-counts); it is
    non-decreasing in ε′, so bisection applies.

    Examples
    --------
    >>> e5 = detectable_epsilon(0.184, 10**5, 10**5, alpha=0.05, delta=0.0, claimed_epsilon=1.0)
    >>> e6 = detectable_epsilon(0.184, 10**6, 10**6, alpha=0.05, delta=0.0, claimed_epsilon=1.0)
    >>> 1.0 < e6 < e5 < 1.1
    True
    """
    p_y_, n_x_, n_y_, a, d, e_c = _check_common(p_y, n_x, n_y, alpha, delta, claimed_epsilon)
    target = _real(probability, "probability", 0.0, 1.0, True, True)
    rejection = _Rejection(p_y_, n_x_, n_y_, a, d, e_c)

    def prob(eps: float) -> float:
        return rejection.probability(_p_x(eps, p_y_, d), n_x_)

    if prob(e_c) >= target:
        return e_c
    if p_y_ <= 0.0:
        return math.inf
    top = math.log(max(1.0 - d, 1e-300)) - math.log(p_y_)  # where p_x reaches 1
    if top <= e_c or prob(top) < target:
        return math.inf
    lo, hi = e_c, top
    while hi - lo > tolerance:
        mid = 0.5 * (lo + hi)
        if prob(mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi


#: Largest per-side sample size :func:`samples_to_detect` searches.
MAX_SEARCHED_SAMPLES = 10**12


def samples_to_detect(
    true_epsilon: float,
    p_y: float,
    *,
    alpha: float,
    delta: float,
    claimed_epsilon: float,
    probability: float = 0.9,
    start: int = 1,
) -> int | None:
    """The per-side test size at which the event test detects ``true_epsilon``: the power
    calculation of :func:`detection_probability` inverted in n.

    Parameters
    ----------
    true_epsilon : float
        The true ε′ that must be detected (P[M(x) ∈ S] = min(1, e^{ε′} p_y + δ)).
    p_y, alpha, delta, claimed_epsilon, probability
        As in :func:`detectable_epsilon`.
    start : int
        A size known (or believed) to be too small; the search doubles from it.

    Returns
    -------
    int or None
        A size n ≤ :data:`MAX_SEARCHED_SAMPLES` with P(detect) ≥ ``probability`` at
        n_x = n_y = n, the smallest on a doubling-then-bisection path; ``None`` when no
        size can reach it: the event's P[M(y) ∈ S] is then too large for any event of
        this kind to reveal ε′ (min(ε′, ln((1 − δ)/p_y)) ≤ ε_c), or more than
        :data:`MAX_SEARCHED_SAMPLES` would be needed.

    Notes
    -----
    As n grows with p_y and p_x fixed, the Clopper–Pearson bounds converge to p_x and
    p_y, so detection becomes certain exactly when ln((p_x − δ)/p_y) > ε_c.  The
    detection probability is not exactly monotone in n (binomial lattice effects move it
    by small amounts), so the returned size is checked and the answer is the first size
    found to reach the probability, never a size that does not.

    Examples
    --------
    >>> n = samples_to_detect(2.0, 0.184, alpha=0.05, delta=0.0, claimed_epsilon=1.0)
    >>> detection_probability(2.0, 0.184, n, n, alpha=0.05, delta=0.0,
    ...                       claimed_epsilon=1.0) >= 0.9
    True
    >>> samples_to_detect(2.0, 0.6, alpha=0.05, delta=0.0, claimed_epsilon=1.0) is None
    True
    """
    p_y_, _, _, a, d, e_c = _check_common(p_y, 1, 1, alpha, delta, claimed_epsilon)
    eps = _real(true_epsilon, "true_epsilon", 0.0, math.inf, False, True)
    target = _real(probability, "probability", 0.0, 1.0, True, True)
    lo = _count(start, "start")
    p_x = _p_x(eps, p_y_, d)
    if p_y_ <= 0.0:
        reachable = p_x > d
    else:
        reachable = p_x - d > 0.0 and math.log(p_x - d) - math.log(p_y_) > e_c
    if not reachable:
        return None

    def detects(n: int) -> bool:
        return _Rejection(p_y_, n, n, a, d, e_c).probability(p_x, n) >= target

    if detects(lo):
        return lo
    hi = lo
    while True:
        lo, hi = hi, min(2 * hi, MAX_SEARCHED_SAMPLES)
        if detects(hi):
            break
        if hi >= MAX_SEARCHED_SAMPLES:
            return None
    while hi - lo > max(1, lo // 1000):  # 0.1 % resolution is plenty for advice
        mid = (lo + hi) // 2
        if detects(mid):
            hi = mid
        else:
            lo = mid
    return hi
