"""Algorithm 1 under Wrapper 1 on the node chunks of a graph, as an audited mechanism.

For a network statistic (edge or triangle density) the kernel's records are the nodes of
the graph and its data is the adjacency matrix (Chaudhuri et al. 2024, Section 5.2).  The
release is the median over the q node chunks of :mod:`.node_chunks` of

    Ã^{(c)} + (S^{(c)}/β)·Z_c,      Z_c i.i.d. with density ∝ 1/(1 + z⁴),

where Ã^{(c)} and S^{(c)} = S_rig are Algorithm 1 (rigorous smooth bound, docs/derivations.md §3) on
the induced subgraph of chunk c with its own ξ (ξ depends on the chunk size).

Privacy, under node neighbouring (rewire every edge at one node v; the node set is
public — *changing one latent point X_v is rewiring one node*, Chaudhuri et al. 2024, Section 2.2):

* inside a chunk, rewiring v changes exactly the kernel values h(X_S) with S ∋ v, which is
  all the proof of Algorithm 1 uses (Theorems 2 and 4), so each chunk's release is
  ε-DP with ε = (3 + 3^{3/4})β (the tight constant of docs/derivations.md §1; the paper states 10β);
* the partition is public and only v's chunk changes (:mod:`.node_chunks`), so the tuple
  of chunk releases — and its median — is ε-DP by parallel composition (Lemma A.5).

With q = 1 the mechanism is Algorithm 1 itself: its spec carries the smooth-sensitivity
claim and the 1/(1+z⁴) noise, with the ``statistic`` (Ã_n) and ``smooth_sensitivity`` (S)
hooks.  With q > 1 the statistic is the vector (Ã^{(1)}, …, Ã^{(q)}) and the smooth claim
is max_c S^{(c)}, a β-smooth upper bound on its ℓ∞ local sensitivity (a node-neighbouring
pair moves one coordinate, whose S^{(c)} is β-smooth) — the claim Wrapper 1's mechanism in
:mod:`estimators.ustatistics.median_of_means` states for records.  Either way the auditor's
gray-box checks (S ≥ LS, S(X) ≤ e^β S(X′)) run on graph pairs.

This module parallels :func:`estimators.ustatistics.median_of_means.median_of_means_mechanism`
(and reuses its partition, Algorithm 1 configuration, spec builder, cache and release
:func:`~estimators.ustatistics.median_of_means.median_of_noisy_chunks`) instead of calling
it, for three graph-specific reasons: inputs are validated straight into the sparse
adjacency (no networkx round trip at n = 2,000), the spec states node-level privacy, and
with q = 1 the spec keeps the noise law so the auditor's noise-conformance check runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from privaudit.mechanisms import Mechanism, parallel_composition
from privaudit.mechanisms.smooth_sensitivity import NRS_2007
from privaudit.spec import (
    GraphDomain,
    InverseQuartic,
    MechanismSpec,
    NodeNeighbouring,
    PureDP,
    Reference,
    SmoothSensitivityBound,
    check_epsilon,
)

from ..ustatistics.local_hajek import (
    LocalHajekAlgorithm,
    LocalHajekStatistic,
    internal_epsilon,
    local_hajek_algorithm,
)
from ..ustatistics.local_hajek_mechanism import (
    ALGORITHM_1,
    USTAT_SPEC_RIGOROUS,
    EvaluationCache,
    local_hajek_spec,
)
from ..ustatistics.median_of_means import median_of_noisy_chunks
from ._adjacency import as_adjacency
from .node_chunks import NodeChunks, induced_subgraph
from .statistics import NetworkStatistic

__all__ = [
    "ChunkedEvaluation",
    "ChunkedLocalHajek",
    "NODE_PRIVACY_NOTE",
    "NetworkStatisticMechanism",
    "WRAPPER_1",
    "chunked_local_hajek",
    "network_local_hajek_mechanism",
]

WRAPPER_1 = Reference(
    citation=ALGORITHM_1.citation,
    locator="Wrapper 1 (median of means) and Lemmas A.5-A.6; Section 5.2 and Algorithm A.5 "
    "(network statistics, node-level privacy)",
    url=ALGORITHM_1.url,
)

#: The node-level privacy statement every graph estimator's spec carries.
NODE_PRIVACY_NOTE = (
    "Node-level privacy: the relation is node neighbouring on graphs with the public node set "
    "{0..n-1} - changing one latent point = rewiring one node (every edge at one node may "
    "change arbitrarily; Chaudhuri et al. 2024 Section 2.2; Raskhodnikova et al. 2026 Section 2). "
    "Rewiring node v "
    "changes exactly the kernel values h(X_S) with v in S, which is all the proof of "
    "Algorithm 1 uses."
)


@dataclass(frozen=True)
class ChunkedEvaluation:
    """Algorithm 1 on every chunk of one graph, before the noise.

    Attributes
    ----------
    chunks : tuple of LocalHajekStatistic
        One per chunk, in the partition's order.
    """

    chunks: tuple[LocalHajekStatistic, ...]

    @property
    def weighted_means(self) -> np.ndarray:
        """Ã^{(c)} per chunk."""
        return np.array([c.weighted_mean for c in self.chunks])

    @property
    def means(self) -> np.ndarray:
        """A^{(c)} = U_{n_c} per chunk (not private)."""
        return np.array([c.mean for c in self.chunks])

    @property
    def noise_scales(self) -> np.ndarray:
        """S^{(c)}/β per chunk."""
        return np.array([c.noise_scale for c in self.chunks])

    @property
    def levels(self) -> np.ndarray:
        """The band levels L^{(c)} per chunk."""
        return np.array([c.level for c in self.chunks], dtype=np.int64)


@dataclass(frozen=True, eq=False)
class ChunkedLocalHajek:
    """Algorithm 1 (rigorous mode) under Wrapper 1 over node chunks, every parameter public.

    Attributes
    ----------
    statistic : NetworkStatistic
        Edge or triangle density.
    chunks : NodeChunks
        The public partition.
    algorithms : mapping of int to LocalHajekAlgorithm
        Algorithm 1 configured for each chunk size (its ξ depends on the size).
    epsilon : float
        The claim of every chunk's release, hence of the median: (3 + 3^{3/4})β.
    """

    statistic: NetworkStatistic
    chunks: NodeChunks
    algorithms: Mapping[int, LocalHajekAlgorithm]
    epsilon: float

    @property
    def beta(self) -> float:
        """Algorithm 1's ε (smoothness, ramp slope and noise divisor)."""
        return next(iter(self.algorithms.values())).beta

    @property
    def xi_by_size(self) -> Mapping[int, float]:
        """The ξ used on chunks of each size."""
        return MappingProxyType({size: a.xi for size, a in self.algorithms.items()})

    def evaluate(self, adjacency: Any) -> ChunkedEvaluation:
        """Algorithm 1 lines 1–20 on the induced subgraph of every chunk (validated CSR input)."""
        out = []
        for block in self.chunks.blocks:
            sub = induced_subgraph(adjacency, block)
            out.append(self.algorithms[int(block.size)].evaluate(sub))
        return ChunkedEvaluation(chunks=tuple(out))

    def draw(
        self, evaluation: ChunkedEvaluation, size: int, rng: np.random.Generator
    ) -> np.ndarray:
        """``size`` independent releases: the median of the noisy chunk statistics."""
        q = self.chunks.count
        noise = InverseQuartic(scale=1.0).sample(rng, size * q).reshape(size, q)
        return median_of_noisy_chunks(evaluation.weighted_means, evaluation.noise_scales, noise.T)


def chunked_local_hajek(
    statistic: NetworkStatistic,
    chunks: NodeChunks,
    epsilon: float,
    *,
    xi_for_size: Callable[[int], float],
) -> ChunkedLocalHajek:
    """Configure Algorithm 1 (rigorous, β = ε/(3 + 3^{3/4})) on every chunk size.

    Parameters
    ----------
    statistic : NetworkStatistic
        Which density.
    chunks : NodeChunks
        The public partition (every chunk has ≥ k nodes).
    epsilon : float
        The claim ε > 0 of the release.
    xi_for_size : callable
        Chunk size ↦ the public ξ ≥ 0 for chunks of that size.
    """
    eps = check_epsilon(epsilon)
    beta = internal_epsilon(eps, "rigorous")
    kernel = statistic.kernel()
    algorithms = {
        size: local_hajek_algorithm(
            size, kernel, xi=float(xi_for_size(size)), beta=beta, sensitivity_mode="rigorous"
        )
        for size in sorted(set(chunks.sizes))
    }
    return ChunkedLocalHajek(
        statistic=statistic, chunks=chunks, algorithms=MappingProxyType(algorithms), epsilon=eps
    )


class NetworkStatisticMechanism(Mechanism):
    """The release of :class:`ChunkedLocalHajek` on a graph, with its spec.

    Inputs are graphs on the public node set (networkx graphs or adjacency matrices),
    validated by the spec's :class:`~spec.GraphDomain`; :meth:`evaluate` converts them once
    into the sparse adjacency.  With
    one chunk the gray-box hooks are ``statistic`` (Ã_n) and ``smooth_sensitivity`` (S);
    with q chunks the vector of chunk statistics and max_c S^{(c)}.  Per-input
    evaluations are cached.
    """

    def __init__(self, spec: MechanismSpec, engine: ChunkedLocalHajek) -> None:
        super().__init__(spec)
        self._engine = engine
        self._cached = EvaluationCache(engine.evaluate)

    @property
    def engine(self) -> ChunkedLocalHajek:
        """The configured algorithm (partition, per-size Algorithm 1, ε)."""
        return self._engine

    @property
    def chunks(self) -> NodeChunks:
        """The public node partition."""
        return self._engine.chunks

    def evaluate(self, data: Any) -> ChunkedEvaluation:
        """Algorithm 1 on every chunk of ``data`` before the noise (cached; not private).

        ``data`` may be a networkx graph or an adjacency matrix; it is validated and
        converted once into the sparse adjacency (:func:`spec.adjacency_matrix`).
        """
        return self.evaluate_adjacency(as_adjacency(data, self._engine.chunks.n))

    def evaluate_adjacency(self, adjacency: Any) -> ChunkedEvaluation:
        """:meth:`evaluate` on an adjacency :func:`~estimators.graphs.as_adjacency` returned."""
        return self._cached(adjacency)

    def statistic(self, data: Any) -> float | np.ndarray:
        """Ã_n on the whole graph (q = 1), or the vector of the chunks' Ã^{(c)} (gray-box hook)."""
        values = self.evaluate(data).weighted_means
        return float(values[0]) if values.size == 1 else values

    def smooth_sensitivity(self, data: Any) -> float:
        """S_rig(X) (q = 1), or max_c S_rig^{(c)} (gray-box hook)."""
        return float(max(c.smooth_sensitivity for c in self.evaluate(data).chunks))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self._engine.draw(self.evaluate(data), size, rng)


def _wrapped_spec(engine: ChunkedLocalHajek, *, name: str, notes: str) -> MechanismSpec:
    chunks, stat = engine.chunks, engine.statistic
    per_chunk = [PureDP(epsilon=engine.epsilon)] * chunks.count
    guarantee = parallel_composition(per_chunk)
    xi = ", ".join(f"{xi:.6g} on {size} nodes" for size, xi in engine.xi_by_size.items())
    return MechanismSpec(
        name=name,
        sensitivity=(
            SmoothSensitivityBound(
                beta=engine.beta,
                norm="linf",
                description=(
                    "max over chunks c of S_rig^(c), Algorithm 1's rigorous smooth "
                    "bound on the subgraph induced by chunk c (docs/derivations.md "
                    "section 3): a beta-smooth bound on the l_inf local sensitivity of the "
                    "vector of chunk statistics"
                ),
            ),
        ),
        summary=(
            f"private {stat.label}: median over {chunks.count} node chunks (induced "
            "subgraphs) of Algorithm 1 with rigorous smooth sensitivity; epsilon-DP under "
            "node neighbouring"
        ),
        references=(WRAPPER_1, ALGORITHM_1, USTAT_SPEC_RIGOROUS, NRS_2007),
        input_domain=GraphDomain(n_nodes=chunks.n),
        relation=NodeNeighbouring(),
        statistic=(
            f"the vector of the q = {chunks.count} chunk statistics A~^(c), the "
            f"local-Hajek-weighted {stat.label} of the subgraph induced by chunk c; the "
            "release is the median of A~^(c) + (S_rig^(c)/beta) Z_c, Z_c ~ 1/(1+z^4)"
        ),
        guarantee=guarantee,
        notes=(
            f"{NODE_PRIVACY_NOTE} Wrapper 1: q = {chunks.count} chunks of sizes "
            f"{sorted(set(chunks.sizes))} from a public permutation (seed {chunks.seed}, "
            f"alpha = {chunks.alpha:g}); rewiring one node changes only the subgraph "
            "induced by its own chunk, so the q releases compose in parallel (Lemma A.5) "
            f"and each is (3 + 3^(3/4)) beta = {engine.epsilon:g}-DP with beta = "
            f"{engine.beta:.6g} (rigorous smooth bound S_rig, docs/derivations.md section 3); "
            f"xi: {xi}. {notes}"
        ),
    )


def network_local_hajek_mechanism(
    engine: ChunkedLocalHajek, *, name: str | None = None, notes: str = ""
) -> NetworkStatisticMechanism:
    """The mechanism of a configured :class:`ChunkedLocalHajek`, with the spec described above.

    Parameters
    ----------
    engine : ChunkedLocalHajek
        The configured algorithm.
    name : str, optional
        The spec's name (default ``"graphs.<statistic>.local_hajek"``).
    notes : str
        Appended to the spec's notes (e.g. how ξ was chosen).
    """
    stat, chunks = engine.statistic, engine.chunks
    spec_name = name or f"graphs.{stat.name}.local_hajek"
    if chunks.count == 1:
        algorithm = engine.algorithms[chunks.n]
        base = local_hajek_spec(
            algorithm,
            engine.epsilon,
            input_domain=GraphDomain(n_nodes=chunks.n),
            relation=NodeNeighbouring(),
            name=spec_name,
            summary=(
                f"private {stat.label} of a graph on {chunks.n} nodes by Algorithm 1 "
                "(rigorous smooth sensitivity); epsilon-DP under node neighbouring"
            ),
        )
        spec = base.model_copy(
            update={
                "notes": f"{NODE_PRIVACY_NOTE} {base.notes} {notes}".strip(),
                "references": (WRAPPER_1, *base.references),
            }
        )
        spec = MechanismSpec.model_validate(spec.model_dump())
    else:
        spec = _wrapped_spec(engine, name=spec_name, notes=notes)
    return NetworkStatisticMechanism(spec, engine)
