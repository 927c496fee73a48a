"""Privacy amplification by subsampling, as a transformation of specs.

A :class:`SubsampledSpec` is a base :class:`~spec.MechanismSpec` run on a random subsample
of the data.  It is not itself a ``MechanismSpec`` (the base spec's noise would not
justify the amplified claim at construction); accountants take it directly.

Each scheme is valid under its matching neighbouring relation only; which bases qualify
is decided by :func:`~mechanisms.accounting.relations.decide_conversion` (the rule every
budget and composition uses), and the others are refused:

* :func:`poisson_subsample` (rate q), under add/remove-one: ε′ = ln(1 + q(e^ε − 1)),
  δ′ = qδ (Balle, Barthe & Gaboardi, NeurIPS 2018; Li, Qardaji & Su, ASIACCS
  2012); dp_accounting's PLD of the subsampled Laplace, Gaussian and discrete laws (its
  ADD and REMOVE PLDs; Zhu, Dong & Wang, AISTATS 2022); RDP of the subsampled Gaussian
  (Mironov, Talwar & Zhang 2019).
* :func:`subsample_without_replacement` (m of a public n), under substitute-one:
  ε′ = ln(1 + (m/n)(e^ε − 1)), δ′ = (m/n)δ (Balle, Barthe & Gaboardi 2018); RDP
  of the subsampled Gaussian (Wang, Balle & Kasiviswanathan, AISTATS 2019).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

from pydantic import model_validator

from privaudit.spec import (
    AdditiveNoise,
    DatasetDomain,
    Gaussian,
    MechanismSpec,
    PositiveInt,
    Probability,
    SpecModel,
    SubstituteOne,
)
from privaudit.spec.errors import (
    InconsistentSpecError,
    InvalidParameterError,
    UnsupportedCombinationError,
)

from .curves import (
    CurvesProvider,
    PrivacyCurves,
    _pld_from_parameters,
    privacy_curves,
    randomized_response_rdp,
)
from .relations import (
    ADD_REMOVE_ONE,
    SUBSTITUTE_ONE,
    _group_of_two_guarantee,
    decide_conversion,
    declared_claim,
)

__all__ = ["SubsampledSpec", "poisson_subsample", "subsample_without_replacement"]


def _amplify(eps: float, delta: float, q: float) -> tuple[float, float]:
    return math.log1p(q * math.expm1(eps)), q * delta


class SubsampledSpec(SpecModel, CurvesProvider):
    """A base mechanism run on a random subsample (Poisson or without replacement).

    Parameters
    ----------
    base : MechanismSpec
        The mechanism applied to the subsample.
    scheme : {"poisson", "without_replacement"}
        How the subsample is drawn.
    rate : float
        q ∈ (0, 1]: the Poisson inclusion probability, or m/n without replacement.
    population_size : int, optional
        n, the public size of the full dataset (without replacement only).
    """

    kind: Literal["subsampled"] = "subsampled"
    base: MechanismSpec
    scheme: Literal["poisson", "without_replacement"]
    rate: Probability
    population_size: PositiveInt | None = None

    @model_validator(mode="after")
    def _matching_relation(self) -> SubsampledSpec:
        if not self.rate > 0:
            raise InvalidParameterError(f"the sampling rate must be > 0, got {self.rate!r}")
        rel = self.base.relation
        if self.scheme == "poisson":
            # the one relation rule: stated under add/remove-one, or a query-level spec
            rule = decide_conversion(self.base, ADD_REMOVE_ONE, purpose="Poisson-subsampled").rule
            if rule not in ("as stated", "query level"):  # pragma: no cover - refused above
                raise UnsupportedCombinationError(
                    "Poisson subsampling amplifies under add/remove-one neighbouring; the base "
                    f"spec {self.base.name!r} is stated under {rel.kind!r}"
                )
        if self.scheme == "without_replacement":
            rule = decide_conversion(
                self.base, SUBSTITUTE_ONE, purpose="subsampled without replacement"
            ).rule
            if rule != "as stated" or not isinstance(rel, SubstituteOne):
                raise UnsupportedCombinationError(
                    "sampling without replacement amplifies under substitute-one neighbouring "
                    f"on datasets of public size; the base spec {self.base.name!r} is stated "
                    f"under {rel.kind!r}"
                )
            if self.population_size is None:
                raise InconsistentSpecError("sampling without replacement needs population_size")
        return self

    def curves(self) -> PrivacyCurves:
        """The amplified curves (see the module docstring)."""
        base = privacy_curves(self.base)
        q = self.rate
        src = f"{self.scheme} subsample (rate {q:g}) of {base.source}"
        if q == 1.0:
            return base
        pld = None
        eps_pure = math.inf
        approx = None
        if math.isfinite(base.pure_epsilon):
            eps_pure = _amplify(base.pure_epsilon, 0.0, q)[0]
            pld = _pld_from_parameters(eps_pure, 0.0)
        elif base.approx is not None:
            approx = _amplify(*base.approx, q)
            pld = _pld_from_parameters(*approx)
        if self.scheme == "poisson":
            pld = _poisson_pld(self.base, q) or pld
        rdp = _gaussian_rdp(self.base, self.scheme, q)
        if rdp is None and math.isfinite(eps_pure):
            rdp = randomized_response_rdp(eps_pure)
        if pld is None and rdp is None and approx is None:
            raise UnsupportedCombinationError(f"no amplification result is known here for {src}")
        return PrivacyCurves(
            source=src,
            pure_epsilon=eps_pure,
            approx=approx,
            pld=pld,
            rdp=rdp,
            rho=eps_pure**2 / 2.0 if math.isfinite(eps_pure) else None,
            exact_pld=self.scheme == "poisson" and _poisson_pld(self.base, q) is not None,
        )

    def stated_relation(self) -> str:
        """Poisson subsampling amplifies under add/remove-one, sampling without replacement
        under substitute-one (the relations :meth:`curves` are stated under)."""
        return ADD_REMOVE_ONE if self.scheme == "poisson" else SUBSTITUTE_ONE

    def substitute_one_curves(self) -> PrivacyCurves | None:
        """dp_accounting's REPLACE_ONE PLD of the Poisson-subsampled Gaussian: exact under
        substitute-one, tighter than group privacy of size 2; ``None`` for other bases."""
        from dp_accounting import NeighboringRelation
        from dp_accounting.pld import privacy_loss_distribution as pld_mod

        if self.scheme != "poisson":
            return None
        found = _scalar_additive(self.base)
        if found is None:
            return None
        law, sens = found
        if not isinstance(law, Gaussian):
            return None
        q = self.rate
        generic = _group_of_two_guarantee(privacy_curves(self), "")
        return PrivacyCurves(
            source=f"Poisson subsample (rate {q:g}) of Gaussian noise, sensitivity {sens:g}, "
            "substitute-one",
            pure_epsilon=math.inf,
            exact_pld=True,
            rdp=generic.rdp if generic is not None else None,
            rho=generic.rho if generic is not None else None,
            pld=lambda h: pld_mod.from_gaussian_mechanism(
                law.sigma,
                sensitivity=sens,
                sampling_prob=q,
                value_discretization_interval=h,
                neighboring_relation=NeighboringRelation.REPLACE_ONE,
            ),
        )


def _scalar_additive(spec: MechanismSpec) -> tuple[object, float] | None:
    noise, claim = spec.noise, spec.global_sensitivity
    if not isinstance(noise, AdditiveNoise) or claim is None or spec.proof_status != "proven":
        return None
    if spec.output_dimension != 1 and not isinstance(noise.law, Gaussian):
        return None
    return noise.law, claim.value


def _poisson_pld(spec: MechanismSpec, q: float) -> Callable[[float], Any] | None:
    """dp_accounting's PLD of the Poisson-subsampled additive mechanism, if it has one."""
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    from privaudit.spec import DiscreteGaussian, DiscreteLaplace, Laplace

    found = _scalar_additive(spec)
    if found is None:
        return None
    law, sens = found
    if isinstance(law, Laplace):
        return lambda h: pld_mod.from_laplace_mechanism(
            law.scale, sensitivity=sens, sampling_prob=q, value_discretization_interval=h
        )
    if isinstance(law, Gaussian):
        return lambda h: pld_mod.from_gaussian_mechanism(
            law.sigma, sensitivity=sens, sampling_prob=q, value_discretization_interval=h
        )
    if isinstance(law, DiscreteLaplace):
        return lambda h: pld_mod.from_discrete_laplace_mechanism(
            1.0 / law.scale,
            sensitivity=int(sens),
            sampling_prob=q,
            value_discretization_interval=h,
            use_connect_dots=True,
        )
    if isinstance(law, DiscreteGaussian):
        return lambda h: pld_mod.from_discrete_gaussian_mechanism(
            law.sigma,
            sensitivity=int(sens),
            sampling_prob=q,
            value_discretization_interval=h,
            use_connect_dots=True,
        )
    return None


def _gaussian_rdp(spec: MechanismSpec, scheme: str, q: float) -> Callable[[float], float] | None:
    """RDP of the subsampled Gaussian from dp_accounting's RDP module, if the law is Gaussian."""
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_mod

    found = _scalar_additive(spec)
    if found is None:
        return None
    law, sens = found
    if not isinstance(law, Gaussian):
        return None
    multiplier = law.sigma / sens
    if scheme == "poisson":
        return lambda a: float(
            rdp_mod._compute_rdp_poisson_subsampled_gaussian(q, multiplier, [a])[0]
        )
    return lambda a: float(rdp_mod._compute_rdp_sample_wor_gaussian(q, multiplier, [a])[0])


def poisson_subsample(spec: Any, rate: float) -> SubsampledSpec:
    """``spec`` run on a Poisson subsample that keeps each record with probability ``rate``.

    The base must be stated under add/remove-one neighbouring, or be a query-level spec
    (its sensitivity is then read under add/remove-one), or be a mechanism that also
    declares an add/remove-one claim (``relation_specs``), which is then the base.  A
    substitute-one spec is refused with :class:`~spec.errors.RelationConversionError`
    (:func:`~mechanisms.accounting.relations.decide_conversion` decides).
    """
    rule = decide_conversion(spec, ADD_REMOVE_ONE, purpose="Poisson-subsampled").rule
    if rule == "declared claim":
        spec = declared_claim(spec, ADD_REMOVE_ONE)
    base = spec if isinstance(spec, MechanismSpec) else getattr(spec, "spec", spec)
    return SubsampledSpec(base=base, scheme="poisson", rate=rate)


def subsample_without_replacement(spec: Any, population_size: int) -> SubsampledSpec:
    """``spec`` run on m records drawn without replacement from a public population of n.

    The base spec must be stated under substitute-one neighbouring on datasets of a fixed
    size m ≤ n (m is read from its input domain).
    """
    spec = spec if isinstance(spec, MechanismSpec) else getattr(spec, "spec", spec)
    decide_conversion(spec, SUBSTITUTE_ONE, purpose="subsampled without replacement")
    if not isinstance(spec.relation, SubstituteOne):
        raise UnsupportedCombinationError(
            "sampling without replacement amplifies under substitute-one neighbouring; the "
            f"base spec {spec.name!r} is stated under {spec.relation.kind!r}"
        )
    dom = spec.input_domain
    if not isinstance(dom, DatasetDomain) or dom.size is None:
        raise UnsupportedCombinationError(
            f"sampling without replacement needs a base spec on datasets of fixed size, got "
            f"{dom.kind!r}"
        )
    if (
        isinstance(population_size, bool)
        or not isinstance(population_size, int)
        or (population_size < dom.size)
    ):
        raise InvalidParameterError(
            f"population_size must be an integer >= the subsample size {dom.size}, got "
            f"{population_size!r}"
        )
    return SubsampledSpec(
        base=spec,
        scheme="without_replacement",
        rate=dom.size / population_size,
        population_size=population_size,
    )
