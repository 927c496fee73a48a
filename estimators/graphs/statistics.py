"""The two network statistics: edge density (k = 2) and triangle density (k = 3).

Each :class:`NetworkStatistic` ties together what the estimators need about one statistic:
its kernel on the adjacency matrix (records are nodes), its exact value, its node
sensitivity, its ξ formula (:mod:`.concentration`) and how an upper bound on its mean θ
follows from a bound on the edge probability p:

* edge density:     θ = p ≤ p_up;
* triangle density: θ ≤ E[A_12 A_13] = p² ≤ p_up² (A_12, A_13 independent given X_1).

Under the random geometric graph on the unit sphere S² (``docs/derivations.md`` §6) with
connection radius r, p = r²/4 exactly for 0 ≤ r ≤ 2 (a cap of chord radius r has area
πr²), so a public bound r ≤ r_max gives p_up = min(1, r_max²/4) (``docs/derivations.md`` §4).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from privaudit.spec.errors import InvalidParameterError

from ..models import rgg_edge_probability
from ..ustatistics import Kernel, adjacency_edge_kernel, adjacency_triangle_kernel
from ..ustatistics.concentration import ConcentrationRadius
from .coarse_estimate import edge_density_node_sensitivity, triangle_density_node_sensitivity
from .concentration import edge_density_xi, triangle_density_xi
from .densities import edge_density, triangle_density

__all__ = [
    "EDGE_DENSITY",
    "NetworkStatistic",
    "StatisticName",
    "TRIANGLE_DENSITY",
    "edge_probability_bound_from_radius",
    "network_statistic",
]

StatisticName = Literal["edge_density", "triangle_density"]


def edge_probability_bound_from_radius(r_max: float) -> float:
    """p_up = min(1, r_max²/4): the RGG edge probability on S² for any radius r ≤ r_max.

    Raises
    ------
    InvalidParameterError
        If r_max is not a finite number > 0.

    Examples
    --------
    >>> edge_probability_bound_from_radius(0.2)
    0.010000000000000002
    """
    if (
        isinstance(r_max, bool)
        or not isinstance(r_max, numbers.Real)
        or not math.isfinite(float(r_max))
        or float(r_max) <= 0
    ):
        raise InvalidParameterError(f"r_max must be a finite number > 0, got {r_max!r}")
    return rgg_edge_probability(float(r_max))


@dataclass(frozen=True)
class NetworkStatistic:
    """Everything the estimators need about one network statistic.

    Attributes
    ----------
    name : {"edge_density", "triangle_density"}
    degree : int
        k (2 or 3).
    kernel : callable
        Builds the adjacency kernel (range [0, 1], so C = 1).
    exact : callable
        The exact (non-private) value on a graph (``validated=True`` for a converted
        adjacency).
    node_sensitivity : callable
        n ↦ its global sensitivity under node neighbouring (2/n or 3/n).
    xi : callable
        (n, θ_up, gamma) ↦ the concentration radius on n nodes.
    power_of_edge_probability : int
        θ ≤ p^power (1 for edges, 2 for triangles).
    """

    name: StatisticName
    degree: int
    kernel: Callable[[], Kernel]
    exact: Callable[..., float]
    node_sensitivity: Callable[[int], float]
    xi: Callable[..., ConcentrationRadius]
    power_of_edge_probability: int

    def mean_bound(self, edge_probability_bound: float) -> float:
        """θ_up from p_up: p_up for edges, p_up² for triangles."""
        return float(edge_probability_bound) ** self.power_of_edge_probability

    @property
    def label(self) -> str:
        """``"edge density"`` or ``"triangle density"``."""
        return self.name.replace("_", " ")


EDGE_DENSITY = NetworkStatistic(
    name="edge_density",
    degree=2,
    kernel=adjacency_edge_kernel,
    exact=edge_density,
    node_sensitivity=edge_density_node_sensitivity,
    xi=edge_density_xi,
    power_of_edge_probability=1,
)
TRIANGLE_DENSITY = NetworkStatistic(
    name="triangle_density",
    degree=3,
    kernel=adjacency_triangle_kernel,
    exact=triangle_density,
    node_sensitivity=triangle_density_node_sensitivity,
    xi=triangle_density_xi,
    power_of_edge_probability=2,
)

_BY_NAME: dict[str, NetworkStatistic] = {s.name: s for s in (EDGE_DENSITY, TRIANGLE_DENSITY)}


def network_statistic(name: Any) -> NetworkStatistic:
    """The statistic called ``name`` (``"edge_density"`` or ``"triangle_density"``)."""
    found = _BY_NAME.get(name) if isinstance(name, str) else None
    if found is None:
        raise InvalidParameterError(
            f"statistic must be 'edge_density' or 'triangle_density', got {name!r}"
        )
    return found
