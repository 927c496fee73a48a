"""Locally private U-statistics: Protocols A–D of Bell, Bellet, Gascón & Kulkarni (AISTATS 2020).

* Protocol A (§3, Algorithm 1): public quantization + k-ary randomized response, once per
  user, with the O(n + k²) server estimator — :func:`private_ustatistic_rr`,
  :func:`private_gini_mean_difference_rr`, :func:`private_kendall_tau_rr` (K×K joint
  domain), :func:`private_renyi2_rr`, :func:`private_auc_rr` (two samples, public
  labels); the randomizer as an audited mechanism: :func:`rr_randomizer_mechanism`.
* Kernels as k×k tables (:mod:`.tables`), public quantization (:mod:`.quantization`).

Every per-user randomizer with finitely many outputs exposes its exact output law through
the ``output_probabilities`` gray-box hook, so ``privaudit`` audits it exactly.
"""

from __future__ import annotations

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

__all__ = [
    "KaryRandomizer",
    "LocalUStatisticEstimate",
    "QuantizedRRMechanism",
    "UniformQuantizer",
    "auc_table",
    "collision_table",
    "corollary1_bins",
    "debiased_sum",
    "eq9_probabilities",
    "fast_u_statistic",
    "gini_table",
    "joint_index",
    "kendall_table",
    "kernel_table",
    "lipschitz_table",
    "pairwise_u_statistic",
    "private_auc_rr",
    "private_gini_mean_difference_rr",
    "private_kendall_tau_rr",
    "private_renyi2_rr",
    "private_ustatistic_rr",
    "report_histogram",
    "rr_randomizer_mechanism",
    "theorem1_variance_bound",
    "two_sample_statistic",
]
