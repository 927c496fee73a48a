"""An analyst's vocabulary: one-line releases that a budget and ``privaudit.audit`` both accept.

>>> from privaudit.mechanisms.accounting import (
...     PrivacyBudget, gaussian, laplace, repeated, subsampled)
>>> budget = PrivacyBudget(epsilon=3.0, delta=1e-6, relation="add_remove_one")
>>> _ = budget.charge(repeated(subsampled(gaussian(sigma=1.0), 0.01), 100))
>>> _ = budget.charge(laplace(scale=10.0))
>>> round(budget.spent_epsilon, 3)
0.998

Each constructor returns a :class:`~mechanisms.Mechanism` with a complete spec: the
release of a sum of records.  Under add/remove-one (the default, as dp_accounting's) each
record is a contribution in [−Δ, Δ] (integers for the discrete laws): adding or removing
one moves the sum by at most Δ, and substituting one by at most 2Δ, which is exactly
dp_accounting's convention (``GaussianDpEvent(σ)`` is sensitivity 1 under add/remove-one,
and its ``REPLACE_ONE`` accountant doubles it) and the budget's group-of-2 conversion; so
the same numbers come out of both libraries (``docs/accounting.md``, "Side by side").
Under ``relation="substitute_one"`` each record lies in [0, Δ]: a substitution moves the
sum by at most Δ, and so does an addition or a removal, so that constructor also declares
its add/remove-one claim (``relation_specs``) unless ``declare_both=False``: such a release
may then be charged to an add/remove-one budget or Poisson-subsampled.

================================  =====================================  ====================
constructor                       release                                stated under
================================  =====================================  ====================
``gaussian(sigma)``               sum + N(0, σ²)                         ``relation``
``laplace(scale)``                sum + Laplace(b)                       (add/remove-one by
``discrete_gaussian(sigma)``      integer sum + discrete Gaussian(σ)     default)
``discrete_laplace(scale)``       integer sum + discrete Laplace(t)
``randomized_response(epsilon)``  k-ary randomized response of a value   substitute-one (local)
``subsampled(m, q)``              m on a Poisson subsample of rate q     add/remove-one
``repeated(m, k)``                k independent releases of m            as m
================================  =====================================  ====================
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from privaudit.spec import (
    AdditiveNoise,
    AddRemoveOne,
    DatasetDomain,
    DiscreteGaussian,
    DiscreteLaplace,
    Gaussian,
    GaussianDP,
    GlobalSensitivity,
    IntegerRange,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    Reference,
    SubstituteOne,
    ZeroConcentratedDP,
)
from privaudit.spec.errors import (
    InvalidParameterError,
    RelationConversionError,
    UnsupportedCombinationError,
)

from .._base import Mechanism, check_sample_size
from ..additive import AdditiveNoiseMechanism, _sample_exact
from ..randomized_response import RandomizedResponseMechanism
from .amplification import SubsampledSpec, poisson_subsample
from .composed import DEFAULT_COMPOSITION_DELTA, ComposedMechanism
from .relations import ADD_REMOVE_ONE, DATASET_RELATIONS, SUBSTITUTE_ONE, check_budget_relation

__all__ = [
    "SubsampledMechanism",
    "SumMechanism",
    "discrete_gaussian",
    "discrete_laplace",
    "gaussian",
    "laplace",
    "randomized_response",
    "repeated",
    "subsampled",
]

_VOCABULARY = Reference(
    citation="privaudit analyst vocabulary (docs/accounting.md, 'Side by side')"
)


def _positive(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidParameterError(f"{name} must be a real number > 0, got {value!r}")
    v = float(value)
    if not (v > 0 and math.isfinite(v)):
        raise InvalidParameterError(f"{name} must be finite and > 0, got {value!r}")
    return v


def _integer_sensitivity(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < 1:
        raise InvalidParameterError(
            f"sensitivity of a discrete law must be an integer >= 1, got {value!r}"
        )
    return int(value)


def _relation_object(kind: str) -> Any:
    return SubstituteOne() if kind == SUBSTITUTE_ONE else AddRemoveOne()


def _bounded_sum(data: Any) -> Any:
    """The sum of the records."""
    return np.sum(data, axis=0)


class SumMechanism(AdditiveNoiseMechanism):
    """sum(D) + Z for bounded records: the additive constructors' mechanism.

    ``relation_specs`` holds the add/remove-one claim of a substitute-one constructor
    (records in [0, Δ]), unless it was built with ``declare_both=False``.
    """

    def __init__(self, spec: MechanismSpec, relation_specs: tuple[MechanismSpec, ...]) -> None:
        super().__init__(spec, statistic=_bounded_sum)
        self.relation_specs = relation_specs

    @property
    def sensitivity(self) -> float:
        """Δ: the sum's sensitivity under the spec's relation."""
        claim = self.spec.global_sensitivity
        if claim is None:  # pragma: no cover - every sum mechanism declares one
            raise UnsupportedCombinationError(f"{self.name!r} declares no global sensitivity")
        return float(claim.value)

    def sample(self, data: Any, size: int, rng: Any = None, *, budget: Any = None) -> np.ndarray:
        """As :meth:`Mechanism.sample`; the budget is charged with this mechanism's own claims."""
        return _sample_charging(self, data, size, rng, budget)


def _sample_charging(mech: Mechanism, data: Any, size: int, rng: Any, budget: Any) -> np.ndarray:
    n = check_sample_size(size)
    if budget is not None:
        from .budget import charge

        mech.validate_input(data)
        charge(budget, mech, estimator=mech.name, count=n)
    return Mechanism.sample(mech, data, n, rng)


def _additive(
    name: str,
    law: Any,
    guarantee: Any,
    sensitivity: float,
    relation: Any,
    discrete: bool,
    declare_both: bool,
    norm: Literal["l1", "l2", "linf"],
    summary: str,
) -> SumMechanism:
    kind = check_budget_relation(relation, DATASET_RELATIONS)
    if not isinstance(declare_both, bool):
        raise InvalidParameterError(f"declare_both must be True or False, got {declare_both!r}")
    lo = 0.0 if kind == SUBSTITUTE_ONE else -sensitivity
    record = (
        IntegerRange(lo=int(lo), hi=int(sensitivity))
        if discrete
        else RealInterval(lo=lo, hi=sensitivity)
    )

    def build(rel: str) -> MechanismSpec:
        return MechanismSpec(
            name=name,
            summary=summary,
            references=(_VOCABULARY,),
            input_domain=DatasetDomain(record=record),
            relation=_relation_object(rel),
            statistic=f"sum of the records, each in [{lo:g}, {sensitivity:g}]",
            sensitivity=(GlobalSensitivity(value=sensitivity, norm=norm),),
            noise=AdditiveNoise(law=law, calibration="manual"),
            guarantee=guarantee,
            numerics="exact" if discrete else "idealized",
        )

    # records in [0, Δ]: an addition or a removal also moves the sum by at most Δ
    extra = (build(ADD_REMOVE_ONE),) if kind == SUBSTITUTE_ONE and declare_both else ()
    return SumMechanism(build(kind), extra)


def _sigma(sigma: Any, scale: Any) -> float:
    """σ given as ``sigma`` or (OpenDP's name) ``scale``, exactly one of them."""
    if (sigma is None) == (scale is None):
        raise InvalidParameterError(
            f"give the noise's standard deviation as sigma or scale (one of them), got "
            f"sigma={sigma!r}, scale={scale!r}"
        )
    return _positive(sigma if sigma is not None else scale, "sigma")


def gaussian(
    sigma: float | None = None,
    *,
    scale: float | None = None,
    sensitivity: float = 1.0,
    relation: Any = ADD_REMOVE_ONE,
    declare_both: bool = True,
) -> SumMechanism:
    """Gaussian noise of standard deviation σ on a sum of sensitivity Δ: μ = Δ/σ GDP.

    dp_accounting: ``GaussianDpEvent(noise_multiplier=σ/Δ)``; OpenDP:
    ``make_gaussian(scale=σ)`` on a sensitivity-Δ query (``scale=`` is accepted here
    too).  The claim is μ-GDP with μ = Δ/σ, exact (Dong, Roth & Su, JRSS-B 2022,
    Cor. 2.13; Balle & Wang, ICML 2018).
    """
    s, d = _sigma(sigma, scale), _positive(sensitivity, "sensitivity")
    return _additive(
        "gaussian",
        Gaussian(sigma=s),
        GaussianDP(mu=d / s),
        d,
        relation,
        False,
        declare_both,
        "l2",
        f"sum + Gaussian noise, sigma = {s:g}",
    )


def laplace(
    scale: float,
    *,
    sensitivity: float = 1.0,
    relation: Any = ADD_REMOVE_ONE,
    declare_both: bool = True,
) -> SumMechanism:
    """Laplace noise of scale b on a sum of sensitivity Δ: ε = Δ/b (Dwork et al., TCC 2006).

    dp_accounting: ``LaplaceDpEvent(parameter=b, sensitivity=Δ)``; OpenDP:
    ``make_laplace(scale=b)``.
    """
    b, d = _positive(scale, "scale"), _positive(sensitivity, "sensitivity")
    return _additive(
        "laplace",
        Laplace(scale=b),
        PureDP(epsilon=d / b),
        d,
        relation,
        False,
        declare_both,
        "l1",
        f"sum + Laplace noise, scale = {b:g}",
    )


def discrete_laplace(
    scale: float, *, sensitivity: int = 1, relation: Any = ADD_REMOVE_ONE, declare_both: bool = True
) -> SumMechanism:
    """Discrete Laplace noise of scale t on an integer sum: ε = Δ/t.

    dp_accounting: ``DiscreteLaplaceDpEvent(noise_parameter=1/t, sensitivity=Δ)``; OpenDP:
    ``make_laplace(scale=t)`` on integers (Canonne, Kamath & Steinke, NeurIPS 2020).
    """
    t, d = _positive(scale, "scale"), _integer_sensitivity(sensitivity)
    return _additive(
        "discrete_laplace",
        DiscreteLaplace(scale=t),
        PureDP(epsilon=d / t),
        d,
        relation,
        True,
        declare_both,
        "l1",
        f"integer sum + discrete Laplace noise, scale = {t:g}",
    )


def discrete_gaussian(
    sigma: float | None = None,
    *,
    scale: float | None = None,
    sensitivity: int = 1,
    relation: Any = ADD_REMOVE_ONE,
    declare_both: bool = True,
) -> SumMechanism:
    """Discrete Gaussian noise of scale σ on an integer sum: ρ = Δ²/(2σ²) zCDP.

    Canonne, Kamath & Steinke (NeurIPS 2020, Thm. 4); OpenDP: ``make_gaussian(scale=σ)``
    on integers (``scale=`` is accepted here too).  The accountants use its exact PLD
    (dp_accounting's ``from_discrete_gaussian_mechanism``).
    """
    s, d = _sigma(sigma, scale), _integer_sensitivity(sensitivity)
    return _additive(
        "discrete_gaussian",
        DiscreteGaussian(sigma=s),
        ZeroConcentratedDP(rho=d * d / (2.0 * s * s)),
        d,
        relation,
        True,
        declare_both,
        "l2",
        f"integer sum + discrete Gaussian noise, sigma = {s:g}",
    )


def randomized_response(epsilon: float, *, categories: int = 2) -> RandomizedResponseMechanism:
    """k-ary randomized response with parameter ε (Warner 1965; Kairouz, Oh & Viswanath 2016).

    A local randomizer of one record's value: under substitute-one (a record changes its
    value).  dp_accounting: ``RandomizedResponseDpEvent(noise_parameter, num_buckets)``
    with noise_parameter = k/(e^ε + k − 1), under ``REPLACE_ONE`` only, as here.
    """
    return RandomizedResponseMechanism(epsilon, categories, name="randomized_response")


class SubsampledMechanism(Mechanism):
    """A :class:`SumMechanism` run on a Poisson subsample of the records (add/remove-one).

    Its spec claims the amplified guarantee (pure for a pure base: ln(1 + q(e^ε − 1)),
    Balle, Barthe & Gaboardi, NeurIPS 2018; otherwise the PLD accountant's ε at
    ``delta``); budgets and accountants use :attr:`accounting_item`, the
    :class:`~mechanisms.accounting.SubsampledSpec` with dp_accounting's exact PLD of the
    subsampled law (Zhu, Dong & Wang, AISTATS 2022).
    """

    def __init__(self, base: SumMechanism, rate: float, *, delta: float | None = None) -> None:
        if not isinstance(base, SumMechanism):
            raise RelationConversionError(
                f"subsampled() takes a gaussian/laplace/discrete_* release, got {base!r}; "
                "randomized response is a local randomizer of one value, stated under "
                "substitute-one, and Poisson subsampling amplifies under add/remove-one"
            )
        q = _positive(rate, "rate")
        if q > 1:
            raise InvalidParameterError(f"rate must be in (0, 1], got {rate!r}")
        sub: SubsampledSpec = poisson_subsample(base, q)
        from .accountants import PLDAccountant

        acc = PLDAccountant().compose(sub)
        pure = acc.items[0][0].pure_epsilon
        if math.isfinite(pure):
            guarantee: Any = PureDP(epsilon=pure)
        else:
            d = DEFAULT_COMPOSITION_DELTA if delta is None else float(delta)
            guarantee = acc.guarantee(d)
        base_spec = sub.base
        spec = MechanismSpec(
            name=f"poisson_subsampled_{base_spec.name}"[:200],
            summary=f"{base_spec.name} on a Poisson subsample (rate {q:g})",
            references=(_VOCABULARY,),
            input_domain=base_spec.input_domain,
            relation=AddRemoveOne(),
            statistic=f"{base_spec.statistic} (Poisson subsample, rate {q:g})",
            guarantee=guarantee,
            notes=f"claim = the PLD accountant's bound for {sub.curves().source}",
        )
        super().__init__(spec)
        self._base, self._rate, self.accounting_item = base, q, sub

    @property
    def rate(self) -> float:
        """The Poisson inclusion probability q."""
        return self._rate

    def sample(self, data: Any, size: int, rng: Any = None, *, budget: Any = None) -> np.ndarray:
        """As :meth:`Mechanism.sample`; the budget is charged with the amplified PLD."""
        return _sample_charging(self, data, size, rng, budget)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        records = np.asarray(data, dtype=np.float64).reshape(len(data), -1)
        keep = rng.random((size, records.shape[0])) < self._rate
        sums = keep.astype(np.float64) @ records
        law = self._base.noise_law
        if law.is_discrete:
            noise = (
                _sample_exact(law, rng, (size,)) if self._base._exact else law.sample(rng, (size,))
            )
            return np.rint(sums[:, 0]).astype(np.int64) + np.asarray(noise, dtype=np.int64)
        return sums[:, 0] + np.asarray(law.sample(rng, (size,)), dtype=np.float64)


def subsampled(
    mechanism: SumMechanism, rate: float, *, delta: float | None = None
) -> SubsampledMechanism:
    """``mechanism`` on a Poisson subsample keeping each record with probability ``rate``.

    dp_accounting: ``PoissonSampledDpEvent(rate, event)``.  The base must be stated (or
    declared) under add/remove-one (:func:`~mechanisms.accounting.poisson_subsample`).
    """
    return SubsampledMechanism(mechanism, rate, delta=delta)


def repeated(
    mechanism: Mechanism, k: int, *, delta: float | None = None, accountant: str = "pld"
) -> ComposedMechanism:
    """``k`` independent releases of ``mechanism`` on the same data, as one mechanism.

    dp_accounting: ``SelfComposedDpEvent(event, k)``.  A budget charges the k parts; the
    spec claims the accountant's ε (pure when the part is pure; else at ``delta``).
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or int(k) < 1:
        raise InvalidParameterError(f"k must be an integer >= 1, got {k!r}")
    if not isinstance(mechanism, Mechanism):
        raise InvalidParameterError(f"not a Mechanism: {mechanism!r}")
    return ComposedMechanism(
        [mechanism] * int(k),
        delta=delta,
        accountant=accountant,
        name=f"{int(k)} x {mechanism.name}",
    )
