"""Shrink a witness pair with hypothesis: the simplest neighbouring pair that still fails.

A pair that breaks a claim is easier to read, report and debug when it is small: few
records, few edges, values near zero.  :func:`shrink_pair` asks hypothesis to find a pair
of :func:`~privaudit.auditing.search.strategies.neighbouring_pairs` satisfying the predicate and to
shrink it; the result replaces the original only if it is simpler by
:func:`pair_complexity`.

This module needs the ``hypothesis`` package (a test dependency of privaudit).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import networkx as nx
import numpy as np
from hypothesis import find, settings
from hypothesis.errors import NoSuchExample, Unsatisfiable

from privaudit.auditing.pairs import CandidatePair, verified_pair
from privaudit.auditing.search._common import check_count
from privaudit.auditing.search.strategies import neighbouring_pairs
from privaudit.spec import MechanismSpec

__all__ = ["PairComplexity", "pair_complexity", "shrink_pair"]

#: ``(size, non-zero values, total magnitude)``; compared lexicographically.
PairComplexity = tuple[int, int, float]


def _complexity(value: Any) -> PairComplexity:
    if isinstance(value, nx.Graph):
        return value.number_of_edges(), 0, 0.0
    array = np.asarray(value, dtype=np.float64)
    size = int(array.shape[0]) if array.ndim >= 1 else 0
    magnitude = float(np.abs(array).sum())
    return size, int(np.count_nonzero(array)), magnitude if math.isfinite(magnitude) else math.inf


def pair_complexity(x: Any, y: Any) -> PairComplexity:
    """How complicated a pair is: smaller is simpler.

    Returns
    -------
    tuple
        ``(size, non-zero values, magnitude)`` summed over both inputs, where size is the
        number of records (datasets), of coordinates (vectors), of edges (graphs) or 0
        (scalars), and magnitude the sum of absolute values (0 for graphs).
    """
    first, second = _complexity(x), _complexity(y)
    return first[0] + second[0], first[1] + second[1], first[2] + second[2]


def shrink_pair(
    spec: MechanismSpec,
    predicate: Callable[[Any, Any], bool],
    pair: CandidatePair,
    *,
    max_examples: int = 300,
    rng_seed: int = 0,
) -> CandidatePair:
    """The simplest neighbouring pair hypothesis finds satisfying ``predicate``.

    Runs ``hypothesis.find(neighbouring_pairs(spec), lambda p: predicate(*p))`` with
    ``max_examples``, no example database, derandomised, no deadline and the seed
    ``rng_seed``; hypothesis shrinks what it finds to a minimal example.

    Parameters
    ----------
    spec : MechanismSpec
        Supplies the domain and the relation.
    predicate : callable
        ``predicate(x, y) -> bool`` on validated inputs: True while the pair still shows
        the failure.  Exceptions it raises propagate.
    pair : CandidatePair
        The pair to improve on (returned unchanged when nothing simpler is found).
    max_examples : int
        Examples hypothesis may try before shrinking (``≥ 1``).
    rng_seed : int
        Seed of hypothesis' search (``≥ 0``); same seed, same result.

    Returns
    -------
    CandidatePair
        A verified pair with origin ``"hypothesis"`` that is strictly simpler by
        :func:`pair_complexity`, or ``pair`` itself when hypothesis finds no satisfying
        pair or none simpler.

    Raises
    ------
    InvalidParameterError
        If ``max_examples`` or ``rng_seed`` is out of range.
    """
    max_examples = check_count(max_examples, "max_examples", 1)
    rng_seed = check_count(rng_seed, "rng_seed", 0)
    search_settings = settings(
        max_examples=max_examples, database=None, derandomize=True, deadline=None
    )
    try:
        x, y = find(
            neighbouring_pairs(spec),
            lambda drawn: bool(predicate(*drawn)),
            settings=search_settings,
            random=random.Random(rng_seed),
        )
    except (NoSuchExample, Unsatisfiable):
        return pair
    if pair_complexity(x, y) >= pair_complexity(pair.x, pair.y):
        return pair
    return verified_pair(spec, x, y, "hypothesis")
