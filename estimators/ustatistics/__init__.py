"""U-statistics: kernels, exact U_n and local Hájek projections, families of subsets.

The non-private core on which the private U-statistics of Chaudhuri, Loh, Pandey &
Sarkar (NeurIPS 2024) are built (Sections 2, 3, 4.2 and 5 of the paper):

* :class:`Kernel` and the built-in kernels (mean, variance, Gini mean difference,
  Kendall's tau-a, Wilcoxon signed rank, symmetry, collision, table, AUC, random
  geometric graph edge/triangle, adjacency edge/triangle, triangle products);
* :func:`local_hajek_projections` / :func:`u_statistic` — exact U_n and all ĥ(i)
  (eq. 9), with fast paths; :func:`weighted_tuple_sum` and
  :func:`min_weight_tuple_sum` for Algorithm 1's min-weighted sums;
* :class:`SubsetFamily` — all tuples, naive blocks, subsampled families, their
  counts M_i, M_ij and the checks (10)/(17); :func:`family_projections` (eq. 11).

The private estimators, each also an audited mechanism with a complete spec:

* Algorithm 1 (private mean via local Hájek projections): :func:`private_mean_local_hajek`
  and :func:`private_mean_local_hajek_mechanism`, in ``sensitivity_mode="rigorous"``
  (default, proven) or ``"paper"`` (reproduction, unproven); its parts
  :func:`local_hajek_weights`, :func:`smooth_sensitivity_rigorous`,
  :func:`smooth_sensitivity_paper`, :func:`local_hajek_algorithm`;
* Wrapper 1 (median of means): :func:`private_median_of_means` and
  :func:`median_of_means_mechanism` (data-independent partition, odd q, parallel
  composition);
* Algorithms A.2/A.3 (CoinPress-style baselines): :func:`private_coinpress_mean` and
  :func:`coinpress_mechanism` on the naive, all-tuples or subsampled family (R, τ public);
* Corollary 1 (sub-Gaussian kernels, τ public): :func:`private_subgaussian_mean`,
  :func:`subgaussian_mean_mechanism` and its main stage
  :func:`subgaussian_main_stage_mechanism`; Corollary 2 (degenerate bounded kernels):
  :func:`private_degenerate_mean`, :func:`degenerate_mean_mechanism`, :func:`degenerate_xi`;
  Theorem 4 (subsampled Algorithm 1): ``family=`` of the Algorithm 1 functions;
* :func:`exact_local_sensitivity` — LS(Ã_n) by enumerating every neighbour (reference).
"""

from __future__ import annotations

from ._validation import DataDomain
from .batched_local_hajek import (
    BatchedLocalHajek,
    TupleFamily,
    all_index_tuples,
    batched_local_hajek,
    tuple_family,
)
from .coinpress import (
    CoinPressEstimate,
    CoinPressMechanism,
    clipped_means,
    coinpress_mechanism,
    default_coinpress_subsample_size,
    private_coinpress_mean,
    public_subgaussian_proxy,
)
from .coinpress_schedule import (
    CoinPressSchedule,
    coinpress_schedule,
    concentration_bound,
    mean_concentration_bound,
)
from .degenerate import degenerate_mean_mechanism, degenerate_xi, private_degenerate_mean
from .exact import (
    HajekProjections,
    local_hajek_projections,
    min_weight_tuple_sum,
    u_statistic,
    weighted_tuple_sum,
)
from .families import (
    FamilyCheckResult,
    FamilyProjections,
    SubsetFamily,
    default_subsample_size,
    family_min_weight_sum,
    family_projections,
    family_weighted_sum,
)
from .fast_paths import adjacency_from_points
from .kernel_domains import KernelInputSpace, kernel_input_space
from .kernels import (
    Kernel,
    SymmetryCheckResult,
    adjacency_edge_kernel,
    adjacency_triangle_kernel,
    auc_from_u_statistic,
    auc_kernel,
    collision_kernel,
    gini_mean_difference_kernel,
    kendall_tau_kernel,
    mean_kernel,
    rgg_edge_kernel,
    rgg_triangle_kernel,
    symmetry_kernel,
    table_kernel,
    triangle_product_kernel,
    variance_kernel,
    wilcoxon_signed_rank_kernel,
)
from .local_hajek import (
    LocalHajekAlgorithm,
    LocalHajekStatistic,
    internal_epsilon,
    local_hajek_algorithm,
    local_hajek_statistic,
)
from .local_hajek_mechanism import LocalHajekMechanism, private_mean_local_hajek_mechanism
from .local_hajek_weights import LocalHajekWeights, band_levels, local_hajek_weights
from .median_of_means import (
    MedianOfMeansEstimate,
    MedianOfMeansMechanism,
    median_of_means_mechanism,
    private_median_of_means,
)
from .neighbour_enumeration import ExactLocalSensitivity, exact_local_sensitivity
from .partition import ChunkCount, median_of_means_chunk_count, median_of_means_partition
from .private_mean import LocalHajekEstimate, private_mean_local_hajek
from .smooth_bounds import (
    FamilyOverlap,
    all_tuples_overlap,
    local_sensitivity_bound_paper,
    local_sensitivity_bound_rigorous,
    smooth_sensitivity_paper,
    smooth_sensitivity_rigorous,
    smooth_sensitivity_table,
)
from .subgaussian import (
    SubGaussianEstimate,
    SubGaussianMeanMechanism,
    clipped_kernel,
    private_subgaussian_mean,
    projection_half_width,
    subgaussian_main_stage_mechanism,
    subgaussian_mean_mechanism,
    subgaussian_xi,
)

__all__ = [
    "BatchedLocalHajek",
    "ChunkCount",
    "CoinPressEstimate",
    "CoinPressMechanism",
    "CoinPressSchedule",
    "DataDomain",
    "ExactLocalSensitivity",
    "FamilyCheckResult",
    "FamilyOverlap",
    "FamilyProjections",
    "HajekProjections",
    "Kernel",
    "KernelInputSpace",
    "LocalHajekAlgorithm",
    "LocalHajekEstimate",
    "LocalHajekMechanism",
    "LocalHajekStatistic",
    "LocalHajekWeights",
    "MedianOfMeansEstimate",
    "MedianOfMeansMechanism",
    "SubGaussianEstimate",
    "SubGaussianMeanMechanism",
    "SubsetFamily",
    "SymmetryCheckResult",
    "TupleFamily",
    "adjacency_edge_kernel",
    "adjacency_from_points",
    "adjacency_triangle_kernel",
    "all_index_tuples",
    "all_tuples_overlap",
    "auc_from_u_statistic",
    "auc_kernel",
    "band_levels",
    "batched_local_hajek",
    "clipped_kernel",
    "clipped_means",
    "coinpress_mechanism",
    "coinpress_schedule",
    "collision_kernel",
    "concentration_bound",
    "default_coinpress_subsample_size",
    "default_subsample_size",
    "degenerate_mean_mechanism",
    "degenerate_xi",
    "exact_local_sensitivity",
    "family_min_weight_sum",
    "family_projections",
    "family_weighted_sum",
    "gini_mean_difference_kernel",
    "internal_epsilon",
    "kendall_tau_kernel",
    "kernel_input_space",
    "local_hajek_algorithm",
    "local_hajek_projections",
    "local_hajek_statistic",
    "local_hajek_weights",
    "local_sensitivity_bound_paper",
    "local_sensitivity_bound_rigorous",
    "mean_concentration_bound",
    "mean_kernel",
    "median_of_means_chunk_count",
    "median_of_means_mechanism",
    "median_of_means_partition",
    "min_weight_tuple_sum",
    "private_coinpress_mean",
    "private_degenerate_mean",
    "private_mean_local_hajek",
    "private_mean_local_hajek_mechanism",
    "private_median_of_means",
    "private_subgaussian_mean",
    "projection_half_width",
    "public_subgaussian_proxy",
    "rgg_edge_kernel",
    "rgg_triangle_kernel",
    "smooth_sensitivity_paper",
    "smooth_sensitivity_rigorous",
    "smooth_sensitivity_table",
    "subgaussian_main_stage_mechanism",
    "subgaussian_mean_mechanism",
    "subgaussian_xi",
    "symmetry_kernel",
    "table_kernel",
    "triangle_product_kernel",
    "tuple_family",
    "u_statistic",
    "variance_kernel",
    "weighted_tuple_sum",
    "wilcoxon_signed_rank_kernel",
]
