"""The factorization mechanism on the blurry distribution: PMF, CDF and degree thresholds.

Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential Privacy",
arXiv:2602.15802, Theorem 4.2 and Corollaries 4.3–4.4.

A workload M ≈ L R is answered as L ŷ with ŷ = Algorithm 3 on R (the factorization is
public and fixed before the data are seen):

* PMF (Corollary 4.3): M = L = R = I;
* CDF (Corollary 4.4): M = T, the lower-triangular all-ones matrix, with the square-root
  factorization L = R = T^{1/2}: the lower-triangular Toeplitz matrix of
  c_t = C(2t, t)/4^t, whose cost ‖L‖_{2→∞}‖R‖_{1→2} = Σ_{t<n_λ} c_t² ≈ 1 + ln(n_λ)/π
  (Mathias 1993; Henzinger, Upadhyay & Kalinina 2025);
* thresholds: the number of nodes whose blurry degree is ≥ jλ is n(1 − F(j − 1)), and
  n Σ_{j′≥j} Q(j′) = Σ_i f_{(j−1)λ, jλ}(d_i) lies between n_{≥jλ} and n_{>(j−1)λ}.

The bicriterion guarantee of the CDF: F_P(x − λ) − α̂ ≤ F̂(x) ≤ F_P(x + λ) + α̂, with α̂ the
noise (Lemma 4.6(b): the blurring moves every degree by less than λ).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from scipy.linalg import toeplitz

from privaudit.mechanisms.accounting import PrivacyBudget
from privaudit.spec import RandomLike
from privaudit.spec.errors import InvalidParameterError

from ._common import DEFAULT_CALIBRATION, GaussianCalibration, check_nodes, local_views
from ._result import LocalNodeEstimate
from .blurry import Bound, bucket_count, private_blurry_linear

__all__ = [
    "cdf_factor",
    "private_degree_cdf",
    "private_degree_pmf",
    "private_degree_thresholds",
]


def cdf_factor(size: int) -> np.ndarray:
    """T^{1/2}: the lower-triangular Toeplitz square root of the all-ones lower triangle.

    Examples
    --------
    >>> f = cdf_factor(4)
    >>> np.allclose(f @ f, np.tril(np.ones((4, 4))))
    True
    """
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise InvalidParameterError(f"size must be an integer >= 1, got {size!r}")
    t = np.arange(size)
    # c_t = C(2t, t)/4^t, computed by the stable recursion c_t = c_{t-1}(2t - 1)/(2t)
    c = np.cumprod(np.concatenate([[1.0], (2.0 * t[1:] - 1.0) / (2.0 * t[1:])]))
    return np.tril(toeplitz(c))


def private_degree_pmf(
    graph: Any,
    epsilon: float,
    delta: float,
    lam: int,
    *,
    bound: Bound = "paper",
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalNodeEstimate:
    """Q̂ = Q_G + N(0, σ̃² I): the compressed blurry degree histogram (Corollary 4.3).

    ``standard_error`` is σ̃ per bucket (fractions of n).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged once,
    for Algorithm 3's joint messages, before any randomness is drawn.
    """
    adjacency, degrees = local_views(graph)  # read once, then passed on
    n = check_nodes(degrees.shape[0])
    buckets = bucket_count(n, lam)
    inner = private_blurry_linear(
        adjacency,
        epsilon,
        delta,
        lam,
        np.eye(buckets),
        bound=bound,
        calibration=calibration,
        rng=rng,
        budget=budget,
        _estimator="private_degree_pmf",
    )
    return LocalNodeEstimate(
        algorithm="corollary_4_3_degree_pmf",
        estimate=inner.estimate,
        guarantee=inner.guarantee,
        message_noise=inner.message_noise,
        joint_sensitivity=inner.joint_sensitivity,
        standard_error=inner.standard_error,
        details={**inner.details, "bucket_degrees": np.arange(buckets) * int(lam)},
    )


def private_degree_cdf(
    graph: Any,
    epsilon: float,
    delta: float,
    lam: int,
    *,
    factorization: Literal["sqrt", "identity"] = "sqrt",
    bound: Bound = "paper",
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
    _estimator: str = "private_degree_cdf",
) -> LocalNodeEstimate:
    """F̂ = L ŷ ≈ T Q_G: the blurry degree CDF by the factorization mechanism (Cor. 4.4).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged once,
    for Algorithm 3's joint messages, before any randomness is drawn.

    Parameters
    ----------
    factorization : {"sqrt", "identity"}
        ``"sqrt"``: L = R = T^{1/2} (error O(log n_λ)); ``"identity"``: R = I, L = T
        (prefix sums of the PMF; error O(√n_λ)), for comparison.

    Returns
    -------
    LocalNodeEstimate
        ``estimate[j]`` estimates F̃(jλ) = Pr[r_λ(d_I) ≤ jλ]; ``standard_error[j]`` is the
        exact s.d. of coordinate j.
    """
    adjacency, degrees = local_views(graph)  # read once, then passed on
    n = check_nodes(degrees.shape[0])
    buckets = bucket_count(n, lam)
    if factorization == "sqrt":
        left = right = cdf_factor(buckets)
    elif factorization == "identity":
        left, right = np.tril(np.ones((buckets, buckets))), np.eye(buckets)
    else:
        raise InvalidParameterError(
            f"factorization must be 'sqrt' or 'identity', got {factorization!r}"
        )
    inner = private_blurry_linear(
        adjacency,
        epsilon,
        delta,
        lam,
        right,
        bound=bound,
        calibration=calibration,
        rng=rng,
        budget=budget,
        _estimator=_estimator,
    )
    sd = float(inner.standard_error) * np.sqrt((left**2).sum(axis=1))
    return LocalNodeEstimate(
        algorithm="corollary_4_4_degree_cdf",
        estimate=left @ inner.estimate,
        guarantee=inner.guarantee,
        message_noise=inner.message_noise,
        joint_sensitivity=inner.joint_sensitivity,
        standard_error=sd,
        details={
            **inner.details,
            "factorization": factorization,
            "factorization_cost": float(
                np.sqrt((left**2).sum(axis=1)).max() * np.sqrt((right**2).sum(axis=0)).max()
            ),
            "bucket_degrees": np.arange(buckets) * int(lam),
        },
    )


def private_degree_thresholds(
    graph: Any,
    epsilon: float,
    delta: float,
    lam: int,
    thresholds: Any,
    *,
    bound: Bound = "paper",
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalNodeEstimate:
    """Counts of nodes with blurry degree ≥ τ for several multiples τ = jλ, from one CDF.

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged once,
    for Algorithm 3's joint messages, before any randomness is drawn.

    ``estimate[t]`` estimates n Σ_{j′≥j} Q(j′) = Σ_i f_{(j−1)λ, jλ}(d_i), which lies between
    the number of nodes of degree ≥ jλ and of degree > (j − 1)λ.

    Raises
    ------
    InvalidParameterError
        If a threshold is not a positive multiple jλ with j < n_λ.
    """
    adjacency, degrees = local_views(graph)  # read once, then passed on
    n = check_nodes(degrees.shape[0])
    buckets = bucket_count(n, lam)
    taus = np.atleast_1d(np.asarray(thresholds))
    if (
        taus.dtype.kind not in "iu"
        or np.any(taus <= 0)
        or np.any(taus % lam)
        or np.any(taus // lam >= buckets)
    ):
        raise InvalidParameterError(
            f"thresholds must be multiples j*lambda of lambda={lam} with 1 <= j < {buckets}, "
            f"got {thresholds!r}"
        )
    cdf = private_degree_cdf(
        adjacency,
        epsilon,
        delta,
        lam,
        bound=bound,
        calibration=calibration,
        rng=rng,
        budget=budget,
        _estimator="private_degree_thresholds",
    )
    index = taus // lam - 1
    return LocalNodeEstimate(
        algorithm="degree_thresholds",
        estimate=n * (1.0 - np.asarray(cdf.estimate)[index]),
        guarantee=cdf.guarantee,
        message_noise=cdf.message_noise,
        joint_sensitivity=cdf.joint_sensitivity,
        standard_error=n * np.asarray(cdf.standard_error)[index],
        details={**cdf.details, "thresholds": taus},
    )
