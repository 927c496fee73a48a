"""Checks of local node differential privacy (LNDP) on the joint messages.

For specs under :class:`~spec.LocalNodeRelation` on a :class:`~spec.domains.GraphDomain`:
``lndp.structure``, ``lndp.locality``, ``lndp.per_node``, ``lndp.joint_accounting`` and
``lndp.global_certificate`` (Lemma 5.4, error rate :data:`CERTIFICATE_ERROR`, outside the
audit's Bonferroni budget).  Node i's message is the block the spec's
:class:`~spec.MessageLayout` declares (:func:`message_blocks`).  No check is skipped in
silence: a required check that cannot run makes an audit without violation
``inconclusive``, with the remedy.

References: Raskhodnikova, Smith, Wagaman & Zavyalov, arXiv:2602.15802; Balle & Wang, ICML
2018.  Details: ``docs/engine_notes.md``, "privaudit.auditing.checks.local_node".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import networkx as nx
import numpy as np

from privaudit.auditing.checks._common import REL_TOL, pair_counterexample, required_skip, skipped
from privaudit.auditing.checks._examined_nodes import _locality_nodes, _nodes
from privaudit.auditing.checks._local_node_spec import (
    _additive_noise,
    _graph_domain,
    _laplace_scale,
    _local_relation,
)
from privaudit.auditing.checks.local_node_blackbox import (
    LocalityComparison,
    exposure_weights,
    layout_free_groups,
    sampled_changes,
)
from privaudit.auditing.exact.privacy import hockey_stick
from privaudit.auditing.outcome.results import CheckOutcome
from privaudit.auditing.pairs import CandidatePair
from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    FiniteRandomizer,
    Gaussian,
    Laplace,
    LocalNodeRelation,
    PureDP,
    RenyiDP,
)
from privaudit.spec.domains import GraphDomain
from privaudit.spec.errors import AuditError, PrivauditError

__all__ = [
    "CERTIFICATE_ERROR",
    "CERTIFICATE_GRAPHS",
    "check_global_certificate",
    "check_joint_accounting",
    "check_local_node",
    "check_locality",
    "check_message_structure",
    "check_per_node",
    "exposed_nodes",
    "local_node_checks_apply",
    "locality_needs_samples",
    "message_blocks",
]

#: Random D-regular graphs per degree in the Lemma 5.4 certificate check.
CERTIFICATE_GRAPHS = 128
#: Error rate of the certificate check (Hoeffding, over all degrees tested).
CERTIFICATE_ERROR = 1e-6
#: Degrees D of the regular graphs of the certificate check (those the domain allows).
CERTIFICATE_DEGREES = (1, 2, 3)
#: Most exposed nodes the auditor rewires first (:func:`exposed_nodes`).
EXPOSED_NODES = 2
#: Largest number of samples per graph of the black-box locality test.
LOCALITY_SAMPLES = 20_000


def local_node_checks_apply(mechanism: Mechanism) -> bool:
    """True when the spec claims privacy under ``LocalNodeRelation`` on a graph domain."""
    spec = mechanism.spec
    return isinstance(spec.relation, LocalNodeRelation) and isinstance(
        spec.input_domain, GraphDomain
    )


def message_blocks(mechanism: Mechanism) -> list[np.ndarray] | None:
    """Node i's coordinates of the release, for i = 0 … n − 1, or ``None`` if undeclared.

    They come from the spec's :class:`~spec.MessageLayout` (``LocalNodeRelation(layout=…)``,
    or ``declare_mechanism(..., layout=…)``).  Nothing is assumed when the spec declares
    none: an output of n·k coordinates need not be n blocks of k in node order (e.g. each
    edge reported once by its lower endpoint).
    """
    layout = getattr(mechanism.spec.relation, "layout", None)
    return None if layout is None else layout.arrays(_graph_domain(mechanism).n_nodes)


def exposed_nodes(
    mechanism: Mechanism, rng: np.random.Generator, top: int = EXPOSED_NODES
) -> tuple[tuple[int, ...], dict[str, Any]]:
    """The ``top`` nodes the mechanism's public randomness exposes most, and how they were found.

    Asks the mechanism (the ``node_exposure`` hook), else measures
    (:func:`~privaudit.auditing.checks.local_node_blackbox.exposure_weights`).  Returns ``()`` when
    nothing singles a node out (all weights equal, or no source).
    """
    spec = mechanism.spec
    found = exposure_weights(mechanism, spec.relation, spec.input_domain, rng)
    if found is None:
        return (), {
            "exposure": "none (no node_exposure hook, no statistic, no public randomness declared)"
        }
    weights, source = found
    if weights.size == 0 or float(weights.max()) <= float(weights.min()):
        return (), {"exposure": source, "exposure_uniform": True}
    order = np.argsort(-weights, kind="stable")[:top]
    return tuple(int(v) for v in order), {
        "exposure": source,
        "exposed_nodes": [int(v) for v in order],
        "exposure_weights": [float(weights[v]) for v in order],
    }


def locality_needs_samples(mechanism: Mechanism) -> bool:
    """True when ``lndp.locality`` must run on samples (no gray-box law to read it from)."""
    return local_node_checks_apply(mechanism) and _law_of(mechanism) is None


# -- the declared law of the messages on one graph -----------------------------------------
def _law_of(mechanism: Mechanism) -> tuple[str, Callable[[Any], np.ndarray]] | None:
    """(family, graph → parameters): stacked means or an (L, A) probability table."""
    noise = mechanism.spec.noise
    if isinstance(noise, AdditiveNoise) and mechanism.provides("statistic"):
        family = (
            "gaussian"
            if isinstance(noise.law, Gaussian)
            else "laplace"
            if isinstance(noise.law, Laplace)
            else "additive"
        )
        return family, lambda g: np.atleast_1d(np.asarray(mechanism.statistic(g), dtype=float))
    if isinstance(noise, FiniteRandomizer) and mechanism.provides("output_probabilities"):
        return "finite", lambda g: np.asarray(mechanism.output_probabilities(g), dtype=float)
    return None


_NO_HOOK = (
    "needs additive noise with the statistic hook, or a finite randomizer with the "
    "output_probabilities hook"
)
_COVERED = (
    "; its black-box version is the distinguishing test of the joint release on the "
    "relation's pairs (star toggles included), which runs"
)


def _claim(mechanism: Mechanism) -> tuple[float, float]:
    g = mechanism.spec.guarantee
    if not isinstance(g, (PureDP, ApproxDP, RenyiDP)):
        raise AuditError(f"the local-node checks need an epsilon claim, got {type(g).__name__}")
    return float(g.epsilon), float(getattr(g, "delta", 0.0) or 0.0)


def _delta_at(
    family: str,
    mechanism: Mechanism,
    p: np.ndarray,
    q: np.ndarray,
    epsilon: float,
    cache: dict[bytes, float] | None = None,
) -> tuple[float, float]:
    """(shift, exact δ(ε)) between the laws with parameters p and q (both orders).

    For a finite product law only the coordinates that differ matter, in any order: with a
    ``cache``, equal multisets of differing coordinates are computed once.
    """
    if family == "gaussian":
        law = _additive_noise(mechanism).law
        if not isinstance(law, Gaussian):
            raise AuditError(f"gaussian messages need a Gaussian law, got {type(law).__name__}")
        shift = float(np.linalg.norm(p - q))
        return shift, (law.privacy_profile(epsilon, shift) if shift > 0 else 0.0)
    if family == "finite":
        moved = np.any(p != q, axis=1)  # equal coordinates contribute no loss
        if not moved.any():
            return math.nan, 0.0
        p, q = p[moved], q[moved]
        rows = np.hstack([p, q])
        key = np.round(rows[np.lexsort(rows.T[::-1])], 15).tobytes() + repr(epsilon).encode()
        if cache is not None and key in cache:
            return math.nan, cache[key]
        d = float(max(hockey_stick(p, q, [epsilon])[0], hockey_stick(q, p, [epsilon])[0]))
        if cache is not None:
            cache[key] = d
        return math.nan, d
    raise AuditError(f"no exact accounting for {family} messages")  # pragma: no cover


# -- checks --------------------------------------------------------------------------------
def check_message_structure(mechanism: Mechanism) -> CheckOutcome:
    """``lndp.structure``: n public, the release is n per-node messages (the server's view).

    Required: without a declared layout the audit cannot say what each node sends, and is
    inconclusive unless another check finds a violation.
    """
    n = _graph_domain(mechanism).n_nodes
    dim = mechanism.spec.output_dimension
    blocks = message_blocks(mechanism)
    if blocks is None:
        return required_skip(
            "lndp.structure",
            f"the spec declares no message layout, so the {dim} output coordinate(s) cannot "
            f"be assigned to the n = {n} nodes",
            "declare which coordinates each node sends: LocalNodeRelation(layout="
            "MessageLayout.consecutive(sizes)) or declare_mechanism(..., layout=sizes)",
        )
    sizes = sorted({b.size for b in blocks})
    covered = np.sort(np.concatenate(blocks)) if blocks else np.empty(0, dtype=np.int64)
    ok = len(blocks) == n and np.array_equal(covered, np.arange(dim))
    public = getattr(mechanism.spec.relation, "public_randomness", None)
    rho = (
        "public randomness rho (" + public.drawn + "; reveals " + public.reveals + ")"
        if public is not None
        else "no public randomness declared"
    )
    return CheckOutcome(
        name="lndp.structure",
        status="passed" if ok else "violated",
        summary=(
            f"n = {n} is public (fixed by the input domain) and the declared layout "
            f"splits the release into {n} per-node messages of "
            f"{'/'.join(map(str, sizes))} coordinate(s); {rho}, held fixed: the server "
            "sees only rho and the messages"
            if ok
            else f"the declared node blocks do not partition the {dim} coordinates into {n} "
            "messages"
        ),
        details={
            "n": n,
            "block_sizes": [int(b) for b in sizes],
            "public_randomness": public is not None,
        },
    )


def _locality_bases(mechanism: Mechanism, candidates: Sequence[CandidatePair]) -> list[nx.Graph]:
    relation, domain = _local_relation(mechanism), _graph_domain(mechanism)
    n, bound = domain.n_nodes, relation.degree_bound(domain)
    star = nx.empty_graph(n)
    star.add_edges_from((0, u) for u in range(1, min(bound, n - 1) + 1))
    bases = [p.x for p in candidates[:2]] + [star]
    if bound >= 2:
        bases.append(nx.path_graph(n))
    return bases


def _locality_comparisons(
    mechanism: Mechanism,
    candidates: Sequence[CandidatePair],
    relation: LocalNodeRelation,
    blocks: list[np.ndarray] | None,
    nodes: list[int],
) -> list[LocalityComparison]:
    """Declared layout: v's block on same-view graphs; else layout-free disjoint toggles."""
    domain = _graph_domain(mechanism)
    n, bound = domain.n_nodes, relation.degree_bound(domain)
    if blocks is None:
        bases: list[tuple[nx.Graph, int]] = []
        for v in nodes:
            try:
                bases.append((relation.star_toggle(n, v)[1], v))
            except PrivauditError:
                continue
        bases.extend((g, 0) for g in _locality_bases(mechanism, candidates)[:2])
        if bound >= 2:
            bases.append((nx.path_graph(n), 0))
        return layout_free_groups(bases, mechanism.spec.output_dimension, bound)
    out = []
    group = 0
    for v in nodes:
        if blocks[v].size == 0:
            continue
        for base in _locality_bases(mechanism, candidates):
            try:
                others = relation.same_view_graphs(domain, base, v)
            except PrivauditError:  # a base outside the relation's bound: nothing to compare
                continue
            for other in others:
                out.append(LocalityComparison(base, other, blocks[v], v, group))
                group += 1
    return out


def check_locality(
    mechanism: Mechanism,
    candidates: Sequence[CandidatePair] = (),
    rng: np.random.Generator | None = None,
    *,
    alpha: float = 0.0,
    samples: int = LOCALITY_SAMPLES,
    relation: LocalNodeRelation | None = None,
) -> CheckOutcome:
    """``lndp.locality``: node v's message law is unchanged when only other lists change.

    Deterministic from the declared law with a gray-box hook; otherwise two-sample tests on
    ``samples`` outputs per graph at family-wise level ``alpha``
    (:mod:`~privaudit.auditing.checks.local_node_blackbox`).  Without a declared layout the test is
    the layout-free one.
    """
    name = "lndp.locality"
    relation = _local_relation(mechanism, relation)
    law, blocks = _law_of(mechanism), message_blocks(mechanism)
    nodes = _locality_nodes(mechanism, relation, law is not None, rng)
    n_nodes = _graph_domain(mechanism).n_nodes
    comparisons = _locality_comparisons(mechanism, candidates, relation, blocks, nodes)
    if not comparisons:
        return required_skip(
            name,
            "no graph pair with a fixed node view fits the domain",
            "allow a larger degree bound or more nodes",
        )
    layout_free = blocks is None
    if law is not None:
        _, params = law
        gaps = []
        for c in comparisons:
            a, b = params(c.base), params(c.other)
            rows = np.abs(a - b)
            gap = rows.max(axis=1) if rows.ndim == 2 else rows
            gaps.append(gap[c.coords])
        changed = [g > 1e-12 for g in gaps]
        sizes = [float(g.max(initial=0.0)) for g in gaps]
        how, level, tests = "exactly, from the declared law", 0.0, 0
    else:
        if rng is None or not alpha > 0.0:
            return required_skip(
                name,
                "the mechanism has no gray-box hook and no share of "
                "alpha was given for the black-box test",
                "audit it with privaudit.audit (which runs the black-box "
                "test), or give the statistic / output_probabilities hook",
            )
        m = int(min(samples, LOCALITY_SAMPLES))
        changed, level, tests = sampled_changes(mechanism, comparisons, rng, samples=m, alpha=alpha)
        sizes = [float(c.sum()) for c in changed]
        how = (
            f"on samples: two-sample KS tests, {m} outputs per graph, {tests} tests at "
            f"level {level:.3g} each (family-wise {alpha:.3g})"
        )
    flagged = None
    groups: dict[int, list[int]] = {}
    for i, c in enumerate(comparisons):
        groups.setdefault(c.group, []).append(i)
    for members in groups.values():
        both = np.logical_and.reduce([changed[i] for i in members])
        if both.any():
            flagged = (members, int(np.flatnonzero(both)[0]))
            break
    design = (
        "no layout declared: the layout-free test (a coordinate whose law moves when "
        "only the lists inside S1, and again when only those inside a disjoint S2, "
        "change belongs to no node)"
        if layout_free
        else "node v's declared block on graphs where only other nodes' lists change"
    )
    fixed = len(_nodes(mechanism, relation))
    coverage = (
        f"every one of the {n_nodes} nodes"
        if len(nodes) == n_nodes
        else f"{len(nodes)} of {n_nodes} nodes ({fixed} focus and end nodes, "
        f"{len(nodes) - fixed} random: any other node is examined with probability "
        f"{(len(nodes) - fixed) / max(1, n_nodes - fixed):.2g})"
    )
    details: dict[str, Any] = {
        "comparisons": len(comparisons),
        "nodes_examined": len(nodes),
        "node_coverage": coverage,
        "design": design,
        "black_box": law is None,
        "tests": tests,
        "level_per_test": level,
    }
    if flagged is not None:
        members, coord = flagged
        first = comparisons[members[0]]
        where = int(first.coords[coord]) if coord < first.coords.size else coord
        if layout_free:
            summary = (
                f"output coordinate {where} changes law when only the lists of nodes "
                f"inside one set change, and again when only those of a disjoint set "
                f"change: whatever node sends it reads other nodes' lists ({how})"
            )
        else:
            summary = (
                f"node {first.node}'s message law changes when only the OTHER nodes' "
                f"adjacency lists change: its randomizer reads more than its own "
                f"list ({how})"
            )
        other = comparisons[members[-1]].other
        return CheckOutcome(
            name=name,
            status="violated",
            summary=summary,
            statistic=max(sizes[i] for i in members),
            threshold=0.0,
            error_rate=alpha if law is None else 0.0,
            counterexample=pair_counterexample(
                first.base,
                other if layout_free else first.other,
                "layout_free_toggles" if layout_free else "same_view_graphs",
                "disjoint node sets toggled"
                if layout_free
                else f"node {first.node}'s adjacency list is identical",
                node=first.node,
                coordinate=where,
            ),
            details=details,
        )
    return CheckOutcome(
        name=name,
        status="passed",
        summary=(
            f"no message law changed when only other nodes' lists did "
            f"({len(comparisons)} comparisons over {coverage}; {design}; {how})"
        ),
        statistic=max(sizes, default=0.0),
        threshold=0.0,
        error_rate=alpha if law is None else 0.0,
        details=details,
    )


def check_per_node(mechanism: Mechanism, relation: LocalNodeRelation | None = None) -> CheckOutcome:
    """``lndp.per_node``: R_v(∅) against R_v(full list) is (ε, δ)-private (Claim 6.4(a))."""
    name = "lndp.per_node"
    law, blocks = _law_of(mechanism), message_blocks(mechanism)
    if law is None or blocks is None:
        return skipped(
            name,
            (_NO_HOOK if law is None else "the per-node messages are unknown (no layout declared)")
            + _COVERED,
        )
    family, params = law
    eps, delta = _claim(mechanism)
    if family not in ("gaussian", "finite"):
        return skipped(
            name,
            f"exact per-node accounting covers Gaussian and finite laws, not "
            f"{type(_additive_noise(mechanism).law).__name__}",
        )
    n = _graph_domain(mechanism).n_nodes
    worst = (-1.0, 0, 0.0)
    for v in _nodes(mechanism, relation):
        empty, star = _local_relation(mechanism).star_toggle(n, v)
        try:
            p, q = params(empty)[blocks[v]], params(star)[blocks[v]]
        except PrivauditError:  # the full list breaks the domain's degree bound
            continue
        shift, d = _delta_at(family, mechanism, p, q, eps)
        if d > worst[0]:
            worst = (d, v, shift)
    d, v, shift = worst
    if d < 0:
        return skipped(name, "no node's full list fits the domain's degree bound")
    bad = d > delta * (1 + REL_TOL) + 1e-15
    return CheckOutcome(
        name=name,
        status="violated" if bad else "passed",
        summary=(
            f"node {v}'s own message between the empty and the full list: exact "
            f"delta({eps:g}) = {d:.3g} {'>' if bad else '<='} {delta:g}"
        ),
        statistic=d,
        threshold=delta,
        details={"node": v, "shift": shift},
    )


def _adversarial(
    mechanism: Mechanism,
    candidates: Sequence[CandidatePair],
    relation: LocalNodeRelation | None = None,
) -> list[tuple[Any, Any, str]]:
    relation = _local_relation(mechanism, relation)
    domain = _graph_domain(mechanism)
    pairs = [(x, y, o) for x, y, o in relation.local_node_pairs(domain)]
    n = domain.n_nodes
    x, y = relation.star_toggle(n, 0)
    pairs.append((x, y, "star_toggle"))
    pairs.extend((p.x, p.y, p.origin) for p in candidates)
    return pairs


def check_joint_accounting(
    mechanism: Mechanism,
    candidates: Sequence[CandidatePair] = (),
    relation: LocalNodeRelation | None = None,
) -> CheckOutcome:
    """``lndp.joint_accounting``: exact δ(ε_claim) of the joint messages at the worst pair."""
    name = "lndp.joint_accounting"
    law = _law_of(mechanism)
    if law is None:
        return skipped(name, _NO_HOOK + _COVERED)
    family, params = law
    eps, delta = _claim(mechanism)
    if family == "finite":
        return skipped(name, "finite randomizers are accounted exactly by exact.privacy")
    if family == "additive" or (family == "laplace" and delta > 0):
        return skipped(
            name,
            "exact joint accounting covers Gaussian messages and Laplace "
            "messages under a pure claim",
        )
    domain = _graph_domain(mechanism)
    worst: tuple[float, float, tuple[Any, Any, str] | None] = (-1.0, 0.0, None)
    for x, y, origin in _adversarial(mechanism, candidates, relation):
        try:
            p, q = params(x), params(y)
        except PrivauditError:  # a generated graph outside the domain's bound
            continue
        if family == "laplace":
            shift = float(np.abs(p - q).sum())
            value = shift / _laplace_scale(mechanism)  # the loss bound, vs ε
        else:
            shift, value = _delta_at(family, mechanism, p, q, eps)
        if value > worst[0]:
            worst = (value, shift, (x, y, origin))
    value, shift, where = worst
    if where is None:
        return skipped(name, f"no pair fits {domain.label()}")
    limit = eps if family == "laplace" else delta
    bad = value > limit * (1 + REL_TOL) + (0.0 if family == "laplace" else 1e-15)
    what = (
        f"l1 loss bound {value:.4g} vs epsilon {eps:g}"
        if family == "laplace"
        else f"exact delta({eps:g}) = {value:.3g} vs delta {delta:g}"
    )
    x, y, origin = where
    return CheckOutcome(
        name=name,
        status="violated" if bad else "passed",
        summary=f"joint messages at the worst pair ({origin}, shift {shift:.4g}): {what}",
        statistic=value,
        threshold=limit,
        ratio=value / limit if limit > 0 else None,
        counterexample=pair_counterexample(
            x, y, origin, "node neighbours", shift=shift, value=value
        )
        if bad
        else None,
        details={"family": family, "shift": shift, "origin": origin},
    )


def check_global_certificate(
    mechanism: Mechanism, rng: np.random.Generator, graphs: int = CERTIFICATE_GRAPHS
) -> CheckOutcome:
    """``lndp.global_certificate``: E_G TV(A(∅), A(G)) against Lemma 5.4, G D-regular."""
    from privaudit.estimators.lndp.accounting import regular_graph_tv_bound

    name = "lndp.global_certificate"
    law = _law_of(mechanism)
    if law is None:
        return skipped(
            name,
            _NO_HOOK + "; a consequence of the joint claim, which the distinguishing test checks",
        )
    family, params = law
    if family not in ("gaussian", "finite"):
        return skipped(
            name,
            "exact total variation covers Gaussian and finite laws, not "
            f"{type(_additive_noise(mechanism).law).__name__}",
        )
    relation, graphs_domain = _local_relation(mechanism), _graph_domain(mechanism)
    domain = GraphDomain(
        n_nodes=graphs_domain.n_nodes, max_degree=relation.degree_bound(graphs_domain)
    )
    n = domain.n_nodes
    eps, delta = _claim(mechanism)
    degrees = [
        d for d in CERTIFICATE_DEGREES if d <= domain.degree_bound and d < n and (n * d) % 2 == 0
    ]
    if not degrees:
        return skipped(
            name, f"no D-regular graph with D in {CERTIFICATE_DEGREES} fits {domain.label()}"
        )
    radius = math.sqrt(math.log(len(degrees) / CERTIFICATE_ERROR) / (2.0 * graphs))
    empty = params(relation.star_toggle(n, 0)[0])
    rows = []
    worst = None
    cache: dict[bytes, float] = {}
    for d in degrees:
        tvs = np.array(
            [
                _delta_at(family, mechanism, params(g), empty, 0.0, cache)[1]
                for g in relation.regular_graphs(domain, d, graphs, rng)
            ]
        )
        bound = regular_graph_tv_bound(n, d, eps, delta)
        lower = max(0.0, float(tvs.mean()) - radius)
        rows.append({"D": d, "mean_tv": float(tvs.mean()), "lower": lower, "bound": bound})
        if worst is None or lower - bound > worst["lower"] - worst["bound"]:
            worst = rows[-1]
    assert worst is not None
    bad = worst["lower"] > worst["bound"]
    return CheckOutcome(
        name=name,
        status="violated" if bad else "passed",
        summary=(
            f"Lemma 5.4 at D = {worst['D']}: mean exact TV between the messages on a "
            f"random D-regular graph and on the empty graph = {worst['mean_tv']:.3g} "
            f"(lower bound {worst['lower']:.3g}) {'>' if bad else '<='} the certificate "
            f"{worst['bound']:.3g} valid for every ({eps:g}, {delta:g})-LNDP algorithm"
        ),
        statistic=worst["lower"],
        threshold=worst["bound"],
        ratio=worst["lower"] / worst["bound"] if worst["bound"] > 0 else None,
        error_rate=CERTIFICATE_ERROR,
        details={"degrees": [dict(r.items()) for r in rows], "graphs_per_degree": graphs},
    )


def check_local_node(
    mechanism: Mechanism,
    candidates: Sequence[CandidatePair],
    rng: np.random.Generator,
    *,
    alpha: float = 0.0,
    samples: int = LOCALITY_SAMPLES,
    relation: LocalNodeRelation | None = None,
) -> list[CheckOutcome]:
    """All LNDP checks, in order (see the module docstring).

    ``alpha`` is the share of the audit's α for the black-box locality test (spent only
    when :func:`locality_needs_samples`); ``relation`` the spec's relation focused on the
    exposed nodes (:func:`exposed_nodes`).
    """
    return [
        check_message_structure(mechanism),
        check_locality(mechanism, candidates, rng, alpha=alpha, samples=samples, relation=relation),
        check_per_node(mechanism, relation),
        check_joint_accounting(mechanism, candidates, relation),
        check_global_certificate(mechanism, rng),
    ]
