"""The result object of the private network statistics."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Any, Literal

from privaudit.spec import PrivacyGuarantee

from .._privacy_account import PrivacyAccount
from .._result import non_private_field, private_repr, result_dataclass
from ..ustatistics.concentration import ConcentrationRadius
from .coarse_estimate import CoarseDensityEstimate
from .node_chunks import NodeChunks

__all__ = ["NetworkStatisticEstimate", "XiSource"]

XiSource = Literal["public_xi", "public_radius_bound", "private_coarse_estimate", "none"]


@result_dataclass(frozen=True, repr=False)
class NetworkStatisticEstimate:
    """A private edge or triangle density and how it was made.

    Attributes
    ----------
    statistic : {"edge_density", "triangle_density"}
    estimate : float
        The private release.
    non_private : float
        The exact density of the whole graph.  **Not private**: for evaluation only;
        publishing it breaks the guarantee.  Hidden from ``repr`` and ``str``.
    privacy : PrivacyAccount
        What was spent: the coarse estimate ε₀ (when ξ was estimated privately) and the
        estimator's own claim, composed with :func:`mechanisms.basic_composition`.
    method : {"local_hajek", "coinpress"}
        Algorithm 1 under Wrapper 1, or the all-tuples CoinPress baseline under Wrapper 1.
    xi_source : {"public_xi", "public_radius_bound", "private_coarse_estimate", "none"}
        How ξ was chosen (``"none"`` for the baseline, which has no ξ).
    xi : mapping of int to ConcentrationRadius or float
        The ξ used on chunks of each size (a float when given directly).
    mean_bound : float or None
        θ_up, the upper bound on the density that ξ was computed from.
    coarse : CoarseDensityEstimate or None
        The stage-1 release when ξ was estimated privately.
    chunks : NodeChunks
        The public partition of Wrapper 1 (q = ``chunks.count``).
    parameters : mapping
        The public parameters of the call (n, ε, α, r_max, seed, …).
    """

    statistic: Literal["edge_density", "triangle_density"]
    estimate: float
    non_private: float = non_private_field()
    privacy: PrivacyAccount
    method: Literal["local_hajek", "coinpress"]
    xi_source: XiSource
    xi: Mapping[int, ConcentrationRadius | float] = field(repr=False)
    mean_bound: float | None
    coarse: CoarseDensityEstimate | None
    chunks: NodeChunks = field(repr=False)
    parameters: Mapping[str, Any] = field(repr=False)

    __repr__ = private_repr

    def __post_init__(self) -> None:
        object.__setattr__(self, "xi", MappingProxyType(dict(self.xi)))
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))

    @property
    def guarantee(self) -> PrivacyGuarantee:
        """The total privacy guarantee of the release."""
        return self.privacy.total

    @property
    def n(self) -> int:
        """Number of nodes."""
        return self.chunks.n

    def __float__(self) -> float:
        return float(self.estimate)
