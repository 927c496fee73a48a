"""Sparse vector transcripts by table look-up on answer patterns.

The codes a sparse vector run releases are a function of its *answer pattern* alone (bit j
set when query j compares above its threshold).  For n ≤ :data:`MAX_TABLE_LENGTH` queries
the code rows of the 2ⁿ patterns are computed once by
:func:`~privaudit.suites._kernels.svt_codes` and a run's codes are gathered from that
table; independent runs released side by side are gathered from the table of their
combinations when it is small (:data:`MAX_COMBINED_ROWS`); longer query vectors fall back
to :func:`~privaudit.suites._kernels.svt_codes`.  Every path gives the same codes, value
for value.  The comparisons come query-major, an ``(n, N)`` boolean array.

Details: ``docs/engine_notes.md``, "privaudit.suites._svt_patterns".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from privaudit.spec.errors import InvalidParameterError
from privaudit.suites._kernels import ABOVE, svt_codes

__all__ = [
    "MAX_COMBINED_ROWS",
    "MAX_TABLE_LENGTH",
    "SparseVectorRun",
    "answer_patterns",
    "sparse_vector_run",
    "sparse_vector_runs",
]

#: Longest query vector answered through the pattern tables (2¹² patterns).
MAX_TABLE_LENGTH = 12
#: Largest table of combined code rows for runs released side by side.
MAX_COMBINED_ROWS = 1 << 14

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]


def answer_patterns(above: BoolArray) -> npt.NDArray[np.uint16]:
    """The answer pattern of each sample: bit j set where query j compared above.

    Parameters
    ----------
    above : ndarray of bool, shape (n, N)
        Query-major comparisons, n ≤ :data:`MAX_TABLE_LENGTH`.

    Returns
    -------
    ndarray of uint16, shape (N,)
        Σ_j above[j] · 2^j.
    """
    n = above.shape[0]
    if n > MAX_TABLE_LENGTH:
        raise InvalidParameterError(
            f"answer patterns cover at most {MAX_TABLE_LENGTH} queries, got {n}"
        )
    patterns = np.zeros(above.shape[1], dtype=np.uint16)
    for j in range(n):
        patterns |= above[j].view(np.uint8).astype(np.uint16) << j
    return patterns


@dataclass(frozen=True, eq=False)
class _CodeTable:
    """The distinct code rows of the 2ⁿ answer patterns of one run.

    ``row_of[p]`` is the index in ``rows`` of pattern p's code row; ``tops[r]`` lists the
    queries answered ⊤ in row r in increasing order, padded with n.
    """

    row_of: IntArray
    rows: FloatArray
    tops: npt.NDArray[np.int8]


@lru_cache(maxsize=64)
def _code_table(length: int, cutoff: int | None) -> _CodeTable:
    patterns = np.arange(2**length)
    above = ((patterns[:, np.newaxis] >> np.arange(length)) & 1).astype(bool)
    rows, row_of = np.unique(svt_codes(above, cutoff), axis=0, return_inverse=True)
    slots = length if cutoff is None else min(cutoff, length)
    positions = np.where(rows == ABOVE, np.arange(length), length)
    positions.sort(axis=1)
    table = _CodeTable(
        row_of.reshape(-1).astype(np.intp), rows, positions[:, :slots].astype(np.int8)
    )
    for array in (table.row_of, table.rows, table.tops):
        array.setflags(write=False)
    return table


@lru_cache(maxsize=64)
def _combined_rows(parts: tuple[tuple[int, int | None, int], ...], width: int) -> FloatArray:
    """Every combination of the parts' code rows, written at their columns, 0.0 elsewhere.

    ``parts`` holds (length, cut-off, first column); row Σ_i r_i·Π_{k>i} D_k combines
    row r_i of part i (D_k: number of distinct rows of part k).
    """
    tables = [_code_table(n, c) for n, c, _ in parts]
    counts = [t.rows.shape[0] for t in tables]
    combined = np.zeros((math.prod(counts), width))
    for i, (table, (n, _, first)) in enumerate(zip(tables, parts, strict=True)):
        inner = math.prod(counts[i + 1 :])
        block = np.repeat(table.rows, inner, axis=0)
        combined[:, first : first + n] = np.tile(block, (math.prod(counts[:i]), 1))
    combined.setflags(write=False)
    return combined


@dataclass(frozen=True, eq=False)
class SparseVectorRun:
    """The codes of N sparse vector runs, written into an output array.

    Attributes
    ----------
    output : ndarray of float64, shape (N, width)
        The whole output array the codes were written to.
    first_column : int
        The run's code columns are ``first_column … first_column + length − 1``.
    length : int
        Number n of queries.
    cutoff : int or None
        The cut-off c.
    code_rows : ndarray of intp or None
        Index of each sample's row in the run's table of distinct code rows (``None`` on
        the fallback path for long query vectors).
    """

    output: FloatArray
    first_column: int
    length: int
    cutoff: int | None
    code_rows: IntArray | None

    def put(self, samples: IntArray, columns: IntArray, values: npt.ArrayLike) -> None:
        """Write ``values[i]`` at ``output[samples[i], columns[i]]`` (flat indices: fast)."""
        np.put(self.output, samples * self.output.shape[1] + columns, values)

    def top_cells(self) -> tuple[IntArray, IntArray]:
        """(sample, query) indices of every answered ⊤, by sample then query.

        These are the cells whose code is :data:`~privaudit.suites._kernels.ABOVE`; the
        query index counts from the run's first query (0), not from ``first_column``.
        """
        n, first = self.length, self.first_column
        if self.code_rows is None:
            flat = np.flatnonzero(self.output[:, first : first + n] == ABOVE)
            return flat // n, flat % n
        tops = _code_table(n, self.cutoff).tops
        positions = np.take(tops, self.code_rows, axis=0)
        flat = np.flatnonzero(positions < n)
        return flat // tops.shape[1], positions.reshape(-1)[flat].astype(np.intp)


def sparse_vector_runs(
    parts: Sequence[tuple[BoolArray, int | None, int]], out: FloatArray
) -> tuple[SparseVectorRun, ...]:
    """Codes of independent sparse vector runs on the same N samples, side by side.

    Parameters
    ----------
    parts : sequence of (above, cutoff, first_column)
        For each run: its query-major comparisons (bool, shape (n, N); ``above[j, s]``:
        query j of sample s compares above its threshold), its cut-off c (``None``: no
        cut-off) and the output column of its first code.  Column ranges must not
        overlap.
    out : ndarray of float64, shape (N, width)
        C-contiguous array written in full: the code columns of every run, 0.0 in every
        other column.

    Returns
    -------
    tuple of SparseVectorRun
        One per part, in order.
    """
    size, width = out.shape if out.ndim == 2 else (-1, -1)
    if out.ndim != 2 or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise InvalidParameterError(
            f"out must be a C-contiguous 2-d float64 array, got {out.dtype} {out.shape}"
        )
    keys = []
    for above, cutoff, first in parts:
        n = above.shape[0]
        if above.shape != (n, size) or not 0 <= first <= width - n:
            raise InvalidParameterError(
                f"comparisons of shape {above.shape} at column {first} do not fit an "
                f"output of shape {out.shape}"
            )
        keys.append((n, cutoff, int(first)))
    tables = [_code_table(n, c) if n <= MAX_TABLE_LENGTH else None for n, c, _ in keys]
    rows = [
        None if t is None else np.take(t.row_of, answer_patterns(above))
        for t, (above, _, _) in zip(tables, parts, strict=True)
    ]
    counts = [0 if t is None else t.rows.shape[0] for t in tables]
    if all(t is not None for t in tables) and math.prod(counts) <= MAX_COMBINED_ROWS:
        index = np.zeros(size, dtype=np.intp)
        for count, row in zip(counts, rows, strict=True):
            index *= count
            index += row  # type: ignore[arg-type]  # every table exists: no row is None
        combined = _combined_rows(tuple(keys), width)
        np.take(combined, index, axis=0, out=out, mode="clip")  # in range: clip is a no-op
    else:
        out.fill(0.0)
        for table, row, (above, cutoff, _), (n, _, first) in zip(
            tables, rows, parts, keys, strict=True
        ):
            codes = (
                svt_codes(above.T, cutoff)
                if table is None or row is None  # both or neither
                else np.take(table.rows, row, axis=0)
            )
            out[:, first : first + n] = codes
    return tuple(
        SparseVectorRun(out, first, n, cutoff, row)
        for row, (n, cutoff, first) in zip(rows, keys, strict=True)
    )


def sparse_vector_run(
    above: BoolArray, cutoff: int | None, *, out: FloatArray | None = None
) -> SparseVectorRun:
    """Codes of N sparse vector runs from their query-major comparisons.

    Parameters
    ----------
    above : ndarray of bool, shape (n, N)
        ``above[j, s]``: query j of sample s compares above its threshold.
    cutoff : int or None
        Number c of ⊤ answers after which a run stops (``None``: no cut-off).
    out : ndarray of float64, shape (N, width), optional
        C-contiguous array to write into (default: a new ``(N, n)`` array); its first n
        columns receive the codes, the others 0.0.

    Returns
    -------
    SparseVectorRun
        Its ``output`` (``out`` when given) holds the codes of
        :func:`~privaudit.suites._kernels.svt_codes` (the same values).
    """
    if out is None:
        out = np.empty((above.shape[1], above.shape[0]))
    return sparse_vector_runs([(above, cutoff, 0)], out)[0]
