"""Black-box parts of the local-node checks: locality on samples, and node exposure.

Locality is tested without gray-box hooks by two-sample tests: with a declared layout, node
v's block must not move when only other nodes' lists change; without one, a coordinate must
not move under both of two changes inside disjoint node sets S₁ and S₂ (a test valid for
every layout).  The tests share α_locality by Bonferroni.  :func:`exposure_weights` ranks
the nodes by how much the public randomness ρ exposes them.

Reference: Raskhodnikova, Smith, Wagaman & Zavyalov, arXiv:2602.15802.  Details:
``docs/engine_notes.md``, "privaudit.auditing.checks.local_node_blackbox".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
from scipy import stats

from privaudit.auditing.sampler_outputs import draw_outputs
from privaudit.mechanisms import Mechanism
from privaudit.spec import AdditiveNoise, Gaussian
from privaudit.spec.errors import PrivauditError

__all__ = [
    "EXPOSURE_SAMPLES",
    "LocalityComparison",
    "column_ks_statistics",
    "exposure_weights",
    "layout_free_groups",
    "sampled_changes",
    "toggle_within",
]

#: Samples per node of the black-box exposure estimate.
EXPOSURE_SAMPLES = 2_000
#: Largest n for which exposure is estimated node by node.
EXPOSURE_MAX_NODES = 256


@dataclass(frozen=True)
class LocalityComparison:
    """Two graphs on which the watched coordinates must have the same law.

    ``group`` ties the two halves of a layout-free test (a coordinate is flagged only when
    it moves in every comparison of its group); ``node`` is the node whose view is held;
    ``sum_test``: the sum of the watched coordinates is tested too (one node's block; not
    in the layout-free test, whose watched coordinates span every node).
    """

    base: nx.Graph
    other: nx.Graph
    coords: np.ndarray
    node: int
    group: int
    sum_test: bool = True


def toggle_within(graph: nx.Graph, nodes: Sequence[int], bound: int) -> nx.Graph:
    """``graph`` with every edge inside ``nodes`` toggled (added only within ``bound``).

    Only the adjacency lists of ``nodes`` change.
    """
    out = graph.copy()
    members = sorted(int(u) for u in nodes)
    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            if out.has_edge(a, b):
                out.remove_edge(a, b)
            elif out.degree(a) < bound and out.degree(b) < bound:
                out.add_edge(a, b)
    return out


def _edges(graph: nx.Graph) -> frozenset[tuple[int, int]]:
    return frozenset((min(a, b), max(a, b)) for a, b in graph.edges())


def layout_free_groups(
    bases: Sequence[tuple[nx.Graph, int]], dimension: int, bound: int, first_group: int = 0
) -> list[LocalityComparison]:
    """Pairs of comparisons B → B ⊕ S₁ and B → B ⊕ S₂ with S₁ ∩ S₂ = ∅ (module docstring).

    ``bases`` lists (B, v): S₁ and S₂ split the nodes other than v into halves, so v's own
    list (the centre of a star base) is held in both.  Groups whose toggles change nothing
    are dropped.
    """
    out: list[LocalityComparison] = []
    group = first_group
    every = np.arange(dimension)
    for base, v in bases:
        n = base.number_of_nodes()
        others = [u for u in range(n) if u != v]
        half = len(others) // 2
        if half < 2:
            continue
        first = toggle_within(base, others[:half], bound)
        second = toggle_within(base, others[half:], bound)
        old = _edges(base)
        if _edges(first) == old or _edges(second) == old:
            continue
        out.append(LocalityComparison(base, first, every, v, group, sum_test=False))
        out.append(LocalityComparison(base, second, every, v, group, sum_test=False))
        group += 1
    return out


def _tests_of(comparison: LocalityComparison) -> int:
    k = comparison.coords.size
    return k + (1 if k > 1 and comparison.sum_test else 0)


def sampled_changes(
    mechanism: Mechanism,
    comparisons: Sequence[LocalityComparison],
    rng: np.random.Generator,
    *,
    samples: int,
    alpha: float,
) -> tuple[list[np.ndarray], float, int]:
    """Which watched coordinates' laws differ, by two-sample KS tests at Bonferroni level.

    Returns, per comparison, a boolean array over its watched coordinates (True: the law
    changed; the block's sum, when tested, counts for every coordinate of the block), the
    per-test level and the number of tests.  Each graph is sampled once
    (``samples`` outputs) and shared by the comparisons that use it.
    """
    tests = sum(_tests_of(c) for c in comparisons)
    level = alpha / max(tests, 1)
    cache: dict[frozenset[tuple[int, int]], np.ndarray] = {}

    def draws(graph: nx.Graph) -> np.ndarray:
        key = _edges(graph)
        if key not in cache:
            out = np.asarray(draw_outputs(mechanism, graph, samples, rng), dtype=float)
            cache[key] = out.reshape(samples, -1)
        return cache[key]

    # the Kolmogorov limit law of the two-sample statistic from 1000 outputs per side on
    # (its error is far below the Bonferroni levels used here); the exact law below that
    method = "asymp" if samples >= 1_000 else "exact"
    changed = []
    for c in comparisons:
        a, b = draws(c.base)[:, c.coords], draws(c.other)[:, c.coords]
        p = np.atleast_1d(stats.ks_2samp(a, b, axis=0, method=method).pvalue)
        moved = p < level
        if c.coords.size > 1 and c.sum_test:
            total = stats.ks_2samp(a.sum(axis=1), b.sum(axis=1), method=method).pvalue
            if total < level:
                moved = np.ones_like(moved)
        changed.append(moved)
    return changed, level, tests


def exposure_weights(
    mechanism: Mechanism,
    relation: Any,
    domain: Any,
    rng: np.random.Generator,
    samples: int = EXPOSURE_SAMPLES,
) -> tuple[np.ndarray, str] | None:
    """(n weights, where they came from): how exposed each node is under the realised ρ.

    ``None`` when no source applies (no hook, no statistic with additive noise, and no
    declared public randomness), or n is above :data:`EXPOSURE_MAX_NODES` for the
    node-by-node estimates.
    """
    n = domain.n_nodes
    if mechanism.provides("node_exposure"):
        try:
            return np.asarray(mechanism.node_exposure(), dtype=float), "node_exposure hook"
        except NotImplementedError:  # a wrapper that forwards provides() but not the hook
            pass
    if n > EXPOSURE_MAX_NODES:
        return None
    noise = mechanism.spec.noise
    stars = []
    for v in range(n):
        try:
            stars.append(relation.star_toggle(n, v))
        except PrivauditError:
            return None
    if isinstance(noise, AdditiveNoise) and mechanism.provides("statistic"):
        order = 2 if isinstance(noise.law, Gaussian) else 1

        def f(g: Any) -> np.ndarray:
            return np.atleast_1d(np.asarray(mechanism.statistic(g), dtype=float)).ravel()

        empty = f(stars[0][0])
        return (
            np.array([np.linalg.norm(f(star) - empty, ord=order) for _, star in stars]),
            "statistic hook (star-toggle shift per node)",
        )
    if getattr(relation, "public_randomness", None) is None:
        return None
    base = np.asarray(draw_outputs(mechanism, stars[0][0], samples, rng), dtype=float).reshape(
        samples, -1
    )
    weights = np.empty(n)
    for v, (_, star) in enumerate(stars):
        out = np.asarray(draw_outputs(mechanism, star, samples, rng), dtype=float).reshape(
            samples, -1
        )
        d = column_ks_statistics(base, out)
        weights[v] = float(np.sum(d * d) * samples / 2.0)
    return weights, (
        f"sampled star-toggle shift of each coordinate's law (two-sample Kolmogorov-Smirnov "
        f"distance, {samples} samples per node: mean, spread and shape)"
    )


def column_ks_statistics(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The two-sample Kolmogorov–Smirnov distance sup_t |F_a(t) − F_b(t)| of every column
    of ``a`` (m × d) against the same column of ``b`` (m′ × d), vectorised; ties are
    handled by reading the empirical CDFs only after the last copy of each value."""
    m, k = a.shape[0], b.shape[0]
    both = np.concatenate([a, b], axis=0)
    order = np.argsort(both, axis=0, kind="stable")
    values = np.take_along_axis(both, order, axis=0)
    steps = np.where(order < m, 1.0 / m, -1.0 / k)
    gaps = np.abs(np.cumsum(steps, axis=0))
    last_of_value = np.ones_like(values, dtype=bool)
    last_of_value[:-1] = values[1:] != values[:-1]
    return np.max(np.where(last_of_value, gaps, 0.0), axis=0)
