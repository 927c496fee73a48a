"""Minimax lower bounds on the error of private estimators, with their sources.

Explicit bounds (``docs/derivations.md`` §13, every constant derived there):

* :func:`two_point_quantile_bound` / :func:`two_point_absolute_error_bound`: any ε-DP or
  (ε, δ)-DP mechanism, against the statistic f(x), from two inputs at substitute distance
  k (group privacy, Le Cam's two-point method); :func:`central_mean_bound` and
  :func:`central_variance_bound` apply them to the mean and the variance U-statistic;
* :func:`local_mean_bound`: the population mean under ε-local DP (the χ² contraction of
  an ε-LDP channel, after Duchi, Jordan & Wainwright, JASA 2018, Theorem 1).

Rate-only results (unspecified constants): :func:`central_mean_rate` (Barber & Duchi 2014;
Cai, Wang & Zhang, Ann. Statist. 2021).  Continual counting: the matrix mechanisms'
``prefix_sum_lower_bound`` (``mechanisms/matrix/prefix_errors.py``), not duplicated here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from privaudit.spec import (
    ApproxDP,
    DatasetDomain,
    MechanismSpec,
    PureDP,
    RealInterval,
    Reference,
    SubstituteOne,
)
from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.validation import (
    check_alpha,
    check_delta,
    check_epsilon,
    check_positive,
    check_sample_size,
)

__all__ = [
    "DERIVATION",
    "LOWER_BOUNDS",
    "LowerBound",
    "accuracy_lower_bound",
    "central_mean_bound",
    "central_mean_rate",
    "central_variance_bound",
    "local_mean_bound",
    "two_point_absolute_error_bound",
    "two_point_quantile_bound",
]

#: Where the explicit constants of this module are derived.
DERIVATION = Reference(
    citation="privaudit, docs/derivations.md",
    locator="§13 (two-point lower bounds for accuracy claims)",
)
LE_CAM = Reference(
    citation="Le Cam, Asymptotic Methods in Statistical Decision Theory, Springer 1986; "
    "Dwork & Roth, The Algorithmic Foundations of Differential Privacy, 2014",
    locator="two-point method; group privacy (Theorem 2.2)",
)
DJW_2018 = Reference(
    citation="Duchi, Jordan & Wainwright, Minimax optimal procedures for locally private "
    "estimation, J. Amer. Statist. Assoc. 113(521), 2018",
    locator="Theorem 1 (contraction of KL divergence by an ε-LDP channel); the constant "
    "used here is re-derived in docs/derivations.md §13",
    url="https://arxiv.org/abs/1604.02390",
)
BARBER_DUCHI_2014 = Reference(
    citation="Barber & Duchi, Privacy and statistical risk: formalisms and minimax bounds, "
    "arXiv:1412.4451, 2014",
    locator="mean estimation under (ε, δ)-DP: rate 1/n + 1/(nε)², constants not explicit",
    url="https://arxiv.org/abs/1412.4451",
)
CWZ_2021 = Reference(
    citation="Cai, Wang & Zhang, The cost of privacy: optimal rates of convergence for "
    "parameter estimation with differential privacy, Ann. Statist. 49(5), 2021",
    locator="mean estimation under (ε, δ)-DP: rate up to constants (and log factors)",
    url="https://arxiv.org/abs/1902.04495",
)

Quantity = Literal["error quantile", "mean absolute error"]


@dataclass(frozen=True)
class LowerBound:
    """A lower bound on the error of every mechanism with the stated privacy.

    Attributes
    ----------
    problem : str
        The registered name (:data:`LOWER_BOUNDS`), e.g. ``"mean.central"``.
    value : float
        The bound (0 when the argument gives nothing at these parameters).
    quantity : {"error quantile", "mean absolute error"}
        ``error quantile``: no mechanism has P[error > a] ≤ β at every input for any
        a < ``value``; ``mean absolute error``: sup over inputs of E|error| ≥ ``value``.
    explicit : bool
        True: an explicit constant (the value is a bound); False: a rate whose constant
        the source does not give (the value is the rate with constant 1: compare
        exponents, never ratios).
    target : {"statistic", "population"}
        Error against f(x) (worst case over inputs) or against a population parameter
        (worst case over laws).
    source : Reference
        Paper and theorem, or ``docs/derivations.md`` §13.
    statement : str
        The bound in words, with the parameters.
    """

    problem: str
    value: float
    quantity: Quantity
    explicit: bool
    target: Literal["statistic", "population"]
    source: Reference
    statement: str


def _privacy(epsilon: float, delta: float) -> tuple[float, float]:
    return check_epsilon(epsilon), check_delta(delta)


def _group_delta(k: int, epsilon: float, delta: float) -> float:
    """δ_k = δ Σ_{j<k} e^{jε}: the δ of group privacy at distance k (Dwork & Roth 2014)."""
    if delta == 0.0:
        return 0.0
    return delta * math.fsum(math.exp(j * epsilon) for j in range(k))


def _separations(separations: Sequence[float]) -> list[float]:
    seps = [float(s) for s in separations]
    if not seps or any(not math.isfinite(s) or s < 0.0 for s in seps):
        raise InvalidParameterError(
            f"separations must be a non-empty sequence of finite values >= 0, got {separations!r}"
        )
    return seps


def two_point_quantile_bound(
    separations: Sequence[float], epsilon: float, delta: float, failure_probability: float
) -> float:
    """The least a in an accuracy claim P[|M(x) − f(x)| > a] ≤ β that (ε, δ)-DP allows.

    ``separations[k − 1]`` is |f(x) − f(x_k)| for some pair x, x_k at substitute distance k.
    If 1 − δ_k > β (1 + e^{kε}) the claim needs a ≥ separations[k − 1]/2
    (``docs/derivations.md`` §13, (13.1)); the bound is the largest such half-separation,
    0 when no k qualifies.

    Raises
    ------
    InvalidParameterError, EpsilonRangeError, DeltaRangeError
        Bad separations, ε, δ or β ∉ (0, 1).
    """
    eps, dlt = _privacy(epsilon, delta)
    beta = check_alpha(failure_probability, "failure_probability")
    best = 0.0
    for k, sep in enumerate(_separations(separations), start=1):
        if 1.0 - _group_delta(k, eps, dlt) > beta * (1.0 + math.exp(min(k * eps, 700.0))):
            best = max(best, sep / 2.0)
    return best


def two_point_absolute_error_bound(
    separations: Sequence[float], epsilon: float, delta: float
) -> float:
    """sup_x E|M(x) − f(x)| ≥ max_k (s_k/2)(1 − δ_k)/(1 + e^{kε}) under (ε, δ)-DP.

    ``docs/derivations.md`` §13, (13.2); ``separations`` as in
    :func:`two_point_quantile_bound`.
    """
    eps, dlt = _privacy(epsilon, delta)
    best = 0.0
    for k, sep in enumerate(_separations(separations), start=1):
        mass = (1.0 - _group_delta(k, eps, dlt)) / (1.0 + math.exp(min(k * eps, 700.0)))
        best = max(best, sep / 2.0 * max(mass, 0.0))
    return best


def _mean_separations(n: int, width: float) -> list[float]:
    return [k * width / n for k in range(1, n + 1)]


def _variance_separations(n: int, width: float) -> list[float]:
    return [width * width * k * (n - k) / (n * (n - 1)) for k in range(1, n + 1)]


def _central(
    problem: str,
    what: str,
    separations: list[float],
    epsilon: float,
    delta: float,
    failure_probability: float | None,
) -> LowerBound:
    eps, dlt = _privacy(epsilon, delta)
    privacy = f"ε = {eps:g}" + (f", δ = {dlt:g}" if dlt > 0 else "")
    if failure_probability is None:
        value = two_point_absolute_error_bound(separations, eps, dlt)
        return LowerBound(
            problem=problem,
            value=value,
            quantity="mean absolute error",
            explicit=True,
            target="statistic",
            source=DERIVATION,
            statement=f"every {privacy} mechanism has sup_x E|M(x) − f(x)| ≥ {value:.6g} "
            f"for f = {what} (two-point bound, (13.2))",
        )
    value = two_point_quantile_bound(separations, eps, dlt, failure_probability)
    return LowerBound(
        problem=problem,
        value=value,
        quantity="error quantile",
        explicit=True,
        target="statistic",
        source=DERIVATION,
        statement=f"no {privacy} mechanism has P[|M(x) − f(x)| > a] ≤ {failure_probability:g} "
        f"at every x for a < {value:.6g}, f = {what} (two-point bound, (13.1))",
    )


def central_mean_bound(
    n: int,
    epsilon: float,
    delta: float = 0.0,
    failure_probability: float | None = None,
    *,
    width: float = 1.0,
) -> LowerBound:
    """The explicit lower bound for the mean of n records in an interval of ``width``.

    Substitute-one neighbours, n public; pairs: all records at the low end against k of
    them moved to the high end (separation k·width/n).  With ``failure_probability`` β
    the bound on the (1 − β) error quantile ((13.1)), else on the mean absolute error
    ((13.2)); ``docs/derivations.md`` §13.
    """
    size = check_sample_size(n, 1, "n")
    w = check_positive(width, "width")
    return _central(
        "mean.central",
        f"the mean of {size} records in an interval of width {w:g}",
        _mean_separations(size, w),
        epsilon,
        delta,
        failure_probability,
    )


def central_variance_bound(
    n: int,
    epsilon: float,
    delta: float = 0.0,
    failure_probability: float | None = None,
    *,
    width: float = 1.0,
) -> LowerBound:
    """The explicit lower bound for the variance U-statistic (x − y)²/2 of n ≥ 2 records.

    As :func:`central_mean_bound`, with separations width²·k(n − k)/(n(n − 1)) (the
    unbiased sample variance of k records at the high end and n − k at the low end).
    """
    size = check_sample_size(n, 2, "n")
    w = check_positive(width, "width")
    return _central(
        "variance.central",
        f"the unbiased sample variance of {size} records in an interval of width {w:g}",
        _variance_separations(size, w),
        epsilon,
        delta,
        failure_probability,
    )


def local_mean_bound(
    n: int, epsilon: float, failure_probability: float | None = None, *, width: float = 1.0
) -> LowerBound:
    """The explicit lower bound for the population mean of n users under ε-local DP.

    Non-interactive or sequentially interactive ε-LDP protocols, records in an interval of
    ``width``, laws on its two end points (``docs/derivations.md`` §13, (13.3)–(13.4)):
    with ``failure_probability`` β < 1/2, no protocol has P[|θ̂ − θ| > a] ≤ β for every law
    when a < width · min(1/2, (1 − 2β)/(√(2n)(e^ε − 1))); without it,
    sup E|θ̂ − θ| ≥ (width/4) · min(1/2, 1/(2√(2n)(e^ε − 1))).
    """
    size = check_sample_size(n, 1, "n")
    eps = check_epsilon(epsilon)
    w = check_positive(width, "width")
    spread = math.sqrt(2.0 * size) * math.expm1(eps)
    if failure_probability is None:
        value = w / 4.0 * min(0.5, 1.0 / (2.0 * spread))
        return LowerBound(
            problem="mean.local",
            value=value,
            quantity="mean absolute error",
            explicit=True,
            target="population",
            source=DERIVATION,
            statement=f"every ε = {eps:g} local protocol on {size} users has "
            f"sup_P E|θ̂ − θ(P)| ≥ {value:.6g} (13.4)",
        )
    beta = check_alpha(failure_probability, "failure_probability")
    value = w * min(0.5, max(0.0, 1.0 - 2.0 * beta) / spread)
    return LowerBound(
        problem="mean.local",
        value=value,
        quantity="error quantile",
        explicit=True,
        target="population",
        source=DERIVATION,
        statement=f"no ε = {eps:g} local protocol on {size} users has P[|θ̂ − θ| > a] ≤ "
        f"{beta:g} for every law when a < {value:.6g} (13.3)",
    )


def central_mean_rate(n: int, epsilon: float, delta: float = 0.0) -> LowerBound:
    """The minimax rate of the population mean of records in [0, 1], constants unknown.

    √(1/n + 1/(nε)²) on the absolute-error scale (the square root of the squared-error
    rate 1/n + 1/(nε)² of Barber & Duchi 2014 and Cai, Wang & Zhang 2021; the latter adds
    a log(1/δ) factor under (ε, δ)-DP for Gaussian data).  ``explicit`` is False: compare
    fitted exponents in n and ε, never ratios.
    """
    size = check_sample_size(n, 1, "n")
    eps, dlt = _privacy(epsilon, delta)
    value = math.sqrt(1.0 / size + 1.0 / (size * eps) ** 2)
    return LowerBound(
        problem="mean.central.rate",
        value=value,
        quantity="mean absolute error",
        explicit=False,
        target="population",
        source=BARBER_DUCHI_2014 if dlt == 0.0 else CWZ_2021,
        statement=f"rate √(1/n + 1/(nε)²) = {value:.6g} at n = {size}, ε = {eps:g} "
        "(constant not explicit)",
    )


def _mean_of_spec(spec: MechanismSpec, problem: str) -> LowerBound | None:
    """The claim's quantile bound for a spec on n records of a bounded real interval."""
    claim, domain = spec.accuracy, spec.input_domain
    if claim is None or not isinstance(spec.relation, SubstituteOne):
        return None
    if not isinstance(domain, DatasetDomain) or domain.size is None:
        return None
    record = domain.record
    if not isinstance(record, RealInterval) or record.lo is None or record.hi is None:
        return None
    guarantee = spec.guarantee
    if isinstance(guarantee, PureDP):
        epsilon, delta = guarantee.epsilon, 0.0
    elif isinstance(guarantee, ApproxDP):
        epsilon, delta = guarantee.epsilon, guarantee.delta
    else:
        return None
    make = central_mean_bound if problem == "mean.central" else central_variance_bound
    return make(domain.size, epsilon, delta, claim.failure_probability, width=record.hi - record.lo)


#: Lower bounds an :class:`~privaudit.spec.AccuracyClaim` may name in ``lower_bound``:
#: each reads its parameters (n, the record interval, ε, δ, β) from the spec and returns
#: the bound on the claim's (1 − β) error quantile, or None when the spec is not that
#: problem (another relation, domain or guarantee).
LOWER_BOUNDS: dict[str, Callable[[MechanismSpec], LowerBound | None]] = {
    "mean.central": lambda spec: _mean_of_spec(spec, "mean.central"),
    "variance.central": lambda spec: _mean_of_spec(spec, "variance.central"),
}


def accuracy_lower_bound(spec: MechanismSpec) -> LowerBound | None:
    """The lower bound named by ``spec.accuracy.lower_bound`` at the spec's parameters.

    None when the spec has no accuracy claim, names no bound, or is not the named
    problem; :class:`~spec.errors.InvalidParameterError` for an unknown name.
    """
    claim = spec.accuracy
    if claim is None or not claim.lower_bound:
        return None
    found = LOWER_BOUNDS.get(claim.lower_bound)
    if found is None:
        raise InvalidParameterError(
            f"unknown lower bound {claim.lower_bound!r}; known: {sorted(LOWER_BOUNDS)}"
        )
    return found(spec)
