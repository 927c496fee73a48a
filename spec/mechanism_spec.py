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
from typing import Any, Literal, TypeVar

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from ._base import SpecModel
from ._types import PositiveInt
from .accuracy import AccuracyClaim
from .domains import Categorical, InputDomain
from .errors import InconsistentSpecError, NonMonotoneRelationError, UnsupportedCombinationError
from .guarantees import (
    ApproxDP,
    PrivacyGuarantee,
    PureDP,
)
from .noise import (
    FiniteOutputLaw,
    Gaussian,
    RandomizedResponseLaw,
)
from .noise_application import (
    REL_TOL,
    AdditiveNoise,
    FiniteRandomizer,
    NoiseApplication,
    NoisyArgmax,
    RandomizedResponse,
    SmoothSensitivityNoise,
    _check_claim,
    _Delivered,
    _delivered_additive,
    _delivered_argmax,
    _delivered_smooth,
    _within,
    laplace_rdp,
)
from .references import Reference
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

Numerics = Literal["idealized", "exact"]
"""``"idealized"``: real arithmetic is assumed (float samplers); ``"exact"``: integer or
rational sampling with no floating-point leak (OpenDP's ``idealized-numerics`` fence)."""

ProofStatus = Literal["proven", "unproven"]
"""``"unproven"`` marks a claim kept for reproduction whose proof does not hold as printed."""


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
    accuracy : AccuracyClaim or None
        "With probability ≥ 1 − β the error is at most α" (:mod:`spec.accuracy`).  Left
        out of the serialisation when ``None``, so a spec without one hashes as it did
        before the field existed.
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
    accuracy: AccuracyClaim | None = None

    @model_serializer(mode="wrap")
    def _omit_absent_accuracy(self, handler: SerializerFunctionWrapHandler) -> Any:
        """The dump without ``accuracy`` when it is ``None`` (content hashes unchanged)."""
        data = handler(self)
        if self.accuracy is None and isinstance(data, dict):
            data.pop("accuracy", None)
        return data

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
    def _accuracy_fits_the_release(self) -> MechanismSpec:
        """An ``absolute`` accuracy error is the error of a scalar release."""
        claim = self.accuracy
        if claim is not None and claim.error == "absolute" and self.output_dimension != 1:
            raise InconsistentSpecError(
                f"an 'absolute' accuracy error needs a scalar release, got "
                f"output_dimension = {self.output_dimension}; use 'l1', 'l2' or 'linf'"
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
        if self.accuracy is not None:
            lines.append(f"  accuracy    : {self.accuracy.describe()}")
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
