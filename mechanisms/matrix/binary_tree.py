"""The binary-tree strategy for prefix sums: every dyadic interval inside [0, T).

Level ℓ holds the ⌊T/2^ℓ⌋ intervals [j 2^ℓ, (j+1) 2^ℓ), ℓ = 0, …, ⌊log₂ T⌋; for T not a power
of two they form a forest of complete trees (one per bit of T).  Position t lies in
#{ℓ : ⌊t/2^ℓ⌋ < ⌊T/2^ℓ⌋} intervals, at most ⌊log₂ T⌋ + 1 (at t = 0): the sensitivity is
√(⌊log₂ T⌋ + 1).  Estimators: the plain sum of the popcount(t+1) binary blocks, and the
least-squares (BLUE) estimate computed in O(T) by the two passes of Hay et al. / Honaker.
Every function works along the last axis in O(T log T) time, O(T) memory, no T × T matrix.

References: Dwork, Naor, Pitassi & Rothblum, STOC 2010; Chan, Shi & Song, ACM TISSEC 14(3),
2011 (the binary mechanism); Honaker, "Efficient use of differentially private binary
trees", TPDP 2015; Hay, Rastogi, Miklau & Suciu, PVLDB 3(1), 2010, Theorem 3.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from privaudit.spec import Reference
from privaudit.spec.errors import InputShapeError, InvalidParameterError

__all__ = [
    "CHAN_SHI_SONG_2011",
    "DWORK_ET_AL_2010",
    "HAY_ET_AL_2010",
    "HONAKER_2015",
    "tree_column_counts",
    "tree_honaker_prefix_sums",
    "tree_honaker_variances",
    "tree_level_sizes",
    "tree_node_sums",
    "tree_plain_prefix_sums",
    "tree_plain_variances",
    "tree_strategy_matrix",
]

DWORK_ET_AL_2010 = Reference(
    citation="Dwork, Naor, Pitassi & Rothblum, 'Differential privacy under continual "
    "observation', STOC 2010",
    locator="Section 4 (the tree-based counter)",
)
CHAN_SHI_SONG_2011 = Reference(
    citation="Chan, Shi & Song, 'Private and continual release of statistics', ACM TISSEC "
    "14(3), 2011",
    locator="Section 3.4 (the binary mechanism: p-sums of dyadic blocks)",
)
HONAKER_2015 = Reference(
    citation="Honaker, 'Efficient use of differentially private binary trees', TPDP 2015",
    locator="the minimum-variance linear estimator of every node from the noisy tree",
)
HAY_ET_AL_2010 = Reference(
    citation="Hay, Rastogi, Miklau & Suciu, 'Boosting the accuracy of differentially private "
    "histograms through consistency', PVLDB 3(1), 2010",
    locator="Theorem 3 (least-squares consistent estimate of a hierarchy in two passes)",
)


def _check_length(T: object) -> int:
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or int(T) < 1:
        raise InvalidParameterError(f"T must be an integer >= 1, got {T!r}")
    return int(T)


def tree_level_sizes(T: int) -> tuple[int, ...]:
    """⌊T/2^ℓ⌋ for ℓ = 0, …, ⌊log₂ T⌋: the number of nodes of each level (leaves first).

    Examples
    --------
    >>> tree_level_sizes(8), tree_level_sizes(9)
    ((8, 4, 2, 1), (9, 4, 2, 1))
    """
    n = _check_length(T)
    return tuple(n >> level for level in range(n.bit_length()))


def tree_column_counts(T: int) -> npt.NDArray[np.int64]:
    """For each position t, the number of tree nodes (dyadic intervals in [0, T)) holding t.

    The squared column norms of the 0/1 strategy; the maximum ⌊log₂ T⌋ + 1 is reached at
    t = 0, and every column has it iff T is a power of two.
    """
    n = _check_length(T)
    t = np.arange(n, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    for level in range(n.bit_length()):
        counts += (t >> level) < (n >> level)
    return counts


def _last_axis(x: npt.ArrayLike, T: int | None = None) -> npt.NDArray[np.float64]:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] == 0 or (T is not None and arr.shape[-1] != T):
        raise InputShapeError(f"expected an array with last axis of length {T}, got {arr.shape}")
    return arr


def tree_node_sums(x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """R x: the sums of every tree node, levels concatenated (leaves first), along the last axis.

    Parameters
    ----------
    x : array_like, shape (..., T)

    Returns
    -------
    numpy.ndarray, shape (..., m) with m = Σ_ℓ ⌊T/2^ℓ⌋ ≤ 2T − 1.
    """
    arr = _last_axis(x)
    levels = [arr]
    for size in tree_level_sizes(arr.shape[-1])[1:]:
        below = levels[-1][..., : 2 * size]
        levels.append(below[..., 0::2] + below[..., 1::2])
    return np.concatenate(levels, axis=-1)


def _split_levels(y: npt.NDArray[np.float64], T: int) -> list[npt.NDArray[np.float64]]:
    sizes = tree_level_sizes(T)
    if y.shape[-1] != sum(sizes):
        raise InputShapeError(
            f"a tree over T={T} has {sum(sizes)} nodes, got an array of shape {y.shape}"
        )
    bounds = np.cumsum((0, *sizes))
    return [y[..., bounds[i] : bounds[i + 1]] for i in range(len(sizes))]


def tree_strategy_matrix(T: int) -> npt.NDArray[np.float64]:
    """The dense 0/1 strategy R (rows: nodes in :func:`tree_node_sums` order), for small T."""
    return tree_node_sums(np.eye(_check_length(T))).T.copy()


def tree_plain_prefix_sums(noisy_nodes: npt.ArrayLike, T: int) -> npt.NDArray[np.float64]:
    """Σ_{s ≤ t} x_s estimated by the sum of the popcount(t+1) dyadic blocks of [0, t + 1).

    The block of bit ℓ of n = t + 1 is node (n >> ℓ) − 1 of level ℓ (Chan, Shi & Song 2011,
    the binary mechanism).

    Parameters
    ----------
    noisy_nodes : array_like, shape (..., m)
        y = R x + z in :func:`tree_node_sums` order.
    T : int

    Returns
    -------
    numpy.ndarray, shape (..., T)
    """
    n_steps = _check_length(T)
    levels = _split_levels(_last_axis(noisy_nodes), n_steps)
    lengths = np.arange(1, n_steps + 1, dtype=np.int64)
    out = np.zeros(levels[0].shape[:-1] + (n_steps,))
    for level, values in enumerate(levels):
        uses = ((lengths >> level) & 1).astype(bool)
        out[..., uses] += values[..., (lengths[uses] >> level) - 1]
    return out


def tree_plain_variances(T: int) -> npt.NDArray[np.float64]:
    """Var of the plain estimate of each prefix sum, in units of σ²: popcount(t + 1)."""
    lengths = np.arange(1, _check_length(T) + 1, dtype=np.int64)
    return np.array([bin(int(v)).count("1") for v in lengths], dtype=np.float64)


def tree_honaker_prefix_sums(noisy_nodes: npt.ArrayLike, T: int) -> npt.NDArray[np.float64]:
    """The least-squares (= BLUE, for i.i.d. noise) estimate of every prefix sum.

    Bottom-up, z = y at the leaves and z_v = a_ℓ y_v + b_ℓ (z_left + z_right) at level ℓ,
    a_ℓ = 2^ℓ/(2^{ℓ+1} − 1), b_ℓ = (2^ℓ − 1)/(2^{ℓ+1} − 1); top-down, x̄ = z at the roots and
    x̄_v = z_v + (x̄_parent − z_v − z_sibling)/2 (Hay et al. 2010, Theorem 3, k = 2; the
    binary-tree estimator of Honaker 2015).  The trees of the forest decouple (no node
    spans two of them), so each gets its own least-squares estimate; prefix sums are the
    cumulative sums of the consistent leaves.  Equals A (RᵀR)⁻¹ Rᵀ y.

    Parameters
    ----------
    noisy_nodes : array_like, shape (..., m)
    T : int

    Returns
    -------
    numpy.ndarray, shape (..., T)
    """
    n_steps = _check_length(T)
    y = _split_levels(_last_axis(noisy_nodes), n_steps)
    z = [y[0]]
    for level in range(1, len(y)):
        size = y[level].shape[-1]
        children = z[-1][..., 0 : 2 * size : 2] + z[-1][..., 1 : 2 * size : 2]
        a = 2.0**level / (2.0 ** (level + 1) - 1.0)
        b = (2.0**level - 1.0) / (2.0 ** (level + 1) - 1.0)
        z.append(a * y[level] + b * children)
    consistent = z[-1]
    for level in range(len(y) - 2, -1, -1):
        covered = 2 * z[level + 1].shape[-1]  # nodes with a parent; the rest are roots
        refined = z[level].copy()
        pair = z[level][..., 0:covered:2] + z[level][..., 1:covered:2]
        refined[..., :covered] += np.repeat(0.5 * (consistent - pair), 2, axis=-1)
        consistent = refined
    return np.cumsum(consistent, axis=-1)


def tree_honaker_variances(T: int) -> npt.NDArray[np.float64]:
    """Var of the least-squares prefix-sum estimates, in units of σ², in O(T log T).

    On a complete tree of n = 2^K leaves the Haar basis diagonalises RᵀR: the wavelet of an
    internal node of height h (leaves: 0) has eigenvalue 2^h − 1, the constant vector
    2n − 1.  So a prefix of p leaves has variance p²/(n(2n − 1)) + Σ_v min(q_v, 2^h − q_v)²/
    (2^h (2^h − 1)) over its ancestors v (q_v of the prefix's leaves inside v); every
    earlier tree of the forest adds the variance n/(2n − 1) of its total.  (Our derivation;
    checked against (A (RᵀR)⁻¹ Aᵀ)_tt in the unit tests.)
    """
    n_steps = _check_length(T)
    out = np.empty(n_steps)
    start, before = 0, 0.0
    for bit in range(n_steps.bit_length() - 1, -1, -1):
        if not (n_steps >> bit) & 1:
            continue
        n = 1 << bit
        p = np.arange(1, n + 1, dtype=np.int64)
        var = p.astype(np.float64) ** 2 / (n * (2.0 * n - 1.0))
        for h in range(1, bit + 1):
            width = 1 << h
            q = p - ((p - 1) >> h << h)  # leaves of the prefix inside the height-h ancestor
            inside = np.minimum(q, width - q).astype(np.float64)
            var += inside**2 / (width * (width - 1.0))
        out[start : start + n] = before + var
        before += n / (2.0 * n - 1.0)
        start += n
    return out
