"""Exact audits of local randomizers with finitely many outputs (no sampling).

When a spec declares a finite output law (:class:`~spec.FiniteRandomizer`,
:class:`~spec.RandomizedResponse`) and the mechanism exposes
:meth:`~mechanisms.Mechanism.output_probabilities`, privacy is a computation: the exact ε
and privacy profile δ(ε) of a pair, on every neighbouring pair of a small finite domain
(``coverage = "all_pairs"``, at most :data:`EXACT_MAX_INPUTS` inputs) or on the searched
pairs (``"searched_pairs"``, a lower bound on the mechanism's ε).  The computation trusts
the hook; the noise-law check tests the sampler against it.

Details: ``docs/engine_notes.md``, "privaudit.auditing.exact.privacy".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from privaudit.auditing.outcome.exact_result import TOLERANCE, ExactAuditResult, ExactProfilePoint
from privaudit.auditing.outcome.results import CheckOutcome, Counterexample
from privaudit.auditing.outcome.texts import format_epsilon
from privaudit.auditing.pairs import CandidatePair, from_jsonable_input, input_key, to_jsonable
from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    FiniteRandomizer,
    LocalRelation,
    MechanismSpec,
    RandomizedResponse,
)
from privaudit.spec.domains import IntegerRange, RealInterval
from privaudit.spec.errors import AuditError, PrivauditError
from privaudit.statistics import claimed_point

__all__ = [
    "EXACT_MAX_INPUTS",
    "ExactAuditResult",
    "ExactProfilePoint",
    "conformance_refutation",
    "exact_audit_applies",
    "exact_check",
    "exact_privacy",
    "hockey_stick",
    "refutation_check",
    "sampling_refutation",
    "set_aside_law_figures",
    "set_aside_refuted",
]

#: Finite domains up to this size are enumerated in full (every pair examined).
EXACT_MAX_INPUTS = 2048
#: Grid points added for bounded scalar domains that are not enumerated.
GRID_POINTS = 1025
#: Pairs whose privacy profile is computed when not every pair can be (largest ε first);
#: the profile is then labelled a lower bound over those pairs (``profile_coverage``).
PROFILE_PAIRS = 32
#: Largest (ordered pairs × output letters × grid points) of a profile over every pair.
PROFILE_ALL_PAIRS_WORK = 200_000_000
#: Largest number of ordered pairs of product laws whose profile is computed over every pair
#: (each costs a convolution of per-coordinate privacy-loss laws, about 5 ms at 16 bits).
PROFILE_ALL_PRODUCT_PAIRS = 1024
#: Largest support of a convolved privacy-loss law (product laws).
MAX_LOSS_SUPPORT = 200_000
#: Multiples of the claimed ε at which the exact profile is reported.
PROFILE_MULTIPLES = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


def exact_audit_applies(mechanism: Mechanism) -> bool:
    """True when the spec declares a finite output law and the mechanism exposes it."""
    noise = mechanism.spec.noise
    if not isinstance(noise, (FiniteRandomizer, RandomizedResponse)):
        return False
    if isinstance(noise, FiniteRandomizer) and not noise.law.independent:
        return False  # the hook's rows are marginals only: no exact product law
    try:
        return bool(mechanism.provides("output_probabilities"))
    except PrivauditError:
        return False


def _law_shape(spec: MechanismSpec) -> tuple[int, int]:
    noise = spec.noise
    if isinstance(noise, FiniteRandomizer):
        return int(noise.law.length), int(noise.law.alphabet)
    if isinstance(noise, RandomizedResponse):
        return 1, int(noise.law.categories)
    raise AuditError(f"{spec.name!r} declares no finite output law")


def _probabilities(mechanism: Mechanism, x: Any, shape: tuple[int, int]) -> np.ndarray:
    """The hook's (L, A) table on ``x``, validated as a product of probability laws."""
    p = np.asarray(mechanism.output_probabilities(x), dtype=np.float64)
    if p.ndim == 1 and shape[0] == 1:
        p = p[None, :]
    if p.shape != shape:
        raise AuditError(
            f"output_probabilities of {mechanism.name!r} returned shape {p.shape}; "
            f"the spec declares {shape} (coordinates, alphabet)"
        )
    if not np.isfinite(p).all() or (p < 0).any():
        raise AuditError(
            f"output_probabilities of {mechanism.name!r} returned a value outside "
            f"[0, 1] on x = {to_jsonable(x)!r}"
        )
    noise = mechanism.spec.noise
    if isinstance(noise, FiniteRandomizer) and noise.law.alphabets is not None:
        sizes = np.asarray(noise.law.coordinate_alphabets)
        beyond = np.arange(shape[1])[None, :] >= sizes[:, None]
        if (p[beyond] != 0).any():
            raise AuditError(
                f"output_probabilities of {mechanism.name!r} gives mass to symbols "
                f"beyond a coordinate's declared alphabet {list(sizes)} on "
                f"x = {to_jsonable(x)!r}"
            )
    sums = p.sum(axis=1)
    if np.abs(sums - 1.0).max() > 1e-9:
        raise AuditError(
            f"output_probabilities of {mechanism.name!r} on x = {to_jsonable(x)!r} "
            f"do not sum to 1 (coordinate sums {sums.tolist()[:4]})"
        )
    return p


# ----------------------------------------------------------------------------------------
# exact ε and δ(ε) of one pair
# ----------------------------------------------------------------------------------------
def _log(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(p)


def _pair_epsilons(lp_x: np.ndarray, lp_ys: np.ndarray) -> np.ndarray:
    """ε(x → y) = Σ_c max_{o: P_c(o|x) > 0} ln P_c(o|x) − ln P_c(o|y), for many y at once.

    ``lp_x`` has shape (L, A); ``lp_ys`` shape (m, L, A).  Returns shape (m,).
    """
    with np.errstate(invalid="ignore"):
        diff = np.where(np.isfinite(lp_x)[None], lp_x[None] - lp_ys, -np.inf)
    return diff.max(axis=2).sum(axis=1)


def hockey_stick(p: np.ndarray, q: np.ndarray, epsilons: Sequence[float]) -> np.ndarray:
    """Exact δ(ε) = Σ_o (P(o) − e^ε Q(o))₊ of one ordered pair, at each ε.

    ``p``, ``q`` are (L, A) product laws.  For L = 1 this is the direct sum; for L > 1 the
    exact privacy-loss distribution is built by convolution (losses merged when equal to
    12 significant digits) and δ(ε) = E_P[(1 − e^{ε − loss})₊].

    Raises
    ------
    AuditError
        If the convolved loss law would exceed :data:`MAX_LOSS_SUPPORT` values.
    """
    eps = np.asarray(epsilons, dtype=np.float64)
    if p.shape[0] == 1:
        with np.errstate(over="ignore"):
            gaps = p[0][None, :] - np.exp(eps)[:, None] * q[0][None, :]
        return np.clip(gaps, 0.0, None).sum(axis=1)
    losses, masses = np.zeros(1), np.ones(1)
    for c in range(p.shape[0]):
        support = p[c] > 0
        with np.errstate(divide="ignore"):
            loss_c = np.where(
                q[c][support] > 0, np.log(p[c][support]) - _log(q[c][support]), np.inf
            )
        loss_c, mass_c = _merge(loss_c, p[c][support])
        if losses.size * loss_c.size > MAX_LOSS_SUPPORT * 8:
            raise AuditError(
                "the privacy-loss law of this product is too large to convolve "
                f"exactly ({losses.size} × {loss_c.size} values)"
            )
        losses, masses = _merge(
            (losses[:, None] + loss_c[None, :]).ravel(), (masses[:, None] * mass_c[None, :]).ravel()
        )
        if losses.size > MAX_LOSS_SUPPORT:
            raise AuditError(
                f"the privacy-loss law has {losses.size} support points, more "
                f"than {MAX_LOSS_SUPPORT}"
            )
    finite = np.isfinite(losses)
    out = np.empty(eps.size)
    for i, e in enumerate(eps):
        with np.errstate(over="ignore"):
            part = masses[finite] * np.clip(1.0 - np.exp(e - losses[finite]), 0.0, None)
        out[i] = part.sum() + masses[~finite].sum()
    return out


def _merge(losses: np.ndarray, masses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Aggregate the masses of equal losses (equal to 12 significant digits)."""
    finite = np.isfinite(losses)
    keys = np.where(finite, np.round(losses, 12), np.inf)
    uniq, inverse = np.unique(keys, return_inverse=True)
    return uniq, np.bincount(inverse.ravel(), weights=masses, minlength=uniq.size)


# ----------------------------------------------------------------------------------------
# inputs and pairs
# ----------------------------------------------------------------------------------------
def _inputs_and_pairs(
    spec: MechanismSpec, candidates: Sequence[CandidatePair], max_inputs: int
) -> tuple[list[Any], list[tuple[int, int]] | None, Literal["all_pairs", "searched_pairs"]]:
    """Inputs, index pairs (``None``: all pairs, local relation) and the coverage."""
    domain, relation = spec.input_domain, spec.relation
    local = isinstance(relation, LocalRelation)
    enumerated: list[Any] | None = None
    if domain.is_finite and domain.cardinality <= max_inputs:
        enumerated = [domain.validate(v) for v in domain.enumerate()]
    if enumerated is not None:
        if local:
            return enumerated, None, "all_pairs"
        index = {input_key(v): i for i, v in enumerate(enumerated)}
        try:
            pairs = sorted(
                {
                    (i, index[input_key(y)])
                    for i, x in enumerate(enumerated)
                    for y in relation.neighbours(x, domain)
                }
            )
            return enumerated, pairs, "all_pairs"
        except (PrivauditError, NotImplementedError, KeyError):
            pass
    inputs: list[Any] = []
    seen: dict[str, int] = {}

    def add(value: Any) -> int:
        k = input_key(value)
        if k not in seen:
            seen[k] = len(inputs)
            inputs.append(value)
        return seen[k]

    cand_pairs = [(add(p.x), add(p.y)) for p in candidates]
    if (
        local
        and isinstance(domain, (RealInterval, IntegerRange))
        and domain.lo is not None
        and domain.hi is not None
    ):
        grid = np.linspace(float(domain.lo), float(domain.hi), GRID_POINTS)
        if isinstance(domain, IntegerRange):
            grid = np.unique(np.round(grid).astype(np.int64))
        for v in grid:
            add(domain.validate(v))
    if not inputs:
        raise AuditError(f"no inputs to examine for {spec.name!r}: give candidate pairs")
    return inputs, (None if local else sorted(set(cand_pairs))), "searched_pairs"


def _ordered_pair_epsilons(
    probs: np.ndarray, logs: np.ndarray, pairs: list[tuple[int, int]] | None, n_inputs: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """ε of every ordered pair examined: (first indices, second indices, their ε, the number
    of pairs examined, the number of distinct laws).  ``pairs`` ``None``: every pair of
    distinct laws (local relation)."""
    if pairs is None:  # local relation: every pair of distinct laws
        flat = probs.reshape(n_inputs, -1)
        _, first = np.unique(flat, axis=0, return_index=True)
        rows = np.sort(np.asarray(first))
        eps_matrix = np.empty((rows.size, rows.size))
        for a, i in enumerate(rows):
            eps_matrix[a] = _pair_epsilons(logs[i], logs[rows])
        off = ~np.eye(rows.size, dtype=bool)
        aa, bb = np.nonzero(off)
        ii, jj, pair_eps = rows[aa], rows[bb], eps_matrix[off]
        n_pairs = n_inputs * (n_inputs - 1) // 2
        distinct = int(rows.size)
    else:
        ordered = sorted({(i, j) for i, j in pairs} | {(j, i) for i, j in pairs})
        ordered = [(i, j) for i, j in ordered if i != j]
        ii = np.array([i for i, _ in ordered], dtype=np.int64)
        jj = np.array([j for _, j in ordered], dtype=np.int64)
        pair_eps = np.array([float(_pair_epsilons(logs[i], logs[j][None])[0]) for i, j in ordered])
        n_pairs = len(pairs)
        distinct = n_inputs
    return ii, jj, pair_eps, n_pairs, distinct


def _profile_pairs(
    probs: np.ndarray,
    ii: np.ndarray,
    jj: np.ndarray,
    pair_eps: np.ndarray,
    eps_claimed: float,
    eps_exact: float,
    coverage: Literal["all_pairs", "searched_pairs"],
) -> tuple[
    list[float],
    np.ndarray,
    np.ndarray,
    Literal["all_pairs", "searched_pairs", "largest_epsilon_pairs"],
]:
    """The ε grid of the δ(ε) profile, the ordered pairs it is computed over (all of them,
    or the :data:`PROFILE_PAIRS` of largest ε when all would cost too much) and its
    coverage."""
    grid = sorted(
        {m * eps_claimed for m in PROFILE_MULTIPLES}
        | ({eps_exact} if math.isfinite(eps_exact) else set())
    )
    budget_all = (
        ii.size * probs.shape[2] * len(grid) <= PROFILE_ALL_PAIRS_WORK
        if probs.shape[1] == 1
        else ii.size <= PROFILE_ALL_PRODUCT_PAIRS
    ) or ii.size <= PROFILE_PAIRS
    profile_coverage = coverage if budget_all else "largest_epsilon_pairs"
    if not budget_all:
        keep = np.argsort(-pair_eps, kind="stable")[:PROFILE_PAIRS]
        ii, jj = ii[keep], jj[keep]
    return grid, ii, jj, profile_coverage


def _exact_deltas(
    probs: np.ndarray, ii: np.ndarray, jj: np.ndarray, grid: list[float]
) -> tuple[np.ndarray, str, bool]:
    """The largest exact δ(ε) over the ordered pairs (ii, jj) at each ε of ``grid``, the
    note when it could not be computed, and whether it was."""
    delta_exact = np.zeros(len(grid))
    note = ""
    computed = ii.size > 0
    try:
        if computed and probs.shape[1] == 1:
            for start in range(0, ii.size, 2048):
                sl = slice(start, start + 2048)
                p, q = probs[ii[sl], 0], probs[jj[sl], 0]  # (m, A)
                with np.errstate(over="ignore"):
                    gaps = p[:, None, :] - np.exp(np.asarray(grid))[None, :, None] * q[:, None, :]
                delta_exact = np.maximum(
                    delta_exact, np.clip(gaps, 0, None).sum(axis=2).max(axis=0)
                )
        else:
            for i, j in zip(ii, jj, strict=True):
                delta_exact = np.maximum(delta_exact, hockey_stick(probs[i], probs[j], grid))
    except AuditError as exc:
        note = f"profile not computed: {exc}"
        computed = False
    return delta_exact, note, computed


def _statement(
    *,
    eps_exact: float,
    eps_claimed: float,
    delta_at_claim: float,
    coverage: Literal["all_pairs", "searched_pairs"],
    profile_coverage: Literal["all_pairs", "searched_pairs", "largest_epsilon_pairs"],
    n_inputs: int,
    n_pairs: int,
    distinct: int,
    profile_pairs: int,
    law_epsilon: float,
    law_violation: bool,
) -> str:
    """The one-paragraph statement of an exact audit."""
    where = (
        "every neighbouring pair of the "
        if coverage == "all_pairs"
        else "the searched pairs among the "
    )
    statement = (
        f"EXACT (no sampling): epsilon = {format_epsilon(eps_exact, 6)} from the "
        f"declared output probabilities over {where}{n_inputs} inputs "
        f"({n_pairs} pairs, {distinct} distinct laws); "
        + (
            f"delta({eps_claimed:.4g}) = {delta_at_claim:.3g}"
            if profile_coverage != "largest_epsilon_pairs"
            else f"delta({eps_claimed:.4g}) >= {delta_at_claim:.3g} (over the {profile_pairs} "
            f"ordered pairs of largest epsilon only, not exact)"
        )
        + (
            ""
            if coverage == "all_pairs"
            else "; a lower bound on the mechanism's epsilon outside the examined inputs"
        )
        + (
            f"; above the epsilon = {law_epsilon:g} the declared FiniteOutputLaw states"
            if law_violation
            else ""
        )
    )
    return statement


# ----------------------------------------------------------------------------------------
# the audit
# ----------------------------------------------------------------------------------------
def exact_privacy(
    mechanism: Mechanism,
    *,
    candidates: Sequence[CandidatePair] = (),
    max_inputs: int = EXACT_MAX_INPUTS,
) -> ExactAuditResult:
    """The exact ε and δ(ε) of a finite randomizer over every (or the searched) pairs.

    Parameters
    ----------
    mechanism : Mechanism
        With a :class:`~spec.FiniteRandomizer` (or randomized-response) spec and the
        ``output_probabilities`` hook.
    candidates : sequence of CandidatePair
        Pairs to examine when the domain is not enumerated (the auditor's search).
    max_inputs : int
        Largest finite domain enumerated in full.

    Returns
    -------
    ExactAuditResult

    Raises
    ------
    AuditError
        If the mechanism declares no finite law, lacks the hook, or the hook returns
        something that is not a product of probability laws of the declared shape.
    """
    spec = mechanism.spec
    if not exact_audit_applies(mechanism):
        raise AuditError(
            f"{mechanism.name!r} has no finite output law with an "
            "output_probabilities hook; the exact audit does not apply"
        )
    eps_claimed, delta_claimed = claimed_point(spec.guarantee)
    shape = _law_shape(spec)
    inputs, pairs, coverage = _inputs_and_pairs(spec, candidates, max_inputs)
    probs = np.stack([_probabilities(mechanism, x, shape) for x in inputs])  # (N, L, A)
    logs = _log(probs)

    ii, jj, pair_eps, n_pairs, distinct = _ordered_pair_epsilons(probs, logs, pairs, len(inputs))
    if pair_eps.size:
        top = int(np.argmax(pair_eps))
        best = (float(pair_eps[top]), int(ii[top]), int(jj[top]))
    else:
        best = (0.0, 0, 0)
    eps_exact, wi, wj = best
    eps_exact = max(0.0, eps_exact)

    grid, ii, jj, profile_coverage = _profile_pairs(
        probs, ii, jj, pair_eps, eps_claimed, eps_exact, coverage
    )
    delta_exact, note, computed = _exact_deltas(probs, ii, jj, grid)
    profile = (
        tuple(
            ExactProfilePoint(
                epsilon=float(e),
                delta_exact=float(d),
                delta_claimed=float(spec.delta_for_epsilon(e)),
            )
            for e, d in zip(grid, delta_exact, strict=True)
        )
        if computed
        else ()
    )
    delta_at_claim = float(hockey_stick_max(profile, eps_claimed))
    pure_violation = delta_claimed == 0.0 and eps_exact > eps_claimed * (1 + TOLERANCE) + TOLERANCE
    law_epsilon = (
        spec.noise.law.pure_epsilon if isinstance(spec.noise, FiniteRandomizer) else math.inf
    )
    law_violation = eps_exact > law_epsilon * (1 + TOLERANCE) + TOLERANCE
    violated = bool(pure_violation or law_violation or any(pt.violated for pt in profile))
    statement = _statement(
        eps_exact=eps_exact,
        eps_claimed=eps_claimed,
        delta_at_claim=delta_at_claim,
        coverage=coverage,
        profile_coverage=profile_coverage,
        n_inputs=len(inputs),
        n_pairs=n_pairs,
        distinct=distinct,
        profile_pairs=int(ii.size),
        law_epsilon=law_epsilon,
        law_violation=law_violation,
    )
    return ExactAuditResult(
        epsilon_exact=eps_exact,
        epsilon_claimed=eps_claimed,
        delta_claimed=delta_claimed,
        delta_at_claimed_epsilon=delta_at_claim,
        coverage=coverage,
        inputs_examined=len(inputs),
        pairs_examined=n_pairs,
        worst_pair=Counterexample(
            x=to_jsonable(inputs[wi]),
            y=to_jsonable(inputs[wj]),
            origin=f"exact ({coverage})",
            values={"epsilon_exact": to_jsonable(eps_exact)},
        ),
        profile=profile,
        profile_pairs=int(ii.size) if computed else 0,
        profile_coverage=profile_coverage,
        violated=violated,
        statement=statement,
        details={
            "law_shape": list(shape),
            "distinct_laws": distinct,
            **({"note": note} if note else {}),
        },
    )


def hockey_stick_max(profile: Sequence[ExactProfilePoint], epsilon: float) -> float:
    """The profile's δ at ``epsilon`` (0 when the profile is empty)."""
    for pt in profile:
        if math.isclose(pt.epsilon, epsilon, rel_tol=1e-12, abs_tol=1e-15):
            return pt.delta_exact
    return 0.0


def exact_check(result: ExactAuditResult) -> CheckOutcome:
    """The report's ``exact.privacy`` check (deterministic: error rate 0)."""
    return CheckOutcome(
        name="exact.privacy",
        status="violated" if result.violated else "passed",
        summary=result.statement,
        statistic=float(result.epsilon_exact),
        threshold=result.epsilon_claimed,
        ratio=(
            float(result.epsilon_exact) / result.epsilon_claimed
            if result.epsilon_claimed > 0
            else None
        ),
        error_rate=0.0,
        counterexample=result.worst_pair if result.violated else None,
        details={
            "coverage": result.coverage,
            "pairs_examined": result.pairs_examined,
            "delta_at_claimed_epsilon": result.delta_at_claimed_epsilon,
        },
    )


def worst_inputs(mechanism: Mechanism, result: ExactAuditResult) -> tuple[Any, Any]:
    """The worst pair's inputs, validated (for the sampler-vs-hook conformance check)."""
    validate = mechanism.spec.input_domain.validate
    return (
        validate(from_jsonable_input(result.worst_pair.x)),
        validate(from_jsonable_input(result.worst_pair.y)),
    )


def sampling_refutation(
    mechanism: Mechanism,
    result: ExactAuditResult,
    x: Any,
    y: Any,
    epsilon_lower_bound: float,
    delta: float,
) -> ExactAuditResult | None:
    """``result`` marked refuted when a sampling ε lower bound contradicts the declared law.

    A sampling lower bound ε̲ at δ on the pair (x, y) certifies, at the audit's
    family-wise confidence, an event S with P[M(x) ∈ S] − e^{ε̲} P[M(y) ∈ S] > δ, so the
    true δ(ε̲) of the pair exceeds δ.  If the hook's exact law gives δ(ε̲) ≤ δ at that
    pair (in both orders), the hook and the sampler cannot both be right: the exact
    figures are refuted.  Returns ``None`` when they agree.
    """
    if not epsilon_lower_bound > 0:
        return None
    shape = _law_shape(mechanism.spec)
    p = _probabilities(mechanism, x, shape)
    q = _probabilities(mechanism, y, shape)
    eps = min(float(epsilon_lower_bound), 700.0)  # e^700: beyond any finite ratio here
    allowed = float(max(hockey_stick(p, q, [eps])[0], hockey_stick(q, p, [eps])[0]))
    if allowed > delta * (1 + 1e-9) + 1e-12:
        return None
    pair_eps = max(
        float(_pair_epsilons(_log(p), _log(q)[None])[0]),
        float(_pair_epsilons(_log(q), _log(p)[None])[0]),
    )
    why = (
        f"REFUTED by sampling: the audit's samples certify epsilon >= "
        f"{format_epsilon(epsilon_lower_bound, 4)} at delta = {delta:g} on a tested pair, "
        f"where the declared output_probabilities allow at most delta({eps:.4g}) = "
        f"{allowed:.3g} (their epsilon there is {format_epsilon(max(pair_eps, 0.0), 4)}): "
        "the hook does not describe the sampler (e.g. coordinates declared independent "
        "are correlated), so the exact figures do not hold"
    )
    return result.model_copy(
        update={
            "refuted": True,
            "refutation": why,
            "statement": why + " [was: " + result.statement + "]",
        }
    )


def conformance_refutation(
    result: ExactAuditResult, conformance: CheckOutcome
) -> ExactAuditResult | None:
    """``result`` marked refuted when the noise-law check rejected the sampler against the
    ``output_probabilities`` hook (the exact figures are the hook's, not the sampler's);
    ``None`` when the check did not reject."""
    if not conformance.violated:
        return None
    why = (
        "REFUTED by the conformance check: the sampler's outputs do not follow the "
        f"declared output_probabilities ({conformance.summary}), so the exact figures, "
        "computed from them, do not hold"
    )
    return result.model_copy(
        update={
            "refuted": True,
            "refutation": why,
            "statement": why + " [was: " + result.statement + "]",
        }
    )


def set_aside_refuted(checks: list[CheckOutcome], why: str, *, name: str = "exact.privacy") -> None:
    """The exact check ``name`` (``exact.privacy``, ``group.exact``) replaced in place by a
    skipped outcome saying why its figures do not hold."""
    checks[:] = [
        CheckOutcome(name=c.name, status="skipped", summary=why, details=c.details)
        if c.name == name
        else c
        for c in checks
    ]


#: Checks whose rejection shows that the sampler does not draw its declared law.
LAW_REJECTIONS = ("noise_law", "noise_law.ranked_pairs", "lndp.locality")
#: White-box figures computed from the declared law, and the checks that refute each: a
#: rejection of the law refutes all; a sampling ε lower bound above the claim refutes the
#: joint figure, which bounds the whole release (the others bound one message, or state a
#: necessary condition).
LAW_FIGURES = {
    "lndp.per_node": LAW_REJECTIONS,
    "lndp.global_certificate": LAW_REJECTIONS,
    "lndp.joint_accounting": (*LAW_REJECTIONS, "distinguishability"),
}


def set_aside_law_figures(checks: list[CheckOutcome]) -> None:
    """Every passed white-box figure of :data:`LAW_FIGURES` that a violated check of the
    audit's samples refutes, replaced in place by a skipped outcome saying which check
    refuted it: an "exact" figure never stands beside a refutation."""
    violated = {c.name: c for c in checks if c.violated}
    for name, refuters in LAW_FIGURES.items():
        by = next((violated[r] for r in refuters if r in violated), None)
        figure = next((c for c in checks if c.name == name and c.status == "passed"), None)
        if by is None or figure is None:
            continue
        set_aside_refuted(
            checks,
            f"REFUTED by {by.name} on the audit's samples: the figure was computed from "
            f"the declared law, which does not describe the sampler [was: {figure.summary}]",
            name=name,
        )


def refutation_check(result: ExactAuditResult, error_rate: float) -> CheckOutcome:
    """The report's ``exact.sampling_agreement`` check for a refuted exact result."""
    return CheckOutcome(
        name="exact.sampling_agreement",
        status="violated",
        summary=result.refutation,
        statistic=None,
        error_rate=error_rate,
        details={"epsilon_exact": to_jsonable(result.epsilon_exact)},
    )
