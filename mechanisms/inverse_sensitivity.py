"""The inverse-sensitivity mechanism (Asi & Duchi, NeurIPS 2020) for quantiles and trimmed means.

len_f(x; t), the least number of records of x to substitute so that f(x') = t, changes by
at most 1 between substitute-one neighbours (triangle inequality of the Hamming distance),
so releasing t with density or mass ∝ exp(−ε·len_f(x; t)/2) is the exponential mechanism
with a sensitivity-1 score: ε-DP.  For an order statistic and for a trimmed mean of n
records in [lo, hi] the sets {t : len ≤ c} are nested closed intervals I_c, in closed form
(:func:`quantile_path_intervals`, :func:`trimmed_mean_path_intervals`).  The smoothed
length len_ρ(x; t) = min_{|s−t|≤ρ} len(x; s) (Asi & Duchi, NeurIPS 2020) widens each
I_c by ρ.  Two releases: over a public finite grid (a finite output law, audited exactly
through ``output_probabilities``) or over [lo, hi] (a piecewise-constant density, sampled
exactly).
"""

from __future__ import annotations

import hashlib
import math
import numbers
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from privaudit.spec import (
    DatasetDomain,
    FiniteOutputLaw,
    FiniteRandomizer,
    MechanismSpec,
    PureDP,
    RealInterval,
    Reference,
    SubstituteOne,
)
from privaudit.spec.errors import InvalidParameterError, ParameterTypeError
from privaudit.spec.validation import check_epsilon, check_sample_size

from .custom import FunctionMechanism, declare_mechanism

__all__ = [
    "ASI_DUCHI_2020",
    "ASI_DUCHI_2020_NEAR",
    "MAX_GRID_POINTS",
    "grid_probabilities",
    "inverse_sensitivity_median_mechanism",
    "inverse_sensitivity_quantile_mechanism",
    "inverse_sensitivity_trimmed_mean_mechanism",
    "path_length",
    "piecewise_density",
    "public_grid",
    "quantile_path_intervals",
    "quantile_rank",
    "sample_piecewise_density",
    "trimmed_mean_path_intervals",
]

#: Largest public grid a finite-output release accepts.
MAX_GRID_POINTS = 100_000

ASI_DUCHI_2020 = Reference(
    citation="Asi & Duchi, 'Instance-optimality in differential privacy via approximate "
    "inverse sensitivity mechanisms', NeurIPS 2020",
    locator="the inverse sensitivity mechanism, density ∝ exp(−ε len_f(x;t)/2), and its "
    "ρ-smoothed length len_ρ(x;t) = inf_{|s−t|≤ρ} len_f(x;s)",
)
ASI_DUCHI_2020_NEAR = Reference(
    citation="Asi & Duchi, 'Near instance-optimality in differential privacy', "
    "arXiv:2005.10630, 2020",
    locator="the inverse sensitivity mechanism for the median",
    url="https://arxiv.org/abs/2005.10630",
)

Kind = Literal["quantile", "trimmed_mean"]


# ----------------------------------------------------------------------------------------
# path lengths
# ----------------------------------------------------------------------------------------
def quantile_rank(n: int, quantile: float) -> int:
    """The 1-based rank k = max(1, ⌈q·n⌉) of the q-quantile order statistic x_(k).

    The median (q = 1/2) is x_((n+1)/2) for odd n and the lower median x_(n/2) for even n.

    Raises
    ------
    InvalidParameterError
        If q is not a real number in (0, 1).
    """
    if isinstance(quantile, bool) or not isinstance(quantile, numbers.Real):
        raise ParameterTypeError(f"quantile must be a real number in (0, 1), got {quantile!r}")
    q = float(quantile)
    if not 0.0 < q < 1.0:
        raise InvalidParameterError(f"quantile must lie in (0, 1), got {quantile!r}")
    return max(1, min(int(n), math.ceil(q * int(n) - 1e-12)))


def quantile_path_intervals(
    sorted_x: npt.ArrayLike, rank: int, lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray]:
    """Nested intervals I_c = {t : len(x; t) ≤ c} of the order statistic x_(rank).

    With x_(j) = lo for j ≤ 0 and x_(j) = hi for j > n, I_c = [x_(k−c), x_(k+c)] for
    c = 0, …, C = max(k, n − k + 1) (I_C = [lo, hi]): t is the k-th order statistic of x'
    iff #{x'_i < t} ≤ k − 1 and #{x'_i ≤ t} ≥ k, and one substitution moves each count by
    at most one, so len(x; t) = max(0, #{x_i < t} − k + 1, k − #{x_i ≤ t}).

    Parameters
    ----------
    sorted_x : array_like, shape (n,)
        The records in non-decreasing order, all in [lo, hi].
    rank : int
        k ∈ {1, …, n}.
    lo, hi : float
        The public record bounds.

    Returns
    -------
    (lower, upper) : tuple of ndarray, shape (C + 1,)
        ``lower`` non-increasing, ``upper`` non-decreasing.

    References
    ----------
    .. [1] Asi & Duchi, arXiv:2005.10630, 2020 (the median); NeurIPS 2020.
    """
    x = np.asarray(sorted_x, dtype=np.float64)
    n, k = x.size, int(rank)
    top = max(k, n - k + 1)
    c = np.arange(top + 1)
    padded = np.concatenate([[float(lo)], x, [float(hi)]])  # padded[j] = x_(j), j = 0..n+1
    lower = padded[np.clip(k - c, 0, n + 1)]
    upper = padded[np.clip(k + c, 0, n + 1)]
    return lower, upper


def trimmed_mean_path_intervals(
    sorted_x: npt.ArrayLike, trim: int, lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray]:
    """Nested intervals I_c = {t : len(x; t) ≤ c} of the a-trimmed mean.

    The a-trimmed mean is the mean of x_(a+1), …, x_(n−a).  Substituting c records can at
    most replace the c smallest by hi: every order statistic of any x' at Hamming distance
    ≤ c obeys x'_(i) ≤ x_(i+c) (x_(j) = hi for j > n), with equality for that x', so the
    largest trimmed mean reachable is u_c = mean_{i=a+1}^{n−a} x_(i+c), the smallest
    l_c = mean_{i=a+1}^{n−a} x_(i−c) (x_(j) = lo for j < 1), and since the trimmed mean is
    continuous and the Hamming ball is connected, I_c = [l_c, u_c], c = 0, …, n − a.

    Parameters
    ----------
    sorted_x : array_like, shape (n,)
        The records in non-decreasing order, all in [lo, hi].
    trim : int
        a ≥ 0 with 2a < n.
    lo, hi : float
        The public record bounds.

    Returns
    -------
    (lower, upper) : tuple of ndarray, shape (n − a + 1,)

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020 (len_f for a general f); the closed form above is
       derived here.
    """
    x = np.asarray(sorted_x, dtype=np.float64)
    n, a = x.size, int(trim)
    kept = n - 2 * a
    top = n - a
    padded = np.concatenate([np.full(n, float(lo)), x, np.full(n, float(hi))])
    c = np.arange(top + 1)
    means = _exact_window_means(padded, kept)
    upper = means[n + a + c]
    lower = means[n + a - c]
    return lower, upper


def _exact_window_means(values: np.ndarray, width: int) -> np.ndarray:
    """Means of every run of ``width`` consecutive ``values``, each correctly rounded.

    The sums are exact (Python integers on the values' common binary exponent) and each
    mean is rounded once, so every computed end is a monotone function of the exact one:
    nestedness across neighbours, I_c(x) ⊂ I_{c+1}(y), survives the rounding, and with it
    the sensitivity 1 of the computed length (a float cumulative sum would not keep it).
    """
    parts = [float(v).as_integer_ratio() for v in values]
    scale = max(den for _, den in parts)  # a power of two
    ints = [num * (scale // den) for num, den in parts]
    prefix = [0]
    for v in ints:
        prefix.append(prefix[-1] + v)
    count = len(ints) - width + 1
    divisor = width * scale
    return np.array([float(Fraction(prefix[i + width] - prefix[i], divisor)) for i in range(count)])


def path_length(
    lower: npt.ArrayLike, upper: npt.ArrayLike, t: npt.ArrayLike, rho: float = 0.0
) -> np.ndarray:
    """len_ρ(x; t) = min{c : dist(t, I_c) ≤ ρ} for nested intervals I_c = [lower_c, upper_c].

    With ρ = 0 this is len(x; t) itself.  Vectorised over t (values in [lower_C, upper_C]).

    Returns
    -------
    ndarray of int64, the shape of ``t``.

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020 (the ρ-smoothed inverse sensitivity).
    """
    lo_c = np.asarray(lower, dtype=np.float64)
    up_c = np.asarray(upper, dtype=np.float64)
    values = np.asarray(t, dtype=np.float64)
    right = np.searchsorted(up_c + rho, values, side="left")
    left = np.searchsorted(-(lo_c - rho), -values, side="left")
    return np.maximum(left, right).astype(np.int64)


def grid_probabilities(
    lower: npt.ArrayLike,
    upper: npt.ArrayLike,
    grid: npt.ArrayLike,
    epsilon: float,
    rho: float = 0.0,
) -> np.ndarray:
    """P(g) ∝ exp(−ε len_ρ(x; g)/2) over the public grid (the exponential mechanism).

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020; McSherry & Talwar, FOCS 2007.
    """
    lengths = path_length(lower, upper, grid, rho)
    logw = -0.5 * float(epsilon) * (lengths - lengths.min())
    w = np.exp(logw)
    return w / w.sum()


def piecewise_density(
    lower: npt.ArrayLike,
    upper: npt.ArrayLike,
    epsilon: float,
    lo: float,
    hi: float,
    rho: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The density ∝ exp(−ε len_ρ(x; t)/2) on [lo, hi] as pieces of constant density.

    len_ρ = c on J_c minus J_{c−1}, J_c = [lower_c − ρ, upper_c + ρ] ∩ [lo, hi]: a left
    piece [J_c⁻, J_{c−1}⁻) and a right piece (J_{c−1}⁺, J_c⁺] for c ≥ 1, and J_0 itself.

    Returns
    -------
    (left_ends, right_ends, masses) : ndarrays of shape (2C + 1,)
        Piece end points and probabilities (summing to 1; zero-width pieces get mass 0).

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020.
    """
    jl = np.clip(np.asarray(lower, dtype=np.float64) - rho, lo, hi)
    ju = np.clip(np.asarray(upper, dtype=np.float64) + rho, lo, hi)
    left_ends = np.concatenate([jl[1:], jl[:1], ju[:-1]])
    right_ends = np.concatenate([jl[:-1], ju[:1], ju[1:]])
    cost = np.concatenate([np.arange(1, jl.size), [0], np.arange(1, ju.size)])
    widths = np.clip(right_ends - left_ends, 0.0, None)
    weights = widths * np.exp(-0.5 * float(epsilon) * cost)
    return left_ends, right_ends, weights / weights.sum()


def sample_piecewise_density(
    left_ends: np.ndarray,
    right_ends: np.ndarray,
    masses: np.ndarray,
    size: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """``size`` exact draws from a piecewise-uniform law: a piece by its mass, then uniform."""
    cdf = np.cumsum(masses)
    piece = np.minimum(np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right"), cdf.size - 1)
    u = rng.random(size)
    return left_ends[piece] + u * (right_ends[piece] - left_ends[piece])


# ----------------------------------------------------------------------------------------
# the mechanisms
# ----------------------------------------------------------------------------------------
def _bounds(lo: Any, hi: Any) -> tuple[float, float]:
    for label, v in (("lo", lo), ("hi", hi)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(float(v)):
            raise InvalidParameterError(f"{label} must be a finite real number, got {v!r}")
    if not float(lo) < float(hi):
        raise InvalidParameterError(f"lo must be < hi, got lo={lo!r}, hi={hi!r}")
    return float(lo), float(hi)


def _rho(rho: Any, lo: float, hi: float) -> float:
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not math.isfinite(float(rho)):
        raise InvalidParameterError(f"rho must be a finite real number >= 0, got {rho!r}")
    if not 0.0 <= float(rho) <= hi - lo:
        raise InvalidParameterError(f"rho must lie in [0, hi - lo = {hi - lo:g}], got {rho!r}")
    return float(rho)


def public_grid(grid: Any, lo: float, hi: float) -> np.ndarray:
    """The public candidate outputs: ``m`` equally spaced points of [lo, hi], or an array.

    Raises
    ------
    InvalidParameterError
        A grid of fewer than 2 or more than :data:`MAX_GRID_POINTS` points, not strictly
        increasing, not finite, or leaving [lo, hi].
    """
    if isinstance(grid, numbers.Integral) and not isinstance(grid, bool):
        if not 2 <= int(grid) <= MAX_GRID_POINTS:
            raise InvalidParameterError(
                f"grid must have 2..{MAX_GRID_POINTS} points, got grid={grid!r}"
            )
        return np.linspace(lo, hi, int(grid))
    try:
        points = np.asarray(grid, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"grid must be an integer or an array of reals, got {grid!r}"
        ) from None
    if not 2 <= points.size <= MAX_GRID_POINTS or not np.all(np.isfinite(points)):
        raise InvalidParameterError(
            f"grid must hold 2..{MAX_GRID_POINTS} finite points, got {points.size} points"
        )
    if np.any(np.diff(points) <= 0) or points[0] < lo or points[-1] > hi:
        raise InvalidParameterError(
            f"grid points must increase strictly inside [{lo:g}, {hi:g}], got "
            f"{points[:4].tolist()}…"
        )
    return points


def _grid_label(points: np.ndarray, lo: float, hi: float) -> str:
    if points.size >= 2 and np.allclose(points, np.linspace(lo, hi, points.size), rtol=0, atol=0):
        return f"{points.size} equally spaced points of [{lo:g}, {hi:g}]"
    digest = hashlib.sha256(points.tobytes()).hexdigest()[:16]
    return f"{points.size} public points in [{lo:g}, {hi:g}] (sha256 {digest})"


def _intervals(
    kind: Kind, parameter: int, lo: float, hi: float
) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    def intervals(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = np.sort(np.asarray(x, dtype=np.float64).ravel())
        if kind == "quantile":
            return quantile_path_intervals(s, parameter, lo, hi)
        return trimmed_mean_path_intervals(s, parameter, lo, hi)

    return intervals


def _statistic(kind: Kind, parameter: int) -> Callable[[np.ndarray], float]:
    def statistic(x: np.ndarray) -> float:
        s = np.sort(np.asarray(x, dtype=np.float64).ravel())
        if kind == "quantile":
            return float(s[parameter - 1])
        return float(np.mean(s[parameter : s.size - parameter]))

    return statistic


def _build(
    kind: Kind,
    parameter: int,
    n: int,
    lo: float,
    hi: float,
    eps: float,
    *,
    grid: Any,
    rho: float,
    name: str,
    described: str,
) -> FunctionMechanism:
    domain = DatasetDomain(record=RealInterval(lo=lo, hi=hi), size=n)
    intervals = _intervals(kind, parameter, lo, hi)
    statistic = _statistic(kind, parameter)
    smoothing = f", smoothed length len_rho with rho = {rho:g}" if rho > 0 else ""
    common: dict[str, Any] = dict(
        name=name,
        references=(ASI_DUCHI_2020, ASI_DUCHI_2020_NEAR),
        input_domain=domain,
        relation=SubstituteOne(),
        statistic=described,
        guarantee=PureDP(epsilon=eps),
    )
    if grid is not None:
        points = public_grid(grid, lo, hi)
        label = _grid_label(points, lo, hi)
        spec = MechanismSpec(
            summary=f"inverse-sensitivity {described} over {label}{smoothing}; releases "
            "the index of the chosen grid point",
            noise=FiniteRandomizer(
                law=FiniteOutputLaw(
                    alphabet=points.size,
                    length=1,
                    description=f"P(g) ∝ exp(−ε·len(x; g)/2) over {label}{smoothing}: the "
                    "exponential mechanism with the sensitivity-1 score −len",
                )
            ),
            **common,
        )

        def probabilities(x: np.ndarray) -> np.ndarray:
            """P(index j) ∝ exp(−ε len_ρ(x; g_j)/2) (Asi & Duchi, NeurIPS 2020)."""
            lower, upper = intervals(x)
            return grid_probabilities(lower, upper, points, eps, rho)[None, :]

        def sample_grid(x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
            cdf = np.cumsum(probabilities(x)[0])
            index = np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right")
            return np.minimum(index, points.size - 1).astype(np.int64)

        mech = declare_mechanism(
            spec, sample_grid, statistic=statistic, output_probabilities=probabilities
        )
        mech.grid = points  # type: ignore[attr-defined]
        return mech
    spec = MechanismSpec(
        summary=f"inverse-sensitivity {described}: density ∝ exp(−ε·len(x; t)/2) on "
        f"[{lo:g}, {hi:g}]{smoothing}",
        notes="a continuous exponential mechanism with the sensitivity-1 score −len (base "
        "measure: Lebesgue on [lo, hi]); sampled exactly as a piecewise-uniform law",
        **common,
    )

    def sample_continuous(x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        lower, upper = intervals(x)
        left, right, masses = piecewise_density(lower, upper, eps, lo, hi, rho)
        return sample_piecewise_density(left, right, masses, size, rng)

    mech = declare_mechanism(spec, sample_continuous, statistic=statistic)
    mech.grid = None  # type: ignore[attr-defined]
    return mech


def inverse_sensitivity_quantile_mechanism(
    n: int,
    lo: float,
    hi: float,
    epsilon: float,
    *,
    quantile: float = 0.5,
    grid: int | npt.ArrayLike | None = None,
    rho: float = 0.0,
    name: str | None = None,
) -> FunctionMechanism:
    """ε-DP q-quantile x_(k), k = max(1, ⌈qn⌉), of n records in [lo, hi] by inverse sensitivity.

    Parameters
    ----------
    n : int
        The public number of records (≥ 1).
    lo, hi : float
        Finite public bounds, lo < hi.
    epsilon : float
        ε > 0.
    quantile : float
        q ∈ (0, 1).
    grid : int or array_like, optional
        A public finite set of candidate outputs (``m`` equally spaced points, or the
        points): the mechanism releases the index of a grid point with probability
        ∝ exp(−ε len(x; g)/2) and exposes ``output_probabilities`` (exact audit).  None:
        the density ∝ exp(−ε len_ρ(x; t)/2) on [lo, hi] (values released).
    rho : float
        The smoothing radius ρ ∈ [0, hi − lo] of len_ρ.
    name : str, optional
        The spec's name (default ``"inverse_sensitivity.quantile"``).

    Returns
    -------
    FunctionMechanism
        Substitute-one on ``DatasetDomain(RealInterval(lo, hi), size=n)``, ε-DP; its
        ``grid`` attribute holds the grid points (None for the continuous release).

    Raises
    ------
    SampleSizeError, EpsilonRangeError, ParameterTypeError, InvalidParameterError
        Bad n, ε, q, bounds, grid or ρ.

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020; Asi & Duchi, arXiv:2005.10630, 2020.

    Examples
    --------
    >>> mech = inverse_sensitivity_quantile_mechanism(5, 0.0, 1.0, 1.0, grid=11)
    >>> mech.output_probabilities([0.1, 0.2, 0.5, 0.7, 0.9]).shape
    (1, 11)
    """
    size = check_sample_size(n, 1, "n")
    lo_f, hi_f = _bounds(lo, hi)
    eps = check_epsilon(epsilon)
    k = quantile_rank(size, quantile)
    return _build(
        "quantile",
        k,
        size,
        lo_f,
        hi_f,
        eps,
        grid=grid,
        rho=_rho(rho, lo_f, hi_f),
        name=name or "inverse_sensitivity.quantile",
        described=f"{float(quantile):g}-quantile x_({k}) of {size} records in [{lo_f:g}, {hi_f:g}]",
    )


def inverse_sensitivity_median_mechanism(
    n: int,
    lo: float,
    hi: float,
    epsilon: float,
    *,
    grid: int | npt.ArrayLike | None = None,
    rho: float = 0.0,
    name: str | None = None,
) -> FunctionMechanism:
    """The ε-DP median (x_((n+1)/2), or the lower median x_(n/2) for even n) by inverse
    sensitivity: :func:`inverse_sensitivity_quantile_mechanism` at q = 1/2.

    References
    ----------
    .. [1] Asi & Duchi, arXiv:2005.10630, 2020 (the median); NeurIPS 2020.
    """
    return inverse_sensitivity_quantile_mechanism(
        n,
        lo,
        hi,
        epsilon,
        quantile=0.5,
        grid=grid,
        rho=rho,
        name=name or "inverse_sensitivity.median",
    )


def inverse_sensitivity_trimmed_mean_mechanism(
    n: int,
    lo: float,
    hi: float,
    epsilon: float,
    *,
    trim: int,
    grid: int | npt.ArrayLike | None = None,
    rho: float = 0.0,
    name: str | None = None,
) -> FunctionMechanism:
    """The ε-DP a-trimmed mean (mean of x_(a+1..n−a)) of n records in [lo, hi].

    The parameters not listed below are those of :func:`inverse_sensitivity_quantile_mechanism`.

    Parameters
    ----------
    trim : int
        a ≥ 0 records cut from each side, 2a < n.

    Raises
    ------
    InvalidParameterError
        If a is not an integer with 0 ≤ 2a < n.

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020; the path intervals of
       :func:`trimmed_mean_path_intervals`.
    """
    size = check_sample_size(n, 1, "n")
    if isinstance(trim, bool) or not isinstance(trim, numbers.Integral):
        raise ParameterTypeError(f"trim must be an integer, got {trim!r}")
    if int(trim) < 0 or 2 * int(trim) >= size:
        raise InvalidParameterError(f"trim must satisfy 0 <= 2*trim < n = {size}, got {trim!r}")
    lo_f, hi_f = _bounds(lo, hi)
    eps = check_epsilon(epsilon)
    a = int(trim)
    return _build(
        "trimmed_mean",
        a,
        size,
        lo_f,
        hi_f,
        eps,
        grid=grid,
        rho=_rho(rho, lo_f, hi_f),
        name=name or "inverse_sensitivity.trimmed_mean",
        described=f"{a}-trimmed mean of {size} records in [{lo_f:g}, {hi_f:g}]",
    )
