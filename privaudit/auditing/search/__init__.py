"""Search for the worst neighbouring pairs: candidates, local search, strategies, shrinking.

Modules
-------
:mod:`privaudit.auditing.search.candidates`
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

import importlib as _importlib
from typing import Any as _Any

from .candidates import candidate_pairs
from .local_search import NeighbourhoodMaximum, maximise_over_neighbours, maximise_pair_objective

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
    "domain_elements": "strategies",
    "neighbouring_pairs": "strategies",
    "pair_complexity": "shrink",
    "shrink_pair": "shrink",
}


def __getattr__(name: str) -> _Any:
    module_name = _LAZY_NAMES.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module_name}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
