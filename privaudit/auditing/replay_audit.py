"""Grey-box replay as the user calls it (:func:`replay`, ``privaudit.replay``): the engine
room's replay (:mod:`~privaudit.auditing.replay.driver`) with every untrusted primitive
audited statistically in isolation (:func:`audit_primitive`): its recorded noise source,
applied to its recorded input and to that input moved by the declared sensitivity, is
audited as a mechanism of its own against the guarantee it declares (Cebere et al., 2026,
"untrusted components"; ``docs/replay.md``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import numpy as np

from privaudit.auditing.auditor import audit
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.replay.driver import replay as replay_pipeline
from privaudit.auditing.replay.recorder import PrimitiveCall
from privaudit.auditing.replay.result import IsolatedAudit, ReplayReport
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (
    GlobalSensitivity,
    MechanismSpec,
    QueryDistance,
    RandomLike,
    RealInterval,
    VectorDomain,
)
from privaudit.spec.errors import InvalidParameterError

__all__ = ["audit_primitive", "isolation_pairs", "replay"]


def isolation_pairs(call: PrimitiveCall, worst: np.ndarray | None) -> list[tuple[Any, Any]]:
    """The pairs audited: the recorded input against it moved by the declared sensitivity
    along the first coordinate, and against the neighbour's input that moved it most."""
    x = np.asarray(call.value, dtype=np.float64)
    moved = x.copy().reshape(-1)
    moved[0] += call.sensitivity
    pairs = [(x, moved.reshape(x.shape))]
    if worst is not None and not np.array_equal(worst, x):
        pairs.append((x, np.asarray(worst, dtype=np.float64)))
    return pairs


def audit_primitive(
    call: PrimitiveCall, worst: np.ndarray | None, config: AuditConfig
) -> IsolatedAudit:
    """Audit one untrusted primitive call in isolation; see the module docstring.

    The mechanism audited is v ↦ v + noise, v in ℝ (or ℝᵈ), neighbours within the
    declared sensitivity in the declared norm, claiming the declared guarantee.
    """

    if call.draw is None:  # pragma: no cover - trusted calls keep no noise source
        raise InvalidParameterError(f"call {call.index} ({call.kind}) is trusted: nothing to audit")
    draw, shape = call.draw, np.shape(call.value)
    domain: Any = (
        RealInterval()
        if shape == ()
        else VectorDomain(element=RealInterval(), length=int(np.prod(shape)))
    )
    spec = MechanismSpec(
        name=f"replay.untrusted.{call.kind}",
        summary=f"the untrusted primitive {call.kind!r} called at {call.site}, in isolation",
        input_domain=domain,
        relation=QueryDistance(norm=cast(Any, call.norm), radius=call.sensitivity),
        statistic="the primitive's input",
        sensitivity=(GlobalSensitivity(value=call.sensitivity, norm=cast(Any, call.norm)),),
        guarantee=call.guarantee,
    )

    def sampler(v: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        values = np.asarray(v, dtype=np.float64).reshape(-1)
        drawn = np.asarray(draw(rng, (size, *values.shape)), dtype=np.float64)
        out = values + drawn.reshape(size, values.size)
        return out[:, 0] if shape == () else out

    mechanism = declare_mechanism(spec, sampler=sampler, statistic=lambda v: v)
    pairs = [
        (float(a.reshape(())), float(b.reshape(())))
        if shape == ()
        else (a.reshape(-1), b.reshape(-1))
        for a, b in isolation_pairs(call, worst)
    ]
    report = audit(mechanism, config=config, pairs=pairs)
    return IsolatedAudit(
        index=call.index,
        kind=call.kind,
        site=call.site,
        verdict=report.verdict,
        epsilon_lower_bound=report.epsilon_lower_bound,
        samples=report.samples,
        confidence=report.confidence,
    )


def replay(
    pipeline: Any,
    data: Any,
    *,
    domain: Any,
    relation: Any,
    neighbours: Iterable[Any] = (),
    extreme_neighbours: int | None = None,
    random_neighbours: int = 16,
    delta: float | None = None,
    isolation_config: AuditConfig | None = None,
    rng: RandomLike = 0,
) -> ReplayReport:
    """Replay ``pipeline`` on the neighbours of ``data`` with its noise frozen, and audit
    every primitive marked ``trusted=False`` in isolation (:func:`audit_primitive`).

    The parameters, the result and the errors are those of
    :func:`privaudit.auditing.replay.driver.replay`.
    """
    return replay_pipeline(
        pipeline,
        data,
        domain=domain,
        relation=relation,
        neighbours=neighbours,
        extreme_neighbours=extreme_neighbours,
        random_neighbours=random_neighbours,
        delta=delta,
        isolation_config=isolation_config,
        isolate=audit_primitive,
        rng=rng,
    )
