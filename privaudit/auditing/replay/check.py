"""The replay check of :func:`~privaudit.auditing.auditor.audit` (:func:`check_replay`): a
mechanism that exposes its primitives (the ``pipeline`` hook) is replayed on the audit's
candidate pairs, and the result becomes one deterministic check (``docs/replay.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from privaudit.auditing.outcome.results import CheckOutcome, Counterexample
from privaudit.auditing.pairs import to_jsonable
from privaudit.auditing.replay.driver import replay
from privaudit.auditing.replay.result import ReplayReport
from privaudit.mechanisms import Mechanism
from privaudit.spec.errors import PrivauditError

__all__ = [
    "REPLAY_EXTREME_NEIGHBOURS",
    "REPLAY_INPUTS",
    "REPLAY_RANDOM_NEIGHBOURS",
    "check_replay",
]

#: Recorded inputs replayed: the first distinct ``x`` of this many candidate pairs.
REPLAY_INPUTS = 4
#: Extreme neighbours (the relation's own moves) replayed per recorded input, at most.
REPLAY_EXTREME_NEIGHBOURS = 64
#: Random neighbours replayed per recorded input, after the pairs' own and the extremes.
REPLAY_RANDOM_NEIGHBOURS = 8


def _distinct_inputs(candidates: Sequence[Any]) -> list[tuple[Any, list[Any]]]:
    """Up to :data:`REPLAY_INPUTS` distinct ``x`` of the candidate pairs, each with its ``y``."""
    grouped: dict[str, tuple[Any, list[Any]]] = {}
    for pair in candidates:
        key = repr(to_jsonable(pair.x))
        if key not in grouped:
            if len(grouped) == REPLAY_INPUTS:
                continue
            grouped[key] = (pair.x, [])
        grouped[key][1].append(pair.y)
    return list(grouped.values())


def check_replay(
    mechanism: Mechanism, candidates: Sequence[Any], seed: int | None
) -> CheckOutcome | None:
    """Replay ``mechanism.pipeline`` on the candidate pairs' inputs and neighbours.

    Returns ``None`` when the mechanism exposes no primitives; otherwise ``"violated"``
    with the first finding as counterexample, ``"passed"``, or ``"skipped"`` with the
    reason when the pipeline cannot be replayed.  Deterministic: no α is spent.
    """
    if not mechanism.provides("pipeline") or not candidates:
        return None
    spec = mechanism.spec
    reports: list[ReplayReport] = []
    streams = np.random.SeedSequence(0 if seed is None else seed).spawn(REPLAY_INPUTS)
    try:
        for (x, ys), stream in zip(_distinct_inputs(candidates), streams, strict=False):
            reports.append(
                replay(
                    mechanism.pipeline,
                    x,
                    domain=spec.input_domain,
                    relation=spec.relation,
                    neighbours=ys,
                    extreme_neighbours=REPLAY_EXTREME_NEIGHBOURS,
                    random_neighbours=REPLAY_RANDOM_NEIGHBOURS,
                    rng=np.random.default_rng(stream),
                )
            )
    except NotImplementedError as why:
        return CheckOutcome(name="replay", status="skipped", summary=f"not replayed: {why}")
    except PrivauditError as why:
        return CheckOutcome(
            name="replay", status="skipped", summary=f"not replayed: {type(why).__name__}: {why}"
        )
    neighbours = sum(r.neighbours for r in reports)
    calls = sum(len(r.calls) for r in reports)
    failed = next((r for r in reports if r.violated), None)
    if failed is None or failed.first is None:
        return CheckOutcome(
            name="replay",
            status="passed",
            summary=f"replayed on {len(reports)} inputs and {neighbours} neighbours with the "
            f"noise frozen: {calls} primitive calls within their declared sensitivity, no "
            "data-dependent control flow, parameters or free randomness, nothing released "
            "outside a primitive",
            details={"inputs": len(reports), "neighbours": neighbours},
        )
    first = failed.first
    return CheckOutcome(
        name="replay",
        status="violated",
        summary=f"replay: {first.check}: {first.message}",
        statistic=first.measured,
        threshold=first.declared,
        ratio=(
            first.measured / first.declared
            if first.measured is not None and first.declared
            else None
        ),
        counterexample=Counterexample(
            x=first.x,
            y=first.y,
            origin=f"replay ({first.move})",
            relation_reason=first.check,
            values={"site": first.site, "call": first.index, "message": first.message},
        ),
        details={
            "inputs": len(reports),
            "neighbours": neighbours,
            "findings": len(failed.findings),
        },
    )
