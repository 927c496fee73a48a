"""The private coarse estimate of the edge probability that sets ξ (``docs/derivations.md`` §4).

Node sensitivity.  Under node neighbouring (rewire the edges of one node v; the node
set {0, …, n − 1} is public), only the pairs {v, u} change:

* edge density e(G)/C(n, 2) moves by at most (n − 1)/C(n, 2) = **2/n** (attained by the
  star toggle: v isolated vs v adjacent to every other node);
* triangle density t(G)/C(n, 3) moves by at most C(n − 1, 2)/C(n, 3) = **3/n** (attained
  by K_n vs K_n with v isolated).

So edge density + Laplace(2/(nε₀)) is ε₀-DP under node neighbouring (Dwork, McSherry,
Nissim & Smith 2006), and the upper confidence bound below is post-processing.

Upper confidence bound.  With p̂ = U_n + Z, Z ~ Laplace(b), b = 2/(nε₀):
P(−Z > b ln(1/γ₀)) = γ₀/2, and Chebyshev with Var(U_n) = 2p(1 − p)/(n(n − 1))
≤ 2p/(n(n − 1)) (ζ_1 = 0, docs/derivations.md §6) gives p − U_n ≤ c√p with c = √(4/(γ₀ n(n − 1)))
with probability ≥ 1 − γ₀/2.  Hence p ≤ x + c√p with x = p̂ + b ln(1/γ₀), i.e.

    p ≤ p_up := min{1, ((c + √(c² + 4 max(x, 0)))/2)²}     with probability ≥ 1 − γ₀.

For triangle density the same estimate gives θ ≤ p_up², because θ ≤ E[A_12 A_13] = p²
when A_12, A_13 are independent given X_1 (the RGG model).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from privaudit.mechanisms import LaplaceMechanism
from privaudit.mechanisms.accounting import charge
from privaudit.spec import (
    GraphDomain,
    Laplace,
    NodeNeighbouring,
    PureDP,
    RandomLike,
    Reference,
    as_generator,
    check_epsilon,
)
from privaudit.spec.errors import (
    InvalidParameterError,
    ParameterTypeError,
    SampleSizeError,
    UnsupportedCombinationError,
)

from ..ustatistics.concentration import INNER_FAILURE_PROBABILITY, check_failure_probability
from ._adjacency import as_adjacency
from .densities import edge_density, triangle_density

__all__ = [
    "CoarseDensityEstimate",
    "coarse_density_mechanism",
    "edge_density_node_sensitivity",
    "edge_probability_upper_bound",
    "edge_probability_upper_bounds",
    "private_coarse_edge_density",
    "triangle_density_node_sensitivity",
]

DensityName = Literal["edge_density", "triangle_density"]

CHAUDHURI_2024_NETWORK = Reference(
    citation="Chaudhuri, Loh, Pandey & Sarkar, 'On differentially private U statistics', "
    "NeurIPS 2024 (arXiv 2407.04945)",
    locator="Section 5.2 and Algorithm A.5 (node-level privacy; xi from a coarse "
    "private estimate, privaudit docs/derivations.md section 4)",
)


def _check_nodes(n: Any, minimum: int, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise ParameterTypeError(f"{what} needs an integer n >= {minimum} nodes, got n={n!r}")
    if int(n) < minimum:
        raise SampleSizeError(f"{what} needs n >= {minimum} nodes, got n={n!r}")
    return int(n)


def edge_density_node_sensitivity(n: int) -> float:
    """2/n: the global sensitivity of edge density under node neighbouring on n ≥ 2 nodes.

    Examples
    --------
    >>> edge_density_node_sensitivity(10)
    0.2
    """
    size = _check_nodes(n, 2, "edge density")
    return (size - 1) / math.comb(size, 2)


def triangle_density_node_sensitivity(n: int) -> float:
    """3/n: the global sensitivity of triangle density under node neighbouring on n ≥ 3 nodes.

    Examples
    --------
    >>> round(triangle_density_node_sensitivity(10), 12)
    0.3
    """
    size = _check_nodes(n, 3, "triangle density")
    return math.comb(size - 1, 2) / math.comb(size, 3)


_DENSITIES = {
    "edge_density": (
        edge_density,
        edge_density_node_sensitivity,
        2,
        "edge density e(G)/C(n,2) of a simple graph on n nodes",
    ),
    "triangle_density": (
        triangle_density,
        triangle_density_node_sensitivity,
        3,
        "triangle density t(G)/C(n,3) of a simple graph on n nodes",
    ),
}


def coarse_density_mechanism(
    n: int, epsilon: float, statistic: DensityName = "edge_density"
) -> LaplaceMechanism:
    """The ε-node-DP Laplace mechanism for the edge (or triangle) density of a graph on n nodes.

    Parameters
    ----------
    n : int
        The public number of nodes.
    epsilon : float
        ε₀ > 0.
    statistic : {"edge_density", "triangle_density"}
        Which density; its node sensitivity is 2/n or 3/n.

    Returns
    -------
    LaplaceMechanism
        On ``GraphDomain(n_nodes=n)`` under ``NodeNeighbouring()``, with the ``statistic``
        hook, so the auditor checks the node sensitivity on graph pairs.

    Examples
    --------
    >>> mech = coarse_density_mechanism(10, 0.5)
    >>> mech.spec.global_sensitivity.value, mech.spec.relation.kind
    (0.2, 'node')
    """
    if statistic not in _DENSITIES:
        raise InvalidParameterError(
            f"statistic must be 'edge_density' or 'triangle_density', got {statistic!r}"
        )
    function, sensitivity, k, description = _DENSITIES[statistic]
    size = _check_nodes(n, k, statistic.replace("_", " "))
    return LaplaceMechanism(
        check_epsilon(epsilon),
        sensitivity(size),
        statistic=function,
        input_domain=GraphDomain(n_nodes=size),
        relation=NodeNeighbouring(),
        name=f"graphs.coarse_{statistic}",
        statistic_description=f"{description} (node sensitivity {sensitivity(size):.6g} = "
        f"{k}/n under node neighbouring)",
        summary=f"{statistic.replace('_', ' ')} plus Laplace({k}/(n epsilon)) noise: "
        "epsilon-DP under node neighbouring (changing one latent point = rewiring "
        "one node)",
        references=(CHAUDHURI_2024_NETWORK,),
    )


def edge_probability_upper_bounds(
    noisy_densities: Any, n: int, epsilon: float, *, gamma: float = INNER_FAILURE_PROBABILITY
) -> np.ndarray:
    """p_up of every release in ``noisy_densities`` (vectorised)."""
    values = np.asarray(noisy_densities, dtype=np.float64)
    if values.dtype.kind != "f" or not np.all(np.isfinite(values)):
        raise InvalidParameterError(
            f"noisy densities must be finite numbers, got {noisy_densities!r}"
        )
    size = _check_nodes(n, 2, "edge density")
    eps = check_epsilon(epsilon)
    g = check_failure_probability(gamma, "gamma")
    laplace_margin = edge_density_node_sensitivity(size) / eps * math.log(1.0 / g)
    x = np.maximum(values + laplace_margin, 0.0)
    c = math.sqrt(4.0 / (g * size * (size - 1)))
    root = (c + np.sqrt(c * c + 4.0 * x)) / 2.0
    return np.minimum(1.0, root * root)


def edge_probability_upper_bound(
    noisy_density: float, n: int, epsilon: float, *, gamma: float = INNER_FAILURE_PROBABILITY
) -> float:
    """p_up: an upper confidence bound on p from p̂ = U_n + Laplace(2/(nε₀)) (module docstring).

    Parameters
    ----------
    noisy_density : float
        The released p̂ (finite; may be negative or above 1).
    n : int
        Number of nodes the density was computed on.
    epsilon : float
        ε₀ of the release.
    gamma : float
        γ₀ ∈ (0, 1): p ≤ p_up with probability ≥ 1 − γ₀ under the model.

    Returns
    -------
    float
        In (0, 1].

    Examples
    --------
    >>> round(edge_probability_upper_bound(0.05, 1000, 1.0), 4)
    0.0643
    """
    if (
        isinstance(noisy_density, bool)
        or not isinstance(noisy_density, numbers.Real)
        or not math.isfinite(float(noisy_density))
    ):
        raise InvalidParameterError(f"noisy_density must be a finite number, got {noisy_density!r}")
    return float(edge_probability_upper_bounds([float(noisy_density)], n, epsilon, gamma=gamma)[0])


@dataclass(frozen=True)
class CoarseDensityEstimate:
    """A private coarse estimate of the edge probability and its upper confidence bound.

    Attributes
    ----------
    noisy_density : float
        p̂ = edge density + Laplace(2/(nε₀)).
    upper_bound : float
        p_up (:func:`edge_probability_upper_bound`).
    guarantee : PureDP
        ε₀-DP under node neighbouring.
    noise_scale : float
        2/(nε₀).
    failure_probability : float
        γ₀.
    n : int
        Number of nodes.
    """

    noisy_density: float
    upper_bound: float
    guarantee: PureDP
    noise_scale: float
    failure_probability: float
    n: int


def private_coarse_edge_density(
    graph: Any,
    epsilon: float,
    *,
    gamma: float = INNER_FAILURE_PROBABILITY,
    rng: RandomLike = None,
    budget: Any = None,
) -> CoarseDensityEstimate:
    """Release p̂ = edge density + Laplace(2/(nε₀)) (ε₀-node-DP) and its upper bound p_up.

    Parameters
    ----------
    graph : networkx.Graph, adjacency matrix or the CSR array of :func:`as_adjacency`
        A simple undirected graph on {0, …, n − 1}, n ≥ 2.
    epsilon : float
        ε₀ > 0.
    gamma : float
        γ₀ of the upper confidence bound.
    rng : Generator, int or None
        Source of randomness.
    budget : PrivacyBudget, optional
        Charged for this release before any noise is drawn
        (:class:`~spec.errors.BudgetExceededError` if it would be exceeded).

    Returns
    -------
    CoarseDensityEstimate

    Examples
    --------
    >>> import networkx as nx
    >>> est = private_coarse_edge_density(nx.cycle_graph(200), 1.0, rng=0)
    >>> est.guarantee.epsilon, est.noise_scale
    (1.0, 0.01)
    """
    adjacency = as_adjacency(graph)
    n = adjacency.shape[0]
    mech = coarse_density_mechanism(n, epsilon, "edge_density")
    law, guarantee = mech.noise_law, mech.spec.guarantee
    if not isinstance(law, Laplace) or not isinstance(guarantee, PureDP):
        raise UnsupportedCombinationError(  # pragma: no cover - built so above
            f"the coarse density release is Laplace noise with a pure-DP claim, got "
            f"{type(law).__name__} and {type(guarantee).__name__}"
        )
    charge(budget, mech.spec, estimator="private_coarse_edge_density")
    noisy = edge_density(adjacency, validated=True) + float(law.sample(as_generator(rng), 1)[0])
    return CoarseDensityEstimate(
        noisy_density=noisy,
        upper_bound=edge_probability_upper_bound(noisy, n, epsilon, gamma=gamma),
        guarantee=guarantee,
        noise_scale=float(law.scale),
        failure_probability=check_failure_probability(gamma, "gamma"),
        n=n,
    )
