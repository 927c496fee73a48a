"""Candidate neighbouring pairs: the user's own, adversarial ones from extremes, then random.

:func:`candidate_pairs` lists the pairs an audit starts from, best guesses first:

1. **explicit** pairs given by the user (an unrelated one is an error naming it);
2. **adversarial** pairs combining the domain's :meth:`~spec.domains.DomainBase.extremes`
   with moves specific to the relation (origin ``"extreme"``, or for node relations the
   generator's name: ``"star_toggle"``, ``"threshold_star_toggle"``,
   ``"threshold_complement_rewiring"``, ``"complement_rewiring"``, ``"hub_insertion"``,
   ``"degree_preserving_swap"``; see :func:`_node_extremes`);
3. **random** pairs from :meth:`~spec.relations.NeighbouringRelationBase.random_pair`
   until the budget is reached.

Pairs are deduplicated on the canonical key ``repr(to_jsonable(x)), repr(to_jsonable(y))``
(a pair and its swap count once); generated pairs of identical inputs are dropped.  Every
pair is built by :func:`~privaudit.pairs.verified_pair`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from typing import Any

import networkx as nx
import numpy as np

from spec import (
    AddRemoveOne,
    EdgeNeighbouring,
    GraphDomain,
    LocalRelation,
    MechanismSpec,
    QueryDistance,
    RandomLike,
    SubstituteOne,
    VectorDomain,
    as_generator,
)
from spec.errors import InvalidInputError

from ..pairs import CandidatePair, to_jsonable, verified_pair
from ._common import PairRegistry, check_count, effective_graph_domain, try_pair
from ._moves import NODE_RELATIONS

__all__ = ["RANDOM_MISS_LIMIT", "candidate_pairs", "extreme_pairs", "threshold_hints"]

#: Consecutive repeated random pairs after which the random phase gives up (small domains).
RANDOM_MISS_LIMIT = 64

#: Random draws allowed per pair of the budget (repeats and identical pairs are redrawn).
_RANDOM_TRIES_PER_PAIR = 20
#: Characters of each input shown when an explicit pair is refused.
_SHOWN_CHARACTERS = 60

_Raw = tuple[Any, Any, str]


def candidate_pairs(
    spec: MechanismSpec,
    rng: RandomLike,
    *,
    budget: int = 64,
    explicit_pairs: Iterable[Any] = (),
) -> list[CandidatePair]:
    """Explicit, adversarial and random neighbouring pairs, at most ``budget`` generated.

    Parameters
    ----------
    spec : MechanismSpec
        Supplies the input domain and the neighbouring relation.
    rng : Generator, int or None
        The only source of randomness (used for the random phase).
    budget : int
        Largest number of pairs returned.  Explicit pairs are always all returned and
        count towards the budget, so more explicit pairs than ``budget`` leaves no room
        for generated ones.
    explicit_pairs : iterable of (x, y) or CandidatePair
        Pairs the user wants audited; they come first, with origin ``"explicit"``.

    Returns
    -------
    list of CandidatePair
        Distinct verified pairs: explicit, then adversarial, then random.

    Raises
    ------
    InvalidParameterError
        If ``budget`` is not an integer ``≥ 0``.
    NotNeighboursError
        If an explicit pair is not related; the message gives its position and reason.
    InvalidInputError
        If an explicit input is not in the domain (or the pair is not a 2-tuple).
    """
    budget = check_count(budget, "budget", 0)
    gen = as_generator(rng)
    registry = PairRegistry(capacity=budget)
    for index, item in enumerate(explicit_pairs):
        registry.add(_explicit_pair(spec, index, item), force=True)
    registry.add_all(try_pair(spec, x, y, origin) for x, y, origin in extreme_pairs(spec))
    misses = 0
    for _ in range(_RANDOM_TRIES_PER_PAIR * budget):
        if registry.full or misses >= RANDOM_MISS_LIMIT:
            break
        x, y = spec.relation.random_pair(spec.input_domain, gen)
        misses = 0 if registry.add(try_pair(spec, x, y, "random")) else misses + 1
    return registry.pairs


def _explicit_pair(spec: MechanismSpec, index: int, item: Any) -> CandidatePair:
    """Verify the user's pair number ``index``, re-raising with its position in the message."""
    if isinstance(item, CandidatePair):
        x, y = item.x, item.y
    else:
        try:
            x, y = item
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"explicit pair {index} must be an (x, y) pair, got {type(item).__name__}"
            ) from None
    try:
        return verified_pair(spec, x, y, "explicit")
    except InvalidInputError as err:
        shown = f"x={_short(x)}, y={_short(y)}"
        raise type(err)(f"explicit pair {index} ({shown}): {err}") from err


def _short(value: Any) -> str:
    text = repr(to_jsonable(value))
    return text if len(text) <= _SHOWN_CHARACTERS else text[: _SHOWN_CHARACTERS - 3] + "..."


# ----------------------------------------------------------------------------------------
# adversarial pairs
# ----------------------------------------------------------------------------------------
def extreme_pairs(spec: MechanismSpec) -> Iterator[_Raw]:
    """Raw adversarial ``(x, y, origin)`` triples for the spec's relation (not yet verified).

    Deterministic; see :func:`candidate_pairs` for the patterns of each relation.  A
    relation that owns adversarial moves (an ``adversarial_pairs(domain)`` method yielding
    ``(x, y, origin)``) has them tried first.
    """
    own = getattr(spec.relation, "adversarial_pairs", None)
    generic = _relation_extremes(spec)
    return generic if own is None else itertools.chain(own(spec.input_domain), generic)


def _relation_extremes(spec: MechanismSpec) -> Iterator[_Raw]:
    """The generic adversarial patterns of the spec's relation type."""
    relation = spec.relation
    if isinstance(relation, SubstituteOne):
        return _substitution_extremes(spec)
    if isinstance(relation, AddRemoveOne):
        return _add_remove_extremes(spec)
    if isinstance(relation, QueryDistance):
        return _query_distance_extremes(spec)
    if isinstance(relation, EdgeNeighbouring):
        return _edge_extremes(spec)
    if isinstance(relation, NODE_RELATIONS):
        return _node_extremes(spec)
    if isinstance(relation, LocalRelation):
        return _local_extremes(spec)
    return iter(())


def _substitution_extremes(spec: MechanismSpec) -> Iterator[_Raw]:
    """Record 0 and a middle record of each extreme dataset replaced by each record extreme."""
    domain = spec.input_domain
    for x in domain.extremes():
        for i in dict.fromkeys([0, x.shape[0] // 2]):
            for record in domain.record.extremes():
                y = x.copy()
                y[i] = record
                yield x, y, "extreme"


def _add_remove_extremes(spec: MechanismSpec) -> Iterator[_Raw]:
    """Each extreme dataset with its first and last record removed, or an extreme added."""
    domain = spec.input_domain
    for x in domain.extremes():
        if x.shape[0] > domain.min_size:
            for i in dict.fromkeys([0, x.shape[0] - 1]):
                yield x, np.delete(x, i, axis=0), "extreme"
        for record in domain.record.extremes():
            yield x, np.concatenate([x, np.asarray(record, dtype=x.dtype)[None]]), "extreme"


def _query_distance_extremes(spec: MechanismSpec) -> Iterator[_Raw]:
    """StatDP-style neighbours of the zero vector and of each extreme vector.

    The zero vector comes first: query answers around it sit where the noise makes
    outputs uncertain (a sparse vector's threshold, a noisy max's ties), which is where
    the privacy loss shows, while at the domain's extremes (±10⁶ for unbounded answers)
    most outputs are certain on both inputs.  Under a small pair budget the zero
    vector's patterns are the ones kept.
    """
    domain, relation = spec.input_domain, spec.relation
    starts = []
    zero = np.zeros(domain.length) if isinstance(domain, VectorDomain) else 0.0
    if domain.contains(zero):
        starts.append(domain.validate(zero))
    starts.extend(domain.extremes())
    for x in starts:
        for y in relation.extreme_neighbours(x, domain):
            yield x, y, "extreme"


def _max_degree_node(graph: nx.Graph) -> int:
    return min(graph.nodes, key=lambda v: (-graph.degree(v), v))


def _min_degree_node(graph: nx.Graph) -> int:
    return min(graph.nodes, key=lambda v: (graph.degree(v), v))


def _edge_extremes(spec: MechanismSpec) -> Iterator[_Raw]:
    """At a max-degree node of each extreme graph: drop its first edge, add its first non-edge."""
    domain = spec.input_domain
    bound = domain.degree_bound
    for x in domain.extremes():
        if x.number_of_nodes() < 2:
            continue
        v = _max_degree_node(x)
        present = sorted(x[v])
        if present:
            y = x.copy()
            y.remove_edge(v, present[0])
            yield x, y, "extreme"
        absent = [u for u in x.nodes if u != v and u not in x[v] and x.degree(u) < bound]
        if absent and x.degree(v) < bound:
            y = x.copy()
            y.add_edge(v, absent[0])
            yield x, y, "extreme"


def _node_extremes(spec: MechanismSpec) -> Iterator[_Raw]:
    """The node-neighbouring generators of ``lndp_spec.md`` §5.2, most telling first.

    1. the star toggle (∅ against a star at node 0);
    2. threshold backgrounds at the *hinted* thresholds (:func:`threshold_hints`): many
       nodes at the threshold, pushed over it by a star toggle or a complement rewiring;
    3. complement rewiring of a hub and of an isolated node of each domain extreme;
    4. hub insertion at nodes 0 and n − 1 of each extreme;
    5. degree-preserving swaps at the hub of each extreme and of a half star (``v`` joined
       to ⌊(n − 1)/2⌋ nodes, so the old and new neighbourhoods split the other nodes);
    6. threshold backgrounds at every other valid threshold, in increasing order.
    """
    relation = spec.relation
    bounded = effective_graph_domain(spec)
    n = bounded.n_nodes
    x, y = relation.star_toggle(n, 0)
    yield x, y, "star_toggle"
    hinted = threshold_hints(spec)
    yield from _threshold_pairs(relation, bounded, hinted)
    backgrounds = bounded.extremes()
    for graph in backgrounds:
        for v in dict.fromkeys([_max_degree_node(graph), _min_degree_node(graph)]):
            x, y = relation.complement_rewiring(graph, v, bounded)
            yield x, y, "complement_rewiring"
    for graph in backgrounds:
        for v in dict.fromkeys([0, n - 1]):
            x, y = relation.hub_insertion(graph, v, bounded)
            yield x, y, "hub_insertion"
    half = min(bounded.degree_bound, (n - 1) // 2)
    half_star = nx.empty_graph(n)
    half_star.add_edges_from((0, u) for u in range(1, half + 1))
    for graph in (*backgrounds, half_star):
        x, y = relation.degree_preserving_swap(graph, _max_degree_node(graph), bounded)
        yield x, y, "degree_preserving_swap"
    others = [t for t in range(1, n - 1) if t not in hinted]
    yield from _threshold_pairs(relation, bounded, others)


def threshold_hints(spec: MechanismSpec) -> list[int]:
    """Degree thresholds worth trying first for a node relation, from the public claims.

    A mechanism that truncates or projects at degree D usually claims a sensitivity
    proportional to D (D itself for an edge count) under a relation whose own degree
    bound, if any, is D.  The hints are ``⌊Δ⌋`` and ``⌈Δ⌉`` for a claimed global
    sensitivity Δ, and ``max_degree − 1`` (the largest threshold that can still be pushed)
    for a bounded relation, kept when they lie in ``1 … n − 2``.  They only order the
    candidates: every other threshold is tried afterwards.
    """
    n = spec.input_domain.n_nodes
    hints: list[int] = []
    claim = spec.global_sensitivity
    if claim is not None and math.isfinite(claim.value):
        hints += [math.floor(claim.value), math.ceil(claim.value)]
    max_degree = getattr(spec.relation, "max_degree", None)
    if max_degree is not None:
        hints.append(max_degree - 1)
    return [t for t in dict.fromkeys(hints) if 1 <= t <= n - 2]


def _threshold_pairs(relation: Any, bounded: GraphDomain, thresholds: Iterable[int]
                     ) -> Iterator[_Raw]:
    """Both threshold generators at each valid threshold (invalid ones are skipped)."""
    n, bound = bounded.n_nodes, bounded.degree_bound
    for t in thresholds:
        if 1 <= t < bound and t <= n - 2:
            x, y = relation.threshold_star_toggle(n, t, 0, bounded)
            yield x, y, "threshold_star_toggle"
        if 1 <= t < bound and t <= n // 2:
            x, y = relation.threshold_complement_rewiring(n, t, 0, bounded)
            yield x, y, "threshold_complement_rewiring"


def _local_extremes(spec: MechanismSpec) -> Iterator[_Raw]:
    """Every pair of distinct domain extremes."""
    for x, y in itertools.combinations(spec.input_domain.extremes(), 2):
        yield x, y, "extreme"
