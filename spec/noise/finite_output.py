"""The declared law of a local randomizer with finitely many outputs.

A local randomizer whose every release is a tuple of ``length`` symbols from the alphabet
{0, …, ``alphabet`` − 1} (one k-ary randomized-response report, a one-bit Hadamard
response with its public row and level, a vector of per-level bits, or the n − 1 reports
of a protocol that re-randomizes per pair) has an output law that can be written down in
full.  The spec declares the alphabet, the number of coordinates and the worst-case
log-likelihood ratio ``epsilon`` the construction delivers; the mechanism exposes the
probabilities themselves through the gray-box hook
:meth:`mechanisms.Mechanism.output_probabilities`, from which the auditor computes the
exact ε and δ(ε) (:mod:`privaudit.auditing.exact_audit`).

The coordinates of one release are independent given the input (a product law): the hook
returns one probability row per coordinate.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .._base import SpecModel
from .._types import ExtendedEpsilon, PositiveInt

__all__ = ["FiniteOutputLaw"]

#: Largest alphabet × length the exact audit and the conformance check handle.
MAX_FINITE_OUTPUTS = 1_000_000


class FiniteOutputLaw(SpecModel):
    """A product law over ``length`` coordinates, each in {0, …, ``alphabet`` − 1}.

    Parameters
    ----------
    alphabet : int
        Number of symbols per coordinate (≥ 1).
    length : int
        Number of independent coordinates of one release (≥ 1).
    epsilon : float or "inf"
        The largest log-likelihood ratio ln P(o | x)/P(o | x') over outputs o and
        neighbouring inputs x, x', as the construction's derivation states it (e.g.
        ε for k-RR with keep probability e^ε/(k + e^ε − 1)).
    description : str
        How the probabilities arise (shown in reports).
    """

    kind: Literal["finite_output"] = "finite_output"
    alphabet: PositiveInt
    length: PositiveInt = 1
    epsilon: ExtendedEpsilon
    description: str = Field(default="", max_length=500)

    @property
    def outputs(self) -> int:
        """Number of distinct releases, ``alphabet ** length`` (may be huge)."""
        return int(self.alphabet) ** int(self.length)

    @property
    def is_discrete(self) -> bool:
        """Always True: the law has finitely many outputs."""
        return True

    @property
    def pure_epsilon(self) -> float:
        """``epsilon`` as a float (``inf`` when the law is not pure DP)."""
        return float(self.epsilon)
