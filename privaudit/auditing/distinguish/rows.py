"""Outputs as rows: their shapes, their keys, and outputs with few distinct values or rows
counted once per distinct value or row.

* :func:`output_rows`, :func:`squeeze_rows`, :func:`checked_rows`, :func:`row_keys` and
  :func:`is_discrete`: the outputs as rows, and whether they are discrete;
* :func:`distinct_values`, :func:`small_integer_row_keys`, :func:`distinct_rows` and
  :func:`row_table`: outputs that repeat, counted once per distinct output and weighted by
  its count, which gives exactly the per-output counts of any event.

Details: ``docs/engine_notes.md``, "privaudit.auditing.distinguish.rows".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from privaudit.spec.errors import AuditError

__all__ = [
    "DISCRETE_ROWS",
    "RowTable",
    "checked_rows",
    "distinct_outputs",
    "distinct_rows",
    "distinct_values",
    "is_discrete",
    "output_rows",
    "row_keys",
    "row_table",
    "small_integer_row_keys",
    "squeeze_rows",
]

#: Widest value range of 1-D integer outputs reduced to (value, count) pairs.
VALUE_RANGE = 1 << 16
#: Most cells (base^columns) of 2-D small-integer outputs reduced to distinct rows.
ROW_CELLS = 1 << 20
#: Outputs with at most this many distinct rows (pooled search sample) count as discrete.
DISCRETE_ROWS = 1000


# ----------------------------------------------------------------------------------------
# shapes and keys
# ----------------------------------------------------------------------------------------
def output_rows(outputs: np.ndarray) -> np.ndarray:
    """The outputs as a 2-D array, one row per output (also when there are none: no −1
    to infer)."""
    o = np.asarray(outputs)
    return o.reshape(o.shape[0], math.prod(o.shape[1:]))


def squeeze_rows(outputs: np.ndarray) -> np.ndarray:
    """The outputs as an array, with outputs of one column, shape (N, 1), as (N,)."""
    o = np.asarray(outputs)
    if o.ndim == 2 and o.shape[1] == 1:
        return o[:, 0]
    return o


def checked_rows(outputs: np.ndarray) -> np.ndarray:
    """:func:`squeeze_rows` of numeric outputs of shape (N,) or (N, d); else
    :class:`~spec.errors.AuditError` naming the shape or dtype."""
    o = squeeze_rows(outputs)
    if o.ndim not in (1, 2):
        raise AuditError(f"outputs must have shape (N,) or (N, d), got {o.shape}")
    if o.dtype.kind not in "biuf":
        raise AuditError(f"outputs must be numeric, got dtype {o.dtype}")
    return o


def is_discrete(pooled: np.ndarray) -> bool:
    """Integer (or boolean) outputs, or at most :data:`DISCRETE_ROWS` distinct rows.

    For real-valued outputs the distinct rows must also repeat — at most a quarter as
    many distinct rows as outputs — so that a small sample of a continuous law (whose
    rows are all distinct) is not mistaken for a discrete one.
    """
    if pooled.dtype.kind in "biu":
        return True
    limit = min(DISCRETE_ROWS, pooled.shape[0] // 4)

    def distinct(rows: np.ndarray) -> int:
        return int(np.unique(row_keys(rows)).size)

    # a prefix with too many distinct rows settles it without sorting everything
    if distinct(pooled[: 8 * DISCRETE_ROWS]) > limit:
        return False
    return distinct(pooled) <= limit


#: Fixed random weights of :func:`row_keys` (any real weights separate distinct rows).
_ROW_WEIGHTS = np.random.default_rng(0x0DDBA11).standard_normal(4096) + 2.0


def row_keys(rows: np.ndarray) -> np.ndarray:
    """One float per row, equal for equal rows and (almost surely) different for different
    rows: the rows themselves for 1-D outputs, else a fixed random projection.

    ``np.unique(rows, axis=0)`` sorts structured rows and costs tens of milliseconds per
    10⁴ rows; sorting one key per row is two orders of magnitude faster.  Two different
    rows share a key only if their difference is orthogonal to the fixed random weight
    vector (or up to round-off), which for the coarse outputs this is used on does not
    happen; a collision would only merge two output values in a *candidate* event, which
    costs nothing in validity.
    """
    r = np.asarray(rows)
    if r.ndim == 1:
        return r
    flat = r.reshape(r.shape[0], -1).astype(np.float64, copy=False)
    d = flat.shape[1]
    weights = (
        _ROW_WEIGHTS[:d]
        if d <= _ROW_WEIGHTS.size
        else np.random.default_rng(0x0DDBA11).standard_normal(d) + 2.0
    )
    keys = flat @ weights
    return np.where(np.isnan(keys), np.inf, keys)


# ----------------------------------------------------------------------------------------
# distinct values and rows
# ----------------------------------------------------------------------------------------


def small_integer_row_keys(
    *outputs: np.ndarray, max_cells: int = ROW_CELLS
) -> tuple[list[np.ndarray], int, Any] | None:
    """Each row of 2-D outputs whose entries, less their common minimum, are small
    integers, as one integer key; ``None`` for other outputs.

    The row o is read as the number Σ_j (o_j − lo)·b^j in base b = max − min + 1 (at most
    ``max_cells`` = b^columns cells; min and max over every array given, which must share
    one kind of dtype), computed as one float matrix-vector product per block of rows,
    exact because every term and partial sum is an integer below 2⁵³.  Integer outputs
    are shifted by lo in their own dtype first (exact for any magnitude); float outputs
    qualify only when every entry minus the minimum is an integer (checked exactly, by a
    cast).

    Returns
    -------
    (keys, base, lo) : tuple
        One int64 key array in [0, b^columns) per array given, the base b and the
        minimum entry lo (a scalar of the outputs' dtype); or ``None``.
    """
    if not outputs or any(o.ndim != 2 or o.dtype.kind not in "biuf" for o in outputs):
        return None
    width = outputs[0].shape[1]
    if any(o.shape[1] != width for o in outputs) or sum(o.size for o in outputs) == 0:
        return None
    kind = outputs[0].dtype.kind
    if any(o.dtype.kind != kind for o in outputs):
        return None
    nonempty = [o.view(np.uint8) if kind == "b" else o for o in outputs if o.size]
    lo = min(o.min() for o in nonempty)
    hi = max(o.max() for o in nonempty)
    if kind == "f":
        if not (np.isfinite(lo) and np.isfinite(hi)):
            return None
        span: float = float(hi) - float(lo)
    else:
        span = int(hi) - int(lo)  # Python ints: no overflow
    if span >= 255:
        return None
    base = int(span) + 1
    if base**width > max_cells:
        return None
    powers = float(base) ** np.arange(width, dtype=np.float64)
    keys = []
    for o in outputs:
        k = _keys(o.view(np.uint8) if kind == "b" else o, powers, lo, hi)
        if k is None:
            return None
        keys.append(k)
    return keys, base, (np.bool_(lo) if kind == "b" else lo)


#: Rows per block of :func:`_keys` (the block, its cast and its keys stay in cache).
_KEY_BLOCK = 1 << 14


def _keys(o: np.ndarray, powers: np.ndarray, lo: Any, hi: Any) -> np.ndarray | None:
    """Σ_j (o_j − lo) b^j per row as int64, block by block; ``None`` if some entry of a
    float array is not lo plus an integer.

    Integer arrays are shifted by lo modulo 2⁶⁴ (exact: every shifted entry is in
    [0, 255), whatever the dtype and magnitude).  For floats with an integer minimum the
    entries themselves must be integers (Σ o_j b^j and lo Σ b^j are then exact integers,
    and so is their difference); the check casts each block to the smallest integer type
    that holds [lo, hi] and compares.  Otherwise the entries less lo must be integers in [0, 255).
    """
    n = o.shape[0]
    out = np.empty(n, dtype=np.int64)
    buffer = np.empty(min(n, _KEY_BLOCK), dtype=np.float64)
    floats = o.dtype.kind == "f"
    cast = None  # float entries with an integer minimum: checked by a cast
    if floats and float(lo).is_integer() and lo >= -32768 and hi <= 32767:
        small = np.int8 if lo >= -128 and hi <= 127 else np.int16
        cast = np.empty((min(n, _KEY_BLOCK), o.shape[1]), dtype=small)
    offset = float(lo) * float(powers.sum())
    for start in range(0, n, _KEY_BLOCK):
        block = o[start : start + _KEY_BLOCK]
        keys = buffer[: block.shape[0]]
        if not floats:
            # modulo 2⁶⁴ the difference is exact, and it lies in [0, 255)
            shifted = block.astype(np.uint64) - np.asarray(lo).astype(np.uint64)
            np.matmul(shifted.astype(np.float64), powers, out=keys)
        elif cast is not None:
            view = cast[: block.shape[0]]
            np.copyto(view, block, casting="unsafe")
            if not np.array_equal(view, block):
                return None
            np.matmul(block, powers, out=keys)
            keys -= offset
        else:
            shifted = block - lo
            if not np.array_equal(shifted.astype(np.uint8), shifted):
                return None
            np.matmul(shifted, powers, out=keys)
        out[start : start + block.shape[0]] = keys
    return out


def _decode(keys: np.ndarray, base: int, lo: Any, width: int, dtype: np.dtype) -> np.ndarray:
    """The rows of ``keys``: digits in base ``base``, plus lo, in ``dtype`` (exact)."""
    powers = base ** np.arange(width, dtype=np.int64)
    digits = (keys[:, None] // powers[None, :]) % base
    if np.dtype(dtype).kind == "b":
        return (digits + int(lo)).astype(bool)
    return (digits.astype(dtype) + np.asarray(lo, dtype=dtype)).astype(dtype)


def distinct_rows(outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """2-D outputs whose entries are small integers (sparse-vector codes, bit vectors) as
    (distinct rows, counts); others unchanged, with counts ``None``.

    Each row is read as a number (:func:`small_integer_row_keys`), the numbers are
    counted with one ``bincount`` and the distinct rows decoded back.
    """
    reduced = small_integer_row_keys(outputs)
    if reduced is None:
        return outputs, None
    (keys,), base, lo = reduced
    counts = np.bincount(keys)
    seen = np.flatnonzero(counts)
    return _decode(seen, base, lo, outputs.shape[1], outputs.dtype), counts[seen]


def distinct_values(outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """1-D integer outputs of range below :data:`VALUE_RANGE` as (distinct values,
    counts); others unchanged, with counts ``None``."""
    if outputs.ndim != 1 or outputs.dtype.kind not in "iub" or outputs.size == 0:
        return outputs, None
    codes = outputs.view(np.uint8) if outputs.dtype.kind == "b" else outputs
    lo, hi = int(codes.min()), int(codes.max())
    if hi - lo >= VALUE_RANGE:
        return outputs, None
    counts = np.bincount((codes - lo).astype(np.intp), minlength=hi - lo + 1)
    seen = np.flatnonzero(counts)
    return (seen + lo).astype(outputs.dtype), counts[seen]


def distinct_outputs(outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`distinct_values` for 1-D outputs, :func:`distinct_rows` for 2-D ones."""
    return distinct_values(outputs) if outputs.ndim == 1 else distinct_rows(outputs)


@dataclass(frozen=True)
class RowTable:
    """The distinct rows of several arrays, and each array's rows as indices into them.

    ``rows[index[i][r]]`` is row r of array i, exactly.  :meth:`counts` turns any slice
    of an array into the weights of the distinct rows, so a function of the row
    evaluated once on ``rows`` and weighted gives the sum over the slice.
    """

    rows: np.ndarray
    index: tuple[np.ndarray, ...]

    @property
    def size(self) -> int:
        """Number of distinct rows."""
        return int(self.rows.shape[0])

    def counts(self, which: int, start: int = 0, stop: int | None = None) -> np.ndarray:
        """How many rows of ``array[which][start:stop]`` equal each distinct row (int64)."""
        return np.bincount(self.index[which][start:stop], minlength=self.size)


def row_table(*outputs: np.ndarray, max_rows: int | None = None) -> RowTable | None:
    """A :class:`RowTable` of 2-D small-integer outputs; ``None`` when they are not such
    outputs (:func:`small_integer_row_keys`) or have more than ``max_rows`` distinct
    rows."""
    reduced = small_integer_row_keys(*outputs)
    if reduced is None:
        return None
    keys, base, lo = reduced
    seen = np.zeros(base ** outputs[0].shape[1], dtype=bool)
    for k in keys:
        seen[k] = True
    distinct = np.flatnonzero(seen)
    if max_rows is not None and distinct.size > max_rows:
        return None
    dense = np.cumsum(seen) - 1
    rows = _decode(distinct, base, lo, outputs[0].shape[1], np.result_type(*outputs))
    return RowTable(rows=rows, index=tuple(dense[k] for k in keys))
