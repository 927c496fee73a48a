"""Message layouts, public randomness and graph inputs of local-node specs (issue 27)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from spec import GraphDomain, LocalNodeRelation, MessageLayout, PublicRandomness, adjacency_matrix
from spec.domains import is_edge_array
from spec.errors import InvalidGraphError, InvalidParameterError


def test_layout_forms_and_blocks():
    equal = MessageLayout.equal(3)
    assert equal.covers(4, 12) and not equal.covers(4, 11)
    assert [b.tolist() for b in equal.arrays(2)] == [[0, 1, 2], [3, 4, 5]]
    lower = MessageLayout.consecutive([3, 2, 1, 0])
    assert lower.covers(4, 6) and not lower.covers(5, 6)
    assert [b.tolist() for b in lower.arrays(4)] == [[0, 1, 2], [3, 4], [5], []]
    with pytest.raises(InvalidParameterError, match="exactly one of"):
        MessageLayout()
    with pytest.raises(InvalidParameterError):
        MessageLayout(sizes=(1, -1))


def test_undeclared_fields_stay_out_of_the_json():
    assert set(LocalNodeRelation().model_dump(mode="json")) == {
        "kind",
        "max_degree",
        "focus_nodes",
        "bucket_width",
    }
    declared = LocalNodeRelation(
        layout=MessageLayout.equal(1), public_randomness=PublicRandomness(drawn="d", reveals="r")
    )
    assert LocalNodeRelation.model_validate_json(declared.model_dump_json()) == declared
    assert declared.model_dump(mode="json")["layout"] == {"kind": "message_layout", "block": 1}


def test_focused_puts_the_exposed_nodes_first_and_keeps_the_relation():
    relation = LocalNodeRelation(focus_nodes=(2,), layout=MessageLayout.equal(1))
    focused = relation.focused([5, 2])
    assert focused.focus_nodes == (5, 2) and focused.layout == relation.layout


def test_edge_arrays_are_graph_inputs():
    edges = np.array([[0, 1], [3, 2], [1, 2]])
    assert is_edge_array(edges, 4) and not is_edge_array(np.eye(2, dtype=int), 2)
    a = adjacency_matrix(edges, 4)
    b = adjacency_matrix(nx.Graph([(0, 1), (3, 2), (1, 2)]), 4)
    assert (a != b).nnz == 0
    domain = GraphDomain(n_nodes=4)
    with pytest.raises(InvalidGraphError, match="self-loop at node 3"):
        domain.edge_array(np.array([[0, 1], [3, 3], [1, 2]]))
    with pytest.raises(InvalidGraphError, match="more than once"):
        domain.edge_array(np.array([[0, 1], [1, 0], [1, 2]]))
    with pytest.raises(InvalidGraphError, match="names node 7"):
        domain.edge_array(np.array([[0, 7], [1, 2], [2, 3]]))


def test_networkx_edges_are_read_in_one_pass_with_the_same_result():
    g = nx.gnp_random_graph(60, 0.2, seed=1)
    edges = GraphDomain(n_nodes=60).edge_array(g)
    expected = np.array(sorted((min(u, v), max(u, v)) for u, v in g.edges()))
    assert np.array_equal(edges, expected)
    g.add_edge(5, 5)
    with pytest.raises(InvalidGraphError, match="self-loop at node 5"):
        GraphDomain(n_nodes=60).edge_array(g)
