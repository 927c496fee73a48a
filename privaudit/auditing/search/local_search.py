"""Hill climbing for the worst neighbouring pairs of an (expensive) objective.

:func:`maximise_pair_objective` searches over pairs ``(x, y)`` (e.g. ``|f(x) − f(y)|``);
:func:`maximise_over_neighbours` over the neighbours of one fixed ``x`` (its maximum of
``|f(x) − f(y)|`` is the local sensitivity at ``x``).  The budget counts objective
evaluations, a pair already evaluated costs nothing, and invalid moves are discarded before
the objective sees them.  The moves belong to the spec's relation
(:class:`~spec.relations.NeighbouringRelationBase`); nothing here depends on which it is.

Details: ``docs/engine_notes.md``, "privaudit.auditing.search.local_search".
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from privaudit.auditing.pairs import CandidatePair, verified_pair
from privaudit.auditing.search._common import (
    PairKey,
    check_count,
    ordered_key,
    score_order,
    try_pair,
)
from privaudit.spec import MechanismSpec, RandomLike, WeightedChoice, as_generator
from privaudit.spec.errors import (
    InvalidInputError,
    InvalidParameterError,
    UnsupportedCombinationError,
)
from privaudit.spec.relations import LocalMoves

__all__ = [
    "PROPOSALS_PER_EVALUATION",
    "RANDOM_STALE_LIMIT",
    "STALE_PROPOSAL_LIMIT",
    "NeighbourhoodMaximum",
    "PairObjective",
    "maximise_over_neighbours",
    "maximise_pair_objective",
]

#: A function of a pair of inputs to maximise.
PairObjective = Callable[[Any, Any], float]

#: Proposals a climb may make per evaluation it is allowed (moves that produce invalid or
#: already-evaluated pairs cost no evaluation; this bounds the time spent on them).
PROPOSALS_PER_EVALUATION = 20
#: A climb stops after this many proposals in a row that cost no evaluation (it is stuck
#: in a small, fully evaluated neighbourhood).
STALE_PROPOSAL_LIMIT = 200
#: The random phase of :func:`maximise_over_neighbours` stops after this many draws in a
#: row that give nothing new (``x`` has few or no other neighbours).
RANDOM_STALE_LIMIT = 64

#: Relative gain below which a new score does not count as an improvement for the
#: patience of a climb (round-off: the claim checks use the same 1e-9).
PLATEAU_TOLERANCE = 1e-9

#: Move weights of the pair search: redraw y, mutate x carrying y, targeted y, swap.
_PAIR_MOVE_WEIGHTS = np.array([0.3, 0.35, 0.25, 0.1])
#: Move weights of the neighbourhood search: nudge y, targeted y, redraw y.
_NEIGHBOUR_MOVE_WEIGHTS = np.array([0.7, 0.15, 0.15])
#: The moves drawn as ``gen.choice(len(weights), p=weights)`` would draw them (the same
#: index from the same single uniform), without re-checking the weights at every move.
_PAIR_MOVES = WeightedChoice(_PAIR_MOVE_WEIGHTS)
_NEIGHBOUR_MOVES = WeightedChoice(_NEIGHBOUR_MOVE_WEIGHTS)


@dataclass(frozen=True)
class NeighbourhoodMaximum:
    """The best neighbour of a fixed input found by :func:`maximise_over_neighbours`.

    Attributes
    ----------
    best : CandidatePair
        ``(x, y*)`` with the best neighbour ``y*``, its score set.
    value : float
        ``objective(y*)``.
    evaluated : int
        Number of objective evaluations spent.
    exhaustive : bool
        True when every neighbour of ``x`` was evaluated, so ``value`` is the exact
        maximum; otherwise it is a lower bound.
    """

    best: CandidatePair
    value: float
    evaluated: int
    exhaustive: bool


class _Evaluations:
    """Objective values of pairs, each ordered pair evaluated at most once, within a budget."""

    def __init__(self, objective: PairObjective, budget: int) -> None:
        self.objective = objective
        self.budget = budget
        self.scored: dict[PairKey, CandidatePair] = {}

    @property
    def used(self) -> int:
        return len(self.scored)

    @property
    def remaining(self) -> int:
        return self.budget - self.used

    def evaluate(self, pair: CandidatePair) -> CandidatePair | None:
        """The scored pair (from memory if seen before), or ``None`` once the budget is spent."""
        key = ordered_key(pair.x, pair.y)
        known = self.scored.get(key)
        if known is not None:
            return known
        if self.remaining <= 0:
            return None
        scored = pair.with_score(float(self.objective(pair.x, pair.y)))
        self.scored[key] = scored
        return scored

    def evaluate_all(
        self,
        pairs: Iterable[CandidatePair],
        scores: Callable[[list[CandidatePair]], list[float]],
    ) -> None:
        """:meth:`evaluate` of each pair, in order, with the new ones' objective values
        computed together by ``scores`` (given the pairs in the order :meth:`evaluate`
        would have scored them, it must return the values ``objective`` would give)."""
        new: dict[PairKey, CandidatePair] = {}
        for pair in pairs:
            key = ordered_key(pair.x, pair.y)
            if key in self.scored or key in new:
                continue
            if len(new) >= self.remaining:
                break
            new[key] = pair
        values = scores(list(new.values())) if new else []
        if len(values) != len(new):
            raise InvalidParameterError(
                f"a batch objective returned {len(values)} values for {len(new)} pairs"
            )
        for (key, pair), value in zip(new.items(), values, strict=True):
            self.scored[key] = pair.with_score(float(value))

    def ranked(self) -> list[CandidatePair]:
        """Every evaluated pair, best first (stable; ``nan`` scores last)."""
        return sorted(self.scored.values(), key=score_order)


def _improves_or_ties(new: float, old: float) -> bool:
    """``new ≥ old`` with ``nan`` below every number."""
    if math.isnan(new):
        return math.isnan(old)
    return math.isnan(old) or new >= old


_Proposal = Callable[[MechanismSpec, CandidatePair, np.random.Generator], CandidatePair | None]


def _climb(
    spec: MechanismSpec,
    evaluations: _Evaluations,
    current: CandidatePair,
    quota: int,
    gen: np.random.Generator,
    propose: _Proposal,
    patience: int | None = None,
) -> CandidatePair:
    """Hill climbing (ties accepted, to cross plateaus) for at most ``quota`` evaluations;
    with ``patience``, it also ends after that many evaluations in a row that did not
    improve on the best score of the climb by more than :data:`PLATEAU_TOLERANCE`
    (relative; a plateau with nothing above it in reach), or after 4·patience proposals
    in a row that were all already evaluated."""
    stop_at = evaluations.used + quota
    stale = 0
    # with patience, a small neighbourhood that is already fully evaluated also ends the
    # climb sooner (it cannot hold anything better)
    stale_limit = (
        STALE_PROPOSAL_LIMIT if patience is None else min(STALE_PROPOSAL_LIMIT, 4 * patience)
    )
    flat = 0
    best = current.score
    for _ in range(PROPOSALS_PER_EVALUATION * quota):
        if evaluations.used >= stop_at or stale >= stale_limit:
            break
        if patience is not None and flat >= patience:
            break
        before = evaluations.used
        proposal = propose(spec, current, gen)
        scored = None if proposal is None else evaluations.evaluate(proposal)
        new = evaluations.used > before
        stale = 0 if new else stale + 1
        if scored is None:
            continue
        if new:
            improved = not math.isnan(scored.score) and (
                math.isnan(best) or scored.score > best + PLATEAU_TOLERANCE * max(1.0, abs(best))
            )
            flat = 0 if improved else flat + 1
            if improved:
                best = scored.score
        if _improves_or_ties(scored.score, current.score):
            current = scored
    return current


def _quotas(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` near-equal non-negative shares."""
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]


# ----------------------------------------------------------------------------------------
# search over pairs
# ----------------------------------------------------------------------------------------
def _propose_pair(
    spec: MechanismSpec, current: CandidatePair, gen: np.random.Generator
) -> CandidatePair | None:
    x, y = current.x, current.y
    move = _PAIR_MOVES.draw(gen)
    if move == 0:
        return try_pair(spec, x, _redrawn(spec, x, gen), "local_search")
    if move == 1:
        new_x, new_y = _moves(spec, x, y, gen).mutate()
        try:
            carried = try_pair(spec, new_x, new_y, "local_search")
            if carried is not None:
                return carried
            return try_pair(spec, new_x, _redrawn(spec, new_x, gen), "local_search")
        except InvalidInputError:
            return None
    if move == 2:
        return try_pair(spec, x, _moves(spec, x, y, gen).target(), "local_search")
    return try_pair(spec, y, x, "local_search")


def _redrawn(spec: MechanismSpec, x: Any, gen: np.random.Generator) -> Any:
    """A fresh random neighbour of ``x`` from the relation's own generator."""
    return spec.relation.random_neighbour(x, spec.input_domain, gen)


def _moves(spec: MechanismSpec, x: Any, y: Any, gen: np.random.Generator) -> LocalMoves:
    """The relation's local-search moves at ``(x, y)``, drawing from ``gen``."""
    return spec.relation.local_moves(x, y, spec.input_domain, gen)


def _start_pair(spec: MechanismSpec, index: int, item: Any) -> CandidatePair:
    if isinstance(item, CandidatePair):
        # built by verified_pair (the only constructor), so already checked; as in
        # privaudit.auditing.checks._common.as_pairs, it is not verified a second time
        return item
    try:
        x, y = item
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"start pair {index} must be a CandidatePair or an (x, y) pair, "
            f"got {type(item).__name__}"
        ) from None
    try:
        return verified_pair(spec, x, y, "explicit")
    except InvalidInputError as err:
        raise type(err)(f"start pair {index}: {err}") from err


def _random_starts(
    spec: MechanismSpec, count: int, gen: np.random.Generator
) -> list[CandidatePair]:
    starts: list[CandidatePair] = []
    for _ in range(4 * count):
        if len(starts) >= count:
            break
        x, y = spec.relation.random_pair(spec.input_domain, gen)
        pair = try_pair(spec, x, y, "random")
        if pair is not None:
            starts.append(pair)
    return starts


def maximise_pair_objective(
    spec: MechanismSpec,
    objective: PairObjective,
    rng: RandomLike,
    *,
    start: Iterable[Any],
    budget: int,
    restarts: int = 3,
    patience: int | None = None,
    start_scores: Callable[[list[CandidatePair]], list[float]] | None = None,
) -> list[CandidatePair]:
    """Hill-climb ``objective(x, y)`` over neighbouring pairs, from the best start pairs.

    The start pairs are evaluated first (in order, as far as the budget allows); the
    ``restarts`` best then each seed one climb, sharing the remaining evaluations equally.
    A climb proposes, at random: (a) a new random neighbour ``y`` of ``x``; (b) ``x``
    changed by one step with ``y`` carried along when the relation allows (else redrawn),
    (``mutate`` of the relation's
    :meth:`~spec.relations.NeighbouringRelationBase.local_moves`); (c) a neighbour built
    from extremes (its ``target``; substitute-one: the differing record of ``y`` becomes a
    record-domain extreme); (d) the swapped pair.  It moves whenever the score does not decrease.

    Parameters
    ----------
    spec : MechanismSpec
        Supplies the domain and the relation.
    objective : callable
        ``objective(x, y) -> float`` on validated inputs; may be expensive.
    rng : Generator, int or None
        The only source of randomness.
    start : iterable of CandidatePair or (x, y)
        Starting pairs (e.g. from :func:`~privaudit.auditing.search.pair_sources`; a
        CandidatePair is already verified and is used as it is, a tuple is verified);
        when empty, ``restarts`` random pairs are drawn.
    budget : int
        Total number of objective evaluations, start pairs included (``≥ 1``).
    restarts : int
        Number of climbs (``≥ 1``).
    patience : int, optional
        End a climb early after this many new evaluations in a row without a strict
        improvement of its best score (default: climbs use their whole share).  On an
        objective that is flat around the start pairs — every pair of a linear statistic
        has the same shift — this saves most of the budget; a climb that keeps finding
        better pairs is never cut short.
    start_scores : callable, optional
        ``start_scores(pairs) -> list of float``: the objective of the start pairs, in
        the order given (each pair once, as far as the budget allows), computed together
        — e.g. in forked processes.  It must return what ``objective`` would, called
        on each pair in turn (the same values, and ``rng`` left where those calls leave
        it), so that the search is the same with or without it.

    Returns
    -------
    list of CandidatePair
        Every evaluated pair, best first, with its score; start pairs keep their origin,
        new ones have origin ``"local_search"``.

    Raises
    ------
    InvalidParameterError
        If ``budget`` or ``restarts`` is not a positive integer.
    NotNeighboursError, InvalidInputError
        If a start pair is not a pair of neighbours of the domain (naming its position).
    """
    budget = check_count(budget, "budget", 1)
    restarts = check_count(restarts, "restarts", 1)
    if patience is not None:
        patience = check_count(patience, "patience", 1)
    gen = as_generator(rng)
    starts = [_start_pair(spec, i, item) for i, item in enumerate(start)]
    if not starts:
        starts = _random_starts(spec, restarts, gen)
    evaluations = _Evaluations(objective, budget)
    if start_scores is not None:
        evaluations.evaluate_all(starts, start_scores)
    else:
        for pair in starts:
            if evaluations.evaluate(pair) is None:
                break
    seeds = evaluations.ranked()[:restarts]
    if seeds:
        for seed, quota in zip(seeds, _quotas(evaluations.remaining, len(seeds)), strict=True):
            _climb(spec, evaluations, seed, quota, gen, _propose_pair, patience)
    return evaluations.ranked()


# ----------------------------------------------------------------------------------------
# search over the neighbours of one input
# ----------------------------------------------------------------------------------------
def _small_neighbourhood(spec: MechanismSpec, x: Any, budget: int) -> list[Any] | None:
    """Every neighbour of ``x`` when finite and at most ``budget``; else ``None``."""
    try:
        listing = list(itertools.islice(spec.relation.neighbours(x, spec.input_domain), budget + 1))
    except UnsupportedCombinationError:
        return None
    return listing if len(listing) <= budget else None


def _propose_neighbour(
    spec: MechanismSpec, current: CandidatePair, gen: np.random.Generator
) -> CandidatePair | None:
    x, y = current.x, current.y
    move = _NEIGHBOUR_MOVES.draw(gen)
    if move == 0:
        candidate = _moves(spec, x, y, gen).nudge()
    elif move == 1:
        candidate = _moves(spec, x, y, gen).target()
    else:
        candidate = _redrawn(spec, x, gen)
    return try_pair(spec, x, candidate, "local_search")


def maximise_over_neighbours(
    spec: MechanismSpec,
    x: Any,
    objective: Callable[[Any], float],
    rng: RandomLike,
    *,
    budget: int,
) -> NeighbourhoodMaximum:
    """Maximise ``objective(y)`` over the neighbours ``y`` of a fixed ``x``.

    When :meth:`~spec.relations.NeighbouringRelationBase.neighbours` is finite and has at
    most ``budget`` elements, all are evaluated and the result is exact.  Otherwise the
    search evaluates, in order: neighbours built from extremes (substitute-one: every
    index × every record-domain extreme, distinct records first — local sensitivity is
    usually attained there), truncated to the budget; random neighbours (half of what is
    left); then hill climbing on ``y`` from the best so far
    (the ``nudge`` of the relation's
    :meth:`~spec.relations.NeighbouringRelationBase.local_moves`).

    Parameters
    ----------
    spec : MechanismSpec
        Supplies the domain and the relation.
    x : object
        The fixed input (validated against the domain).
    objective : callable
        ``objective(y) -> float`` on validated neighbours of ``x``.
    rng : Generator, int or None
        The only source of randomness.
    budget : int
        Largest number of objective evaluations (``≥ 1``).

    Returns
    -------
    NeighbourhoodMaximum
        The best pair ``(x, y*)`` (origin ``"exhaustive"``, ``"extreme"``, ``"random"``
        or ``"local_search"``), its value, the evaluations spent, and whether the search
        was exhaustive.  An ``x`` without other neighbours gives the pair ``(x, x)``.

    Raises
    ------
    InvalidParameterError
        If ``budget`` is not a positive integer.
    InvalidInputError
        If ``x`` is not in the domain.
    """
    budget = check_count(budget, "budget", 1)
    gen = as_generator(rng)
    domain = spec.input_domain
    xv = domain.validate(x)
    evaluations = _Evaluations(lambda _, y: objective(y), budget)
    listing = _small_neighbourhood(spec, xv, budget)
    if listing is not None:
        pairs = [verified_pair(spec, xv, y, "exhaustive") for y in listing]
        for listed in pairs or [verified_pair(spec, xv, xv, "exhaustive")]:
            evaluations.evaluate(listed)
        best = evaluations.ranked()[0]
        return NeighbourhoodMaximum(best, best.score, evaluations.used, True)
    for y in spec.relation.extreme_neighbours(xv, domain):
        if evaluations.remaining <= 0:
            break
        pair = try_pair(spec, xv, y, "extreme")
        if pair is not None:
            evaluations.evaluate(pair)
    random_quota = evaluations.remaining // 2
    random_target = evaluations.used + random_quota
    stale = 0
    for _ in range(PROPOSALS_PER_EVALUATION * random_quota):
        if evaluations.used >= random_target or stale >= RANDOM_STALE_LIMIT:
            break
        before = evaluations.used
        pair = try_pair(spec, xv, _redrawn(spec, xv, gen), "random")
        if pair is not None:
            evaluations.evaluate(pair)
        stale = stale + 1 if evaluations.used == before else 0
    if not evaluations.scored:
        evaluations.evaluate(verified_pair(spec, xv, xv, "random"))
    best = evaluations.ranked()[0]
    best = _climb(spec, evaluations, best, evaluations.remaining, gen, _propose_neighbour)
    best = evaluations.ranked()[0]
    return NeighbourhoodMaximum(best, best.score, evaluations.used, False)
