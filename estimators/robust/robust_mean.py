"""A winsorised mean with a private range: two inverse-sensitivity quantiles, then Laplace.

Stage 1 releases the q_lo- and q_hi-quantiles of the n records in [lo, hi] with the
inverse-sensitivity mechanism (ε₁/2 each; Asi & Duchi, NeurIPS 2020).  Stage 2 clips
every record to [a, b] (the two releases, sorted) and adds Laplace((b − a)/(n ε₂)) to the
mean: for every fixed [a, b] one substitution moves the clipped mean by at most (b − a)/n,
so stage 2 is ε₂-DP given stage 1's output, and the density of (a, b, mean) is a product
of the stages' densities: ε₁ + ε₂ by sequential composition with adaptively chosen
parameters (Dwork & Roth 2014, Thm. 3.16; McSherry, SIGMOD 2009, Thm. 1).  The release is
the mean (the range is post-processed away; the analyst entry point returns it too, as
it is covered by the same ε).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from privaudit.mechanisms import FunctionMechanism, declare_mechanism, split_budget
from privaudit.mechanisms.inverse_sensitivity import (
    ASI_DUCHI_2020,
    piecewise_density,
    quantile_path_intervals,
    quantile_rank,
    sample_piecewise_density,
)
from privaudit.spec import (
    DatasetDomain,
    MechanismSpec,
    PureDP,
    RealInterval,
    Reference,
    SubstituteOne,
)
from privaudit.spec.errors import InvalidParameterError, ParameterTypeError
from privaudit.spec.validation import check_epsilon, check_sample_size

__all__ = [
    "clipped_means",
    "robust_mean_budget",
    "robust_mean_mechanism",
    "sample_robust_mean",
]

DWORK_ROTH_COMPOSITION = Reference(
    citation="Dwork & Roth, 'The algorithmic foundations of differential privacy', "
    "Foundations and Trends in Theoretical Computer Science, 2014",
    locator="Theorem 3.16 (sequential composition of pure DP)",
)
MCSHERRY_2009 = Reference(
    citation="McSherry, 'Privacy integrated queries', SIGMOD 2009",
    locator="Theorem 1 (sequential composition, parameters chosen from earlier releases)",
)


def clipped_means(sorted_x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """mean(clip(x, a_i, b_i)) for many ranges at once (a_i ≤ b_i), O(log n) each.

    Σ clip(x, a, b) = a·#{x < a} + Σ_{a ≤ x ≤ b} x + b·#{x > b}, with prefix sums.
    """
    x = np.asarray(sorted_x, dtype=np.float64)
    prefix = np.concatenate([[0.0], np.cumsum(x)])
    below = np.searchsorted(x, a, side="left")
    upto = np.searchsorted(x, b, side="right")
    inner = prefix[upto] - prefix[below]
    total = a * below + inner + b * (x.size - upto)
    return np.asarray(total / x.size, dtype=np.float64)


def _check_quantiles(quantiles: Any) -> tuple[float, float]:
    try:
        q_lo, q_hi = (float(q) for q in quantiles)
    except (TypeError, ValueError):
        raise ParameterTypeError(
            f"quantiles must be two reals 0 < q_lo < q_hi < 1, got {quantiles!r}"
        ) from None
    if not 0.0 < q_lo < q_hi < 1.0:
        raise InvalidParameterError(
            f"quantiles must satisfy 0 < q_lo < q_hi < 1, got {quantiles!r}"
        )
    return q_lo, q_hi


def _check_share(range_share: Any) -> float:
    if isinstance(range_share, bool) or not isinstance(range_share, numbers.Real):
        raise ParameterTypeError(f"range_share must be a real in (0, 1), got {range_share!r}")
    if not 0.0 < float(range_share) < 1.0:
        raise InvalidParameterError(f"range_share must lie in (0, 1), got {range_share!r}")
    return float(range_share)


def sample_robust_mean(
    sorted_x: np.ndarray,
    lo: float,
    hi: float,
    ranks: tuple[int, int],
    epsilons: tuple[float, float, float],
    size: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``size`` independent releases (a, b, mean) of the two-stage mechanism, vectorised.

    Parameters
    ----------
    sorted_x : ndarray
        The records, sorted.
    lo, hi : float
        Public bounds.
    ranks : (int, int)
        Ranks of the two quantiles.
    epsilons : (float, float, float)
        ε of the lower quantile, of the upper quantile and of the Laplace mean.
    size : int
        Number of releases.
    rng : numpy.random.Generator

    Returns
    -------
    (a, b, mean) : three ndarrays of shape (size,), a ≤ b.

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020 (stage 1); Dwork, McSherry, Nissim & Smith 2006
       (the Laplace mechanism, stage 2); Dwork & Roth 2014, Thm. 3.16.
    """
    draws = []
    for rank, eps in zip(ranks, epsilons[:2], strict=True):
        lower, upper = quantile_path_intervals(sorted_x, rank, lo, hi)
        draws.append(
            sample_piecewise_density(*piecewise_density(lower, upper, eps, lo, hi), size, rng)
        )
    a, b = np.minimum(draws[0], draws[1]), np.maximum(draws[0], draws[1])
    scale = (b - a) / (sorted_x.size * epsilons[2])
    mean = clipped_means(sorted_x, a, b) + scale * rng.laplace(0.0, 1.0, size)
    return a, b, mean


def robust_mean_mechanism(
    n: int,
    lo: float,
    hi: float,
    epsilon: float,
    *,
    quantiles: tuple[float, float] = (0.1, 0.9),
    range_share: float = 0.5,
    name: str = "robust_mean.winsorised",
) -> FunctionMechanism:
    """The ε-DP mean of n records in [lo, hi] winsorised to a private quantile range.

    Parameters
    ----------
    n : int
        The public number of records.
    lo, hi : float
        Public bounds, lo < hi.
    epsilon : float
        The total ε > 0 = ε₁ + ε₂.
    quantiles : (float, float)
        q_lo < q_hi in (0, 1): the range [a, b] estimates [x_(⌈q_lo n⌉), x_(⌈q_hi n⌉)].
    range_share : float
        ε₁/ε ∈ (0, 1), split evenly between the two quantiles.
    name : str
        The spec's name.

    Returns
    -------
    FunctionMechanism
        Black box (its spec declares no noise law) claiming ε-DP under substitute-one on
        ``DatasetDomain(RealInterval(lo, hi), size=n)``; releases the mean only.

    Raises
    ------
    SampleSizeError, EpsilonRangeError, ParameterTypeError, InvalidParameterError
        Bad n, ε, bounds, quantiles or share.

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020; Dwork & Roth 2014, Thm. 3.16; McSherry,
       SIGMOD 2009, Thm. 1.

    Examples
    --------
    >>> mech = robust_mean_mechanism(21, 0.0, 1.0, 1.0)
    >>> mech.sample(np.linspace(0.0, 1.0, 21), size=4, rng=0).shape
    (4,)
    """
    size = check_sample_size(n, 2, "n")
    eps = check_epsilon(epsilon)
    q_lo, q_hi = _check_quantiles(quantiles)
    share = _check_share(range_share)
    record = RealInterval(lo=lo, hi=hi)
    if record.lo is None or record.hi is None or not record.lo < record.hi:
        raise InvalidParameterError(f"need finite bounds lo < hi, got lo={lo!r}, hi={hi!r}")
    low, high = float(record.lo), float(record.hi)
    epsilons = robust_mean_budget(eps, share)
    ranks = (quantile_rank(size, q_lo), quantile_rank(size, q_hi))
    spec = MechanismSpec(
        name=name,
        summary=f"mean of {size} records in [{low:g}, {high:g}] winsorised to a private "
        f"[{q_lo:g}, {q_hi:g}]-quantile range, plus Laplace noise",
        references=(ASI_DUCHI_2020, DWORK_ROTH_COMPOSITION, MCSHERRY_2009),
        input_domain=DatasetDomain(record=record, size=size),
        relation=SubstituteOne(),
        statistic=f"mean of the records clipped to [x_({ranks[0]}), x_({ranks[1]})]",
        guarantee=PureDP(epsilon=eps),
        notes=f"composed: quantiles by inverse sensitivity at epsilon {epsilons[0]:g} and "
        f"{epsilons[1]:g}, then the clipped mean plus Laplace((b - a)/(n * {epsilons[2]:g})), "
        "which is epsilon_2-DP for every range [a, b]; sequential composition gives the sum",
    )

    def sample(x: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
        return sample_robust_mean(np.sort(x), low, high, ranks, epsilons, count, rng)[2]

    def statistic(x: np.ndarray) -> float:
        s = np.sort(np.asarray(x, dtype=np.float64))
        a, b = s[ranks[0] - 1], s[ranks[1] - 1]
        return float(clipped_means(s, np.array([a]), np.array([b]))[0])

    return declare_mechanism(spec, sample, statistic=statistic)


def robust_mean_budget(epsilon: float, range_share: float) -> tuple[float, float, float]:
    """(ε₁/2, ε₁/2, ε₂) with ε₁ = range_share·ε: the split of :func:`robust_mean_mechanism`.

    Made by :func:`~mechanisms.split_budget`, which composes back to ε exactly (Dwork &
    Roth 2014, Thm. 3.16).

    Raises
    ------
    EpsilonRangeError, InvalidParameterError
        Bad ε or share.
    """
    share = _check_share(range_share)
    parts = split_budget(PureDP(epsilon=check_epsilon(epsilon)), [share / 2, share / 2, 1 - share])
    return (parts[0].epsilon, parts[1].epsilon, parts[2].epsilon)
