"""Noise laws: every law's density, CDF, quantile, sampler and privacy profile, once.

* :mod:`spec.noise.continuous` — :class:`Laplace`, :class:`Gaussian`,
  :class:`InverseQuartic`, :class:`Gumbel`, :class:`Exponential`;
* :mod:`spec.noise.discrete` — :class:`DiscreteLaplace`, :class:`DiscreteGaussian`
  (vectorised samplers plus exact CKS20 samplers);
* :mod:`spec.noise.lattice` — :class:`LatticeLaplace`, :class:`LatticeGaussian`, the
  discrete laws on a power-of-two lattice g·ℤ of the float-safe mechanisms;
* :mod:`spec.noise.randomized_response` — :class:`RandomizedResponseLaw`, a conditional
  law on categories (not additive);
* :mod:`spec.noise.finite_output` — :class:`FiniteOutputLaw`, the declared product law
  of a local randomizer with finitely many outputs (probabilities from a gray-box hook);
* :data:`AdditiveNoiseLaw` — the discriminated union of the additive laws (on ``kind``),
  for use as a pydantic field type.
"""

from __future__ import annotations

from typing import Annotated as _Annotated
from typing import Union as _Union

from pydantic import Field as _Field

from ._base import NoiseLaw
from .continuous import Exponential, Gaussian, Gumbel, InverseQuartic, Laplace
from .discrete import DiscreteGaussian, DiscreteLaplace
from .finite_output import FiniteOutputLaw
from .lattice import LatticeGaussian, LatticeLaplace
from .randomized_response import RandomizedResponseLaw

__all__ = [
    "AdditiveNoiseLaw",
    "DiscreteGaussian",
    "DiscreteLaplace",
    "Exponential",
    "FiniteOutputLaw",
    "Gaussian",
    "Gumbel",
    "InverseQuartic",
    "Laplace",
    "LatticeGaussian",
    "LatticeLaplace",
    "NoiseLaw",
    "RandomizedResponseLaw",
]

#: Any additive noise law, discriminated by its ``kind`` field (a pydantic field type).
AdditiveNoiseLaw = _Annotated[
    _Union[  # noqa: UP007 - a runtime Union keeps the discriminator explicit
        Laplace,
        Gaussian,
        InverseQuartic,
        Gumbel,
        Exponential,
        DiscreteLaplace,
        DiscreteGaussian,
        LatticeLaplace,
        LatticeGaussian,
    ],
    _Field(discriminator="kind"),
]
