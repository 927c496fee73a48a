"""Local sensitivity by neighbourhood search, and a search over inputs for the worst LS/B.

Used by the local-bound and smooth-sensitivity checks: for a claimed bound B (a local
sensitivity bound, or a smooth sensitivity S) the worst input is the one maximising
LS(x)/B(x).  LS(x) = max_{y ~ x} ‖f(x) − f(y)‖ is computed by
:func:`privaudit.auditing.search.maximise_over_neighbours` (exactly, by enumeration, when the
neighbourhood is finite and fits the per-input budget; otherwise a lower bound from
extremes, random neighbours and hill climbing).  The search over x starts from the given
seeds and then mutates the most promising inputs (tournament among the best found so far)
by one random neighbour step, by a jump to the neighbour that attained LS, or by two
random steps, until the budget of statistic evaluations is spent.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privaudit.auditing.checks._common import (
    CachedFunction,
    difference_norm,
    finite_ratio,
    input_key,
)
from privaudit.auditing.pairs import CandidatePair
from privaudit.spec import MechanismSpec, WeightedChoice
from privaudit.spec.errors import InvalidInputError, UnsupportedCombinationError

__all__ = [
    "Probe",
    "RatioSearch",
    "neighbourhood_size",
    "per_input_budget",
    "search_worst_ratio",
]

#: Consecutive useless proposals (repeats, invalid inputs) after which the search stops.
_STALL_LIMIT = 64
#: Mutation probabilities: jump to the LS-attaining neighbour, one random step, two steps.
_MOVES = np.array([0.35, 0.5, 0.15])
#: The mutations drawn as ``gen.choice(len(_MOVES), p=_MOVES)`` would draw them (the same
#: index from the same single uniform), without re-checking the weights at every draw.
_MOVE_CHOICE = WeightedChoice(_MOVES)


@dataclass(frozen=True)
class Probe:
    """One tested input: its claimed bound, the local sensitivity found and how.

    Attributes
    ----------
    x : object
        The validated input.
    origin : str
        ``"explicit"``, ``"extreme"``, ``"random"`` or ``"local_search"``.
    bound : float
        The claimed bound at x (B(x) or S(x)).
    local : float
        The largest ‖f(x) − f(y)‖ found over neighbours y (= LS(x) when ``exhaustive``,
        otherwise a lower bound on it).
    best : CandidatePair
        The pair (x, y*) attaining ``local``.
    exhaustive : bool
        Whether every neighbour of x was evaluated.
    evaluated : int
        Neighbours evaluated.
    """

    x: Any = field(repr=False)
    origin: str
    bound: float
    local: float
    best: CandidatePair = field(repr=False)
    exhaustive: bool
    evaluated: int

    @property
    def ratio(self) -> float:
        """LS(x)/bound (0/0 = 0, positive/0 = inf)."""
        return finite_ratio(self.local, self.bound)


@dataclass
class RatioSearch:
    """Everything the search over inputs produced.

    Attributes
    ----------
    probes : list of Probe
        Every tested input, in the order tested.
    steps : list of (Probe, Probe)
        (parent, child) where the child is a neighbour of the parent (free smoothness pairs).
    neighbour_budget : int
        The per-input budget of :func:`maximise_over_neighbours`.
    neighbourhood_size : int or None
        Size of the first seed's neighbourhood when finite and at most the budget.
    statistic_evaluations : int
        Evaluations of f spent (cache hits excluded).
    """

    probes: list[Probe]
    steps: list[tuple[Probe, Probe]]
    neighbour_budget: int
    neighbourhood_size: int | None
    statistic_evaluations: int

    def worst(self) -> Probe:
        """The probe with the largest LS/bound (ties: the larger LS)."""
        return max(self.probes, key=lambda p: (p.ratio, p.local))


def neighbourhood_size(spec: MechanismSpec, x: Any, cap: int) -> int | None:
    """Number of neighbours of ``x`` when finite and ≤ ``cap``; ``None`` otherwise."""
    try:
        count = sum(
            1 for _ in itertools.islice(spec.relation.neighbours(x, spec.input_domain), cap + 1)
        )
    except UnsupportedCombinationError:
        return None
    return count if count <= cap else None


def per_input_budget(size: int | None, budget: int) -> int:
    """Neighbour evaluations per tested input.

    Exhaustive (the neighbourhood size) when the neighbourhood is finite and at most
    ``budget // 8`` — so at least 8 inputs get an exact LS; otherwise
    ``max(8, ⌊√budget⌋)`` (capped by the size and by ``budget``), which balances the
    depth of each LS search against the number of inputs tested.
    """
    if size is not None and size <= max(1, budget // 8):
        return max(1, size)
    nb = max(8, math.isqrt(budget))
    if size is not None:
        nb = min(nb, max(1, size))
    return max(1, min(nb, budget))


def _local_sensitivity(
    spec: MechanismSpec,
    x: Any,
    statistic: CachedFunction,
    norm: str,
    gen: np.random.Generator,
    budget: int,
    search: Any,
) -> Any:
    fx = statistic(x)

    def objective(y: Any) -> float:
        return difference_norm(fx, statistic(y), norm)

    return search.maximise_over_neighbours(spec, x, objective, gen, budget=budget)


def search_worst_ratio(
    spec: MechanismSpec,
    *,
    statistic: CachedFunction,
    bound: Callable[[Any], float],
    norm: str,
    gen: np.random.Generator,
    mandatory: Sequence[tuple[Any, str]],
    optional: Sequence[tuple[Any, str]],
    budget: int,
    search: Any,
) -> RatioSearch:
    """Maximise LS(x)/bound(x) over inputs x.

    Parameters
    ----------
    spec : MechanismSpec
        Supplies the domain and the relation.
    statistic : CachedFunction
        f, memoised; its evaluation count is the budget's currency.
    bound : callable
        The claimed bound at x (memoised by the caller if expensive).
    norm : str
        The norm of the claim.
    gen : numpy.random.Generator
        The only source of randomness.
    mandatory : sequence of (x, origin)
        Validated inputs that are always tested, whatever the budget.
    optional : sequence of (x, origin)
        Further seeds, tested while the budget lasts.
    budget : int
        Statistic evaluations; the search stops before a probe that could exceed it
        (mandatory inputs excepted).
    search : module
        :mod:`privaudit.auditing.search` (provides ``maximise_over_neighbours``).

    Returns
    -------
    RatioSearch
    """
    domain, relation = spec.input_domain, spec.relation
    seeds = list(mandatory) + list(optional)
    size = neighbourhood_size(spec, seeds[0][0], budget) if seeds else None
    nb = per_input_budget(size, budget)
    probes: list[Probe] = []
    steps: list[tuple[Probe, Probe]] = []
    seen: set[Any] = set()

    def probe(x: Any, origin: str) -> Probe:
        seen.add(input_key(x))
        found = _local_sensitivity(spec, x, statistic, norm, gen, nb, search)
        p = Probe(
            x=x,
            origin=origin,
            bound=float(bound(x)),
            local=float(found.value),
            best=found.best,
            exhaustive=bool(found.exhaustive),
            evaluated=int(found.evaluated),
        )
        probes.append(p)
        return p

    def affordable() -> bool:
        return statistic.evaluations + nb + 1 <= budget

    for x, origin in mandatory:
        if input_key(x) not in seen:
            probe(x, origin)
    for x, origin in optional:
        if not affordable():
            break
        if input_key(x) not in seen:
            probe(x, origin)

    stall = 0
    while probes and affordable() and stall < _STALL_LIMIT:
        ranked = sorted(probes, key=lambda p: (p.ratio, p.local), reverse=True)
        parent = ranked[min(int(gen.geometric(0.5)) - 1, len(ranked) - 1)]
        move = _MOVE_CHOICE.draw(gen)
        try:
            if move == 0 and input_key(parent.best.y) != input_key(parent.x):
                child = parent.best.y
            else:
                child = relation.random_neighbour(parent.x, domain, gen)
                if move == 2:
                    child = relation.random_neighbour(child, domain, gen)
            child = domain.validate(child)
        except (InvalidInputError, UnsupportedCombinationError):
            stall += 1
            continue
        if input_key(child) in seen:
            stall += 1
            continue
        stall = 0
        new = probe(child, "local_search")
        # parent.x and child are both validated (probes are, and child just was)
        if move != 2 or relation.decide(parent.x, child, domain, validated=True).is_neighbour:
            steps.append((parent, new))
    return RatioSearch(
        probes=probes,
        steps=steps,
        neighbour_budget=nb,
        neighbourhood_size=size,
        statistic_evaluations=statistic.evaluations,
    )
