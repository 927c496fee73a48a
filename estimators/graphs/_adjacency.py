"""The one conversion of a graph input into the sparse adjacency the estimators work on.

A thin layer over :func:`spec.adjacency_matrix` (validated, vectorised, ``int8`` CSR) that
reads the public number of nodes from the input when it is not given.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privaudit.spec import adjacency_matrix
from privaudit.spec.domains import is_edge_array
from privaudit.spec.errors import InvalidGraphError

__all__ = ["as_adjacency", "node_count"]


def node_count(graph: Any) -> int:
    """The number of nodes n of a graph input (the public node set is {0, …, n − 1}).

    Raises
    ------
    InvalidGraphError
        If ``graph`` is neither a networkx graph nor a square matrix.
    """
    if isinstance(graph, nx.Graph):
        return int(graph.number_of_nodes())
    if is_edge_array(graph):
        # an edge array names no isolated node above its largest label: pass a sparse
        # adjacency (or a networkx graph) when such nodes exist
        return int(graph.max()) + 1 if graph.size else 1
    shape = getattr(graph, "shape", None)
    if shape is None and isinstance(graph, (list, tuple)):
        try:
            shape = np.shape(np.asarray(graph, dtype=float))
        except (TypeError, ValueError):
            shape = None
    if shape is None or len(shape) != 2 or shape[0] != shape[1]:
        raise InvalidGraphError(
            f"a graph must be a networkx.Graph or a square adjacency matrix, got "
            f"{type(graph).__name__} of shape {shape}"
        )
    return int(shape[0])


def as_adjacency(graph: Any, n_nodes: int | None = None) -> sp.csr_array:
    """Validate ``graph`` and return its adjacency as a 0/1 ``int8`` CSR array.

    Parameters
    ----------
    graph : networkx.Graph, scipy.sparse matrix, (m, 2) integer edge array or array_like
        A simple undirected graph on the nodes {0, …, n − 1}, its symmetric 0/1
        adjacency matrix with zero diagonal, or its edges (each once, any order; n is then
        the largest label + 1 unless ``n_nodes`` says otherwise).
    n_nodes : int, optional
        The public number of nodes (default: read from ``graph``).

    Returns
    -------
    scipy.sparse.csr_array
        Shape (n, n), dtype int8, symmetric, zero diagonal, sorted indices.

    Raises
    ------
    InvalidGraphError
        For directed graphs, multigraphs, self-loops, a node set other than {0, …, n − 1},
        non-0/1 or asymmetric matrices (the message names the offending node or entry).

    Examples
    --------
    >>> import networkx as nx
    >>> as_adjacency(nx.path_graph(3)).toarray().tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    n = node_count(graph) if n_nodes is None else n_nodes
    if isinstance(n, int) and n < 1:
        raise InvalidGraphError(f"a graph needs at least one node, got n={n}")
    return adjacency_matrix(graph, n)
