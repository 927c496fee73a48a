"""DP-Sniper's sparse vector mechanisms (Lyu, Su & Li's Algorithms 1–6, NumericalSVT, SVT34).

Each class keeps the semantics of its namesake in ``eth-sri/dp-sniper``
(``dpsniper/mechanisms/sparse_vector_technique.py`` and ``parallel.py``): the same
split of ε between threshold and queries, the same noise scales, cut-off c and
threshold t.  The noise of all N samples is drawn at once; only the ≤ 10 queries are
looped over where the algorithm is sequential (Algorithm 2 redraws its threshold).

Output encoding (see :mod:`privaudit.suites._kernels`): one code column per query —
1.0 = ⊤ (above), 0.0 = ⊥ (below), −1.0 = aborted (the cut-off was reached) — followed,
for mechanisms that release noisy values, by one value column per query holding the
released value where the code is ⊤ and 0.0 elsewhere.  DP-Sniper encodes the same
information in one column per query (−1000.0 for ⊥ and −2000.0 for aborted in
Algorithm 3); the split keeps code columns exactly categorical.

All are declared as black boxes (``noise=None``) claiming ε-DP on query answers of
sensitivity 1 with every answer allowed to move by 1 (ℓ∞ ≤ 1: DP-Sniper's
component-wise neighbourhood, StatDP's ALL_DIFFER).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spec import Reference

from ._dpsniper_mechanisms import DPSNIPER_2021, SHADOWDP_2019
from ._families import _count, _positive
from ._kernels import ABOVE, QueryMechanism, query_spec, svt_codes

__all__ = [
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
    locator="Algorithms 1-6 and Table 1", url="https://arxiv.org/abs/1603.01699")

_EPS = 0.1


class _SparseVector(QueryMechanism):
    """Shared constructor: ε, cut-off c, threshold t, number of queries, spec."""

    _threshold_share = 0.5     # ε1 / ε
    _values = False            # releases noisy values (adds value columns)
    _algorithm = ""
    _references: tuple[Reference, ...] = (DPSNIPER_2021, LYU_2017)

    def __init__(self, epsilon: float = _EPS, c: int = 2, t: float = 1.0, *,
                 length: int = 10, name: str | None = None, notes: str = "") -> None:
        self.epsilon = _positive(epsilon, "epsilon")
        self.c = _count(c, "c")
        self.t = float(t)
        self.length = _count(length, "length")
        self.eps1 = self.epsilon * self._threshold_share
        self.eps2 = self.epsilon - self.eps1
        width = self.length * (2 if self._values else 1)
        super().__init__(query_spec(
            name=name or f"dpsniper.{type(self).__name__}",
            summary=f"sparse vector technique ({self._algorithm}), c={self.c}, t={self.t:g}",
            references=self._references, length=self.length, norm="linf",
            epsilon=self.epsilon, output_dimension=width, notes=notes))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self._run(np.asarray(data, dtype=np.float64), size, rng)

    def _run(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover

    def _noisy(self, x: np.ndarray, scale: float, size: int,
               rng: np.random.Generator) -> np.ndarray:
        return x[np.newaxis, :] + rng.laplace(0.0, scale, (size, x.shape[0]))

    def _rho(self, scale: float, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.laplace(0.0, scale, (size, 1))


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

    def _run(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        rho = self._rho(1.0 / self.eps1, size, rng)
        above = self._noisy(x, 2.0 * self.c / self.eps2, size, rng) >= rho + self.t
        return svt_codes(above, self.c)


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

    def _run(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        scale_rho = self.c / self.eps1
        rho = rng.laplace(0.0, scale_rho, size)
        noisy = self._noisy(x, 2.0 * self.c / self.eps2, size, rng)
        above = np.empty(noisy.shape, dtype=bool)
        for j in range(noisy.shape[1]):          # sequential over the queries only
            above[:, j] = noisy[:, j] >= rho + self.t
            fresh = rng.laplace(0.0, scale_rho, size)
            rho = np.where(above[:, j], fresh, rho)
        return svt_codes(above, self.c)


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

    def _run(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        rho = self._rho(1.0 / self.eps1, size, rng)
        noisy = self._noisy(x, self.c / self.eps2, size, rng)
        codes = svt_codes(noisy >= rho + self.t, self.c)
        return np.hstack([codes, np.where(codes == ABOVE, noisy, 0.0)])


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

    def _run(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        rho = self._rho(1.0 / self.eps1, size, rng)
        above = self._noisy(x, 1.0 / self.eps2, size, rng) >= rho + self.t
        return svt_codes(above, self.c)


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

    def _run(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        rho = self._rho(1.0 / self.eps1, size, rng)
        return svt_codes(x[np.newaxis, :] >= rho + self.t, None)


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

    def _run(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        rho = self._rho(1.0 / self.eps1, size, rng)
        above = self._noisy(x, 1.0 / self.eps2, size, rng) >= rho + self.t
        return svt_codes(above, None)


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

    def _run(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        rho = self._rho(3.0 / self.epsilon, size, rng)
        above = self._noisy(x, 6.0 * self.c / self.epsilon, size, rng) >= self.t + rho
        released = self._noisy(x, 3.0 * self.c / self.epsilon, size, rng)
        codes = svt_codes(above, self.c)
        return np.hstack([codes, np.where(codes == ABOVE, released, 0.0)])


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

    def __init__(self, epsilon: float = _EPS, c: int = 2, t: float = 1.0, *,
                 length: int = 10, name: str = "dpsniper.SVT34Parallel",
                 notes: str = "") -> None:
        self.svt3 = SparseVectorTechnique3(epsilon, c, t, length=length)
        self.svt4 = SparseVectorTechnique4(epsilon, c, t, length=length)
        self.epsilon = self.svt3.epsilon
        super().__init__(query_spec(
            name=name, summary=f"Lyu et al. Algorithms 3 and 4 in parallel, c={c}, t={t:g}",
            references=(DPSNIPER_2021, LYU_2017), length=self.svt3.length, norm="linf",
            epsilon=self.epsilon, output_dimension=3 * self.svt3.length, notes=notes))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        x = np.asarray(data, dtype=np.float64)
        return np.hstack([self.svt3._run(x, size, rng), self.svt4._run(x, size, rng)])
