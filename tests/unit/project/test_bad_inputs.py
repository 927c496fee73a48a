"""Every kind of bad input listed in DEVELOPERS.md raises a specific, named error.

NaN or infinite data, wrong shapes, empty inputs, ε ≤ 0, δ outside [0, 1), graphs with
self-loops or directed edges: each raises a subclass of :class:`PrivauditError` whose
message names the offending value.  (n < k and kernel range errors belong to the
U-statistic estimators and are tested with them.)
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from privaudit.estimators import private_bounded_mean
from privaudit.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponseMechanism
from privaudit.spec import (
    ApproxDP,
    DatasetDomain,
    GraphDomain,
    InvalidGraphError,
    InvalidInputError,
    InvalidParameterError,
    PrivauditError,
    PureDP,
    RealInterval,
)

DATA = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=4)


@pytest.mark.parametrize(
    "bad, needle",
    [
        (np.array([0.1, math.nan, 0.2, 0.3]), "nan"),
        (np.array([0.1, math.inf, 0.2, 0.3]), "inf"),
        (np.array([0.1, 0.2, 0.3]), "3"),  # wrong n
        (np.zeros((4, 2)), "shape"),  # wrong shape
        (np.array([0.1, 0.2, 0.3, 1.5]), "1.5"),  # out of range
    ],
)
def test_dataset_domain_names_the_offending_value(bad, needle):
    with pytest.raises(InvalidInputError) as info:
        DATA.validate(bad)
    assert needle.lower() in str(info.value).lower()


def test_empty_dataset_is_refused():
    with pytest.raises(InvalidInputError, match="empty"):
        DatasetDomain(record=RealInterval(lo=0.0, hi=1.0)).validate(np.array([]))
    with pytest.raises(InvalidInputError):
        private_bounded_mean([], 0.0, 1.0, epsilon=1.0, rng=0)


@pytest.mark.parametrize("eps", [0.0, -1.0, math.nan, math.inf])
def test_epsilon_must_be_positive_and_finite(eps):
    with pytest.raises(InvalidParameterError, match="epsilon"):
        PureDP(epsilon=eps)
    with pytest.raises(InvalidParameterError):
        LaplaceMechanism(eps, 1.0)
    with pytest.raises(InvalidParameterError):
        private_bounded_mean([0.5], 0.0, 1.0, epsilon=eps, rng=0)


@pytest.mark.parametrize("delta", [-1e-9, 1.0, 1.5, math.nan])
def test_delta_must_lie_in_0_1(delta):
    with pytest.raises(InvalidParameterError, match="delta"):
        ApproxDP(epsilon=1.0, delta=delta)
    with pytest.raises(InvalidParameterError):
        GaussianMechanism(1.0, delta, 1.0)


def test_graph_inputs_must_be_simple_undirected_on_the_node_set():
    domain = GraphDomain(n_nodes=4)
    loop = nx.Graph([(0, 1), (2, 2)])
    loop.add_nodes_from(range(4))
    with pytest.raises(InvalidGraphError, match="self-loop"):
        domain.validate(loop)
    directed = nx.DiGraph([(0, 1)])
    directed.add_nodes_from(range(4))
    with pytest.raises(InvalidGraphError, match="[Dd]irected"):
        domain.validate(directed)
    wrong = nx.Graph([(0, 1)])
    wrong.add_nodes_from(range(5))
    with pytest.raises(InvalidGraphError):
        domain.validate(wrong)


def test_mechanisms_validate_their_inputs():
    with pytest.raises(InvalidInputError):
        LaplaceMechanism(1.0, 1.0).release(math.nan, rng=0)
    with pytest.raises(InvalidInputError):
        RandomizedResponseMechanism(1.0, categories=3).release(7, rng=0)
    with pytest.raises(InvalidParameterError, match="size"):
        LaplaceMechanism(1.0, 1.0).sample(0.0, 0, rng=0)


def test_every_error_is_one_family():
    for cls in (InvalidInputError, InvalidGraphError, InvalidParameterError):
        assert issubclass(cls, PrivauditError)
