"""Compiled (numba) kernels of :mod:`~privaudit.auditing.distinguish.columns`: one pass
per value instead of one NumPy pass per step, with the NumPy path's results to the bit.

* :func:`code_float_column` — :class:`~privaudit.auditing.distinguish.columns.ColumnCoder`
  on a float64 column;
* :func:`read_small_integer_digits` —
  :func:`~privaudit.auditing.distinguish.columns.small_integer_digits` on float64 rows.

Why the results agree to the bit: ``docs/engine_notes.md``,
"privaudit.auditing.distinguish._column_kernel".
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["code_float_column", "read_small_integer_digits"]

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _search(values: np.ndarray, v: float, right: bool) -> int:  # pragma: no cover - compiled
    """``searchsorted(values, v, "right" if right else "left")`` (NaN: ``len(values)``,
    after every number, as NumPy sorts it)."""
    if v != v:
        return values.size
    lo, hi = 0, values.size
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] < v or (right and values[mid] == v):
            lo = mid + 1
        else:
            hi = mid
    return lo


@_jit
def code_float_column(
    column: np.ndarray,
    atoms: np.ndarray,
    midpoints: np.ndarray,
    edges: np.ndarray,
    use_grid: bool,
    scale: float,
    shift: float,
    below: np.ndarray,
    searched: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled; tested against the NumPy path
    """Write the cell of every value of ``column`` (float64) into ``out`` (intp).

    Parameters
    ----------
    column : ndarray of float64, shape (n,)
    atoms : ndarray of float64
        The coder's atoms, sorted (no NaN).
    midpoints : ndarray of float64
        ``(atoms[:-1] + atoms[1:]) / 2.0`` as NumPy computes it (read for 2 to 8 atoms).
    edges : ndarray of float64
        The coder's bin edges, sorted and finite.
    use_grid, scale, shift, below, searched
        The coder's uniform grid over the edges (``ColumnCoder._grid``); with
        ``use_grid`` false the edges are searched for every value.
    out : ndarray of intp, shape (n,)
        The cells: ``i`` for the atom ``atoms[i]``, else ``len(atoms)`` plus the number
        of edges at or below the value.
    """
    m = atoms.size
    e = edges.size
    top = below.size - 1
    top_float = float(top)
    for i in range(column.size):
        v = column[i]
        if m > 0:
            if m == 1:
                idx = 0
            elif m <= 8:
                idx = 0
                for k in range(m - 1):
                    if v > midpoints[k]:
                        idx += 1
            else:
                idx = _search(atoms, v, False)
                if idx > m - 1:
                    idx = m - 1
            if atoms[idx] == v:
                out[i] = idx
                continue
        if e == 0:
            out[i] = m
            continue
        if use_grid:
            x = v * scale
            x = x + shift
            if not x <= top_float:  # NaN and values above the grid: its top cell
                x = top_float
            if x < 0.0:
                x = 0.0
            cell = int(x)
            count = below[cell]
            if searched[cell]:
                count = _search(edges, v, True)
        else:
            count = _search(edges, v, True)
        out[i] = m + count


@_jit
def read_small_integer_digits(
    block: np.ndarray, columns: np.ndarray, lo: int, hi: int, out: np.ndarray
) -> bool:  # pragma: no cover - compiled; tested against the NumPy path
    """Write ``block[:, columns] − lo`` into ``out`` (float64, shape (n, len(columns)))
    and return True when every entry is an integer in [lo, hi] (``lo`` and ``hi`` in the
    int8 range); return False at the first entry that is not (NaN, ±∞, 0.5, 10⁻³⁰⁰ …),
    with ``out`` then undefined.  An integer is a value equal to its truncation, as the
    NumPy path's int8 cast tests it; −0.0 is one, and −0.0 − 0 stays −0.0 there too."""
    low = float(lo)
    high = float(hi)
    for r in range(block.shape[0]):
        for c in range(columns.size):
            v = block[r, columns[c]]
            if not (v >= low and v <= high):
                return False
            if float(int(v)) != v:
                return False
            out[r, c] = v - low
    return True
