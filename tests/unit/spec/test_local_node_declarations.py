"""Message layouts, public randomness and graph inputs of local-node specs (issue 27)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from privaudit.spec import (
    GraphDomain,
    LocalNodeRelation,
    MessageLayout,
    PublicRandomness,
    adjacency_matrix,
)
from privaudit.spec.domains import is_edge_array
from privaudit.spec.errors import InvalidGraphError, InvalidParameterError


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


# -- the digest of the public randomness is checked against the realised ρ -------------------
def _node_bits_spec(nodes: int):
    from privaudit.spec import AdditiveNoise, GlobalSensitivity, Laplace, MechanismSpec, PureDP

    return MechanismSpec(
        name="node_bits",
        input_domain=GraphDomain(n_nodes=nodes),
        relation=LocalNodeRelation(),
        statistic="each node's bit",
        output_dimension=nodes,
        sensitivity=(GlobalSensitivity(value=1.0, norm="l1"),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)),
        guarantee=PureDP(epsilon=1.0),
    )


def _declare(nodes: int, rho, digest):
    from privaudit.mechanisms import declare_mechanism

    return declare_mechanism(
        _node_bits_spec(nodes),
        sampler=lambda g, size, rng: rng.laplace(0.0, 1.0, (size, nodes)),
        layout=1,
        public_randomness=PublicRandomness(drawn="partners", reveals="r", digest=digest),
        rho=rho,
    )


@pytest.mark.parametrize("nodes, seed", [(5, 0), (9, 3), (16, 11)])
def test_a_declared_digest_must_be_the_digest_of_the_rho_given(nodes, seed):
    from privaudit.spec import public_randomness_digest
    from privaudit.spec.errors import InconsistentSpecError

    rho = np.random.default_rng(seed).integers(nodes, size=nodes)
    good = _declare(nodes, rho, public_randomness_digest(rho))
    assert good.spec.relation.public_randomness.digest == public_randomness_digest(rho)
    other = (rho + 1) % nodes
    with pytest.raises(InconsistentSpecError, match="the rho given has the digest sha256:"):
        _declare(nodes, other, public_randomness_digest(rho))
    with pytest.raises(InvalidParameterError, match="no rho= is given"):
        _declare(nodes, None, public_randomness_digest(rho))


def test_the_consistency_check_compares_the_digest_with_the_mechanisms_rho():
    from privaudit.auditing.checks import check_spec_consistency
    from privaudit.spec import public_randomness_digest

    rho = np.arange(6) % 3
    mech = _declare(6, rho, public_randomness_digest(rho))
    assert check_spec_consistency(mech).status == "passed"
    mech._rho = rho[::-1].copy()  # the sampler's ρ drifts after the declaration
    out = check_spec_consistency(mech)
    assert out.violated
    (problem,) = out.details["mismatches"]
    assert problem["attribute"] == "rho (public randomness digest)"


def test_rho_without_canonical_bytes_is_refused_by_name():
    from privaudit.spec import public_randomness_digest

    with pytest.raises(InvalidParameterError, match="has no canonical bytes"):
        public_randomness_digest({"partner": 1})
    assert public_randomness_digest(np.array([1, 2])) == public_randomness_digest([1, 2])
