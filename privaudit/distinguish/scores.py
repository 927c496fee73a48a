"""Learned distinguishing scores: density-ratio estimates fitted on part of the search split.

Every score here is a fixed function φ of one output once fitted; the auditor thresholds
it ({φ ≥ t}, {φ ≤ t}) and tests the thresholds on data it was not fitted on, so any
score — good or bad — gives valid events.  A better score only gives *stronger* events.

* :class:`ColumnCoder` — one column (or a 1-D output) as integer cells: exact values
  when the column takes few values, otherwise atoms (values carrying ≥ 0.5 % of the
  mass) plus quantile bins of the rest, refined in both tails;
* :class:`CellScore` — Σ over *groups* of columns of a smoothed cell log-likelihood
  ratio log((n_x(c) + λ)/(N_x + λm)) − log((n_y(c) + λ)/(N_y + λm)).  With one column per
  group it is the **naive-Bayes (column-wise LLR) score**, the exact LLR of a product law
  (RAPPOR's independent bits, a noisy histogram's independent coordinates) and a strong
  score generally; with one group holding every column it is a **joint histogram**
  (the exact LLR of a discretised output); in between, **grouped** scores join dependent
  categorical columns (mutual information on the fitting sample) and add each continuous
  column's LLR *conditional on carrying a value* (its atoms score 0, its bins are
  normalised by the rows that carry a value), while the column's :class:`AtomClass`
  (which atom, or "a value") joins the categorical columns it depends on, so that "query
  j released a value" is counted once — with the pattern — and not again with the
  value.  That is the exact structure of sparse-vector outputs whose released values
  are independent given the pattern (and, with one ⊤, of every such output).  An optional linear *whitening* (Cholesky of the pooled covariance) is applied
  first for correlated continuous outputs: for prefix sums of independent noise it
  recovers the independent increments;
* :class:`LogisticScore` — logistic regression (:func:`~privaudit.distinguish.logistic.
  fit_logistic`) on a feature map without the collinearity of the plain (z, z², |z|) map:
  binary columns give one indicator, categorical columns a one-hot code, continuous
  columns (z, z², |z|) plus indicators of their atoms, and low-dimensional continuous
  outputs also the pairwise products z_i z_j; duplicate features are dropped;
* :class:`AbsDeviation` — |o − c| for 1-D outputs, whose thresholds are two-sided
  events {o ≤ c − r} ∪ {o ≥ c + r}.

References
----------
.. [1] Bichsel, Steffen, Bogunovic & Vechev, "DP-Sniper", IEEE S&P 2021 (thresholds on a
   learned posterior).
.. [2] Sugiyama, Suzuki & Kanamori, "Density ratio estimation in machine learning",
   Cambridge University Press 2012 (histogram and probabilistic-classification
   estimators of density ratios).
.. [3] Lyu, Su & Li, "Understanding the sparse vector technique for differential
   privacy", PVLDB 2017 (the structure of SVT outputs).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from .logistic import fit_logistic

__all__ = [
    "AbsDeviation",
    "AtomClass",
    "CellFit",
    "CellScore",
    "ColumnCoder",
    "LogisticScore",
    "PackedSum",
    "dependence_groups",
    "digit_range",
    "fit_cell_score",
    "fit_column_coder",
    "fit_logistic_score",
    "isotonic",
    "output_rows",
    "small_integer_digits",
    "whitening",
]

#: Columns with at most this many distinct values are coded exactly (categorical).
EXACT_VALUES = 32
#: Columns with at most this many distinct values count as categorical in grouped scores
#: and in the logistic feature map.
CATEGORICAL_VALUES = 16
#: A value carrying at least this share of a continuous column is an atom (own cell).
ATOM_SHARE = 0.005
#: Rows of the fitting sample used to find distinct values and atoms.
_PROBE_ROWS = 20_000
#: Rows per block when scoring (a block of every column stays in cache).
_BLOCK = 1 << 13
#: Cells of the uniform grid that locates values among a coder's bin edges.
_GRID_CELLS = 4096
#: Fewest edges for which the grid is used (a binary search over fewer is as fast).
_GRID_EDGES = 8
#: Rows used to test columns for dependence.
MI_ROWS = 100_000
#: Smallest mutual information (nats) for which two columns are joined.
_MI_FLOOR = 1e-4


@functools.lru_cache(maxsize=256)
def _g_threshold(dof: int) -> float:
    """The level-10⁻⁶ quantile of χ²(dof)."""
    return float(special.chdtri(dof, 1e-6))


def output_rows(outputs: np.ndarray) -> np.ndarray:
    """The outputs as a 2-D array, one row per output (also when there are none: no −1
    to infer)."""
    o = np.asarray(outputs)
    return o.reshape(o.shape[0], math.prod(o.shape[1:]))


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
        if lut is not None:                       # integer column, small integer atoms
            lo, table = lut
            pos = np.subtract(col, lo)
            np.clip(pos, -1, table.size - 2, out=pos)
            idx = table[pos + 1]
            hit = idx < m
            return np.minimum(idx, m - 1), hit
        if m == 1:                               # the usual single atom: no gather
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
        cached = self.__dict__.get("_lut")
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
        cached = self.__dict__.get("_bin_grid")
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
                    cached = (scale, shift, np.searchsorted(cells, top, side="left"),
                              searched)
            object.__setattr__(self, "_bin_grid", cached)
        return cached or None


def _grid_cell(values: np.ndarray, scale: float, shift: float, top: int) -> np.ndarray:
    """The grid cell of each value, a non-decreasing function of it (every step —
    product, sum, clip, truncation — is monotone, so an edge's cell below a value's
    cell means the edge is below the value); NaN falls in the top cell, where a search
    would place it too."""
    with np.errstate(over="ignore"):           # huge values: ±∞, clipped below
        x = values * scale
        x += shift
    np.fmin(x, float(top), out=x)              # fmin / fmax: NaN → the top, ±∞ clipped
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
        idx, hit = self.base.atom_index(np.asarray(column))
        return np.where(hit, idx, self.base.atoms.size)


def _quantile_levels(bins: int, n: int) -> np.ndarray:
    """Uniform levels plus geometric refinements of both tails down to ~8/n."""
    body = np.linspace(0.0, 1.0, bins + 1)[1:-1]
    low = 8.0 / max(n, 1)
    if low < 1.0 / bins:
        tail = np.geomspace(low, 1.0 / bins, max(2, int(math.log2(1.0 / (bins * low))) + 1))
        body = np.concatenate([body, tail, 1.0 - tail])
    return np.unique(np.clip(body, 0.0, 1.0))


def fit_column_coder(pooled: np.ndarray, *, bins: int = 32, exact_limit: int = EXACT_VALUES,
                     tails: bool = True) -> ColumnCoder:
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
    probe = col[:_PROBE_ROWS]
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
    levels = _quantile_levels(bins, rest.size) if tails else \
        np.linspace(0.0, 1.0, bins + 1)[1:-1]
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
    if not (-128 <= lo and hi <= 127 and hi - lo < PACKED_BASE):
        return None
    return int(lo), int(hi)


def small_integer_digits(block: np.ndarray, columns: Sequence[int], lo: int, hi: int
                         ) -> np.ndarray | None:
    """The entries of ``columns`` less ``lo`` as an (n, k) float64 matrix of digits in
    {0, …, hi − lo}, or ``None`` unless every entry is an integer in [lo, hi].

    The entries are read as float64 (as the per-column lookups read them) and checked
    before any arithmetic: a value that is not exactly such an integer (0.5, 10⁻³⁰⁰,
    NaN, ±∞) makes the whole block ``None``, so that the caller's exact path decides it.
    ``lo`` and ``hi`` must lie in the int8 range (the integrality check is a cast).
    """
    sub = np.take(block, columns, axis=1)
    if sub.dtype != np.float64:
        sub = sub.astype(np.float64)
    if sub.size == 0:
        return sub
    if not (sub.min() >= lo and sub.max() <= hi):      # NaN fails both comparisons
        return None
    if not np.array_equal(sub.astype(np.int8), sub):    # in range, so the cast is defined
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

    weights: np.ndarray = field(repr=False)       # (k, parts): base powers of each part
    tables: tuple[np.ndarray, ...] = field(repr=False)

    @classmethod
    def of(cls, positions: Sequence[int], terms: Sequence[np.ndarray], base: int,
           width: int) -> PackedSum:
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
            for power, (pos, term) in enumerate(zip(positions[cut], terms[cut])):
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


# ----------------------------------------------------------------------------------------
# cell scores
# ----------------------------------------------------------------------------------------
_HASH = np.random.default_rng(0x5EED).integers(1, 2**63 - 1, size=4096, dtype=np.int64) | 1


def _combine(cols: Sequence[np.ndarray], columns: Sequence[int],
             radix: Sequence[int] | None) -> np.ndarray:
    """One int64 key per row from per-column cells: mixed radix, or a 64-bit hash when
    the product of the radices overflows (collisions then have probability ~2⁻⁶⁴ per
    pair of distinct rows, and would only merge two cells of a fixed event)."""
    k = np.zeros(cols[0].shape[0], dtype=np.int64)
    if radix is not None:
        for c, r in zip(cols, radix):
            k *= r
            k += c
        return k
    with np.errstate(over="ignore"):
        for j, c in zip(columns, cols):
            k += c * _HASH[j % _HASH.size]
    return k


def _radix(coders: Sequence[ColumnCoder]) -> tuple[int, ...] | None:
    radix = tuple(c.size for c in coders)
    return radix if math.prod(radix) < 2**62 else None


@dataclass(frozen=True, eq=False)
class _Group:
    """Columns scored jointly: their cells combined into one key, a table of LLRs.

    Member i is column ``columns[i]`` coded by ``coders[i]`` (a :class:`ColumnCoder`, or
    an :class:`AtomClass` when the group holds a continuous column's atom class);
    ``hash_ids`` tell members apart when the key is a hash.
    """

    columns: tuple[int, ...]
    coders: tuple[ColumnCoder | AtomClass, ...] = field(repr=False)
    keys: np.ndarray | None = field(repr=False)     # sorted keys (None: one column)
    table: np.ndarray = field(repr=False)           # LLR per key (or per cell)
    radix: tuple[int, ...] | None = field(repr=False)
    hash_ids: tuple[int, ...] = ()

    def value(self, codes: dict[tuple[int, int], np.ndarray]) -> np.ndarray:
        cols = [codes[(j, id(c))] for j, c in zip(self.columns, self.coders)]
        if self.keys is None:
            return self.table[cols[0]]
        return self.lookup(_combine(cols, self.hash_ids or self.columns, self.radix))

    def lookup(self, k: np.ndarray) -> np.ndarray:
        """The LLR of each key (of a cell, for one column); unseen keys score 0."""
        if self.keys is None:
            return self.table[k]
        pos = np.searchsorted(self.keys, k)
        np.minimum(pos, self.keys.size - 1, out=pos)
        return np.where(self.keys[pos] == k, self.table[pos], 0.0)

    def multipliers(self) -> np.ndarray:
        """w with key = Σ_i cell_i · w_i (int64, wrapping): :func:`_combine` unrolled
        (the mixed radix's place values, or the members' hash constants)."""
        if self.keys is None:
            return np.ones(1, dtype=np.int64)
        if self.radix is not None:
            places = np.cumprod((self.radix[1:] + (1,))[::-1])[::-1]
            return np.asarray(places, dtype=np.int64)
        return _HASH[np.asarray(self.hash_ids or self.columns) % _HASH.size]


@dataclass(frozen=True, eq=False)
class _GroupPlan:
    """One group's value from a digit matrix (:func:`small_integer_digits`) of its
    exactly coded small-integer members.

    Every member packed (and at most :data:`PACKED_CELLS` digit combinations): ``cells``
    holds the group's LLR of every combination, read at the packed number of the row
    (its digit at ``position`` for one member, else the digits times ``powers``).
    Otherwise ``key`` gives the packed members' share of the key, and the ``others``
    (member indices) add cell × multiplier before the group's lookup.
    """

    position: int = -1
    powers: np.ndarray | None = field(default=None, repr=False)
    cells: np.ndarray | None = field(default=None, repr=False)
    key: PackedSum | None = field(default=None, repr=False)
    others: tuple[int, ...] = ()
    multipliers: np.ndarray | None = field(default=None, repr=False)

    def value(self, group: _Group, digits: np.ndarray,
              codes: dict[tuple[int, int], np.ndarray]) -> np.ndarray:
        """The group's LLR per row (``codes``: the cells of the members not packed)."""
        if self.cells is not None:
            number = digits[:, self.position] if self.powers is None else \
                digits @ self.powers
            return self.cells[number.astype(np.intp)]
        k = self.key(digits)  # type: ignore[misc]
        for i, w in zip(self.others, self.multipliers):  # type: ignore[arg-type]
            k += codes[(group.columns[i], id(group.coders[i]))] * w
        return group.lookup(k)


@dataclass(frozen=True, eq=False)
class _PackedGroups:
    """The groups' values from one digit matrix per block of rows of the score's exactly
    coded small-integer columns (:func:`small_integer_digits`): a column costs one
    lookup in a small table instead of its coder, and a group of such columns one lookup
    of its packed digits instead of combining its cells.

    Each table holds the group's own computation on every digit combination, so the
    values are those of :meth:`_Group.value` to the bit.  A block holding any other
    value in these columns (NaN, 0.5, an integer out of the tabulated range) is coded
    column by column instead.
    """

    columns: tuple[int, ...]
    lo: int
    hi: int
    packed: tuple[tuple[int, int], ...]       # (group, member) read from the digits
    plans: tuple[_GroupPlan | None, ...] = field(repr=False)

    @classmethod
    def of(cls, groups: Sequence[_Group]) -> _PackedGroups | None:
        """``None`` unless some member is an exact coder of small-integer atoms (within
        one range of at most :data:`PACKED_BASE` integers)."""
        exact = [(gi, i) for gi, g in enumerate(groups) for i, c in enumerate(g.coders)
                 if isinstance(c, ColumnCoder) and _small_integer_atoms(c)]
        coders = [groups[gi].coders[i] for gi, i in exact]
        bounds = digit_range([c.atoms[0] for c in coders], [c.atoms[-1] for c in coders])
        if not exact or bounds is None:
            return None
        lo, hi = bounds
        columns = tuple(dict.fromkeys(groups[gi].columns[i] for gi, i in exact))
        decoded = lo + np.arange(hi - lo + 1, dtype=np.float64)
        cells = {(gi, i): c(decoded) for (gi, i), c in zip(exact, coders)}
        plans = tuple(_plan(gi, g, cells, columns, hi - lo + 1) for gi, g in enumerate(groups))
        return cls(columns=columns, lo=lo, hi=hi, packed=tuple(exact), plans=plans)

    def skip(self, groups: Sequence[_Group]) -> frozenset[tuple[int, int]]:
        """The packed members as keys of :meth:`_Group.value`'s codes (made at each call:
        they hold object ids, which a pickled copy would not keep)."""
        return frozenset((groups[gi].columns[i], id(groups[gi].coders[i]))
                         for gi, i in self.packed)

    def digits(self, block: np.ndarray) -> np.ndarray | None:
        """The digit matrix of ``block``, or ``None`` when some entry is not packed."""
        if block.dtype.kind != "f":      # integer columns have their coders' own tables
            return None
        return small_integer_digits(block, self.columns, self.lo, self.hi)


def _small_integer_atoms(coder: ColumnCoder) -> bool:
    """Whether ``coder`` codes its column exactly by integer atoms within int8."""
    a = coder.atoms
    return coder.exact and a.size > 0 and bool(np.all(np.abs(a) <= 127)) and \
        bool(np.all(a == np.round(a)))


def _plan(index: int, group: _Group, cells: dict[tuple[int, int], np.ndarray],
          columns: tuple[int, ...], base: int) -> _GroupPlan | None:
    """How group ``index`` is read from the digits (``cells``: the cell per digit of each
    packed (group, member)), or ``None`` when none of its members is packed."""
    size = len(group.columns)
    packed = [i for i in range(size) if (index, i) in cells]
    if not packed:
        return None
    w = group.multipliers()
    positions = tuple(columns.index(group.columns[i]) for i in packed)
    with np.errstate(over="ignore"):           # hash keys wrap, as in _combine
        terms = [cells[(index, i)].astype(np.int64) * w[i] for i in packed]
    if len(packed) == size and base ** size <= PACKED_CELLS:
        every = PackedSum.of(positions, terms, base, len(columns))
        if size == 1:
            return _GroupPlan(position=positions[0], cells=group.lookup(every.tables[0]))
        return _GroupPlan(powers=every.weights[:, 0], cells=group.lookup(every.tables[0]))
    others = tuple(i for i in range(size) if i not in packed)
    return _GroupPlan(key=PackedSum.of(positions, terms, base, len(columns)), others=others,
                      multipliers=w[list(others)])


@dataclass(frozen=True, eq=False)
class CellScore:
    """φ(o) = Σ_groups LLR̂_g(cells of o in g) after an optional whitening o ↦ (o − μ)W.

    Built by :func:`fit_cell_score`; ``name`` says which kind (naive Bayes, grouped,
    joint, whitened).
    """

    groups: tuple[_Group, ...] = field(repr=False)
    centre: np.ndarray | None = field(default=None, repr=False)
    matrix: np.ndarray | None = field(default=None, repr=False)
    name: str = "cell LLR"

    def restricted(self, columns: Sequence[int]) -> CellScore | None:
        """The sum over the single-column groups of ``columns`` only (their value LLRs;
        an atom class is a group of its own kind and is left out), or ``None``."""
        wanted = set(columns)
        kept = tuple(g for g in self.groups if len(g.columns) == 1 and g.columns[0] in wanted
                     and isinstance(g.coders[0], ColumnCoder))
        if not kept:
            return None
        return CellScore(groups=kept, centre=self.centre, matrix=self.matrix,
                         name=f"{self.name} of columns {sorted(wanted)}")

    def _packed(self) -> _PackedGroups | None:
        """The groups read from packed digits, built on first use (an unpickled score
        builds them too); none after a whitening."""
        if "_packed_groups" not in self.__dict__:
            packed = _PackedGroups.of(self.groups) if self.matrix is None else None
            object.__setattr__(self, "_packed_groups", packed)
        return self.__dict__["_packed_groups"]

    def _codes(self, block: np.ndarray, skip: frozenset[tuple[int, int]] = frozenset()
               ) -> dict[tuple[int, int], np.ndarray]:
        """The cells of every member of every group on one block of rows, but ``skip``."""
        members = {(j, id(c)): (j, c) for g in self.groups for j, c in zip(g.columns, g.coders)
                   if (j, id(c)) not in skip}
        coded = [(key, j, c) for key, (j, c) in members.items() if isinstance(c, ColumnCoder)]
        # the columns to code, read once and transposed: each coder then reads one
        # contiguous column instead of striding through the rows
        columns = list(dict.fromkeys(j for _, j, _ in coded))
        read = np.take(block, columns, axis=1).T.copy()
        where = {j: i for i, j in enumerate(columns)}
        codes = {key: c(read[where[j]]) for key, j, c in coded}
        for key, (j, c) in members.items():
            if isinstance(c, AtomClass):
                # the atom class is the column's cell capped at "not an atom" (no search)
                base = codes.get((j, id(c.base)))
                codes[key] = c(block[:, j]) if base is None or c.base.atoms.size == 0 \
                    else np.minimum(base, c.base.atoms.size)
        return codes

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        o = output_rows(outputs)
        total = np.empty(o.shape[0], dtype=np.float64)
        packed = self._packed()
        for start in range(0, o.shape[0], _BLOCK):     # blocks that stay in cache
            block = o[start:start + _BLOCK]
            if self.matrix is not None:
                block = (np.asarray(block, dtype=np.float64) - self.centre) @ self.matrix
            acc = total[start:start + _BLOCK]
            acc[:] = 0.0
            if packed is None or (digits := packed.digits(block)) is None:
                codes = self._codes(block)
                for g in self.groups:
                    acc += g.value(codes)
                continue
            codes = self._codes(block, packed.skip(self.groups))
            for g, plan in zip(self.groups, packed.plans):
                acc += g.value(codes) if plan is None else plan.value(g, digits, codes)
        return total


def whitening(pooled: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(μ, W) with (o − μ)W uncorrelated, W = L⁻ᵀ for the Cholesky factor L of the
    pooled covariance; ``None`` if the covariance is singular or the columns are already
    nearly uncorrelated (largest |correlation| < 0.2)."""
    o = np.asarray(pooled, dtype=np.float64)
    if o.ndim != 2 or o.shape[1] < 2 or not np.all(np.isfinite(o)):
        return None
    mu = o.mean(axis=0)
    cov = np.cov(o, rowvar=False)
    sd = np.sqrt(np.diag(cov))
    if np.any(sd <= 0):
        return None
    corr = cov / np.outer(sd, sd)
    np.fill_diagonal(corr, 0.0)
    if np.max(np.abs(corr)) < 0.2:
        return None
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        return None
    w = np.linalg.inv(chol).T
    return mu, w


def dependence_groups(codes: Sequence[np.ndarray], sizes: Sequence[int], *, max_cells: int,
                      mi_weights: np.ndarray | None = None) -> list[tuple[int, ...]]:
    """Connected components of "significantly dependent" columns (G-test on the cells).

    Two coded columns are joined when the G statistic 2·n·MI exceeds the χ² quantile at
    level 10⁻⁶ (on at most 10⁵ rows) and MI exceeds 10⁻⁴ nats; a component whose
    observed joint cells exceed ``max_cells`` is split back into single columns.  With
    ``mi_weights`` the codes are those of distinct rows and the weights count each in
    the rows the G-test would use (:meth:`CellFit.from_distinct_rows`).
    """
    full = list(codes)
    codes = full if mi_weights is not None else [c[:MI_ROWS] for c in full]
    d = len(codes)
    n = (round(float(mi_weights.sum())) if mi_weights is not None else codes[0].shape[0]) \
        if d else 0
    parent = list(range(d))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(d):
        for j in range(i + 1, d):
            if find(i) == find(j):
                continue
            mi, mj = int(sizes[i]), int(sizes[j])
            joint = np.bincount(codes[i] * mj + codes[j], weights=mi_weights,
                                minlength=mi * mj)
            joint = joint.reshape(mi, mj).astype(np.float64)
            ri, rj = joint.sum(axis=1), joint.sum(axis=0)
            dof = (np.count_nonzero(ri) - 1) * (np.count_nonzero(rj) - 1)
            if dof <= 0:
                continue
            nz = joint > 0
            expected = np.outer(ri, rj)[nz] / n
            g = 2.0 * float(np.sum(joint[nz] * np.log(joint[nz] / expected)))
            if g > _g_threshold(dof) and g > 2.0 * n * _MI_FLOOR:
                parent[find(i)] = find(j)
    comps: dict[int, list[int]] = {}
    for i in range(d):
        comps.setdefault(find(i), []).append(i)
    groups: list[tuple[int, ...]] = []
    for members in comps.values():
        if len(members) == 1:
            groups.append((members[0],))
            continue
        radix = tuple(int(sizes[m]) for m in members)
        keys = _combine([full[m] for m in members], members,
                        radix if math.prod(radix) < 2**62 else None)
        distinct = np.unique(keys).size if n else 0
        if distinct > max_cells:
            groups.extend((m,) for m in members)
        else:
            groups.append(tuple(members))
    return sorted(groups)


def _group_table(keys_x: np.ndarray, keys_y: np.ndarray, smoothing: float,
                 space: int | None = None, weights_x: np.ndarray | None = None,
                 weights_y: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Sorted observed keys and their smoothed LLRs (keys weighted by their rows'
    multiplicities when weights are given; a key of weight 0 is not observed)."""
    if weights_x is not None and weights_y is not None:
        keys_x, weights_x = keys_x[weights_x > 0], weights_x[weights_x > 0]
        keys_y, weights_y = keys_y[weights_y > 0], weights_y[weights_y > 0]
        n_x, n_y = float(weights_x.sum()), float(weights_y.sum())
    else:
        n_x, n_y = keys_x.size, keys_y.size
    if space is not None and space <= 1 << 22:          # small key space: count directly
        cx = np.bincount(keys_x, weights=weights_x, minlength=space)
        cy = np.bincount(keys_y, weights=weights_y, minlength=space)
        keys = np.flatnonzero(cx + cy)
        cx, cy = cx[keys].astype(np.float64), cy[keys].astype(np.float64)
    else:
        keys, inverse = np.unique(np.concatenate([keys_x, keys_y]), return_inverse=True)
        cx = np.bincount(inverse[: keys_x.size], weights=weights_x,
                         minlength=keys.size).astype(np.float64)
        cy = np.bincount(inverse[keys_x.size:], weights=weights_y,
                         minlength=keys.size).astype(np.float64)
    m = keys.size + 1
    lx = np.log(cx + smoothing) - math.log(n_x + smoothing * m)
    ly = np.log(cy + smoothing) - math.log(n_y + smoothing * m)
    return keys, lx - ly


def isotonic(values: np.ndarray, weights: np.ndarray, *, increasing: bool = True
             ) -> np.ndarray:
    """Weighted least-squares isotonic regression (pool-adjacent-violators)."""
    v = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if not increasing:
        return -isotonic(-v, w, increasing=True)
    means: list[float] = []
    wts: list[float] = []
    sizes: list[int] = []
    for vi, wi in zip(v.tolist(), w.tolist()):
        means.append(vi)
        wts.append(wi)
        sizes.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            wt = wts[-2] + wts[-1]
            m = (means[-2] * wts[-2] + means[-1] * wts[-1]) / wt if wt > 0 else \
                (means[-2] + means[-1]) / 2.0
            size = sizes[-2] + sizes[-1]
            del means[-1], wts[-1], sizes[-1]
            means[-1], wts[-1], sizes[-1] = m, wt, size
    return np.repeat(np.asarray(means), sizes)


def _monotone_llr(cx: np.ndarray, cy: np.ndarray, n_x: int, n_y: int, smoothing: float
                  ) -> np.ndarray:
    """Bin LLRs under a monotone likelihood ratio: the x-share of each bin (weighted by
    its count) fitted isotonically, up or down, whichever has the larger likelihood."""
    tot = cx + cy
    share = (cx + smoothing) / (tot + 2.0 * smoothing)
    prior = math.log(n_x / n_y)
    best, best_ll = None, -np.inf
    for up in (True, False):
        fit = np.clip(isotonic(share, tot + 1e-9, increasing=up), 1e-12, 1 - 1e-12)
        ll = float(np.sum(cx * np.log(fit) + cy * np.log1p(-fit)))
        if ll > best_ll:
            best, best_ll = fit, ll
    return np.log(best) - np.log1p(-best) - prior  # type: ignore[arg-type]


class CellFit:
    """The fitting rows of both sides as contiguous columns, with cached column cells.

    Several cell scores fitted on the same rows (naive Bayes, grouped, joint) share the
    column coders and codes of equal bin counts through one :class:`CellFit`.

    Attributes
    ----------
    n_x, n_y : int
        Fitting rows per side.
    split : int
        Columns' first ``split`` entries are x's rows, the rest y's (= ``n_x``, or the
        number of x's distinct rows with :meth:`from_distinct_rows`).
    weights : numpy.ndarray or None
        Multiplicity of each entry (``None``: one each).
    mi_weights : numpy.ndarray or None
        Multiplicity of each entry among the rows the dependence test uses.
    """

    def __init__(self, fit_x: np.ndarray, fit_y: np.ndarray) -> None:
        ox, oy = output_rows(fit_x), output_rows(fit_y)
        self.n_x, self.n_y = ox.shape[0], oy.shape[0]
        self.split = self.n_x
        self.weights: np.ndarray | None = None
        self.mi_weights: np.ndarray | None = None
        self.d = ox.shape[1]
        columns = np.empty((self.d, self.n_x + self.n_y), dtype=np.result_type(ox, oy))
        for offset, part in ((0, ox), (self.n_x, oy)):
            for start in range(0, part.shape[0], _BLOCK):
                block = part[start:start + _BLOCK]
                columns[:, offset + start:offset + start + block.shape[0]] = block.T
        self.columns = columns
        self._coded: dict[int, tuple[list[ColumnCoder], list[np.ndarray]]] = {}

    @classmethod
    def from_distinct_rows(cls, rows: np.ndarray, weights_x: np.ndarray,
                           weights_y: np.ndarray, mi_x: np.ndarray, mi_y: np.ndarray
                           ) -> CellFit | None:
        """The same fit from the distinct rows of the fitting parts and their counts.

        ``weights_x[i]`` (``weights_y[i]``) counts row i of ``rows`` among x's (y's)
        fitting rows, ``mi_x``/``mi_y`` among the first :data:`MI_ROWS` of the pooled
        fitting rows (x's first) that the dependence test reads.  Every score fitted from
        it equals the one fitted on the rows themselves, when every column is coded by
        its values (at most :data:`EXACT_VALUES` of them); otherwise ``None``.
        """
        rx, ry = weights_x > 0, weights_y > 0
        stacked = output_rows(np.concatenate([rows[rx], rows[ry]]))
        if stacked.shape[0] == 0:
            return None
        for j in range(stacked.shape[1]):
            col = np.asarray(stacked[:, j], dtype=np.float64)
            if np.isnan(col).any() or np.unique(col).size > EXACT_VALUES:
                return None
        fit = cls.__new__(cls)
        fit.n_x, fit.n_y = round(float(weights_x.sum())), round(float(weights_y.sum()))
        fit.split = int(np.count_nonzero(rx))
        fit.weights = np.concatenate([weights_x[rx], weights_y[ry]]).astype(np.float64)
        fit.mi_weights = np.concatenate([mi_x[rx], mi_y[ry]]).astype(np.float64)
        fit.d = stacked.shape[1]
        fit.columns = np.ascontiguousarray(stacked.T)
        fit._coded = {}
        return fit

    def coded(self, bins: int) -> tuple[list[ColumnCoder], list[np.ndarray]]:
        """Column coders with ``bins`` quantile bins and the codes of every fitting row."""
        if bins not in self._coded:
            coders = [fit_column_coder(self.columns[j], bins=bins) for j in range(self.d)]
            codes = [coders[j](self.columns[j]) for j in range(self.d)]
            self._coded[bins] = (coders, codes)
        return self._coded[bins]


def fit_cell_score(fit_x: np.ndarray | None, fit_y: np.ndarray | None, *,
                   groups: str = "columns", bins: int = 32, whiten: bool = False,
                   smoothing: float = 1.0, max_cells: int | None = None,
                   name: str | None = None, context: CellFit | None = None,
                   monotone: bool = False) -> CellScore | None:
    """Fit a :class:`CellScore` on outputs of M(x) and M(y) (the fitting part only).

    Parameters
    ----------
    fit_x, fit_y : array (n, d) or (n,)
        Fitting outputs of each side (may be ``None`` when ``context`` is given).
    groups : {"columns", "joint", "grouped"}
        ``"columns"``: naive Bayes (one group per column, atoms scored); ``"joint"``: one
        group of every column (``None`` if it has more than ``max_cells`` observed
        cells); ``"grouped"``: dependent categorical columns joined, continuous columns
        scored conditionally on not being at an atom (``None`` without categorical
        columns).
    bins : int
        Quantile bins per continuous column.
    whiten : bool
        Apply :func:`whitening` first (``None`` if it does not apply).
    smoothing : float
        The pseudo-count λ.
    max_cells : int, optional
        Largest number of observed joint cells (default: a 20th of the fitting rows).
    name : str, optional
        The score's name (default: from the kind).
    context : CellFit, optional
        Shared fitting rows and column codes (see :class:`CellFit`).
    monotone : bool
        Constrain each single column's LLR to be monotone over its bins (in the
        direction that fits better): the maximum-likelihood fit under a monotone
        likelihood ratio (isotonic regression of the bin's x-share, :func:`isotonic`).
        Pools bins where the ratio is flat, which cuts the noise of weak signals.
    """
    centre = matrix = None
    if whiten:
        if fit_x is None or fit_y is None:
            raise ValueError("whitening needs the fitting rows")
        ox, oy = output_rows(fit_x), output_rows(fit_y)
        pooled = np.concatenate([ox, oy]).astype(np.float64)
        w = whitening(pooled)
        if w is None:
            return None
        centre, matrix = w
        pooled = (pooled - centre) @ matrix
        context = CellFit(pooled[: ox.shape[0]], pooled[ox.shape[0]:])
        del pooled
    elif context is None:
        if fit_x is None or fit_y is None:
            raise ValueError("need the fitting rows or a context")
        context = CellFit(fit_x, fit_y)
    n_x, n_y, d = context.n_x, context.n_y, context.d
    if n_x == 0 or n_y == 0:
        return None
    split = context.split
    w_x, w_y = (None, None) if context.weights is None else \
        (context.weights[:split], context.weights[split:])
    limit = max_cells if max_cells is not None else max(16, (n_x + n_y) // 20)
    coders, codes = context.coded(bins)
    categorical = [coders[j].exact and coders[j].atoms.size <= CATEGORICAL_VALUES
                   for j in range(d)]
    # a part is a tuple of members (column, coder, codes of the fitting rows, hash id);
    # ``conditional`` marks single continuous columns scored given that they carry a
    # value (atoms score 0, the bins are normalised by the non-atom counts)
    Member = tuple[int, "ColumnCoder | AtomClass", np.ndarray, int]
    parts: list[tuple[Member, ...]] = []
    conditional: set[int] = set()

    def member(j: int) -> Member:
        return (j, coders[j], codes[j], j)

    if groups == "columns":
        parts = [(member(j),) for j in range(d)]
    elif groups == "joint":
        if d == 1:
            return None
        parts = [tuple(member(j) for j in range(d))]
        keys = _combine(codes, range(d), _radix(coders))
        if np.unique(keys).size > limit:        # with distinct rows: the observed ones
            return None
    elif groups == "grouped":
        cat = [j for j in range(d) if categorical[j]]
        cont = [j for j in range(d) if not categorical[j]]
        if not cat:
            return None
        # the atom class of a continuous column with atoms is categorical: grouped with
        # the categorical columns it depends on it is counted once (for sparse-vector
        # outputs "column j carries a value" *is* the pattern's "⊤ at j", whose cells it
        # then leaves unchanged), and the column's values are scored given it
        variables = [member(j) for j in cat]
        for j in cont:
            if coders[j].atoms.size and not coders[j].exact:
                cls = AtomClass(coders[j])
                variables.append((j, cls, np.minimum(codes[j], coders[j].atoms.size),
                                  d + j))
                conditional.add(j)
        sizes = [v[1].size for v in variables]
        cat_groups = dependence_groups([v[2] for v in variables], sizes, max_cells=limit,
                                       mi_weights=context.mi_weights)
        parts = [tuple(variables[i] for i in g) for g in cat_groups] + \
            [(member(j),) for j in cont]
    else:
        raise ValueError(f"unknown grouping {groups!r}")
    built: list[_Group] = []
    for part in parts:
        columns = tuple(m[0] for m in part)
        sub_coders = tuple(m[1] for m in part)
        if len(part) == 1:
            j, coder, col_codes, _hid = part[0]
            size = coder.size
            cx = np.bincount(col_codes[:split], weights=w_x, minlength=size).astype(
                np.float64)
            cy = np.bincount(col_codes[split:], weights=w_y, minlength=size).astype(
                np.float64)
            first = coder.atoms.size if isinstance(coder, ColumnCoder) else 0
            is_conditional = isinstance(coder, ColumnCoder) and (
                j in conditional or (groups == "grouped" and not categorical[j]))
            # totals: all rows, or (conditional) the rows carrying a value
            tot_x, tot_y = (cx[first:].sum(), cy[first:].sum()) if j in conditional and \
                isinstance(coder, ColumnCoder) else (n_x, n_y)
            if tot_x <= 0 or tot_y <= 0:
                continue
            seen = int(np.count_nonzero(cx + cy)) + 1
            table = (np.log(cx + smoothing) - math.log(tot_x + smoothing * seen)) - \
                    (np.log(cy + smoothing) - math.log(tot_y + smoothing * seen))
            if monotone and isinstance(coder, ColumnCoder) and coder.edges.size >= 2:
                table[first:] = _monotone_llr(cx[first:], cy[first:], tot_x, tot_y,
                                              smoothing)
            if is_conditional:
                table[:first] = 0.0
            if np.all(table == 0.0):
                continue
            built.append(_Group(columns=columns, coders=sub_coders, keys=None, table=table,
                                radix=None))
            continue
        radix = _radix(sub_coders)  # type: ignore[arg-type]
        hash_ids = tuple(m[3] for m in part)
        keys_all = _combine([m[2] for m in part], hash_ids, radix)
        keys, table = _group_table(keys_all[:split], keys_all[split:], smoothing,
                                   math.prod(radix) if radix is not None else None,
                                   w_x, w_y)
        built.append(_Group(columns=columns, coders=sub_coders, keys=keys, table=table,
                            radix=radix, hash_ids=hash_ids))
    if not built:
        return None
    label = name or {"columns": "naive-Bayes LLR", "joint": "joint-cell LLR",
                     "grouped": "grouped LLR"}[groups]
    if monotone and not name:
        label = f"monotone {label}"
    if whiten:
        label = f"whitened {label}"
    return CellScore(groups=tuple(built), centre=centre, matrix=matrix, name=label)


# ----------------------------------------------------------------------------------------
# logistic regression on a non-collinear feature map
# ----------------------------------------------------------------------------------------
#: Largest number of continuous columns for which pairwise products are added.
_PAIRWISE_COLUMNS = 4


@dataclass(frozen=True, eq=False)
class _FeatureMap:
    """ψ(o): indicators, one-hot codes, (z, z², |z|), atom indicators, products."""

    indicator: tuple[tuple[int, float], ...]          # (column, value): 1[o_j == value]
    continuous: tuple[int, ...]
    centre: np.ndarray = field(repr=False)
    scale: np.ndarray = field(repr=False)
    pairs: tuple[tuple[int, int], ...]
    keep: np.ndarray = field(repr=False)              # indices of non-duplicate features

    @property
    def raw_size(self) -> int:
        """Number of features before duplicates are dropped."""
        return len(self.indicator) + 3 * len(self.continuous) + len(self.pairs)

    def raw(self, outputs: np.ndarray) -> np.ndarray:
        o = output_rows(outputs)
        cols: list[np.ndarray] = []
        for j, v in self.indicator:
            cols.append((o[:, j] == v).astype(np.float64))
        zs = []
        for k, j in enumerate(self.continuous):
            z = (np.asarray(o[:, j], dtype=np.float64) - self.centre[k]) / self.scale[k]
            z = np.where(np.isfinite(z), z, 0.0)
            zs.append(z)
            cols.extend([z, z * z, np.abs(z)])
        for a, b in self.pairs:
            cols.append(zs[a] * zs[b])
        if not cols:
            return np.zeros((o.shape[0], 0))
        return np.stack(cols, axis=1)

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return self.raw(outputs)[:, self.keep]


@dataclass(frozen=True, eq=False)
class LogisticScore:
    """s(o) = b + w·ψ(o) for the feature map ψ of :func:`fit_logistic_score`.

    Evaluated as a running weighted sum, column by column, without materialising ψ.
    """

    features: _FeatureMap = field(repr=False)
    weights: np.ndarray = field(repr=False)
    bias: float = 0.0
    name: str = "logistic score"

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        fm = self.features
        o = output_rows(outputs)
        full = np.zeros(fm.raw_size)
        full[fm.keep] = self.weights
        total = np.full(o.shape[0], self.bias, dtype=np.float64)
        # the columns read, once per block of rows and transposed (contiguous columns)
        columns = list(dict.fromkeys([j for j, _ in fm.indicator] + list(fm.continuous)))
        where = {j: i for i, j in enumerate(columns)}
        for start in range(0, o.shape[0], _BLOCK):     # blocks that stay in cache
            read = np.take(o[start:start + _BLOCK], columns, axis=1).T.copy()
            self._add(total[start:start + _BLOCK], read, where, full)
        return total

    def _add(self, total: np.ndarray, read: np.ndarray, where: dict[int, int],
             full: np.ndarray) -> None:
        """Add w·ψ(o) to ``total`` for one block (``read[where[j]]``: column j), term by
        term in the fixed order of the features (the same float operations per row)."""
        fm = self.features
        i = 0
        for j, v in fm.indicator:
            if full[i] != 0.0:
                total += full[i] * (read[where[j]] == v)
            i += 1
        zs = []
        for k, j in enumerate(fm.continuous):
            z = (np.asarray(read[where[j]], dtype=np.float64) - fm.centre[k]) / fm.scale[k]
            z[~np.isfinite(z)] = 0.0
            zs.append(z)
            w1, w2, w3 = full[i:i + 3]
            total += z * (w1 + w2 * z) + w3 * np.abs(z)
            i += 3
        for a, b in fm.pairs:
            if full[i] != 0.0:
                total += full[i] * zs[a] * zs[b]
            i += 1


def fit_logistic_score(fit_x: np.ndarray, fit_y: np.ndarray, *, l2: float = 1.0,
                       max_rows: int = 24_000) -> LogisticScore | None:
    """L2-regularised logistic regression of "came from x" on a non-collinear ψ(o).

    Binary columns give one indicator, other categorical columns (≤ 16 values) a one-hot
    code without its first value, continuous columns (z, z², |z|) plus an indicator per
    atom; with at most four continuous columns the products z_i z_j are added.  Features
    constant or identical to an earlier one on the fitting rows are dropped.
    """
    ox, oy = output_rows(fit_x)[: max_rows // 2], output_rows(fit_y)[: max_rows // 2]
    if ox.shape[0] == 0 or oy.shape[0] == 0:
        return None
    pooled = np.concatenate([ox, oy])
    d = pooled.shape[1]
    indicator: list[tuple[int, float]] = []
    continuous: list[int] = []
    for j in range(d):
        col = np.asarray(pooled[:, j], dtype=np.float64)
        probe = col[:_PROBE_ROWS]
        values, counts = np.unique(probe[~np.isnan(probe)], return_counts=True)
        if values.size <= 1:
            continue
        if values.size <= CATEGORICAL_VALUES:
            indicator.extend((j, float(v)) for v in values[1:])
            continue
        continuous.append(j)
        atoms = values[counts >= max(2.0, 0.05 * probe.size)]
        indicator.extend((j, float(v)) for v in atoms)
    if not indicator and not continuous:
        return None
    cont = np.asarray(pooled[:, continuous], dtype=np.float64) if continuous else \
        np.zeros((pooled.shape[0], 0))
    cont = np.where(np.isfinite(cont), cont, np.nan)
    centre = np.nan_to_num(np.nanmedian(cont, axis=0)) if continuous else np.zeros(0)
    scale = np.nan_to_num(np.nanstd(cont, axis=0), nan=1.0) if continuous else np.zeros(0)
    scale = np.where(scale > 0, scale, 1.0)
    pairs = tuple((a, b) for a in range(len(continuous)) for b in range(a + 1, len(continuous))
                  ) if 1 < len(continuous) <= _PAIRWISE_COLUMNS else ()
    fmap = _FeatureMap(indicator=tuple(indicator), continuous=tuple(continuous),
                       centre=centre, scale=scale, pairs=pairs, keep=np.zeros(0, dtype=int))
    feats = fmap.raw(pooled)
    spread = feats.std(axis=0)
    keep: list[int] = []
    seen: set[bytes] = set()
    for i in range(feats.shape[1]):
        if not spread[i] > 0:
            continue
        digest = np.round(feats[:2048, i], 12).tobytes()
        if digest in seen:
            continue
        seen.add(digest)
        keep.append(i)
    if not keep:
        return None
    keep_arr = np.asarray(keep, dtype=int)
    fmap = _FeatureMap(indicator=fmap.indicator, continuous=fmap.continuous, centre=centre,
                       scale=scale, pairs=pairs, keep=keep_arr)
    feats = feats[:, keep_arr]
    spread = spread[keep_arr]
    labels = np.concatenate([np.ones(ox.shape[0]), np.zeros(oy.shape[0])])
    w, bias = fit_logistic(feats / spread, labels, l2=l2, max_iter=15, tol=1e-6)
    return LogisticScore(features=fmap, weights=w / spread, bias=bias)


# ----------------------------------------------------------------------------------------
# two-sided events on 1-D outputs
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class AbsDeviation:
    """|o − centre| for a 1-D output: its thresholds are two-sided events."""

    centre: float
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", f"|output - {self.centre:.6g}|")

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        o = np.asarray(outputs, dtype=np.float64).reshape(np.asarray(outputs).shape[0])
        return np.abs(o - self.centre)
