"""Exact output laws of the sparse-vector mechanisms that release noisy values.

Used by ``scripts/power_limits.py`` for the single-event ceilings of DP-Sniper's
SparseVectorTechnique3, NumericalSVT and SVT34Parallel (``privaudit/suites/
_dpsniper_svt.py``).  An output is a *pattern* — the set P of queries answered ⊤ (at most
c of them; with |P| = c the queries after the last ⊤ are aborted, otherwise every
other query is answered ⊥) — plus the released value of each ⊤ query.

Given the threshold noise ρ = r, the queries compare independently, so every law here is
one integral over r (Lyu, Su & Li 2017, proof of Thm. 2 and §3.3):

* **codes only** (Algorithm 4):  P(P) = ∫ f_ρ(r) Π_{j ⊥} F_ν(t + r − q_j)
  Π_{k ∈ P} (1 − F_ν(t + r − q_k)) dr;
* **released comparison value** (Algorithm 3: v_k = q_k + ν_k, the value that beat the
  threshold):  p(P, v) = Π_{k ∈ P} f_ν(v_k − q_k) · H_P(min_k v_k − t) with
  H_P(s) = ∫_{−∞}^{s} f_ρ(r) Π_{j ⊥} F_ν(t + r − q_j) dr (v_k ≥ t + r for every ⊤);
* **fresh released value** (NumericalSVT: v_k = q_k + η_k, η independent):
  p(P, v) = P(P) · Π_{k ∈ P} f_η(v_k − q_k).

The values are cut into cells — a fine grid, the Laplace factor integrated exactly over
each cell (CDF differences) and the slowly varying H at the cell centre — so the law
becomes a finite table of cell masses under both inputs, from which the best event (a
likelihood-ratio super-level set) and its expected Clopper–Pearson bound follow.
Independent parallel runs (SVT34Parallel) multiply their laws; their cells are merged
into bins of the log-likelihood ratio first (cells of equal ratio are interchangeable
for super-level sets, so this loses nothing but the bin width).

References
----------
.. [1] Lyu, Su & Li, "Understanding the sparse vector technique for differential
   privacy", PVLDB 10(6), 2017, Algorithms 3-4.
.. [2] Wang, Ding, Wang, Kifer & Zhang, "Proving differential privacy with shadow
   execution", PLDI 2019 (NumericalSVT).
.. [3] Bichsel, Steffen, Bogunovic & Vechev, DP-Sniper, IEEE S&P 2021
   (``dpsniper/mechanisms/sparse_vector_technique.py``, ``parallel.py``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

__all__ = [
    "CellLaw",
    "LlrBins",
    "binned",
    "codes_only_law",
    "fresh_value_law",
    "laplace_cdf",
    "laplace_pdf",
    "pattern_name",
    "patterns",
    "product_bins",
    "released_comparison_law",
]

#: Grid points of the threshold-noise integral (over ±40 scales of ρ).
RHO_POINTS = 40_001


def laplace_cdf(z: np.ndarray, b: float) -> np.ndarray:
    """CDF of Laplace(0, b) at z (overflow-free in both tails)."""
    return np.where(
        z < 0, 0.5 * np.exp(np.minimum(z, 0) / b), 1 - 0.5 * np.exp(-np.maximum(z, 0) / b)
    )


def laplace_pdf(z: np.ndarray, b: float) -> np.ndarray:
    """Density of Laplace(0, b) at z."""
    return np.exp(-np.abs(z) / b) / (2 * b)


def patterns(n: int, c: int) -> list[tuple[int, ...]]:
    """Every possible set of ⊤ positions (sorted tuples) with at most ``c`` elements."""
    return [p for size in range(c + 1) for p in itertools.combinations(range(n), size)]


def _answered_below(pattern: tuple[int, ...], n: int, c: int) -> list[int]:
    """Queries answered ⊥ under ``pattern`` (those after the c-th ⊤ are aborted)."""
    end = pattern[-1] if len(pattern) == c else n
    return [j for j in range(end) if j not in pattern]


def pattern_name(pattern: tuple[int, ...], n: int, c: int) -> str:
    """A pattern as text, queries numbered from 1: "⊤ at 10", "⊤ at (3, 7)", "no ⊤"."""
    if not pattern:
        return "no ⊤"
    at = str(pattern[0] + 1) if len(pattern) == 1 else str(tuple(k + 1 for k in pattern))
    tail = "" if len(pattern) == c else " (rest ⊥)"
    return f"⊤ at {at}{tail}"


@dataclass(frozen=True)
class CellLaw:
    """Masses of the cells of one output law under x and y, and what each cell is.

    ``pattern[i]`` indexes ``names``; ``value[i]`` holds the centres of the cell's value
    cells (NaN where the pattern releases fewer values).
    """

    p_x: np.ndarray
    p_y: np.ndarray
    pattern: np.ndarray
    value: np.ndarray
    names: tuple[str, ...]

    @property
    def deficit(self) -> float:
        """Largest mass (over x and y) outside the cells: truncation and grid error."""
        return float(max(abs(1.0 - self.p_x.sum()), abs(1.0 - self.p_y.sum())))


class _Threshold:
    """The ρ grid with its weights f_ρ(r) dr, and F_ν(t + r − q_j) for every query."""

    def __init__(self, q: np.ndarray, b_rho: float, b_nu: float, t: float) -> None:
        self.r = np.linspace(-40 * b_rho, 40 * b_rho, RHO_POINTS)
        self.w = laplace_pdf(self.r, b_rho) * (self.r[1] - self.r[0])
        self.below = laplace_cdf(t + self.r[:, None] - q[None, :], b_nu)
        self.t = t

    def base(self, pattern: tuple[int, ...], n: int, c: int) -> np.ndarray:
        """f_ρ(r) dr · Π over the ⊥ answers of F_ν(t + r − q_j), on the grid."""
        out = self.w.copy()
        for j in _answered_below(pattern, n, c):
            out *= self.below[:, j]
        return out

    def pattern_probability(self, pattern: tuple[int, ...], n: int, c: int) -> float:
        """P(pattern) when the ⊤ answers release nothing tied to ρ."""
        out = self.base(pattern, n, c)
        for k in pattern:
            out = out * (1.0 - self.below[:, k])
        return float(out.sum())


def _laws(q_x: np.ndarray, q_y: np.ndarray, build) -> CellLaw:
    (px, pat, val, names), (py, _, _, _) = build(q_x), build(q_y)
    return CellLaw(p_x=px, p_y=py, pattern=pat, value=val, names=names)


def codes_only_law(
    q_x: np.ndarray, q_y: np.ndarray, *, b_rho: float, b_nu: float, t: float, c: int
) -> CellLaw:
    """The pattern law of a codes-only sparse vector with cut-off c (Algorithm 4)."""
    n = q_x.size
    pats = patterns(n, c)

    def build(q: np.ndarray):
        th = _Threshold(q, b_rho, b_nu, t)
        p = np.array([th.pattern_probability(p_, n, c) for p_ in pats])
        return (
            p,
            np.arange(len(pats)),
            np.full((len(pats), 2), np.nan),
            tuple(pattern_name(p_, n, c) for p_ in pats),
        )

    return _laws(q_x, q_y, build)


def _value_edges(
    centre_lo: float, centre_hi: float, scale: float, step: float, reach: float
) -> np.ndarray:
    """Cell edges from centre_lo − reach·scale to centre_hi + reach·scale, width ``step``,
    with the two infinite tail cells."""
    inner = np.arange(centre_lo - reach * scale, centre_hi + reach * scale + step, step)
    return np.concatenate([[-np.inf], inner, [np.inf]])


def released_comparison_law(
    q_x: np.ndarray,
    q_y: np.ndarray,
    *,
    b_rho: float,
    b_nu: float,
    t: float,
    c: int,
    step: float,
    reach: float = 25.0,
) -> CellLaw:
    """Algorithm 3: each ⊤ releases q_k + ν_k, the noisy answer that beat the threshold.

    Value cells of width ``step`` over ``reach`` scales of ν around the answers (two
    infinite tail cells); the Laplace factor is integrated exactly over each cell,
    H_P(min v − t) is taken at the cell centres (for a tail cell, at its finite edge).
    """
    n = q_x.size
    pats = patterns(n, c)
    lo = float(min(q_x.min(), q_y.min()))
    hi = float(max(q_x.max(), q_y.max()))
    edges = _value_edges(lo, hi, b_nu, step, reach)
    centre = 0.5 * (edges[1:] + edges[:-1])
    centre[0], centre[-1] = edges[1], edges[-2]

    def build(q: np.ndarray):
        th = _Threshold(q, b_rho, b_nu, t)
        mass, pat, val, names = [], [], [], []
        for i, p_ in enumerate(pats):
            names.append(pattern_name(p_, n, c))
            base = th.base(p_, n, c)
            if not p_:
                mass.append([base.sum()])
                pat.append([i])
                val.append([[np.nan, np.nan]])
                continue
            cum = np.cumsum(base) - 0.5 * base  # H_P at the grid points (trapezoid)
            cells = [np.diff(laplace_cdf(edges - q[k], b_nu)) for k in p_]
            if len(p_) == 1:
                h = np.interp(centre - t, th.r, cum, left=0.0, right=cum[-1])
                m = cells[0] * h
                v = np.column_stack([centre, np.full(centre.size, np.nan)])
            else:
                low = np.minimum(centre[:, None], centre[None, :])
                h = np.interp(low - t, th.r, cum, left=0.0, right=cum[-1])
                m = (cells[0][:, None] * cells[1][None, :] * h).ravel()
                v = np.column_stack([np.repeat(centre, centre.size), np.tile(centre, centre.size)])
            mass.append(m)
            pat.append(np.full(m.size, i))
            val.append(v)
        return (np.concatenate(mass), np.concatenate(pat), np.concatenate(val), tuple(names))

    return _laws(q_x, q_y, build)


def fresh_value_law(
    q_x: np.ndarray,
    q_y: np.ndarray,
    *,
    b_rho: float,
    b_nu: float,
    b_release: float,
    t: float,
    c: int,
    cells: int = 40,
) -> CellLaw:
    """NumericalSVT: each ⊤ releases q_k + η_k with fresh η_k ~ Laplace(b_release).

    The released values are independent of ρ and of each other given the pattern; the
    likelihood ratio of one value is constant outside [min q, max q] (both Laplace
    densities in the same exponential tail), so ``cells`` cells between the smallest and
    largest answer and the two tails capture it exactly up to the grid.
    """
    n = q_x.size
    pats = patterns(n, c)
    lo = float(min(q_x.min(), q_y.min()))
    hi = float(max(q_x.max(), q_y.max()))
    inner = np.linspace(lo, hi, cells + 1) if hi > lo else np.array([lo])
    edges = np.concatenate([[-np.inf], inner, [np.inf]])
    centre = 0.5 * (edges[1:] + edges[:-1])
    centre[0], centre[-1] = edges[1], edges[-2]

    def build(q: np.ndarray):
        th = _Threshold(q, b_rho, b_nu, t)
        mass, pat, val, names = [], [], [], []
        for i, p_ in enumerate(pats):
            names.append(pattern_name(p_, n, c))
            prob = th.pattern_probability(p_, n, c)
            value_cells = [np.diff(laplace_cdf(edges - q[k], b_release)) for k in p_]
            if not p_:
                m, v = np.array([prob]), np.array([[np.nan, np.nan]])
            elif len(p_) == 1:
                m = prob * value_cells[0]
                v = np.column_stack([centre, np.full(centre.size, np.nan)])
            else:
                m = prob * np.outer(value_cells[0], value_cells[1]).ravel()
                v = np.column_stack([np.repeat(centre, centre.size), np.tile(centre, centre.size)])
            mass.append(m)
            pat.append(np.full(m.size, i))
            val.append(v)
        return (np.concatenate(mass), np.concatenate(pat), np.concatenate(val), tuple(names))

    return _laws(q_x, q_y, build)


@dataclass(frozen=True)
class LlrBins:
    """A law reduced to bins of its log-likelihood ratio: masses under x and y per bin."""

    p_x: np.ndarray
    p_y: np.ndarray
    llr: np.ndarray


def binned(p_x: np.ndarray, p_y: np.ndarray, width: float) -> LlrBins:
    """Cells merged into bins of width ``width`` of log(p_x / p_y) (cells with a zero
    mass on one side keep a bin of their own at ±1000)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        llr = np.log(p_x) - np.log(p_y)
    llr = np.where(np.isnan(llr), 0.0, np.clip(llr, -1000.0, 1000.0))
    key = np.round(llr / width).astype(np.int64)
    uniq, inv = np.unique(key, return_inverse=True)
    return LlrBins(
        p_x=np.bincount(inv, weights=p_x), p_y=np.bincount(inv, weights=p_y), llr=uniq * width
    )


def product_bins(a: LlrBins, b: LlrBins, width: float) -> LlrBins:
    """The LLR bins of the product of two independent laws (the LLRs add)."""
    llr = (a.llr[:, None] + b.llr[None, :]).ravel()
    p_x = (a.p_x[:, None] * b.p_x[None, :]).ravel()
    p_y = (a.p_y[:, None] * b.p_y[None, :]).ravel()
    key = np.round(llr / width).astype(np.int64)
    uniq, inv = np.unique(key, return_inverse=True)
    return LlrBins(
        p_x=np.bincount(inv, weights=p_x), p_y=np.bincount(inv, weights=p_y), llr=uniq * width
    )
