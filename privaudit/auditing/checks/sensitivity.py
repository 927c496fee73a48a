"""Deterministic gray-box checks of the sensitivity claims.

:func:`check_global_sensitivity`, :func:`check_local_sensitivity_bound` and
:func:`check_smooth_sensitivity` evaluate the mechanism's own hooks on adversarial inputs
and neighbouring pairs against the claims of :mod:`spec.sensitivity`.  A violation is a
concrete pair of neighbours (certain up to the round-off slack
:data:`~privaudit.auditing.checks._common.REL_TOL`); a pass only says the search found none.

References: Nissim, Raskhodnikova & Smith, STOC 2007; Dwork, McSherry, Nissim & Smith, TCC
2006; Chaudhuri, Loh, Pandey & Sarkar, NeurIPS 2024 (``docs/derivations.md`` §3).  Details:
``docs/engine_notes.md``, "privaudit.auditing.checks.sensitivity".
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from privaudit.auditing.checks._common import (
    REL_TOL,
    CachedFunction,
    as_pairs,
    check_count,
    difference_norm,
    exceeds,
    missing_hooks,
    neighbour_pair,
    pair_counterexample,
    skipped,
)
from privaudit.auditing.checks._sensitivity_search import Probe, RatioSearch, search_worst_ratio
from privaudit.auditing.outcome.results import CheckOutcome, jsonable_details
from privaudit.auditing.pairs import CandidatePair
from privaudit.mechanisms import Mechanism
from privaudit.spec import MechanismSpec, NoisyArgmax, RandomLike, as_generator

__all__ = [
    "check_global_sensitivity",
    "check_local_sensitivity_bound",
    "check_smooth_sensitivity",
]

#: Random domain elements added to the seeds of the searches over inputs.
RANDOM_SEEDS = 3
#: Smallest patience of the climbs of the global-sensitivity search (see
#: :func:`privaudit.auditing.search.maximise_pair_objective`).
MIN_PATIENCE = 12
#: Scores passed to the pair search are clipped to ±this (an infinite log ratio becomes it).
_SCORE_CAP = 1e9


def _patience(budget: int) -> int:
    """Evaluations without improvement after which a climb of the global search ends:
    a twentieth of the budget, at least :data:`MIN_PATIENCE`."""
    return max(MIN_PATIENCE, budget // 20)


def _search() -> Any:
    """:mod:`privaudit.auditing.search`, imported when first needed."""
    from privaudit.auditing import search

    return search


# ----------------------------------------------------------------------------------------
# global sensitivity
# ----------------------------------------------------------------------------------------
def check_global_sensitivity(
    mechanism: Mechanism, rng: RandomLike, *, pairs: Iterable[Any], search_budget: int = 200
) -> CheckOutcome:
    """Check ‖f(x) − f(y)‖ ≤ Δ on neighbouring pairs (``"sensitivity.global"``).

    Every given pair is evaluated, then :func:`privaudit.auditing.search.maximise_pair_objective`
    hill-climbs ‖f(x) − f(y)‖ from the best of them (from
    :func:`privaudit.auditing.search.pair_sources` when none are given).  A climb ends when
    its share of the budget is spent or after max(12, budget/20) evaluations in a row
    without a strict improvement (a flat objective, e.g. a linear statistic whose every
    pair has the same shift, needs no more).

    Parameters
    ----------
    mechanism : Mechanism
        Must provide the ``statistic`` hook.
    rng : Generator, int or None
        The only source of randomness (the search).
    pairs : iterable of CandidatePair or (x, y)
        Neighbouring pairs to evaluate first.
    search_budget : int
        Pair evaluations of the local search (each costs at most two statistic
        evaluations; values are memoised).  0 evaluates the given pairs only.

    Returns
    -------
    CheckOutcome
        ``"violated"`` when some pair has ‖f(x) − f(y)‖ > Δ·(1 + 1e-9), with that pair as
        counterexample (values ``f(x)``, ``f(y)``, ``norm_of_difference``, ``norm_kind``,
        ``claim``, ``ratio``);
        ``"skipped"`` without a global-sensitivity claim or without the statistic hook.
        ``statistic`` is the largest difference found, ``threshold`` Δ, ``ratio`` their
        quotient; ``error_rate`` is 0 (deterministic).

    Raises
    ------
    InvalidParameterError
        If ``search_budget`` is not an integer ≥ 0.
    NotNeighboursError, InvalidInputError
        If a given pair is not a pair of neighbours.

    References
    ----------
    .. [1] Dwork, McSherry, Nissim & Smith, TCC 2006, Definition 2.
    """
    name = "sensitivity.global"
    budget = check_count(search_budget, "search_budget", 0)
    spec = mechanism.spec
    claim = spec.global_sensitivity
    if claim is None:
        return skipped(name, "the spec makes no global-sensitivity claim")
    if missing_hooks(mechanism, ["statistic"]):
        return skipped(
            name,
            "the mechanism does not expose its statistic (gray-box hook "
            "'statistic'), so its global sensitivity cannot be checked",
        )
    gen = as_generator(rng)
    search = _search()
    f = CachedFunction(mechanism.statistic)

    def distance(x: Any, y: Any) -> float:
        return difference_norm(f(x), f(y), claim.norm)

    given = [p.with_score(distance(p.x, p.y)) for p in as_pairs(spec, pairs)]
    start = given
    if not start and budget > 0:
        start = search.candidate_pairs(spec, gen, budget=max(1, min(64, budget // 4)))
    found = (
        search.maximise_pair_objective(
            spec, distance, gen, start=start, budget=budget, patience=_patience(budget)
        )
        if budget > 0 and start
        else []
    )
    evaluated = given + list(found)
    if not evaluated:
        return skipped(
            name, "no neighbouring pair to evaluate (give pairs or a positive search_budget)"
        )
    if _claims_monotone_scores(spec):
        crossing = _worst_crossing(spec, f, evaluated, search, gen, budget)
        if crossing is not None:
            return crossing
    worst = max(evaluated, key=lambda p: -math.inf if math.isnan(p.score) else p.score)
    observed, delta_f = float(worst.score), float(claim.value)
    ratio = observed / delta_f
    violated = exceeds(observed, delta_f)
    details = jsonable_details(
        norm=claim.norm,
        claim=delta_f,
        tolerance=REL_TOL,
        pairs_given=len(given),
        search_budget=budget,
        search_pairs_evaluated=len(found),
        statistic_evaluations=f.evaluations,
        worst_origin=worst.origin,
        rule=f"violated when ||f(x) - f(y)||_{claim.norm} > claim * (1 + {REL_TOL:g})",
    )
    summary = (
        f"||f(x) - f(y)||_{claim.norm} = {observed:.6g} on a pair of origin "
        f"{worst.origin!r} "
        f"{'exceeds' if violated else 'is within'} the claimed global sensitivity "
        f"{delta_f:g} (ratio {ratio:.4g})"
    )
    counterexample = (
        pair_counterexample(
            worst.x,
            worst.y,
            worst.origin,
            worst.decision.reason,
            **{
                "f(x)": f(worst.x),
                "f(y)": f(worst.y),
                "norm_of_difference": observed,
                "norm_kind": claim.norm,
                "claim": delta_f,
                "ratio": ratio,
            },
        )
        if violated
        else None
    )
    return CheckOutcome(
        name=name,
        status="violated" if violated else "passed",
        summary=summary,
        statistic=observed,
        threshold=delta_f,
        ratio=ratio,
        error_rate=0.0,
        counterexample=counterexample,
        details=details,
    )


def _claims_monotone_scores(spec: MechanismSpec) -> bool:
    return isinstance(spec.noise, NoisyArgmax) and spec.noise.monotone


def _crossing(fx: Any, fy: Any) -> float:
    """How far the scores move both ways between f(x) and f(y): the smaller of the largest
    rise and the largest fall (0 when every score moves the same way)."""
    d = np.ravel(np.asarray(fy, dtype=np.float64)) - np.ravel(np.asarray(fx, dtype=np.float64))
    if d.size == 0:
        return 0.0
    return float(min(max(d.max(), 0.0), max(-d.min(), 0.0)))


def _worst_crossing(
    spec: MechanismSpec,
    f: CachedFunction,
    evaluated: list[CandidatePair],
    search: Any,
    gen: np.random.Generator,
    budget: int,
) -> CheckOutcome | None:
    """The monotone claim of noisy argmax checked on neighbours: every score must move the
    same way (McSherry & Talwar, FOCS 2007, §3).  A violated outcome, or ``None``."""
    name, delta_f = "sensitivity.global", float(spec.global_sensitivity.value)  # type: ignore[union-attr]

    def crossing(x: Any, y: Any) -> float:
        return _crossing(f(x), f(y))

    start = [p.with_score(crossing(p.x, p.y)) for p in evaluated]
    found = (
        search.maximise_pair_objective(
            spec, crossing, gen, start=start, budget=budget, patience=_patience(budget)
        )
        if budget > 0
        else []
    )
    worst = max(start + list(found), key=lambda p: -math.inf if math.isnan(p.score) else p.score)
    if not exceeds(float(worst.score), REL_TOL * delta_f):
        return None
    fx, fy = f(worst.x), f(worst.y)
    return CheckOutcome(
        name=name,
        status="violated",
        summary=(
            f"the claim NoisyArgmax(monotone=True) needs every score to move the same way "
            f"between neighbours, but on a pair of origin {worst.origin!r} one score rises "
            f"and another falls by {float(worst.score):.6g} each at least"
        ),
        statistic=float(worst.score),
        threshold=0.0,
        error_rate=0.0,
        counterexample=pair_counterexample(
            worst.x,
            worst.y,
            worst.origin,
            worst.decision.reason,
            **{"f(x)": fx, "f(y)": fy, "rise_and_fall": float(worst.score)},
        ),
        details=jsonable_details(
            rule="violated when a neighbouring pair moves one score up and another down",
            search_pairs_evaluated=len(found),
        ),
    )


# ----------------------------------------------------------------------------------------
# local sensitivity bound
# ----------------------------------------------------------------------------------------
def _validated_inputs(mechanism: Mechanism, inputs: Iterable[Any]) -> list[tuple[Any, str]]:
    return [(mechanism.validate_input(x), "explicit") for x in inputs]


def _extra_seeds(mechanism: Mechanism, gen: np.random.Generator) -> list[tuple[Any, str]]:
    domain = mechanism.spec.input_domain
    seeds = [(domain.validate(x), "extreme") for x in domain.extremes()]
    seeds += [(domain.validate(domain.sample(gen)), "random") for _ in range(RANDOM_SEEDS)]
    return seeds


def _search_details(found: RatioSearch, budget: int) -> dict[str, Any]:
    exhaustive = sum(p.exhaustive for p in found.probes)
    return {
        "inputs_tested": len(found.probes),
        "inputs_by_origin": {
            o: sum(p.origin == o for p in found.probes)
            for o in sorted({p.origin for p in found.probes})
        },
        "budget": budget,
        "statistic_evaluations": found.statistic_evaluations,
        "neighbour_budget_per_input": found.neighbour_budget,
        "neighbourhood_size": found.neighbourhood_size,
        "exhaustive_inputs": exhaustive,
        "exhaustive": exhaustive == len(found.probes),
        "local_sensitivity": (
            "exact (every neighbour enumerated) for every tested input"
            if exhaustive == len(found.probes)
            else f"exact for {exhaustive} of {len(found.probes)} inputs; a lower "
            "bound from neighbourhood search for the others"
        ),
    }


def _bound_outcome(
    name: str,
    found: RatioSearch,
    f: CachedFunction,
    bound_label: str,
    claim_text: str,
    budget: int,
    norm: str,
) -> CheckOutcome:
    worst: Probe = found.worst()
    ratio = worst.ratio
    violated = exceeds(worst.local, worst.bound)
    x, y = worst.best.x, worst.best.y
    details = jsonable_details(
        **_search_details(found, budget),
        tolerance=REL_TOL,
        rule=f"violated when LS(x) > {bound_label}(x) * (1 + {REL_TOL:g})",
        worst_origin=worst.origin,
    )
    summary = (
        f"worst LS(x)/{bound_label}(x) = {ratio:.4g} over {len(found.probes)} inputs "
        f"(LS = {worst.local:.6g}, {bound_label} = {worst.bound:.6g} on an input of origin "
        f"{worst.origin!r}): "
        f"{'the claim ' + claim_text + ' fails' if violated else 'no violation'}"
    )
    counterexample = (
        pair_counterexample(
            x,
            y,
            worst.origin,
            worst.best.decision.reason,
            **{
                "f(x)": f(x),
                "f(y)": f(y),
                "norm_of_difference": worst.local,
                "norm_kind": norm,
                "LS(x)": worst.local,
                f"{bound_label}(x)": worst.bound,
                "claim": claim_text,
                "ratio": ratio,
                "local_sensitivity_exact": worst.exhaustive,
            },
        )
        if violated
        else None
    )
    return CheckOutcome(
        name=name,
        status="violated" if violated else "passed",
        summary=summary,
        statistic=ratio,
        threshold=1.0,
        ratio=ratio,
        error_rate=0.0,
        counterexample=counterexample,
        details=details,
    )


def check_local_sensitivity_bound(
    mechanism: Mechanism, rng: RandomLike, *, inputs: Iterable[Any], budget: int = 200
) -> CheckOutcome:
    """Check LS(x) ≤ B(x) for the claimed local sensitivity bound (``"sensitivity.local_bound"``).

    LS(x) = max_{y ~ x} ‖f(x) − f(y)‖ is computed with
    :func:`privaudit.auditing.search.maximise_over_neighbours` — exactly, by enumeration, when the
    neighbourhood is finite and small enough for the per-input budget (``details`` says
    for how many inputs), otherwise as a lower bound.  Inputs: the given ones (always
    tested), the domain's extremes, a few random elements, then a local search over x
    maximising LS(x)/B(x) while the budget lasts.

    Parameters
    ----------
    mechanism : Mechanism
        Must provide the ``statistic`` and ``local_sensitivity_bound`` hooks.
    rng : Generator, int or None
        The only source of randomness.
    inputs : iterable
        Inputs of the domain to test.
    budget : int
        Statistic evaluations for the whole check (≥ 1; the given inputs are tested even
        beyond it).

    Returns
    -------
    CheckOutcome
        ``"violated"`` when some x has LS(x) > B(x)·(1 + 1e-9), with counterexample
        (x, y) where y is the neighbour attaining LS(x); ``statistic`` and ``ratio`` are
        the worst LS/B, ``threshold`` 1; ``error_rate`` 0.

    References
    ----------
    .. [1] Nissim, Raskhodnikova & Smith, STOC 2007, Definition 1.4 (local sensitivity).
    """
    name = "sensitivity.local_bound"
    total = check_count(budget, "budget", 1)
    spec = mechanism.spec
    claim = spec.local_sensitivity_claim
    if claim is None:
        return skipped(name, "the spec makes no local-sensitivity-bound claim")
    missing = missing_hooks(mechanism, ["statistic", "local_sensitivity_bound"])
    if missing:
        return skipped(name, f"the mechanism does not provide the gray-box hook(s) {missing}")
    gen = as_generator(rng)
    f = CachedFunction(mechanism.statistic)
    bound = CachedFunction(mechanism.local_sensitivity_bound)
    found = search_worst_ratio(
        spec,
        statistic=f,
        bound=bound,
        norm=claim.norm,
        gen=gen,
        mandatory=_validated_inputs(mechanism, inputs),
        optional=_extra_seeds(mechanism, gen),
        budget=total,
        search=_search(),
    )
    return _bound_outcome(name, found, f, "B", "LS(x) <= B(x)", total, claim.norm)


# ----------------------------------------------------------------------------------------
# smooth sensitivity
# ----------------------------------------------------------------------------------------
def _log_ratio(s_x: float, s_y: float) -> float:
    """log S(x) − log S(y) with log 0 = −inf and 0/0 = 0."""
    if s_x == s_y:
        return 0.0
    if s_y <= 0.0:
        return math.inf
    if s_x <= 0.0:
        return -math.inf
    return math.log(s_x) - math.log(s_y)


class _SmoothPairs:
    """The neighbouring pairs on which smoothness was evaluated, and the worst one."""

    def __init__(self, smooth: CachedFunction, beta: float) -> None:
        self.smooth = smooth
        self.beta = beta
        self.count = 0
        self.worst: tuple[float, Any, Any, str] | None = None

    def evaluate(self, x: Any, y: Any, origin: str) -> float:
        """|log S(x) − log S(y)|/β, recording the worse orientation."""
        forward = _log_ratio(float(self.smooth(x)), float(self.smooth(y)))
        if forward < 0:
            x, y, forward = y, x, -forward
        value = forward / self.beta
        self.count += 1
        if self.worst is None or value > self.worst[0]:
            self.worst = (value, x, y, origin)
        return value


def _smoothness_outcome(
    spec: MechanismSpec, pairs: _SmoothPairs, beta: float, budget: int, sources: dict[str, int]
) -> CheckOutcome:
    name = "sensitivity.smooth.smoothness"
    if pairs.worst is None:
        return skipped(name, "no neighbouring pair was evaluated")
    value, x, y, origin = pairs.worst
    reason = spec.relation.decide(x, y, spec.input_domain).reason
    s_x, s_y = float(pairs.smooth(x)), float(pairs.smooth(y))
    log_gap = value * beta
    violated = bool(log_gap > beta + math.log1p(REL_TOL))
    summary = (
        f"worst (log S(x) - log S(y))/beta = {value:.4g} over {pairs.count} neighbouring "
        f"pairs (S(x) = {s_x:.6g}, S(y) = {s_y:.6g}, beta = {beta:g}): "
        f"{'S(x) > e^beta S(y), the bound is not beta-smooth' if violated else 'no violation'}"
    )
    details = jsonable_details(
        beta=beta,
        pairs_evaluated=pairs.count,
        pair_sources=sources,
        search_budget=budget,
        smooth_evaluations=pairs.smooth.evaluations,
        tolerance=REL_TOL,
        worst_origin=origin,
        rule=f"violated when S(x) > e^beta * S(y) * (1 + {REL_TOL:g}) for neighbours x, y",
    )
    counterexample = (
        pair_counterexample(
            x,
            y,
            origin,
            reason,
            **{
                "S(x)": s_x,
                "S(y)": s_y,
                "log S(x) - log S(y)": log_gap,
                "beta": beta,
                "claim": "S(x) <= exp(beta) * S(y)",
                "ratio": value,
            },
        )
        if violated
        else None
    )
    return CheckOutcome(
        name=name,
        status="violated" if violated else "passed",
        summary=summary,
        statistic=value,
        threshold=1.0,
        ratio=value,
        error_rate=0.0,
        counterexample=counterexample,
        details=details,
    )


def check_smooth_sensitivity(
    mechanism: Mechanism,
    rng: RandomLike,
    *,
    inputs: Iterable[Any],
    pairs: Iterable[Any],
    budget: int = 200,
) -> tuple[CheckOutcome, CheckOutcome]:
    """Check that S is a β-smooth upper bound on the local sensitivity of f.

    Two outcomes, after Nissim, Raskhodnikova & Smith (2007), Def. 2.1:

    * ``"sensitivity.smooth.upper_bound"`` — S(x) ≥ LS(x) on every tested x; the worst
      LS/S is reported.  Tested inputs: the given ones, the domain's extremes, a few
      random elements, then a local search over x maximising LS(x)/S(x) (mutating x by
      a random neighbour step, a jump to the neighbour attaining LS, or two steps), until
      ``budget`` statistic evaluations are spent.  LS(x) comes from
      :func:`privaudit.auditing.search.maximise_over_neighbours` (exact when the neighbourhood is
      finite and fits the per-input budget).
    * ``"sensitivity.smooth.smoothness"`` — S(x) ≤ e^β S(y) for neighbours, in both
      orders, on the given pairs, on the neighbouring steps of the search above, on the
      pairs (x, y*) attaining LS, and on a pair search
      (:func:`privaudit.auditing.search.maximise_pair_objective`, ``budget`` evaluations)
      maximising |log S(x) − log S(y)|; the worst (log S(x) − log S(y))/β is reported
      (a violation is a value above 1).

    Parameters
    ----------
    mechanism : Mechanism
        Must provide ``smooth_sensitivity`` (and ``statistic`` for the upper bound).
    rng : Generator, int or None
        The only source of randomness.
    inputs : iterable
        Inputs to test (always tested, even beyond the budget).
    pairs : iterable of CandidatePair or (x, y)
        Neighbouring pairs for the smoothness condition.
    budget : int
        Statistic evaluations of the upper-bound search, and pair evaluations of the
        smoothness search (≥ 1).

    Returns
    -------
    tuple of CheckOutcome
        ``(upper_bound, smoothness)``; each ``"violated"`` with a counterexample pair, or
        ``"skipped"`` without a smooth-sensitivity claim or the needed hooks.  Both are
        deterministic (``error_rate`` 0) with the round-off slack 1e-9.

    References
    ----------
    .. [1] Nissim, Raskhodnikova & Smith, STOC 2007, Definition 2.1.
    .. [2] ``docs/derivations.md`` §3: the printed smooth bound of Chaudhuri et al.
       (NeurIPS 2024) is below the local sensitivity by up to 6×.
    """
    total = check_count(budget, "budget", 1)
    spec = mechanism.spec
    claim = spec.smooth_sensitivity_claim
    upper_name, smooth_name = "sensitivity.smooth.upper_bound", "sensitivity.smooth.smoothness"
    if claim is None:
        reason = "the spec makes no smooth-sensitivity claim"
        return skipped(upper_name, reason), skipped(smooth_name, reason)
    if missing_hooks(mechanism, ["smooth_sensitivity"]):
        reason = "the mechanism does not provide the gray-box hook 'smooth_sensitivity'"
        return skipped(upper_name, reason), skipped(smooth_name, reason)
    gen = as_generator(rng)
    search = _search()
    beta = float(claim.beta)
    smooth = CachedFunction(mechanism.smooth_sensitivity)
    given_pairs = as_pairs(spec, pairs)
    smooth_pairs = _SmoothPairs(smooth, beta)
    sources = {"given": 0, "search_steps": 0, "ls_attaining": 0, "pair_search": 0}
    scored: list[CandidatePair] = []

    for p in given_pairs:
        scored.append(p.with_score(min(_SCORE_CAP, smooth_pairs.evaluate(p.x, p.y, p.origin))))
        sources["given"] += 1

    mandatory = _validated_inputs(mechanism, inputs)
    if missing_hooks(mechanism, ["statistic"]):
        upper = skipped(
            upper_name,
            "the mechanism does not expose its statistic (gray-box hook "
            "'statistic'), so LS(x) cannot be computed",
        )
    else:
        f = CachedFunction(mechanism.statistic)
        found = search_worst_ratio(
            spec,
            statistic=f,
            bound=smooth,
            norm=claim.norm,
            gen=gen,
            mandatory=mandatory,
            optional=_extra_seeds(mechanism, gen),
            budget=total,
            search=search,
        )
        upper = _bound_outcome(upper_name, found, f, "S", "S(x) >= LS(x)", total, claim.norm)
        for parent, child in found.steps:
            pair = neighbour_pair(spec, parent.x, child.x, "local_search")
            if pair is not None:
                scored.append(
                    pair.with_score(
                        min(_SCORE_CAP, smooth_pairs.evaluate(pair.x, pair.y, pair.origin))
                    )
                )
                sources["search_steps"] += 1
        for probe in found.probes:
            best = probe.best
            if best.decision.distance > 0:
                scored.append(
                    best.with_score(
                        min(_SCORE_CAP, smooth_pairs.evaluate(best.x, best.y, best.origin))
                    )
                )
                sources["ls_attaining"] += 1

    start = sorted(scored, key=lambda p: p.score, reverse=True)[:8]
    if not start:
        start = search.candidate_pairs(spec, gen, budget=max(1, min(64, total // 4)))

    def objective(x: Any, y: Any) -> float:
        return min(_SCORE_CAP, smooth_pairs.evaluate(x, y, "local_search"))

    before = smooth_pairs.count
    if start:
        search.maximise_pair_objective(spec, objective, gen, start=start, budget=total)
    sources["pair_search"] = smooth_pairs.count - before
    return upper, _smoothness_outcome(spec, smooth_pairs, beta, total, sources)
