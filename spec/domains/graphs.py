"""Simple undirected graphs on a public node set: :class:`GraphDomain`.

The private helpers build canonical graphs and count degree-bounded graphs exactly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Literal

import networkx as nx
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from .._random import RandomLike, as_generator
from .._types import NonNegativeInt, PositiveInt
from ..errors import InvalidGraphError, UnsupportedCombinationError
from ._base import DomainBase
from ._common import MAX_GRAPH_COUNT_STATES, _at_first, _edge_key, _show

__all__ = ["GraphDomain", "is_edge_array"]


def _show_nodes(nodes: list[int], limit: int = 5) -> str:
    """``[a, b, …]`` with at most ``limit`` nodes and the total when there are more."""
    shown = ", ".join(str(v) for v in nodes[:limit])
    more = f", … ({len(nodes)} in all)" if len(nodes) > limit else ""
    return f"[{shown}{more}]"


def _graph_from_edges(n: int, edges: Any) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(edges)
    return graph


@lru_cache(maxsize=256)
def _count_degree_bounded_graphs(n: int, max_degree: int) -> int:
    """Exact number of labelled simple graphs on ``n`` nodes with all degrees ≤ ``max_degree``.

    Nodes are added one at a time; node ``i`` picks its neighbours among earlier nodes.
    Only the multiset of earlier degrees matters, so the state is the vector
    ``(c_0, …, c_d)`` of how many earlier nodes have each degree.
    """
    d = max_degree
    states: dict[tuple[int, ...], int] = {tuple([0] * (d + 1)): 1}
    for _ in range(n):
        following: dict[tuple[int, ...], int] = {}
        for counts, ways in states.items():
            for picks in _degree_picks(counts, d):
                weight = ways
                new_counts = list(counts)
                for j, k in enumerate(picks):
                    if k:
                        weight *= math.comb(counts[j], k)
                        new_counts[j] -= k
                        new_counts[j + 1] += k
                new_counts[sum(picks)] += 1
                key = tuple(new_counts)
                following[key] = following.get(key, 0) + weight
        states = following
    return sum(states.values())


def _degree_picks(counts: tuple[int, ...], d: int) -> Iterator[tuple[int, ...]]:
    """Vectors ``(k_0, …, k_{d−1})`` with ``k_j ≤ counts[j]`` and ``Σ k_j ≤ d``."""

    def extend(j: int, budget: int) -> Iterator[tuple[int, ...]]:
        if j == d:
            yield ()
            return
        for k in range(min(counts[j], budget) + 1):
            for rest in extend(j + 1, budget - k):
                yield (k, *rest)

    return extend(0, d)


class GraphDomain(DomainBase):
    """Simple undirected graphs on the public node set ``{0, …, n_nodes − 1}``.

    Parameters
    ----------
    n_nodes : int
        Number of nodes, ``≥ 1``.
    max_degree : int or None
        Optional public bound on every node's degree.

    Notes
    -----
    :meth:`validate` accepts a :class:`networkx.Graph` (node and edge attributes are
    dropped) or a 0/1 (or boolean) symmetric adjacency matrix, dense or
    ``scipy.sparse``, and returns a fresh ``networkx.Graph`` whose nodes are the Python
    ints ``0 … n − 1``; :meth:`edge_array` returns the validated edges as an array.  Node
    labels must be integers (Python or numpy, not bool): a graph with other labels is
    mapped onto ``0 … n − 1`` once with :func:`spec.relabel_graph`, and estimators
    convert an input once with :func:`spec.adjacency_matrix`.
    """

    kind: Literal["graph"] = "graph"
    n_nodes: PositiveInt
    max_degree: NonNegativeInt | None = None

    def label(self) -> str:
        """Short description used in error messages."""
        return f"GraphDomain(n_nodes={self.n_nodes}, max_degree={self.max_degree})"

    @property
    def degree_bound(self) -> int:
        """The effective bound on degrees: ``max_degree`` capped at ``n_nodes − 1``."""
        unbounded = self.n_nodes - 1
        return unbounded if self.max_degree is None else min(self.max_degree, unbounded)

    # -- validation ---------------------------------------------------------------------
    def validate(  # type: ignore[override]  # pydantic's deprecated BaseModel.validate
        self, x: Any
    ) -> nx.Graph:
        """Return ``x`` as a canonical ``networkx.Graph``.

        Raises
        ------
        InvalidGraphError
            For directed graphs, multigraphs, self-loops, node labels that are not the
            integers ``0 … n − 1`` (the missing and unexpected nodes are named), an
            adjacency matrix that is not square, symmetric and 0/1, or a degree above the
            bound.
        """
        return _graph_from_edges(self.n_nodes, self.edge_array(x).tolist())

    def edge_array(self, x: Any) -> npt.NDArray[np.int64]:
        """The validated edges of ``x`` as an ``(m, 2)`` int64 array of rows ``u < v``.

        Rows are sorted lexicographically.  Accepts everything :meth:`validate` accepts;
        adjacency matrices are checked with vectorised numpy operations (no Python loop
        over the entries), so large sparse graphs are cheap to validate.

        Raises
        ------
        InvalidGraphError
            As :meth:`validate`.
        """
        if isinstance(x, nx.Graph):
            edges = self._edges_of_networkx(x)
        elif sp.issparse(x):
            edges = self._edges_of_sparse(x)
        elif is_edge_array(x, self.n_nodes):
            edges = self._edges_of_edge_array(np.asarray(x))
        elif isinstance(x, (np.ndarray, list, tuple)):
            edges = self._edges_of_dense(x)
        else:
            raise InvalidGraphError(
                f"{self.label()}: expected a networkx.Graph or an adjacency matrix, "
                f"got {type(x).__name__}: {_show(x)}"
            )
        keys = edges[:, 0] * self.n_nodes + edges[:, 1]
        if keys.size and np.any(keys[1:] < keys[:-1]):
            edges = edges[np.argsort(keys, kind="stable")]
        self._check_degrees(edges)
        return edges

    def _edges_of_networkx(self, graph: nx.Graph) -> npt.NDArray[np.int64]:
        label = self.label()
        if graph.is_directed():
            raise InvalidGraphError(
                f"{label}: directed graphs are refused, got a {type(graph).__name__}"
            )
        if graph.is_multigraph():
            raise InvalidGraphError(
                f"{label}: multigraphs are refused, got a {type(graph).__name__}"
            )
        for node in graph.nodes:
            if isinstance(node, (bool, np.bool_)) or not isinstance(node, (int, np.integer)):
                raise InvalidGraphError(
                    f"{label}: node labels must be the integers 0..{self.n_nodes - 1}, got "
                    f"the non-integer label {node!r} ({type(node).__name__}); map the labels "
                    "to 0..n-1 once with spec.relabel_graph"
                )
        nodes = {int(v) for v in graph.nodes}
        expected = range(self.n_nodes)
        if len(nodes) != self.n_nodes or nodes != set(expected):
            extra = sorted(nodes.difference(expected))
            missing = sorted(set(expected).difference(nodes))
            raise InvalidGraphError(
                f"{label}: the node set must be exactly 0..{self.n_nodes - 1} "
                f"({self.n_nodes} nodes), got {graph.number_of_nodes()} nodes; "
                f"missing nodes {_show_nodes(missing)}, unexpected nodes {_show_nodes(extra)}"
            )
        # one pass over the adjacency dicts (vectorised: no Python tuple per edge); each
        # edge appears in both endpoints' dicts and is kept once, as u < v
        adj = graph.adj
        order = np.fromiter(adj.keys(), dtype=np.int64, count=len(adj))
        degrees = np.fromiter((len(nbrs) for nbrs in adj.values()), dtype=np.int64, count=len(adj))
        heads = np.fromiter(
            itertools.chain.from_iterable(adj.values()), dtype=np.int64, count=int(degrees.sum())
        )
        tails = np.repeat(order, degrees)
        loops = tails == heads
        if loops.any():
            raise InvalidGraphError(f"{label}: self-loop at node {int(tails[loops][0])!r}")
        keep = tails < heads
        return np.column_stack([tails[keep], heads[keep]])

    def _check_adjacency_shape(self, shape: tuple[int, ...]) -> None:
        n = self.n_nodes
        if shape != (n, n):
            raise InvalidGraphError(
                f"{self.label()}: adjacency matrix must have shape ({n}, {n}), got {shape}"
            )

    def _edges_of_edge_array(self, x: np.ndarray) -> npt.NDArray[np.int64]:
        label = self.label()
        if x.dtype.kind not in "iu":
            raise InvalidGraphError(
                f"{label}: an edge array needs integer node labels, got dtype {x.dtype}"
            )
        edges = x.astype(np.int64, copy=False)
        bad = (edges < 0) | (edges >= self.n_nodes)
        if bad.any():
            (i, j), _ = _at_first(bad)
            raise InvalidGraphError(
                f"{label}: edge {i} names node {int(edges[i, j])}, not a "
                f"node of 0..{self.n_nodes - 1}"
            )
        loops = edges[:, 0] == edges[:, 1]
        if loops.any():
            raise InvalidGraphError(f"{label}: self-loop at node {int(edges[loops][0, 0])}")
        edges = np.sort(edges, axis=1)
        keys = edges[:, 0] * self.n_nodes + edges[:, 1]
        order = np.argsort(keys, kind="stable")  # one sort: order and duplicates
        ordered = keys[order]
        repeated = np.flatnonzero(ordered[1:] == ordered[:-1])
        if repeated.size:
            k = int(order[repeated[0]])
            raise InvalidGraphError(
                f"{label}: edge ({int(edges[k, 0])}, {int(edges[k, 1])}) "
                "appears more than once in the edge array"
            )
        return edges[order]

    def _edges_of_dense(self, x: Any) -> npt.NDArray[np.int64]:
        label = self.label()
        try:
            matrix = np.asarray(x)
        except (ValueError, TypeError) as err:
            raise InvalidGraphError(f"{label}: cannot read the adjacency matrix ({err})") from None
        self._check_adjacency_shape(matrix.shape)
        if matrix.dtype.kind not in "biuf":
            raise InvalidGraphError(f"{label}: adjacency entries must be 0/1, got {matrix.dtype}")
        not_binary = (matrix != 0) & (matrix != 1)
        if not_binary.any():
            (i, j), _ = _at_first(not_binary)
            raise InvalidGraphError(
                f"{label}: adjacency entries must be 0 or 1, "
                f"got {_show(matrix[i, j])} at ({i}, {j})"
            )
        binary = matrix.astype(bool)
        self._check_symmetric_loopless(binary, binary.T)
        rows, cols = np.nonzero(np.triu(binary, 1))
        return np.column_stack([rows, cols]).astype(np.int64)

    def _edges_of_sparse(self, x: Any) -> npt.NDArray[np.int64]:
        label = self.label()
        n = self.n_nodes
        self._check_adjacency_shape(tuple(x.shape))
        if x.dtype.kind not in "biuf":
            raise InvalidGraphError(f"{label}: adjacency entries must be 0/1, got {x.dtype}")
        matrix = sp.csr_array(x)  # sums duplicate entries
        matrix.sum_duplicates()
        matrix.sort_indices()
        data = matrix.data
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(matrix.indptr))
        cols = matrix.indices.astype(np.int64)
        not_binary = (data != 0) & (data != 1)
        if not_binary.any():
            k = int(np.argmax(not_binary))
            raise InvalidGraphError(
                f"{label}: adjacency entries must be 0 or 1, got {_show(data[k])} "
                f"at ({int(rows[k])}, {int(cols[k])})"
            )
        keep = data != 0
        rows, cols = rows[keep], cols[keep]
        loops = rows == cols
        if loops.any():
            raise InvalidGraphError(f"{label}: self-loop at node {int(rows[np.argmax(loops)])}")
        ones = sp.csr_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n))
        excess = (ones - ones.T).tocoo()
        directed = excess.data > 0
        if directed.any():
            i, j = excess.row[directed], excess.col[directed]
            k = int(np.lexsort((j, i))[0])
            raise InvalidGraphError(
                f"{label}: adjacency matrix is not symmetric (directed edge): "
                f"A[{int(i[k])}, {int(j[k])}] = 1 but A[{int(j[k])}, {int(i[k])}] = 0"
            )
        upper = rows < cols
        return np.column_stack([rows[upper], cols[upper]])

    def _check_symmetric_loopless(
        self, binary: npt.NDArray[np.bool_], transposed: npt.NDArray[np.bool_]
    ) -> None:
        label = self.label()
        diagonal = np.diagonal(binary)
        if diagonal.any():
            raise InvalidGraphError(f"{label}: self-loop at node {int(np.argmax(diagonal))}")
        asymmetric = binary & ~transposed
        if asymmetric.any():
            (i, j), _ = _at_first(asymmetric)
            raise InvalidGraphError(
                f"{label}: adjacency matrix is not symmetric (directed edge): "
                f"A[{i}, {j}] = 1 but A[{j}, {i}] = 0"
            )

    def _check_degrees(self, edges: npt.NDArray[np.int64]) -> None:
        if self.max_degree is None:
            return
        degrees = np.bincount(edges.ravel(), minlength=self.n_nodes)
        above = degrees > self.max_degree
        if above.any():
            node = int(np.argmax(above))
            raise InvalidGraphError(
                f"{self.label()}: node {node} has degree {int(degrees[node])}, "
                f"above max_degree={self.max_degree}"
            )

    # -- size ---------------------------------------------------------------------------
    @property
    def is_finite(self) -> bool:
        """Always True: the node set is finite."""
        return True

    @property
    def cardinality(self) -> int:
        """Number of graphs: ``2**C(n, 2)`` without bound; exact DP count with one.

        Raises
        ------
        UnsupportedCombinationError
            When the degree-bounded count needs more than
            :data:`MAX_GRAPH_COUNT_STATES` DP states.
        """
        n, d = self.n_nodes, self.degree_bound
        if d >= n - 1:
            return 1 << math.comb(n, 2)  # 2 ** C(n, 2), as an int (int ** int is typed Any)
        if d == 0:
            return 1
        if math.comb(n + d, d) > MAX_GRAPH_COUNT_STATES:
            raise UnsupportedCombinationError(
                f"{self.label()}: counting degree-bounded graphs exactly is too costly "
                f"(more than {MAX_GRAPH_COUNT_STATES} states)"
            )
        return _count_degree_bounded_graphs(n, d)

    # -- generation ---------------------------------------------------------------------
    def sample(self, rng: RandomLike, size: int | None = None) -> Any:
        """A G(n, 1/2) graph, trimmed to the degree bound; with ``size`` a list of them.

        Trimming visits the nodes in random order and deletes random incident edges of
        any node above ``max_degree``; deletions only lower degrees, so one pass suffices.
        """
        gen = as_generator(rng)
        if size is not None:
            return [self.sample(gen) for _ in range(size)]
        n = self.n_nodes
        rows, cols = np.triu_indices(n, 1)
        keep = gen.random(rows.size) < 0.5
        graph = _graph_from_edges(n, zip(rows[keep].tolist(), cols[keep].tolist(), strict=True))
        bound = self.degree_bound
        for node in gen.permutation(n).tolist():
            excess = graph.degree(node) - bound
            if excess > 0:
                neighbours = sorted(graph[node])
                dropped = gen.choice(len(neighbours), size=excess, replace=False)
                graph.remove_edges_from((node, neighbours[k]) for k in dropped.tolist())
        return graph

    def extremes(self) -> tuple[nx.Graph, ...]:
        """The empty graph, the densest near-regular graph allowed, and a star at node 0.

        Without a binding bound the dense graph is complete; with bound ``d`` it is the
        circulant graph joining each node to its ``⌊d/2⌋`` nearest nodes on either side,
        plus the "opposite" chords ``(i, i + ⌊n/2⌋)`` where both ends have room.
        """
        n, d = self.n_nodes, self.degree_bound
        empty = _graph_from_edges(n, [])
        if d >= n - 1:
            dense = nx.complete_graph(n)
        else:
            dense = _graph_from_edges(
                n, [(i, (i + k) % n) for i in range(n) for k in range(1, d // 2 + 1)]
            )
            half = n // 2
            for i in range(n):
                j = (i + half) % n
                has_room = max(dense.degree(i), dense.degree(j)) < d
                if i != j and not dense.has_edge(i, j) and has_room:
                    dense.add_edge(i, j)
        star = _graph_from_edges(n, [(0, j) for j in range(1, min(n - 1, d) + 1)])
        graphs, seen = [], set()
        for graph in (empty, _graph_from_edges(n, dense.edges()), star):
            key = _edge_key(graph)
            if key not in seen:
                seen.add(key)
                graphs.append(graph)
        return tuple(graphs)

    def enumerate(self) -> Iterator[nx.Graph]:
        """Every graph within the degree bound, each once (lazy; exponential in ``n²``)."""
        n, d = self.n_nodes, self.degree_bound

        def extend(
            node: int, degrees: list[int], edges: list[tuple[int, int]]
        ) -> Iterator[nx.Graph]:
            if node == n:
                yield _graph_from_edges(n, edges)
                return
            room = d - degrees[node]
            later = [v for v in range(node + 1, n) if degrees[v] < d]
            for k in range(min(room, len(later)) + 1):
                for chosen in itertools.combinations(later, k):
                    new_degrees = degrees.copy()
                    new_degrees[node] += k
                    for v in chosen:
                        new_degrees[v] += 1
                    yield from extend(node + 1, new_degrees, edges + [(node, v) for v in chosen])

        return extend(0, [0] * n, [])


def is_edge_array(x: Any, n_nodes: int | None = None) -> bool:
    """True for an (m, 2) integer numpy array read as an edge list (not a matrix).

    A 2 × 2 array on a 2-node domain (``n_nodes == 2``, or unknown) is read as an
    adjacency matrix.
    """
    if not isinstance(x, np.ndarray) or x.ndim != 2 or x.shape[1] != 2 or x.dtype.kind not in "iu":
        return False
    return not (x.shape[0] == 2 and n_nodes in (2, None))
