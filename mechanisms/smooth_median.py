"""The median of n bounded records released with noise scaled to its exact β-smooth
sensitivity (Nissim, Raskhodnikova & Smith, STOC 2007, §3.1): the classical instance of
:mod:`~privaudit.mechanisms.smooth_sensitivity`."""

from __future__ import annotations

import math
import numbers
from typing import Any, Literal

import numpy as np

from privaudit.spec import DatasetDomain, RealInterval, SubstituteOne
from privaudit.spec.errors import (
    InvalidInputError,
    InvalidParameterError,
    ParameterTypeError,
    SampleSizeError,
)

from .calibration import _check_delta, _check_epsilon
from .smooth_sensitivity import (
    NRS_2007_MEDIAN,
    SmoothSensitivityMechanism,
    _laplace_constants,
    quartic_share,
    smooth_inverse_quartic_mechanism,
    smooth_laplace_mechanism,
)

__all__ = ["median_smooth_sensitivity", "smooth_median_mechanism"]

#: Largest number of (k, t) window differences evaluated at once by the median bound.
_BLOCK_ELEMENTS = 1 << 20


def median_smooth_sensitivity(x: Any, beta: float, lower: float, upper: float) -> float:
    """The exact β-smooth sensitivity of the median of n (odd) records in [lower, upper].

    S(x) = max_{k=0..n} e^{−kβ} max_{0≤t≤k+1} (x_{m+t} − x_{m+t−k−1}) with x sorted,
    m = (n+1)/2 (1-based), x_i = lower for i ≤ 0 and x_i = upper for i > n, under the
    substitute-one relation (NRS 2007, §3.1).  The window differences are evaluated in
    vectorised blocks of k, stopping as soon as e^{−kβ}(upper − lower) cannot beat the
    current maximum.

    Parameters
    ----------
    x : array_like
        The n records (any order), n odd, all in [lower, upper].
    beta : float
        β > 0.
    lower, upper : float
        The public bounds of the records.

    Returns
    -------
    float

    Raises
    ------
    InvalidInputError
        If n is even or a record is outside [lower, upper].

    References
    ----------
    .. [1] Nissim, Raskhodnikova & Smith, STOC 2007, Section 3.1.

    Examples
    --------
    >>> median_smooth_sensitivity([0.0, 0.5, 1.0], beta=1.0, lower=0.0, upper=1.0)
    0.5
    """
    values = np.sort(np.asarray(x, dtype=np.float64).ravel())
    n = values.size
    if n % 2 == 0:
        raise InvalidInputError(f"the median needs an odd number of records, got n={n}")
    if not (np.all(values >= lower) and np.all(values <= upper)):
        raise InvalidInputError(f"records must lie in [{lower!r}, {upper!r}], got {values!r}")
    b = _check_epsilon(beta, "beta")
    m = (n + 1) // 2
    # padded[j] holds x_i for 1-based i = j + (m - n - 1); x_m sits at j = n + 1
    padded = np.concatenate(
        [np.full(n + 2 - m, float(lower)), values, np.full(m + 1, float(upper))]
    )
    centre = n + 1
    width = float(upper) - float(lower)
    best = 0.0
    rows = max(1, _BLOCK_ELEMENTS // (n + 2))
    for k0 in range(0, n + 1, rows):  # blocks of k, vectorised over (k, t)
        if best > 0.0 and math.exp(-k0 * b) * width <= best:
            break
        ks = np.arange(k0, min(n + 1, k0 + rows))
        ts = np.arange(0, int(ks[-1]) + 2)
        hi = padded[centre + ts][None, :]
        lo = padded[centre + ts[None, :] - ks[:, None] - 1]
        windows = np.where(ts[None, :] <= ks[:, None] + 1, hi - lo, 0.0)
        best = max(best, float(np.max(np.exp(-ks * b) * windows.max(axis=1))))
    return best


def _odd_size(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise ParameterTypeError(f"n must be an integer >= 1, got {n!r}")
    if int(n) < 1:
        raise SampleSizeError(f"n must be an integer >= 1, got {n!r}")
    if int(n) % 2 == 0:
        raise SampleSizeError(f"n must be odd for the median, got n={n!r}")
    return int(n)


def _bound(value: Any, what: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(float(value))
    ):
        raise InvalidParameterError(f"{what} must be a finite real number, got {value!r}")
    return float(value)


def smooth_median_mechanism(
    n: int,
    lower: float,
    upper: float,
    epsilon: float,
    delta: float | None = None,
    *,
    noise: Literal["laplace", "inverse_quartic"] | None = None,
    name: str = "smooth_median",
) -> SmoothSensitivityMechanism:
    """The median of n bounded records plus noise scaled to its exact β-smooth sensitivity.

    Parameters
    ----------
    n : int
        The public number of records (odd, ≥ 1).
    lower, upper : float
        Finite public bounds, lower < upper; every record lies in [lower, upper].
    epsilon : float
        ε > 0 (finite).
    delta : float, optional
        δ ∈ (0, 1), for the Laplace variant.
    noise : {"laplace", "inverse_quartic"}, optional
        ``"laplace"``: (ε, δ)-DP with a = ε/2, β = ε/(2 ln(2/δ)) (NRS 2007, Lemma 2.6);
        ``"inverse_quartic"``: ε-DP with a = β = ε/(3 + 3^{3/4}).  Default: Laplace when
        ``delta`` is given, inverse quartic otherwise.
    name : str
        The spec's name.

    Returns
    -------
    SmoothSensitivityMechanism
        On ``DatasetDomain(record=RealInterval(lower, upper), size=n)`` under
        ``SubstituteOne()``; its ``smooth_sensitivity`` hook is
        :func:`median_smooth_sensitivity`.

    Raises
    ------
    InvalidParameterError
        If n is even or not a positive integer, the bounds are not finite with
        lower < upper, ε or δ is out of range, or δ does not fit the noise.

    References
    ----------
    .. [1] Nissim, Raskhodnikova & Smith, STOC 2007, Section 3.1 and Lemma 2.6.

    Examples
    --------
    >>> mech = smooth_median_mechanism(5, 0.0, 10.0, epsilon=1.0)
    >>> type(mech.noise_law).__name__, mech.delta
    ('InverseQuartic', 0.0)
    >>> mech.smooth_sensitivity([1.0, 2.0, 3.0, 4.0, 5.0]) > 0
    True
    """
    size = _odd_size(n)
    lo, hi = _bound(lower, "lower"), _bound(upper, "upper")
    if not lo < hi:
        raise InvalidParameterError(f"lower must be < upper, got lower={lower!r}, upper={upper!r}")
    kind = noise if noise is not None else ("laplace" if delta is not None else "inverse_quartic")
    if kind not in ("laplace", "inverse_quartic"):
        raise InvalidParameterError(f"noise must be 'laplace' or 'inverse_quartic', got {noise!r}")
    domain = DatasetDomain(record=RealInterval(lo=lo, hi=hi), size=size)
    middle = (size - 1) // 2

    def median(x: np.ndarray) -> float:
        """The median (the middle order statistic) of the records."""
        return float(np.partition(x, middle)[middle])

    eps = _check_epsilon(epsilon)
    if kind == "laplace":
        if delta is None:
            raise InvalidParameterError("the Laplace variant needs delta in (0, 1), got None")
        alpha, beta = _laplace_constants(eps, _check_delta(delta))
    else:
        if delta is not None:
            raise InvalidParameterError(
                f"the inverse-quartic variant is pure epsilon-DP; got delta={delta!r} "
                "(pass noise='laplace' for an (epsilon, delta) claim)"
            )
        alpha = beta = quartic_share(eps)

    def smooth(x: np.ndarray) -> float:
        """The exact beta-smooth sensitivity of the median (NRS 2007, §3.1)."""
        return median_smooth_sensitivity(x, beta, lo, hi)

    common: dict[str, Any] = dict(
        input_domain=domain,
        relation=SubstituteOne(),
        alpha=alpha,
        beta=beta,
        name=name,
        summary=f"median of {size} records in [{lo:g}, {hi:g}] with smooth-sensitivity "
        f"noise ({kind})",
        statistic_description=f"median of {size} records in [{lo:g}, {hi:g}]",
        smooth_description="exact beta-smooth sensitivity of the median (NRS 2007, §3.1)",
        references=(NRS_2007_MEDIAN,),
    )
    if kind == "laplace" and delta is not None:  # a Laplace variant without delta raised above
        return smooth_laplace_mechanism(median, smooth, eps, delta, **common)
    return smooth_inverse_quartic_mechanism(median, smooth, eps, **common)
