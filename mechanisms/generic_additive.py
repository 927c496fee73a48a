"""The generic additive noise mechanism: f(D) + Z for any spec whose noise is
:class:`~spec.AdditiveNoise`, with Z sampled from that spec's own law (by the law's exact
integer sampler for a discrete law under ``numerics="exact"``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from privaudit.spec import (
    AdditiveNoise,
    DiscreteGaussian,
    DiscreteLaplace,
    LatticeGaussian,
    LatticeLaplace,
    MechanismSpec,
)
from privaudit.spec.errors import (
    InvalidInputError,
    InvalidParameterError,
    UnsupportedCombinationError,
)
from privaudit.spec.noise import NoiseLaw

from ._base import Mechanism

__all__ = ["AdditiveNoiseMechanism"]

Statistic = Callable[[Any], Any]

#: The laws with an exact integer sampler ``sample_exact`` (CKS 2020), scaled for lattices.
_EXACT_SAMPLING_LAWS = (DiscreteLaplace, DiscreteGaussian, LatticeLaplace, LatticeGaussian)


def _sample_exact(law: NoiseLaw, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """``law.sample_exact(rng, shape)`` for a discrete or lattice law.

    Raises
    ------
    UnsupportedCombinationError
        If ``law`` has no exact sampler (a continuous law with ``numerics="exact"``).
    """
    if not isinstance(law, _EXACT_SAMPLING_LAWS):
        raise UnsupportedCombinationError(
            f"numerics='exact' needs a discrete or lattice noise law, got {type(law).__name__}"
        )
    return law.sample_exact(rng, shape)


class AdditiveNoiseMechanism(Mechanism):
    """f(D) + Z with Z i.i.d. per coordinate from the spec's additive noise law.

    Parameters
    ----------
    spec : MechanismSpec
        A spec whose ``noise`` is :class:`~spec.AdditiveNoise`; its law is the one
        sampled, and its ``output_dimension`` d fixes the length of f.
    statistic : callable
        f: validated input → a number (d = 1) or a vector of length d.  For a discrete
        law f must be integer-valued.

    Raises
    ------
    UnsupportedCombinationError
        If the spec's noise is not additive.
    InvalidParameterError
        If ``statistic`` is not callable.

    Notes
    -----
    With a discrete law and ``spec.numerics == "exact"``, the noise comes from the law's
    exact integer sampler ``sample_exact``; otherwise from its vectorised ``sample``.
    Outputs have shape ``(size,)`` for d = 1 and ``(size, d)`` otherwise; they are
    ``int64`` for discrete laws and ``float64`` for continuous ones.

    References
    ----------
    .. [1] Dwork, McSherry, Nissim & Smith, "Calibrating noise to sensitivity in private
       data analysis", TCC 2006 (additive noise calibrated to the sensitivity).

    Examples
    --------
    >>> from privaudit.spec import (MechanismSpec, PureDP, DatasetDomain, RealInterval,
    ...     SubstituteOne, GlobalSensitivity, AdditiveNoise, Laplace)
    >>> n = 100
    >>> spec = MechanismSpec(
    ...     name="noisy_mean", input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1), size=n),
    ...     relation=SubstituteOne(), statistic="mean",
    ...     sensitivity=(GlobalSensitivity(value=1 / n),),
    ...     noise=AdditiveNoise(law=Laplace(scale=1 / n)), guarantee=PureDP(epsilon=1.0))
    >>> mech = AdditiveNoiseMechanism(spec, statistic=np.mean)
    >>> mech.sample(np.full(n, 0.5), size=4, rng=0).shape
    (4,)
    """

    def __init__(self, spec: MechanismSpec, statistic: Statistic) -> None:
        super().__init__(spec)
        if not isinstance(spec.noise, AdditiveNoise):
            raise UnsupportedCombinationError(
                f"AdditiveNoiseMechanism needs a spec with AdditiveNoise, got noise "
                f"{type(spec.noise).__name__}"
            )
        if not callable(statistic):
            raise InvalidParameterError(f"statistic must be callable, got {statistic!r}")
        self._statistic_fn = statistic
        law = spec.noise.law
        self._discrete = bool(law.is_discrete)
        self._exact = self._discrete and spec.numerics == "exact"

    # -- claims --------------------------------------------------------------------------
    @property
    def noise_law(self) -> NoiseLaw:
        """The law of each noise coordinate (``spec.noise.law``)."""
        noise = self.spec.noise
        if not isinstance(noise, AdditiveNoise):  # refused by __init__ already
            raise UnsupportedCombinationError(
                f"AdditiveNoiseMechanism needs a spec with AdditiveNoise, got noise "
                f"{type(noise).__name__}"
            )
        return noise.law

    @property
    def output_dimension(self) -> int:
        """Length d of the statistic and of each output."""
        return self.spec.output_dimension

    @property
    def epsilon(self) -> float | None:
        """ε of the (ε, δ)- or ε-DP claim; ``None`` for a zCDP claim."""
        return getattr(self.spec.guarantee, "epsilon", None)

    @property
    def delta(self) -> float | None:
        """δ of the claim (0 for pure DP); ``None`` for a zCDP claim."""
        return getattr(self.spec.guarantee, "delta", None)

    # -- the statistic ---------------------------------------------------------------------
    def _evaluate(self, data: Any) -> np.ndarray:
        """f(D) on validated data, checked: a finite 0-d (d = 1) or (d,) array."""
        value = np.asarray(self._statistic_fn(data))
        d = self.output_dimension
        if d == 1 and value.shape == (1,):
            value = value.reshape(())
        expected = () if d == 1 else (d,)
        if value.shape != expected:
            raise InvalidInputError(
                f"statistic of {self.name!r} returned shape {value.shape}, expected {expected}"
            )
        if value.dtype.kind not in "iuf":
            raise InvalidInputError(
                f"statistic of {self.name!r} returned non-real values {value!r}"
            )
        if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
            raise InvalidInputError(
                f"statistic of {self.name!r} returned a non-finite value {value!r}"
            )
        if not self._discrete:
            return value.astype(np.float64)
        if value.dtype.kind == "f" and (
            not np.all(value == np.round(value)) or np.any(np.abs(value) >= 2.0**63)
        ):
            raise InvalidInputError(
                f"statistic of {self.name!r} must be integer-valued for the discrete "
                f"{type(self.noise_law).__name__} law, got {value!r}"
            )
        return value.astype(np.int64)

    def statistic(self, data: Any) -> Any:
        """The exact value f(D) the mechanism privatises (gray-box hook).

        Returns a numpy scalar for d = 1 and an array of shape ``(d,)`` otherwise.
        """
        value = self._evaluate(self.validate_input(data))
        return value[()] if value.ndim == 0 else value

    def pipeline(self, data: Any, noise: Any) -> Any:
        """One release as a replay pipeline (gray-box hook): f(D) through one primitive
        that declares the spec's global sensitivity, its norm, the noise law's parameters
        and the spec's guarantee, and draws the spec's law.

        Raises
        ------
        NotImplementedError
            If the spec declares no global sensitivity (a smooth or local claim).
        """
        claim = self.spec.global_sensitivity
        if claim is None:
            raise NotImplementedError(f"{self.name!r} declares no global sensitivity")
        law, exact = self.noise_law, self._exact
        parameters = {
            key: float(value)
            for key, value in law.model_dump().items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
        }
        return noise.primitive(
            self._evaluate(self.validate_input(data)),
            kind=type(law).__name__,
            sensitivity=claim.value,
            norm=claim.norm,
            guarantee=self.spec.guarantee,
            noise=lambda g, shape: _sample_exact(law, g, shape) if exact else law.sample(g, shape),
            parameters=parameters,
        )

    # -- sampling --------------------------------------------------------------------------
    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        value = self._evaluate(data)
        shape: tuple[int, ...] = (
            (size,) if self.output_dimension == 1 else (size, self.output_dimension)
        )
        law = self.noise_law
        noise = _sample_exact(law, rng, shape) if self._exact else law.sample(rng, shape)
        noise += value
        return noise
