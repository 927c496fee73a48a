"""The CoinPress baseline for network statistics: Algorithm A.2 on all tuples, under Wrapper 1.

Proposition 1 of Chaudhuri, Loh, Pandey & Sarkar (2024): Algorithm A.2 (CoinPress-style
U-statistic mean) on the all-tuples family of each node chunk's induced subgraph, median
over the q chunks.  Its private error is Θ̃(1/(n_α ε)) whatever the sparsity (Remark 2),
which is what Algorithm 1 improves on for sparse graphs (``docs/derivations.md`` §6).
The adjacency kernels take values in {0, 1}, so every clipped mean of A.2 is exact from
the chunk's density (:mod:`estimators.ustatistics.binary_coinpress`), at any chunk size.

Public parameters: R = 1 (a density lies in [0, 1]), τ = C²/4 = 1/4 (Hoeffding's lemma
for a kernel with range [0, 1]), γ = 0.01; no ξ.

Privacy under node neighbouring: rewiring v changes only the tuples S ∋ v of v's chunk, a
fraction dep = k/n_c of its all-tuples family, which is what the sensitivity
Δ_i = dep·(interval length + 2Q) of every A.2 step accounts for (Theorem A.1); the chunks
compose in parallel (Lemma A.5, :mod:`.node_chunks`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privaudit.spec import GraphDomain, MechanismSpec, NodeNeighbouring

from ..ustatistics.binary_coinpress import (
    BinaryCoinPressChunks,
    BinaryCoinPressMechanism,
    binary_coinpress_chunks,
    sensitivity_claim,
)
from ..ustatistics.coinpress import COINPRESS
from ._adjacency import as_adjacency
from .local_hajek_network import NODE_PRIVACY_NOTE, WRAPPER_1
from .node_chunks import NodeChunks, induced_subgraph
from .statistics import NetworkStatistic

__all__ = ["COINPRESS_RADIUS", "NetworkCoinPressMechanism", "network_coinpress_mechanism"]

#: R of Algorithm A.2: every density lies in [0, 1].
COINPRESS_RADIUS = 1.0


class NetworkCoinPressMechanism(BinaryCoinPressMechanism):
    """The wrapped CoinPress baseline on graphs (built by :func:`network_coinpress_mechanism`)."""

    def __init__(
        self, spec: MechanismSpec, engine: BinaryCoinPressChunks, chunks: NodeChunks
    ) -> None:
        super().__init__(spec, engine, lambda g: as_adjacency(g, chunks.n))
        self._chunks = chunks

    @property
    def chunks(self) -> NodeChunks:
        """The public node partition."""
        return self._chunks


def network_coinpress_mechanism(
    statistic: NetworkStatistic,
    chunks: NodeChunks,
    epsilon: float,
    *,
    gamma: float = 0.01,
    name: str | None = None,
) -> NetworkCoinPressMechanism:
    """The all-tuples CoinPress baseline under Wrapper 1 over node chunks, with its spec.

    Parameters
    ----------
    statistic : NetworkStatistic
        Edge or triangle density.
    chunks : NodeChunks
        The public partition; every chunk needs ≥ 2k nodes (A.2 needs k ≤ n/2).
    epsilon : float
        The claim ε > 0 of each chunk, hence of the median.
    gamma : float
        A.2's accuracy failure probability γ (public).
    name : str, optional
        The spec's name (default ``"graphs.<statistic>.coinpress"``).

    Returns
    -------
    NetworkCoinPressMechanism
        ``statistic`` hook: the chunks' first-step clipped means.
    """

    def chunk_density(adjacency: Any, block: np.ndarray) -> float:
        return statistic.exact(induced_subgraph(adjacency, block), validated=True)

    engine = binary_coinpress_chunks(
        chunks.blocks,
        statistic.degree,
        epsilon,
        u_statistic=chunk_density,
        radius=COINPRESS_RADIUS,
        gamma=gamma,
    )
    steps = "; ".join(
        f"chunks of {size} nodes: t = {run.schedule.steps}, epsilons "
        f"{[round(e, 6) for e in run.schedule.epsilons]}, sensitivities "
        f"{[float(f'{d:.6g}') for d in run.schedule.sensitivities]}"
        for size, run in engine.runs.items()
    )
    spec = MechanismSpec(
        name=name or f"graphs.{statistic.name}.coinpress",
        summary=(
            f"private {statistic.label}: median over {chunks.count} node chunks "
            "(induced subgraphs) of Algorithm A.2 (CoinPress) on all tuples; epsilon-DP "
            "under node neighbouring"
        ),
        references=(COINPRESS, WRAPPER_1),
        input_domain=GraphDomain(n_nodes=chunks.n),
        relation=NodeNeighbouring(),
        statistic=(
            f"the chunks' first-step clipped means (1/M) sum_S proj(h(S)) of the "
            f"{statistic.label} kernel over all {statistic.degree}-subsets of each "
            f"chunk (q = {chunks.count}); the release is the median of the chunks' "
            "A.2 releases"
        ),
        sensitivity=(sensitivity_claim(engine),),
        guarantee=engine.guarantee,
        notes=(
            f"{NODE_PRIVACY_NOTE} Baseline of Proposition 1: Wrapper 1 with q = "
            f"{chunks.count} chunks (public seed {chunks.seed}, alpha = {chunks.alpha:g}); "
            "rewiring one node changes only its chunk's induced subgraph (parallel "
            f"composition, Lemma A.5). R = {COINPRESS_RADIUS:g}, tau = 1/4, gamma = "
            f"{gamma:g}, dep = k/n_c; each chunk's claim is the basic composition of its "
            f"steps (Theorem A.1). {steps}."
        ),
    )
    return NetworkCoinPressMechanism(spec, engine, chunks)
