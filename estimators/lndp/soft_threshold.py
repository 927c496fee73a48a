"""Algorithm 1 (soft threshold) and Algorithm 2 (edge counting in D-bounded graphs).

Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential Privacy",
arXiv:2602.15802, Definition 3.1, Algorithm 1, Lemmas 3.2–3.3, Algorithm 2, Theorem 3.4.

Node i sends y_i = f_{τ1,τ2}(d_i) + N(0, σ²) with the soft threshold
f(x) = clip((x − τ1)/λ, 0, 1), λ = τ2 − τ1.  One rewiring moves the rewired node's entry
by ≤ 1 and each of the ≤ n − 1 other entries by ≤ 1/λ, so the stacked vector has ℓ2
sensitivity Δ₂ = √(1 + (n − 1)/λ²) (tight: the star toggle at τ1 = 0), and
σ = Δ₂ c_δ/ε (Lemma A.3, classical calibration, ε < 1).  The server averages:
ŝ = (1/n) Σ y_i ~ N(s(G), σ²/n).  Algorithm 2 runs it with τ1 = 0, τ2 = D and returns
m̂ = nDŝ/2, unbiased for Σ_i min(d_i, D)/2 (= m on D-bounded graphs).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.mechanisms import GaussianMechanism
from privaudit.mechanisms.accounting import PrivacyBudget, charge
from privaudit.spec import (
    GraphDomain,
    LocalNodeRelation,
    MessageLayout,
    RandomLike,
    as_generator,
    check_positive,
)
from privaudit.spec.errors import InvalidParameterError

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
    "edge_count_mechanism",
    "private_edge_count",
    "private_soft_threshold",
    "soft_threshold",
    "soft_threshold_mechanism",
    "soft_threshold_sensitivity",
]


def soft_threshold(degrees: Any, tau1: float, tau2: float) -> np.ndarray:
    """f_{τ1,τ2}(d) = clip((d − τ1)/(τ2 − τ1), 0, 1), vectorised (paper, Definition 3.1).

    Examples
    --------
    >>> soft_threshold([0, 2, 5, 9], 2, 6).tolist()
    [0.0, 0.0, 0.75, 1.0]
    """
    lo, hi = _thresholds(tau1, tau2)
    return np.clip((np.asarray(degrees, dtype=np.float64) - lo) / (hi - lo), 0.0, 1.0)


def _thresholds(tau1: Any, tau2: Any) -> tuple[float, float]:
    lo = float(tau1) if np.isfinite(tau1) else math.nan
    hi = float(tau2) if np.isfinite(tau2) else math.nan
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise InvalidParameterError(
            f"need finite thresholds tau1 < tau2, got tau1={tau1!r}, tau2={tau2!r}"
        )
    return lo, hi


def soft_threshold_sensitivity(n: int, width: float) -> float:
    """Δ₂ = √(1 + (n − 1)/λ²) of the stacked soft-threshold messages (paper, Lemma 3.3).

    Examples
    --------
    >>> round(soft_threshold_sensitivity(6, 1.0), 6)
    2.44949
    """
    size = check_nodes(n)
    lam = check_positive(width, "lambda = tau2 - tau1")
    return math.sqrt(1.0 + (size - 1) / lam**2)


def soft_threshold_mechanism(
    n: int,
    epsilon: float,
    delta: float,
    tau1: float,
    tau2: float,
    *,
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    name: str = "lndp.soft_threshold",
) -> GaussianMechanism:
    """Algorithm 1's joint messages (f(d_i) + N(0, σ²))_i as an audited Gaussian mechanism.

    Parameters
    ----------
    n : int
        Public number of nodes (≥ 2).
    epsilon, delta : float
        ε > 0, δ ∈ (0, 1); ε < 1 for the classical calibration (Lemma A.3).
    tau1, tau2 : float
        The thresholds τ1 < τ2.
    calibration : {"analytic", "classical"}, default "analytic"
        σ from the analytic Gaussian mechanism (Balle & Wang, ICML 2018), or from the
        paper's classical formula σ = Δ₂c_δ/ε (Lemma A.3).

    Returns
    -------
    GaussianMechanism
        On ``GraphDomain(n)`` under ``LocalNodeRelation()``; output dimension n (one
        message per node); statistic hook = the stacked f(d_i).

    Examples
    --------
    >>> mech = soft_threshold_mechanism(6, 0.5, 1e-3, 0, 1)
    >>> mech.output_dimension, mech.spec.relation.kind
    (6, 'local_node')
    """
    size = check_nodes(n)
    eps, d0, how = check_calibration(epsilon, delta, calibration)
    lo, hi = _thresholds(tau1, tau2)
    sensitivity = soft_threshold_sensitivity(size, hi - lo)

    def messages_mean(graph: Any) -> np.ndarray:
        return soft_threshold(local_views(graph, size)[1], lo, hi)

    return GaussianMechanism(
        eps,
        d0,
        sensitivity,
        calibration=how,
        statistic=messages_mean,
        input_domain=GraphDomain(n_nodes=size),
        relation=LocalNodeRelation(layout=MessageLayout.equal(1)),
        output_dimension=size,
        name=name,
        statistic_description=f"stacked soft thresholds f(d_i) with tau1={lo:g}, tau2={hi:g} "
        f"(l2 node sensitivity sqrt(1 + (n-1)/lambda^2) = {sensitivity:.6g})",
        summary="each node sends f_{tau1,tau2}(degree) + N(0, sigma^2): (eps, delta)-LNDP on the "
        "joint messages for every graph",
        references=(reference("Algorithm 1, Lemma 3.3"),),
    )


def private_soft_threshold(
    graph: Any,
    epsilon: float,
    delta: float,
    tau1: float,
    tau2: float,
    *,
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
    _estimator: str = "private_soft_threshold",
) -> LocalNodeEstimate:
    """ŝ = (1/n) Σ_i y_i, an (ε, δ)-LNDP estimate of s(G) = (1/n) Σ_i f_{τ1,τ2}(d_i).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged for
    the joint messages' spec before any randomness is drawn.

    Returns
    -------
    LocalNodeEstimate
        ``estimate`` ~ N(s(G), σ²/n) exactly; ``standard_error`` = σ/√n.

    Examples
    --------
    >>> import networkx as nx
    >>> est = private_soft_threshold(nx.cycle_graph(1000), 0.5, 1e-6, 0, 4, rng=0)
    >>> abs(est.estimate - 0.5) < 5 * est.standard_error
    True
    """
    adjacency, degrees = local_views(graph)
    n = check_nodes(adjacency.shape[0])
    mech = soft_threshold_mechanism(n, epsilon, delta, tau1, tau2, calibration=calibration)
    lo, hi = _thresholds(tau1, tau2)
    sigma = mech.noise_law.sigma
    charge(budget, mech.spec, estimator=_estimator)
    total = gaussian_message_sum(
        soft_threshold(degrees, lo, hi).sum(keepdims=True), n, sigma, as_generator(rng)
    )
    joint_sensitivity, how = gaussian_message_claims(mech)
    return LocalNodeEstimate(
        algorithm="algorithm_1_soft_threshold",
        estimate=float(total[0] / n),
        guarantee=mech.spec.guarantee,
        message_noise=sigma,
        joint_sensitivity=joint_sensitivity,
        standard_error=sigma / math.sqrt(n),
        details={"n": n, "tau1": lo, "tau2": hi, "calibration": how},
    )


def edge_count_mechanism(
    n: int,
    epsilon: float,
    delta: float,
    max_degree: int,
    *,
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    name: str = "lndp.edge_count",
) -> GaussianMechanism:
    """Algorithm 2's joint messages: Algorithm 1 with τ1 = 0, τ2 = D."""
    bound = check_positive_int(max_degree, "max_degree D")
    return soft_threshold_mechanism(n, epsilon, delta, 0, bound, calibration=calibration, name=name)


def private_edge_count(
    graph: Any,
    epsilon: float,
    delta: float,
    max_degree: int,
    *,
    calibration: GaussianCalibration = DEFAULT_CALIBRATION,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalNodeEstimate:
    """m̂ = nDŝ/2: the (ε, δ)-LNDP edge count of a D-bounded graph (Algorithm 2, Thm 3.4).

    ``budget`` (optional) is charged once, for Algorithm 1's joint messages, before any draw.

    Private on every graph; unbiased for m on D-bounded graphs and for
    Σ_i min(d_i, D)/2 otherwise, with standard error D√n σ/2.

    Examples
    --------
    >>> import networkx as nx
    >>> est = private_edge_count(nx.cycle_graph(2000), 0.5, 1e-6, 4, rng=1)
    >>> abs(est.estimate - 2000) < 5 * est.standard_error
    True
    """
    bound = check_positive_int(max_degree, "max_degree D")
    inner = private_soft_threshold(
        graph,
        epsilon,
        delta,
        0,
        bound,
        calibration=calibration,
        rng=rng,
        budget=budget,
        _estimator="private_edge_count",
    )
    n = int(inner.details["n"])
    return LocalNodeEstimate(
        algorithm="algorithm_2_edge_count",
        estimate=n * bound * float(inner.estimate) / 2.0,
        guarantee=inner.guarantee,
        message_noise=inner.message_noise,
        joint_sensitivity=inner.joint_sensitivity,
        standard_error=bound * math.sqrt(n) * inner.message_noise / 2.0,
        details={"n": n, "max_degree": bound, "soft_threshold": inner.estimate},
    )
