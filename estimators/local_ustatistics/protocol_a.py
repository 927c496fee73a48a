"""Protocol A: quantization + k-ary randomized response, with the O(n + k²) server estimator.

Bell, Bellet, Gascón & Kulkarni (AISTATS 2020), §3, Algorithm 1.  Every user reports
x̃_i = k-RR(π(x_i)) once (:mod:`.randomizer`).  The per-user unbiased one-hot estimate is
u_i = (e_{x̃_i} − b)/(1 − β) with b = (β/k)·1, so E u_i = e_{π(x_i)}, and the debiased kernel
is f̂_A(x̃_i, x̃_j) = u_iᵀ A u_j.  The estimator Û = C(n, 2)^{-1} Σ_{i<j} u_iᵀ A u_j is unbiased
for the U-statistic of the quantized data.

Fast form (``docs/ldp_ustat_study.md``, "Protocol A fast form"): with c the histogram of the
reports, S = Σ_i u_i = (c − n b)/(1 − β) and q_t = u_tᵀ A u_t the self term of a report t,

    Û = (Sᵀ A S − Σ_t c_t q_t) / (n (n − 1)),

which is O(n) for the histogram and O(k²) afterwards; the diagonal i = j is removed
because E[u_iᵀ A u_i] ≠ f(x_i, x_i).  Two disjoint samples (AUC with public labels, §2.7
variant) need no diagonal correction: AUĈ = S₊ᵀ A S₋ /(n₊ n₋).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.mechanisms.accounting import PrivacyBudget, charge
from privaudit.spec import RandomLike, as_generator
from privaudit.spec.errors import InvalidInputError, InvalidParameterError, OutOfDomainError
from privaudit.spec.validation import integer_array, real_array

from .quantization import UniformQuantizer
from .randomizer import KaryRandomizer
from .randomizer_mechanism import QuantizedRRMechanism
from .results import LocalUStatisticEstimate
from .tables import (
    auc_table,
    collision_table,
    gini_table,
    joint_index,
    kendall_table,
    kernel_table,
)

__all__ = [
    "debiased_sum",
    "fast_u_statistic",
    "pairwise_u_statistic",
    "private_auc_rr",
    "private_gini_mean_difference_rr",
    "private_kendall_tau_rr",
    "private_renyi2_rr",
    "private_ustatistic_rr",
    "report_histogram",
    "theorem1_variance_bound",
    "two_sample_statistic",
]


def report_histogram(reports: Any, k: int) -> np.ndarray:
    """c_t = #{i : x̃_i = t}, t = 0..k−1 (float64, O(n))."""
    arr = np.asarray(reports)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise InvalidInputError(
            f"reports must be a 1-d integer array, got shape {arr.shape} and dtype {arr.dtype}"
        )
    if arr.size and (arr.min() < 0 or arr.max() >= k):
        raise InvalidInputError(
            f"reports must lie in [0, {k}), got {arr[(arr < 0) | (arr >= k)][0]!r}"
        )
    return np.bincount(arr, minlength=k).astype(np.float64)


def debiased_sum(counts: Any, randomizer: KaryRandomizer) -> np.ndarray:
    """S = Σ_i u_i = (c − n b)/(1 − β): the unbiased histogram of the true cells."""
    c = _counts(counts, randomizer.k)
    b = randomizer.beta / randomizer.k
    return (c - c.sum() * b) / (1.0 - randomizer.beta)


def fast_u_statistic(counts: Any, table: Any, randomizer: KaryRandomizer) -> float:
    """Û of Algorithm 1 from the report histogram in O(k²) (fast form, module docstring).

    Raises
    ------
    InvalidInputError
        Fewer than two reports, or a histogram of the wrong length / negative counts.
    """
    c = _counts(counts, randomizer.k)
    a = _square(table, randomizer.k)
    a = 0.5 * (a + a.T)
    n = float(c.sum())
    if n < 2:
        raise InvalidInputError(f"a U-statistic of degree 2 needs n >= 2 reports, got {n:g}")
    s = debiased_sum(c, randomizer)
    one_minus_beta = 1.0 - randomizer.beta
    b = randomizer.beta / randomizer.k
    ab = a.sum(axis=1) * b  # (A b)_t
    bab = float(ab.sum()) * b  # bᵀ A b
    q = (np.diag(a) - 2.0 * ab + bab) / one_minus_beta**2
    return float((s @ a @ s - c @ q) / (n * (n - 1.0)))


def pairwise_u_statistic(reports: Any, table: Any, randomizer: KaryRandomizer) -> float:
    """Reference O(n² ) form C(n, 2)^{-1} Σ_{i<j} u_iᵀ A u_j (for tests on small n)."""
    r = np.asarray(reports, dtype=np.int64)
    n = r.size
    if n < 2:
        raise InvalidInputError(f"a U-statistic of degree 2 needs n >= 2 reports, got {n}")
    a = _square(table, randomizer.k)
    b = np.full(randomizer.k, randomizer.beta / randomizer.k)
    u = (np.eye(randomizer.k)[r] - b) / (1.0 - randomizer.beta)  # (n, k)
    values = u @ a @ u.T
    iu = np.triu_indices(n, 1)
    return float(values[iu].mean())


def two_sample_statistic(
    counts_pos: Any, counts_neg: Any, table: Any, randomizer: KaryRandomizer
) -> float:
    """S₊ᵀ A S₋ /(n₊ n₋): unbiased for (1/(n₊n₋)) Σ_{i∈+, j∈−} A[π(s_i), π(s_j)]."""
    cp, cn = _counts(counts_pos, randomizer.k), _counts(counts_neg, randomizer.k)
    n_pos, n_neg = float(cp.sum()), float(cn.sum())
    if n_pos < 1 or n_neg < 1:
        raise InvalidInputError(f"both samples need a report, got n+ = {n_pos:g}, n- = {n_neg:g}")
    a = _square(table, randomizer.k)
    return float(debiased_sum(cp, randomizer) @ a @ debiased_sum(cn, randomizer) / (n_pos * n_neg))


def theorem1_variance_bound(n: int, k: int, epsilon: float) -> float:
    """Theorem 1: Var(Û) ≤ 1/(n(1−β)²) + (1+β)²/(2n(n−1)(1−β)⁴) for kernels in [0, 1]."""
    if n < 2:
        raise InvalidParameterError(f"n must be >= 2, got {n!r}")
    beta = KaryRandomizer(k, epsilon).beta
    return 1.0 / (n * (1 - beta) ** 2) + (1 + beta) ** 2 / (2.0 * n * (n - 1) * (1 - beta) ** 4)


def private_ustatistic_rr(
    cells: Any,
    table: Any,
    epsilon: float,
    *,
    clip: bool = False,
    rng: RandomLike = None,
    quantizer: UniformQuantizer | None = None,
    name: str = "local_ustat.rr",
    budget: PrivacyBudget | None = None,
) -> LocalUStatisticEstimate:
    """Algorithm 1 on data already mapped to cells (or real data with ``quantizer``).

    Parameters
    ----------
    cells : array_like, shape (n,)
        Cells in {0..k−1} (``quantizer=None``) or reals quantized by ``quantizer``.
    table : array_like, shape (k, k)
        The kernel on the cells (symmetric; see :mod:`.tables`).
    epsilon : float
        Each user's ε (pure ε-LDP, Theorem 2).
    clip : bool
        Clip Û to [min A, max A] (post-processing; adds bias, off by default as in the paper).
    rng : Generator, int or None
        Source of the users' randomness (one batched draw).
    budget : PrivacyBudget, optional
        Charged for the randomizer's spec (ε-LDP, each user reports once) before any
        randomness is drawn; a call it cannot afford is refused.

    Returns
    -------
    LocalUStatisticEstimate
        ``variance_bound`` is Theorem 1's bound rescaled to the table's range.
    """
    a = kernel_table(table)
    k = a.shape[0]
    mech = (
        QuantizedRRMechanism(epsilon, quantizer=quantizer, name=name)
        if quantizer is not None
        else QuantizedRRMechanism(epsilon, cells=k, name=name)
    )
    if quantizer is not None and quantizer.bins != k:
        raise InvalidParameterError(f"table is {k}×{k} but the quantizer has {quantizer.bins} bins")
    t = (
        quantizer.index(real_array(cells, "data", ndim=1))
        if quantizer is not None
        else _cells(cells, k)
    )
    if t.size < 2:
        raise InvalidInputError(f"need a 1-d sample of n >= 2 users, got shape {t.shape}")
    charge(budget, mech.spec, estimator=name)
    reports = mech.randomizer.randomize(t, as_generator(rng))
    counts = report_histogram(reports, k)
    value = fast_u_statistic(counts, a, mech.randomizer)
    lo, hi = float(a.min()), float(a.max())
    est = float(np.clip(value, lo, hi)) if clip else value
    width = hi - lo
    bound = theorem1_variance_bound(t.size, k, mech.randomizer.epsilon) * width**2
    return LocalUStatisticEstimate(
        estimate=est,
        spec=mech.spec,
        protocol="A",
        n=int(t.size),
        epsilon=mech.randomizer.epsilon,
        variance_bound=bound,
        clipped=clip,
        details={"k": k, "beta": mech.randomizer.beta, "report_counts": counts},
    )


def private_gini_mean_difference_rr(
    x: Any,
    epsilon: float,
    bins: int,
    *,
    lower: float = 0.0,
    upper: float = 1.0,
    clip: bool = False,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalUStatisticEstimate:
    """Gini mean difference E|X − X'| (eq. 4) by Algorithm 1 with bin-centre table.

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged for
    the randomizer's spec before any randomness is drawn.
    """
    q = UniformQuantizer(lower, upper, bins)
    return private_ustatistic_rr(
        x,
        gini_table(q),
        epsilon,
        clip=clip,
        rng=rng,
        quantizer=q,
        name="local_ustat.rr.gini",
        budget=budget,
    )


def private_kendall_tau_rr(
    y: Any,
    z: Any,
    levels: int,
    epsilon: float,
    *,
    clip: bool = False,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalUStatisticEstimate:
    """Kendall's tau-a (eq. 6) on {0..K−1}²: one k-RR report over the K² joint cells.

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged for
    the randomizer's spec before any randomness is drawn.
    """
    return private_ustatistic_rr(
        joint_index(y, z, levels),
        kendall_table(levels),
        epsilon,
        clip=clip,
        rng=rng,
        name="local_ustat.rr.kendall",
        budget=budget,
    )


def private_renyi2_rr(
    labels: Any,
    k: int,
    epsilon: float,
    *,
    rng: RandomLike = None,
    floor: float = 1e-12,
    budget: PrivacyBudget | None = None,
) -> LocalUStatisticEstimate:
    """Collision probability (eq. 5) by Algorithm 1; ``details['entropy']`` is −ln max(Û, floor).

    Û can be ≤ 0 for small n ε, hence the floor before the logarithm (post-processing).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged for
    the randomizer's spec before any randomness is drawn.
    """
    if not (0.0 < floor < 1.0):
        raise InvalidParameterError(f"floor must lie in (0, 1), got {floor!r}")
    res = private_ustatistic_rr(
        labels, collision_table(k), epsilon, rng=rng, name="local_ustat.rr.renyi2", budget=budget
    )
    details = dict(res.details)
    details["entropy"] = -math.log(max(res.estimate, floor))
    return LocalUStatisticEstimate(
        res.estimate, res.spec, "A", res.n, res.epsilon, res.variance_bound, False, details
    )


def private_auc_rr(
    scores: Any,
    labels: Any,
    epsilon: float,
    bins: int,
    *,
    lower: float = 0.0,
    upper: float = 1.0,
    tie: float = 0.5,
    clip: bool = False,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalUStatisticEstimate:
    """Two-sample AUC with public labels: each user k-RRs its quantized score once.

    AUĈ = S₊ᵀ A S₋ /(n₊ n₋) with A = :func:`~.tables.auc_table` (I[t > u] + tie·I[t = u]).
    Labels ∈ {0, 1} are public (§4's setting; §2.7 variant of Algorithm 1).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged for
    the randomizer's spec before any randomness is drawn.
    """
    s = real_array(scores, "scores", ndim=1)
    y = integer_array(labels, "labels")
    if y.shape != s.shape:
        raise InvalidInputError(
            f"scores and labels must be 1-d of equal length, got {s.shape} and {y.shape}"
        )
    if not np.isin(y, (0, 1)).all():
        raise OutOfDomainError(f"labels must be 0 or 1, got {y[~np.isin(y, (0, 1))][0]!r}")
    q = UniformQuantizer(lower, upper, bins)
    mech = QuantizedRRMechanism(epsilon, quantizer=q, name="local_ustat.rr.auc")
    charge(budget, mech.spec, estimator="local_ustat.rr.auc")
    reports = mech.randomizer.randomize(q.index(s), as_generator(rng))
    pos, neg = y == 1, y == 0
    cp, cn = report_histogram(reports[pos], bins), report_histogram(reports[neg], bins)
    value = two_sample_statistic(cp, cn, auc_table(bins, tie), mech.randomizer)
    est = float(np.clip(value, 0.0, 1.0)) if clip else value
    n_pos, n_neg = int(pos.sum()), int(neg.sum())
    beta = mech.randomizer.beta
    # Var of a bilinear form of two independent debiased histograms (each coordinate's
    # variance ≤ n/(1−β)²): a conservative analogue of Theorem 1's leading term.
    bound = (1.0 / n_pos + 1.0 / n_neg) / (1.0 - beta) ** 2
    return LocalUStatisticEstimate(
        estimate=est,
        spec=mech.spec,
        protocol="A-two-sample",
        n=int(s.size),
        epsilon=mech.randomizer.epsilon,
        variance_bound=bound,
        clipped=clip,
        details={"k": bins, "beta": beta, "n_positive": n_pos, "n_negative": n_neg},
    )


def _counts(counts: Any, k: int) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    if c.shape != (k,) or (c < 0).any() or not np.isfinite(c).all():
        raise InvalidInputError(
            f"counts must be {k} non-negative finite numbers, got shape {c.shape}"
        )
    return c


def _square(table: Any, k: int) -> np.ndarray:
    a = np.asarray(table, dtype=np.float64)
    if a.shape != (k, k):
        raise InvalidParameterError(f"kernel table must be {k}×{k}, got shape {a.shape}")
    return a


def _cells(cells: Any, k: int) -> np.ndarray:
    arr = integer_array(cells, "cells")
    bad = (arr < 0) | (arr >= k)
    if bad.any():
        raise OutOfDomainError(f"cells must lie in [0, {k}), got {arr[bad].ravel()[0]!r}")
    return arr
