"""Private network statistics under node-level privacy (Chaudhuri, Loh, Pandey & Sarkar 2024).

* :func:`private_edge_density`, :func:`private_triangle_density` — ε-DP estimates under
  node neighbouring (changing one latent point = rewiring one node), by Algorithm 1 under
  Wrapper 1 over node chunks or by the all-tuples CoinPress baseline, returning a
  :class:`NetworkStatisticEstimate`;
* :func:`private_edge_density_mechanism`, :func:`private_triangle_density_mechanism` —
  the same estimators as audited mechanisms (spec + gray-box hooks);
* the ξ choice: :func:`edge_density_xi`, :func:`triangle_density_xi` (explicit
  concentration radii), :func:`private_coarse_edge_density` and
  :func:`coarse_density_mechanism` (Laplace with node sensitivity 2/n or 3/n),
  :func:`edge_probability_upper_bound`;
* helpers: :func:`edge_density`, :func:`triangle_density`, :func:`node_triangle_counts`,
  :func:`node_chunks` and :func:`induced_subgraph` (Wrapper 1 over nodes).

Layout (one idea per module): ``concentration`` (ξ), ``coarse_estimate`` (node
sensitivities, stage 1), ``densities`` (exact values), ``node_chunks`` (the partition),
``statistics`` (the two statistics' parameters), ``local_hajek_network`` (Algorithm 1
over chunks, its mechanism), ``two_stage`` (ξ from a private coarse estimate),
``coinpress_network`` (the baseline), ``network_statistics`` (the public functions).
"""

from __future__ import annotations

from ._adjacency import as_adjacency
from ._result import NetworkStatisticEstimate
from .coarse_estimate import (
    CoarseDensityEstimate,
    coarse_density_mechanism,
    edge_density_node_sensitivity,
    edge_probability_upper_bound,
    private_coarse_edge_density,
    triangle_density_node_sensitivity,
)
from .concentration import edge_density_xi, triangle_density_xi
from .densities import edge_density, node_triangle_counts, triangle_density
from .network_statistics import (
    private_edge_density,
    private_edge_density_mechanism,
    private_triangle_density,
    private_triangle_density_mechanism,
)
from .node_chunks import NodeChunks, induced_subgraph, node_chunks

__all__ = [
    "CoarseDensityEstimate",
    "NetworkStatisticEstimate",
    "NodeChunks",
    "as_adjacency",
    "coarse_density_mechanism",
    "edge_density",
    "edge_density_node_sensitivity",
    "edge_density_xi",
    "edge_probability_upper_bound",
    "induced_subgraph",
    "node_chunks",
    "node_triangle_counts",
    "private_coarse_edge_density",
    "private_edge_density",
    "private_edge_density_mechanism",
    "private_triangle_density",
    "private_triangle_density_mechanism",
    "triangle_density",
    "triangle_density_node_sensitivity",
    "triangle_density_xi",
]
