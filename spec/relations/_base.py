"""The interface every neighbouring relation implements: decide and generate.

A relation is a spec model (frozen, hashable, JSON round-trip) that can

* **decide** whether two concrete inputs are neighbours, and say why not
  (:meth:`NeighbouringRelationBase.decide` returns a :class:`NeighbourDecision`);
* **generate** neighbours of an input: at random (:meth:`random_neighbour`), exhaustively
  where the domain is finite and small (:meth:`neighbours`), and random pairs
  (:meth:`random_pair`).

and it owns its **adversarial neighbours**, the moves the auditor's search makes under it
(:mod:`privaudit.auditing.search` asks the relation and never switches on its type):

* :meth:`~NeighbouringRelationBase.adversarial_pairs` — candidate pairs built from the
  domain's extremes, labelled with the pattern's name (``"extreme"``, ``"star_toggle"`` …);
* :meth:`~NeighbouringRelationBase.extreme_neighbours` — the extreme-built neighbours of one
  input, in a fixed order;
* :meth:`~NeighbouringRelationBase.local_moves` — the perturbations of a pair that the
  hill climbing proposes (:class:`LocalMoves`);
* :meth:`~NeighbouringRelationBase.neighbour_strategy` — a hypothesis strategy of pairs,
  for a relation outside the table of :mod:`privaudit.auditing.search.strategies`;
* :meth:`~NeighbouringRelationBase.effective_domain` — the part of the domain the relation
  relates (e.g. graphs within a node relation's own degree bound).

Each has a default, so a new relation needs only :meth:`decide`, the generators and
:meth:`supports_domain`; it earns targeted search by overriding the moves.

Every generated neighbour is a neighbour by :meth:`decide`; the auditor verifies every
pair it uses with :meth:`decide` before sampling.  Relations hold no domain themselves:
the domain is passed in, so one relation serves any domain it supports
(:meth:`supports_domain`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from .._base import SpecModel
from .._random import RandomLike, as_generator

__all__ = ["AdversarialPair", "LocalMoves", "NeighbourDecision", "NeighbouringRelationBase"]

#: A raw adversarial pair ``(x, y, origin)``: two inputs and the name of the pattern
#: that built them (not yet verified; the auditor checks it with :meth:`decide`).
AdversarialPair = tuple[Any, Any, str]


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


@dataclass(frozen=True, slots=True)
class LocalMoves:
    """The local-search moves of a relation at one pair ``(x, y)``.

    Each move is a function of no argument that draws from the generator given to
    :meth:`NeighbouringRelationBase.local_moves` only when called, so a search that picks
    one move draws exactly what that move needs.  A move may return inputs that are not
    neighbours, or ``None`` when it has nothing to offer: the search discards them.

    Attributes
    ----------
    mutate : callable () -> (x′, y′ or None)
        ``x`` changed by one step, and ``y`` carried along when the relation allows
        (``None``: the search redraws a neighbour of ``x′``).
    target : callable () -> object or None
        A neighbour of ``x`` built from extremes, chosen at random.
    nudge : callable () -> object or None
        A small change of ``y`` meant to keep it a neighbour of the fixed ``x``.
    """

    mutate: Callable[[], tuple[Any, Any]]
    target: Callable[[], Any]
    nudge: Callable[[], Any]


def _redrawn_x(redraw: Callable[[], Any]) -> tuple[Any, None]:
    return redraw(), None


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
            :func:`privaudit.auditing.pairs.verified_pair`, which has just validated both): they are
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

    # -- what the search asks (defaults for a relation without moves of its own) ---------
    def effective_domain(self, domain: Any) -> Any:
        """The inputs of ``domain`` this relation relates; ``domain`` itself by default.

        Node relations with their own degree bound return the graph domain with that
        bound folded in; the search samples and builds inputs there.
        """
        return domain

    def adversarial_pairs(
        self,
        domain: Any,
        rng: RandomLike = None,
        budget: int | None = None,
        *,
        claimed_sensitivity: float | None = None,
    ) -> Iterator[AdversarialPair]:
        """Candidate pairs ``(x, y, origin)`` built from extremes, most telling first.

        The default pairs each of :meth:`effective_domain`'s extremes with each of its
        :meth:`extreme_neighbours`, origin ``"extreme"``.  The pairs are raw (the search
        verifies them and drops repeats and non-neighbours) and generated lazily.

        Parameters
        ----------
        domain : object
            The input domain.
        rng : Generator, int or None
            For relations whose patterns are random (the built-in ones are deterministic
            and draw nothing).
        budget : int, optional
            How many pairs the caller will keep at most: a hint, the caller stops
            iterating anyway.
        claimed_sensitivity : float, optional
            The mechanism's claimed global sensitivity, a hint for patterns that depend
            on it (the degree thresholds of the node relations).
        """
        def generate() -> Iterator[AdversarialPair]:
            for x in self.effective_domain(domain).extremes():
                for y in self.extreme_neighbours(x, domain):
                    yield x, y, "extreme"

        return generate()

    def extreme_neighbours(self, x: Any, domain: Any) -> Iterable[Any]:
        """Neighbours of ``x`` built from extremes, in a fixed order; none by default.

        Used by the search over the neighbours of one input (local sensitivity), before
        its random and hill-climbing phases, and by the default :meth:`adversarial_pairs`.
        """
        return ()

    def local_moves(self, x: Any, y: Any, domain: Any, rng: RandomLike) -> LocalMoves:
        """The hill-climbing moves at the pair ``(x, y)`` (see :class:`LocalMoves`).

        The default moves all redraw: ``mutate`` replaces ``x`` by a
        :meth:`random_neighbour` (and lets the search redraw ``y``), ``target`` and
        ``nudge`` return a random neighbour of ``x``.
        """
        redraw = partial(self.random_neighbour, x, domain, as_generator(rng))
        return LocalMoves(mutate=partial(_redrawn_x, redraw), target=redraw, nudge=redraw)

    def neighbour_strategy(self, domain: Any) -> Any:
        """A hypothesis strategy of neighbouring pairs ``(x, y)``, or ``None``.

        ``None`` (the default) lets :func:`privaudit.auditing.search.neighbouring_pairs` use its
        own strategy for the built-in relations.  A new relation may return a strategy
        here (it must import ``hypothesis`` itself: ``spec`` does not depend on it).
        """
        return None

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
