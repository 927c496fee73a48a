"""Accuracy claims: "with probability ≥ 1 − β the error is at most α".

An :class:`AccuracyClaim` is data, like a privacy claim: the norm of the error, the bound
α, the failure probability β, what the error is measured against (the non-private
statistic f(x) of the mechanism's own input, or a population parameter), the source of
the bound and, optionally, the name of a registered minimax lower bound for the same
problem (:func:`privaudit.mechanisms.lower_bounds.accuracy_lower_bound`).  A
:class:`~spec.MechanismSpec` holds at most one, in its optional ``accuracy`` field; a spec
without one hashes exactly as before the field existed.  The auditor tests a claim
against f(x) with an exact binomial bound on the failure frequency
(:mod:`privaudit.auditing.checks.accuracy`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_validator

from ._base import SpecModel
from ._types import check_alpha, check_positive
from .references import Reference

__all__ = ["AccuracyClaim", "AccuracyTarget", "ErrorNorm"]

#: How the error of one release is measured: ``absolute`` |M − t| (scalar releases),
#: ``l1``, ``l2`` or ``linf`` norm of M − t (vector releases).
ErrorNorm = Literal["absolute", "l1", "l2", "linf"]

#: What the error is measured against: ``statistic``, the non-private f(x) of the very
#: input the mechanism ran on (the auditor checks it with the ``statistic`` hook), or
#: ``population``, a parameter of the law that drew the data (not checkable on a fixed
#: input; the auditor says so).
AccuracyTarget = Literal["statistic", "population"]


class AccuracyClaim(SpecModel):
    """P[error > ``bound``] ≤ ``failure_probability`` for every input of the domain.

    Parameters
    ----------
    error : {"absolute", "l1", "l2", "linf"}
        The norm of the error M(x) − t.
    bound : float
        α > 0, finite: the error bound at the spec's parameters (n, ε, δ, β).
    failure_probability : float
        β ∈ (0, 1).
    target : {"statistic", "population"}
        What t is (:data:`AccuracyTarget`).
    source : Reference
        Where α(n, ε, δ, β) comes from (paper and equation, or ``docs/derivations.md``).
    formula : str, optional
        α as a formula of the parameters, for the reader (e.g. ``"(b − a)/(nε) · ln(1/β)"``).
    lower_bound : str, optional
        The name of a registered lower bound for the same problem
        (:data:`privaudit.mechanisms.lower_bounds.LOWER_BOUNDS`); the report then shows the
        efficiency ratio α ÷ lower bound and measured quantile ÷ lower bound.

    Raises
    ------
    InvalidParameterError
        α not finite and > 0, or β ∉ (0, 1) (the message names the value).
    """

    error: ErrorNorm = "absolute"
    bound: float
    failure_probability: float
    target: AccuracyTarget = "statistic"
    source: Reference
    formula: str = ""
    lower_bound: str = ""

    @field_validator("bound", mode="before")
    @classmethod
    def _finite_positive_bound(cls, value: Any) -> float:
        return check_positive(value, "the accuracy bound alpha")

    @field_validator("failure_probability", mode="before")
    @classmethod
    def _open_unit_probability(cls, value: Any) -> float:
        return check_alpha(value, "the failure probability beta")

    def describe(self) -> str:
        """One line: ``P[|M − f(x)| > α] ≤ β`` with the numbers and the formula."""
        norm = {"absolute": "|M − {t}|", "l1": "‖M − {t}‖₁", "l2": "‖M − {t}‖₂"}.get(
            self.error, "‖M − {t}‖∞"
        )
        t = "f(x)" if self.target == "statistic" else "θ(P)"
        text = f"P[{norm.format(t=t)} > {self.bound:.6g}] ≤ {self.failure_probability:g}"
        return text + (f" (α = {self.formula})" if self.formula else "")
