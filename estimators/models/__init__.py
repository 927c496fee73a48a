"""Data-generating models for studies and tests of the private estimators.

* :mod:`estimators.models.random_geometric` — random geometric graphs on the unit sphere
  S² (Chaudhuri, Loh, Pandey & Sarkar, NeurIPS 2024, Section 5.2): a vectorised sampler
  (:func:`random_geometric_graph`, :func:`sample_sphere_points`) and the ground truth the
  estimators are compared with — the exact edge probability r²/4
  (:func:`rgg_edge_probability`), the small-radius triangle density
  (:func:`rgg_triangle_density_small_radius`) and the exact one by quadrature
  (:func:`rgg_triangle_probability`);
* :mod:`estimators.models.uniformity` — laws on a finite alphabet for uniformity-testing
  studies (:class:`AlphabetDistribution`): :func:`uniform_distribution` and the ±s
  perturbation at a given ℓ2 distance from it, :func:`plus_minus_perturbation`.

Models draw from an injected ``numpy.random.Generator`` (or seed) only.
"""

from __future__ import annotations

from .random_geometric import (
    SMALL_RADIUS_TRIANGLE_CONSTANT,
    RandomGeometricGraph,
    random_geometric_graph,
    rgg_edge_probability,
    rgg_triangle_density_small_radius,
    rgg_triangle_probability,
    sample_sphere_points,
)
from .uniformity import AlphabetDistribution, plus_minus_perturbation, uniform_distribution

__all__ = [
    "AlphabetDistribution",
    "RandomGeometricGraph",
    "SMALL_RADIUS_TRIANGLE_CONSTANT",
    "plus_minus_perturbation",
    "random_geometric_graph",
    "rgg_edge_probability",
    "rgg_triangle_density_small_radius",
    "rgg_triangle_probability",
    "sample_sphere_points",
    "uniform_distribution",
]
