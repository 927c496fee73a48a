"""Graph inputs: validation of bad graphs, the sparse adjacency converter, relabelling, and
exhaustive checks (n ≤ 4) that the graph relations decide and generate exactly."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.spec import (
    EdgeNeighbouring,
    GraphDomain,
    LocalNodeRelation,
    NodeNeighbouring,
    adjacency_matrix,
    relabel_graph,
)
from privaudit.spec.errors import InvalidGraphError, InvalidParameterError

FAST = settings(max_examples=40, deadline=None)


def _on_nodes(n: int, edges) -> nx.Graph:
    graph = nx.empty_graph(n)
    graph.add_edges_from(edges)
    return graph


def _edges(graph: nx.Graph) -> frozenset[tuple[int, int]]:
    return frozenset(tuple(sorted(e)) for e in graph.edges())


# ----------------------------------------------------------------------------------------
# bad graphs
# ----------------------------------------------------------------------------------------
def _directed() -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(4))
    graph.add_edge(0, 1)
    return graph


def _multigraph() -> nx.MultiGraph:
    graph = nx.MultiGraph()
    graph.add_nodes_from(range(4))
    graph.add_edges_from([(0, 1), (0, 1)])
    return graph


def _relabelled(mapping) -> nx.Graph:
    return nx.relabel_nodes(nx.path_graph(4), mapping)


SYMMETRIC = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]])

BAD_GRAPHS = [
    (_directed(), "directed graphs are refused"),
    (_multigraph(), "multigraphs are refused"),
    (_on_nodes(4, [(2, 2)]), "self-loop at node 2"),
    (nx.path_graph(3), "missing nodes [3]"),
    (nx.path_graph(6), "unexpected nodes [4, 5]"),
    (_relabelled({0: 0, 1: 1, 2: 2, 3: 7}), "missing nodes [3], unexpected nodes [7]"),
    (_relabelled({0: "a", 1: "b", 2: "c", 3: "d"}), "non-integer label 'a' (str)"),
    (_relabelled({0: 0, 1: 1, 2: 2, 3: 3.5}), "non-integer label 3.5 (float)"),
    (_relabelled({0: False, 1: True, 2: 2, 3: 3}), "non-integer label False (bool)"),
    (_relabelled({0: (0,), 1: 1, 2: 2, 3: 3}), "non-integer label (0,) (tuple)"),
    (np.ones((4, 3)), "shape (4, 4), got (4, 3)"),
    (np.zeros((4, 4, 1)), "shape (4, 4), got (4, 4, 1)"),
    (np.eye(4), "self-loop at node 0"),
    (np.triu(np.ones((4, 4)), 1), "not symmetric (directed edge): A[0, 1] = 1 but A[1, 0] = 0"),
    (2 * SYMMETRIC, "got 2 at (0, 1)"),
    (0.5 * SYMMETRIC, "got 0.5 at (0, 1)"),
    (np.where(SYMMETRIC == 1, np.nan, 0.0), "got nan at (0, 1)"),
    (-SYMMETRIC, "got -1 at (0, 1)"),
    (SYMMETRIC.astype(complex), "must be 0/1, got complex128"),
    (SYMMETRIC.astype(object), "must be 0/1, got object"),
    ([[0, 1], [1]], "cannot read the adjacency matrix"),
    (sp.csr_matrix(np.eye(4)), "self-loop at node 0"),
    (
        sp.csr_matrix(np.triu(np.ones((4, 4)), 1)),
        "not symmetric (directed edge): A[0, 1] = 1 but A[1, 0] = 0",
    ),
    (sp.coo_matrix(([1, 1, 1], ([0, 0, 1], [1, 1, 0])), shape=(4, 4)), "got 2 at (0, 1)"),
    (sp.csr_array(SYMMETRIC * 3), "got 3 at (0, 1)"),
    (sp.csr_matrix(np.ones((3, 3))), "shape (4, 4), got (3, 3)"),
    ({0: [1]}, "expected a networkx.Graph or an adjacency matrix, got dict"),
    ("0-1", "expected a networkx.Graph or an adjacency matrix, got str"),
    (None, "expected a networkx.Graph or an adjacency matrix, got NoneType"),
]


@pytest.mark.parametrize(("bad", "message"), BAD_GRAPHS, ids=[m for _, m in BAD_GRAPHS])
def test_bad_graphs_are_refused_with_a_message_naming_the_problem(bad, message):
    domain = GraphDomain(n_nodes=4)
    with pytest.raises(InvalidGraphError) as caught:
        domain.validate(bad)
    assert message in str(caught.value)
    with pytest.raises(InvalidGraphError):
        adjacency_matrix(bad, 4)
    assert not domain.contains(bad)


def test_missing_and_unexpected_nodes_are_counted_when_many():
    with pytest.raises(
        InvalidGraphError,
        match=r"got 30 nodes; missing nodes \[\], unexpected "
        r"nodes \[10, 11, 12, 13, 14, … \(20 in all\)\]",
    ):
        GraphDomain(n_nodes=10).validate(nx.empty_graph(30))


def test_degree_bound_is_checked_for_every_input_form():
    domain = GraphDomain(n_nodes=5, max_degree=2)
    star = nx.star_graph(4)
    for form in (star, nx.to_numpy_array(star), sp.csr_array(nx.to_scipy_sparse_array(star))):
        with pytest.raises(InvalidGraphError, match="node 0 has degree 4, above max_degree=2"):
            domain.validate(form)
        with pytest.raises(InvalidGraphError, match="node 0 has degree 4"):
            adjacency_matrix(form, 5, max_degree=2)


def test_numpy_integer_labels_and_attributes_are_accepted():
    graph = nx.Graph()
    graph.add_nodes_from(np.arange(4))
    graph.add_edge(np.int64(0), np.int32(3), weight=7.0)
    validated = GraphDomain(n_nodes=4).validate(graph)
    assert sorted(validated.edges()) == [(0, 3)]
    assert all(type(v) is int for v in validated.nodes)
    assert validated.edges[0, 3] == {}


# ----------------------------------------------------------------------------------------
# adjacency_matrix
# ----------------------------------------------------------------------------------------
def _assert_canonical_adjacency(matrix, n: int, edges: frozenset) -> None:
    assert isinstance(matrix, sp.csr_array)
    assert matrix.shape == (n, n) and matrix.dtype == np.int8
    assert matrix.has_sorted_indices
    dense = matrix.toarray()
    assert np.array_equal(dense, dense.T)
    assert not np.diagonal(dense).any()
    assert set(np.unique(dense)) <= {0, 1}
    assert np.all(matrix.data == 1)  # no explicit zeros
    rows, cols = np.nonzero(np.triu(dense, 1))
    assert {(int(i), int(j)) for i, j in zip(rows, cols, strict=True)} == set(edges)


@FAST
@given(st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_adjacency_matrix_accepts_every_form_and_agrees(n, seed):
    graph = GraphDomain(n_nodes=n).sample(seed)
    edges = _edges(graph)
    dense = nx.to_numpy_array(graph, nodelist=range(n))
    forms = [
        graph,
        dense,
        dense.astype(bool),
        dense.astype(np.int8).tolist(),
        sp.csr_matrix(dense),
        sp.coo_array(dense),
        sp.lil_matrix(dense),
    ]
    for form in forms:
        matrix = adjacency_matrix(form, n)
        _assert_canonical_adjacency(matrix, n, edges)
        again = adjacency_matrix(matrix, n)  # an already-valid sparse adjacency
        assert (again != matrix).nnz == 0
    assert np.array_equal(
        GraphDomain(n_nodes=n).edge_array(graph),
        np.array(sorted(edges), dtype=np.int64).reshape(-1, 2),
    )


def test_adjacency_matrix_ignores_explicit_zeros_and_products_need_a_wider_type():
    explicit_zero = sp.csr_matrix(
        (np.array([1, 1, 0, 0]), (np.array([0, 1, 2, 3]), np.array([1, 0, 3, 2]))), shape=(4, 4)
    )
    matrix = adjacency_matrix(explicit_zero, 4)
    assert matrix.nnz == 2
    complete = adjacency_matrix(nx.complete_graph(200), 200)
    wide = complete.astype(np.int64)
    assert (wide @ wide)[0, 0] == 199  # int8 arithmetic would wrap around


def test_adjacency_matrix_checks_its_parameters():
    graph = nx.path_graph(3)
    for bad in (0, -1, 2.5, True, "3", None):
        with pytest.raises(InvalidParameterError, match="n_nodes"):
            adjacency_matrix(graph, bad)
    for bad in (-1, 1.5, True):
        with pytest.raises(InvalidParameterError, match="max_degree"):
            adjacency_matrix(graph, 3, max_degree=bad)
    with pytest.raises(InvalidParameterError, match="relabelling has 2 labels but n_nodes = 3"):
        adjacency_matrix(nx.Graph([("a", "b")]), 3, relabelling={"a": 0, "b": 1})


def test_adjacency_matrix_applies_a_declared_relabelling_once():
    graph = nx.Graph([("ann", "bob"), ("bob", "cy")])
    graph.add_node("dee")
    mapping = {"dee": 0, "cy": 1, "bob": 2, "ann": 3}
    matrix = adjacency_matrix(graph, 4, relabelling=mapping)
    _assert_canonical_adjacency(matrix, 4, frozenset({(2, 3), (1, 2)}))


# ----------------------------------------------------------------------------------------
# relabel_graph
# ----------------------------------------------------------------------------------------
def test_relabel_graph_maps_labels_to_the_public_nodes():
    graph = nx.Graph()
    graph.add_edge("x", "y", weight=3)
    graph.add_node("z", colour="red")
    relabelled = relabel_graph(graph, {"z": 0, "x": 1, "y": 2})
    assert sorted(relabelled.nodes) == [0, 1, 2]
    assert sorted(relabelled.edges()) == [(1, 2)]
    assert relabelled.edges[1, 2] == {} and relabelled.nodes[0] == {}
    assert GraphDomain(n_nodes=3).validate(relabelled).number_of_edges() == 1


BAD_RELABELLINGS = [
    (["x", "y"], InvalidParameterError, "must be a mapping"),
    ({}, InvalidParameterError, "relabelling is empty"),
    ({"x": 0, "y": "1"}, InvalidParameterError, "maps 'y' to '1', which is not an integer"),
    ({"x": 0, "y": True}, InvalidParameterError, "maps 'y' to True, which is not an integer"),
    ({"x": 0, "y": 1.0}, InvalidParameterError, "maps 'y' to 1.0, which is not an integer"),
    ({"x": 0, "y": 2}, InvalidParameterError, "maps 'y' to 2, outside the public node set 0..1"),
    ({"x": 1, "y": 1}, InvalidParameterError, "not one-to-one: 'x' and 'y' both map to node 1"),
    ({"x": 0, "w": 1}, InvalidGraphError, "missing labels ['w'], undeclared labels ['y']"),
    ({"x": 0, "y": 1, "w": 2}, InvalidGraphError, "missing labels ['w'], undeclared labels []"),
]


@pytest.mark.parametrize(
    ("mapping", "error", "message"), BAD_RELABELLINGS, ids=[m for *_, m in BAD_RELABELLINGS]
)
def test_bad_relabellings_are_refused(mapping, error, message):
    with pytest.raises(error) as caught:
        relabel_graph(nx.Graph([("x", "y")]), mapping)
    assert message in str(caught.value)


def test_relabel_graph_refuses_bad_graphs():
    mapping = {"x": 0, "y": 1}
    with pytest.raises(InvalidGraphError, match="directed graphs and multigraphs"):
        relabel_graph(nx.DiGraph([("x", "y")]), mapping)
    with pytest.raises(InvalidGraphError, match="directed graphs and multigraphs"):
        relabel_graph(nx.MultiGraph([("x", "y")]), mapping)
    with pytest.raises(InvalidGraphError, match="self-loop at node 'x'"):
        relabel_graph(nx.Graph([("x", "y"), ("x", "x")]), mapping)
    with pytest.raises(InvalidGraphError, match="expected a networkx.Graph, got ndarray"):
        relabel_graph(np.zeros((2, 2)), mapping)


# ----------------------------------------------------------------------------------------
# exact decide and generate, exhaustively for n ≤ 4
# ----------------------------------------------------------------------------------------
def _all_graphs(n: int) -> list[nx.Graph]:
    pairs = list(itertools.combinations(range(n), 2))
    return [
        _on_nodes(n, [p for p, keep in zip(pairs, mask, strict=True) if keep])
        for mask in itertools.product([False, True], repeat=len(pairs))
    ]


def _brute_rewiring_distance(difference: frozenset) -> int:
    """Smallest set of nodes touching every differing edge, by trying all node sets."""
    nodes = sorted({v for e in difference for v in e})
    for size in range(len(nodes) + 1):
        for cover in itertools.combinations(nodes, size):
            if all(set(e) & set(cover) for e in difference):
                return size
    raise AssertionError("unreachable")


def _within(graph: nx.Graph, bound: int | None) -> bool:
    return bound is None or max((d for _, d in graph.degree()), default=0) <= bound


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_edge_decide_and_generate_are_exact(n):
    graphs = _all_graphs(n)
    domain = GraphDomain(n_nodes=n)
    relation = EdgeNeighbouring()
    for x in graphs:
        related = set()
        for y in graphs:
            difference = _edges(x) ^ _edges(y)
            decision = relation.decide(x, y, domain)
            assert decision.is_neighbour == (len(difference) <= 1)
            assert decision.distance == len(difference)
            if decision.is_neighbour and difference:
                related.add(_edges(y))
        generated = [_edges(y) for y in relation.neighbours(x, domain)]
        assert len(generated) == len(set(generated))
        assert set(generated) == related


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("bound", [None, 0, 1, 2])
@pytest.mark.parametrize("model", [NodeNeighbouring, LocalNodeRelation])
def test_node_decide_and_generate_are_exact(n, bound, model):
    """Brute force: related iff both graphs respect the bound and one node covers E Δ E′."""
    graphs = _all_graphs(n)
    domain = GraphDomain(n_nodes=n)
    relation = model(max_degree=bound)
    for x in graphs:
        related = set()
        for y in graphs:
            difference = _edges(x) ^ _edges(y)
            covered = any(all(v in e for e in difference) for v in range(n))
            expected = covered and _within(x, bound) and _within(y, bound)
            decision = relation.decide(x, y, domain)
            assert decision.is_neighbour == expected, (sorted(_edges(x)), sorted(_edges(y)))
            if _within(x, bound) and _within(y, bound):
                assert decision.distance == _brute_rewiring_distance(difference)
            else:
                assert decision.distance == float("inf")
            if expected and difference:
                related.add(_edges(y))
        if not _within(x, bound):
            with pytest.raises(InvalidGraphError):
                list(relation.neighbours(x, domain))
            continue
        generated = [_edges(y) for y in relation.neighbours(x, domain)]
        assert len(generated) == len(set(generated))
        assert set(generated) == related


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("bound", [None, 1, 2])
def test_random_neighbours_cover_every_neighbour_for_small_n(n, bound):
    """The random generator reaches every node-neighbour (and only those) of a few graphs.

    Error rate: a neighbour differing at node v is drawn with probability at least
    (1/n)·1/(k_max + 1)·1/C(n − 1, k) ≥ 1/48 per draw for n ≤ 4, so it is missed in 600
    draws with probability ≤ (47/48)^600 < 4e-6; over the ≤ 200 neighbours checked the
    chance of a spurious failure is < 1e-3 (and the seed is fixed: deterministic).
    """
    relation = NodeNeighbouring(max_degree=bound)
    domain = GraphDomain(n_nodes=n)
    rng = np.random.default_rng(5)
    for x in [g for g in _all_graphs(n) if _within(g, bound)][::5]:
        everything = {_edges(y) for y in relation.neighbours(x, domain)}
        drawn = {_edges(relation.random_neighbour(x, domain, rng)) for _ in range(600)}
        assert drawn <= everything
        assert drawn == everything
