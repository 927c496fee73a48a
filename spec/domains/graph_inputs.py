"""Graph inputs for estimators: a declared relabelling, and the validated sparse adjacency.

Graph inputs are :class:`networkx.Graph` objects on the public node set ``{0, …, n − 1}``
(:class:`~spec.domains.GraphDomain` validates them).  Estimators that work on large graphs
convert an input **once** into a ``scipy.sparse.csr_array`` with :func:`adjacency_matrix`
and work on that; a graph whose nodes carry other labels (user ids, strings) is mapped to
``0 … n − 1`` once with :func:`relabel_graph` and a declared, public relabelling.

Both functions validate completely (simple, undirected, no self-loops, the exact node set,
0/1 symmetric adjacency with a zero diagonal, the optional degree bound) and raise
:class:`~spec.errors.InvalidGraphError` naming the offending node, entry or label.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping
from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp

from ..errors import InvalidGraphError, InvalidParameterError
from ._common import _show
from .graphs import GraphDomain

__all__ = ["adjacency_matrix", "relabel_graph"]

#: Labels shown in an error message before "…".
_SHOWN_LABELS = 5


def _show_labels(labels: list[Any]) -> str:
    ordered = sorted(labels, key=repr)
    shown = ", ".join(repr(v) for v in ordered[:_SHOWN_LABELS])
    more = f", … ({len(ordered)} in all)" if len(ordered) > _SHOWN_LABELS else ""
    return f"[{shown}{more}]"


def _check_relabelling(relabelling: Any) -> dict[Hashable, int]:
    """The mapping as a dict of label → int, checked to be a bijection onto ``0 … n − 1``."""
    if not isinstance(relabelling, Mapping):
        raise InvalidParameterError(
            f"relabelling must be a mapping from node labels to 0..n-1, "
            f"got {type(relabelling).__name__}"
        )
    if not relabelling:
        raise InvalidParameterError("relabelling is empty: the public node set needs n >= 1 nodes")
    targets: dict[Hashable, int] = {}
    for label, target in relabelling.items():
        if isinstance(target, (bool, np.bool_)) or not isinstance(target, numbers.Integral):
            raise InvalidParameterError(
                f"relabelling maps {label!r} to {_show(target)}, which is not an integer node"
            )
        targets[label] = int(target)
    n = len(targets)
    outside = [label for label, t in targets.items() if not 0 <= t < n]
    if outside:
        label = outside[0]
        raise InvalidParameterError(
            f"relabelling maps {label!r} to {targets[label]}, outside the public node set "
            f"0..{n - 1} ({n} labels)"
        )
    seen: dict[int, Hashable] = {}
    for label, t in targets.items():
        if t in seen:
            raise InvalidParameterError(
                f"relabelling is not one-to-one: {seen[t]!r} and {label!r} both map to node {t}"
            )
        seen[t] = label
    return targets


def relabel_graph(graph: Any, relabelling: Mapping[Hashable, int]) -> nx.Graph:
    """Apply a declared relabelling once: a fresh graph on the nodes ``0 … n − 1``.

    Parameters
    ----------
    graph : networkx.Graph
        Simple undirected graph whose node labels are exactly the keys of ``relabelling``.
    relabelling : mapping of label to int
        The public bijection from the graph's labels onto ``{0, …, n − 1}`` with
        ``n = len(relabelling)``.

    Returns
    -------
    networkx.Graph
        The relabelled graph, validated by ``GraphDomain(n_nodes=n)``; node and edge
        attributes are dropped.

    Raises
    ------
    InvalidParameterError
        If ``relabelling`` is not a mapping onto ``0 … n − 1`` that is one-to-one.
    InvalidGraphError
        If ``graph`` is not a networkx graph, is directed or a multigraph, has self-loops,
        or its labels differ from the keys of ``relabelling`` (missing and unexpected
        labels are named).

    Examples
    --------
    >>> import networkx as nx
    >>> g = relabel_graph(nx.Graph([("ann", "bob"), ("bob", "cy")]),
    ...                   {"ann": 0, "bob": 1, "cy": 2})
    >>> sorted(g.edges())
    [(0, 1), (1, 2)]
    """
    targets = _check_relabelling(relabelling)
    if not isinstance(graph, nx.Graph):
        raise InvalidGraphError(
            f"relabel_graph: expected a networkx.Graph, got {type(graph).__name__}"
        )
    if graph.is_directed() or graph.is_multigraph():
        raise InvalidGraphError(
            f"relabel_graph: directed graphs and multigraphs are refused, got a "
            f"{type(graph).__name__}"
        )
    labels = set(graph.nodes)
    if labels != set(targets):
        missing = [v for v in targets if v not in labels]
        extra = [v for v in labels if v not in targets]
        raise InvalidGraphError(
            f"relabel_graph: the graph's labels must be exactly the {len(targets)} declared "
            f"labels; missing labels {_show_labels(missing)}, "
            f"undeclared labels {_show_labels(extra)}"
        )
    relabelled = nx.Graph()
    relabelled.add_nodes_from(range(len(targets)))
    for u, v in graph.edges():
        if u == v:
            raise InvalidGraphError(f"relabel_graph: self-loop at node {u!r}")
        relabelled.add_edge(targets[u], targets[v])
    return GraphDomain(n_nodes=len(targets)).validate(relabelled)


def adjacency_matrix(
    graph: Any,
    n_nodes: int,
    *,
    max_degree: int | None = None,
    relabelling: Mapping[Hashable, int] | None = None,
) -> sp.csr_array:
    """The validated adjacency matrix of a graph input, as a sparse ``int8`` CSR array.

    Parameters
    ----------
    graph : networkx.Graph, scipy.sparse matrix/array or array-like
        A simple undirected graph on ``{0, …, n_nodes − 1}``, or its 0/1 (or boolean)
        symmetric adjacency matrix with a zero diagonal, dense or sparse.
    n_nodes : int
        The public number of nodes ``n ≥ 1``.
    max_degree : int, optional
        A public degree bound every node must respect.
    relabelling : mapping of label to int, optional
        Applied first, with :func:`relabel_graph` (networkx input only); it must map onto
        ``0 … n_nodes − 1``.

    Returns
    -------
    scipy.sparse.csr_array
        Shape ``(n, n)``, dtype ``int8``, entries 0/1, symmetric, zero diagonal, sorted
        indices and no explicit zeros.  Products such as ``A @ A`` must be taken in a wider
        type (``A.astype(np.int64)``): ``int8`` arithmetic wraps around at 127.

    Raises
    ------
    InvalidParameterError
        If ``n_nodes`` is not an integer ≥ 1, ``max_degree`` not an integer ≥ 0, or the
        relabelling is malformed or does not have ``n_nodes`` labels.
    InvalidGraphError
        If the input is not a valid graph on ``n_nodes`` nodes (see
        :meth:`GraphDomain.validate`).

    Examples
    --------
    >>> import networkx as nx
    >>> a = adjacency_matrix(nx.path_graph(3), 3)
    >>> a.toarray().tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    >>> a.dtype
    dtype('int8')
    """
    domain = GraphDomain(n_nodes=n_nodes, max_degree=max_degree)
    if relabelling is not None:
        targets = _check_relabelling(relabelling)
        if len(targets) != domain.n_nodes:
            raise InvalidParameterError(
                f"relabelling has {len(targets)} labels but n_nodes = {domain.n_nodes}"
            )
        graph = relabel_graph(graph, targets)
    edges = domain.edge_array(graph)
    n, m = domain.n_nodes, edges.shape[0]
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    cols = np.concatenate([edges[:, 1], edges[:, 0]])
    matrix = sp.csr_array((np.ones(2 * m, dtype=np.int8), (rows, cols)), shape=(n, n))
    matrix.sort_indices()
    return matrix
