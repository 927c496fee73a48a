"""ξ from a private coarse estimate: the two-stage network mechanism (``docs/derivations.md`` §4).

Stage 1 releases p̂ = edge density + Laplace(2/(nε₀)) (ε₀-DP under node neighbouring,
:mod:`.coarse_estimate`) and turns it into an upper confidence bound p_up on the edge
probability; p_up is then **rounded up** to the public grid {2^{j/4} : j ≤ 0} (a
data-independent post-processing that can only enlarge the bound, by a factor < 2^{1/4},
so ξ grows by at most that factor).  The mean bound θ_up = p_up (edges) or p_up²
(triangles) gives each chunk size its ξ, and stage 2 is Algorithm 1 under Wrapper 1 with
that ξ (:mod:`.local_hajek_network`), at ε₁.

Privacy.  Stage 2's parameters depend on the data only through the ε₀-DP release of
stage 1, and stage 2 is ε₁-DP for every fixed ξ; by (adaptive) basic composition the pair
is (ε₀ + ε₁)-DP (:func:`mechanisms.basic_composition`), and releasing only the final
estimate is post-processing.  The grid makes the audit tractable: outputs are a mixture
over finitely many configured stage-2 algorithms, each evaluated once per input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privaudit.mechanisms import Mechanism, basic_composition, split_budget
from privaudit.spec import (
    GraphDomain,
    Laplace,
    MechanismSpec,
    NodeNeighbouring,
    PureDP,
    check_epsilon,
)
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError

from ..ustatistics.local_hajek_mechanism import ALGORITHM_1, USTAT_SPEC_RIGOROUS
from ._adjacency import as_adjacency
from .coarse_estimate import (
    CHAUDHURI_2024_NETWORK,
    coarse_density_mechanism,
    edge_probability_upper_bounds,
)
from .densities import edge_density
from .local_hajek_network import (
    NODE_PRIVACY_NOTE,
    WRAPPER_1,
    ChunkedLocalHajek,
    chunked_local_hajek,
)
from .node_chunks import NodeChunks
from .statistics import NetworkStatistic

__all__ = ["BOUND_GRID_STEPS_PER_OCTAVE", "TwoStageNetworkMechanism", "round_up_to_grid"]

#: The grid of edge-probability bounds is {2^{j/4}}: four steps per factor of two.
BOUND_GRID_STEPS_PER_OCTAVE = 4


def round_up_to_grid(bound: np.ndarray | float) -> np.ndarray:
    """The smallest 2^{j/4} (j ≤ 0 an integer) that is ≥ ``bound`` (bounds in (0, 1]).

    Examples
    --------
    >>> round_up_to_grid([1.0, 0.5, 0.3]).tolist()
    [1.0, 0.5, 0.3535533905932738]
    """
    values = np.asarray(bound, dtype=np.float64)
    if np.any(~(values > 0)) or np.any(values > 1):
        raise InvalidParameterError(f"bounds must lie in (0, 1], got {values!r}")
    steps = np.ceil(BOUND_GRID_STEPS_PER_OCTAVE * np.log2(values) - 1e-9)
    grid = np.exp2(steps / BOUND_GRID_STEPS_PER_OCTAVE)
    steps = np.where(grid < values, steps + 1, steps)  # never round down (floating point)
    return np.minimum(1.0, np.exp2(steps / BOUND_GRID_STEPS_PER_OCTAVE))


class TwoStageNetworkMechanism(Mechanism):
    """Stage 1 (coarse p̂, ε₀) then Algorithm 1 under Wrapper 1 with ξ from p̂ (ε₁).

    Parameters
    ----------
    statistic : NetworkStatistic
        Edge or triangle density.
    chunks : NodeChunks
        The public partition of Wrapper 1.
    epsilon : float
        The total claim ε = ε₀ + ε₁.
    coarse_fraction : float
        ε₀ = coarse_fraction·ε (through :func:`mechanisms.split_budget`), in (0, 1).
    gamma : float
        γ of the upper confidence bound and of ξ.
    name : str, optional
        The spec's name.
    """

    def __init__(
        self,
        statistic: NetworkStatistic,
        chunks: NodeChunks,
        epsilon: float,
        *,
        coarse_fraction: float,
        gamma: float,
        name: str | None = None,
    ) -> None:
        eps = check_epsilon(epsilon)
        if (
            isinstance(coarse_fraction, bool)
            or not isinstance(coarse_fraction, (int, float))
            or not 0.0 < float(coarse_fraction) < 1.0
        ):
            raise InvalidParameterError(
                f"coarse_fraction must lie in (0, 1), got {coarse_fraction!r}"
            )
        coarse, main = split_budget(
            PureDP(epsilon=eps), [float(coarse_fraction), 1.0 - float(coarse_fraction)]
        )
        self._statistic, self._chunks, self._gamma = statistic, chunks, float(gamma)
        self._coarse = coarse_density_mechanism(chunks.n, coarse.epsilon, "edge_density")
        self._main_guarantee = main
        self._engines: dict[float, ChunkedLocalHajek] = {}
        total = basic_composition([coarse, main])
        spec = MechanismSpec(
            name=name or f"graphs.{statistic.name}.local_hajek.coarse_xi",
            summary=(
                f"private {statistic.label}: xi from a private coarse edge density "
                f"(epsilon0 = {coarse.epsilon:g}), then Algorithm 1 under Wrapper 1 "
                f"(epsilon1 = {main.epsilon:g}); epsilon-DP under node neighbouring"
            ),
            references=(CHAUDHURI_2024_NETWORK, WRAPPER_1, ALGORITHM_1, USTAT_SPEC_RIGOROUS),
            input_domain=GraphDomain(n_nodes=chunks.n),
            relation=NodeNeighbouring(),
            statistic=(
                f"stage 1: edge density + Laplace(2/(n epsilon0)); stage 2: median over "
                f"{chunks.count} node chunks of Algorithm 1 on the {statistic.label} "
                "with xi from the stage-1 upper confidence bound"
            ),
            guarantee=total,
            notes=(
                f"{NODE_PRIVACY_NOTE} Budget by basic composition (adaptive): epsilon0 = "
                f"{coarse.epsilon:g} for the coarse edge density (node sensitivity 2/n) + "
                f"epsilon1 = {main.epsilon:g} for Algorithm 1 under Wrapper 1 (q = "
                f"{chunks.count}, seed {chunks.seed}) = {total.epsilon:g}. The upper "
                f"confidence bound p_up (gamma = {gamma:g}) is rounded up to the grid "
                "2^(j/4); theta_up = p_up^"
                f"{statistic.power_of_edge_probability}; xi "
                "per chunk size from the Bernstein + Chebyshev radius; only the final "
                "estimate is released (post-processing)."
            ),
        )
        super().__init__(spec)

    @property
    def coarse_mechanism(self) -> Mechanism:
        """Stage 1: the ε₀-DP Laplace mechanism for the edge density."""
        return self._coarse

    @property
    def coarse_noise_scale(self) -> float:
        """Stage 1's Laplace scale b = 2/(n ε₀)."""
        law = self._coarse.noise_law
        if not isinstance(law, Laplace):  # pragma: no cover - a Laplace mechanism
            raise UnsupportedCombinationError(f"stage 1 adds Laplace noise, got {law!r}")
        return float(law.scale)

    @property
    def _coarse_guarantee(self) -> PureDP:
        guarantee = self._coarse.spec.guarantee
        if not isinstance(guarantee, PureDP):  # pragma: no cover - built with a pure-DP claim
            raise UnsupportedCombinationError(f"stage 1 claims pure DP, got {guarantee!r}")
        return guarantee

    @property
    def stage_guarantees(self) -> tuple[PureDP, PureDP]:
        """(ε₀-DP of stage 1, ε₁-DP of stage 2)."""
        return self._coarse_guarantee, self._main_guarantee

    @property
    def chunks(self) -> NodeChunks:
        """The public partition."""
        return self._chunks

    # -- stage 1 ----------------------------------------------------------------------------
    def coarse_releases(
        self, graph: Any, size: int, rng: np.random.Generator, *, validated: bool = False
    ) -> np.ndarray:
        """``size`` independent stage-1 releases p̂ (a graph or an adjacency matrix).

        ``validated=True`` for an adjacency :func:`~estimators.graphs.as_adjacency` returned.
        """
        noise = self._coarse.noise_law.sample(rng, size)
        adjacency = graph if validated else as_adjacency(graph, self._chunks.n)
        density = edge_density(adjacency, validated=True)
        return density + np.asarray(noise, dtype=np.float64)

    def edge_probability_bounds(self, releases: np.ndarray) -> np.ndarray:
        """p_up of each release, rounded up to the grid 2^{j/4}."""
        eps0 = self._coarse_guarantee.epsilon
        return round_up_to_grid(
            edge_probability_upper_bounds(
                np.ravel(releases), self._chunks.n, eps0, gamma=self._gamma
            )
        )

    # -- stage 2 ----------------------------------------------------------------------------
    def engine_for(self, edge_probability_bound: float) -> ChunkedLocalHajek:
        """Stage 2 configured with ξ from θ_up = p_up^power (cached per grid value)."""
        key = float(edge_probability_bound)
        engine = self._engines.get(key)
        if engine is None:
            stat = self._statistic
            mean_bound = stat.mean_bound(key)
            engine = chunked_local_hajek(
                stat,
                self._chunks,
                self._main_guarantee.epsilon,
                xi_for_size=lambda size: stat.xi(size, mean_bound, gamma=self._gamma).value,
            )
            self._engines[key] = engine
        return engine

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        data = as_adjacency(data, self._chunks.n)
        bounds = self.edge_probability_bounds(self.coarse_releases(data, size, rng, validated=True))
        out = np.empty(size, dtype=np.float64)
        for value in np.unique(bounds):
            where = np.flatnonzero(bounds == value)
            engine = self.engine_for(float(value))
            out[where] = engine.draw(engine.evaluate(data), where.size, rng)
        return out
