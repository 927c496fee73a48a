"""The mechanism spec: everything a mechanism claims, in one validated, hashable model.

A :class:`MechanismSpec` names the mechanism, its references, its input domain, its
neighbouring relation, the statistic it privatises, its sensitivity claims, how noise is
applied (:class:`AdditiveNoise`, :class:`SmoothSensitivityNoise`, :class:`NoisyArgmax`,
:class:`RandomizedResponse`), its privacy guarantee and its numeric model.

**Cross-field validation.**  A spec whose parts contradict each other is refused at
construction with :class:`~spec.errors.InconsistentSpecError` (a wrong constant) or
:class:`~spec.errors.UnsupportedCombinationError` (parts that cannot go together).  The
check recomputes, from the declared noise law and sensitivity, what the noise actually
delivers — the law's exact pure ε, exact privacy profile δ(ε), zCDP ρ, GDP μ or RDP
curve — and refuses any claimed guarantee stronger than that.  Examples:

* Laplace(b) with Δ₁ under an ε-DP claim needs Δ₁/b ≤ ε;
* the analytic Gaussian is checked against the exact Balle–Wang profile; a Gaussian whose
  calibration is declared ``"classical"`` is refused for ε ≥ 1 (Dwork & Roth 2014,
  Thm. A.1 needs ε < 1), and a Gaussian under a pure-DP claim is refused;
* a smooth-sensitivity Laplace release (noise S(D)/a · Lap(1)) needs an (ε, δ) claim with
  a ≤ ε/2 and β ≤ ε/(2 ln(2/δ)) (Nissim, Raskhodnikova & Smith 2007, Lemmas 2.5–2.6);
* a smooth-sensitivity release with the density ∝ 1/(1+z⁴) (noise S(D)/a · Z) under an
  ε-DP claim needs ε ≥ 3β + 3^{3/4} a (the tight constant of ``docs/derivations.md`` §1,
  which the paper's Lemma 2 states loosely as 10ε for a = β = ε);
* ℓ2 sensitivity under Laplace noise on vector outputs (the L1/L2 confusion) is refused.

Comparisons allow a relative slack of :data:`REL_TOL` = 1e-9 for floating-point
round-off in the user's own calibration arithmetic, never more.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, model_validator

from ._base import SpecModel
from ._types import PositiveFloat, PositiveInt
from .domains import Categorical, InputDomain
from .errors import InconsistentSpecError, NonMonotoneRelationError, UnsupportedCombinationError
from .guarantees import (
    ApproxDP,
    GaussianDP,
    PrivacyGuarantee,
    PureDP,
    RenyiDP,
    ZeroConcentratedDP,
)
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
from .relations import AddRemoveOne, LocalRelation, NeighbouringRelation
from .sensitivity import (
    GlobalSensitivity,
    LocalSensitivityBound,
    SensitivityClaim,
    SmoothSensitivityBound,
)

__all__ = [
    "AdditiveNoise",
    "FiniteRandomizer",
    "MechanismSpec",
    "NoiseApplication",
    "NoisyArgmax",
    "Numerics",
    "ProofStatus",
    "REL_TOL",
    "RandomizedResponse",
    "Reference",
    "SmoothSensitivityNoise",
    "laplace_rdp",
]

#: A kind of sensitivity claim (:meth:`MechanismSpec._claim` returns the one it finds).
_ClaimT = TypeVar("_ClaimT", GlobalSensitivity, LocalSensitivityBound, SmoothSensitivityBound)

#: Relative slack allowed when comparing a claimed guarantee with what the noise delivers.
REL_TOL = 1e-9
#: 3^{3/4}: sup_z |d/dz log(1 + z⁴)|, attained at z = 3^{1/4} (``docs/derivations.md`` §1).
_QUARTIC_LIPSCHITZ = 3.0**0.75

Numerics = Literal["idealized", "exact"]
"""``"idealized"``: real arithmetic is assumed (float samplers); ``"exact"``: integer or
rational sampling with no floating-point leak (OpenDP's ``idealized-numerics`` fence)."""

ProofStatus = Literal["proven", "unproven"]
"""``"unproven"`` marks a claim kept for reproduction whose proof does not hold as printed."""


class Reference(SpecModel):
    """A citation that supports a claim: the paper and, where it matters, the equation.

    Parameters
    ----------
    citation : str
        Authors, title, venue and year.
    locator : str, optional
        Lemma, theorem, algorithm or equation number (e.g. ``"Lemma 2"``).
    url : str, optional
        A stable address (DOI or arXiv).
    """

    citation: str = Field(min_length=1)
    locator: str = ""
    url: str = ""


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


def _admits_monotone_scores(relation: NeighbouringRelation) -> bool:
    """Whether scores may be declared monotone (all move the same way) under ``relation``.

    Under :class:`~privaudit.spec.relations.AddRemoveOne` sums of non-negative per-record
    terms (counting queries) rise together when a record is added and fall together when
    one is removed (McSherry & Talwar, FOCS 2007, §3: the monotone case of the exponential
    mechanism); whether the declared statistic is such a sum is checked by the auditor on
    neighbouring pairs (``sensitivity.global``).  A relation on score vectors says so
    itself (``QueryDistance(monotone=True)``).
    """
    return isinstance(relation, AddRemoveOne) or getattr(relation, "monotone", False) is True


class MechanismSpec(SpecModel):
    """Every claim a mechanism makes, validated for internal consistency at construction.

    Parameters
    ----------
    name : str
        Registry name, e.g. ``"laplace"`` or ``"ustat.local_hajek"``.
    version : str
        Bumped whenever the claims change.
    summary : str
        One sentence on what the mechanism releases.
    references : tuple of Reference
        Papers and equations behind the claims.
    input_domain : InputDomain
        Where the input lives (dataset, query vector, graph, single record).
    relation : NeighbouringRelation
        The neighbouring relation the guarantee is stated under.
    statistic : str
        What f is (empty for mechanisms with no separate statistic).
    output_dimension : int
        Length of each released output (1 for scalars and for argmax indices).
    sensitivity : tuple of SensitivityClaim
        At most one claim of each kind.
    noise : NoiseApplication or None
        How randomness is applied; ``None`` for a black-box mechanism that declares none.
    guarantee : PrivacyGuarantee
        The privacy claim.
    numerics : {"idealized", "exact"}
        ``"exact"`` is refused for continuous noise laws.
    proof_status : {"proven", "unproven"}
        ``"unproven"`` needs ``notes`` saying why.
    notes : str
        Anything a reader of the claim must know.
    """

    name: str = Field(min_length=1, max_length=200)
    version: str = "1"
    summary: str = ""
    references: tuple[Reference, ...] = ()
    input_domain: InputDomain
    relation: NeighbouringRelation
    statistic: str = ""
    output_dimension: PositiveInt = 1
    sensitivity: tuple[SensitivityClaim, ...] = ()
    noise: NoiseApplication | None = None
    guarantee: PrivacyGuarantee
    numerics: Numerics = "idealized"
    proof_status: ProofStatus = "proven"
    notes: str = ""

    # -- claim lookup --------------------------------------------------------------------
    def _claim(self, cls: type[_ClaimT]) -> _ClaimT | None:
        found = [c for c in self.sensitivity if isinstance(c, cls)]
        return found[0] if found else None

    @property
    def global_sensitivity(self) -> GlobalSensitivity | None:
        """The global-sensitivity claim, if any."""
        return self._claim(GlobalSensitivity)

    @property
    def local_sensitivity_claim(self) -> LocalSensitivityBound | None:
        """The local-sensitivity-bound claim, if any."""
        return self._claim(LocalSensitivityBound)

    @property
    def smooth_sensitivity_claim(self) -> SmoothSensitivityBound | None:
        """The smooth-sensitivity claim, if any."""
        return self._claim(SmoothSensitivityBound)

    def delta_for_epsilon(self, epsilon: float) -> float:
        """The claimed privacy profile δ(ε) (see :mod:`spec.guarantees`)."""
        return self.guarantee.delta_for_epsilon(epsilon)

    # -- validation ----------------------------------------------------------------------
    @model_validator(mode="before")
    @classmethod
    def _state_finite_law_once(cls, data: Any) -> Any:
        """A finite law's ε and length are stated once: taken from the claim and the law.

        ``FiniteOutputLaw(epsilon=None)`` under a pure claim gets the claim's ε (the exact
        audit then checks it against the hook); ``output_dimension`` omitted with a finite
        law is its ``length``.
        """
        if not isinstance(data, dict):
            return data
        noise = data.get("noise")
        if not isinstance(noise, FiniteRandomizer):
            return data
        law = noise.law
        data = dict(data)
        data.setdefault("output_dimension", law.length)
        if law.epsilon is None:
            guarantee = data.get("guarantee")
            if not isinstance(guarantee, PureDP):
                raise InconsistentSpecError(
                    "FiniteOutputLaw(epsilon=...) may be omitted only under a pure claim "
                    f"(PureDP), whose epsilon it then takes; got {type(guarantee).__name__}"
                )
            data["noise"] = noise.model_copy(
                update={"law": law.model_copy(update={"epsilon": guarantee.epsilon})}
            )
        return data

    @model_validator(mode="after")
    def _layout_covers_the_release(self) -> MechanismSpec:
        """A local-node message layout has one block per node and covers the release."""
        layout = getattr(self.relation, "layout", None)
        if layout is not None:
            n = getattr(self.input_domain, "n_nodes", None)
            if n is None or not layout.covers(n, self.output_dimension):
                shown = (
                    f"{len(layout.sizes)} block(s) of total size {sum(layout.sizes)}"
                    if layout.sizes is not None
                    else f"blocks of {layout.block}"
                )
                raise InconsistentSpecError(
                    f"the message layout has {shown}; a local-node release on {n} nodes "
                    f"with output_dimension = {self.output_dimension} needs {n} consecutive "
                    f"blocks covering 0..{self.output_dimension - 1}"
                )
        return self

    @model_validator(mode="after")
    def _cross_field_consistency(self) -> MechanismSpec:
        if not self.relation.supports_domain(self.input_domain):
            raise UnsupportedCombinationError(
                f"relation {self.relation.kind!r} is not defined on a "
                f"{self.input_domain.kind!r} input domain"
            )
        kinds = [c.kind for c in self.sensitivity]
        for k in set(kinds):
            if kinds.count(k) > 1:
                raise InconsistentSpecError(f"more than one sensitivity claim of kind {k!r}")
        if self.proof_status == "unproven" and not self.notes.strip():
            raise InconsistentSpecError("an unproven claim needs notes saying why it is kept")
        noise = self.noise
        if noise is None:
            return self
        law = noise.law
        continuous = (
            not getattr(law, "is_discrete", True)
            if not isinstance(law, (RandomizedResponseLaw, FiniteOutputLaw))
            else False
        )
        if self.numerics == "exact" and continuous:
            raise InconsistentSpecError(
                f"numerics='exact' is impossible with the continuous {type(law).__name__} law; "
                "float-continuous mechanisms exist only as 'idealized'"
            )
        if isinstance(noise, AdditiveNoise):
            claim = self.global_sensitivity
            if claim is None:
                raise InconsistentSpecError("additive noise needs a global sensitivity claim")
            if noise.calibration == "classical":
                self._check_classical(noise, claim)
            _check_claim(self.guarantee, _delivered_additive(noise, claim, self.output_dimension))
        elif isinstance(noise, SmoothSensitivityNoise):
            smooth = self.smooth_sensitivity_claim
            if smooth is None:
                raise InconsistentSpecError(
                    "smooth-sensitivity noise needs a SmoothSensitivityBound claim"
                )
            if self.output_dimension != 1:
                raise UnsupportedCombinationError("smooth-sensitivity noise is scalar here")
            _check_claim(self.guarantee, _delivered_smooth(noise, smooth, self.guarantee))
        elif isinstance(noise, NoisyArgmax):
            claim = self.global_sensitivity
            if claim is None or claim.norm != "linf":
                raise InconsistentSpecError(
                    "noisy argmax needs a global sensitivity claim on the score vector in "
                    "norm 'linf'"
                )
            if noise.monotone and not _admits_monotone_scores(self.relation):
                raise NonMonotoneRelationError(
                    f"NoisyArgmax(monotone=True) halves the noise only when every score moves "
                    f"the same way between neighbours, but under {self.relation!r} one score "
                    f"may rise while another falls (substituting a record moves one count up "
                    f"and another down); counting scores are monotone under AddRemoveOne(), "
                    f"and score vectors under QueryDistance(norm='linf', radius=..., "
                    f"monotone=True)"
                )
            _check_claim(self.guarantee, _delivered_argmax(noise, claim))
        elif isinstance(noise, RandomizedResponse):
            dom = self.input_domain
            if not isinstance(self.relation, LocalRelation) or not isinstance(dom, Categorical):
                raise UnsupportedCombinationError(
                    "randomized response is a local randomizer: it needs the 'local' relation on "
                    "a categorical domain"
                )
            rr_law = noise.law
            if dom.size != rr_law.categories:
                raise InconsistentSpecError(
                    f"randomized response over {rr_law.categories} categories on a domain of "
                    f"{dom.size} categories"
                )
            eps_rr = rr_law.epsilon
            _check_claim(
                self.guarantee,
                _Delivered(
                    pure=eps_rr,
                    profile=rr_law.privacy_profile,
                    source=f"{rr_law.categories}-ary randomized response with keep probability "
                    f"{rr_law.keep_probability:g}",
                ),
            )
        elif isinstance(noise, FiniteRandomizer):
            fin_law = noise.law
            if self.output_dimension != fin_law.length:
                raise InconsistentSpecError(
                    f"a finite randomizer with {fin_law.length} coordinate(s) per release needs "
                    f"output_dimension = {fin_law.length}, got {self.output_dimension}"
                )
            eps_fin = fin_law.pure_epsilon
            _check_claim(
                self.guarantee,
                _Delivered(
                    pure=eps_fin,
                    profile=PureDP(epsilon=eps_fin).delta_for_epsilon
                    if math.isfinite(eps_fin)
                    else (lambda e: 1.0),
                    source=f"finite randomizer ({fin_law.description or 'declared law'}) with "
                    f"worst log-likelihood ratio {eps_fin:g}",
                ),
            )
        return self

    def _check_classical(self, noise: AdditiveNoise, claim: GlobalSensitivity) -> None:
        g = self.guarantee
        if not isinstance(noise.law, Gaussian):
            raise InconsistentSpecError("calibration='classical' applies to Gaussian noise only")
        if not isinstance(g, ApproxDP) or g.delta <= 0:
            raise UnsupportedCombinationError(
                "the classical Gaussian calibration gives (epsilon, delta)-DP with delta > 0 only"
            )
        if g.epsilon >= 1.0:
            raise UnsupportedCombinationError(
                f"the classical Gaussian calibration is only valid for epsilon < 1 (Dwork & Roth "
                f"2014, Thm. A.1), got epsilon = {g.epsilon:g}; use the analytic calibration"
            )
        sigma_min = claim.value * math.sqrt(2.0 * math.log(1.25 / g.delta)) / g.epsilon
        if not _within(sigma_min, noise.law.sigma):
            raise InconsistentSpecError(
                f"classical Gaussian calibration needs sigma >= {sigma_min:.6g}, got "
                f"{noise.law.sigma:g}"
            )

    # -- presentation --------------------------------------------------------------------
    def describe(self) -> str:
        """A short multi-line, human-readable summary of the claims."""
        lines = [f"{self.name} (v{self.version}): {self.summary}".rstrip(": ")]
        lines.append(f"  guarantee   : {_fmt(self.guarantee)}")
        lines.append(f"  relation    : {_fmt(self.relation)} on {_fmt(self.input_domain)}")
        if self.statistic:
            lines.append(f"  statistic   : {self.statistic}")
        for c in self.sensitivity:
            lines.append(f"  sensitivity : {_fmt(c)}")
        if self.noise is not None:
            lines.append(f"  noise       : {_fmt(self.noise)}")
        lines.append(f"  numerics    : {self.numerics}; proof: {self.proof_status}")
        for r in self.references:
            lines.append(f"  reference   : {r.citation}{', ' + r.locator if r.locator else ''}")
        if self.notes:
            lines.append(f"  notes       : {self.notes}")
        lines.append(f"  spec hash   : {self.content_hash}")
        return "\n".join(lines)


def _fmt(model: SpecModel) -> str:
    data = model.model_dump(mode="json")
    kind = data.pop("kind", type(model).__name__)

    def show(v: object) -> str:
        if isinstance(v, dict):
            k = v.get("kind", "")
            inner = ", ".join(f"{a}={show(b)}" for a, b in v.items() if a != "kind")
            return f"{k}({inner})"
        return repr(v) if isinstance(v, str) else str(v)

    inner = ", ".join(f"{k}={show(v)}" for k, v in data.items() if v not in ("", None, ()))
    return f"{kind}({inner})"
