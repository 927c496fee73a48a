"""The private mean of bounded data: the Laplace mechanism on the clipped sample mean.

Under substitute-one neighbouring with public n, the mean of records in [lower, upper]
has global sensitivity (upper − lower)/n (Dwork, McSherry, Nissim & Smith 2006), so
adding Laplace((upper − lower)/(nε)) noise is ε-DP.  Its accuracy claim is exact: the
error is |Lap(b)|, and P[|Lap(b)| > t] = e^{−t/b}, so P[error > b ln(1/β)] = β
(``docs/derivations.md`` §13); the lower bound it names is ``mean.central``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.mechanisms import LaplaceMechanism, laplace_scale
from privaudit.mechanisms.accounting import PrivacyBudget
from privaudit.spec import (
    AccuracyClaim,
    DatasetDomain,
    RandomLike,
    RealInterval,
    Reference,
    SubstituteOne,
)
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError
from privaudit.spec.stable_values import round_up
from privaudit.spec.validation import check_alpha, check_epsilon, check_sample_size, real_array

from ._result import PrivateEstimate

__all__ = ["bounded_mean_mechanism", "laplace_accuracy_claim", "private_bounded_mean"]

#: The exact tail of the Laplace law behind the accuracy claim.
LAPLACE_TAIL = Reference(
    citation="Laplace law tail P[|Lap(b)| > t] = exp(-t/b); Dwork & Roth, The Algorithmic "
    "Foundations of Differential Privacy, 2014",
    locator="Theorem 3.8 (Laplace accuracy); docs/derivations.md §13",
)


def laplace_accuracy_claim(
    scale: float, failure_probability: float, *, lower_bound: str = ""
) -> AccuracyClaim:
    """P[|M(x) − f(x)| > b ln(1/β)] ≤ β for f(x) + Lap(b), exactly (the bound rounded up).

    Parameters
    ----------
    scale : float
        The Laplace scale b actually used (``spec.noise.law.scale``).
    failure_probability : float
        β ∈ (0, 1).
    lower_bound : str, optional
        A registered lower bound for the problem
        (:data:`privaudit.mechanisms.LOWER_BOUNDS`).
    """
    beta = check_alpha(failure_probability, "failure_probability")
    return AccuracyClaim(
        error="absolute",
        bound=round_up(scale * math.log(1.0 / beta)),
        failure_probability=beta,
        target="statistic",
        source=LAPLACE_TAIL,
        formula="b · ln(1/β), b = (upper − lower)/(nε)",
        lower_bound=lower_bound,
    )


def bounded_mean_mechanism(
    n: int, lower: float, upper: float, epsilon: float, *, failure_probability: float = 0.05
) -> LaplaceMechanism:
    """The ε-DP Laplace mechanism for the mean of ``n`` records in [lower, upper].

    Parameters
    ----------
    n : int
        The public sample size, n ≥ 1.
    lower, upper : float
        Public bounds on every record, lower < upper.
    epsilon : float
        Privacy parameter ε > 0.
    failure_probability : float, default 0.05
        β of the spec's accuracy claim: |M(x) − mean(x)| ≤ b ln(1/β) with probability
        ≥ 1 − β, b the Laplace scale (:func:`laplace_accuracy_claim`).

    Returns
    -------
    LaplaceMechanism
        Its spec declares substitute-one neighbouring on datasets of size n, global
        sensitivity (upper − lower)/n, ε-DP and the accuracy claim.
    """
    size = check_sample_size(n, 1, "n")
    eps = check_epsilon(epsilon)
    record = RealInterval(lo=lower, hi=upper)
    if record.lo is None or record.hi is None:
        raise InvalidParameterError(
            f"a bounded mean needs both bounds, got lower={lower!r}, upper={upper!r}"
        )
    domain = DatasetDomain(record=record, size=size)
    sensitivity = (record.hi - record.lo) / size
    accuracy = laplace_accuracy_claim(
        laplace_scale(eps, sensitivity), failure_probability, lower_bound="mean.central"
    )
    return LaplaceMechanism(
        eps,
        sensitivity,
        statistic=lambda x: float(np.mean(x)),
        input_domain=domain,
        relation=SubstituteOne(),
        name="bounded_mean",
        summary="mean of n bounded records plus Laplace noise",
        statistic_description="sample mean of records in [lower, upper]",
        accuracy=accuracy,
    )


def private_bounded_mean(
    data: Any,
    lower: float,
    upper: float,
    epsilon: float,
    *,
    clip: bool = False,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> PrivateEstimate:
    """Release an ε-DP estimate of the mean of ``data`` whose records lie in [lower, upper].

    Parameters
    ----------
    data : array_like, shape (n,)
        The records; n is treated as public.
    lower, upper : float
        Public bounds on every record.
    epsilon : float
        Privacy parameter ε > 0.
    clip : bool, default False
        Clip records into [lower, upper] first (a public, data-independent map).  Without
        it, a record outside the bounds raises :class:`~spec.errors.OutOfDomainError`.
    rng : numpy.random.Generator, int or None
        Source of randomness.
    budget : PrivacyBudget, optional
        Charged for this release before any noise is drawn
        (:class:`~spec.errors.BudgetExceededError` if it would be exceeded).

    Returns
    -------
    PrivateEstimate

    Raises
    ------
    NonNumericInputError, ComplexInputError, NonFiniteInputError, EmptyInputError,
    InputShapeError, OutOfDomainError
        Bad data (:mod:`spec.validation`; numeric strings are refused, NaN even with
        ``clip=True``).
    ParameterTypeError, EpsilonRangeError
        ε not a number, or outside [1e-50, 300].

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(0, 1, 101)
    >>> r = private_bounded_mean(x, 0.0, 1.0, epsilon=1.0, rng=7)
    >>> abs(r.estimate - 0.5) < 0.2 and r.spec.guarantee.epsilon == 1.0
    True
    """
    check_epsilon(epsilon)
    arr = real_array(data, "data", ndim=1)
    mech = bounded_mean_mechanism(arr.size, lower, upper, epsilon)
    if clip:
        domain = mech.spec.input_domain
        if not isinstance(domain, DatasetDomain) or not isinstance(domain.record, RealInterval):
            raise UnsupportedCombinationError(  # pragma: no cover - built above
                f"a bounded mean needs real records, got {domain.label()}"
            )
        arr = np.clip(arr, domain.record.lo, domain.record.hi)
    value = mech.release(arr, rng=rng, budget=budget)
    return PrivateEstimate(estimate=float(value), spec=mech.spec, noise_std=mech.noise_law.std)
