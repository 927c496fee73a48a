"""Declare a new mechanism in a few lines: a spec plus a batched sampling function.

>>> import numpy as np
>>> from spec import (MechanismSpec, PureDP, DatasetDomain, RealInterval, SubstituteOne,
...                   GlobalSensitivity, AdditiveNoise, Laplace)
>>> from mechanisms import declare_mechanism
>>> n, eps = 100, 1.0
>>> spec = MechanismSpec(
...     name="noisy_mean", input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1), size=n),
...     relation=SubstituteOne(), statistic="mean of the records",
...     sensitivity=(GlobalSensitivity(value=1 / n),),
...     noise=AdditiveNoise(law=Laplace(scale=1 / (n * eps))), guarantee=PureDP(epsilon=eps))
>>> noisy_mean = declare_mechanism(
...     spec, sampler=lambda x, size, rng: x.mean() + rng.laplace(0.0, 1 / (n * eps), size),
...     statistic=lambda x: x.mean())
>>> noisy_mean.sample(np.full(n, 0.5), size=3, rng=0).shape
(3,)

The sampler receives the *validated* input, the number of outputs and a
``numpy.random.Generator``, and must return ``size`` outputs in one call.  Nothing ties the
sampler to the spec except the auditor: that is the point of auditing it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spec import MechanismSpec
from spec.errors import InvalidInputError, InvalidParameterError

from ._base import Mechanism

__all__ = ["FunctionMechanism", "declare_mechanism"]

Sampler = Callable[[Any, int, np.random.Generator], Any]


class FunctionMechanism(Mechanism):
    """A mechanism made of a spec and plain functions (see :func:`declare_mechanism`)."""

    def __init__(
        self,
        spec: MechanismSpec,
        sampler: Sampler,
        *,
        statistic: Callable[[Any], Any] | None = None,
        local_sensitivity_bound: Callable[[Any], float] | None = None,
        smooth_sensitivity: Callable[[Any], float] | None = None,
        output_probabilities: Callable[[Any], Any] | None = None,
    ) -> None:
        super().__init__(spec)
        for name, fn in (("sampler", sampler), ("statistic", statistic),
                         ("local_sensitivity_bound", local_sensitivity_bound),
                         ("smooth_sensitivity", smooth_sensitivity),
                         ("output_probabilities", output_probabilities)):
            if fn is not None and not callable(fn):
                raise InvalidParameterError(f"{name} must be callable, got {fn!r}")
        self._sampler = sampler
        self._statistic = statistic
        self._local = local_sensitivity_bound
        self._smooth = smooth_sensitivity
        self._probabilities = output_probabilities

    def provides(self, hook: str) -> bool:
        super().provides(hook)  # validates the name
        return {"statistic": self._statistic, "local_sensitivity_bound": self._local,
                "smooth_sensitivity": self._smooth,
                "output_probabilities": self._probabilities}.get(hook) is not None

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        out = np.asarray(self._sampler(data, size, rng))
        if out.ndim == 0 or out.shape[0] != size:
            raise InvalidInputError(
                f"sampler of {self.name!r} returned shape {out.shape}, expected ({size}, ...)")
        return out

    def statistic(self, data: Any) -> Any:
        if self._statistic is None:
            return super().statistic(data)
        return self._statistic(self.validate_input(data))

    def local_sensitivity_bound(self, data: Any) -> float:
        if self._local is None:
            return super().local_sensitivity_bound(data)
        return float(self._local(self.validate_input(data)))

    def smooth_sensitivity(self, data: Any) -> float:
        if self._smooth is None:
            return super().smooth_sensitivity(data)
        return float(self._smooth(self.validate_input(data)))

    def output_probabilities(self, data: Any) -> np.ndarray:
        if self._probabilities is None:
            return super().output_probabilities(data)
        return np.asarray(self._probabilities(self.validate_input(data)), dtype=np.float64)


def declare_mechanism(
    spec: MechanismSpec,
    sampler: Sampler,
    *,
    statistic: Callable[[Any], Any] | None = None,
    local_sensitivity_bound: Callable[[Any], float] | None = None,
    smooth_sensitivity: Callable[[Any], float] | None = None,
    output_probabilities: Callable[[Any], Any] | None = None,
) -> FunctionMechanism:
    """Declare a mechanism from its spec and a batched sampling function.

    Parameters
    ----------
    spec : MechanismSpec
        The claims (validated for internal consistency when it was built).
    sampler : callable ``(data, size, rng) -> array``
        Draws ``size`` independent outputs on validated ``data`` with the Generator ``rng``.
    statistic, local_sensitivity_bound, smooth_sensitivity : callable, optional
        The gray-box hooks the auditor uses to check the sensitivity claims.
    output_probabilities : callable, optional
        ``data -> array (length, alphabet)``: the exact output law of a finite randomizer
        (:class:`~spec.FiniteRandomizer` specs), used by the exact audit.

    Returns
    -------
    FunctionMechanism
    """
    return FunctionMechanism(spec, sampler, statistic=statistic,
                             local_sensitivity_bound=local_sensitivity_bound,
                             smooth_sensitivity=smooth_sensitivity,
                             output_probabilities=output_probabilities)
