"""Propose-test-release (Dwork & Lei, STOC 2009) for the median and the interquartile range.

Given a proposed bound b on the local sensitivity, compute the distance d(x) to the
nearest data set whose local sensitivity exceeds b (:mod:`.order_statistics`).  With
ε' = ε/2 and τ = ln(1/(2δ))/ε', release ⊥ if d(x) + Lap(1/ε') ≤ τ, else f(x) + Lap(b/ε').
This is the generic PTR[b] of Dwork & Roth (2014, §7.x "Propose-test-release") at
(ε', δ' = 2δ): its threshold ln(1/δ')/ε'.  Proof (``docs/stability_mechanisms.md``):
if LS(x) > b then d(x) = 0 and P[release] = P[Lap(1/ε') > τ] = e^{−ε'τ}/2 = δ; otherwise
|f(x) − f(y)| ≤ b and both steps cost ε', so the mechanism is (ε, δ)-DP under
substitute-one.  The release is the vector [released, value] (value 0 for ⊥), so the
⊥ event is visible to the auditor.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from privaudit.mechanisms import FunctionMechanism, declare_mechanism
from privaudit.mechanisms.accounting import PrivacyBudget
from privaudit.spec import (
    ApproxDP,
    DatasetDomain,
    LocalSensitivityBound,
    MechanismSpec,
    RandomLike,
    RealInterval,
    Reference,
    SubstituteOne,
    as_generator,
)
from privaudit.spec.errors import DeltaRangeError, InvalidParameterError
from privaudit.spec.validation import check_delta, check_epsilon, check_positive, check_sample_size

from .order_statistics import (
    distance_to_instability,
    iqr,
    iqr_distance_to_instability,
    iqr_local_sensitivity,
    median_rank,
    order_statistic_local_sensitivity,
    quartile_ranks,
    sorted_records,
)

__all__ = [
    "PTRRelease",
    "ptr_iqr",
    "ptr_iqr_mechanism",
    "ptr_median",
    "ptr_median_mechanism",
    "ptr_threshold",
    "release_probability",
]

Statistic = Literal["median", "iqr"]

DWORK_LEI_2009 = Reference(
    citation="Dwork & Lei, Differential privacy and robust statistics, STOC 2009",
    locator="Propose-Test-Release (§3)",
)
DWORK_ROTH_2014 = Reference(
    citation="Dwork & Roth, The Algorithmic Foundations of Differential Privacy, FnT-TCS 2014",
    locator="§7, Propose-Test-Release[b]",
)
NRS_2007 = Reference(
    citation="Nissim, Raskhodnikova & Smith, Smooth sensitivity and sampling in private data "
    "analysis, STOC 2007",
    locator="§3.1, A^(k) of the median",
)


def ptr_threshold(epsilon: float, delta: float) -> float:
    """τ = ln(1/(2δ))/ε' with ε' = ε/2: the test's threshold for a total (ε, δ).

    Parameters
    ----------
    epsilon : float
        The total ε > 0 (half for the test, half for the release).
    delta : float
        δ ∈ (0, 1/2).

    Returns
    -------
    float

    Raises
    ------
    DeltaRangeError
        If δ ∉ (0, 1/2) (τ would be ≤ 0).
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    if not 0.0 < d < 0.5:
        raise DeltaRangeError(f"delta must lie in (0, 0.5) for PTR, got {delta!r}")
    return math.log(1.0 / (2.0 * d)) / (eps / 2.0)


def release_probability(distance: float, epsilon: float, delta: float) -> float:
    """P[d + Lap(2/ε) > τ]: the probability that PTR releases a value at distance d.

    ½ e^{−ε'(τ−d)} for d ≤ τ, 1 − ½ e^{−ε'(d−τ)} above (ε' = ε/2); 1 for d = ∞.
    """
    tau = ptr_threshold(epsilon, delta)
    if math.isinf(distance):
        return 1.0
    half = epsilon / 2.0
    if distance <= tau:
        return 0.5 * math.exp(-half * (tau - distance))
    return 1.0 - 0.5 * math.exp(-half * (distance - tau))


@dataclass(frozen=True)
class _Target:
    """The statistic PTR releases, with its exact local sensitivity and distance."""

    label: str
    value: Callable[[np.ndarray], float]
    local: Callable[[np.ndarray], float]
    distance: Callable[[np.ndarray, float], float]


def _target(kind: Statistic, n: int, lo: float, hi: float) -> _Target:
    if kind == "median":
        m = median_rank(n)
        return _Target(
            f"median (rank {m}) of {n} records in [{lo:g}, {hi:g}]",
            lambda v: float(v[m - 1]),
            lambda v: order_statistic_local_sensitivity(v, m, lo, hi),
            lambda v, b: distance_to_instability(v, m, lo, hi, b),
        )
    if kind == "iqr":
        r1, r3 = quartile_ranks(n)
        return _Target(
            f"interquartile range x_({r3}) - x_({r1}) of {n} records in [{lo:g}, {hi:g}]",
            iqr,
            lambda v: iqr_local_sensitivity(v, lo, hi),
            lambda v, b: iqr_distance_to_instability(v, lo, hi, b),
        )
    raise InvalidParameterError(f"statistic must be 'median' or 'iqr', got {kind!r}")


def _bounds(lo: Any, hi: Any) -> tuple[float, float]:
    record = RealInterval(lo=lo, hi=hi)
    if record.lo is None or record.hi is None or not record.lo < record.hi:
        raise InvalidParameterError(f"PTR needs finite bounds lo < hi, got lo={lo!r}, hi={hi!r}")
    return float(record.lo), float(record.hi)


def _ptr_mechanism(
    kind: Statistic,
    n: int,
    lo: float,
    hi: float,
    epsilon: float,
    delta: float,
    proposed_bound: float,
) -> FunctionMechanism:
    size = check_sample_size(n, 1, "n")
    low, high = _bounds(lo, hi)
    eps = check_epsilon(epsilon)
    tau = ptr_threshold(eps, delta)
    b = check_positive(proposed_bound, "proposed_bound")
    target = _target(kind, size, low, high)
    half = eps / 2.0

    def sampler(x: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
        values = np.sort(np.asarray(x, dtype=np.float64))
        test = target.distance(values, b) + rng.laplace(0.0, 1.0 / half, count)
        noise = rng.laplace(0.0, b / half, count)
        released = test > tau
        out = np.zeros((count, 2))
        out[:, 0] = released
        out[:, 1] = np.where(released, target.value(values) + noise, 0.0)
        return out

    spec = MechanismSpec(
        name=f"ptr.{kind}",
        summary=f"propose-test-release of the {kind} with proposed local-sensitivity bound "
        f"{b:g}: [released, value], value 0 for the refusal",
        references=(DWORK_LEI_2009, DWORK_ROTH_2014, NRS_2007),
        input_domain=DatasetDomain(record=RealInterval(lo=low, hi=high), size=size),
        relation=SubstituteOne(),
        statistic=target.label,
        output_dimension=2,
        sensitivity=(
            LocalSensitivityBound(
                description=f"exact local sensitivity of the {kind} from its order "
                "statistics (NRS 2007, §3.1); PTR tests that it stays <= the proposed "
                "bound within the noisy distance"
            ),
        ),
        guarantee=ApproxDP(epsilon=eps, delta=float(delta)),
        notes=f"test: d(x) + Lap({1 / half:.6g}) > tau = ln(1/(2 delta))/(eps/2) = {tau:.6g}, "
        f"release f(x) + Lap({b / half:.6g}); (eps/2, 2 delta) in Dwork & Roth's PTR[b], "
        "whose proof gives (eps, delta) exactly",
    )
    return declare_mechanism(
        spec,
        sampler=sampler,
        statistic=lambda x: target.value(np.sort(np.asarray(x, dtype=np.float64))),
        local_sensitivity_bound=lambda x: target.local(np.sort(np.asarray(x, dtype=np.float64))),
    )


def ptr_median_mechanism(
    n: int, lo: float, hi: float, epsilon: float, delta: float, proposed_bound: float
) -> FunctionMechanism:
    """Propose-test-release for the median of n (odd) records in [lo, hi], (ε, δ)-DP.

    Parameters
    ----------
    n : int
        The public, odd number of records.
    lo, hi : float
        Public finite bounds, lo < hi.
    epsilon : float
        The total ε > 0 (ε/2 for the test, ε/2 for the release).
    delta : float
        δ ∈ (0, 1/2).
    proposed_bound : float
        The proposed bound b > 0 on the local sensitivity of the median.

    Returns
    -------
    FunctionMechanism
        Outputs of shape (N, 2): [1, median + Lap(2b/ε)] or [0, 0] for ⊥; spec
        ``ApproxDP(ε, δ)`` under substitute-one on ``DatasetDomain(size=n)``.

    References
    ----------
    .. [1] Dwork & Lei, STOC 2009, Propose-Test-Release.
    .. [2] Dwork & Roth, FnT-TCS 2014, §7, Propose-Test-Release[b].
    .. [3] Nissim, Raskhodnikova & Smith, STOC 2007, §3.1 (A^(k) of the median).

    Examples
    --------
    >>> mech = ptr_median_mechanism(11, 0.0, 1.0, 1.0, 1e-6, 0.05)
    >>> mech.sample([0.5] * 11, size=4, rng=0).shape
    (4, 2)
    """
    return _ptr_mechanism("median", n, lo, hi, epsilon, delta, proposed_bound)


def ptr_iqr_mechanism(
    n: int, lo: float, hi: float, epsilon: float, delta: float, proposed_bound: float
) -> FunctionMechanism:
    """Propose-test-release for the interquartile range of n ≥ 3 records in [lo, hi].

    The IQR is x_(r3) − x_(r1) with r1 = ⌈n/4⌉, r3 = n + 1 − r1; its local sensitivity is
    max(LS_r1, LS_r3) and its distance to instability min(d_r1, d_r3)
    (:mod:`.order_statistics`).  Parameters, output and claim as in
    :func:`ptr_median_mechanism`.

    Returns
    -------
    FunctionMechanism

    References
    ----------
    .. [1] Dwork & Lei, STOC 2009 (the IQR as a robust scale; here with an additive
       proposed bound, the generic PTR[b] of Dwork & Roth 2014, §7).

    Examples
    --------
    >>> mech = ptr_iqr_mechanism(11, 0.0, 1.0, 1.0, 1e-6, 0.05)
    >>> mech.spec.guarantee.epsilon
    1.0
    """
    return _ptr_mechanism("iqr", n, lo, hi, epsilon, delta, proposed_bound)


@dataclass(frozen=True)
class PTRRelease:
    """One propose-test-release output.

    Attributes
    ----------
    released : bool
        False when the test refused (⊥): ``estimate`` is then ``None``.
    estimate : float or None
        f(x) + Lap(2b/ε) when released.
    spec : MechanismSpec
        The claims the release was made under.
    noise_std : float
        √2 · 2b/ε, the standard deviation of the release noise (public).
    """

    released: bool
    estimate: float | None
    spec: MechanismSpec
    noise_std: float


def _release(
    kind: Statistic,
    x: Any,
    lo: float,
    hi: float,
    epsilon: float,
    delta: float,
    proposed_bound: float,
    rng: RandomLike,
    budget: PrivacyBudget | None,
) -> PTRRelease:
    low, high = _bounds(lo, hi)
    values = sorted_records(x, low, high)
    mech = _ptr_mechanism(kind, values.size, low, high, epsilon, delta, proposed_bound)
    flag, value = mech.sample(values, size=1, rng=as_generator(rng), budget=budget)[0]
    std = math.sqrt(2.0) * 2.0 * float(proposed_bound) / float(epsilon)
    released = bool(flag)
    return PTRRelease(released, float(value) if released else None, mech.spec, std)


def ptr_median(
    x: Any,
    lo: float,
    hi: float,
    epsilon: float,
    delta: float,
    *,
    proposed_bound: float,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> PTRRelease:
    """Release the median of ``x`` (odd length, records in [lo, hi]) by propose-test-release.

    Parameters
    ----------
    x : array_like, shape (n,)
        The records, n odd; n is public.
    lo, hi : float
        Public bounds.
    epsilon, delta : float
        The total (ε, δ), δ ∈ (0, 1/2).
    proposed_bound : float
        The proposed local-sensitivity bound b > 0.
    rng : numpy.random.Generator, int or None
        Source of randomness.
    budget : PrivacyBudget, optional
        Charged for this release before any noise is drawn
        (:class:`~spec.errors.BudgetExceededError` if it would be exceeded).

    Returns
    -------
    PTRRelease
        ``released`` False (``estimate`` None) when the test refused.

    Raises
    ------
    NonFiniteInputError, EmptyInputError, InputShapeError, InvalidInputError
        Bad data (NaN, empty, 2-D, a record outside [lo, hi]).
    SampleSizeError
        An even number of records.
    EpsilonRangeError, DeltaRangeError, InvalidParameterError
        ε ≤ 0, δ ∉ (0, 1/2), b ≤ 0, lo ≥ hi.

    Examples
    --------
    >>> r = ptr_median([i / 100 for i in range(101)], 0.0, 1.0, 2.0, 1e-6,
    ...                proposed_bound=0.5, rng=1)
    >>> r.released
    True
    """
    return _release("median", x, lo, hi, epsilon, delta, proposed_bound, rng, budget)


def ptr_iqr(
    x: Any,
    lo: float,
    hi: float,
    epsilon: float,
    delta: float,
    *,
    proposed_bound: float,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> PTRRelease:
    """Release the interquartile range of ``x`` (n ≥ 3) by propose-test-release.

    Parameters and errors as in :func:`ptr_median` (n need not be odd, n ≥ 3).

    Returns
    -------
    PTRRelease

    Examples
    --------
    >>> r = ptr_iqr([i / 100 for i in range(101)], 0.0, 1.0, 2.0, 1e-6,
    ...             proposed_bound=0.5, rng=1)
    >>> r.released
    True
    """
    return _release("iqr", x, lo, hi, epsilon, delta, proposed_bound, rng, budget)
