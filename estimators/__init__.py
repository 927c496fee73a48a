"""estimators: private estimators built from audited mechanisms.

* :func:`private_bounded_mean` — the ε-DP mean of bounded data (Laplace mechanism);
* :class:`PrivateEstimate` — the result object every estimator returns.

Private U-statistics and graph statistics (Chaudhuri, Loh, Pandey & Sarkar 2024) arrive
with their own modules.  The data-generating models the studies and tests use (random
geometric graphs on S²) live in the subpackage :mod:`estimators.models`.

Subpackages: :mod:`estimators.graphs` (private edge and triangle density under node-level
privacy), :mod:`estimators.hypothesis_tests` (the private uniformity test),
:mod:`estimators.stability` (propose-test-release, sample-and-aggregate),
:mod:`estimators.histograms` (partition selection), :mod:`estimators.robust` (inverse
sensitivity, robust means) and the module :mod:`estimators.continual_counting` (private
prefix sums and linear workloads by matrix factorization).
"""

from __future__ import annotations

from ._result import PrivateEstimate
from .bounded_mean import bounded_mean_mechanism, private_bounded_mean
from .continual_counting import private_linear_workload, private_prefix_sums

__all__ = [
    "PrivateEstimate",
    "bounded_mean_mechanism",
    "private_bounded_mean",
    "private_linear_workload",
    "private_prefix_sums",
]
