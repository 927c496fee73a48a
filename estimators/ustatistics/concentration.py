"""Concentration radii ξ: explicit, term-by-term bounds on max_i |ĥ(i) − A_n|.

Algorithm 1 of Chaudhuri, Loh, Pandey & Sarkar (2024) needs a data-independent ξ with
max_i |ĥ(i) − A_n| ≤ ξ with probability ≥ 1 − γ (γ = 0.01 inside Wrapper 1).  Privacy
holds for *any* data-independent ξ; ξ only decides utility (Theorem 2 of Chaudhuri et al. 2024).
The applications compute ξ as a sum of explicit terms (a Bernstein bound on every ĥ(i)
around its conditional mean, a bound on the spread of the conditional means, and a
Chebyshev bound on |U_n − θ|); :class:`ConcentrationRadius` keeps the terms so that a
report or a test can show each of them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.stable_values import round_up

from ._parameters import check_failure_probability

__all__ = [
    "INNER_FAILURE_PROBABILITY",
    "ConcentrationRadius",
    "bernstein_range_term",
    "bernstein_variance_term",
    "chebyshev_mean_term",
    "check_failure_probability",
    "check_integer_at_least",
    "union_bound_log_term",
]

#: γ, the constant failure probability of the inner algorithms (Chaudhuri et al. 2024, Wrapper 1).
INNER_FAILURE_PROBABILITY = 0.01


def check_integer_at_least(value: object, minimum: int, message: str) -> int:
    """Return ``value`` as an int ≥ ``minimum``; otherwise raise ``message`` (which names it).

    Booleans are rejected (they are integers to Python, never a size).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < minimum:
        raise InvalidParameterError(message)
    return int(value)


def union_bound_log_term(n: int, gamma: float) -> float:
    """L = ln(4n/γ): Bernstein's exponent for n events at failure γ/(2n) each (union bound)."""
    return math.log(4.0 * n / gamma)


def bernstein_variance_term(variance: float, log_term: float, count: float) -> float:
    """√(2σ²L/m), the variance term of Bernstein's inequality for a mean of m terms."""
    return math.sqrt(2.0 * variance * log_term / count)


def bernstein_range_term(log_term: float, count: float) -> float:
    """(2/3)·L/m, the range term of Bernstein's inequality for a mean of m terms in [0, 1]."""
    return (2.0 / 3.0) * log_term / count


def chebyshev_mean_term(variance: float, gamma: float) -> float:
    """√(2·Var/γ): Chebyshev's bound on |U_n − θ| with probability ≥ 1 − γ/2."""
    return math.sqrt(2.0 * variance / gamma)


@dataclass(frozen=True)
class ConcentrationRadius:
    """A concentration radius ξ and the terms it is the sum of.

    Attributes
    ----------
    value : float
        ξ, the sum of ``terms`` (:meth:`from_terms` rounds it up to the stable grid of
        :mod:`spec.stable_values`: a public parameter that specs' notes record).
    terms : mapping of str to float
        Each explicit term, by name (read-only).
    n : int
        The sample (chunk) size the radius is for.
    failure_probability : float
        γ: ξ bounds max_i |ĥ(i) − A_n| with probability ≥ 1 − γ under the model.
    source : str
        The lemma or section the terms come from.
    """

    value: float
    terms: Mapping[str, float] = field(repr=False)
    n: int
    failure_probability: float
    source: str

    def __post_init__(self) -> None:
        frozen = MappingProxyType({str(k): float(v) for k, v in self.terms.items()})
        object.__setattr__(self, "terms", frozen)
        total = math.fsum(frozen.values())
        if not (
            math.isclose(total, self.value, rel_tol=1e-12, abs_tol=0.0)
            or self.value == round_up(total)
        ):
            raise InvalidParameterError(
                f"a concentration radius must equal the sum of its terms: value "
                f"{self.value!r} but the terms sum to {total!r}"
            )

    @classmethod
    def from_terms(
        cls, terms: Mapping[str, float], *, n: int, failure_probability: float, source: str
    ) -> ConcentrationRadius:
        """Build the radius whose value is the (compensated) sum of ``terms``, rounded up
        to the stable grid (the terms come from libm's log and sqrt; a larger ξ keeps the
        bound)."""
        return cls(
            value=round_up(math.fsum(float(v) for v in terms.values())),
            terms=terms,
            n=n,
            failure_probability=failure_probability,
            source=source,
        )

    def __float__(self) -> float:
        return float(self.value)
