"""The audit plan as data, as the report records it: the claim, which stages run, each
statistical stage's share of α and the random streams (:class:`AuditPlan`).  Computed by
:func:`~privaudit.auditing.plan.plan_audit`; the shares' values are explained in
``docs/derivations.md`` §8."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from privaudit.spec import SpecModel

__all__ = [
    "ACCURACY_SHARE",
    "CONFORMANCE_SHARE",
    "LOCALITY_SHARE",
    "RANKED_LAW_SHARE",
    "SPIKE_SHARE",
    "STREAMS",
    "AuditPlan",
    "Claim",
    "Ranking",
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
#: pairs it ranks (:mod:`privaudit.auditing.choice.ranked_law`), for gray-box rankings.
RANKED_LAW_SHARE = 0.1
#: Share of α spent on the spec's accuracy claim when it is tested
#: (:mod:`privaudit.auditing.checks.accuracy`).
ACCURACY_SHARE = 0.05
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
    "accuracy",
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
    accuracy : bool
        The spec's accuracy claim is tested on samples (a claim against f(x) and the
        ``statistic`` hook).
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
    accuracy: bool = False
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
