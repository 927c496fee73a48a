"""Wrapper 1's public choices: the number of chunks q and the data-independent partition.

Wrapper 1 (median of means) of Chaudhuri, Loh, Pandey & Sarkar (2024) splits [n] into
q = 8 ln(1/α) chunks, runs the inner private algorithm on each and releases the median.
Lemma A.6 boosts a success probability of 0.75 to 1 − α by Hoeffding's inequality,
Pr(Σ T_i > q/2) ≤ e^{−q/8} ≤ α, and assumes q odd.

Choices made here (``docs/derivations.md`` §5, choice 1):

* q = max(1, ⌈8 ln(1/α)⌉), rounded up to the next odd integer;
* each chunk needs at least k records (the inner algorithm evaluates k-subsets of the
  chunk), so q is clamped to the largest odd integer ≤ ⌊n/k⌋; the clamp weakens only the
  1 − α accuracy statement (a :class:`~spec.errors.UtilityConditionWarning` says so), never
  privacy;
* the partition is a uniformly random permutation of [n] drawn from a **public** seed,
  cut into q contiguous blocks whose sizes differ by at most one (the first n mod q
  chunks get one extra record).  It depends on (n, q, seed) only, never on the data, so
  a substitution changes exactly one chunk (parallel composition, Lemma A.5).

References
----------
.. [1] Chaudhuri et al., NeurIPS 2024, Wrapper 1 and Lemmas A.5–A.6.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from privaudit.spec.errors import InvalidParameterError, SampleSizeError, UtilityConditionWarning

from ._parameters import check_count, check_failure_probability

__all__ = ["ChunkCount", "median_of_means_chunk_count", "median_of_means_partition"]


@dataclass(frozen=True, slots=True)
class ChunkCount:
    """The number of chunks of Wrapper 1.

    Attributes
    ----------
    chunks : int
        q, the odd number of chunks used.
    requested : int
        max(1, ⌈8 ln(1/α)⌉) rounded up to odd, before clamping.
    clamped : bool
        True when ``chunks < requested`` (too few records for k per chunk): the failure
        bound of the median is then e^{−q/8} > α.
    failure_bound : float
        e^{−q/8}, the bound of Lemma A.6 on the failure probability of the median given a
        per-chunk success probability ≥ 0.75 (≤ α unless clamped).
    """

    chunks: int
    requested: int
    clamped: bool
    failure_bound: float


def _odd_up(q: int) -> int:
    return q if q % 2 == 1 else q + 1


def median_of_means_chunk_count(
    alpha: float, n: int, degree: int, *, warn: bool = True
) -> ChunkCount:
    """q for Wrapper 1: ⌈8 ln(1/α)⌉ made odd, clamped so every chunk has ≥ k records.

    Parameters
    ----------
    alpha : float
        The failure probability α ∈ (0, 1).
    n : int
        Number of records (public).
    degree : int
        Kernel degree k ≤ n.
    warn : bool
        Emit a :class:`~spec.errors.UtilityConditionWarning` when q is clamped.

    Returns
    -------
    ChunkCount

    Raises
    ------
    InvalidParameterError
        If α ∉ (0, 1) or n < k.

    Examples
    --------
    >>> median_of_means_chunk_count(0.05, 10_000, 2).chunks
    25
    >>> median_of_means_chunk_count(0.7, 100, 2).chunks
    3
    """
    a = check_failure_probability(alpha)
    size, k = check_count(n, "n"), check_count(degree, "degree k")
    if size < k:
        raise SampleSizeError(f"need n >= k, got n={size}, k={k}")
    requested = _odd_up(max(1, math.ceil(8.0 * math.log(1.0 / a))))
    most = size // k
    chunks = min(requested, most if most % 2 == 1 else most - 1)
    clamped = chunks < requested
    if clamped and warn:
        warnings.warn(
            UtilityConditionWarning(
                f"Wrapper 1 wants q = {requested} chunks for alpha = {a:g}, but n = {size} records "
                f"allow only q = {chunks} chunks of at least k = {k}; the median fails with "
                f"probability up to exp(-q/8) = {math.exp(-chunks / 8.0):.3g} > alpha (privacy is "
                "unaffected)"
            ),
            stacklevel=2,
        )
    return ChunkCount(
        chunks=chunks, requested=requested, clamped=clamped, failure_bound=math.exp(-chunks / 8.0)
    )


def median_of_means_partition(n: int, chunks: int, seed: int) -> tuple[npt.NDArray[np.int64], ...]:
    """The data-independent partition of [n] into ``chunks`` blocks (sorted indices each).

    A permutation of [n] drawn from ``numpy.random.default_rng(seed)`` is cut into
    ``chunks`` contiguous blocks of sizes ⌈n/q⌉ (the first n mod q blocks) and ⌊n/q⌋.

    Parameters
    ----------
    n : int
        Number of records.
    chunks : int
        q, 1 ≤ q ≤ n.
    seed : int
        The public seed of the permutation (part of the mechanism's parameters).

    Returns
    -------
    tuple of numpy.ndarray
        q disjoint sorted index arrays whose union is 0..n−1.

    Examples
    --------
    >>> [len(c) for c in median_of_means_partition(10, 3, seed=0)]
    [4, 3, 3]
    """
    size, q = check_count(n, "n"), check_count(chunks, "chunks")
    s = check_count(seed, "seed", 0)
    if q > size:
        raise InvalidParameterError(f"cannot cut n = {size} records into {q} non-empty chunks")
    order = np.random.default_rng(s).permutation(size)
    blocks = np.array_split(order, q)
    out = []
    for block in blocks:
        b = np.sort(block).astype(np.int64)
        b.setflags(write=False)
        out.append(b)
    return tuple(out)
