"""Local sensitivity of order statistics under substitute-one, and the distance to instability.

For records in a public [lo, hi] sorted as x_(1) ≤ … ≤ x_(n), padded with x_(i) = lo for
i ≤ 0 and x_(i) = hi for i > n, the r-th order statistic has local sensitivity
LS_r(x) = max(x_(r+1) − x_(r), x_(r) − x_(r−1)), and the largest local sensitivity within
k substitutions is A_r^(k)(x) = max_{0≤t≤k+1} (x_(r+t) − x_(r+t−k−1)) (Nissim,
Raskhodnikova & Smith, STOC 2007, §3.1, stated there for the median).  The distance to
instability d_r(x, b) = min{k : A_r^(k)(x) > b} is what propose-test-release tests
(Dwork & Lei, STOC 2009).  The interquartile range x_(r3) − x_(r1) has local sensitivity
max(LS_r1, LS_r3) (derived in ``docs/stability_mechanisms.md``), so its distance is
min(d_r1, d_r3).  Every formula is checked against brute force on small grids in
``tests/unit/estimators/stability/test_order_statistics.py``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.spec.errors import InvalidInputError, InvalidParameterError, SampleSizeError
from privaudit.spec.validation import check_positive, real_array

__all__ = [
    "distance_to_instability",
    "iqr",
    "iqr_distance_to_instability",
    "iqr_local_sensitivity",
    "median_rank",
    "order_statistic_local_sensitivity",
    "quartile_ranks",
    "sorted_records",
]


def sorted_records(x: Any, lo: float, hi: float) -> np.ndarray:
    """The records as a sorted float64 vector, checked to be finite and inside [lo, hi].

    Parameters
    ----------
    x : array_like, shape (n,)
        The records.
    lo, hi : float
        The public bounds, lo < hi.

    Returns
    -------
    numpy.ndarray
        The sorted records.

    Raises
    ------
    NonFiniteInputError, EmptyInputError, InputShapeError, NonNumericInputError
        Bad data (:func:`spec.validation.real_array`).
    InvalidInputError
        A record outside [lo, hi].
    """
    values = np.sort(real_array(x, "x", ndim=1))
    if values[0] < lo or values[-1] > hi:
        raise InvalidInputError(
            f"records must lie in [{lo!r}, {hi!r}], got min {values[0]!r} and max {values[-1]!r}"
        )
    return values


def median_rank(n: int) -> int:
    """The 1-based rank m = (n + 1)/2 of the median of an odd number n of records.

    Raises
    ------
    SampleSizeError
        If n is even or < 1.
    """
    if n < 1 or n % 2 == 0:
        raise SampleSizeError(f"the median needs an odd number n >= 1 of records, got n={n}")
    return (n + 1) // 2


def quartile_ranks(n: int) -> tuple[int, int]:
    """The 1-based ranks (r1, r3) = (⌈n/4⌉, n + 1 − ⌈n/4⌉) of the quartiles, n ≥ 3.

    Raises
    ------
    SampleSizeError
        If n < 3 (the two ranks must differ).
    """
    if n < 3:
        raise SampleSizeError(f"the interquartile range needs n >= 3 records, got n={n}")
    r1 = -(-n // 4)
    return r1, n + 1 - r1


def _padded(values: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """x_(i) for i = −n … 2n + 1 at index i + n (lo below 1, hi above n)."""
    n = values.size
    return np.concatenate([np.full(n + 1, float(lo)), values, np.full(n + 1, float(hi))])


def _window_max(padded: np.ndarray, n: int, r: int, k: int) -> float:
    """A_r^(k) = max_{0≤t≤k+1} (x_(r+t) − x_(r+t−k−1)) on the padded order statistics."""
    top = r + np.arange(k + 2)  # 1-based ranks r … r + k + 1
    top = np.minimum(top, n + 1)  # beyond n every entry is hi
    bottom = np.maximum(top - k - 1, -n)
    return float(np.max(padded[top + n] - padded[bottom + n]))


def order_statistic_local_sensitivity(values: np.ndarray, r: int, lo: float, hi: float) -> float:
    """LS_r(x) = max(x_(r+1) − x_(r), x_(r) − x_(r−1)) of sorted ``values`` (NRS 2007, §3.1).

    Parameters
    ----------
    values : numpy.ndarray
        Sorted records in [lo, hi] (:func:`sorted_records`).
    r : int
        The 1-based rank, 1 ≤ r ≤ n.
    lo, hi : float
        The public bounds.

    Returns
    -------
    float
    """
    n = values.size
    if not 1 <= r <= n:
        raise InvalidParameterError(f"rank r must lie in 1..{n}, got {r}")
    return _window_max(_padded(values, lo, hi), n, r, 0)


def distance_to_instability(
    values: np.ndarray, r: int, lo: float, hi: float, bound: float
) -> float:
    """d_r(x, b) = min{k ≥ 0 : A_r^(k)(x) > b}, or ``inf`` when b ≥ hi − lo.

    A_r^(k)(x), the largest local sensitivity of the r-th order statistic over the data
    sets within k substitutions of x, is non-decreasing in k and equals hi − lo at k = n,
    so the smallest k is found by bisection in O(n log n).

    Parameters
    ----------
    values : numpy.ndarray
        Sorted records in [lo, hi] (:func:`sorted_records`).
    r : int
        The 1-based rank.
    lo, hi : float
        The public bounds.
    bound : float
        The proposed bound b > 0 on the local sensitivity.

    Returns
    -------
    float
        An integer-valued float, or ``inf`` (no data set has local sensitivity > b).

    References
    ----------
    .. [1] Nissim, Raskhodnikova & Smith, STOC 2007, §3.1 (A^(k) for the median).
    .. [2] Dwork & Lei, STOC 2009 (the distance tested by propose-test-release).
    """
    b = check_positive(bound, "bound")
    n = values.size
    if not 1 <= r <= n:
        raise InvalidParameterError(f"rank r must lie in 1..{n}, got {r}")
    padded = _padded(values, lo, hi)
    if _window_max(padded, n, r, n) <= b:
        return math.inf
    low, high = 0, n  # A(high) > b; find the smallest such k
    while low < high:
        mid = (low + high) // 2
        if _window_max(padded, n, r, mid) > b:
            high = mid
        else:
            low = mid + 1
    return float(low)


def iqr(values: np.ndarray) -> float:
    """x_(r3) − x_(r1) of sorted ``values`` with the ranks of :func:`quartile_ranks`."""
    r1, r3 = quartile_ranks(values.size)
    return float(values[r3 - 1] - values[r1 - 1])


def iqr_local_sensitivity(values: np.ndarray, lo: float, hi: float) -> float:
    """LS of the interquartile range: max(LS_r1(x), LS_r3(x)) under substitute-one.

    One substitution moves each quartile to at most its neighbouring order statistic, and
    never moves the two apart at once (that needs the new record both above x_(r3) and
    below x_(r1)); each single move is attained.  Checked by brute force in the tests.
    """
    r1, r3 = quartile_ranks(values.size)
    return max(
        order_statistic_local_sensitivity(values, r1, lo, hi),
        order_statistic_local_sensitivity(values, r3, lo, hi),
    )


def iqr_distance_to_instability(values: np.ndarray, lo: float, hi: float, bound: float) -> float:
    """min(d_r1, d_r3): substitutions to a data set whose IQR local sensitivity exceeds b."""
    r1, r3 = quartile_ranks(values.size)
    return min(
        distance_to_instability(values, r1, lo, hi, bound),
        distance_to_instability(values, r3, lo, hi, bound),
    )
