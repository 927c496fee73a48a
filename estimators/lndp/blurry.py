"""The blurry degree distribution (Definition 4.5, Lemmas 4.6–4.7) and Algorithm 3.

Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential Privacy",
arXiv:2602.15802, Section 4.1: Definition 4.5, equations (1)–(5), Lemmas 4.6–4.7,
Algorithm 3 and Theorem 4.1.

Randomized rounding r_λ(d) puts mass max(0, 1 − |d/λ − j|) on jλ, j = 0 … n_λ − 1 with
n_λ = ⌈(n − 1)/λ⌉ + 1 buckets (the ceiling keeps the mass of degree n − 1 when λ does not
divide n − 1).  The blur matrix B ∈ R^{n_λ×n} has these columns, and the compressed blurry
distribution is Q_G = B P_G: a deterministic vector, never simulated by the nodes.

Algorithm 3 (linear queries W ∈ R^{k×n_λ} on Q_G): node i sends W B e_{d_i} + N(0, σ² I_k),
the piecewise-linear interpolation of W's columns at d_i/λ (the *expected* rounded one-hot,
not a sampled one).  The paper's bound on the ℓ2 sensitivity of the stacked messages is
Δ₂ = 2‖W‖_{1→2}√(1 + (n − 1)/λ²) (rewired node: ≤ 2‖W‖_{1→2}; each other node:
≤ 2‖W‖_{1→2}/λ).  The tighter, still valid
Δ_W² = max_{j,j′}‖W(e_j − e_{j′})‖² + (n − 1) max_j ‖W(e_j − e_{j+1})‖²/λ² is √2 smaller
for W = I (docs/lndp_study.md, "Errata").
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from privaudit.mechanisms import GaussianMechanism
from privaudit.mechanisms.accounting import PrivacyBudget, charge
from privaudit.spec import GraphDomain, LocalNodeRelation, MessageLayout, RandomLike, as_generator
from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.stable_values import round_up

from ._common import (
    DEFAULT_CALIBRATION,
    GaussianCalibration,
    check_calibration,
    check_nodes,
    check_positive_int,
    gaussian_message_claims,
    gaussian_message_sum,
    local_views,
    reference,
)
from ._result import LocalNodeEstimate

__all__ = [
    "Bound",
    "blur_weights",
    "blurry_distribution",
    "blurry_linear_mechanism",
    "blurry_linear_sensitivity",
    "bucket_count",
    "private_blurry_linear",
]

Bound = Literal["paper", "tight"]


def bucket_count(n: int, lam: int) -> int:
    """n_λ = ⌈(n − 1)/λ⌉ + 1, the number of buckets 0 … n_λ − 1.

    Examples
    --------
    >>> bucket_count(10, 4)     # degree 9 rounds up to 12 = 3·4
    4
    """
    size = check_nodes(n, 1)
    width = check_positive_int(lam, "lambda")
    return -(-(size - 1) // width) + 1


def blur_weights(degrees: Any, lam: int) -> tuple[np.ndarray, np.ndarray]:
    """(j, r): degree d has mass 1 − r on bucket j = ⌊d/λ⌋ and r = {d/λ} on j + 1 (eq. (2))."""
    width = check_positive_int(lam, "lambda")
    d = np.asarray(degrees, dtype=np.int64)
    j = d // width
    return j, (d - j * width) / width


def blurry_distribution(graph: Any, lam: int) -> np.ndarray:
    """Q_G = B P_G ∈ R^{n_λ}, the compressed blurry degree distribution (Lemma 4.7).

    **Not private** (exact; for evaluation).

    Examples
    --------
    >>> import networkx as nx
    >>> blurry_distribution(nx.star_graph(4), 2).tolist()     # degrees 4, 1, 1, 1, 1
    [0.4, 0.4, 0.2]
    """
    return _blurry_from_degrees(local_views(graph)[1], lam)


def _blurry_from_degrees(degrees: np.ndarray, lam: int) -> np.ndarray:
    n = degrees.shape[0]
    j, r = blur_weights(degrees, lam)
    buckets = bucket_count(n, lam)
    q = np.bincount(j, weights=1.0 - r, minlength=buckets + 1)
    q += np.bincount(j + 1, weights=r, minlength=buckets + 1)
    return q[:buckets] / n


def _interpolate(workload: np.ndarray, j: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Rows W B e_{d_i} = (1 − r_i) W[:, j_i] + r_i W[:, j_i + 1] for a batch of nodes."""
    columns = workload.T
    upper = np.minimum(j + 1, columns.shape[0] - 1)  # r = 0 whenever j + 1 is out of range
    return (1.0 - r)[:, None] * columns[j] + r[:, None] * columns[upper]


def _check_workload(workload: Any, buckets: int) -> np.ndarray:
    w = np.asarray(workload, dtype=np.float64)
    if w.ndim == 1:
        w = w[None, :]
    if w.ndim != 2 or w.shape[1] != buckets or w.shape[0] < 1:
        raise InvalidParameterError(
            f"the workload W must have shape (k, n_lambda) = (k, {buckets}), got shape "
            f"{np.shape(workload)}"
        )
    if not np.all(np.isfinite(w)):
        raise InvalidParameterError("the workload W has a non-finite entry")
    if not np.any(w):
        raise InvalidParameterError("the workload W is identically zero")
    return w


def blurry_linear_sensitivity(n: int, lam: int, workload: Any, bound: Bound = "paper") -> float:
    """The ℓ2 node sensitivity of Algorithm 3's stacked message means.

    ``"paper"``: 2‖W‖_{1→2}√(1 + (n − 1)/λ²) (Theorem 4.1); ``"tight"``:
    √(max_{j,j′}‖W(e_j − e_{j′})‖² + (n − 1) max_j‖W(e_j − e_{j+1})‖²/λ²) (module docstring).
    Both are rounded up to the stable grid of :mod:`spec.stable_values`: the norms of a
    general W (e.g. the matrix square root of :func:`cdf_factor`) come from numpy
    reductions and BLAS, whose last bits differ between machines.

    Examples
    --------
    >>> round(blurry_linear_sensitivity(6, 1, np.eye(6)), 3), round(
    ...     blurry_linear_sensitivity(6, 1, np.eye(6), "tight"), 3)
    (4.899, 3.464)
    """
    size = check_nodes(n)
    width = check_positive_int(lam, "lambda")
    w = _check_workload(workload, bucket_count(size, width))
    if bound == "paper":
        col = float(np.sqrt((w**2).sum(axis=0)).max())
        return round_up(2.0 * col * math.sqrt(1.0 + (size - 1) / width**2))
    if bound != "tight":
        raise InvalidParameterError(f"bound must be 'paper' or 'tight', got {bound!r}")
    gram = w.T @ w
    diag = np.diag(gram)
    far = float(np.max(diag[:, None] + diag[None, :] - 2.0 * gram))
    step = float(np.max(((w[:, 1:] - w[:, :-1]) ** 2).sum(axis=0))) if w.shape[1] > 1 else 0.0
    return round_up(math.sqrt(max(far, 0.0) + (size - 1) * step / width**2))


def blurry_linear_mechanism(
    n: int,
    epsilon: float,
    delta: float,
    lam: int,
    workload: Any,
    *,
    bound: Bound = "paper",
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    name: str = "lndp.blurry_linear",
) -> GaussianMechanism:
    """Algorithm 3's joint messages (W B e_{d_i} + N(0, σ² I_k))_i as a Gaussian mechanism.

    Parameters
    ----------
    n : int
        Public number of nodes.
    epsilon, delta : float
        ε > 0, δ ∈ (0, 1); ε < 1 for the classical calibration.
    lam : int
        Bucket width λ ≥ 1.
    workload : array_like, shape (k, n_λ)
        The public query matrix W.
    bound : {"paper", "tight"}
        Which sensitivity calibrates σ (:func:`blurry_linear_sensitivity`).
    calibration : {"analytic", "classical"}, default "analytic"
        σ from the analytic Gaussian mechanism (Balle & Wang, ICML 2018) or from the
        paper's classical formula (Lemma A.3, ε < 1).

    Returns
    -------
    GaussianMechanism
        Output dimension n·k (row-major: node i's k coordinates are entries
        ik … ik + k − 1), on ``GraphDomain(n)`` under ``LocalNodeRelation()``.
    """
    size = check_nodes(n)
    eps, d0, how = check_calibration(epsilon, delta, calibration)
    width = check_positive_int(lam, "lambda")
    w = _check_workload(workload, bucket_count(size, width))
    sensitivity = blurry_linear_sensitivity(size, width, w, bound)

    def messages_mean(graph: Any) -> np.ndarray:
        j, r = blur_weights(local_views(graph, size)[1], width)
        return _interpolate(w, j, r).ravel()

    return GaussianMechanism(
        eps,
        d0,
        sensitivity,
        calibration=how,
        statistic=messages_mean,
        input_domain=GraphDomain(n_nodes=size),
        relation=LocalNodeRelation(bucket_width=width, layout=MessageLayout.equal(w.shape[0])),
        output_dimension=size * w.shape[0],
        name=name,
        statistic_description=f"stacked W B e_(d_i), W of shape {w.shape}, lambda={width} "
        f"(l2 node sensitivity {sensitivity:.6g}, {bound} bound)",
        summary="each node sends the blurred query vector W B e_(degree) + N(0, sigma^2 I): "
        "(eps, delta)-LNDP on the joint messages",
        references=(reference("Algorithm 3, Theorem 4.1, Lemma 4.7"),),
    )


def private_blurry_linear(
    graph: Any,
    epsilon: float,
    delta: float,
    lam: int,
    workload: Any,
    *,
    bound: Bound = "paper",
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
    _estimator: str = "private_blurry_linear",
) -> LocalNodeEstimate:
    """ŷ = (1/n) Σ_i y_i = W Q_G + N(0, σ²/n I_k): Algorithm 3 (Theorem 4.1).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged for
    the joint messages' spec before any randomness is drawn.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.cycle_graph(400)
    >>> est = private_blurry_linear(g, 0.5, 1e-6, 20, np.eye(21), rng=0)
    >>> est.estimate.shape
    (21,)
    """
    _, degrees = local_views(graph)
    n = check_nodes(degrees.shape[0])
    mech = blurry_linear_mechanism(
        n, epsilon, delta, lam, workload, bound=bound, calibration=calibration
    )
    w = _check_workload(workload, bucket_count(n, lam))
    sigma = mech.noise_law.sigma
    charge(budget, mech.spec, estimator=_estimator)

    # Σ_i W B e_{d_i} = W (n Q_G): the nodes' batched means, summed by bucket
    total = gaussian_message_sum(
        w @ (n * _blurry_from_degrees(degrees, lam)), n, sigma, as_generator(rng)
    )
    joint_sensitivity, how = gaussian_message_claims(mech)
    return LocalNodeEstimate(
        algorithm="algorithm_3_blurry_linear",
        estimate=total / n,
        guarantee=mech.spec.guarantee,
        message_noise=sigma,
        joint_sensitivity=joint_sensitivity,
        standard_error=sigma / math.sqrt(n),
        details={
            "n": n,
            "lambda": int(lam),
            "buckets": w.shape[1],
            "bound": bound,
            "calibration": how,
        },
    )
