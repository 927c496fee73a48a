"""Algorithm 4 (average degree of a concentrated-degree graph), Algorithm 5 (Erdős–Rényi
parameter) and Algorithm 6 (clique size).

Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential Privacy",
arXiv:2602.15802, Algorithms 4–6, Lemma 4.8, Theorems 4.9–4.10.  All three post-process
one release of the blurry histogram (Algorithm 3 with W = I), so they inherit its
(ε, δ)-LNDP guarantee on every graph; the accuracy statements need the promises below.

Algorithm 4.  q̂ = Q_G + N(0, σ̃² I).  The location step takes ĵ = argmax_{j ≥ 1} q̂_j
(bucket 0 holds isolated nodes), the window J = {j_lo, …, j_hi} with j_lo = ĵ − 2 (0 when
ĵ ≤ 2) and j_hi = min(ĵ + 2, n_λ − 1), and the excess average degree
Ê = λ Σ_{j∈J} (j − j_lo) q̂_j.  If every non-isolated degree lies in a width-λ interval,
only three consecutive buckets besides 0 are non-empty, and with a count n_I of
non-isolated nodes d̂ = λ j_lo n_I/n + Ê (Lemma 4.6(a): blurring preserves the mean).
The paper's exact location rule and constant were lost in the text we have; this is the
reconstruction documented in ``docs/lndp_study.md``, whose window may shrink to
{ĵ − 1, ĵ, ĵ + 1} when the degrees are known to be equal (a clique).

Algorithm 5.  λ = ⌈2√(n ln n)⌉ (Hoeffding and a union bound put every degree of G(n, p)
within λ/2 of (n − 1)p with probability ≥ 1 − 2/n); p̂ = clip((λ j_lo + Ê)/(n − 1), 0, 1).

Algorithm 6.  λ = ⌈√n⌉; with b = 1 + λ j_lo, K̂ = (b + √max(0, b² + 4nÊ))/2, the root of
K² − bK − nÊ = 0 (n Ê = K(K − 1 − λ j_lo) for a K-clique plus isolated nodes).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from privaudit.mechanisms.accounting import PrivacyBudget
from privaudit.spec import RandomLike
from privaudit.spec.errors import InvalidParameterError

from ._common import DEFAULT_CALIBRATION, GaussianCalibration, check_nodes, local_views
from ._result import LocalNodeEstimate
from .blurry import Bound, bucket_count, private_blurry_linear

__all__ = [
    "erdos_renyi_bucket_width",
    "locate_window",
    "private_average_degree",
    "private_clique_size",
    "private_erdos_renyi",
]

Window = Literal[5, 3]


def locate_window(noisy_pmf: Any, window: Window = 5) -> tuple[int, int, int]:
    """(ĵ, j_lo, j_hi): the location step of Algorithm 4 on a noisy histogram.

    Examples
    --------
    >>> locate_window([0.5, 0.0, 0.0, 0.1, 0.3, 0.1, 0.0])
    (4, 2, 6)
    >>> locate_window([0.5, 0.0, 0.0, 0.1, 0.3, 0.1, 0.0], window=3)
    (4, 3, 5)
    """
    q = np.asarray(noisy_pmf, dtype=np.float64)
    if q.ndim != 1 or q.shape[0] < 2:
        raise InvalidParameterError(f"need a histogram of >= 2 buckets, got shape {q.shape}")
    if window not in (3, 5):
        raise InvalidParameterError(f"window must be 5 or 3 buckets, got {window!r}")
    half = window // 2
    peak = int(np.argmax(q[1:])) + 1
    lo = peak - half if peak > half else 0
    return peak, lo, min(peak + half, q.shape[0] - 1)


def _excess(q: np.ndarray, lam: int, lo: int, hi: int) -> float:
    """Ê = λ Σ_{j=lo}^{hi} (j − lo) q̂_j."""
    return float(lam * np.dot(np.arange(hi - lo + 1), q[lo : hi + 1]))


def private_average_degree(
    graph: Any,
    epsilon: float,
    delta: float,
    lam: int,
    *,
    nonisolated: int | None = None,
    window: Window = 5,
    bound: Bound = "paper",
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
    _estimator: str = "private_average_degree",
) -> LocalNodeEstimate:
    """Algorithm 4: the average degree of a graph whose non-isolated degrees lie in a
    width-λ interval, (ε, δ)-LNDP on every graph.

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged once,
    for Algorithm 3's joint messages, before any randomness is drawn.

    Parameters
    ----------
    nonisolated : int, optional
        A count n_I of non-isolated nodes (public, or released separately); default n.

    Returns
    -------
    LocalNodeEstimate
        ``estimate`` = d̂ = λ j_lo n_I/n + Ê; ``details`` holds ĵ, j_lo, j_hi, Ê and q̂;
        ``standard_error`` is that of Ê given the window, λσ̃√Σ(j − j_lo)².
    """
    adjacency, degrees = local_views(graph)  # the graph is read once, then passed on
    n = check_nodes(degrees.shape[0])
    count = n if nonisolated is None else int(nonisolated)
    if not 0 <= count <= n:
        raise InvalidParameterError(f"nonisolated must lie in [0, {n}], got {nonisolated!r}")
    pmf = private_blurry_linear(
        adjacency,
        epsilon,
        delta,
        lam,
        np.eye(bucket_count(n, lam)),
        bound=bound,
        calibration=calibration,
        rng=rng,
        budget=budget,
        _estimator=_estimator,
    )
    q = np.asarray(pmf.estimate)
    peak, lo, hi = locate_window(q, window)
    excess = _excess(q, lam, lo, hi)
    spread = math.sqrt(float(np.sum(np.arange(hi - lo + 1) ** 2)))
    return LocalNodeEstimate(
        algorithm="algorithm_4_average_degree",
        estimate=lam * lo * count / n + excess,
        guarantee=pmf.guarantee,
        message_noise=pmf.message_noise,
        joint_sensitivity=pmf.joint_sensitivity,
        standard_error=lam * float(pmf.standard_error) * spread,
        details={
            "n": n,
            "lambda": int(lam),
            "peak": peak,
            "j_lo": lo,
            "j_hi": hi,
            "excess": excess,
            "noisy_pmf": q,
            "nonisolated": count,
            "window": window,
        },
    )


def erdos_renyi_bucket_width(n: int, c_lambda: float = 2.0) -> int:
    """λ = ⌈c_λ √(n ln n)⌉ (Algorithm 5).

    Examples
    --------
    >>> erdos_renyi_bucket_width(10_000)
    607
    """
    size = check_nodes(n)
    if not (math.isfinite(c_lambda) and c_lambda > 0):
        raise InvalidParameterError(f"c_lambda must be finite and > 0, got {c_lambda!r}")
    return max(1, math.ceil(c_lambda * math.sqrt(size * math.log(size))))


def private_erdos_renyi(
    graph: Any,
    epsilon: float,
    delta: float,
    *,
    c_lambda: float = 2.0,
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalNodeEstimate:
    """Algorithm 5: p̂ for G ~ G(n, p), (ε, δ)-LNDP on every graph (Theorem 4.9).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged once,
    for Algorithm 3's joint messages, before any randomness is drawn.

    ``standard_error`` is the s.d. √30 λσ̃/(n − 1) once the location step succeeds.
    """
    adjacency, degrees = local_views(graph)
    n = check_nodes(degrees.shape[0])
    lam = erdos_renyi_bucket_width(n, c_lambda)
    inner = private_average_degree(
        adjacency,
        epsilon,
        delta,
        lam,
        calibration=calibration,
        rng=rng,
        budget=budget,
        _estimator="private_erdos_renyi",
    )
    d_hat = lam * inner.details["j_lo"] + inner.details["excess"]
    return LocalNodeEstimate(
        algorithm="algorithm_5_erdos_renyi",
        estimate=float(np.clip(d_hat / (n - 1), 0.0, 1.0)),
        guarantee=inner.guarantee,
        message_noise=inner.message_noise,
        joint_sensitivity=inner.joint_sensitivity,
        standard_error=float(inner.standard_error) / (n - 1),
        details={**inner.details, "c_lambda": c_lambda},
    )


def private_clique_size(
    graph: Any,
    epsilon: float,
    delta: float,
    *,
    window: Window = 5,
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalNodeEstimate:
    """Algorithm 6: the size K of a clique plus n − K isolated nodes (Theorem 4.10).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged once,
    for Algorithm 3's joint messages, before any randomness is drawn.

    ``standard_error`` propagates the s.d. of Ê through the root, ≈ n·sd(Ê)/(2K̂ − b).
    """
    adjacency, degrees = local_views(graph)
    n = check_nodes(degrees.shape[0])
    lam = math.ceil(math.sqrt(n))
    inner = private_average_degree(
        adjacency,
        epsilon,
        delta,
        lam,
        window=window,
        calibration=calibration,
        rng=rng,
        budget=budget,
        _estimator="private_clique_size",
    )
    b = 1.0 + lam * inner.details["j_lo"]
    root = (b + math.sqrt(max(0.0, b * b + 4.0 * n * inner.details["excess"]))) / 2.0
    k_hat = float(min(max(root, 0.0), n))
    slope = n / max(2.0 * k_hat - b, 1.0)
    return LocalNodeEstimate(
        algorithm="algorithm_6_clique_size",
        estimate=k_hat,
        guarantee=inner.guarantee,
        message_noise=inner.message_noise,
        joint_sensitivity=inner.joint_sensitivity,
        standard_error=slope * float(inner.standard_error),
        details={**inner.details, "b": b},
    )
