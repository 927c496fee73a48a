"""Sensitivity claims: global, local-bound and β-smooth.

A claim is data: it names what the mechanism promises about the statistic f it
privatises, under the mechanism spec's neighbouring relation.  The auditor checks each
claim against the mechanism's own ``statistic`` (and, for local and smooth claims, its
``local_sensitivity_bound`` / ``smooth_sensitivity`` functions) on adversarial pairs:

* :class:`GlobalSensitivity` — ‖f(D) − f(D′)‖ ≤ Δ for all neighbours D ~ D′ (eq. (5) of
  Chaudhuri et al. 2024);
* :class:`LocalSensitivityBound` — LS_f(D) = max_{D′ ~ D} ‖f(D) − f(D′)‖ ≤ B(D) for all D;
* :class:`SmoothSensitivityBound` — S is a β-smooth upper bound on LS_f: S(D) ≥ LS_f(D)
  for all D and S(D) ≤ e^β S(D′) for all neighbours (Nissim, Raskhodnikova & Smith 2007,
  Def. 2.1).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ._base import SpecModel
from ._types import PositiveFloat

__all__ = [
    "GlobalSensitivity",
    "LocalSensitivityBound",
    "SensitivityClaim",
    "SensitivityNorm",
    "SmoothSensitivityBound",
]

#: The norm in which a difference of statistic values is measured.
SensitivityNorm = Literal["l1", "l2", "linf"]


class GlobalSensitivity(SpecModel):
    """Global sensitivity: ‖f(D) − f(D′)‖_norm ≤ ``value`` for every pair of neighbours.

    Parameters
    ----------
    value : float
        Δ > 0.
    norm : {"l1", "l2", "linf"}
        The norm of the difference (all coincide for scalar statistics).
    """

    kind: Literal["global"] = "global"
    value: PositiveFloat
    norm: SensitivityNorm = "l1"


class LocalSensitivityBound(SpecModel):
    """A data-dependent bound B(D) ≥ LS_f(D), computed by the mechanism.

    Parameters
    ----------
    norm : {"l1", "l2", "linf"}
        The norm of the difference.
    description : str
        What B is, with the paper and equation it comes from.
    """

    kind: Literal["local_bound"] = "local_bound"
    norm: SensitivityNorm = "l1"
    description: str = ""


class SmoothSensitivityBound(SpecModel):
    """A β-smooth upper bound S on the local sensitivity, computed by the mechanism.

    The claim is S(D) ≥ LS_f(D) for all D and S(D) ≤ e^β S(D′) for all neighbours.

    Parameters
    ----------
    beta : float
        The smoothness parameter β > 0.
    norm : {"l1", "l2", "linf"}
        The norm of the difference.
    description : str
        What S is, with the paper and equation it comes from.
    """

    kind: Literal["smooth"] = "smooth"
    beta: PositiveFloat
    norm: SensitivityNorm = "l1"
    description: str = ""


SensitivityClaim = Annotated[
    GlobalSensitivity | LocalSensitivityBound | SmoothSensitivityBound,
    Field(discriminator="kind"),
]
"""Any sensitivity claim, as a pydantic discriminated union on ``kind``."""
