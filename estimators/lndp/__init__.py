"""Local node differential privacy (LNDP): Algorithms 1–9 of Raskhodnikova, Smith, Wagaman
& Zavyalov, "Local Node Differential Privacy", arXiv:2602.15802.

Every node holds only its adjacency list, n is public, and the server sees the public
randomness ρ and one message per node.  Each algorithm has a ``private_*`` function
(returning a :class:`LocalNodeEstimate`) and, where its messages are a Gaussian or Laplace
mechanism of the graph, a ``*_mechanism`` factory whose spec claims (ε, δ)-privacy of the
**joint vector of the n messages** under :class:`~spec.LocalNodeRelation`, for every ρ.

* Algorithm 1 :func:`private_soft_threshold` / :func:`soft_threshold_mechanism`;
* Algorithm 2 :func:`private_edge_count` / :func:`edge_count_mechanism`;
* blurry degree distribution :func:`blurry_distribution`, Algorithm 3
  :func:`private_blurry_linear` / :func:`blurry_linear_mechanism`;
* factorization mechanism :func:`private_degree_pmf`, :func:`private_degree_cdf`,
  :func:`private_degree_thresholds`;
* Algorithm 4 :func:`private_average_degree`, Algorithm 5 :func:`private_erdos_renyi`,
  Algorithm 6 :func:`private_clique_size`;
* Algorithm 7 :func:`private_regular_vs_star` / :func:`regular_vs_star_mechanism` (per-ρ);
* Algorithm 8 :func:`private_laplace_edge_count` / :func:`laplace_edge_count_mechanism`;
  Algorithm 9 :func:`private_rr_edge_count` / :func:`rr_edge_count_mechanism` (a finite
  randomizer: the exact audit computes its joint privacy-loss law), :func:`rr_node_messages`;
* exact white-box accounting of the joint messages: :mod:`estimators.lndp.accounting`.

Gaussian messages (Algorithms 1–7) take ``calibration="analytic"`` (the default: the
analytic Gaussian mechanism of Balle & Wang, ICML 2018, the smallest σ for (ε, δ), valid
at every ε) or ``calibration="classical"`` (the paper's σ = Δ₂√(2 ln(1.25/δ))/ε, Lemma A.3,
ε < 1 only), to reproduce the paper.

Layout: ``_common`` (parameters, local views, batched message sums), ``soft_threshold``
(Algorithms 1–2), ``blurry`` (Definition 4.5, Algorithm 3), ``factorization`` (Theorem 4.2),
``concentrated`` (Algorithms 4–6), ``regular_vs_star`` (Algorithm 7), ``baselines``
(Algorithms 8–9), ``accounting`` (joint privacy-loss distributions).
"""

from __future__ import annotations

from ._result import LocalNodeEstimate
from .accounting import (
    JointAccounting,
    joint_accounting,
    regular_graph_tv_bound,
    rr_joint_delta,
)
from .baselines import (
    RREdgeCountMechanism,
    laplace_edge_count_mechanism,
    private_laplace_edge_count,
    private_rr_edge_count,
    rr_edge_count_mechanism,
    rr_edge_epsilon0,
    rr_node_messages,
)
from .blurry import (
    blur_weights,
    blurry_distribution,
    blurry_linear_mechanism,
    blurry_linear_sensitivity,
    bucket_count,
    private_blurry_linear,
)
from .concentrated import (
    erdos_renyi_bucket_width,
    locate_window,
    private_average_degree,
    private_clique_size,
    private_erdos_renyi,
)
from .factorization import (
    cdf_factor,
    private_degree_cdf,
    private_degree_pmf,
    private_degree_thresholds,
)
from .regular_vs_star import (
    RegularStarRandomness,
    draw_regular_star_randomness,
    private_regular_vs_star,
    regular_vs_star_mechanism,
    regular_vs_star_sigma,
)
from .soft_threshold import (
    edge_count_mechanism,
    private_edge_count,
    private_soft_threshold,
    soft_threshold,
    soft_threshold_mechanism,
    soft_threshold_sensitivity,
)

__all__ = [
    "JointAccounting",
    "LocalNodeEstimate",
    "RREdgeCountMechanism",
    "RegularStarRandomness",
    "blur_weights",
    "blurry_distribution",
    "blurry_linear_mechanism",
    "blurry_linear_sensitivity",
    "bucket_count",
    "cdf_factor",
    "draw_regular_star_randomness",
    "edge_count_mechanism",
    "erdos_renyi_bucket_width",
    "joint_accounting",
    "laplace_edge_count_mechanism",
    "locate_window",
    "private_average_degree",
    "private_blurry_linear",
    "private_clique_size",
    "private_degree_cdf",
    "private_degree_pmf",
    "private_degree_thresholds",
    "private_edge_count",
    "private_erdos_renyi",
    "private_laplace_edge_count",
    "private_regular_vs_star",
    "private_rr_edge_count",
    "private_soft_threshold",
    "regular_graph_tv_bound",
    "regular_vs_star_mechanism",
    "regular_vs_star_sigma",
    "rr_edge_count_mechanism",
    "rr_edge_epsilon0",
    "rr_joint_delta",
    "rr_node_messages",
    "soft_threshold",
    "soft_threshold_mechanism",
    "soft_threshold_sensitivity",
]
