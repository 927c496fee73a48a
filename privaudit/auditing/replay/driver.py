"""Grey-box replay of a pipeline that calls DP primitives (:func:`replay`): record its
calls on one input, replay them on the relation's neighbours with the noise frozen, and
check each call's declared sensitivity against the distance actually measured (Cebere,
Erb, Desfontaines, Bellet & Fitzsimons, 2026).  Every failure is a deterministic
counterexample; no failure means the end-to-end claim is the composition of the
primitives' declared guarantees on the inputs replayed (``docs/replay.md``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from privaudit.auditing.config import AuditConfig
from privaudit.auditing.pairs import to_jsonable
from privaudit.auditing.replay.recorder import (
    NoiseRecorder,
    PrimitiveCall,
    ReplayDivergence,
    norm_distance,
)
from privaudit.auditing.replay.result import (
    IsolatedAudit,
    RecordedCall,
    ReplayFinding,
    ReplayReport,
)
from privaudit.spec import RandomLike, as_generator, check_delta
from privaudit.spec.errors import AuditError, InvalidParameterError, PrivauditError

__all__ = ["Isolate", "replay"]

Pipeline = Callable[[Any, NoiseRecorder], Any]

#: Relative slack of the sensitivity comparison (floating-point sums of equal terms).
SENSITIVITY_SLACK = 1e-9


def _neighbours(
    x: Any,
    domain: Any,
    relation: Any,
    explicit: Sequence[Any],
    extreme: int | None,
    random: int,
    gen: Any,
) -> list[tuple[Any, str]]:
    """The neighbours replayed: explicit ones, the relation's extreme moves (the first
    ``extreme`` of them, all when ``None``), then random ones."""
    found: list[tuple[Any, str]] = [(domain.validate(y), "explicit") for y in explicit]
    moves = itertools.islice(relation.extreme_neighbours(x, domain), extreme)
    found += [(y, "extreme") for y in moves]
    found += [(relation.random_neighbour(x, domain, gen), "random") for _ in range(random)]
    return found


def _same(a: Any, b: Any) -> bool:
    """Whether two releases are identical, NaN equal to NaN (arrays, scalars, mappings and
    sequences of them)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b, strict=True))
    try:
        left, right = np.asarray(a), np.asarray(b)
        if left.dtype.kind in "fc" or right.dtype.kind in "fc":
            return left.shape == right.shape and bool(np.array_equal(left, right, equal_nan=True))
        return bool(np.array_equal(left, right))
    except (TypeError, ValueError):  # pragma: no cover - exotic release types
        return bool(a == b)


def _run(pipeline: Pipeline, data: Any, recorder: NoiseRecorder) -> Any:
    try:
        return pipeline(data, recorder)
    except ReplayDivergence:
        raise
    except PrivauditError:
        raise
    except Exception as err:  # the user's pipeline failed: say where, keep the cause
        raise AuditError(
            f"the pipeline raised {type(err).__name__} on {to_jsonable(data)!r}: {err}"
        ) from err


def _check_neighbour(
    pipeline: Pipeline,
    record: NoiseRecorder,
    released: Any,
    x: Any,
    y: Any,
    move: str,
    largest: list[float],
    worst: list[Any],
) -> list[ReplayFinding]:
    """Every check of one neighbour ``y`` (module docstring); updates ``largest``."""
    base = {"x": to_jsonable(x), "y": to_jsonable(y), "move": move}
    tape = record.calls
    replayed = record.replaying("replay")
    try:
        _run(pipeline, y, replayed)
    except ReplayDivergence as gap:
        return [
            ReplayFinding(check=gap.check, message=str(gap), index=gap.index, site=gap.site, **base)
        ]
    found: list[ReplayFinding] = []
    if len(replayed.calls) < len(tape):
        missing = tape[len(replayed.calls)]
        found.append(
            ReplayFinding(
                check="control_flow",
                message=f"the neighbour made {len(replayed.calls)} primitive calls, the "
                f"recorded input {len(tape)}: call {missing.index} ({missing.kind}) at "
                f"{missing.site} was skipped",
                index=missing.index,
                site=missing.site,
                **base,
            )
        )
    if replayed.rng.log != record.rng.log:
        found.append(
            ReplayFinding(
                check="free_randomness",
                message=f"randomness drawn outside the primitives depends on the data: "
                f"{len(record.rng.log)} draws on x, {len(replayed.rng.log)} on y "
                f"(first difference: {_first_difference(record.rng.log, replayed.rng.log)})",
                **base,
            )
        )
    for old, new in zip(tape, replayed.calls, strict=False):
        measured = norm_distance(old.value, new.value, old.norm)
        if (measured if math.isfinite(measured) else math.inf) > largest[old.index]:
            largest[old.index] = measured if math.isfinite(measured) else math.inf
            worst[old.index] = new.value
        if not math.isfinite(measured) or measured > old.sensitivity * (1 + SENSITIVITY_SLACK):
            what = (
                "is not finite (NaN or ±∞ reached the primitive): it exceeds"
                if not math.isfinite(measured)
                else f"= {measured:.6g} exceeds"
            )
            found.append(
                ReplayFinding(
                    check="sensitivity",
                    message=f"{old.kind} call {old.index} at {old.site}: ‖input(x) − input(y)‖"
                    f"_{old.norm[1:]} {what} the declared sensitivity {old.sensitivity:g}",
                    index=old.index,
                    site=old.site,
                    declared=old.sensitivity,
                    measured=measured if math.isfinite(measured) else None,
                    **base,
                )
            )
    if not found:
        frozen = _run(pipeline, y, record.replaying("frozen"))
        if not _same(frozen, released):
            found.append(
                ReplayFinding(
                    check="unprotected_release",
                    message="with every primitive returning its recorded output, the "
                    "release on y differs from the release on x: data reaches the "
                    "release without passing through a primitive",
                    **base,
                )
            )
    return found


def _first_difference(a: list[Any], b: list[Any]) -> str:
    for i, (u, v) in enumerate(zip(a, b, strict=False)):
        if u != v:
            return f"draw {i}: {u[0]}{list(u[1])} vs {v[0]}{list(v[1])}"
    i = min(len(a), len(b))
    return f"draw {i} is made on one input only"


def _non_finite(tape: Sequence[PrimitiveCall], x: Any) -> list[ReplayFinding]:
    return [
        ReplayFinding(
            check="non_finite_input",
            message=f"{c.kind} call {c.index} at {c.site} received a non-finite value on the "
            "recorded input: NaN or ±∞ passes through the noise and reveals the record",
            x=to_jsonable(x),
            y=to_jsonable(x),
            move="recorded input",
            index=c.index,
            site=c.site,
        )
        for c in tape
        if not np.all(np.isfinite(c.value))
    ]


def _composed(tape: Sequence[PrimitiveCall], delta: float | None) -> tuple[float, float]:
    """ε at δ of the composition of the calls' declared guarantees: exact in closed form
    for pure DP (ε adds up) and for Gaussian DP (μ = √Σμᵢ², Dong, Roth & Su, JRSS-B 2022,
    Corollary 3.3), else the PLD accountant's."""
    from privaudit.mechanisms.accounting import PLDAccountant
    from privaudit.spec import GaussianDP, PureDP

    pure = all(isinstance(c.guarantee, PureDP) for c in tape)
    d = (0.0 if pure else 1e-6) if delta is None else check_delta(delta)
    if pure and d == 0.0:
        return float(sum(c.guarantee.epsilon for c in tape)), 0.0
    if all(isinstance(c.guarantee, GaussianDP) for c in tape) and d > 0.0:
        mu = math.sqrt(sum(c.guarantee.mu**2 for c in tape))
        return float(GaussianDP(mu=mu).epsilon_for_delta(d)), d
    accountant: Any = PLDAccountant()
    for c in tape:
        accountant = accountant.compose(c.guarantee)
    return float(accountant.epsilon(d)), d


Isolate = Callable[[PrimitiveCall, Any, AuditConfig], IsolatedAudit]


def _isolate(
    tape: Sequence[PrimitiveCall],
    worst: list[Any],
    config: AuditConfig | None,
    isolate: Isolate | None,
    gen: Any,
) -> tuple[IsolatedAudit, ...]:
    """The isolation audits of the untrusted calls (``isolate``: the audit floor's
    :func:`~privaudit.auditing.replay_audit.audit_primitive`)."""
    untrusted = [c for c in tape if not c.trusted]
    if not untrusted or isolate is None:
        return ()
    base = config if config is not None else AuditConfig(seed=int(gen.integers(2**31)))
    return tuple(isolate(c, worst[c.index], base) for c in untrusted)


def _refuted_in_isolation(isolated: Sequence[IsolatedAudit], x: Any) -> list[ReplayFinding]:
    """A finding for every untrusted call whose isolation audit refuted its guarantee."""
    return [
        ReplayFinding(
            check="untrusted_primitive",
            message=f"the untrusted {a.kind} call {a.index} at {a.site}, audited in "
            f"isolation on its recorded input, refutes its declared guarantee: ε ≥ "
            f"{a.epsilon_lower_bound:.4g} at confidence {a.confidence:g}",
            x=to_jsonable(x),
            y=to_jsonable(x),
            move="isolation",
            index=a.index,
            site=a.site,
            measured=float(a.epsilon_lower_bound),
        )
        for a in isolated
        if a.verdict == "violation"
    ]


def _report(
    pipeline: Pipeline,
    tape: Sequence[PrimitiveCall],
    largest: Sequence[float],
    neighbours: int,
    findings: Sequence[ReplayFinding],
    isolated: tuple[IsolatedAudit, ...],
    delta: float | None,
) -> ReplayReport:
    """The report: the calls as recorded, the findings, or the composed claim."""
    calls = tuple(
        RecordedCall(
            index=c.index,
            kind=c.kind,
            parameters=dict(c.parameters),
            sensitivity=c.sensitivity,
            norm=c.norm,
            guarantee=repr(c.guarantee),
            site=c.site,
            largest_distance=largest[c.index],
            trusted=c.trusted,
        )
        for c in tape
    )
    name = getattr(pipeline, "__qualname__", repr(pipeline))
    if findings:
        first = findings[0]
        return ReplayReport(
            pipeline=name,
            calls=calls,
            neighbours=neighbours,
            findings=tuple(findings),
            isolated=isolated,
            statement=f"VIOLATION: {first.check}: {first.message}",
        )
    eps, d = _composed(tape, delta)
    untrusted = ", ".join(str(c.index) for c in tape if not c.trusted)
    empirical = (
        f"; the untrusted calls ({untrusted}) enter with their declared guarantees audited "
        "empirically (not refuted in isolation), not proven"
        if isolated
        else f"; the untrusted calls ({untrusted}) enter with their declared guarantees, "
        "not audited in isolation here"
        if untrusted
        else ""
    )
    return ReplayReport(
        pipeline=name,
        calls=calls,
        neighbours=neighbours,
        findings=(),
        epsilon=eps,
        delta=d,
        isolated=isolated,
        statement=(
            f"no failure on {neighbours} neighbours: every one of the {len(tape)} primitive "
            f"calls stayed within its declared sensitivity, the control flow and the free "
            f"randomness did not depend on the data, and nothing reached the release "
            f"outside a primitive; composed claim ε = {eps:.6g} at δ = {d:g} on the inputs "
            f"replayed{empirical}"
        ),
    )


def replay(
    pipeline: Pipeline,
    data: Any,
    *,
    domain: Any,
    relation: Any,
    neighbours: Iterable[Any] = (),
    extreme_neighbours: int | None = None,
    random_neighbours: int = 16,
    delta: float | None = None,
    isolation_config: AuditConfig | None = None,
    isolate: Isolate | None = None,
    rng: RandomLike = 0,
) -> ReplayReport:
    """Replay ``pipeline`` on the neighbours of ``data`` with its noise frozen.

    Parameters
    ----------
    pipeline : callable
        ``pipeline(data, noise)``: adds noise only through ``noise.laplace``,
        ``noise.gaussian`` or ``noise.primitive`` and draws any other randomness from
        ``noise.rng``.
    data : the recorded input (validated by ``domain``).
    domain, relation : the input domain and the neighbouring relation (spec objects).
    neighbours : iterable, optional
        Neighbours of ``data`` to replay first.
    extreme_neighbours : int, optional
        How many of the relation's extreme moves to replay (all by default; a dataset of
        n records has about n × its record extremes).
    random_neighbours : int
        Random neighbours replayed after the relation's extreme moves.
    delta : float, optional
        The δ of the composed claim (default 0 when every primitive is pure, else 10⁻⁶).
    isolation_config : AuditConfig, optional
        The statistical audit of each primitive marked ``trusted=False``, run in isolation
        when every deterministic check passes (default ``AuditConfig()`` seeded from
        ``rng``).
    isolate : callable, optional
        The isolation audit (:func:`privaudit.replay` passes the auditor's); without it
        untrusted calls are not audited and the statement says so.
    rng : Generator, int or None
        Source of the recorded noise, the random neighbours and the isolation audits' seeds.

    Returns
    -------
    ReplayReport

    Raises
    ------
    InvalidParameterError
        If ``random_neighbours`` is negative or the pipeline calls no primitive.
    AuditError
        If the pipeline raises.
    """
    for name, count in (
        ("random_neighbours", random_neighbours),
        ("extreme_neighbours", extreme_neighbours),
    ):
        if count is None and name == "extreme_neighbours":
            continue
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise InvalidParameterError(f"{name} must be an integer >= 0, got {count!r}")
    gen = as_generator(rng)
    x = domain.validate(data)
    record = NoiseRecorder(gen)
    released = _run(pipeline, x, record)
    tape = record.calls
    if not tape:
        raise InvalidParameterError(
            "the pipeline called no primitive of its noise recorder: nothing to replay"
        )
    findings = _non_finite(tape, x)
    largest = [0.0] * len(tape)
    worst: list[Any] = [None] * len(tape)
    moves = _neighbours(
        x,
        domain,
        relation,
        list(neighbours),
        None if extreme_neighbours is None else int(extreme_neighbours),
        int(random_neighbours),
        gen,
    )
    for y, move in moves:
        findings += _check_neighbour(pipeline, record, released, x, y, move, largest, worst)
    isolated: tuple[IsolatedAudit, ...] = ()
    if not findings:
        isolated = _isolate(tape, worst, isolation_config, isolate, gen)
        findings += _refuted_in_isolation(isolated, x)
    return _report(pipeline, tape, largest, len(moves), findings, isolated, delta)
