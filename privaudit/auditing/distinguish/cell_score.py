"""The cell score: a smoothed cell log-likelihood ratio summed over groups of columns.

:class:`CellScore` sums, over groups of columns, a smoothed cell LLR on the cells of
:mod:`~privaudit.auditing.distinguish.columns`: one column per group is the naive-Bayes
score, one group of every column a joint histogram, and in between grouped scores that join
dependent categorical columns; an optional linear whitening comes first.  Every fitted score
is a fixed function of one output, tested on data it was not fitted on, so any score gives
valid events; a better one only gives stronger events.

References: Bichsel, Steffen, Bogunovic & Vechev, IEEE S&P 2021; Sugiyama, Suzuki &
Kanamori, CUP 2012; Lyu, Su & Li, PVLDB 2017; Robertson, Wright & Dykstra, Wiley 1988.
Details: ``docs/engine_notes.md``, "privaudit.auditing.distinguish.cell_score".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from privaudit.auditing.distinguish.columns import (
    CATEGORICAL_VALUES,
    EXACT_VALUES,
    PACKED_CELLS,
    AtomClass,
    ColumnCoder,
    PackedSum,
    digit_range,
    fit_column_coder,
    small_integer_digits,
)
from privaudit.auditing.distinguish.dependence import (
    CELL_HASH,
    MI_ROWS,
    combine_keys,
    dependence_groups,
)
from privaudit.auditing.distinguish.isotonic import isotonic, monotone_llr
from privaudit.auditing.distinguish.rows import output_rows
from privaudit.auditing.distinguish.whitening import whitening
from privaudit.spec.errors import AuditError

__all__ = [
    "MI_ROWS",
    "CellFit",
    "CellScore",
    "dependence_groups",
    "fit_cell_score",
    "isotonic",
    "whitening",
]

#: Rows per block when scoring (a block of every column stays in cache).
_BLOCK = 1 << 13


# ----------------------------------------------------------------------------------------
# cell scores
# ----------------------------------------------------------------------------------------
def _radix(coders: Sequence[ColumnCoder | AtomClass]) -> tuple[int, ...] | None:
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
    keys: np.ndarray | None = field(repr=False)  # sorted keys (None: one column)
    table: np.ndarray = field(repr=False)  # LLR per key (or per cell)
    radix: tuple[int, ...] | None = field(repr=False)
    hash_ids: tuple[int, ...] = ()

    def value(self, codes: dict[tuple[int, int], np.ndarray]) -> np.ndarray:
        cols = [codes[(j, id(c))] for j, c in zip(self.columns, self.coders, strict=True)]
        if self.keys is None:
            return self.table[cols[0]]
        return self.lookup(combine_keys(cols, self.hash_ids or self.columns, self.radix))

    def lookup(self, k: np.ndarray) -> np.ndarray:
        """The LLR of each key (of a cell, for one column); unseen keys score 0."""
        if self.keys is None:
            return self.table[k]
        pos = np.searchsorted(self.keys, k)
        np.minimum(pos, self.keys.size - 1, out=pos)
        return np.where(self.keys[pos] == k, self.table[pos], 0.0)

    def multipliers(self) -> np.ndarray:
        """w with key = Σ_i cell_i · w_i (int64, wrapping):
        :func:`~privaudit.auditing.distinguish.dependence.combine_keys` unrolled
        (the mixed radix's place values, or the members' hash constants)."""
        if self.keys is None:
            return np.ones(1, dtype=np.int64)
        if self.radix is not None:
            places = np.cumprod((self.radix[1:] + (1,))[::-1])[::-1]
            return np.asarray(places, dtype=np.int64)
        return CELL_HASH[np.asarray(self.hash_ids or self.columns) % CELL_HASH.size]


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

    def value(
        self, group: _Group, digits: np.ndarray, codes: dict[tuple[int, int], np.ndarray]
    ) -> np.ndarray:
        """The group's LLR per row (``codes``: the cells of the members not packed)."""
        if self.cells is not None:
            number = digits[:, self.position] if self.powers is None else digits @ self.powers
            return self.cells[number.astype(np.intp)]
        if self.key is None or self.multipliers is None:
            raise AuditError("a packed group plan needs either cells or a key and multipliers")
        k = self.key(digits)
        for i, w in zip(self.others, self.multipliers, strict=True):
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
    packed: tuple[tuple[int, int], ...]  # (group, member) read from the digits
    plans: tuple[_GroupPlan | None, ...] = field(repr=False)

    @classmethod
    def of(cls, groups: Sequence[_Group]) -> _PackedGroups | None:
        """``None`` unless some member is an exact coder of small-integer atoms (within
        one range of at most :data:`PACKED_BASE` integers)."""
        exact = [
            (gi, i)
            for gi, g in enumerate(groups)
            for i, c in enumerate(g.coders)
            if isinstance(c, ColumnCoder) and _small_integer_atoms(c)
        ]
        coders = [cast(ColumnCoder, groups[gi].coders[i]) for gi, i in exact]
        bounds = digit_range([c.atoms[0] for c in coders], [c.atoms[-1] for c in coders])
        if not exact or bounds is None:
            return None
        lo, hi = bounds
        columns = tuple(dict.fromkeys(groups[gi].columns[i] for gi, i in exact))
        decoded = lo + np.arange(hi - lo + 1, dtype=np.float64)
        cells = {(gi, i): c(decoded) for (gi, i), c in zip(exact, coders, strict=True)}
        plans = tuple(_plan(gi, g, cells, columns, hi - lo + 1) for gi, g in enumerate(groups))
        return cls(columns=columns, lo=lo, hi=hi, packed=tuple(exact), plans=plans)

    def skip(self, groups: Sequence[_Group]) -> frozenset[tuple[int, int]]:
        """The packed members as keys of :meth:`_Group.value`'s codes (made at each call:
        they hold object ids, which a pickled copy would not keep)."""
        return frozenset((groups[gi].columns[i], id(groups[gi].coders[i])) for gi, i in self.packed)

    def digits(self, block: np.ndarray) -> np.ndarray | None:
        """The digit matrix of ``block``, or ``None`` when some entry is not packed."""
        if block.dtype.kind != "f":  # integer columns have their coders' own tables
            return None
        return small_integer_digits(block, self.columns, self.lo, self.hi)


def _small_integer_atoms(coder: ColumnCoder) -> bool:
    """Whether ``coder`` codes its column exactly by integer atoms within int8."""
    a = coder.atoms
    return (
        coder.exact
        and a.size > 0
        and bool(np.all(np.abs(a) <= 127))
        and bool(np.all(a == np.round(a)))
    )


def _plan(
    index: int,
    group: _Group,
    cells: dict[tuple[int, int], np.ndarray],
    columns: tuple[int, ...],
    base: int,
) -> _GroupPlan | None:
    """How group ``index`` is read from the digits (``cells``: the cell per digit of each
    packed (group, member)), or ``None`` when none of its members is packed."""
    size = len(group.columns)
    packed = [i for i in range(size) if (index, i) in cells]
    if not packed:
        return None
    w = group.multipliers()
    positions = tuple(columns.index(group.columns[i]) for i in packed)
    with np.errstate(over="ignore"):  # hash keys wrap, as in combine_keys
        terms = [cells[(index, i)].astype(np.int64) * w[i] for i in packed]
    if len(packed) == size and base**size <= PACKED_CELLS:
        every = PackedSum.of(positions, terms, base, len(columns))
        if size == 1:
            return _GroupPlan(position=positions[0], cells=group.lookup(every.tables[0]))
        return _GroupPlan(powers=every.weights[:, 0], cells=group.lookup(every.tables[0]))
    others = tuple(i for i in range(size) if i not in packed)
    return _GroupPlan(
        key=PackedSum.of(positions, terms, base, len(columns)),
        others=others,
        multipliers=w[list(others)],
    )


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
        kept = tuple(
            g
            for g in self.groups
            if len(g.columns) == 1
            and g.columns[0] in wanted
            and isinstance(g.coders[0], ColumnCoder)
        )
        if not kept:
            return None
        return CellScore(
            groups=kept,
            centre=self.centre,
            matrix=self.matrix,
            name=f"{self.name} of columns {sorted(wanted)}",
        )

    def _packed(self) -> _PackedGroups | None:
        """The groups read from packed digits, built on first use (an unpickled score
        builds them too); none after a whitening."""
        if "_packed_groups" not in self.__dict__:
            packed = _PackedGroups.of(self.groups) if self.matrix is None else None
            object.__setattr__(self, "_packed_groups", packed)
        return self.__dict__["_packed_groups"]

    def _codes(
        self, block: np.ndarray, skip: frozenset[tuple[int, int]] = frozenset()
    ) -> dict[tuple[int, int], np.ndarray]:
        """The cells of every member of every group on one block of rows, but ``skip``."""
        members = {
            (j, id(c)): (j, c)
            for g in self.groups
            for j, c in zip(g.columns, g.coders, strict=True)
            if (j, id(c)) not in skip
        }
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
                codes[key] = (
                    c(block[:, j])
                    if base is None or c.base.atoms.size == 0
                    else np.minimum(base, c.base.atoms.size)
                )
        return codes

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        o = output_rows(outputs)
        total = np.empty(o.shape[0], dtype=np.float64)
        packed = self._packed()
        for start in range(0, o.shape[0], _BLOCK):  # blocks that stay in cache
            block = o[start : start + _BLOCK]
            if self.centre is not None and self.matrix is not None:  # whitened (both set)
                block = (np.asarray(block, dtype=np.float64) - self.centre) @ self.matrix
            acc = total[start : start + _BLOCK]
            acc[:] = 0.0
            if packed is None or (digits := packed.digits(block)) is None:
                codes = self._codes(block)
                for g in self.groups:
                    acc += g.value(codes)
                continue
            codes = self._codes(block, packed.skip(self.groups))
            for g, plan in zip(self.groups, packed.plans, strict=True):
                acc += g.value(codes) if plan is None else plan.value(g, digits, codes)
        return total


def _group_table(
    keys_x: np.ndarray,
    keys_y: np.ndarray,
    smoothing: float,
    space: int | None = None,
    weights_x: np.ndarray | None = None,
    weights_y: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted observed keys and their smoothed LLRs (keys weighted by their rows'
    multiplicities when weights are given; a key of weight 0 is not observed)."""
    if weights_x is not None and weights_y is not None:
        keys_x, weights_x = keys_x[weights_x > 0], weights_x[weights_x > 0]
        keys_y, weights_y = keys_y[weights_y > 0], weights_y[weights_y > 0]
        n_x, n_y = float(weights_x.sum()), float(weights_y.sum())
    else:
        n_x, n_y = keys_x.size, keys_y.size
    if space is not None and space <= 1 << 22:  # small key space: count directly
        cx = np.bincount(keys_x, weights=weights_x, minlength=space)
        cy = np.bincount(keys_y, weights=weights_y, minlength=space)
        keys = np.flatnonzero(cx + cy)
        cx, cy = cx[keys].astype(np.float64), cy[keys].astype(np.float64)
    else:
        keys, inverse = np.unique(np.concatenate([keys_x, keys_y]), return_inverse=True)
        cx = np.bincount(inverse[: keys_x.size], weights=weights_x, minlength=keys.size).astype(
            np.float64
        )
        cy = np.bincount(inverse[keys_x.size :], weights=weights_y, minlength=keys.size).astype(
            np.float64
        )
    m = keys.size + 1
    lx = np.log(cx + smoothing) - math.log(n_x + smoothing * m)
    ly = np.log(cy + smoothing) - math.log(n_y + smoothing * m)
    return keys, lx - ly


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
                block = part[start : start + _BLOCK]
                columns[:, offset + start : offset + start + block.shape[0]] = block.T
        self.columns = columns
        self._coded: dict[int, tuple[list[ColumnCoder], list[np.ndarray]]] = {}

    @classmethod
    def from_distinct_rows(
        cls,
        rows: np.ndarray,
        weights_x: np.ndarray,
        weights_y: np.ndarray,
        mi_x: np.ndarray,
        mi_y: np.ndarray,
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


def fit_cell_score(
    fit_x: np.ndarray | None,
    fit_y: np.ndarray | None,
    *,
    groups: str = "columns",
    bins: int = 32,
    whiten: bool = False,
    smoothing: float = 1.0,
    max_cells: int | None = None,
    name: str | None = None,
    context: CellFit | None = None,
    monotone: bool = False,
) -> CellScore | None:
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
        context = CellFit(pooled[: ox.shape[0]], pooled[ox.shape[0] :])
        del pooled
    elif context is None:
        if fit_x is None or fit_y is None:
            raise ValueError("need the fitting rows or a context")
        context = CellFit(fit_x, fit_y)
    if context.n_x == 0 or context.n_y == 0:
        return None
    limit = max_cells if max_cells is not None else max(16, (context.n_x + context.n_y) // 20)
    coders, _codes = context.coded(bins)
    categorical = [c.exact and c.atoms.size <= CATEGORICAL_VALUES for c in coders]
    found = _parts(groups, context, bins, categorical, limit)
    if found is None:
        return None
    parts, conditional = found
    built: list[_Group] = []
    for part in parts:
        group = (
            _single_group(
                part[0],
                context,
                conditional,
                scored_given_value=(groups == "grouped" and not categorical[part[0][0]]),
                smoothing=smoothing,
                monotone=monotone,
            )
            if len(part) == 1
            else _joint_group(part, context, smoothing)
        )
        if group is not None:
            built.append(group)
    if not built:
        return None
    label = (
        name
        or {"columns": "naive-Bayes LLR", "joint": "joint-cell LLR", "grouped": "grouped LLR"}[
            groups
        ]
    )
    if monotone and not name:
        label = f"monotone {label}"
    if whiten:
        label = f"whitened {label}"
    return CellScore(groups=tuple(built), centre=centre, matrix=matrix, name=label)


#: A member of a group: (column, coder, codes of the fitting rows, hash id).
_Member = tuple[int, "ColumnCoder | AtomClass", np.ndarray, int]


def _parts(
    groups: str, context: CellFit, bins: int, categorical: list[bool], limit: int
) -> tuple[list[tuple[_Member, ...]], set[int]] | None:
    """The groups of columns scored jointly (see :func:`fit_cell_score`'s ``groups``) and
    the ``conditional`` columns: single continuous columns scored given that they carry
    a value (atoms score 0, the bins are normalised by the non-atom counts); ``None``
    when the kind does not apply."""
    coders, codes = context.coded(bins)
    d = context.d
    conditional: set[int] = set()

    def member(j: int) -> _Member:
        return (j, coders[j], codes[j], j)

    if groups == "columns":
        return [(member(j),) for j in range(d)], conditional
    if groups == "joint":
        if d == 1:
            return None
        keys = combine_keys(codes, range(d), _radix(coders))
        if np.unique(keys).size > limit:  # with distinct rows: the observed ones
            return None
        return [tuple(member(j) for j in range(d))], conditional
    if groups != "grouped":
        raise ValueError(f"unknown grouping {groups!r}")
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
            variables.append((j, cls, np.minimum(codes[j], coders[j].atoms.size), d + j))
            conditional.add(j)
    sizes = [v[1].size for v in variables]
    cat_groups = dependence_groups(
        [v[2] for v in variables], sizes, max_cells=limit, mi_weights=context.mi_weights
    )
    return [tuple(variables[i] for i in g) for g in cat_groups] + [
        (member(j),) for j in cont
    ], conditional


def _single_group(
    member: _Member,
    context: CellFit,
    conditional: set[int],
    *,
    scored_given_value: bool,
    smoothing: float,
    monotone: bool,
) -> _Group | None:
    """The group of one member: a table of smoothed LLRs per cell (``None`` if it is 0
    everywhere or a side has no rows to normalise by)."""
    split, n_x, n_y = context.split, context.n_x, context.n_y
    w_x, w_y = (
        (None, None)
        if context.weights is None
        else (context.weights[:split], context.weights[split:])
    )
    j, coder, col_codes, _hid = member
    size = coder.size
    cx = np.bincount(col_codes[:split], weights=w_x, minlength=size).astype(np.float64)
    cy = np.bincount(col_codes[split:], weights=w_y, minlength=size).astype(np.float64)
    first = coder.atoms.size if isinstance(coder, ColumnCoder) else 0
    is_conditional = isinstance(coder, ColumnCoder) and (j in conditional or scored_given_value)
    # totals: all rows, or (conditional) the rows carrying a value
    tot_x, tot_y = (
        (cx[first:].sum(), cy[first:].sum())
        if j in conditional and isinstance(coder, ColumnCoder)
        else (n_x, n_y)
    )
    if tot_x <= 0 or tot_y <= 0:
        return None
    seen = int(np.count_nonzero(cx + cy)) + 1
    table = (np.log(cx + smoothing) - math.log(tot_x + smoothing * seen)) - (
        np.log(cy + smoothing) - math.log(tot_y + smoothing * seen)
    )
    if monotone and isinstance(coder, ColumnCoder) and coder.edges.size >= 2:
        table[first:] = monotone_llr(cx[first:], cy[first:], tot_x, tot_y, smoothing)
    if is_conditional:
        table[:first] = 0.0
    if np.all(table == 0.0):
        return None
    return _Group(columns=(j,), coders=(coder,), keys=None, table=table, radix=None)


def _joint_group(part: tuple[_Member, ...], context: CellFit, smoothing: float) -> _Group:
    """The group of several members: their cells combined into one key, a table of
    smoothed LLRs per observed key."""
    split = context.split
    w_x, w_y = (
        (None, None)
        if context.weights is None
        else (context.weights[:split], context.weights[split:])
    )
    columns = tuple(m[0] for m in part)
    sub_coders = tuple(m[1] for m in part)
    radix = _radix(sub_coders)
    hash_ids = tuple(m[3] for m in part)
    keys_all = combine_keys([m[2] for m in part], hash_ids, radix)
    keys, table = _group_table(
        keys_all[:split],
        keys_all[split:],
        smoothing,
        math.prod(radix) if radix is not None else None,
        w_x,
        w_y,
    )
    return _Group(
        columns=columns, coders=sub_coders, keys=keys, table=table, radix=radix, hash_ids=hash_ids
    )
