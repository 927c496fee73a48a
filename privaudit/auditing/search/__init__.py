"""Search for the worst neighbouring pairs: candidates, local search, strategies, shrinking.

Modules
-------
:mod:`privaudit.auditing.search.pair_sources`
    :func:`candidate_pairs` — explicit, adversarial (the relation's own
    ``adversarial_pairs``) and random pairs, deduplicated, within a budget.
:mod:`privaudit.auditing.search.local_search`
    :func:`maximise_pair_objective` (hill climbing over pairs) and
    :func:`maximise_over_neighbours` (over the neighbours of one input, exhaustive when
    small), with :class:`NeighbourhoodMaximum`.
:mod:`privaudit.auditing.search.strategies`
    Hypothesis strategies :func:`domain_elements` and :func:`neighbouring_pairs`.
:mod:`privaudit.auditing.search.shrink`
    :func:`shrink_pair` — hypothesis shrinks a witness pair; :func:`pair_complexity`.

Nothing here switches on the relation's type: every move comes from the relation's
interface (:class:`~spec.relations.NeighbouringRelationBase`: ``adversarial_pairs``,
``extreme_neighbours``, ``local_moves``, ``random_neighbour``, ``effective_domain``), so a
new relation is searched without editing this package.  Only the hypothesis strategies
keep one dispatch table of the built-in relations (a new relation may bring its own
``neighbour_strategy``).

Every pair returned is built by :func:`~privaudit.auditing.pairs.verified_pair`.  The strategies
and the shrinker need ``hypothesis``; they are imported on first use, so the rest of the
package works without it.
"""

from __future__ import annotations

from typing import Any as _Any

from privaudit._lazy import lazy_attribute as _lazy_attribute
from privaudit._lazy import lazy_dir as _lazy_dir
from privaudit.auditing.search.local_search import (
    NeighbourhoodMaximum,
    maximise_over_neighbours,
    maximise_pair_objective,
)
from privaudit.auditing.search.pair_sources import candidate_pairs

__all__ = [
    "NeighbourhoodMaximum",
    "candidate_pairs",
    "domain_elements",
    "maximise_over_neighbours",
    "maximise_pair_objective",
    "neighbouring_pairs",
    "pair_complexity",
    "shrink_pair",
]

#: Names served from the hypothesis-based modules, imported on first access.
_LAZY_NAMES = {
    "domain_elements": "privaudit.auditing.search.strategies",
    "neighbouring_pairs": "privaudit.auditing.search.strategies",
    "pair_complexity": "privaudit.auditing.search.shrink",
    "shrink_pair": "privaudit.auditing.search.shrink",
}


def __getattr__(name: str) -> _Any:
    return _lazy_attribute(globals(), _LAZY_NAMES, name)


def __dir__() -> list[str]:
    return _lazy_dir(globals(), _LAZY_NAMES)
