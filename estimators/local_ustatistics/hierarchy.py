"""Hierarchical histograms and the exact (non-private) AUC recursion of Protocol B.

Bell, Bellet, Gascón & Kulkarni (AISTATS 2020), §4: scores are integers in {0..d−1},
d = 2^α; a node is a bit string p with |p| ≤ α (λ the root), and h_p counts the scores
whose α-bit MSB-first representation starts with p (Definition 3).  Level m holds the
2^m nodes p read as integers q = s >> (α − m), so h at level m is a histogram of the
m-bit prefixes.

UAUC(h⁺, h⁻, p) = 0 at a leaf, else h⁺_{p·1} h⁻_{p·0} + Σ_i UAUC(h⁺, h⁻, p·i), and
AUC = UAUC(λ)/(n⁺ n⁻): each strictly ordered pair (s⁺ > s⁻) is counted once, at the node
where the two prefixes diverge; ties count 0 (eq. 7).  Level by level, with children
2q (p·0) and 2q + 1 (p·1) of node q:

    UAUC = Σ_{m=0}^{α−1} Σ_q h⁺_{m+1}[2q + 1] · h⁻_{m+1}[2q].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privaudit.spec.errors import InvalidInputError, InvalidParameterError, OutOfDomainError
from privaudit.spec.validation import integer_array

__all__ = ["check_depth", "exact_auc", "exact_uauc", "prefix_counts", "score_cells"]


def check_depth(alpha: Any) -> int:
    """α ≥ 1 (an integer ≤ 30), the depth of the tree over d = 2^α scores."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, np.integer)) or not 1 <= alpha <= 30:
        raise InvalidParameterError(f"depth alpha must be an integer in [1, 30], got {alpha!r}")
    return int(alpha)


def score_cells(scores: Any, alpha: int) -> np.ndarray:
    """Integer scores in {0..2^α − 1} as int64 (validated)."""
    d = 1 << check_depth(alpha)
    s = integer_array(scores, "scores")
    bad = (s < 0) | (s >= d)
    if bad.any():
        raise OutOfDomainError(f"scores must lie in [0, {d}), got {s[bad][0]!r}")
    return s


def prefix_counts(scores: Any, alpha: int) -> list[np.ndarray]:
    """[h_0, …, h_α]: h_m[q] = #{s : s >> (α − m) = q} (level 0 is [n])."""
    a = check_depth(alpha)
    s = score_cells(scores, a)
    return [np.bincount(s >> (a - m), minlength=1 << m).astype(np.float64) for m in range(a + 1)]


def exact_uauc(h_pos: list[np.ndarray], h_neg: list[np.ndarray]) -> float:
    """UAUC(h⁺, h⁻, λ) by the level-wise recursion (module docstring)."""
    if len(h_pos) != len(h_neg) or len(h_pos) < 2:
        raise InvalidParameterError("h_pos and h_neg must be hierarchies of equal depth >= 1")
    total = 0.0
    for m in range(len(h_pos) - 1):
        child_pos, child_neg = h_pos[m + 1], h_neg[m + 1]
        total += float(child_pos[1::2] @ child_neg[0::2])
    return total


def exact_auc(scores_pos: Any, scores_neg: Any, alpha: int) -> float:
    """AUC = UAUC/(n⁺ n⁻) of integer scores (ties count 0, eq. 7)."""
    hp, hn = prefix_counts(scores_pos, alpha), prefix_counts(scores_neg, alpha)
    n_pos, n_neg = hp[0][0], hn[0][0]
    if n_pos < 1 or n_neg < 1:
        raise InvalidInputError(f"AUC needs both classes, got n+ = {n_pos:g}, n- = {n_neg:g}")
    return exact_uauc(hp, hn) / (n_pos * n_neg)
