"""Order-statistic local sensitivity and distance to instability against brute force.

On the grid {0, 1/4, 1/2, 3/4, 1} (which holds lo and hi, where every extreme
substitution lands) every multiset of n records is enumerated; the local sensitivity is
the largest change over all single substitutions and the distance is a breadth-first
search from the data sets whose local sensitivity exceeds b.  Deterministic: no error rate.
"""

from __future__ import annotations

import collections
import itertools
import math

import numpy as np
import pytest

from privaudit.estimators.stability.order_statistics import (
    distance_to_instability,
    iqr,
    iqr_distance_to_instability,
    iqr_local_sensitivity,
    median_rank,
    order_statistic_local_sensitivity,
    quartile_ranks,
    sorted_records,
)
from privaudit.spec.errors import (
    InvalidInputError,
    InvalidParameterError,
    NonFiniteInputError,
    SampleSizeError,
)

GRID = (0.0, 0.25, 0.5, 0.75, 1.0)


def _brute_force(n, statistic, bound):
    states = list(itertools.combinations_with_replacement(range(len(GRID)), n))
    neighbours = {}
    for s in states:
        found = set()
        for j in set(s):
            rest = list(s)
            rest.remove(j)
            found.update(tuple(sorted([*rest, v])) for v in range(len(GRID)))
        found.discard(s)
        neighbours[s] = found
    value = {s: statistic(np.array([GRID[i] for i in s])) for s in states}
    local = {s: max((abs(value[t] - value[s]) for t in neighbours[s]), default=0.0) for s in states}
    distance = {s: (0 if local[s] > bound else math.inf) for s in states}
    queue = collections.deque(s for s in states if distance[s] == 0)
    while queue:
        s = queue.popleft()
        for t in neighbours[s]:
            if distance[t] == math.inf:
                distance[t] = distance[s] + 1
                queue.append(t)
    return states, local, distance


@pytest.mark.parametrize("n", [1, 3, 5, 7])
@pytest.mark.parametrize("bound", [0.1, 0.3, 0.6, 1.0])
def test_median_local_sensitivity_and_distance_match_brute_force(n, bound):
    m = median_rank(n)
    states, local, distance = _brute_force(n, lambda v: float(np.sort(v)[m - 1]), bound)
    for s in states:
        values = np.array([GRID[i] for i in s])
        assert order_statistic_local_sensitivity(values, m, 0.0, 1.0) == pytest.approx(local[s])
        assert distance_to_instability(values, m, 0.0, 1.0, bound) == distance[s], s


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("bound", [0.1, 0.3, 0.6])
def test_iqr_local_sensitivity_and_distance_match_brute_force(n, bound):
    states, local, distance = _brute_force(n, lambda v: iqr(np.sort(v)), bound)
    for s in states:
        values = np.array([GRID[i] for i in s])
        assert iqr_local_sensitivity(values, 0.0, 1.0) == pytest.approx(local[s])
        assert iqr_distance_to_instability(values, 0.0, 1.0, bound) == distance[s], s


def test_distance_is_one_lipschitz_on_random_neighbours():
    rng = np.random.default_rng(4)
    for _ in range(300):
        x = rng.uniform(0, 1, 9)
        y = x.copy()
        y[rng.integers(9)] = rng.uniform()
        dx = distance_to_instability(np.sort(x), 5, 0.0, 1.0, 0.2)
        dy = distance_to_instability(np.sort(y), 5, 0.0, 1.0, 0.2)
        assert abs(dx - dy) <= 1


def test_bound_above_range_gives_infinite_distance():
    assert distance_to_instability(np.array([0.5, 0.5, 0.5]), 2, 0.0, 1.0, 1.0) == math.inf


def test_ranks():
    assert median_rank(11) == 6
    assert quartile_ranks(11) == (3, 9)
    assert quartile_ranks(3) == (1, 3)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: median_rank(4), SampleSizeError),
        (lambda: quartile_ranks(2), SampleSizeError),
        (lambda: sorted_records([0.1, float("nan")], 0.0, 1.0), NonFiniteInputError),
        (lambda: sorted_records([0.1, 2.0], 0.0, 1.0), InvalidInputError),
        (lambda: distance_to_instability(np.array([0.5]), 1, 0.0, 1.0, 0.0), InvalidParameterError),
        (lambda: distance_to_instability(np.array([0.5]), 2, 0.0, 1.0, 0.1), InvalidParameterError),
    ],
)
def test_bad_inputs(call, error):
    with pytest.raises(error):
        call()
