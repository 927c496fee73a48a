"""The interface every noise law implements: exact density, CDF and a batched sampler.

A noise law is a spec model (frozen, hashable, JSON round-trip) that also *is* the one
place where its density, CDF and sampler are defined: mechanisms draw from it, the
auditor tests residuals against it, and cross-field validation of mechanism specs reads
its exact privacy profile.  Nothing else in the code base re-implements these formulas.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from .._base import SpecModel
from .._random import RandomLike

__all__ = ["NoiseLaw"]


class NoiseLaw(SpecModel):
    """Abstract base of additive noise laws Z (the released value is ``f(D) + Z``).

    Subclasses set a ``kind: Literal[...]`` field and implement every abstract method
    vectorised over numpy arrays.
    """

    #: True for laws on the integers (density means probability mass).
    is_discrete: ClassVar[bool] = False

    @abstractmethod
    def sample(self, rng: RandomLike, size: int | tuple[int, ...]) -> npt.NDArray[np.generic]:
        """Draw ``size`` independent variates in one vectorised call.

        Continuous laws return float64, discrete laws int64.
        """

    @abstractmethod
    def log_density(self, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Log of the density (continuous) or of the probability mass (discrete)."""

    def density(self, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Density (continuous) or probability mass (discrete) at ``x``."""
        return np.exp(self.log_density(x))

    @abstractmethod
    def cdf(self, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """P(Z ≤ x), exact in closed form or to float precision."""

    @abstractmethod
    def sf(self, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """P(Z > x), computed directly (not as 1 − cdf) to keep tail precision."""

    @abstractmethod
    def ppf(self, q: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Quantile function: the smallest x with cdf(x) ≥ q."""

    @property
    @abstractmethod
    def variance(self) -> float:
        """Var Z (``inf`` where it does not exist)."""

    @property
    def std(self) -> float:
        """Standard deviation of Z."""
        return float(np.sqrt(self.variance))

    @abstractmethod
    def privacy_profile(self, epsilon: float, sensitivity: float) -> float:
        """Exact δ(ε) of the additive mechanism ``f(D) + Z`` with |f(D) − f(D′)| ≤ Δ.

        This is the hockey-stick divergence sup over shifts ``0 < s ≤ Δ`` (and both
        directions) of ``E_{e^ε}(Z || Z + s)``; for the laws here the worst shift is
        ``Δ`` itself.  ``epsilon`` may be 0.
        """

    @abstractmethod
    def pure_epsilon(self, sensitivity: float) -> float:
        """sup over outputs and shifts |s| ≤ Δ of |log p(z) − log p(z − s)|.

        ``inf`` if unbounded.
        """
