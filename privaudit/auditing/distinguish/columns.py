"""Output columns as integer cells, and sums over small-integer columns as table lookups.

The one job of this module is *coding*: turning a column of outputs into integer cells
that the learned scores (:mod:`~privaudit.auditing.distinguish.cell_score`,
:mod:`~privaudit.auditing.distinguish.logistic`,
:mod:`~privaudit.auditing.distinguish.patterns`) count and look up: :class:`ColumnCoder`
(exact values, atoms, tail-refined quantile bins), :class:`AtomClass`, and
:func:`small_integer_digits` with :class:`PackedSum` (a sum of per-column terms as one
lookup per block of columns, bit for bit).

References: Sugiyama, Suzuki & Kanamori, CUP 2012; Lyu, Su & Li, PVLDB 2017.  Details:
``docs/engine_notes.md``, "privaudit.auditing.distinguish.columns".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Literal

import numpy as np

__all__ = [
    "ATOM_SHARE",
    "CATEGORICAL_VALUES",
    "EXACT_VALUES",
    "PACKED_BASE",
    "PACKED_CELLS",
    "PROBE_ROWS",
    "AtomClass",
    "ColumnCoder",
    "PackedSum",
    "digit_range",
    "fit_column_coder",
    "load_column_kernel",
    "small_integer_digits",
]

#: Columns with at most this many distinct values are coded exactly (categorical).
EXACT_VALUES = 32
#: Columns with at most this many distinct values count as categorical in grouped scores
#: and in the logistic feature map.
CATEGORICAL_VALUES = 16
#: A value carrying at least this share of a continuous column is an atom (own cell).
ATOM_SHARE = 0.005
#: Rows of the fitting sample used to find distinct values and atoms.
PROBE_ROWS = 20_000
#: Cells of the uniform grid that locates values among a coder's bin edges.
_GRID_CELLS = 4096
#: Fewest edges for which the grid is used (a binary search over fewer is as fast).
_GRID_EDGES = 8
#: Fewest values of a float64 column coded by the compiled kernel
#: (:mod:`~privaudit.auditing.distinguish._column_kernel`, the same cells to the bit);
#: shorter columns take the NumPy path, which costs no call into numba.
KERNEL_VALUES = 4096


# ----------------------------------------------------------------------------------------
# columns as cells
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ColumnCoder:
    """Integer cells of one column: ``atoms`` exactly, other values in bins of ``edges``.

    Cell ``i < len(atoms)`` is the value ``atoms[i]``; a value that is not an atom falls
    in cell ``len(atoms) + searchsorted(edges, v, "right")`` (NaN in the last cell).
    A column coded exactly has no edges, so every unseen value shares one cell.
    """

    atoms: np.ndarray = field(repr=False)
    edges: np.ndarray = field(repr=False)

    @property
    def size(self) -> int:
        """Number of cells."""
        return int(self.atoms.size + self.edges.size + 1)

    @property
    def exact(self) -> bool:
        """Whether the column is coded by its values only (no bins)."""
        return self.edges.size == 0

    def atom_index(self, column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(i, hit): the atom nearest below-or-at each value and whether it is equal."""
        col = np.asarray(column)
        m = self.atoms.size
        lut = self._lookup(col)
        if lut is not None:  # integer column, small integer atoms
            lo, table = lut
            pos = np.subtract(col, lo)
            np.clip(pos, -1, table.size - 2, out=pos)
            idx = table[pos + 1]
            hit = idx < m
            return np.minimum(idx, m - 1), hit
        if m == 1:  # the usual single atom: no gather
            return np.zeros(col.shape[0], dtype=np.intp), col == self.atoms[0]
        if m <= 8:
            idx = np.zeros(col.shape[0], dtype=np.intp)
            for mid in (self.atoms[:-1] + self.atoms[1:]) / 2.0:
                idx += col > mid
        else:
            idx = np.searchsorted(self.atoms, col)
            np.minimum(idx, m - 1, out=idx)
        return idx, self.atoms[idx] == col

    def _lookup(self, col: np.ndarray) -> tuple[int, np.ndarray] | None:
        """For integer columns whose atoms are integers spanning < 4096: (lo, table) with
        table[v − lo + 1] the atom index of v, or m (slot 0 and the last: outside)."""
        if col.dtype.kind not in "iu" or self.atoms.size == 0:
            return None
        # False: looked up once, no table (so it is not rebuilt)
        cached: tuple[int, np.ndarray] | Literal[False] | None = self.__dict__.get("_lut")
        if cached is None:
            a = self.atoms
            lo, hi = float(a[0]), float(a[-1])
            if not (np.all(a == np.round(a)) and hi - lo < 4096):
                cached = False
            else:
                m = a.size
                table = np.full(int(hi - lo) + 3, m, dtype=np.intp)
                table[(a - lo).astype(np.intp) + 1] = np.arange(m)
                cached = (int(lo), table)
            object.__setattr__(self, "_lut", cached)
        return cached or None

    def __call__(self, column: np.ndarray) -> np.ndarray:
        col = np.asarray(column)
        if _kernel_applies(col):
            return self._compiled(col, with_bins=True)
        m = self.atoms.size
        lut = self._lookup(col) if self.edges.size == 0 else None
        if lut is not None:
            lo, table = lut
            pos = np.subtract(col, lo)
            np.clip(pos, -1, table.size - 2, out=pos)
            return table[pos + 1]
        if m == 0:
            return self.bins(col).astype(np.intp)
        idx, hit = self.atom_index(col)
        code = np.where(hit, idx, m)
        if self.edges.size:
            rest = np.flatnonzero(~hit)
            if rest.size:
                code[rest] += self.bins(col[rest])
        return code

    def _compiled(self, col: np.ndarray, *, with_bins: bool) -> np.ndarray:
        """The cells of a float64 column by the compiled kernel: those of
        :meth:`__call__` (``with_bins``) or of the atom class (no bins: every value that
        is not an atom in cell ``len(atoms)``), to the bit."""
        atoms = self.atoms
        midpoints: np.ndarray | None = self.__dict__.get("_midpoints")
        if midpoints is None:  # as atom_index computes them
            midpoints = (atoms[:-1] + atoms[1:]) / 2.0 if atoms.size > 1 else np.zeros(0)
            object.__setattr__(self, "_midpoints", midpoints)
        edges = self.edges if with_bins else _NO_EDGES
        grid = self._grid() if edges.size else None
        scale, shift, below, searched = grid if grid is not None else _NO_GRID
        out = np.empty(col.shape[0], dtype=np.intp)
        _kernel().code_float_column(
            col, atoms, midpoints, edges, grid is not None, scale, shift, below, searched, out
        )
        return out

    def bins(self, values: np.ndarray) -> np.ndarray:
        """``searchsorted(edges, values, side="right")``, exactly, for float64 values
        through a uniform grid over the edges (:meth:`_grid`): a value whose grid cell
        holds no edge has as many edges at or below it as every edge of a lower cell;
        only values in the cells of the edges themselves are searched.  (A binary search
        over ~50 edges mispredicts a branch at every level: ~30 ns per value.)"""
        v = np.asarray(values)
        grid = self._grid() if v.dtype == np.float64 else None
        if grid is None:
            return np.searchsorted(self.edges, v, side="right")
        scale, shift, below, searched = grid
        cell = _grid_cell(v, scale, shift, below.size - 1)
        out = below[cell]
        near = np.flatnonzero(searched[cell])
        if near.size:
            out[near] = np.searchsorted(self.edges, v[near], side="right")
        return out

    def _grid(self) -> tuple[float, float, np.ndarray, np.ndarray] | None:
        """(scale, shift, below, searched) of :data:`_GRID_CELLS` cells spanning the
        edges, built on first use: ``below[c]`` edges lie in cells before c, and
        ``searched[c]`` marks the cells holding an edge; ``None`` for few edges."""
        # False: looked up once, too few edges for a grid (so it is not rebuilt)
        cached: tuple[float, float, np.ndarray, np.ndarray] | Literal[False] | None = (
            self.__dict__.get("_bin_grid")
        )
        if cached is None:
            e = self.edges
            cached = False
            if e.size >= _GRID_EDGES:
                with np.errstate(all="ignore"):
                    scale = _GRID_CELLS / (float(e[-1]) - float(e[0]))
                    shift = 1.0 - float(e[0]) * scale
                if math.isfinite(scale) and scale > 0 and math.isfinite(shift):
                    cells = _grid_cell(e, scale, shift, _GRID_CELLS + 1)
                    top = np.arange(_GRID_CELLS + 2)
                    searched = np.zeros(top.size, dtype=bool)
                    searched[cells] = True
                    cached = (scale, shift, np.searchsorted(cells, top, side="left"), searched)
            object.__setattr__(self, "_bin_grid", cached)
        return cached or None


_NO_EDGES = np.zeros(0)
#: The kernel's grid arguments when a coder has no grid (never read).
_NO_GRID = (1.0, 0.0, np.zeros(1, dtype=np.intp), np.zeros(1, dtype=bool))


def _kernel_applies(col: np.ndarray) -> bool:
    """Whether ``col`` is coded by the compiled kernel: a long 1-D float64 column."""
    return col.dtype == np.float64 and col.ndim == 1 and col.shape[0] >= KERNEL_VALUES


def _kernel() -> ModuleType:
    """The compiled kernel module, imported on first use (numba is a heavy import)."""
    from privaudit.auditing.distinguish import _column_kernel

    return _column_kernel


def load_column_kernel() -> None:
    """Load the compiled kernels now (numba, and each kernel from its cache or compiled):
    before forking workers, so that every child does not load it again (0.15–0.25 s
    each, measured; the audit's pilot tests run in dozens of children)."""
    column = np.zeros(1)
    ColumnCoder(atoms=column, edges=_NO_EDGES)._compiled(column, with_bins=True)
    block = np.zeros((1, 1))
    _kernel().read_small_integer_digits(block, np.zeros(1, dtype=np.intp), 0, 0, block.copy())


def _grid_cell(values: np.ndarray, scale: float, shift: float, top: int) -> np.ndarray:
    """The grid cell of each value, a non-decreasing function of it (every step —
    product, sum, clip, truncation — is monotone, so an edge's cell below a value's
    cell means the edge is below the value); NaN falls in the top cell, where a search
    would place it too."""
    with np.errstate(over="ignore"):  # huge values: ±∞, clipped below
        x = values * scale
        x += shift
    np.fmin(x, float(top), out=x)  # fmin / fmax: NaN → the top, ±∞ clipped
    np.fmax(x, 0.0, out=x)
    return x.astype(np.intp)


@dataclass(frozen=True, eq=False)
class AtomClass:
    """The *atom class* of a column: which of its atoms a value is, or "not an atom".

    Cell ``i < len(atoms)`` is the atom ``atoms[i]``, cell ``len(atoms)`` any other value.
    In grouped scores it is the categorical part of a continuous column with atoms (for a
    sparse-vector output: whether the column carries a released value, i.e. whether its
    query was answered ⊤), scored jointly with the categorical columns it depends on.
    """

    base: ColumnCoder = field(repr=False)

    @property
    def size(self) -> int:
        """Number of cells (atoms + 1)."""
        return int(self.base.atoms.size + 1)

    @property
    def exact(self) -> bool:
        """Always: a finite set of classes."""
        return True

    def __call__(self, column: np.ndarray) -> np.ndarray:
        col = np.asarray(column)
        if _kernel_applies(col):
            return self.base._compiled(col, with_bins=False)
        idx, hit = self.base.atom_index(col)
        return np.where(hit, idx, self.base.atoms.size)


def _quantile_levels(bins: int, n: int) -> np.ndarray:
    """Uniform levels plus geometric refinements of both tails down to ~8/n."""
    body = np.linspace(0.0, 1.0, bins + 1)[1:-1]
    low = 8.0 / max(n, 1)
    if low < 1.0 / bins:
        tail = np.geomspace(low, 1.0 / bins, max(2, int(math.log2(1.0 / (bins * low))) + 1))
        body = np.concatenate([body, tail, 1.0 - tail])
    return np.unique(np.clip(body, 0.0, 1.0))


def fit_column_coder(
    pooled: np.ndarray, *, bins: int = 32, exact_limit: int = EXACT_VALUES, tails: bool = True
) -> ColumnCoder:
    """Cells of one column from a pooled fitting sample (both sides together).

    Parameters
    ----------
    pooled : array (n,)
        The column on the fitting rows of M(x) and M(y).
    bins : int
        Quantile bins of the non-atom values (before tail refinement).
    exact_limit : int
        Columns with at most this many distinct values are coded exactly.
    tails : bool
        Refine both tails geometrically (down to about 8 values per tail bin).
    """
    col = np.asarray(pooled, dtype=np.float64)
    col = col[~np.isnan(col)]
    if col.size == 0:
        return ColumnCoder(atoms=np.zeros(0), edges=np.zeros(0))
    probe = col[:PROBE_ROWS]
    values, counts = np.unique(probe, return_counts=True)
    if values.size <= exact_limit:
        full = np.unique(col) if col.size > probe.size else values
        if full.size <= exact_limit:
            return ColumnCoder(atoms=full, edges=np.zeros(0))
    atoms = values[counts >= max(2.0, ATOM_SHARE * probe.size)]
    if atoms.size:
        _, hit = ColumnCoder(atoms=atoms, edges=np.zeros(0)).atom_index(col)
        rest = col[~hit]
    else:
        rest = col
    if rest.size == 0:
        return ColumnCoder(atoms=atoms, edges=np.zeros(0))
    levels = _quantile_levels(bins, rest.size) if tails else np.linspace(0.0, 1.0, bins + 1)[1:-1]
    edges = np.unique(np.quantile(rest, levels, method="inverted_cdf"))
    edges = edges[np.isfinite(edges)]
    return ColumnCoder(atoms=atoms, edges=edges)


# ----------------------------------------------------------------------------------------
# small-integer columns as packed table lookups
# ----------------------------------------------------------------------------------------
#: Most cells of one packed part (base ** its columns): its table stays in cache.
PACKED_CELLS = 1 << 16
#: Widest range of integers read as digits (categorical codes: ⊤ / ⊥ / aborted …).
PACKED_BASE = 16


def digit_range(lows: Sequence[float], highs: Sequence[float]) -> tuple[int, int] | None:
    """(lo, hi) covering every [low, high] (integers) when it holds at most
    :data:`PACKED_BASE` integers within the int8 range, else ``None``."""
    lo, hi = min(lows, default=0.0), max(highs, default=0.0)
    if not (lo >= -128 and hi <= 127 and hi - lo < PACKED_BASE):
        return None
    return int(lo), int(hi)


def small_integer_digits(
    block: np.ndarray, columns: Sequence[int], lo: int, hi: int
) -> np.ndarray | None:
    """The entries of ``columns`` less ``lo`` as an (n, k) float64 matrix of digits in
    {0, …, hi − lo}, or ``None`` unless every entry is an integer in [lo, hi].

    The entries are read as float64 (as the per-column lookups read them) and checked
    before any arithmetic: a value that is not exactly such an integer (0.5, 10⁻³⁰⁰,
    NaN, ±∞) makes the whole block ``None``, so that the caller's exact path decides it.
    ``lo`` and ``hi`` must lie in the int8 range (the integrality check is a cast).
    """
    wanted = np.asarray(columns, dtype=np.intp)
    if (
        block.dtype == np.float64
        and block.ndim == 2
        and block.size >= KERNEL_VALUES
        and wanted.size
        and wanted.min() >= 0
        and wanted.max() < block.shape[1]
    ):  # one compiled pass (the same digits and verdict)
        digits = np.empty((block.shape[0], wanted.size))
        read = _kernel().read_small_integer_digits(block, wanted, int(lo), int(hi), digits)
        return digits if read else None
    sub = np.take(block, columns, axis=1)
    if sub.dtype != np.float64:
        sub = sub.astype(np.float64)
    if sub.size == 0:
        return sub
    if not (sub.min() >= lo and sub.max() <= hi):  # NaN fails both comparisons
        return None
    if not np.array_equal(sub.astype(np.int8), sub):  # in range, so the cast is defined
        return None
    sub -= lo
    return sub


@dataclass(frozen=True, eq=False)
class PackedSum:
    """Σ_i terms_i[d_i] per row (int64, wrapping) over the digit columns d_i of a
    :func:`small_integer_digits` matrix, by one table lookup per part.

    The columns are cut into parts of at most :data:`PACKED_CELLS` joint digit
    combinations; a part's digits read as one base-``base`` number index a table of the
    sum of its columns' terms, precomputed for every combination.  Integer addition is
    exact and associative (modulo 2⁶⁴), so the parts may be added in any order: the
    result equals the column-by-column sum bit for bit.
    """

    weights: np.ndarray = field(repr=False)  # (k, parts): base powers of each part
    tables: tuple[np.ndarray, ...] = field(repr=False)

    @classmethod
    def of(
        cls, positions: Sequence[int], terms: Sequence[np.ndarray], base: int, width: int
    ) -> PackedSum:
        """The sum of ``terms[i][d]`` (each of length ``base``) over the digit columns
        ``positions[i]`` of matrices with ``width`` columns."""
        per_part = 1
        while per_part < len(positions) and base ** (per_part + 1) <= PACKED_CELLS:
            per_part += 1
        starts = range(0, len(positions), per_part)
        weights = np.zeros((width, len(starts)))
        tables = []
        for p, first in enumerate(starts):
            cut = slice(first, first + per_part)
            table = np.zeros(1, dtype=np.int64)
            for power, (pos, term) in enumerate(zip(positions[cut], terms[cut], strict=True)):
                weights[pos, p] += float(base) ** power
                # digit d of this column adds base**power · d to the packed number
                table = (np.asarray(term, dtype=np.int64)[:, None] + table[None, :]).ravel()
            tables.append(table)
        return cls(weights=weights, tables=tuple(tables))

    def __call__(self, digits: np.ndarray) -> np.ndarray:
        # the packed numbers are integers below 2⁵³: the float product is exact
        packed = (digits @ self.weights).astype(np.intp)
        total = self.tables[0][packed[:, 0]]
        for p in range(1, len(self.tables)):
            total += self.tables[p][packed[:, p]]
        return total
