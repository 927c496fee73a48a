"""Wrapper 1 over the nodes of a graph: a data-independent partition into induced subgraphs.

Wrapper 1 (median of means) of Chaudhuri, Loh, Pandey & Sarkar (2024) runs the inner
private algorithm on q disjoint chunks of the records and releases the median.  For a
graph the records are the nodes, so a chunk is the **induced subgraph** on a block of
nodes; edges between blocks are not used.

Privacy.  The partition depends only on the public (n, q, seed), never on the graph.  A
node-neighbouring pair (rewire the edges at one node v) changes only the induced subgraph
of v's block: every edge of another block's induced subgraph has both ends outside v's
block, hence is not incident to v.  The chunks' releases therefore compose in parallel
(Lemma A.5; :func:`mechanisms.parallel_composition`), and within its block the change is a
node-neighbouring change of the induced subgraph.

The chunk count and the partition are Wrapper 1's own
(:func:`estimators.ustatistics.partition.median_of_means_chunk_count`, q = ⌈8 ln(1/α)⌉ made
odd and clamped so every chunk has ≥ k nodes; a seeded permutation cut into blocks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from privaudit.spec.errors import InvalidParameterError

from ..ustatistics.partition import median_of_means_chunk_count, median_of_means_partition

__all__ = ["NodeChunks", "induced_subgraph", "node_chunks"]


@dataclass(frozen=True)
class NodeChunks:
    """The public partition of the nodes {0, …, n − 1} used by Wrapper 1.

    Attributes
    ----------
    n : int
        Number of nodes.
    blocks : tuple of numpy.ndarray
        q disjoint sorted node arrays covering {0, …, n − 1}.
    alpha : float
        The failure probability α the chunk count was chosen for.
    requested : int
        ⌈8 ln(1/α)⌉ made odd, before clamping.
    seed : int
        The public seed of the permutation.
    """

    n: int
    blocks: tuple[np.ndarray, ...]
    alpha: float
    requested: int
    seed: int

    @property
    def count(self) -> int:
        """q, the number of chunks (odd)."""
        return len(self.blocks)

    @property
    def sizes(self) -> tuple[int, ...]:
        """The chunk sizes (they differ by at most one)."""
        return tuple(int(b.size) for b in self.blocks)

    @property
    def smallest(self) -> int:
        """n_α, the size of the smallest chunk."""
        return min(self.sizes)

    @property
    def clamped(self) -> bool:
        """True when q < the requested count (too few nodes for k per chunk)."""
        return self.count < self.requested


def node_chunks(
    n: int, alpha: float, degree: int, *, seed: int = 0, warn: bool = True
) -> NodeChunks:
    """The data-independent partition of n nodes into q = ⌈8 ln(1/α)⌉ (odd) blocks.

    Parameters
    ----------
    n : int
        Number of nodes (public).
    alpha : float
        Wrapper 1's failure probability α ∈ (0, 1); α ≥ e^{−1/8} ≈ 0.8825 gives q = 1
        (no wrapper).
    degree : int
        Kernel degree k: every block keeps at least k nodes.
    seed : int
        Public seed of the permutation.
    warn : bool
        Warn (:class:`~spec.errors.UtilityConditionWarning`) when q is clamped.

    Returns
    -------
    NodeChunks

    Examples
    --------
    >>> chunks = node_chunks(100, 0.25, 2, seed=1)
    >>> chunks.count, sum(chunks.sizes)
    (13, 100)
    """
    count = median_of_means_chunk_count(alpha, n, degree, warn=warn)
    blocks = median_of_means_partition(n, count.chunks, seed)
    return NodeChunks(
        n=int(n), blocks=blocks, alpha=float(alpha), requested=count.requested, seed=int(seed)
    )


def induced_subgraph(adjacency: Any, nodes: np.ndarray) -> sp.csr_array:
    """The adjacency of the subgraph induced by ``nodes`` (in the order given).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> a = sp.csr_array(np.ones((4, 4), dtype=np.int8) - np.eye(4, dtype=np.int8))
    >>> induced_subgraph(a, np.array([0, 2])).toarray().tolist()
    [[0, 1], [1, 0]]
    """
    index = np.asarray(nodes, dtype=np.int64)
    if index.ndim != 1:
        raise InvalidParameterError(f"nodes must be a 1-d index array, got shape {index.shape}")
    sub = sp.csr_array(adjacency)[index][:, index]
    sub = sp.csr_array(sub)
    sub.sort_indices()
    return sub
