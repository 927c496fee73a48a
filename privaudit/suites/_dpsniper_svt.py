"""DP-Sniper's sparse vector mechanisms (Lyu, Su & Li's Algorithms 1–6, NumericalSVT, SVT34).

Each class keeps the semantics of its namesake in ``eth-sri/dp-sniper`` (the split of ε,
the noise scales, cut-off c and threshold t) and is declared as a black box
(``noise=None``) claiming ε-DP on query answers of sensitivity 1 under ℓ∞ ≤ 1.  Its
samples have the output law of a literal run, not its random stream: Laplace variates as
b·S·E (:func:`~privaudit.suites._laplace.laplace_noise`; Kotz, Kozubowski & Podgórski
2001), blocks of :data:`BLOCK` samples, codes gathered from a table of answer patterns
(:mod:`~privaudit.suites._svt_patterns`), unused variates not drawn.  Outputs: one code
column per query (:mod:`privaudit.suites._kernels`), then, for mechanisms that release
noisy values, one value column per query.

Details: ``docs/engine_notes.md``, "privaudit.suites._dpsniper_svt".
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from privaudit.spec import Reference
from privaudit.suites._dpsniper_mechanisms import DPSNIPER_2021, SHADOWDP_2019
from privaudit.suites._families import _count, _positive
from privaudit.suites._kernels import QueryMechanism, query_spec
from privaudit.suites._laplace import laplace_noise
from privaudit.suites._svt_patterns import SparseVectorRun, sparse_vector_run, sparse_vector_runs

__all__ = [
    "BLOCK",
    "LYU_2017",
    "NumericalSVT",
    "SVT34Parallel",
    "SparseVectorTechnique1",
    "SparseVectorTechnique2",
    "SparseVectorTechnique3",
    "SparseVectorTechnique4",
    "SparseVectorTechnique5",
    "SparseVectorTechnique6",
]

LYU_2017 = Reference(
    citation="Lyu, Su & Li, 'Understanding the sparse vector technique for differential "
    "privacy', PVLDB 10(6), 2017",
    locator="Algorithms 1-6 and Table 1",
    url="https://arxiv.org/abs/1603.01699",
)

_EPS = 0.1

#: Samples drawn per block: the block's query noise (10 queries: 2.6 MB) stays in cache.
BLOCK = 1 << 15


class _SparseVector(QueryMechanism):
    """Shared constructor (ε, cut-off c, threshold t, number of queries, spec) and sampler.

    :meth:`_sample` draws blocks of :data:`BLOCK` samples: a subclass's :meth:`_compare`
    gives the block's query-major comparisons, the codes are read from the pattern
    tables, and :meth:`_release` writes the value columns of the mechanisms that have
    them.
    """

    _threshold_share = 0.5  # ε1 / ε
    _values = False  # releases noisy values (adds value columns)
    _has_cutoff = True  # stops after c ⊤ answers
    _algorithm = ""
    _references: tuple[Reference, ...] = (DPSNIPER_2021, LYU_2017)

    def __init__(
        self,
        epsilon: float = _EPS,
        c: int = 2,
        t: float = 1.0,
        *,
        length: int = 10,
        name: str | None = None,
        notes: str = "",
    ) -> None:
        self.epsilon = _positive(epsilon, "epsilon")
        self.c = _count(c, "c")
        self.t = float(t)
        self.length = _count(length, "length")
        self.eps1 = self.epsilon * self._threshold_share
        self.eps2 = self.epsilon - self.eps1
        width = self.length * (2 if self._values else 1)
        super().__init__(
            query_spec(
                name=name or f"dpsniper.{type(self).__name__}",
                summary=f"sparse vector technique ({self._algorithm}), c={self.c}, t={self.t:g}",
                references=self._references,
                length=self.length,
                norm="linf",
                epsilon=self.epsilon,
                output_dimension=width,
                notes=notes,
            )
        )

    @property
    def cutoff(self) -> int | None:
        """The cut-off c (``None`` for Algorithms 5 and 6, which have none)."""
        return self.c if self._has_cutoff else None

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        x = np.asarray(data, dtype=np.float64)
        out = np.empty((size, self.spec.output_dimension))
        for start in range(0, size, BLOCK):  # blocks of independent samples
            block = out[start : start + BLOCK]
            above, noisy = self._compare(x, block.shape[0], rng)
            self._release(sparse_vector_run(above, self.cutoff, out=block), noisy, x, rng)
        return out

    def _compare(
        self, x: np.ndarray, size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Query-major comparisons ``(length, size)`` of ``size`` independent runs.

        Returns the comparisons (True: the query compares above its threshold; computed
        for every query, the cut-off is applied by the code tables) and the noisy
        answers the mechanism releases, if any (else ``None``).
        """
        raise NotImplementedError  # pragma: no cover

    def _release(
        self,
        run: SparseVectorRun,
        noisy: np.ndarray | None,
        x: np.ndarray,
        rng: np.random.Generator,
    ) -> None:
        """Write the value columns (after the code columns) of a run; none by default."""

    def _noisy(
        self, x: np.ndarray, scale: float, size: int, rng: np.random.Generator
    ) -> np.ndarray:
        """q_j + ν_j with ν_j ~ Lap(scale), query-major: shape ``(length, size)``."""
        noisy = laplace_noise(rng, scale, (x.shape[0], size))
        noisy += x[:, np.newaxis]
        return noisy

    def _threshold(self, scale: float, size: int, rng: np.random.Generator) -> np.ndarray:
        """The noisy threshold t + ρ with ρ ~ Lap(scale), shape ``(size,)``."""
        threshold = laplace_noise(rng, scale, size)
        threshold += self.t
        return threshold


class SparseVectorTechnique1(_SparseVector):
    """Lyu et al.'s Algorithm 1 (correct): ρ ~ Lap(1/ε1), ν ~ Lap(2c/ε2), cut-off c.

    ε1 = ε2 = ε/2; query j is ⊤ when q_j + ν_j ≥ t + ρ.  Output: code columns,
    ``float64`` of shape ``(N, length)``.  DP-Sniper's benchmark uses c = 1, t = 0.5.

    References
    ----------
    Lyu, Su & Li, PVLDB 2017, Algorithm 1; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/sparse_vector_technique.py`` (``SparseVectorTechnique1``).
    """

    _algorithm = "Lyu et al. Algorithm 1"

    def _compare(
        self, x: np.ndarray, size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray | None]:
        threshold = self._threshold(1.0 / self.eps1, size, rng)
        return self._noisy(x, 2.0 * self.c / self.eps2, size, rng) >= threshold, None


class SparseVectorTechnique2(_SparseVector):
    """Lyu et al.'s Algorithm 2 (correct): the threshold noise Lap(c/ε1) is redrawn after each ⊤.

    ν ~ Lap(2c/ε2); ε1 = ε2 = ε/2.  Output: code columns, shape ``(N, length)``.
    DP-Sniper's benchmark uses c = 1, t = 1.

    References
    ----------
    Lyu, Su & Li, PVLDB 2017, Algorithm 2; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/sparse_vector_technique.py`` (``SparseVectorTechnique2``).
    """

    _algorithm = "Lyu et al. Algorithm 2"

    def _compare(
        self, x: np.ndarray, size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray | None]:
        scale_rho = self.c / self.eps1
        threshold = self._threshold(scale_rho, size, rng)
        noisy = self._noisy(x, 2.0 * self.c / self.eps2, size, rng)
        above = np.empty(noisy.shape, dtype=bool)
        last = noisy.shape[0] - 1
        for j in range(noisy.shape[0]):  # sequential over the queries only
            np.greater_equal(noisy[j], threshold, out=above[j])
            if j < last:  # redraw the threshold after each ⊤
                redraw = np.flatnonzero(above[j])
                threshold[redraw] = self.t + laplace_noise(rng, scale_rho, redraw.size)
        return above, None


class SparseVectorTechnique3(_SparseVector):
    """Lyu et al.'s Algorithm 3 (not ε-DP): releases the noisy answer q_j + ν_j of each ⊤.

    ρ ~ Lap(1/ε1), ν ~ Lap(c/ε2), ε1 = ε2 = ε/2, cut-off c.  Output ``float64`` of shape
    ``(N, 2·length)``: code columns, then value columns (q_j + ν_j where ⊤, else 0.0).
    DP-Sniper's benchmark uses c = 1, t = 1.

    References
    ----------
    Lyu, Su & Li, PVLDB 2017, Algorithm 3; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/sparse_vector_technique.py`` (``SparseVectorTechnique3``).
    """

    _algorithm = "Lyu et al. Algorithm 3, releases noisy values"
    _values = True

    def _compare(
        self, x: np.ndarray, size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray | None]:
        threshold = self._threshold(1.0 / self.eps1, size, rng)
        noisy = self._noisy(x, self.c / self.eps2, size, rng)
        return noisy >= threshold, noisy

    def _release(
        self,
        run: SparseVectorRun,
        noisy: np.ndarray | None,
        x: np.ndarray,
        rng: np.random.Generator,
    ) -> None:
        samples, queries = run.top_cells()  # release q_j + ν_j where the code is ⊤
        noisy = cast(np.ndarray, noisy)  # this class's _compare (above) returns them
        run.put(
            samples,
            run.first_column + self.length + queries,
            np.take(noisy, queries * noisy.shape[1] + samples),
        )


class SparseVectorTechnique4(_SparseVector):
    """Lyu et al.'s Algorithm 4 (Lee–Clifton; ((1+6c)/4)ε-DP): ε1 = ε/4, ν ~ Lap(1/ε2).

    ρ ~ Lap(1/ε1), cut-off c.  Output: code columns, shape ``(N, length)``.  DP-Sniper's
    benchmark uses c = 1, t = 1.

    References
    ----------
    Lyu, Su & Li, PVLDB 2017, Algorithm 4; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/sparse_vector_technique.py`` (``SparseVectorTechnique4``).
    """

    _algorithm = "Lyu et al. Algorithm 4 (Lee and Clifton)"
    _threshold_share = 0.25

    def _compare(
        self, x: np.ndarray, size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray | None]:
        threshold = self._threshold(1.0 / self.eps1, size, rng)
        return self._noisy(x, 1.0 / self.eps2, size, rng) >= threshold, None


class SparseVectorTechnique5(_SparseVector):
    """Lyu et al.'s Algorithm 5 (Stoddard et al.; not DP): no noise on the queries, no cut-off.

    ρ ~ Lap(1/ε1); query j is ⊤ when q_j ≥ t + ρ.  Output: code columns (1.0 / 0.0),
    shape ``(N, length)``.  DP-Sniper's benchmark uses t = 1 (c is unused).

    References
    ----------
    Lyu, Su & Li, PVLDB 2017, Algorithm 5; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/sparse_vector_technique.py`` (``SparseVectorTechnique5``).
    """

    _algorithm = "Lyu et al. Algorithm 5, no query noise, no cut-off"

    _has_cutoff = False

    def _compare(
        self, x: np.ndarray, size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray | None]:
        threshold = self._threshold(1.0 / self.eps1, size, rng)
        return x[:, np.newaxis] >= threshold, None


class SparseVectorTechnique6(_SparseVector):
    """Lyu et al.'s Algorithm 6 (Chen et al.; not ε-DP): ν ~ Lap(1/ε2), no cut-off.

    ρ ~ Lap(1/ε1), ε1 = ε2 = ε/2.  Output: code columns (1.0 / 0.0), shape
    ``(N, length)``.  DP-Sniper's benchmark uses t = 1 (c is unused).

    References
    ----------
    Lyu, Su & Li, PVLDB 2017, Algorithm 6; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/sparse_vector_technique.py`` (``SparseVectorTechnique6``).
    """

    _algorithm = "Lyu et al. Algorithm 6, no cut-off"

    _has_cutoff = False

    def _compare(
        self, x: np.ndarray, size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray | None]:
        threshold = self._threshold(1.0 / self.eps1, size, rng)
        return self._noisy(x, 1.0 / self.eps2, size, rng) >= threshold, None


class NumericalSVT(_SparseVector):
    """Numerical SVT (correct, ε-DP): ρ1 ~ Lap(3/ε), ν ~ Lap(6c/ε); releases q_j + Lap(3c/ε).

    Query j is ⊤ when q_j + ν_j ≥ t + ρ1; for each ⊤ a *fresh* noisy answer
    q_j + η_j, η_j ~ Lap(3c/ε), is released.  Output ``float64`` of shape
    ``(N, 2·length)``: code columns, then value columns (q_j + η_j where ⊤, else 0.0;
    DP-Sniper writes 0.0 for ⊥ and −1000.0 for aborted in one column).  DP-Sniper's
    benchmark uses the defaults c = 2, t = 1.

    References
    ----------
    Wang, Ding, Wang, Kifer & Zhang, "Proving differential privacy with shadow
    execution", PLDI 2019; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/sparse_vector_technique.py`` (``NumericalSVT``).
    """

    _algorithm = "NumSVT of Wang et al. PLDI 2019"
    _values = True

    _references = (DPSNIPER_2021, SHADOWDP_2019)

    def _compare(
        self, x: np.ndarray, size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray | None]:
        threshold = self._threshold(3.0 / self.epsilon, size, rng)
        return self._noisy(x, 6.0 * self.c / self.epsilon, size, rng) >= threshold, None

    def _release(
        self,
        run: SparseVectorRun,
        noisy: np.ndarray | None,
        x: np.ndarray,
        rng: np.random.Generator,
    ) -> None:
        samples, queries = run.top_cells()  # fresh η_j only where released
        released = laplace_noise(rng, 3.0 * self.c / self.epsilon, samples.size)
        released += x[queries]
        run.put(samples, run.first_column + self.length + queries, released)


class SVT34Parallel(QueryMechanism):
    """Algorithms 3 and 4 run in parallel on the same answers, with independent noise.

    Parameters
    ----------
    epsilon : float
        ε of each of the two runs and the claim (DP-Sniper's default 0.1).
    c : int
        Cut-off of both runs (DP-Sniper's default 2).
    t : float
        Threshold of both runs (default 1).
    length : int
        Number of queries (default 10).
    name : str
        The spec's name.

    Notes
    -----
    Output ``float64`` of shape ``(N, 3·length)``: Algorithm 3's code and value columns,
    then Algorithm 4's code columns.

    References
    ----------
    Lyu, Su & Li, PVLDB 2017, Algorithms 3-4; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/parallel.py`` (``SVT34Parallel``).
    """

    def __init__(
        self,
        epsilon: float = _EPS,
        c: int = 2,
        t: float = 1.0,
        *,
        length: int = 10,
        name: str = "dpsniper.SVT34Parallel",
        notes: str = "",
    ) -> None:
        self.svt3 = SparseVectorTechnique3(epsilon, c, t, length=length)
        self.svt4 = SparseVectorTechnique4(epsilon, c, t, length=length)
        self.epsilon = self.svt3.epsilon
        super().__init__(
            query_spec(
                name=name,
                summary=f"Lyu et al. Algorithms 3 and 4 in parallel, c={c}, t={t:g}",
                references=(DPSNIPER_2021, LYU_2017),
                length=self.svt3.length,
                norm="linf",
                epsilon=self.epsilon,
                output_dimension=3 * self.svt3.length,
                notes=notes,
            )
        )

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        x = np.asarray(data, dtype=np.float64)
        n = self.svt3.length
        out = np.empty((size, 3 * n))
        for start in range(0, size, BLOCK):  # blocks of independent samples
            block = out[start : start + BLOCK]
            above3, noisy3 = self.svt3._compare(x, block.shape[0], rng)
            above4, _ = self.svt4._compare(x, block.shape[0], rng)
            run3, _ = sparse_vector_runs(
                [(above3, self.svt3.cutoff, 0), (above4, self.svt4.cutoff, 2 * n)], block
            )
            self.svt3._release(run3, noisy3, x, rng)
        return out
