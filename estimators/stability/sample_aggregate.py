"""Sample-and-aggregate (Nissim, Raskhodnikova & Smith, STOC 2007, §4).

Split the n records into k disjoint blocks by position (contiguous, or a permutation
drawn from a *public* seed: either way independent of the data), compute f on each
block, clip the k values to a public [a, b], and release a DP aggregate of them.  Under
substitute-one (position by position) one record lies in exactly one block, so
neighbouring data sets give block-value vectors that differ in at most one coordinate:
the clipped mean has sensitivity (b − a)/k (Laplace aggregator, ε-DP), and the β-smooth
sensitivity of the median of the block values is a β-smooth bound for the composed
function (smooth-median aggregator, (ε, δ)-DP, NRS 2007, Lemma 2.6 and §3.1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from privaudit.mechanisms import LaplaceMechanism, Mechanism
from privaudit.mechanisms.accounting import PrivacyBudget
from privaudit.mechanisms.smooth_median import median_smooth_sensitivity
from privaudit.mechanisms.smooth_sensitivity import _laplace_constants, smooth_laplace_mechanism
from privaudit.spec import (
    DatasetDomain,
    MechanismSpec,
    RandomLike,
    RealInterval,
    Reference,
    SubstituteOne,
    as_generator,
)
from privaudit.spec.errors import InvalidParameterError, OutputShapeError, SampleSizeError
from privaudit.spec.validation import check_epsilon, check_sample_size, real_array

__all__ = [
    "SampleAggregateRelease",
    "block_values",
    "sample_and_aggregate",
    "sample_and_aggregate_mechanism",
]

Aggregator = Literal["laplace_mean", "smooth_median"]
BlockStatistic = Callable[[np.ndarray], Any]

NRS_2007_SA = Reference(
    citation="Nissim, Raskhodnikova & Smith, Smooth sensitivity and sampling in private data "
    "analysis, STOC 2007",
    locator="§4, sample and aggregate",
)


def block_values(
    x: np.ndarray, f: BlockStatistic, k: int, a: float, b: float, permutation: np.ndarray | None
) -> np.ndarray:
    """f on each of the k position blocks of ``x``, clipped to [a, b].

    Parameters
    ----------
    x : numpy.ndarray, shape (n,)
        The records; n must be a multiple of k.
    f : callable
        Vectorised: an array (k, n/k) of blocks → k values.
    k : int
        The number of blocks.
    a, b : float
        The public clipping range of f.
    permutation : numpy.ndarray or None
        A public permutation of the positions (None: contiguous blocks).

    Returns
    -------
    numpy.ndarray, shape (k,)
    """
    ordered = x if permutation is None else x[permutation]
    blocks = ordered.reshape(k, -1)
    values = np.asarray(f(blocks), dtype=np.float64).reshape(-1)
    if values.shape != (k,):
        raise OutputShapeError(f"f must return one value per block ({k}), got shape {values.shape}")
    if not np.all(np.isfinite(values)):
        raise InvalidParameterError(f"f returned a non-finite block value: {values!r}")
    return np.clip(values, a, b)


def sample_and_aggregate_mechanism(
    n: int,
    f: BlockStatistic,
    k: int,
    lo: float,
    hi: float,
    epsilon: float,
    *,
    delta: float | None = None,
    aggregator: Aggregator = "laplace_mean",
    record_bounds: tuple[float, float] | None = None,
    partition_seed: int | None = None,
    f_description: str = "f",
) -> Mechanism:
    """Sample-and-aggregate of a block statistic f over k position blocks of n records.

    Parameters
    ----------
    n : int
        The public number of records, a multiple of k.
    f : callable
        Vectorised block statistic: (k, n/k) array → k values.
    k : int
        Number of blocks, k ≥ 1 (odd for the smooth median).
    lo, hi : float
        The public range [a, b] the block values are clipped to, lo < hi.
    epsilon : float
        ε > 0.
    delta : float, optional
        δ ∈ (0, 1), required by (and only by) the smooth-median aggregator.
    aggregator : {"laplace_mean", "smooth_median"}
        Laplace((b − a)/(kε)) on the clipped mean (ε-DP), or the median of the block
        values with noise 2S(z)/ε·Lap(1), S its exact β-smooth sensitivity (ε, δ)-DP.
    record_bounds : (float, float), optional
        Public bounds of the records (the input domain; default: all reals).
    partition_seed : int, optional
        Seed of a public permutation of the positions (default: contiguous blocks).
    f_description : str
        What f is, for the spec.

    Returns
    -------
    Mechanism
        A :class:`~mechanisms.LaplaceMechanism` or a smooth-sensitivity mechanism on
        ``DatasetDomain(size=n)`` under substitute-one.

    References
    ----------
    .. [1] Nissim, Raskhodnikova & Smith, STOC 2007, §4 (sample and aggregate),
       Lemma 2.6 and §3.1 (smooth median).

    Examples
    --------
    >>> mech = sample_and_aggregate_mechanism(
    ...     40, lambda blocks: blocks.mean(axis=1), 5, 0.0, 1.0, 1.0, record_bounds=(0.0, 1.0))
    >>> mech.sample(np.full(40, 0.5), size=3, rng=0).shape
    (3,)
    """
    size = check_sample_size(n, 1, "n")
    blocks = check_sample_size(k, 1, "k")
    if size % blocks:
        raise SampleSizeError(f"n = {size} must be a multiple of the number of blocks k = {blocks}")
    if not callable(f):
        raise InvalidParameterError(f"f must be a vectorised callable, got {f!r}")
    clip = RealInterval(lo=lo, hi=hi)
    if clip.lo is None or clip.hi is None or not clip.lo < clip.hi:
        raise InvalidParameterError(f"need finite lo < hi, got lo={lo!r}, hi={hi!r}")
    a, b = float(clip.lo), float(clip.hi)
    eps = check_epsilon(epsilon)
    low, high = record_bounds if record_bounds is not None else (None, None)
    domain = DatasetDomain(record=RealInterval(lo=low, hi=high), size=size)
    permutation = (
        None if partition_seed is None else np.random.default_rng(partition_seed).permutation(size)
    )
    what = (
        f"{aggregator} of {f_description} on {blocks} position blocks "
        f"({'contiguous' if permutation is None else f'permutation seed {partition_seed}'}), "
        f"clipped to [{a:g}, {b:g}]"
    )

    def values(x: Any) -> np.ndarray:
        return block_values(np.asarray(x, dtype=np.float64), f, blocks, a, b, permutation)

    if aggregator == "laplace_mean":
        if delta is not None:
            raise InvalidParameterError(f"the Laplace mean is pure eps-DP; got delta={delta!r}")
        return LaplaceMechanism(
            eps,
            (b - a) / blocks,
            statistic=lambda x: float(np.mean(values(x))),
            input_domain=domain,
            relation=SubstituteOne(),
            name="sample_aggregate.laplace_mean",
            statistic_description=what,
            summary="sample-and-aggregate: Laplace mean of clipped block values",
            references=(NRS_2007_SA,),
        )
    if aggregator == "smooth_median":
        if delta is None:
            raise InvalidParameterError("the smooth-median aggregator needs delta in (0, 1)")
        if blocks % 2 == 0:
            raise SampleSizeError(f"the smooth median needs an odd number of blocks, got k={k}")
        alpha, beta = _laplace_constants(eps, delta)  # the spec's (rounded) a and beta
        return smooth_laplace_mechanism(
            lambda x: float(np.median(values(x))),
            lambda x: median_smooth_sensitivity(values(x), beta, a, b),
            eps,
            delta,
            alpha=alpha,
            beta=beta,
            input_domain=domain,
            relation=SubstituteOne(),
            name="sample_aggregate.smooth_median",
            summary="sample-and-aggregate: smooth-sensitivity median of clipped block values",
            statistic_description=what,
            smooth_description="exact beta-smooth sensitivity of the median of the k block "
            "values (NRS 2007, §3.1); one record moves one block value",
            references=(NRS_2007_SA,),
        )
    raise InvalidParameterError(
        f"aggregator must be 'laplace_mean' or 'smooth_median', got {aggregator!r}"
    )


@dataclass(frozen=True)
class SampleAggregateRelease:
    """One sample-and-aggregate release.

    Attributes
    ----------
    estimate : float
        The private aggregate.
    spec : MechanismSpec
        The claims it was made under.
    blocks : int
        k, the number of blocks.
    """

    estimate: float
    spec: MechanismSpec
    blocks: int


def sample_and_aggregate(
    x: Any,
    f: BlockStatistic,
    k: int,
    lo: float,
    hi: float,
    epsilon: float,
    *,
    delta: float | None = None,
    aggregator: Aggregator = "laplace_mean",
    partition_seed: int | None = None,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> SampleAggregateRelease:
    """Release an aggregate of f over k blocks of ``x`` (Nissim, Raskhodnikova & Smith 2007).

    Parameters
    ----------
    x : array_like, shape (n,)
        The records (n a multiple of k, public).
    f, k, lo, hi, epsilon, delta, aggregator, partition_seed
        As in :func:`sample_and_aggregate_mechanism`.
    rng : numpy.random.Generator, int or None
        Source of randomness.
    budget : PrivacyBudget, optional
        Charged for this release before any noise is drawn
        (:class:`~spec.errors.BudgetExceededError` if it would be exceeded).

    Returns
    -------
    SampleAggregateRelease

    Raises
    ------
    NonFiniteInputError, EmptyInputError, InputShapeError
        Bad data.
    SampleSizeError
        n not a multiple of k, or an even k for the smooth median.
    EpsilonRangeError, InvalidParameterError
        ε ≤ 0, lo ≥ hi, δ missing or given where it does not belong.

    Examples
    --------
    >>> x = np.linspace(0.0, 1.0, 100)
    >>> r = sample_and_aggregate(x, lambda b: b.mean(axis=1), 10, 0.0, 1.0, 1.0, rng=0)
    >>> r.blocks
    10
    """
    data = real_array(x, "x", ndim=1)
    mech = sample_and_aggregate_mechanism(
        data.size,
        f,
        k,
        lo,
        hi,
        epsilon,
        delta=delta,
        aggregator=aggregator,
        partition_seed=partition_seed,
    )
    value = mech.sample(data, size=1, rng=as_generator(rng), budget=budget)
    return SampleAggregateRelease(float(np.asarray(value).reshape(-1)[0]), mech.spec, int(k))
