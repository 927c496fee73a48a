"""U-statistics: kernels, exact U_n and local Hájek projections, families of subsets.

The non-private core on which the private U-statistics of Chaudhuri, Loh, Pandey &
Sarkar (NeurIPS 2024) are built (``ustat_spec.md`` §1, §3, §4.7, §11, §12):

* :class:`Kernel` and the built-in kernels (mean, variance, Gini mean difference,
  Kendall's tau-a, Wilcoxon signed rank, symmetry, collision, table, AUC, random
  geometric graph edge/triangle, adjacency edge/triangle);
* :func:`local_hajek_projections` / :func:`u_statistic` — exact U_n and all ĥ(i)
  (eq. 9), with fast paths; :func:`weighted_tuple_sum` and
  :func:`min_weight_tuple_sum` for Algorithm 1's min-weighted sums;
* :class:`SubsetFamily` — all tuples, naive blocks, subsampled families, their
  counts M_i, M_ij and the checks (10)/(17); :func:`family_projections` (eq. 11).
"""

from __future__ import annotations

from ._validation import DataDomain
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
    variance_kernel,
    wilcoxon_signed_rank_kernel,
)

__all__ = [
    "DataDomain",
    "FamilyCheckResult",
    "FamilyProjections",
    "HajekProjections",
    "Kernel",
    "SubsetFamily",
    "SymmetryCheckResult",
    "adjacency_edge_kernel",
    "adjacency_triangle_kernel",
    "auc_from_u_statistic",
    "auc_kernel",
    "collision_kernel",
    "default_subsample_size",
    "family_min_weight_sum",
    "family_projections",
    "family_weighted_sum",
    "gini_mean_difference_kernel",
    "kendall_tau_kernel",
    "local_hajek_projections",
    "mean_kernel",
    "min_weight_tuple_sum",
    "rgg_edge_kernel",
    "rgg_triangle_kernel",
    "symmetry_kernel",
    "table_kernel",
    "u_statistic",
    "variance_kernel",
    "weighted_tuple_sum",
    "wilcoxon_signed_rank_kernel",
]
