"""Which cell columns depend on each other, and one key per row from per-column cells.

:func:`dependence_groups` joins coded columns whose G-test of independence rejects at
level 10⁻⁶ (the G statistic 2·n·MI against the χ² quantile [1]_) into the groups the
cell score (:mod:`~privaudit.auditing.distinguish.cell_score`) scores jointly;
:func:`combine_keys` packs a group's cells into one int64 key (mixed radix, or a 64-bit
hash when the radices overflow).

References
----------
.. [1] Agresti, "Categorical data analysis", 3rd ed., Wiley 2013, §3.2 (the likelihood-ratio
   statistic G² of independence in a two-way table).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
from scipy import special

__all__ = ["CELL_HASH", "MI_ROWS", "combine_keys", "dependence_groups"]

#: Rows used to test columns for dependence.
MI_ROWS = 100_000
#: Smallest mutual information (nats) for which two columns are joined.
_MI_FLOOR = 1e-4


@functools.lru_cache(maxsize=256)
def _g_threshold(dof: int) -> float:
    """The level-10⁻⁶ quantile of χ²(dof)."""
    return float(special.chdtri(dof, 1e-6))


#: Odd 64-bit weights of the column cells in a hashed key (:func:`combine_keys`).
CELL_HASH = np.random.default_rng(0x5EED).integers(1, 2**63 - 1, size=4096, dtype=np.int64) | 1


def combine_keys(
    cols: Sequence[np.ndarray], columns: Sequence[int], radix: Sequence[int] | None
) -> np.ndarray:
    """One int64 key per row from per-column cells: mixed radix, or a 64-bit hash when
    the product of the radices overflows (collisions then have probability ~2⁻⁶⁴ per
    pair of distinct rows, and would only merge two cells of a fixed event)."""
    k = np.zeros(cols[0].shape[0], dtype=np.int64)
    if radix is not None:
        for c, r in zip(cols, radix, strict=True):
            k *= r
            k += c
        return k
    with np.errstate(over="ignore"):
        for j, c in zip(columns, cols, strict=True):
            k += c * CELL_HASH[j % CELL_HASH.size]
    return k


def dependence_groups(
    codes: Sequence[np.ndarray],
    sizes: Sequence[int],
    *,
    max_cells: int,
    mi_weights: np.ndarray | None = None,
) -> list[tuple[int, ...]]:
    """Connected components of "significantly dependent" columns (G-test on the cells).

    Two coded columns are joined when the G statistic 2·n·MI exceeds the χ² quantile at
    level 10⁻⁶ (on at most 10⁵ rows) and MI exceeds 10⁻⁴ nats; a component whose
    observed joint cells exceed ``max_cells`` is split back into single columns.  With
    ``mi_weights`` the codes are those of distinct rows and the weights count each in
    the rows the G-test would use
    (:meth:`~privaudit.auditing.distinguish.cell_score.CellFit.from_distinct_rows`).
    """
    full = list(codes)
    codes = full if mi_weights is not None else [c[:MI_ROWS] for c in full]
    d = len(codes)
    n = (
        (round(float(mi_weights.sum())) if mi_weights is not None else codes[0].shape[0])
        if d
        else 0
    )
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
            joint = np.bincount(codes[i] * mj + codes[j], weights=mi_weights, minlength=mi * mj)
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
        keys = combine_keys(
            [full[m] for m in members], members, radix if math.prod(radix) < 2**62 else None
        )
        distinct = np.unique(keys).size if n else 0
        if distinct > max_cells:
            groups.extend((m,) for m in members)
        else:
            groups.append(tuple(members))
    return sorted(groups)
