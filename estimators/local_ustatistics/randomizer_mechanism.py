"""Protocol A's per-user randomizer as an audited mechanism (finite output law).

One user holds x (a real in [lower, upper] quantized by public bins, or a cell of a
discrete domain) and releases one k-RR report of its cell (Bell, Bellet, Gascón &
Kulkarni, AISTATS 2020, Algorithm 1 and Theorem 2).  The spec is a
:class:`~spec.FiniteRandomizer` under :class:`~spec.LocalRelation`, and the mechanism
exposes its output law through :meth:`output_probabilities`, so the auditor computes its
privacy exactly (:mod:`privaudit.auditing.exact.privacy`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    Categorical,
    FiniteOutputLaw,
    FiniteRandomizer,
    LocalRelation,
    MechanismSpec,
    PureDP,
    RealInterval,
)
from privaudit.spec.errors import InvalidParameterError

from ._references import reference
from .quantization import UniformQuantizer
from .randomizer import KaryRandomizer

__all__ = ["QuantizedRRMechanism", "rr_randomizer_mechanism"]


class QuantizedRRMechanism(Mechanism):
    """k-RR of π(x), run once per user: ε-LDP (Theorem 2), tight for x, x' in different bins.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    cells : int, optional
        k for discrete inputs (the domain is {0..k−1} and π is the identity).
    quantizer : UniformQuantizer, optional
        Public bins for real inputs in [lower, upper] (exactly one of ``cells`` and
        ``quantizer``).
    name, statistic : str
        The spec's name and a description of what the reports feed.
    """

    def __init__(
        self,
        epsilon: float,
        *,
        cells: int | None = None,
        quantizer: UniformQuantizer | None = None,
        name: str = "local_ustat.rr",
        statistic: str = "the user's cell (k-RR report)",
    ) -> None:
        if quantizer is not None and cells is None:
            k = quantizer.bins
        elif cells is not None and quantizer is None:
            k = int(cells)
        else:
            raise InvalidParameterError("give exactly one of cells= and quantizer=")
        self._randomizer = KaryRandomizer(k, epsilon)
        self._quantizer = quantizer
        domain: Any = (
            RealInterval(lo=quantizer.lower, hi=quantizer.upper)
            if quantizer is not None
            else Categorical(size=k)
        )
        what = (
            f"k-RR (k = {k}) of the public-bin index of x in [{quantizer.lower:g}, "
            f"{quantizer.upper:g}]"
            if quantizer is not None
            else f"k-RR over {k} cells"
        )
        spec = MechanismSpec(
            name=name,
            summary=f"Protocol A local randomizer: {what}",
            references=(reference("Algorithm 1; Theorem 2 (epsilon-LDP)"),),
            input_domain=domain,
            relation=LocalRelation(),
            statistic=statistic,
            noise=FiniteRandomizer(
                law=FiniteOutputLaw(
                    alphabet=k,
                    length=1,
                    epsilon=self._randomizer.epsilon,
                    description=f"{what}: keep w.p. e^eps/(k + e^eps - 1), else each other cell "
                    "w.p. 1/(k + e^eps - 1)",
                )
            ),
            guarantee=PureDP(epsilon=self._randomizer.epsilon),
            notes="Inputs in the same bin have identical output laws; quantization is public, "
            "data-independent pre-processing.",
        )
        super().__init__(spec)

    @property
    def randomizer(self) -> KaryRandomizer:
        """The k-RR randomizer (k, ε, β)."""
        return self._randomizer

    @property
    def quantizer(self) -> UniformQuantizer | None:
        """The public bins (``None`` for discrete inputs)."""
        return self._quantizer

    def cell(self, data: Any) -> int:
        """π(x) of one validated input."""
        if self._quantizer is None:
            return int(data)
        return int(self._quantizer.index(data))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self._randomizer.randomize(np.full(size, self.cell(data), dtype=np.int64), rng)

    def output_probabilities(self, data: Any) -> np.ndarray:
        """P(· | x) over the k reports, shape (1, k)."""
        return self._randomizer.probabilities(self.cell(self.validate_input(data)))[None, :]


def rr_randomizer_mechanism(
    epsilon: float,
    *,
    cells: int | None = None,
    bins: int | None = None,
    lower: float = 0.0,
    upper: float = 1.0,
    name: str = "local_ustat.rr",
) -> QuantizedRRMechanism:
    """Protocol A's randomizer: ``cells=k`` for discrete data, ``bins=k`` for [lower, upper]."""
    if bins is not None:
        return QuantizedRRMechanism(
            epsilon, quantizer=UniformQuantizer(lower, upper, bins), name=name
        )
    return QuantizedRRMechanism(epsilon, cells=cells, name=name)
