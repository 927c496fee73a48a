"""Candidate neighbouring pairs: the user's own, adversarial ones from extremes, then random.

:func:`candidate_pairs` lists the pairs an audit starts from, best guesses first: the
user's explicit pairs, the relation's
:meth:`~spec.relations.NeighbouringRelationBase.adversarial_pairs`, then random pairs until
the budget is reached.  Pairs are deduplicated (a pair and its swap count once) and built by
:func:`~privaudit.auditing.pairs.verified_pair`.

Details (the origins of adversarial pairs): ``docs/engine_notes.md``,
"privaudit.auditing.search.pair_sources".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from privaudit.auditing.pairs import CandidatePair, to_jsonable, verified_pair
from privaudit.auditing.search._common import PairRegistry, check_count, try_pair
from privaudit.spec import MechanismSpec, RandomLike, as_generator
from privaudit.spec.errors import InvalidInputError
from privaudit.spec.relations import AdversarialPair

__all__ = ["RANDOM_MISS_LIMIT", "candidate_pairs", "extreme_pairs"]

#: Consecutive repeated random pairs after which the random phase gives up (small domains).
RANDOM_MISS_LIMIT = 64

#: Random draws allowed per pair of the budget (repeats and identical pairs are redrawn).
_RANDOM_TRIES_PER_PAIR = 20
#: Characters of each input shown when an explicit pair is refused.
_SHOWN_CHARACTERS = 60


def candidate_pairs(
    spec: MechanismSpec,
    rng: RandomLike,
    *,
    budget: int = 64,
    explicit_pairs: Iterable[Any] = (),
) -> list[CandidatePair]:
    """Explicit, adversarial and random neighbouring pairs, at most ``budget`` generated.

    Parameters
    ----------
    spec : MechanismSpec
        Supplies the input domain and the neighbouring relation.
    rng : Generator, int or None
        The only source of randomness (used for the random phase).
    budget : int
        Largest number of pairs returned.  Explicit pairs are always all returned and
        count towards the budget, so more explicit pairs than ``budget`` leaves no room
        for generated ones.
    explicit_pairs : iterable of (x, y) or CandidatePair
        Pairs the user wants audited; they come first, with origin ``"explicit"``.

    Returns
    -------
    list of CandidatePair
        Distinct verified pairs: explicit, then adversarial, then random.

    Raises
    ------
    InvalidParameterError
        If ``budget`` is not an integer ``≥ 0``.
    NotNeighboursError
        If an explicit pair is not related; the message gives its position and reason.
    InvalidInputError
        If an explicit input is not in the domain (or the pair is not a 2-tuple).
    """
    budget = check_count(budget, "budget", 0)
    gen = as_generator(rng)
    registry = PairRegistry(capacity=budget)
    for index, item in enumerate(explicit_pairs):
        registry.add(_explicit_pair(spec, index, item), force=True)
    adversarial = extreme_pairs(spec, gen, budget)
    registry.add_all(try_pair(spec, x, y, origin) for x, y, origin in adversarial)
    misses = 0
    for _ in range(_RANDOM_TRIES_PER_PAIR * budget):
        if registry.full or misses >= RANDOM_MISS_LIMIT:
            break
        x, y = spec.relation.random_pair(spec.input_domain, gen)
        misses = 0 if registry.add(try_pair(spec, x, y, "random")) else misses + 1
    return registry.pairs


def _explicit_pair(spec: MechanismSpec, index: int, item: Any) -> CandidatePair:
    """Verify the user's pair number ``index``, re-raising with its position in the message."""
    if isinstance(item, CandidatePair):
        x, y = item.x, item.y
    else:
        try:
            x, y = item
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"explicit pair {index} must be an (x, y) pair, got {type(item).__name__}"
            ) from None
    try:
        return verified_pair(spec, x, y, "explicit")
    except InvalidInputError as err:
        shown = f"x={_short(x)}, y={_short(y)}"
        raise type(err)(f"explicit pair {index} ({shown}): {err}") from err


def _short(value: Any) -> str:
    text = repr(to_jsonable(value))
    return text if len(text) <= _SHOWN_CHARACTERS else text[: _SHOWN_CHARACTERS - 3] + "..."


# ----------------------------------------------------------------------------------------
# adversarial pairs
# ----------------------------------------------------------------------------------------
def extreme_pairs(
    spec: MechanismSpec, rng: RandomLike = None, budget: int | None = None
) -> Iterator[AdversarialPair]:
    """Raw adversarial ``(x, y, origin)`` triples of the spec's relation (not yet verified).

    The relation's own :meth:`~spec.relations.NeighbouringRelationBase.adversarial_pairs`
    on the spec's domain, given the claimed global sensitivity as a hint (the node
    relations try degree thresholds near it first).  Lazy; deterministic for the built-in
    relations, which draw nothing from ``rng``.
    """
    claim = spec.global_sensitivity
    return spec.relation.adversarial_pairs(
        spec.input_domain,
        rng,
        budget,
        claimed_sensitivity=None if claim is None else claim.value,
    )
