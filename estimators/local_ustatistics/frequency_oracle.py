"""One-bit Hadamard-response frequency oracles over the levels of a hierarchy (Protocol B).

The paper instantiates its oracle in a supplementary section (B.2) that combines the
Hadamard transform of Bassily, Nissim, Stemmer & Thakurta (NeurIPS 2017) with a variant of
Kulkarni, Cormode & Srivastava (2019); its text is not in the main paper, so this module
implements the construction derived in ``docs/ldp_ustat_study.md`` ("Protocol B oracles"):

client at level m with budget e and a public uniform row j ∈ {0..2^m − 1}:
    q = s >> (α − m); t = (−1)^{popcount(j & q)} = H[j, q];
    send y = t with probability e^e/(1 + e^e), else −t          (one bit; j is public)
server, for every node p of level m at once (fast Walsh–Hadamard transform):
    ĥ_p = w_m · c_e · Σ_{u ∈ G_m} y_u H[j_u, p],   c_e = (e^e + 1)/(e^e − 1),

which is unbiased because E[c_e y | j] = H[j, q] and E_j[H[j, q] H[j, p]] = I[q = p].

* Variant ``"S"`` (level sampling, one bit per user): each user gets one level m uniform
  in {1..α} (public randomness), e = ε and w_m = α.  Var ĥ_p ≤ α n c_ε² (v = Cnα with
  C = c_ε²); pure ε-LDP; the user's view (m, j, y) has likelihood ratio at most e^ε.
* Variant ``"C"`` (composition): every user reports at every level m = 1..α with
  e = ε/α and w_m = 1 (α bits per user; ε-LDP by basic composition); Var ĥ_p ≤ n c_{ε/α}²,
  C = c_{ε/α}²/α ≈ 4α/ε².  Levels are independent (condition 4 of Theorem 3 holds exactly).

The root (level 0) is n, public.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from privaudit.spec import RandomLike, as_generator, check_epsilon
from privaudit.spec.errors import InvalidParameterError

from .hierarchy import check_depth, score_cells

__all__ = [
    "HadamardReports",
    "LevelEstimates",
    "fwht",
    "hadamard_reports",
    "hadamard_sign",
    "level_estimates",
    "oracle_budget",
]

Variant = Literal["S", "C"]


def oracle_budget(epsilon: float, alpha: int, variant: Variant) -> tuple[float, float]:
    """(e, w): the per-report budget and the level weight of the variant."""
    eps = check_epsilon(epsilon)
    a = check_depth(alpha)
    if variant == "S":
        return eps, float(a)
    if variant == "C":
        return eps / a, 1.0
    raise InvalidParameterError(f"variant must be 'S' or 'C', got {variant!r}")


def hadamard_sign(rows: npt.ArrayLike, prefixes: npt.ArrayLike) -> np.ndarray:
    """H[j, q] = (−1)^{popcount(j & q)} (int64 ±1), vectorised by an xor fold of j & q."""
    x = np.bitwise_and(np.asarray(rows, dtype=np.int64), np.asarray(prefixes, dtype=np.int64))
    if hasattr(np, "bitwise_count"):  # numpy >= 2: one pass
        return 1 - 2 * (np.bitwise_count(x) & 1).astype(np.int64)
    for shift in (32, 16, 8, 4, 2, 1):
        x = x ^ (x >> shift)
    return 1 - 2 * (x & 1)


def _c(e: float) -> float:
    return 1.0 / math.tanh(e / 2.0)  # (e^e + 1)/(e^e − 1)


@dataclass(frozen=True, slots=True)
class HadamardReports:
    """The users' public rows and bits.

    ``levels``/``rows``/``bits`` have shape (n,) for variant S and (n, α) for variant C
    (column m − 1 is level m); bits are ±1 (int8).
    """

    variant: Variant
    alpha: int
    epsilon: float
    levels: np.ndarray
    rows: np.ndarray
    bits: np.ndarray


def hadamard_reports(
    scores: np.ndarray, alpha: int, epsilon: float, variant: Variant, rng: RandomLike = None
) -> HadamardReports:
    """Every user's one-bit (S) or α-bit (C) Hadamard response, in one batched draw."""
    a = check_depth(alpha)
    s = score_cells(scores, a)
    e, _ = oracle_budget(epsilon, a, variant)
    gen = as_generator(rng)
    n = s.size
    if variant == "S":
        levels = gen.integers(1, a + 1, n, dtype=np.int64)
        shift = a - levels
        rows = gen.integers(0, 1 << a, n, dtype=np.int64) >> shift  # uniform on 2^m rows
        truth = hadamard_sign(rows, s >> shift)
    else:  # stored level-major (α, n), exposed as (n, α) views
        levels = np.broadcast_to(np.arange(1, a + 1, dtype=np.int64)[:, None], (a, n))
        shift = (a - np.arange(1, a + 1, dtype=np.int64))[:, None]
        rows = gen.integers(0, 1 << a, (a, n), dtype=np.int64) >> shift
        truth = hadamard_sign(rows, s[None, :] >> shift)
        levels, rows, truth = levels.T, rows.T, truth.T
    keep_probability = 1.0 / (1.0 + math.exp(-e))
    # "C": drawn level-major (α, n) as ``truth`` is stored, viewed as (n, α)
    uniforms = gen.random(truth.shape[::-1]).T if variant == "C" else gen.random(n)
    keep = uniforms < keep_probability
    bits = np.where(keep, truth, -truth).astype(np.int8)
    return HadamardReports(variant, a, float(epsilon), levels, rows, bits)


def fwht(values: np.ndarray) -> np.ndarray:
    """Fast Walsh–Hadamard transform H·v in natural (Sylvester) order, O(D log D)."""
    v = np.array(values, dtype=np.float64)
    d = v.size
    if d & (d - 1):
        raise InvalidParameterError(f"the transform needs a power-of-two length, got {d}")
    h = 1
    while h < d:
        v = v.reshape(-1, 2, h)
        v = np.stack((v[:, 0] + v[:, 1], v[:, 0] - v[:, 1]), axis=1).reshape(d)
        h *= 2
    return v


@dataclass(frozen=True, slots=True)
class LevelEstimates:
    """ĥ at every level (level 0 exact: n) and the oracle's variance bound v = C n α."""

    levels: list[np.ndarray]
    variance_bound: float
    constant: float


def level_estimates(reports: HadamardReports) -> LevelEstimates:
    """ĥ_p for every node of every level, O(n + d log d) (FWHT per level)."""
    a = reports.alpha
    e, w = oracle_budget(reports.epsilon, a, reports.variant)
    c = _c(e)
    n = reports.bits.shape[0]
    out = [np.array([float(n)])]
    for m in range(1, a + 1):
        if reports.variant == "S":
            mask = reports.levels == m
            rows, bits = reports.rows[mask], reports.bits[mask]
        else:
            rows, bits = reports.rows[:, m - 1], reports.bits[:, m - 1]
        y = np.bincount(rows, weights=bits.astype(np.float64), minlength=1 << m)
        out.append(w * c * fwht(y))
    constant = c * c if reports.variant == "S" else c * c / a
    return LevelEstimates(out, constant * n * a, constant)
