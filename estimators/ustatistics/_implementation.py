"""The code behind the private U-statistic mechanisms, listed for the implementation hash.

A certificate (:mod:`privaudit.certificates`) hashes the source of every module whose
callables a mechanism holds.  The mechanisms of this package call most of their code by
name (the weights, the smooth bounds, the exact sums, the families …), which the hash would
not follow, so each mechanism holds one of the tuples below: one callable per module that
can change what it releases.  Editing any of these modules makes its certificates stale.
(Functions, not classes, are listed: the hash's collector skips the module of a class held
directly as a value.)
"""

from __future__ import annotations

from mechanisms.composition import basic_composition, parallel_composition, split_budget
from spec import InverseQuartic, Laplace

from ._builtin_functions import half_squared_difference
from ._enumeration import sum_over_combinations
from ._parameters import check_count
from ._validation import validate_data
from .batched_local_hajek import all_index_tuples, batched_local_hajek
from .coinpress_schedule import coinpress_schedule
from .exact import local_hajek_projections
from .families import default_subsample_size
from .fast_paths import fast_path_for
from .kernel_domains import kernel_input_space
from .kernels import table_kernel
from .local_hajek import local_hajek_algorithm
from .local_hajek_weights import local_hajek_weights
from .partition import median_of_means_partition
from .smooth_bounds import local_sensitivity_bound_rigorous

__all__ = ["ALGORITHM_ONE", "COINPRESS", "MEDIAN_OF_MEANS", "SUBGAUSSIAN"]

#: What every algorithm on a kernel runs: family sizes, the tabulated and default kernels,
#: data validation and the kernel's input space (shared by Algorithm 1 and CoinPress).
_KERNEL_INPUTS = (
    default_subsample_size,
    table_kernel,
    validate_data,
    half_squared_difference,
    check_count,
    kernel_input_space,
)
#: Algorithm 1: weights, smooth bounds, exact sums (with fast paths), families, kernels.
ALGORITHM_ONE = (
    local_hajek_algorithm,
    local_hajek_weights,
    local_sensitivity_bound_rigorous,
    batched_local_hajek,
    local_hajek_projections,
    fast_path_for,
    sum_over_combinations,
    *_KERNEL_INPUTS,
)
#: Wrapper 1 ∘ Algorithm 1: adds the partition and parallel composition.
MEDIAN_OF_MEANS = ALGORITHM_ONE + (median_of_means_partition, parallel_composition,
                                   InverseQuartic(scale=1.0).sample)
#: Algorithms A.2/A.3: the schedule, the families, the kernels, basic composition.
COINPRESS = (
    coinpress_schedule,
    all_index_tuples,
    *_KERNEL_INPUTS,
    basic_composition,
    Laplace(scale=1.0).sample,
)
#: Corollary 1: both stages and the budget split.
SUBGAUSSIAN = MEDIAN_OF_MEANS + COINPRESS + (split_budget,)
