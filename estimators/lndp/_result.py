"""The result object every LNDP estimator returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from privaudit.spec import PrivacyGuarantee

__all__ = ["LocalNodeEstimate"]


@dataclass(frozen=True)
class LocalNodeEstimate:
    """A server-side LNDP release and how it was made.

    Attributes
    ----------
    algorithm : str
        Which algorithm of the paper (e.g. ``"algorithm_2_edge_count"``).
    estimate : float or numpy.ndarray
        The server's output, a post-processing of ρ and the n messages.
    guarantee : PrivacyGuarantee
        The (ε, δ)- or ε-LNDP claim on the joint messages, for every fixed ρ.
    message_noise : float
        The per-coordinate noise scale of each node's message (σ of the Gaussian, b of the
        Laplace, or the flip probability of randomized response).
    joint_sensitivity : float
        The sensitivity of the stacked per-node message means under one rewiring (ℓ2 for
        Gaussian messages, ℓ1 for Laplace, number of changed bits for randomized response).
    standard_error : float or numpy.ndarray
        The standard deviation of ``estimate`` around its target, from the noise law.
    details : mapping
        Algorithm-specific intermediate values and public parameters (read-only).
    """

    algorithm: str
    estimate: float | np.ndarray
    guarantee: PrivacyGuarantee
    message_noise: float
    joint_sensitivity: float
    standard_error: float | np.ndarray
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))
