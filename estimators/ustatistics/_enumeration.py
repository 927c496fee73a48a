"""Chunked enumeration of k-subsets of [n] as int arrays, and sums over them.

Enumerating I_{n,k} costs C(n, k) rows in any case; what these helpers guarantee is that
memory stays O(chunk_size · k) and that the per-row work is numpy-vectorised:

* k = 1: one chunk of ``arange(n)``;
* k = 2: row blocks — for rows [a, b): the upper triangle of the diagonal block plus the
  rectangle [a, b) × [b, n), i.e. memory O(n · block);
* k = 3: one vectorised triangle of (j, l) pairs per first index i (n Python iterations);
* k ≥ 4: ``itertools.combinations`` read into arrays with ``numpy.fromiter`` (only for
  small n: C(n, k) Python-level tuples).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import numpy as np

__all__ = [
    "DEFAULT_CHUNK",
    "default_block_size",
    "iter_combinations",
    "iter_pair_blocks",
    "iter_product_combinations",
    "sum_over_combinations",
    "sum_over_pairs",
]

#: Number of index tuples handled at once (memory ≈ DEFAULT_CHUNK · k · 8 bytes per array;
#: about 2¹⁸ keeps a block in cache and was fastest on the benchmark machine).
DEFAULT_CHUNK = 1 << 18


def default_block_size(n: int, chunk: int = DEFAULT_CHUNK) -> int:
    """Rows per block for the k = 2 blocked path so that a block has about ``chunk`` pairs."""
    return max(1, min(n, chunk // max(n, 1)))


def _iter_pair_pieces(
    n: int, block_size: int
) -> Iterator[tuple[np.ndarray, tuple[int, int] | None]]:
    """Pairs i < j by row block: (tuples, None) for the upper triangle of a diagonal block and
    (tuples, (rows, cols)) for the rectangle [a, b) × [b, n), whose tuples are in row-major
    order of that rectangle.  Tuples are (m, 2) arrays with contiguous columns."""
    for start in range(0, n, block_size):
        stop = min(n, start + block_size)
        left, right = np.triu_indices(stop - start, k=1)
        if left.size:
            pairs = np.empty((2, left.size), dtype=np.int64)
            pairs[0], pairs[1] = left + start, right + start
            yield pairs.T, None
        if stop < n:
            rows, cols = stop - start, n - stop
            pairs = np.empty((2, rows, cols), dtype=np.int64)
            pairs[0] = np.arange(start, stop)[:, None]
            pairs[1] = np.arange(stop, n)[None, :]
            yield pairs.reshape(2, -1).T, (rows, cols)


def iter_pair_blocks(n: int, block_size: int) -> Iterator[np.ndarray]:
    """All pairs i < j of [n] as (m, 2) arrays, row block by row block (memory O(n·block))."""
    for pairs, _ in _iter_pair_pieces(n, block_size):
        yield pairs


def sum_over_pairs(
    n: int, evaluate: Callable[[np.ndarray], np.ndarray], block_size: int
) -> tuple[float, np.ndarray]:
    """Σ_{i<j} h(i, j) and Σ_{j≠i} h(i, j) for every i, by row blocks (memory O(n·block)).

    Rectangle blocks are summed along their rows and columns; only the small diagonal
    triangles need ``bincount``.
    """
    total = 0.0
    per_index = np.zeros(n, dtype=np.float64)
    for pairs, shape in _iter_pair_pieces(n, block_size):
        values = evaluate(pairs)
        total += float(values.sum())
        if shape is None:
            per_index += np.bincount(pairs[:, 0], weights=values, minlength=n)
            per_index += np.bincount(pairs[:, 1], weights=values, minlength=n)
        else:
            grid = values.reshape(shape)
            first = int(pairs[0, 0])
            per_index[first : first + shape[0]] += grid.sum(axis=1)
            per_index[n - shape[1] :] += grid.sum(axis=0)
    return total, per_index


def _iter_triples(n: int, chunk: int) -> Iterator[np.ndarray]:
    pending: list[np.ndarray] = []
    size = 0
    for first in range(n - 2):
        rest = n - first - 1
        left, right = np.triu_indices(rest, k=1)
        block = np.empty((left.size, 3), dtype=np.int64)
        block[:, 0] = first
        block[:, 1] = left + first + 1
        block[:, 2] = right + first + 1
        pending.append(block)
        size += left.size
        if size >= chunk:
            yield np.concatenate(pending)
            pending, size = [], 0
    if pending:
        yield np.concatenate(pending)


def iter_combinations(
    n: int, k: int, chunk: int = DEFAULT_CHUNK, block_size: int | None = None
) -> Iterator[np.ndarray]:
    """All k-subsets of range(n) (each row increasing) as int64 arrays of at most ~chunk rows."""
    if k > n:
        return
    if k == 1:
        yield np.arange(n, dtype=np.int64)[:, None]
    elif k == 2:
        yield from iter_pair_blocks(n, block_size or default_block_size(n, chunk))
    elif k == 3:
        yield from _iter_triples(n, chunk)
    else:
        combos = itertools.combinations(range(n), k)
        while True:
            flat = np.fromiter(
                itertools.chain.from_iterable(itertools.islice(combos, chunk)), dtype=np.int64
            )
            if flat.size == 0:
                return
            yield flat.reshape(-1, k)


def iter_product_combinations(
    group_a: np.ndarray, size_a: int, group_b: np.ndarray, size_b: int, chunk: int = DEFAULT_CHUNK
) -> Iterator[np.ndarray]:
    """Tuples made of a size_a-subset of ``group_a`` and a size_b-subset of ``group_b``.

    The groups must be disjoint; each tuple appears once.  Rows are not sorted.
    """
    if size_a > group_a.size or size_b > group_b.size:
        return
    a_chunks = (
        [np.empty((1, 0), dtype=np.int64)]
        if size_a == 0
        else [group_a[c] for c in iter_combinations(group_a.size, size_a, chunk)]
    )
    for b_local in (
        [np.zeros((1, 0), dtype=np.int64)]
        if size_b == 0
        else iter_combinations(group_b.size, size_b, chunk)
    ):
        b_rows = group_b[b_local]
        for a_rows in a_chunks:
            step = max(1, chunk // max(b_rows.shape[0], 1))
            for start in range(0, a_rows.shape[0], step):
                a_part = a_rows[start : start + step]
                joined = np.empty(
                    (a_part.shape[0], b_rows.shape[0], size_a + size_b), dtype=np.int64
                )
                joined[:, :, :size_a] = a_part[:, None, :]
                joined[:, :, size_a:] = b_rows[None, :, :]
                yield joined.reshape(-1, size_a + size_b)


def sum_over_combinations(
    n: int,
    k: int,
    evaluate: Callable[[np.ndarray], np.ndarray],
    *,
    chunk: int = DEFAULT_CHUNK,
    block_size: int | None = None,
) -> tuple[float, np.ndarray]:
    """Σ_S h(S) and the per-index sums Σ_{S∋i} h(S) over all k-subsets S of range(n)."""
    if k == 2:
        return sum_over_pairs(n, evaluate, block_size or default_block_size(n, chunk))
    total = 0.0
    per_index = np.zeros(n, dtype=np.float64)
    for tuples in iter_combinations(n, k, chunk, block_size):
        values = evaluate(tuples)
        total += float(values.sum())
        for column in range(k):
            per_index += np.bincount(tuples[:, column], weights=values, minlength=n)
    return total, per_index
