"""Discrete laws on a power-of-two lattice g·ℤ: the noise of the float-safe mechanisms.

:class:`LatticeLaplace` and :class:`LatticeGaussian` are the laws of ``Z = g·Y`` with
``Y`` a discrete Laplace or discrete Gaussian law on ℤ (the *unit law*, in grid units)
and ``g = 2^−k`` a public granularity.  Because g is a power of two, ``x/g`` and ``g·k``
are exact in float64 (away from overflow and underflow), so every formula is the unit
law's at ``x/g``, and the exact sampler of the unit law (CKS20, compiled,
:mod:`spec.noise._cks`) gives exact draws on the lattice.

An additive mechanism with this noise releases ``r(f(D)) + Z`` where ``r`` rounds f onto
the lattice; its sensitivity is that of ``r∘f``, a multiple ``m·g`` of the granularity
(``docs/float_safe_mechanisms.md`` derives ``m = ⌈Δ/g⌉`` for round-half-up), and its
privacy profile at sensitivity ``m·g`` is the unit law's at integer sensitivity m.

References
----------
.. [1] Mironov. "On significance of the least significant bits for differential
   privacy." ACM CCS 2012, §5 (the snapping mechanism: a public power-of-two grid).
.. [2] Canonne, Kamath, Steinke. "The Discrete Gaussian for Differential Privacy."
   NeurIPS 2020, Algorithms 1–3.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Literal, cast

import numpy as np
import numpy.typing as npt
from pydantic import field_validator

from .._random import RandomLike
from .._types import PositiveFloat
from ..errors import InvalidParameterError
from ._base import NoiseLaw
from ._checks import _as_probability_array, _as_real_array, _finish
from .discrete import DiscreteGaussian, DiscreteLaplace

__all__ = ["LatticeGaussian", "LatticeLaplace", "check_granularity"]

FloatArray = npt.NDArray[np.float64]

#: Granularities 2^k with −60 ≤ k ≤ 60 (x/g stays far from overflow and subnormals).
_K_RANGE = 60


def check_granularity(value: Any) -> float:
    """``value`` if it is a power of two 2^k with |k| ≤ 60, else InvalidParameterError."""
    g = float(value)
    mantissa, exponent = math.frexp(g) if math.isfinite(g) and g > 0 else (0.0, 0)
    if mantissa != 0.5 or abs(exponent - 1) > _K_RANGE:
        raise InvalidParameterError(
            f"granularity must be a power of two 2**k with |k| <= {_K_RANGE}, got {value!r}"
        )
    return g


class _LatticeLaw(NoiseLaw):
    """Shared code: every method is the unit law's at ``x / granularity``."""

    is_discrete: ClassVar[bool] = True
    granularity: PositiveFloat

    @field_validator("granularity")
    @classmethod
    def _power_of_two(cls, value: float) -> float:
        return check_granularity(value)

    @property
    def unit_law(self) -> DiscreteLaplace | DiscreteGaussian:  # pragma: no cover - abstract
        raise NotImplementedError

    def _unit_sensitivity(self, sensitivity: float) -> float:
        """Δ/g, which must be a positive integer (the lattice sensitivity in grid units)."""
        ratio = float(sensitivity) / self.granularity
        if not (math.isfinite(ratio) and ratio > 0 and ratio.is_integer()):
            raise InvalidParameterError(
                f"the sensitivity of a release on the lattice {self.granularity!r}·Z must be a "
                f"positive multiple of the granularity, got {sensitivity!r}"
            )
        return ratio

    def sample(self, rng: RandomLike, size: int | tuple[int, ...]) -> FloatArray:
        """``g ·`` the unit law's vectorised (idealized) draw, float64 on the lattice."""
        # a float64 array times a Python float is float64 (numpy's stubs say floating[Any])
        return cast(FloatArray, self.unit_law.sample(rng, size) * self.granularity)

    def sample_exact(self, rng: RandomLike, size: int | tuple[int, ...]) -> FloatArray:
        """``g ·`` the unit law's exact CKS20 draw, float64 on the lattice (exact products)."""
        # float64 times a Python float is float64, as in sample
        return cast(FloatArray, self.unit_law.sample_exact(rng, size) * self.granularity)

    def log_density(self, x: npt.ArrayLike) -> FloatArray:
        """The unit law's log mass at x/g: ``−inf`` off the lattice."""
        return self.unit_law.log_density(_as_real_array(x) / self.granularity)

    def cdf(self, x: npt.ArrayLike) -> FloatArray:
        """P(Z ≤ x) = P(Y ≤ ⌊x/g⌋)."""
        return self.unit_law.cdf(_as_real_array(x) / self.granularity)

    def sf(self, x: npt.ArrayLike) -> FloatArray:
        """P(Z > x) = P(Y > ⌊x/g⌋)."""
        return self.unit_law.sf(_as_real_array(x) / self.granularity)

    def ppf(self, q: npt.ArrayLike) -> FloatArray:
        """``g ·`` the unit law's quantile."""
        p = _as_probability_array(q)
        return _finish(np.asarray(self.unit_law.ppf(p), dtype=np.float64) * self.granularity)

    @property
    def variance(self) -> float:
        """``g² · Var Y``."""
        return self.granularity**2 * self.unit_law.variance

    def privacy_profile(self, epsilon: float, sensitivity: float) -> float:
        """The unit law's exact δ(ε) at integer sensitivity Δ/g."""
        return self.unit_law.privacy_profile(epsilon, self._unit_sensitivity(sensitivity))

    def pure_epsilon(self, sensitivity: float) -> float:
        """The unit law's pure ε at integer sensitivity Δ/g."""
        return self.unit_law.pure_epsilon(self._unit_sensitivity(sensitivity))


class LatticeLaplace(_LatticeLaw):
    """``g·Y`` with ``Y ~ DiscreteLaplace(scale/g)``: ``P(Z = gk) ∝ e^{−g|k|/scale}``.

    Parameters
    ----------
    scale : float
        b > 0 in output units (the unit law's scale is b/g, exact).
    granularity : float
        g = 2^−k, a power of two.

    Examples
    --------
    >>> law = LatticeLaplace(scale=2.0, granularity=2.0**-10)
    >>> law.unit_law.scale
    2048.0
    >>> float(law.sample_exact(0, 3)[0] * 1024).is_integer()
    True
    """

    kind: Literal["lattice_laplace"] = "lattice_laplace"
    scale: PositiveFloat

    @property
    def unit_law(self) -> DiscreteLaplace:
        """The discrete Laplace law of Z/g on ℤ."""
        return DiscreteLaplace(scale=self.scale / self.granularity)


class LatticeGaussian(_LatticeLaw):
    """``g·Y`` with ``Y ~ N_ℤ(0, (σ/g)²)``: ``P(Z = gk) ∝ e^{−(gk)²/(2σ²)}``.

    Parameters
    ----------
    sigma : float
        σ > 0 in output units (the unit law's σ is σ/g, exact).
    granularity : float
        g = 2^−k, a power of two.

    Examples
    --------
    >>> LatticeGaussian(sigma=3.0, granularity=0.25).unit_law.sigma
    12.0
    """

    kind: Literal["lattice_gaussian"] = "lattice_gaussian"
    sigma: PositiveFloat

    @property
    def unit_law(self) -> DiscreteGaussian:
        """The discrete Gaussian law of Z/g on ℤ."""
        return DiscreteGaussian(sigma=self.sigma / self.granularity)
