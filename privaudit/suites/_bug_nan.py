"""Bug of record: NaN bypassing clipping (a catalogue entry of
:mod:`privaudit.suites.bug_catalogue`, in a module of its own for the file-length limit).

IEEE 754 comparisons with NaN are false, so ``np.clip`` (and a hand-written clamp) returns
NaN untouched: a bounded sum over a table with one missing value is NaN whatever the
noise, and the release says whether the table holds a missing record (IBM diffprivlib
issue #80; google/differential-privacy pull requests #405 and #411).  Auditing it needs a
record domain that admits NaN (``RealInterval(admits=("nan",))``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.spec import DatasetDomain, RealInterval, Reference, SubstituteOne

__all__ = ["nan_clipping_buggy", "nan_clipping_case", "nan_clipping_fixed"]

#: The ε every entry of the catalogue claims.
_EPSILON = 1.0


def nan_clipping_buggy(x: Any, noise: Any) -> Any:
    """A sum of records clipped to [0, 1] with ``np.clip``, which lets NaN through."""
    return noise.laplace(np.clip(x, 0.0, 1.0).sum(), sensitivity=1.0, epsilon=_EPSILON)


def nan_clipping_fixed(x: Any, noise: Any) -> Any:
    """The same with a missing record counted as 0 before clipping (``np.nan_to_num``)."""
    clipped = np.clip(np.nan_to_num(x, nan=0.0), 0.0, 1.0)
    return noise.laplace(clipped.sum(), sensitivity=1.0, epsilon=_EPSILON)


def nan_clipping_case(bug_of_record: Any, black_box: Any) -> Any:
    """The catalogue entry (``bug_of_record``: the entry class; ``black_box``: the
    catalogue's spec of a library's ε-DP claim)."""
    domain = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0, admits=("nan",)), size=4)
    name = "bug.nan_bypasses_clipping"
    return bug_of_record(
        name=name,
        library="diffprivlib (IBM); Google's differential-privacy (Go)",
        source=Reference(
            citation="IBM/differential-privacy-library issue #80, 'Handling of NaNs'; "
            "google/differential-privacy pull requests #405 and #411 (ClampFloat64 lets NaN "
            "through)",
            url="https://github.com/IBM/differential-privacy-library/issues/80",
        ),
        claim="the sum of records clipped to [0, 1] is epsilon-DP under substitute-one",
        buggy=nan_clipping_buggy,
        fixed=nan_clipping_fixed,
        domain=domain,
        relation=SubstituteOne(),
        data=np.array([0.2, 0.4, 0.6, 0.8]),
        spec=black_box(name, domain, SubstituteOne(), "sum of the clipped records", 1),
        pairs=((np.array([0.2, 0.4, 0.6, 0.8]), np.array([0.2, 0.4, 0.6, math.nan])),),
        replay_catches=True,
        replay_check="sensitivity",
        true_epsilon=math.inf,
        notes="np.clip returns NaN for NaN, so the sum is NaN on every table with a missing "
        "record and a number on every other: the event 'the release is NaN' has probability "
        "1 on one side and 0 on the other, true eps = inf. Replay substitutes a NaN record "
        "(an extreme of the admitting domain) and finds the distance between the two "
        "inputs of the Laplace call not finite. Fixed: a missing record counts as 0 "
        "(np.nan_to_num) before clipping, which keeps the sensitivity 1.",
    )
