"""How a mechanism's randomness is applied (the noise applications a
:class:`~spec.mechanism_spec.MechanismSpec` declares) and what each provably delivers:
pure ε, δ(ε), zCDP ρ, GDP μ, RDP, checked against the claimed guarantee at construction.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import Field

from ._base import SpecModel
from ._types import PositiveFloat
from .errors import InconsistentSpecError, UnsupportedCombinationError
from .guarantees import ApproxDP, GaussianDP, PureDP, RenyiDP, ZeroConcentratedDP
from .noise import (
    AdditiveNoiseLaw,
    DiscreteGaussian,
    DiscreteLaplace,
    Exponential,
    FiniteOutputLaw,
    Gaussian,
    Gumbel,
    InverseQuartic,
    Laplace,
    LatticeGaussian,
    LatticeLaplace,
    NoiseLaw,
    RandomizedResponseLaw,
)
from .sensitivity import GlobalSensitivity, SmoothSensitivityBound

__all__ = [
    "AdditiveNoise",
    "FiniteRandomizer",
    "NoiseApplication",
    "NoisyArgmax",
    "REL_TOL",
    "RandomizedResponse",
    "SmoothSensitivityNoise",
    "laplace_rdp",
]

#: Relative slack allowed when comparing a claimed guarantee with what the noise delivers.
REL_TOL = 1e-9
#: 3^{3/4}: sup_z |d/dz log(1 + z⁴)|, attained at z = 3^{1/4} (``docs/derivations.md`` §1).
_QUARTIC_LIPSCHITZ = 3.0**0.75


class AdditiveNoise(SpecModel):
    """Release f(D) + Z with Z drawn i.i.d. per coordinate from a fixed law.

    Parameters
    ----------
    law : AdditiveNoiseLaw
        The law of each coordinate of Z (its scale is the actual scale used).
    calibration : {"manual", "classical", "analytic", "exact"}
        How the scale was chosen.  ``"classical"`` (σ = Δ√(2 ln(1.25/δ))/ε) is refused
        for ε ≥ 1, where its theorem does not apply.
    """

    kind: Literal["additive"] = "additive"
    law: AdditiveNoiseLaw
    calibration: Literal["manual", "classical", "analytic", "exact"] = "manual"


class SmoothSensitivityNoise(SpecModel):
    """Release f(D) + (S(D)/a)·Z with S a β-smooth upper bound on the local sensitivity.

    Parameters
    ----------
    law : Laplace or InverseQuartic with scale 1
        The standardised law of Z.
    alpha : float
        The divisor a > 0 of the smooth bound.

    References
    ----------
    Nissim, Raskhodnikova & Smith, "Smooth sensitivity and sampling in private data
    analysis", STOC 2007, Def. 2.4 and Lemmas 2.5–2.9.
    """

    kind: Literal["smooth_sensitivity"] = "smooth_sensitivity"
    law: AdditiveNoiseLaw
    alpha: PositiveFloat


class NoisyArgmax(SpecModel):
    """Release argmax_i (q_i(D) + Z_i) with Z_i i.i.d. from ``law`` (report noisy max).

    Gumbel noise gives the exponential mechanism; one-sided exponential noise gives
    permute-and-flip (Ding et al. 2021); Laplace noise gives classic report-noisy-max.

    Parameters
    ----------
    law : Gumbel, Exponential or Laplace
        The law of each Z_i.
    monotone : bool
        True when every score moves in the same direction between neighbours (counting
        queries under add/remove), which halves the required noise.
    """

    kind: Literal["noisy_argmax"] = "noisy_argmax"
    law: AdditiveNoiseLaw
    monotone: bool = False


class RandomizedResponse(SpecModel):
    """Release y ~ P(· | x) over a finite set (k-ary randomized response)."""

    kind: Literal["randomized_response"] = "randomized_response"
    law: RandomizedResponseLaw


class FiniteRandomizer(SpecModel):
    """Release a tuple of symbols drawn from a declared finite product law given the input.

    The probabilities come from the mechanism's gray-box hook
    :meth:`mechanisms.Mechanism.output_probabilities`; ``law.epsilon`` states the worst
    log-likelihood ratio the construction delivers, which the guarantee must cover.
    """

    kind: Literal["finite_randomizer"] = "finite_randomizer"
    law: FiniteOutputLaw


NoiseApplication = Annotated[
    AdditiveNoise | SmoothSensitivityNoise | NoisyArgmax | RandomizedResponse | FiniteRandomizer,
    Field(discriminator="kind"),
]
"""How a mechanism's randomness is applied, as a discriminated union on ``kind``."""


# ----------------------------------------------------------------------------------------
# What a noise application delivers
# ----------------------------------------------------------------------------------------
class _Delivered:
    """What a noise application provably delivers, in every currency the claims use."""

    def __init__(
        self,
        *,
        pure: float,
        profile: Callable[[float], float],
        rho: float | None = None,
        mu: float | None = None,
        rdp: Callable[[float], float] | None = None,
        source: str,
    ) -> None:
        self.pure = pure
        self.profile = profile
        self.rho = rho if rho is not None else (pure**2 / 2.0 if math.isfinite(pure) else None)
        self.mu = mu
        self.rdp = rdp
        if self.rdp is None:
            if self.rho is not None:
                rho_ = self.rho
                self.rdp = lambda a: min(pure, a * rho_) if math.isfinite(pure) else a * rho_
            elif math.isfinite(pure):
                self.rdp = lambda a: pure
        self.source = source


def laplace_rdp(lam: float) -> Callable[[float], float]:
    """(α, ε(α))-RDP curve of Laplace with Δ/b = λ (Mironov 2017, Table II)."""

    def eps(alpha: float) -> float:
        a = alpha
        log_terms = [
            math.log(a / (2 * a - 1)) + (a - 1) * lam,
            math.log((a - 1) / (2 * a - 1)) - a * lam,
        ]
        m = max(log_terms)
        return (m + math.log(sum(math.exp(t - m) for t in log_terms))) / (a - 1)

    return eps


def _require_norm(law: NoiseLaw, claim: GlobalSensitivity, dim: int) -> None:
    if dim == 1:
        return
    needs = {
        Laplace: ("l1",),
        DiscreteLaplace: ("l1",),
        Gaussian: ("l1", "l2"),
        DiscreteGaussian: ("l1", "l2"),
    }.get(type(law))
    if needs is None:
        raise UnsupportedCombinationError(
            f"{type(law).__name__} noise on a {dim}-dimensional output has no calibration "
            "rule here; use a scalar output"
        )
    if claim.norm not in needs:
        raise UnsupportedCombinationError(
            f"{type(law).__name__} noise on a {dim}-dimensional output needs an "
            f"{'/'.join(needs)} sensitivity, but the claim is in norm {claim.norm!r}"
        )


def _delivered_additive(noise: AdditiveNoise, claim: GlobalSensitivity, dim: int) -> _Delivered:
    law, delta_f = noise.law, claim.value
    if isinstance(law, (LatticeLaplace, LatticeGaussian)):
        # g·Y on the lattice g·ℤ: exactly the unit law Y at sensitivity Δ/g (an integer)
        ratio = float(delta_f) / law.granularity
        if not ratio.is_integer():
            raise InconsistentSpecError(
                f"{type(law).__name__} noise on the lattice {law.granularity!r}·Z needs a "
                f"sensitivity that is a multiple of the granularity, got {delta_f!r}"
            )
        unit = AdditiveNoise(law=law.unit_law, calibration=noise.calibration)
        got = _delivered_additive(unit, GlobalSensitivity(value=ratio, norm=claim.norm), dim)
        got.source = f"{type(law).__name__} noise with sensitivity {delta_f:g}"
        return got
    _require_norm(law, claim, dim)
    if law.is_discrete and not float(delta_f).is_integer():
        raise InconsistentSpecError(
            f"{type(law).__name__} noise needs an integer sensitivity, got {delta_f!r}"
        )
    pure = float(law.pure_epsilon(delta_f))
    src = f"{type(law).__name__} noise with sensitivity {delta_f:g}"
    if isinstance(law, Gaussian):
        ratio = delta_f / law.sigma
        return _Delivered(
            pure=math.inf,
            profile=lambda e: law.privacy_profile(e, delta_f),
            rho=ratio**2 / 2,
            mu=ratio,
            rdp=lambda a: a * ratio**2 / 2,
            source=src,
        )
    if isinstance(law, DiscreteGaussian):
        rho = delta_f**2 / (2 * law.sigma**2)
        # on vectors (CKS 2020): ρ-zCDP, whose (ε, δ) conversion is a valid upper bound
        profile: Callable[[float], float] = (
            (lambda e: law.privacy_profile(e, delta_f))
            if dim == 1
            else ZeroConcentratedDP(rho=rho).delta_for_epsilon
        )
        return _Delivered(pure=math.inf, profile=profile, rho=rho, source=src)
    if isinstance(law, Laplace):
        lam = delta_f / law.scale
        profile = (
            (lambda e: law.privacy_profile(e, delta_f))
            if dim == 1
            else (PureDP(epsilon=lam).delta_for_epsilon)
        )
        return _Delivered(pure=pure, profile=profile, rdp=laplace_rdp(lam), source=src)
    if dim == 1:
        return _Delivered(pure=pure, profile=lambda e: law.privacy_profile(e, delta_f), source=src)
    # discrete Laplace on vectors: ℓ1 sensitivity, losses add up to Δ₁/t
    return _Delivered(pure=pure, profile=PureDP(epsilon=pure).delta_for_epsilon, source=src)


def _within(delivered: float, claimed: float) -> bool:
    return delivered <= claimed * (1.0 + REL_TOL)


def _check_claim(guarantee: object, got: _Delivered) -> None:
    """Refuse a claimed guarantee stronger than what the noise delivers."""
    src = got.source
    if isinstance(guarantee, PureDP):
        if not math.isfinite(got.pure):
            raise UnsupportedCombinationError(
                f"{src} is not pure DP for any finite epsilon; claim (epsilon, delta)-DP, "
                "zCDP or GDP instead"
            )
        if not _within(got.pure, guarantee.epsilon):
            raise InconsistentSpecError(
                f"{src} delivers epsilon = {got.pure:.6g}, more than the claimed "
                f"epsilon = {guarantee.epsilon:g}"
            )
    elif isinstance(guarantee, ApproxDP):
        delta = got.profile(guarantee.epsilon)
        if not (delta <= guarantee.delta * (1.0 + REL_TOL) or _within(got.pure, guarantee.epsilon)):
            raise InconsistentSpecError(
                f"{src} delivers delta({guarantee.epsilon:g}) = {delta:.6g}, more than the "
                f"claimed delta = {guarantee.delta:g}"
            )
    elif isinstance(guarantee, ZeroConcentratedDP):
        if got.rho is None:
            raise UnsupportedCombinationError(f"{src} has no zCDP guarantee")
        if not _within(got.rho, guarantee.rho):
            raise InconsistentSpecError(
                f"{src} delivers rho = {got.rho:.6g}, more than the claimed rho = {guarantee.rho:g}"
            )
    elif isinstance(guarantee, GaussianDP):
        if got.mu is None:
            raise UnsupportedCombinationError(
                f"{src} has no exact GDP guarantee; only Gaussian noise does"
            )
        if not _within(got.mu, guarantee.mu):
            raise InconsistentSpecError(
                f"{src} delivers mu = {got.mu:.6g}, more than the claimed mu = {guarantee.mu:g}"
            )
    elif isinstance(guarantee, RenyiDP):
        if got.rdp is None:
            raise UnsupportedCombinationError(f"{src} has no Renyi-DP guarantee")
        value = got.rdp(guarantee.alpha)
        if not _within(value, guarantee.epsilon):
            raise InconsistentSpecError(
                f"{src} delivers Renyi epsilon({guarantee.alpha:g}) = {value:.6g}, more than "
                f"the claimed {guarantee.epsilon:g}"
            )


def _delivered_smooth(
    noise: SmoothSensitivityNoise, claim: SmoothSensitivityBound, guarantee: object
) -> _Delivered:
    law, a, beta = noise.law, noise.alpha, claim.beta
    if not isinstance(law, (InverseQuartic, Laplace)):
        raise UnsupportedCombinationError(
            f"no admissible smooth-sensitivity calibration is known here for {type(law).__name__}; "
            "use Laplace ((epsilon, delta)-DP) or InverseQuartic (pure DP)"
        )
    if law.scale != 1.0:
        raise InconsistentSpecError(
            f"smooth-sensitivity noise must use the standardised law (scale 1), got {law!r}; "
            "put the scale in alpha"
        )
    if isinstance(law, InverseQuartic):
        pure = 3.0 * beta + _QUARTIC_LIPSCHITZ * a
        return _Delivered(
            pure=pure,
            profile=PureDP(epsilon=pure).delta_for_epsilon,
            source=f"1/(1+z^4) smooth-sensitivity noise with beta = {beta:g}, "
            f"a = {a:g} (epsilon = 3 beta + 3^(3/4) a)",
        )
    # Laplace: NRS 2007 Lemma 2.6 needs (epsilon, delta) with a <= eps/2,
    # beta <= eps/(2 ln(2/delta))
    if not isinstance(guarantee, ApproxDP) or guarantee.delta <= 0:
        raise UnsupportedCombinationError(
            "Laplace noise scaled by a smooth bound is only (epsilon, delta)-DP with delta > 0 "
            f"(NRS 2007 Lemma 2.6); the claim is {guarantee!r}"
        )
    eps, delta = guarantee.epsilon, guarantee.delta
    beta_max = eps / (2.0 * math.log(2.0 / delta))
    if not _within(a, eps / 2.0):
        raise InconsistentSpecError(
            f"smooth-sensitivity Laplace needs a <= epsilon/2 = {eps / 2:g}, got a = {a:g}"
        )
    if not _within(beta, beta_max):
        raise InconsistentSpecError(
            f"smooth-sensitivity Laplace needs beta <= epsilon/(2 ln(2/delta)) = "
            f"{beta_max:.6g}, got beta = {beta:g}"
        )
    return _Delivered(
        pure=math.inf,
        profile=lambda e: delta if e >= eps else 1.0,
        source="smooth-sensitivity Laplace",
    )


def _delivered_argmax(noise: NoisyArgmax, claim: GlobalSensitivity) -> _Delivered:
    law, delta_f = noise.law, claim.value
    factor = 1.0 if noise.monotone else 2.0
    if isinstance(law, (Gumbel, Exponential, Laplace)):
        pure = factor * delta_f / law.scale
        rho = pure**2 / 8.0 if isinstance(law, Gumbel) else pure**2 / 2.0
        name = {
            Gumbel: "exponential mechanism (Gumbel-max)",
            Exponential: "permute-and-flip (report noisy max with exponential noise)",
            Laplace: "report noisy max with Laplace noise",
        }[type(law)]
        return _Delivered(
            pure=pure,
            profile=PureDP(epsilon=pure).delta_for_epsilon,
            rho=rho,
            source=f"{name}, score sensitivity {delta_f:g}",
        )
    raise UnsupportedCombinationError(
        "noisy argmax is defined here for Gumbel, Exponential or Laplace noise, got "
        f"{type(law).__name__}"
    )
