"""The declared law of a local randomizer with finitely many outputs.

A local randomizer whose every release is a tuple of ``length`` symbols (coordinate c in
{0, …, ``alphabets[c]`` − 1}, one alphabet for all coordinates by default: one k-ary
randomized-response report, a one-bit Hadamard response with its public row and level, a
vector of per-level bits, or the n − 1 reports of a protocol that re-randomizes per pair)
has an output law that can be written down in full.  The spec declares the alphabet(s),
the number of coordinates, whether the coordinates are independent given the input, and
the worst-case log-likelihood ratio ``epsilon`` the construction delivers (omit it inside
a :class:`~spec.MechanismSpec` with a pure claim and it is taken from the claim: ε is
stated once); the mechanism exposes the probabilities through the gray-box hook
:meth:`mechanisms.Mechanism.output_probabilities`, from which the auditor computes the
exact ε and δ(ε) (:mod:`privaudit.auditing.exact.privacy`).

With ``independent=True`` (the default) the law is the product of the hook's rows, one
per coordinate: the exact audit relies on it and the conformance check tests the joint
law of sampled tuples, not only the marginals.  With ``independent=False`` the rows are
only the marginals: no exact audit is possible, and the audit is statistical.

The hook returns an array of shape (``length``, max alphabet); with per-coordinate
alphabets, row c is zero beyond ``alphabets[c]``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_serializer, model_validator

from .._base import SpecModel
from .._types import ExtendedEpsilon, PositiveInt

__all__ = ["FiniteOutputLaw"]

#: Largest alphabet × length the exact audit and the conformance check handle.
MAX_FINITE_OUTPUTS = 1_000_000


class FiniteOutputLaw(SpecModel):
    """A law over ``length`` coordinates, coordinate c in {0, …, ``alphabets[c]`` − 1}.

    Parameters
    ----------
    alphabet : int, optional
        Number of symbols per coordinate (≥ 1); with ``alphabets``, their maximum (derived
        when omitted).
    length : int
        Number of coordinates of one release (≥ 1; derived from ``alphabets`` when
        omitted).
    epsilon : float or "inf", optional
        The largest log-likelihood ratio ln P(o | x)/P(o | x') over outputs o and
        neighbouring inputs x, x', as the construction's derivation states it (e.g.
        ε for k-RR with keep probability e^ε/(k + e^ε − 1)).  Omitted: taken from the pure
        claim of the :class:`~spec.MechanismSpec` that holds the law.
    description : str
        How the probabilities arise (shown in reports).
    alphabets : tuple of int, optional
        Per-coordinate alphabet sizes, when they differ.
    independent : bool
        Whether the coordinates are independent given the input (default True: the hook's
        rows define a product law).
    """

    kind: Literal["finite_output"] = "finite_output"
    alphabet: PositiveInt
    length: PositiveInt = 1
    epsilon: ExtendedEpsilon | None = None
    description: str = Field(default="", max_length=500)
    alphabets: tuple[PositiveInt, ...] | None = None
    independent: bool = True

    @model_validator(mode="before")
    @classmethod
    def _derive_shape(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("alphabets") is not None:
            sizes = tuple(data["alphabets"])
            data = dict(data)
            if sizes and all(isinstance(a, int) and not isinstance(a, bool) for a in sizes):
                data.setdefault("alphabet", max(sizes))
                data.setdefault("length", len(sizes))
        return data

    @model_validator(mode="after")
    def _check_alphabets(self) -> FiniteOutputLaw:
        if self.alphabets is not None:
            if len(self.alphabets) != self.length:
                raise ValueError(
                    f"alphabets lists {len(self.alphabets)} sizes for length = "
                    f"{self.length} coordinates"
                )
            if max(self.alphabets) != self.alphabet:
                raise ValueError(
                    f"alphabet = {self.alphabet} must be the largest of the "
                    f"alphabets {list(self.alphabets)}"
                )
        return self

    @model_serializer(mode="wrap")
    def _omit_defaults(self, handler: Any) -> Any:
        # the fields added by issue 27 are left out at their defaults, so that every law
        # declared before them keeps its content hash (and its certificate)
        data = handler(self)
        if isinstance(data, dict):
            if data.get("alphabets") is None:
                data.pop("alphabets", None)
            if data.get("independent") is True:
                data.pop("independent", None)
        return data

    @property
    def coordinate_alphabets(self) -> tuple[int, ...]:
        """The alphabet size of each coordinate."""
        return (
            self.alphabets
            if self.alphabets is not None
            else (int(self.alphabet),) * int(self.length)
        )

    @property
    def outputs(self) -> int:
        """Number of distinct releases, the product of the alphabets (may be huge)."""
        total = 1
        for a in self.coordinate_alphabets:
            total *= int(a)
        return total

    @property
    def is_discrete(self) -> bool:
        """Always True: the law has finitely many outputs."""
        return True

    @property
    def pure_epsilon(self) -> float:
        """``epsilon`` as a float (``inf`` when the law is not pure DP or ε is not stated)."""
        return float("inf") if self.epsilon is None else float(self.epsilon)
