"""The audit as a plan: what an audit of one mechanism at one configuration will run, and
each statistical stage's share of α, computed once before the first draw.

:func:`plan_audit` is a pure function of the mechanism's spec and hooks, the
configuration and (for the declared-law predicate) one neighbouring pair.  The auditor
and the group audit execute the :class:`AuditPlan`; :mod:`~privaudit.auditing.time_budget`
prices it; the report records it.  It is not for running anything: the stages
themselves live in ``checks/``, ``audit_steps.py`` and ``pair_tests.py``.

Adding a statistical stage is one entry here: a predicate field, its share in
:func:`_shares`, and the stage's call where the auditor executes the plan
(``docs/architecture.md``, "Adding a check").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from privaudit.spec import AdditiveNoise, SmoothSensitivityNoise, SpecModel

if TYPE_CHECKING:
    from privaudit.mechanisms import Mechanism

    from .config import AuditConfig

__all__ = [
    "CONFORMANCE_SHARE",
    "LOCALITY_SHARE",
    "RANKED_LAW_SHARE",
    "SPIKE_SHARE",
    "STREAMS",
    "AuditPlan",
    "Claim",
    "plan_audit",
]

#: Share of α spent on the noise-law conformance check when it applies.
CONFORMANCE_SHARE = 0.1
#: Part of the conformance share (after the floating-point image check's part) that the
#: spike check (:func:`~privaudit.auditing.checks.check_spike`) gets when it applies.
SPIKE_SHARE = 0.5
#: Share of α spent on the black-box locality test of a local-node mechanism without
#: gray-box hooks (:mod:`privaudit.auditing.checks.local_node_blackbox`).
LOCALITY_SHARE = 0.1
#: Share of the distinguishing test's α spent on the declared law at the inputs of the
#: pairs it ranks (:mod:`privaudit.auditing.ranked_pairs_law`), for gray-box rankings.
RANKED_LAW_SHARE = 0.1
#: The random streams, each spawned from ``SeedSequence(seed)`` in this order (a new
#: stream goes last, so that the others keep their draws).
STREAMS = (
    "search",
    "claims",
    "conformance",
    "pilot",
    "final",
    "float_image",
    "local_node",
    "spike",
    "exposure",
    "ranked_law",
)

Ranking = Literal["statistic shift", "declared bound", "pilot ε estimates"]


class Claim(SpecModel):
    """The claim an audit tests, as one object: ε and δ at the tested point.

    Attributes
    ----------
    epsilon, delta : float
        :func:`privaudit.statistics.claimed_point` of the guarantee (for a profile claim,
        its point at the audit's δ).
    """

    epsilon: float
    delta: float

    @classmethod
    def of(cls, guarantee: Any) -> Claim:
        """The claimed point of ``guarantee``."""
        from privaudit.statistics import claimed_point

        epsilon, delta = claimed_point(guarantee)
        return cls(epsilon=epsilon, delta=delta)


class AuditPlan(SpecModel):
    """What an audit runs and each statistical stage's share of α.

    Attributes
    ----------
    claim : Claim
    alpha : float
        The family-wise error budget 1 − confidence.
    group : int, optional
        The distance of a group audit.
    conformance : bool
        The noise-law conformance check applies (a declared law the outputs can be
        checked against).
    conformance_inputs : int
        Inputs it tests: 2 (the exact worst pair) with an exact audit, else 1.
    exact : bool
        The exact audit of a finite output law applies.
    float_image, spike, local_node, locality_on_samples : bool
        The floating-point image check, the spike windows, the local-node checks and their
        black-box locality test apply.
    declared : bool
        The output densities are declared (on the planning pair).
    ranking : str
        How the pairs are ranked: ``"statistic shift"``, ``"declared bound"`` or
        ``"pilot ε estimates"`` (a black box).
    shares : dict
        α of each statistical stage by check name (``noise_law`` for all its inputs
        together); ``distinguishability`` is what the others leave.
    alpha_ranking : float
        α after the noise-law and locality stages: the level the pair ranking plans for,
        split between the declared law at the ranked inputs and the pair tests.
    streams : tuple of str
        The random streams, in spawn order.
    """

    claim: Claim
    alpha: float
    group: int | None = None
    conformance: bool
    conformance_inputs: int
    exact: bool
    float_image: bool
    spike: bool
    local_node: bool
    locality_on_samples: bool
    declared: bool
    ranking: Ranking
    shares: dict[str, float] = Field(default_factory=dict)
    alpha_ranking: float
    streams: tuple[str, ...] = STREAMS

    @property
    def black_box(self) -> bool:
        """The pairs are ranked on samples (no declared law ranks them)."""
        return self.ranking == "pilot ε estimates"

    def share(self, name: str) -> float:
        """α of the stage ``name`` (0 for a stage that does not run or spends none)."""
        return self.shares.get(name, 0.0)


def _shares(plan: dict[str, Any], numerics_exact: bool) -> tuple[dict[str, float], float]:
    """Each statistical stage's α (``docs/derivations.md`` §8) and the α of the pair
    ranking, computed in the order the auditor always has, so that the figures are the same
    to the bit."""
    alpha = plan["alpha"]
    delta = plan["claim"].delta
    conformance = CONFORMANCE_SHARE * alpha if plan["conformance"] else 0.0
    # the image check is deterministic for pure claims and idealized numerics
    image = conformance / 2 if (plan["float_image"] and numerics_exact and delta > 0) else 0.0
    spike = SPIKE_SHARE * (conformance - image) if plan["spike"] else 0.0
    locality = LOCALITY_SHARE * alpha if plan["locality_on_samples"] else 0.0
    rest = alpha - (conformance + locality)
    ranked = 0.0 if plan["ranking"] == "pilot ε estimates" else RANKED_LAW_SHARE * rest
    shares = {
        "noise_law": conformance - image - spike,
        "floating_point.image": image,
        "noise_law.spike": spike,
        "lndp.locality": locality,
        "noise_law.ranked_pairs": ranked,
        "distinguishability": rest - ranked,
    }
    return {name: value for name, value in shares.items() if value > 0.0}, rest


def plan_audit(
    mechanism: Mechanism, cfg: AuditConfig, pair: Any = None, *, group: int | None = None
) -> AuditPlan:
    """The plan of an audit of ``mechanism`` at ``cfg`` (module docstring).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism audited (for a group audit, the group-claim wrapper).
    cfg : AuditConfig
    pair : CandidatePair, optional
        A neighbouring pair on which to ask whether the output densities are declared.
    group : int, optional
        The distance of a group audit: only the noise-law conformance check and the
        distinguishing test run (the other checks concern distance 1).
    """
    # the engine's predicates, imported here: the plan as data (the report's field) loads
    # no engine module
    from .checks import (
        float_image_applies,
        local_node_checks_apply,
        locality_needs_samples,
        spike_applies,
    )
    from .distinguish.densities import declared_log_densities
    from .exact_audit import exact_audit_applies
    from .pair_choice import gray_box_shift

    spec = mechanism.spec
    claim = Claim.of(spec.guarantee)
    conformance = spec.noise is not None and (
        not isinstance(spec.noise, (AdditiveNoise, SmoothSensitivityNoise))
        or mechanism.provides("statistic")
    )
    at_one = group is None
    declared = pair is not None and declared_log_densities(mechanism, pair.x, pair.y) is not None
    ranking: Ranking = (
        "statistic shift"
        if gray_box_shift(mechanism) is not None
        else "declared bound"
        if declared
        else "pilot ε estimates"
    )
    exact = at_one and exact_audit_applies(mechanism)
    local_node = at_one and local_node_checks_apply(mechanism)
    fields: dict[str, Any] = {
        "claim": claim,
        "alpha": cfg.alpha,
        "group": group,
        "conformance": conformance,
        "conformance_inputs": 2 if exact else 1,
        "exact": exact,
        "float_image": at_one
        and float_image_applies(mechanism)
        and mechanism.provides("statistic"),
        "spike": at_one and conformance and claim.delta > 0 and spike_applies(mechanism) is None,
        "local_node": local_node,
        "locality_on_samples": local_node and locality_needs_samples(mechanism),
        "declared": declared,
        "ranking": ranking,
    }
    fields["shares"], fields["alpha_ranking"] = _shares(fields, spec.numerics == "exact")
    return AuditPlan(**fields)
