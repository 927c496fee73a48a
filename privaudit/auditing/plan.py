"""The audit as a plan: what an audit of one mechanism at one configuration will run, and
each statistical stage's share of α, computed once before the first draw (:func:`plan_audit`; the
plan's data model is
:mod:`privaudit.auditing.outcome.audit_plan`).

:func:`plan_audit` is a pure function of the mechanism's spec and hooks, the
configuration and (for the declared-law predicate) one neighbouring pair.  The auditor
and the group audit execute the :class:`AuditPlan`; :mod:`~privaudit.auditing.time_budget`
prices it; the report records it.  It is not for running anything: the stages
themselves live in ``checks/``, ``audit_steps.py`` and ``choice/final_tests.py``.

Adding a statistical stage is one entry here: a predicate field, its share in
:func:`_shares`, and the stage's call where the auditor executes the plan
(``docs/architecture.md``, "Adding a check").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from privaudit.auditing.outcome.audit_plan import (
    ACCURACY_SHARE,
    CONFORMANCE_SHARE,
    LOCALITY_SHARE,
    RANKED_LAW_SHARE,
    SPIKE_SHARE,
    AuditPlan,
    Claim,
    Ranking,
)
from privaudit.spec import AdditiveNoise, SmoothSensitivityNoise

if TYPE_CHECKING:
    from privaudit.auditing.config import AuditConfig
    from privaudit.mechanisms import Mechanism

__all__ = ["plan_audit"]


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
    accuracy = ACCURACY_SHARE * alpha if plan["accuracy"] else 0.0
    rest = alpha - (conformance + locality + accuracy)
    ranked = 0.0 if plan["ranking"] == "pilot ε estimates" else RANKED_LAW_SHARE * rest
    shares = {
        "noise_law": conformance - image - spike,
        "floating_point.image": image,
        "noise_law.spike": spike,
        "lndp.locality": locality,
        "accuracy": accuracy,
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
    from privaudit.auditing.checks import (
        accuracy_check_applies,
        float_image_applies,
        local_node_checks_apply,
        locality_needs_samples,
        spike_applies,
    )
    from privaudit.auditing.choice.halving import gray_box_shift
    from privaudit.auditing.distinguish.densities import declared_log_densities
    from privaudit.auditing.exact.privacy import exact_audit_applies

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
        "accuracy": at_one and accuracy_check_applies(mechanism),
        "ranking": ranking,
    }
    fields["shares"], fields["alpha_ranking"] = _shares(fields, spec.numerics == "exact")
    return AuditPlan(**fields)
