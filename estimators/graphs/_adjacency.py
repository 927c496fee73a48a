"""The one conversion of a graph input into the sparse adjacency the estimators work on.

Sparse inputs are validated with vectorised checks (0/1 entries, zero diagonal,
symmetry) so that re-validating an adjacency that is already converted costs O(nnz);
networkx graphs and dense matrices go through :meth:`spec.GraphDomain.validate`.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp

from spec import GraphDomain
from spec.errors import InvalidGraphError

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
    shape = getattr(graph, "shape", None)
    if shape is None and isinstance(graph, (list, tuple)):
        shape = np.shape(np.asarray(graph, dtype=object))
    if shape is None or len(shape) != 2 or shape[0] != shape[1]:
        raise InvalidGraphError(
            f"a graph must be a networkx.Graph or a square adjacency matrix, got "
            f"{type(graph).__name__} of shape {shape}")
    return int(shape[0])


def _from_sparse(matrix: Any, n: int) -> sp.csr_array:
    if matrix.shape != (n, n):
        raise InvalidGraphError(f"adjacency matrix must have shape ({n}, {n}), got {matrix.shape}")
    csr = sp.csr_array(matrix, copy=True)
    csr.sum_duplicates()
    if csr.dtype.kind not in "biuf":
        raise InvalidGraphError(f"adjacency entries must be 0/1, got dtype {csr.dtype}")
    data = csr.data
    bad = (data != 0) & (data != 1)
    if bad.any():
        coo = csr.tocoo()
        k = int(np.argmax(bad))
        raise InvalidGraphError(
            f"adjacency entries must be 0 or 1, got {data[k].item()!r} at ({int(coo.row[k])}, "
            f"{int(coo.col[k])})")
    csr.eliminate_zeros()
    csr = csr.astype(np.int8)
    diagonal = csr.diagonal()
    if diagonal.any():
        raise InvalidGraphError(f"self-loop at node {int(np.argmax(diagonal != 0))}")
    asymmetric = (csr != csr.T).tocoo()
    if asymmetric.nnz:
        i, j = int(asymmetric.row[0]), int(asymmetric.col[0])
        raise InvalidGraphError(
            f"adjacency matrix is not symmetric (directed edge): A[{i}, {j}] = {csr[i, j]} "
            f"but A[{j}, {i}] = {csr[j, i]}")
    csr.sort_indices()
    return csr


def as_adjacency(graph: Any, n_nodes: int | None = None) -> sp.csr_array:
    """Validate ``graph`` and return its adjacency as a 0/1 ``int8`` CSR array.

    Parameters
    ----------
    graph : networkx.Graph or array_like or scipy.sparse matrix
        A simple undirected graph on the nodes {0, …, n − 1}, or its symmetric 0/1
        adjacency matrix with zero diagonal.
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
    n = node_count(graph) if n_nodes is None else int(n_nodes)
    if n < 1:
        raise InvalidGraphError(f"a graph needs at least one node, got n={n}")
    if sp.issparse(graph):
        return _from_sparse(graph, n)
    validated = GraphDomain(n_nodes=n).validate(graph)
    edges = np.asarray(list(validated.edges()), dtype=np.int64).reshape(-1, 2)
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    cols = np.concatenate([edges[:, 1], edges[:, 0]])
    adjacency = sp.csr_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n))
    adjacency.sum_duplicates()
    adjacency.sort_indices()
    return adjacency
