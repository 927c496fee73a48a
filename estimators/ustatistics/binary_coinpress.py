"""Algorithm A.2 on all tuples for a {0, 1}-valued kernel, from U_n alone, under Wrapper 1.

For a kernel with values in {0, 1} (adjacency edge and triangle kernels, the collision
kernel) the all-tuples family has M = C(n, k) values Y_j of which U_n·M are 1, so every
clipped mean of Algorithm A.2 (U-StatOneStep line 1–3) is exact from U_n:

    (1/M) Σ_j proj_[l, r](Y_j) = (1 − U_n)·proj_[l, r](0) + U_n·proj_[l, r](1).

This runs the baseline of Proposition 1 (:mod:`estimators.ustatistics.coinpress`, whose
mechanism materialises the C(n, k) tuples and so stops at 5·10⁶ of them) at any n, with
the same public schedule (:func:`estimators.ustatistics.coinpress_schedule.coinpress_schedule`:
R, τ = 1/4 by Hoeffding's lemma, t, ε_i, Q(β_i), Δ_i = dep·(length + 2Q), dep = k/n) and
the same draws: with the same generator it reproduces ``coinpress_mechanism(...).sample``
exactly (a unit test checks it).

Wrapper 1: q chunks from a public partition; every chunk's release is ε-DP (Theorem A.1)
and one neighbouring pair changes one chunk, so the median is ε-DP (Lemma A.5).  The
statistic of the spec is the vector of the chunks' first-step clipped means; its ℓ∞ global
sensitivity is the largest Δ_1.

References
----------
.. [1] Chaudhuri, Loh, Pandey & Sarkar, NeurIPS 2024, Algorithms A.2–A.3, Theorem A.1,
   Proposition 1, Wrapper 1 and Lemma A.5; ``docs/derivations.md`` §5.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from privaudit.mechanisms import Mechanism, parallel_composition
from privaudit.spec import (
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PrivacyGuarantee,
    check_epsilon,
)

from .coinpress_schedule import CoinPressSchedule, coinpress_schedule

__all__ = [
    "BINARY_KERNEL_TAU",
    "BinaryCoinPress",
    "BinaryCoinPressChunks",
    "BinaryCoinPressMechanism",
    "binary_coinpress",
    "binary_coinpress_chunks",
    "sensitivity_claim",
]

#: τ = C²/4 for a kernel with range [0, 1] (Hoeffding's lemma).
BINARY_KERNEL_TAU = 0.25


@dataclass(frozen=True)
class BinaryCoinPress:
    """Algorithm A.2 with all k-subsets of n records, for a {0, 1} kernel.

    Attributes
    ----------
    n, degree : int
        Records and kernel degree k ≤ n/2.
    schedule : CoinPressSchedule
        The public schedule (dep = k/n, M = C(n, k)).
    """

    n: int
    degree: int
    schedule: CoinPressSchedule

    def clipped_means(self, u_statistic: float, step: int, centres: np.ndarray) -> np.ndarray:
        """(1/M) Σ_j proj(Y_j) onto the clipping interval of ``step`` around each centre."""
        lo, hi = self.schedule.clip_bounds(step, centres)
        return (1.0 - u_statistic) * np.clip(0.0, lo, hi) + u_statistic * np.clip(1.0, lo, hi)

    def first_step(self, u_statistic: float) -> float:
        """The first step's clipped mean (the statistic whose sensitivity is Δ_1)."""
        return float(self.clipped_means(u_statistic, 0, np.zeros(1))[0])

    def draw(self, u_statistic: float, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases (the centre of the last interval)."""
        centres = np.zeros(size)
        for step, scale in enumerate(self.schedule.laplace_scales):
            centres = self.clipped_means(u_statistic, step, centres) + Laplace(scale=scale).sample(
                rng, size
            )
        return centres


def binary_coinpress(
    n: int, degree: int, epsilon: float, *, radius: float = 1.0, gamma: float = 0.01
) -> BinaryCoinPress:
    """Configure :class:`BinaryCoinPress` (R = ``radius``, τ = 1/4, all tuples)."""
    schedule = coinpress_schedule(
        epsilon=check_epsilon(epsilon),
        radius=radius,
        tau=BINARY_KERNEL_TAU,
        kind="all",
        n=n,
        degree=degree,
        dependence=degree / n,
        family_size=math.comb(n, degree),
        gamma=gamma,
        warn=False,
    )
    return BinaryCoinPress(n=int(n), degree=int(degree), schedule=schedule)


@dataclass(frozen=True, eq=False)
class BinaryCoinPressChunks:
    """Wrapper 1 around :class:`BinaryCoinPress`: one configured run per chunk size.

    Attributes
    ----------
    blocks : tuple of numpy.ndarray
        The public partition of the records.
    runs : mapping of int to BinaryCoinPress
        The configured Algorithm A.2 for each chunk size.
    u_statistic : callable
        (data, block) ↦ U of the chunk (exact, non-private).
    """

    blocks: tuple[np.ndarray, ...]
    runs: Mapping[int, BinaryCoinPress]
    u_statistic: Callable[[Any, np.ndarray], float]

    @property
    def count(self) -> int:
        """q."""
        return len(self.blocks)

    @property
    def guarantee(self) -> PrivacyGuarantee:
        """Parallel composition of the chunks' claims."""
        return parallel_composition(
            [self.runs[int(b.size)].schedule.guarantee for b in self.blocks]
        )

    @property
    def sensitivity(self) -> float:
        """max_c Δ_1^{(c)}: the ℓ∞ global sensitivity of the vector of first steps."""
        return max(run.schedule.sensitivities[0] for run in self.runs.values())

    def chunk_u_statistics(self, data: Any) -> np.ndarray:
        """U of every chunk (not private)."""
        return np.array([self.u_statistic(data, b) for b in self.blocks])

    def first_steps(self, data: Any) -> np.ndarray:
        """The chunks' first-step clipped means."""
        return np.array(
            [
                self.runs[int(b.size)].first_step(u)
                for b, u in zip(self.blocks, self.chunk_u_statistics(data), strict=True)
            ]
        )

    def draw(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` medians of the chunks' releases."""
        draws = np.stack(
            [
                self.runs[int(b.size)].draw(u, size, rng)
                for b, u in zip(self.blocks, self.chunk_u_statistics(data), strict=True)
            ]
        )
        return draws[0] if self.count == 1 else np.median(draws, axis=0)


def binary_coinpress_chunks(
    blocks: tuple[np.ndarray, ...],
    degree: int,
    epsilon: float,
    *,
    u_statistic: Callable[[Any, np.ndarray], float],
    radius: float = 1.0,
    gamma: float = 0.01,
) -> BinaryCoinPressChunks:
    """Configure Algorithm A.2 on every chunk size of ``blocks``."""
    runs = {
        size: binary_coinpress(size, degree, epsilon, radius=radius, gamma=gamma)
        for size in sorted({int(b.size) for b in blocks})
    }
    return BinaryCoinPressChunks(
        blocks=tuple(blocks), runs=MappingProxyType(runs), u_statistic=u_statistic
    )


def sensitivity_claim(engine: BinaryCoinPressChunks) -> GlobalSensitivity:
    """The spec's claim on the vector (or scalar) of first-step clipped means."""
    return GlobalSensitivity(value=engine.sensitivity, norm="linf")


class BinaryCoinPressMechanism(Mechanism):
    """The wrapped binary-kernel CoinPress baseline with a given spec.

    ``to_data`` turns a validated input into what ``engine.u_statistic`` reads.
    """

    def __init__(
        self, spec: MechanismSpec, engine: BinaryCoinPressChunks, to_data: Callable[[Any], Any]
    ) -> None:
        super().__init__(spec)
        self._engine = engine
        self._to_data = to_data

    @property
    def engine(self) -> BinaryCoinPressChunks:
        """The chunks and their configured Algorithm A.2."""
        return self._engine

    def data_of(self, data: Any) -> Any:
        """The data the engine reads, from a graph / data set (validated here)."""
        return self._to_data(data)

    def statistic(self, data: Any) -> float | np.ndarray:
        """The chunks' first-step clipped means (a scalar when q = 1; gray-box hook)."""
        values = self._engine.first_steps(self._to_data(self.validate_input(data)))
        return float(values[0]) if values.size == 1 else values

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self._engine.draw(self._to_data(data), size, rng)
