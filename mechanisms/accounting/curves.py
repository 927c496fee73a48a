"""The privacy curves of a spec: its privacy-loss distribution, RDP curve, zCDP ρ and GDP μ.

:func:`privacy_curves` reads a :class:`~spec.MechanismSpec` (or a bare guarantee, or a
:class:`~mechanisms.accounting.SubsampledSpec`) and returns a :class:`PrivacyCurves`
that says, in every currency the accountants use, what the mechanism *provably*
delivers.  Only proven statements are made; where the exact law of the privacy loss is
not known, the curves fall back to the spec's declared guarantee.

* Laplace(b), scalar: exact Laplace PLD; RDP of Mironov (CSF 2017, Table II); ρ = ε²/2.
* Gaussian(σ), any dimension: exact Gaussian PLD; RDP αΔ²/2σ²; ρ = Δ²/2σ²; μ = Δ/σ
  (Dong, Roth & Su, JRSS-B 2022).
* discrete Laplace(t), scalar: exact PLD (connect-the-dots); RR bound at ε = Δ/t; ε²/2.
* discrete Gaussian(σ): exact PLD (scalar) or the declared claim (vectors); RDP αρ with
  ρ = Δ²/2σ² (Canonne, Kamath & Steinke, NeurIPS 2020).
* k-ary randomized response: exact PLD (connect-the-dots on its losses {−ε, 0, ε});
  exact Rényi divergence; ε²/2.
* exponential mechanism (Gumbel-max): the ε-DP worst case (binary RR); RDP
  min(RR bound, αε²/8); ρ = ε²/8 (ε-bounded range: Durfee & Rogers, NeurIPS 2019; Cesar
  & Rogers, ALT 2021).
* report noisy max (Laplace or exponential noise): the ε-DP worst case; RR bound; ε²/2.
* smooth sensitivity and anything else: the declared guarantee — RR(ε) for ε-DP, RR(ε)
  plus a δ atom at +∞ for (ε, δ)-DP; the RR bound for ε-DP only.

"RR bound" is the Rényi divergence of binary randomized response with parameter ε,
D_α = ln(p^α q^{1−α} + q^α p^{1−α})/(α − 1) with p = e^ε/(1 + e^ε), q = 1 − p.  Every
ε-DP mechanism is a post-processing of it (Kairouz, Oh & Viswanath, ICML 2015, Section 2),
so by data processing it bounds the RDP of every ε-DP mechanism; the same theorem makes
binary RR (with a δ atom for (ε, δ)) the worst-case PLD that ``from_privacy_parameters``
builds.  ε-DP ⇒ ε²/2-zCDP is Bun & Steinke (TCC 2016), Prop. 1.4.

A declared guarantee with δ > 0 has no RDP or zCDP curve: the accountants carry its
(ε, δ) separately (``approx``) and add it by basic composition.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    DiscreteGaussian,
    DiscreteLaplace,
    Exponential,
    Gaussian,
    GaussianDP,
    Gumbel,
    Laplace,
    MechanismSpec,
    NoisyArgmax,
    PureDP,
    RandomizedResponse,
    RenyiDP,
    ZeroConcentratedDP,
)
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError
from privaudit.spec.mechanism_spec import laplace_rdp

__all__ = [
    "CurvesProvider",
    "PldFactory",
    "PrivacyCurves",
    "privacy_curves",
    "randomized_response_rdp",
]

#: Builds a dp_accounting ``PrivacyLossDistribution`` at a value discretization interval.
PldFactory = Callable[[float], Any]


def randomized_response_rdp(epsilon: float) -> Callable[[float], float]:
    """Rényi divergence of binary randomized response with parameter ε, at order α > 1.

    The tight RDP bound of every ε-DP mechanism (see the module docstring), never above ε.
    """
    log_p = -math.log1p(math.exp(-epsilon))  # ln(e^ε / (1 + e^ε))
    log_q = -math.log1p(math.exp(epsilon))  # ln(1 / (1 + e^ε))

    def rdp(alpha: float) -> float:
        a = alpha * log_p + (1.0 - alpha) * log_q
        b = alpha * log_q + (1.0 - alpha) * log_p
        m = max(a, b)
        value = (m + math.log(math.exp(a - m) + math.exp(b - m))) / (alpha - 1.0)
        return min(max(value, 0.0), epsilon)

    return rdp


def _kary_rr_rdp(keep: float, flip: float, categories: int) -> Callable[[float], float]:
    """Exact Rényi divergence of k-ary RR between two distinct inputs."""
    log_p, log_q = math.log(keep), math.log(flip)

    def rdp(alpha: float) -> float:
        terms = [alpha * log_p + (1 - alpha) * log_q, alpha * log_q + (1 - alpha) * log_p]
        if categories > 2:
            terms.append(math.log(categories - 2) + log_q)
        m = max(terms)
        return max(0.0, (m + math.log(sum(math.exp(t - m) for t in terms))) / (alpha - 1.0))

    return rdp


@dataclass(frozen=True)
class PrivacyCurves:
    """What one release provably delivers, in each currency the accountants use.

    Attributes
    ----------
    source : str
        What the curves were derived from (for the ledger and error messages).
    pure_epsilon : float
        The pure-DP ε (``inf`` if none).
    approx : tuple of (float, float) or None
        A declared (ε, δ) with δ > 0 that has no RDP/zCDP form; the accountants add it by
        basic composition.
    pld : callable or None
        ``pld(value_discretization_interval)`` → dp_accounting PLD, pessimistic.
    rdp : callable or None
        α ↦ ε(α), an upper bound on the Rényi divergence at order α > 1 (``inf`` allowed).
    rho : float or None
        ρ of a ρ-zCDP guarantee.
    mu : float or None
        μ of an exact μ-GDP guarantee (Gaussian noise only).
    exact_pld : bool
        True when the PLD is the mechanism's own (up to the pessimistic discretization),
        False when it is the worst case of the declared guarantee.
    """

    source: str
    pure_epsilon: float = math.inf
    approx: tuple[float, float] | None = None
    pld: PldFactory | None = None
    rdp: Callable[[float], float] | None = None
    rho: float | None = None
    mu: float | None = None
    exact_pld: bool = False


class CurvesProvider:
    """An accounting item that derives its own privacy curves and states its relation.

    A transformed release (a subsampled spec,
    :class:`~mechanisms.accounting.amplification.SubsampledSpec`) knows what it delivers
    better than a table of spec kinds can: :func:`privacy_curves` and the relation rule of
    :mod:`~mechanisms.accounting.relations` ask it through these methods, so that neither
    imports the module that defines it (the accounting modules depend one way:
    ``curves`` ← ``relations`` ← ``amplification``).
    """

    def curves(self) -> PrivacyCurves:
        """The privacy curves under the relation of :meth:`stated_relation`."""
        raise NotImplementedError

    def stated_relation(self) -> str:
        """The neighbouring relation the curves are stated under (a relation kind)."""
        raise NotImplementedError

    def substitute_one_curves(self) -> PrivacyCurves | None:
        """Exact curves under substitute-one when a theorem gives them, else ``None`` (the
        relation rule then falls back to group privacy of size 2)."""
        return None


def _pld_three_point(epsilon: float, profile: Callable[[float], float]) -> PldFactory:
    """Pessimistic connect-the-dots PLD of a symmetric pair with losses in {−ε, 0, ε, ±∞}.

    Binary and k-ary randomized response (with or without a δ atom) are such pairs; their
    exact profile δ(·) is given at ε ≥ 0 and extended to −ε by
    E_{e^{−a}}(P‖Q) = 1 − e^{−a} + e^{−a} E_{e^{a}}(Q‖P) (symmetry).  dp_accounting's
    ``create_pmf_pessimistic_connect_dots`` (Doroshenko, Ghazi, Kamath, Kumar &
    Manurangsi, PETS 2022, Algorithm 1) then places the mass on {−nh, 0, nh, +∞} with
    nh ≥ ε, exact at the grid points and an upper bound in between.
    """

    def build(interval: float) -> Any:
        from dp_accounting.pld import pld_pmf
        from dp_accounting.pld import privacy_loss_distribution as pld_mod

        ratio = epsilon / interval
        n = max(1, round(ratio) if abs(ratio - round(ratio)) < 1e-9 else math.ceil(ratio))
        top = n * interval
        at_top = profile(top)
        deltas = [-math.expm1(-top) + math.exp(-top) * at_top, profile(0.0), at_top]
        pmf = pld_pmf.create_pmf_pessimistic_connect_dots(interval, [-n, 0, n], deltas)
        return pld_mod.PrivacyLossDistribution(pmf)

    return build


def _pld_from_parameters(epsilon: float, delta: float) -> PldFactory:
    """The worst-case PLD of (ε, δ)-DP: binary RR with a δ atom (Kairouz, Oh & Viswanath 2015)."""
    guarantee = PureDP(epsilon=epsilon) if delta == 0 else ApproxDP(epsilon=epsilon, delta=delta)
    return _pld_three_point(epsilon, guarantee.delta_for_epsilon)


def _pure(epsilon: float, source: str, *, rho: float | None = None) -> PrivacyCurves:
    return PrivacyCurves(
        source=source,
        pure_epsilon=epsilon,
        pld=_pld_from_parameters(epsilon, 0.0),
        rdp=randomized_response_rdp(epsilon),
        rho=rho if rho is not None else epsilon**2 / 2.0,
    )


def curves_of_guarantee(guarantee: Any, source: str = "declared guarantee") -> PrivacyCurves:
    """The curves of a bare declared guarantee (the worst case of every mechanism meeting it)."""
    if isinstance(guarantee, PureDP):
        return _pure(guarantee.epsilon, f"{source}: {guarantee.epsilon:g}-DP")
    if isinstance(guarantee, ApproxDP):
        eps, delta = guarantee.epsilon, guarantee.delta
        if delta == 0:
            return _pure(eps, f"{source}: {eps:g}-DP")
        return PrivacyCurves(
            source=f"{source}: ({eps:g}, {delta:g})-DP",
            approx=(eps, delta),
            pld=_pld_from_parameters(eps, delta),
        )
    if isinstance(guarantee, ZeroConcentratedDP):
        rho = guarantee.rho
        return PrivacyCurves(source=f"{source}: {rho:g}-zCDP", rho=rho, rdp=lambda a: a * rho)
    if isinstance(guarantee, GaussianDP):
        return _gaussian(1.0, guarantee.mu, f"{source}: {guarantee.mu:g}-GDP", exact=False)
    if isinstance(guarantee, RenyiDP):
        alpha, eps = guarantee.alpha, guarantee.epsilon
        # RDP is non-decreasing in the order: the bound holds at every order up to alpha
        return PrivacyCurves(
            source=f"{source}: ({alpha:g}, {eps:g})-RDP",
            rdp=lambda a: eps if a <= alpha else math.inf,
        )
    raise InvalidParameterError(f"not a privacy guarantee: {guarantee!r}")


def _gaussian(
    sigma: float, sensitivity: float, source: str, *, exact: bool = True, sampling_prob: float = 1.0
) -> PrivacyCurves:
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    mu = sensitivity / sigma

    def build(interval: float) -> Any:
        return pld_mod.from_gaussian_mechanism(
            sigma,
            sensitivity=sensitivity,
            value_discretization_interval=interval,
            sampling_prob=sampling_prob,
        )

    return PrivacyCurves(
        source=source,
        pld=build,
        rdp=lambda a: a * mu * mu / 2.0,
        rho=mu * mu / 2.0,
        mu=mu,
        exact_pld=exact,
    )


def _additive(spec: MechanismSpec, noise: AdditiveNoise) -> PrivacyCurves | None:
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    law, claim, dim = noise.law, spec.global_sensitivity, spec.output_dimension
    if claim is None:  # pragma: no cover - refused by MechanismSpec
        return None
    delta_f = claim.value
    src = f"{type(law).__name__} noise, sensitivity {delta_f:g}"
    if isinstance(law, Gaussian):  # ℓ2 ≤ ℓ1: either claim bounds the ℓ2 shift
        return _gaussian(law.sigma, delta_f, src)
    if isinstance(law, Laplace) and dim == 1:
        lam = delta_f / law.scale
        return PrivacyCurves(
            source=src,
            pure_epsilon=lam,
            exact_pld=True,
            pld=lambda h: pld_mod.from_laplace_mechanism(
                law.scale, sensitivity=delta_f, value_discretization_interval=h
            ),
            rdp=laplace_rdp(lam),
            rho=lam * lam / 2.0,
        )
    if isinstance(law, DiscreteLaplace) and dim == 1:
        eps = delta_f / law.scale
        return PrivacyCurves(
            source=src,
            pure_epsilon=eps,
            exact_pld=True,
            pld=lambda h: pld_mod.from_discrete_laplace_mechanism(
                1.0 / law.scale,
                sensitivity=int(delta_f),
                value_discretization_interval=h,
                use_connect_dots=True,
            ),
            rdp=randomized_response_rdp(eps),
            rho=eps * eps / 2.0,
        )
    if isinstance(law, DiscreteGaussian):
        rho = delta_f**2 / (2.0 * law.sigma**2)
        pld: PldFactory | None = None
        if dim == 1:
            sigma = law.sigma

            def discrete_gaussian_pld(h: float) -> Any:
                return pld_mod.from_discrete_gaussian_mechanism(
                    sigma,
                    sensitivity=int(delta_f),
                    value_discretization_interval=h,
                    use_connect_dots=True,
                )

            pld = discrete_gaussian_pld
        elif isinstance(spec.guarantee, (PureDP, ApproxDP)):
            pld = curves_of_guarantee(spec.guarantee).pld
        return PrivacyCurves(
            source=src, pld=pld, rdp=lambda a: a * rho, rho=rho, exact_pld=dim == 1
        )
    return None


def _argmax(spec: MechanismSpec, noise: NoisyArgmax) -> PrivacyCurves | None:
    claim = spec.global_sensitivity
    if claim is None:  # pragma: no cover - refused by MechanismSpec
        return None
    law = noise.law
    if not isinstance(law, (Gumbel, Exponential, Laplace)):  # pragma: no cover - refused by spec
        raise UnsupportedCombinationError(
            "noisy argmax is defined here for Gumbel, Exponential or Laplace noise, got "
            f"{type(law).__name__}"
        )
    eps = (1.0 if noise.monotone else 2.0) * claim.value / law.scale
    if isinstance(law, Gumbel):  # ε-bounded range ⇒ ε²/8-zCDP
        base = _pure(eps, f"exponential mechanism, epsilon {eps:g}", rho=eps * eps / 8.0)
        rr = randomized_response_rdp(eps)
        return PrivacyCurves(
            source=base.source,
            pure_epsilon=eps,
            pld=base.pld,
            rdp=lambda a: min(rr(a), a * eps * eps / 8.0),
            rho=eps * eps / 8.0,
        )
    return _pure(eps, f"report noisy max ({type(noise.law).__name__}), epsilon {eps:g}")


def _randomized_response(noise: RandomizedResponse) -> PrivacyCurves:
    law = noise.law
    m, keep, flip = law.categories, law.keep_probability, law.flip_probability
    eps = law.epsilon
    src = f"{m}-ary randomized response, epsilon {eps:g}"
    if not math.isfinite(eps):
        raise UnsupportedCombinationError(f"{src} is not private (keep probability 1)")
    if keep <= flip:  # reversed or uninformative RR: the worst case of its ε is sound
        return _pure(eps, src) if eps > 0 else _pure(1e-12, src)
    return PrivacyCurves(
        source=src,
        pure_epsilon=eps,
        exact_pld=True,
        pld=_pld_three_point(eps, law.privacy_profile),
        rdp=_kary_rr_rdp(keep, flip, m),
        rho=eps * eps / 2.0,
    )


def privacy_curves(item: Any) -> PrivacyCurves:
    """The privacy curves of a spec, a subsampled spec, a guarantee or a mechanism.

    Parameters
    ----------
    item : MechanismSpec, SubsampledSpec, PrivacyGuarantee, PrivacyCurves or Mechanism
        What to account for.

    Returns
    -------
    PrivacyCurves

    Raises
    ------
    UnsupportedCombinationError
        For a spec whose claim is marked ``proof_status="unproven"``: no accountant
        composes a claim that is not proven.
    """
    if isinstance(item, PrivacyCurves):
        return item
    inner = getattr(item, "accounting_item", None)  # a subsampled mechanism's SubsampledSpec
    if inner is not None:
        return privacy_curves(inner)
    if isinstance(item, CurvesProvider):
        return item.curves()
    spec = getattr(item, "spec", item) if not isinstance(item, MechanismSpec) else item
    if isinstance(spec, MechanismSpec):
        return _spec_curves(spec)
    if isinstance(item, (PureDP, ApproxDP, ZeroConcentratedDP, GaussianDP, RenyiDP)):
        return curves_of_guarantee(item)
    raise InvalidParameterError(
        f"cannot account for {item!r}: expected a MechanismSpec, a SubsampledSpec, a "
        "privacy guarantee or a Mechanism"
    )


def _spec_curves(spec: MechanismSpec) -> PrivacyCurves:
    if spec.proof_status != "proven":
        raise UnsupportedCombinationError(
            f"spec {spec.name!r} states an unproven claim ({spec.notes.strip()[:80]}); an "
            "accountant composes only proven claims"
        )
    noise, found = spec.noise, None
    if isinstance(noise, AdditiveNoise):
        found = _additive(spec, noise)
    elif isinstance(noise, NoisyArgmax):
        found = _argmax(spec, noise)
    elif isinstance(noise, RandomizedResponse):
        found = _randomized_response(noise)
    if found is None:
        found = curves_of_guarantee(spec.guarantee, f"{spec.name} (declared)")
    return found
