"""Stability-based private estimators: propose-test-release and sample-and-aggregate.

- :mod:`.order_statistics`: local sensitivity of order statistics, the median and the
  interquartile range under substitute-one, and their distance to instability
  (Nissim, Raskhodnikova & Smith, STOC 2007, §3.1).
- :mod:`.ptr`: propose-test-release for the median and the IQR (Dwork & Lei, STOC 2009;
  Dwork & Roth 2014, §7), (ε, δ)-DP, released as [released, value].
- :mod:`.sample_aggregate`: sample-and-aggregate (Nissim, Raskhodnikova & Smith, STOC
  2007, §4) with a Laplace clipped-mean or a smooth-sensitivity-median aggregator.

The study is ``docs/stability_mechanisms.md``.
"""

from .ptr import (
    PTRRelease,
    ptr_iqr,
    ptr_iqr_mechanism,
    ptr_median,
    ptr_median_mechanism,
    ptr_threshold,
    release_probability,
)
from .sample_aggregate import (
    SampleAggregateRelease,
    block_values,
    sample_and_aggregate,
    sample_and_aggregate_mechanism,
)

__all__ = [
    "PTRRelease",
    "SampleAggregateRelease",
    "block_values",
    "ptr_iqr",
    "ptr_iqr_mechanism",
    "ptr_median",
    "ptr_median_mechanism",
    "ptr_threshold",
    "release_probability",
    "sample_and_aggregate",
    "sample_and_aggregate_mechanism",
]
