"""Locally private U-statistics: Protocols A–D of Bell, Bellet, Gascón & Kulkarni (AISTATS 2020).

* Protocol A (§3, Algorithm 1): public quantization + k-ary randomized response, once per
  user, with the O(n + k²) server estimator — :func:`private_ustatistic_rr`,
  :func:`private_gini_mean_difference_rr`, :func:`private_kendall_tau_rr` (K×K joint
  domain), :func:`private_renyi2_rr`, :func:`private_auc_rr` (two samples, public
  labels); the randomizer as an audited mechanism: :func:`rr_randomizer_mechanism`.
* Protocol B (§4): hierarchical-histogram AUC with public labels,
  :func:`private_auc_hierarchical` (one-bit Hadamard-response oracles, variant ``"S"``
  level sampling or ``"C"`` composition; :mod:`.frequency_oracle`), the exact recursion
  :func:`exact_auc` / :func:`exact_uauc`, the randomizer as an audited mechanism
  :class:`HadamardRandomizerMechanism`.
* Protocols C and D (§5, 2PC simulated; the central view is audited): subsampled pairs
  :func:`private_ustatistic_2pc` (Theorem 5, corrected noise term :func:`theorem5_mse`),
  its randomized-response variant for discrete kernels
  :func:`private_ustatistic_2pc_discrete`, all pairs under advanced composition
  :func:`private_ustatistic_2pc_all_pairs` (:func:`all_pairs_epsilon0`); the views
  :func:`subsampled_view_mechanism`, :func:`discrete_view_mechanism`,
  :func:`all_pairs_view_mechanism`.
* Kernels as k×k tables (:mod:`.tables`), public quantization (:mod:`.quantization`).

Every per-user randomizer with finitely many outputs exposes its exact output law through
the ``output_probabilities`` gray-box hook, so ``privaudit`` audits it exactly.
"""

from __future__ import annotations

from .frequency_oracle import (
    HadamardReports,
    LevelEstimates,
    fwht,
    hadamard_reports,
    level_estimates,
)
from .hadamard_mechanism import HadamardRandomizerMechanism
from .hierarchy import exact_auc, exact_uauc, prefix_counts
from .protocol_a import (
    debiased_sum,
    fast_u_statistic,
    pairwise_u_statistic,
    private_auc_rr,
    private_gini_mean_difference_rr,
    private_kendall_tau_rr,
    private_renyi2_rr,
    private_ustatistic_rr,
    report_histogram,
    theorem1_variance_bound,
    two_sample_statistic,
)
from .protocol_b import (
    discretize_scores,
    private_auc_hierarchical,
    private_uauc,
    theorem3_mse_bound,
)
from .quantization import UniformQuantizer, corollary1_bins
from .randomizer import KaryRandomizer, eq9_probabilities
from .randomizer_mechanism import QuantizedRRMechanism, rr_randomizer_mechanism
from .results import LocalUStatisticEstimate
from .tables import (
    auc_table,
    collision_table,
    gini_table,
    joint_index,
    kendall_table,
    kernel_table,
    lipschitz_table,
)
from .two_party import (
    all_pairs_epsilon0,
    all_pairs_view_mechanism,
    debias_discrete,
    discrete_view_mechanism,
    permutation_pairs,
    private_ustatistic_2pc,
    private_ustatistic_2pc_all_pairs,
    private_ustatistic_2pc_discrete,
    subsampled_view_mechanism,
    theorem5_mse,
)

__all__ = [
    "HadamardRandomizerMechanism",
    "HadamardReports",
    "KaryRandomizer",
    "LevelEstimates",
    "LocalUStatisticEstimate",
    "QuantizedRRMechanism",
    "UniformQuantizer",
    "all_pairs_epsilon0",
    "all_pairs_view_mechanism",
    "auc_table",
    "collision_table",
    "corollary1_bins",
    "debias_discrete",
    "debiased_sum",
    "discrete_view_mechanism",
    "discretize_scores",
    "eq9_probabilities",
    "exact_auc",
    "exact_uauc",
    "fast_u_statistic",
    "fwht",
    "gini_table",
    "hadamard_reports",
    "joint_index",
    "kendall_table",
    "kernel_table",
    "level_estimates",
    "lipschitz_table",
    "pairwise_u_statistic",
    "permutation_pairs",
    "prefix_counts",
    "private_auc_hierarchical",
    "private_auc_rr",
    "private_gini_mean_difference_rr",
    "private_kendall_tau_rr",
    "private_renyi2_rr",
    "private_uauc",
    "private_ustatistic_2pc",
    "private_ustatistic_2pc_all_pairs",
    "private_ustatistic_2pc_discrete",
    "private_ustatistic_rr",
    "report_histogram",
    "rr_randomizer_mechanism",
    "subsampled_view_mechanism",
    "theorem1_variance_bound",
    "theorem3_mse_bound",
    "theorem5_mse",
    "two_sample_statistic",
]
