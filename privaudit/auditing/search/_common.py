"""Helpers shared by the search modules: pair keys, checked construction, the pair registry.

Nothing here draws random numbers or depends on the relation: what a pair of inputs looks
like under a relation (where it differs, which node is rewired) is the relation's own
business (:mod:`spec.relations`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

from privaudit.auditing.pairs import CandidatePair, to_jsonable, verified_pair
from privaudit.spec import MechanismSpec
from privaudit.spec.errors import InvalidInputError, InvalidParameterError

__all__ = [
    "PairKey",
    "PairRegistry",
    "check_count",
    "ordered_key",
    "score_order",
    "try_pair",
    "unordered_key",
]

#: The canonical key of an ordered pair: the reprs of both inputs' JSON forms.
PairKey = tuple[str, str]


def ordered_key(x: Any, y: Any) -> PairKey:
    """``(repr(to_jsonable(x)), repr(to_jsonable(y)))``."""
    return repr(to_jsonable(x)), repr(to_jsonable(y))


def unordered_key(x: Any, y: Any) -> PairKey:
    """The ordered key of ``(x, y)`` or of ``(y, x)``, whichever sorts first."""
    forward = ordered_key(x, y)
    backward = (forward[1], forward[0])
    return min(forward, backward)


def check_count(value: Any, name: str, minimum: int) -> int:
    """Return ``value`` as an int ``≥ minimum``, or raise naming it.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not an integer (booleans are refused) or is below ``minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def try_pair(spec: MechanismSpec, x: Any, y: Any, origin: str) -> CandidatePair | None:
    """A verified pair of *distinct* neighbours, or ``None`` when ``(x, y)`` is not one.

    Inputs outside the domain, unrelated inputs and identical inputs (distance 0) all
    give ``None``: generators use this to discard what they should not return.
    """
    if x is None or y is None:
        return None
    try:
        pair = verified_pair(spec, x, y, origin)
    except InvalidInputError:
        return None
    return pair if pair.decision.distance > 0 else None


def score_order(pair: CandidatePair) -> float:
    """Sort key for "best first": the negated score, with ``nan`` after everything."""
    return math.inf if math.isnan(pair.score) else -pair.score


class PairRegistry:
    """Distinct pairs in the order they were first added (a pair and its swap count once).

    Parameters
    ----------
    capacity : int or None
        Largest number of pairs kept; :meth:`add` refuses more unless forced.
    """

    def __init__(self, capacity: int | None = None) -> None:
        self.capacity = capacity
        self.pairs: list[CandidatePair] = []
        self._keys: set[PairKey] = set()

    def __len__(self) -> int:
        return len(self.pairs)

    @property
    def full(self) -> bool:
        """True when no more pairs fit."""
        return self.capacity is not None and len(self.pairs) >= self.capacity

    def add(self, pair: CandidatePair | None, *, force: bool = False) -> bool:
        """Keep ``pair`` if it is new (and, unless ``force``, there is room); True if kept."""
        if pair is None or (self.full and not force):
            return False
        key = unordered_key(pair.x, pair.y)
        if key in self._keys:
            return False
        self._keys.add(key)
        self.pairs.append(pair)
        return True

    def add_all(self, pairs: Iterable[CandidatePair | None]) -> None:
        """:meth:`add` each pair until full."""
        for pair in pairs:
            if self.full:
                return
            self.add(pair)
