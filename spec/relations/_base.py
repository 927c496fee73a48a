"""The interface every neighbouring relation implements: decide and generate.

A relation is a spec model (frozen, hashable, JSON round-trip) that can

* **decide** whether two concrete inputs are neighbours, and say why not
  (:meth:`NeighbouringRelationBase.decide` returns a :class:`NeighbourDecision`);
* **generate** neighbours of an input: at random (:meth:`random_neighbour`), exhaustively
  where the domain is finite and small (:meth:`neighbours`), and random pairs
  (:meth:`random_pair`).

Every generated neighbour is a neighbour by :meth:`decide`; the auditor verifies every
pair it uses with :meth:`decide` before sampling.  Relations hold no domain themselves:
the domain is passed in, so one relation serves any domain it supports
(:meth:`supports_domain`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .._base import SpecModel
from .._random import RandomLike

__all__ = ["NeighbourDecision", "NeighbouringRelationBase"]


@dataclass(frozen=True, slots=True)
class NeighbourDecision:
    """Whether two inputs are neighbours under a relation, and why (not).

    Attributes
    ----------
    is_neighbour : bool
        True when the pair is related (identical inputs count as neighbours at distance 0).
    reason : str
        A human-readable explanation naming the offending difference when not related,
        or describing the difference when related (e.g. ``"records differ at index 3"``).
    distance : float
        The relation's own distance between the inputs (Hamming distance, number of
        differing edges, norm of the difference, …), ``inf`` when undefined.
    """

    is_neighbour: bool
    reason: str
    distance: float

    def __bool__(self) -> bool:
        return self.is_neighbour


class NeighbouringRelationBase(SpecModel):
    """Abstract base of neighbouring relations (subclasses add a ``kind`` literal)."""

    @staticmethod
    def _validated_inputs(domain: Any, x: Any, y: Any, validated: bool) -> tuple[Any, Any]:
        """``x`` and ``y`` validated against ``domain`` — as given when the caller says
        they already are (``validated`` of :meth:`decide`)."""
        if validated:
            return x, y
        return domain.validate(x), domain.validate(y)

    @abstractmethod
    def supports_domain(self, domain: Any) -> bool:
        """True when this relation is defined on inputs of ``domain``."""

    @abstractmethod
    def decide(
        self, x: Any, y: Any, domain: Any, *, validated: bool = False
    ) -> NeighbourDecision:
        """Decide whether ``x`` and ``y`` (both validated against ``domain``) are neighbours.

        Parameters
        ----------
        x, y : object
            The two inputs.
        domain : object
            The domain both belong to.
        validated : bool
            True when ``x`` and ``y`` are already the canonical values that
            ``domain.validate`` returned for them (as in
            :func:`privaudit.pairs.verified_pair`, which has just validated both): they are
            then not validated a second time.  Whether the relation is defined on
            ``domain`` is checked either way.  The decision on inputs passed as validated
            that ``domain.validate`` would refuse or change is unspecified.

        Raises
        ------
        InvalidInputError
            If ``x`` or ``y`` is not a valid element of ``domain`` (unless ``validated``).
        UnsupportedCombinationError
            If the relation is not defined on ``domain``.
        """

    @abstractmethod
    def random_neighbour(self, x: Any, domain: Any, rng: RandomLike) -> Any:
        """A random neighbour of ``x`` that differs from ``x`` whenever any does."""

    @abstractmethod
    def neighbours(self, x: Any, domain: Any) -> Iterator[Any]:
        """Every neighbour of ``x`` other than ``x`` itself, each once.

        Raises
        ------
        UnsupportedCombinationError
            If the set of neighbours is infinite (e.g. real-valued records).
        """

    def random_pair(self, domain: Any, rng: RandomLike) -> tuple[Any, Any]:
        """A random element of ``domain`` and a random neighbour of it."""
        from .._random import as_generator

        gen = as_generator(rng)
        x = domain.sample(gen)
        return x, self.random_neighbour(x, domain, gen)

    def require_neighbours(
        self, x: Any, y: Any, domain: Any, *, validated: bool = False
    ) -> NeighbourDecision:
        """Like :meth:`decide` (same ``validated``), but raise :class:`NotNeighboursError`
        when not related."""
        from ..errors import NotNeighboursError

        decision = self.decide(x, y, domain, validated=validated)
        if not decision.is_neighbour:
            raise NotNeighboursError(f"{type(self).__name__}: not neighbours: {decision.reason}")
        return decision
