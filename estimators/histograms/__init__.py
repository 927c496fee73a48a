"""estimators.histograms: private histograms and partition selection over unbounded keys.

* :func:`private_partition_selection` — which keys to release (Laplace, Gaussian or the
  optimal rule of Desfontaines, Voss, Gipson & Mandayam, PoPETS 2022);
* :func:`private_histogram` — released keys with noisy counts (thresholded Laplace or
  Gaussian).

Each user contributes one key; keys absent from the data are never released.  The
auditable mechanisms are :class:`privaudit.mechanisms.KeyedHistogramMechanism`
(``docs/partition_selection.md``).
"""

from __future__ import annotations

from .partition_selection import (
    PartitionSelection,
    PrivateHistogram,
    private_histogram,
    private_partition_selection,
)

__all__ = [
    "PartitionSelection",
    "PrivateHistogram",
    "private_histogram",
    "private_partition_selection",
]
