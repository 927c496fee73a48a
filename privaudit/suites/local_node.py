"""Broken local-node (LNDP) mechanisms that a user could write, on the joint messages.

Each is a correct mechanism of :mod:`estimators.lndp` (Raskhodnikova, Smith, Wagaman &
Zavyalov, "Local Node Differential Privacy", arXiv 2026) with one classic error: noise
calibrated to the rewired node's own sensitivity (:func:`own_sensitivity_soft_threshold`,
:func:`own_sensitivity_laplace_edge_count`), a claim that ignores the neighbours' entries
(:func:`neighbours_copies_ignored`), thresholds that no node knows
(:func:`global_threshold_soft_threshold`), a sampled one-hot instead of its expectation
(:func:`sampled_one_hot`, in fact private at n = 8, so no sound audit can flag it).  Used
by ``tests/quality/test_lndp_audits.py`` and ``scripts/lndp_study.py``.

Details (each error): ``docs/engine_notes.md``, "privaudit.suites.local_node".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privaudit.estimators.lndp import (
    blur_weights,
    blurry_linear_mechanism,
    bucket_count,
    laplace_edge_count_mechanism,
    soft_threshold,
    soft_threshold_mechanism,
)
from privaudit.mechanisms import GaussianMechanism, declare_mechanism
from privaudit.spec import Gaussian, GraphDomain, LocalNodeRelation
from privaudit.spec.errors import InconsistentSpecError

__all__ = [
    "global_threshold_soft_threshold",
    "neighbours_copies_ignored",
    "node_degrees",
    "own_sensitivity_laplace_edge_count",
    "own_sensitivity_soft_threshold",
    "sampled_one_hot",
]


def node_degrees(graph: Any) -> np.ndarray:
    """The degrees of nodes 0 … n − 1 of a networkx graph, as floats."""
    return np.array([graph.degree(i) for i in range(graph.number_of_nodes())], dtype=float)


def _gaussian_sigma(mechanism: Any) -> float:
    """σ of a mechanism's declared Gaussian noise law."""
    law = mechanism.noise_law
    if not isinstance(law, Gaussian):
        raise InconsistentSpecError(
            f"{mechanism.spec.name}: expected Gaussian noise, got {type(law).__name__}"
        )
    return law.sigma


def own_sensitivity_soft_threshold(n: int) -> tuple[Any, float]:
    """(Algorithm 1 at (0.9, 10⁻³), τ = 0..1, with σ for Δ = 1; that σ)."""
    honest = soft_threshold_mechanism(n, 0.9, 1e-3, 0, 1, calibration="classical")
    sensitivity = honest.spec.global_sensitivity
    if sensitivity is None:
        raise InconsistentSpecError(f"{honest.spec.name}: declares no global sensitivity")
    sigma = _gaussian_sigma(honest) / sensitivity.value
    mech = declare_mechanism(
        honest.spec,
        lambda g, size, rng: (
            soft_threshold(node_degrees(g), 0, 1) + rng.normal(0, sigma, (size, n))
        ),
        statistic=honest.statistic,
    )
    return mech, sigma


def own_sensitivity_laplace_edge_count(n: int, epsilon: float = 1.0) -> Any:
    """Algorithm 8's honest spec, sampled with b = (n − 1)/ε (half the required scale)."""
    honest = laplace_edge_count_mechanism(n, epsilon)
    b = (n - 1) / epsilon
    return declare_mechanism(
        honest.spec,
        lambda g, size, rng: node_degrees(g) + rng.laplace(0.0, b, (size, n)),
        statistic=honest.statistic,
    )


def global_threshold_soft_threshold(n: int) -> Any:
    """Algorithm 1 at (0.9, 10⁻³) with τ1 = ⌊average degree⌋, τ2 = τ1 + 1 (not local)."""
    honest = soft_threshold_mechanism(n, 0.9, 1e-3, 0, 1, calibration="classical")
    sigma = _gaussian_sigma(honest)

    def messages_mean(g: Any) -> np.ndarray:
        d = node_degrees(g)
        tau = float(np.floor(d.mean()))
        return soft_threshold(d, tau, tau + 1)

    return declare_mechanism(
        honest.spec,
        lambda g, size, rng: messages_mean(g) + rng.normal(0, sigma, (size, n)),
        statistic=messages_mean,
    )


def neighbours_copies_ignored(n: int) -> GaussianMechanism:
    """Soft-thresholded degrees with a claimed ℓ2 sensitivity of 1 (the node's own entry)."""
    return GaussianMechanism(
        0.9,
        1e-3,
        1.0,
        calibration="classical",
        statistic=lambda g: soft_threshold(node_degrees(g), 0, 1),
        input_domain=GraphDomain(n_nodes=n),
        relation=LocalNodeRelation(focus_nodes=(0,)),
        output_dimension=n,
        name="broken.neighbours_copies_ignored",
    )


def sampled_one_hot(n: int, bucket_width: int = 2) -> Any:
    """Algorithm 3 (W = I) with each node's rounded one-hot sampled, not its expectation."""
    honest = blurry_linear_mechanism(
        n, 0.9, 1e-3, bucket_width, np.eye(bucket_count(n, bucket_width)), calibration="classical"
    )
    k, sigma = bucket_count(n, bucket_width), _gaussian_sigma(honest)

    def sampler(g: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        j, r = blur_weights(node_degrees(g).astype(int), bucket_width)
        idx = np.minimum(j + (rng.random((size, n)) < r), k - 1)
        hot = np.zeros((size, n, k))
        np.put_along_axis(hot, idx[..., None], 1.0, axis=2)
        return hot.reshape(size, n * k) + rng.normal(0, sigma, (size, n * k))

    return declare_mechanism(honest.spec, sampler, statistic=honest.statistic)
