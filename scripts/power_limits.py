"""What any event test can certify on DP-Sniper's pairs at a given sample size.

For several DP-Sniper mechanisms the output law is computable exactly (numerical
integration over the shared noise, or closed forms).  Given the exact probabilities of
every output cell under both inputs of a pair, the best event test — the one a perfect
attacker would pick, a prefix of the cells ordered by their likelihood ratio — has a
known expected Clopper–Pearson bound at n outputs per side and level α (counts set to
their expectations).  No procedure built on one event, exact binomial bounds and
confidence 1 − α can beat it by more than sampling luck; it tells which of DP-Sniper's
published bounds (90 % confidence, 2·10⁸ final samples) are reachable at a given size.
The level is the whole α = 0.05 of a 95 % audit on the one event, the most any single
event of such an audit can get.

Usage: python scripts/power_limits.py   (prints a Markdown table)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
from scipy import stats

from privaudit.statistics import epsilon_lower_bound
from privaudit.suites import dpsniper_cases

#: Per-event level: the whole α = 0.05 of a 95 % audit on one event (the best case for
#: any single-event test; an audit that tests two pairs has at most 0.025 per event).
ALPHA = 0.05


def _cdf(z: np.ndarray, b: float) -> np.ndarray:
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / b),
                    1 - 0.5 * np.exp(-np.maximum(z, 0) / b))


def _pdf(z: np.ndarray, b: float) -> np.ndarray:
    return np.exp(-np.abs(z) / b) / (2 * b)


def best_bound(p_x: np.ndarray, p_y: np.ndarray, n: int, alpha: float = ALPHA) -> float:
    """The best expected ε_lb over likelihood-ratio prefixes, both directions."""
    best = 0.0
    for a, b in ((p_x, p_y), (p_y, p_x)):
        order = np.argsort(-(a / np.maximum(b, 1e-300)))
        ca = np.minimum(np.round(np.cumsum(a[order]) * n), n).astype(np.int64)
        cb = np.minimum(np.round(np.cumsum(b[order]) * n), n).astype(np.int64)
        best = max(best, float(np.max(epsilon_lower_bound(ca, n, cb, n, alpha=alpha))))
    return best


def noisy_max_index(q: np.ndarray, b: float = 20.0) -> np.ndarray:
    """P(argmax = i) for q + Laplace(b) noise."""
    t = np.linspace(q.min() - 100 * b, q.max() + 100 * b, 400_001)
    dt = t[1] - t[0]
    out = []
    for i in range(q.size):
        prod = _pdf(t - q[i], b)
        for j in range(q.size):
            if j != i:
                prod = prod * _cdf(t - q[j], b)
        out.append(prod.sum() * dt)
    return np.array(out)


def noisy_max_value(q: np.ndarray, b: float = 20.0) -> np.ndarray:
    """P(max ≤ t) on a fine grid of t, as cell masses (the max of q + Laplace(b))."""
    t = np.linspace(-600.0, 600.0, 24_001)
    cdf = np.prod(_cdf(t[:, None] - q[None, :], b), axis=1)
    return np.diff(np.concatenate([[0.0], cdf, [1.0]]))


def svt_first_top(q: np.ndarray, b_rho: float, b_nu: float, t: float) -> np.ndarray:
    """Cut-off c = 1 sparse vector: P(first ⊤ at position k) and P(no ⊤)."""
    r = np.linspace(-40 * b_rho, 40 * b_rho, 40_001)
    w = _pdf(r, b_rho) * (r[1] - r[0])
    below = _cdf(t + r[:, None] - q[None, :], b_nu)
    out, pre = [], np.ones_like(r)
    for k in range(q.size):
        out.append(np.sum(w * pre * (1 - below[:, k])))
        pre = pre * below[:, k]
    out.append(np.sum(w * pre))
    return np.array(out)


def svt_no_cutoff(q: np.ndarray, b_rho: float, b_nu: float, t: float) -> np.ndarray:
    """No cut-off: P(pattern) over all 2ⁿ answer patterns."""
    r = np.linspace(-40 * b_rho, 40 * b_rho, 40_001)
    w = _pdf(r, b_rho) * (r[1] - r[0])
    below = _cdf(t + r[:, None] - q[None, :], b_nu)
    pats = np.array(list(itertools.product([0, 1], repeat=q.size)))
    prob = np.ones((len(pats), r.size))
    for j in range(q.size):
        prob *= np.where(pats[:, j:j + 1] == 1, 1 - below[None, :, j], below[None, :, j])
    return prob @ w


def rappor_bits(p1: float, p0: float, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Number of differing bits reported in x's favour: Bin(bits, p1) vs Bin(bits, p0)."""
    k = np.arange(bits + 1)
    return stats.binom.pmf(k, bits, p1), stats.binom.pmf(k, bits, p0)


def laplace_parallel(n_par: int = 20, b: float = 200.0) -> tuple[np.ndarray, np.ndarray]:
    """(#coords ≤ 0, #coords ≥ 1) of 20 Laplace(200) releases of 0 vs of 1 (the middle
    band (0, 1) scored 0 — slightly pessimistic)."""
    def cells(shift: float) -> np.ndarray:
        lo = float(_cdf(np.array(0.0 - shift), b))
        hi = 1.0 - float(_cdf(np.array(1.0 - shift), b))
        mid = 1.0 - lo - hi
        out = np.zeros((n_par + 1, n_par + 1))
        for kp in range(n_par + 1):
            for km in range(n_par + 1 - kp):
                out[kp, km] = (math.comb(n_par, kp) * math.comb(n_par - kp, km)
                               * lo**kp * hi**km * mid ** (n_par - kp - km))
        return out.ravel()
    return cells(0.0), cells(1.0)


def computable_laws() -> list[tuple[str, str, Callable[[], tuple[np.ndarray, np.ndarray]]]]:
    """(mechanism, pair, exact output law on x and y) for every case computed here."""
    cases = {c.name.split(".", 1)[1]: c for c in dpsniper_cases()}
    rows: list[tuple[str, str, Callable[[], tuple[np.ndarray, np.ndarray]]]] = []

    def pair(name: str, i: int) -> tuple[np.ndarray, np.ndarray]:
        x, y = cases[name].input_pairs[i]
        return np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))

    x, y = pair("ReportNoisyMax1", 6)
    rows.append(("ReportNoisyMax1", "(1⁵, (0,2,2,2,2))",
                 lambda: (noisy_max_index(x), noisy_max_index(y))))
    x3, y3 = pair("ReportNoisyMax3", 10)
    rows.append(("ReportNoisyMax3", "(1⁵, 2⁵)", lambda: (noisy_max_value(x3),
                                                       noisy_max_value(y3))))
    for name, b_rho, b_nu, t in (("SparseVectorTechnique1", 20.0, 40.0, 0.5),
                                 ("SparseVectorTechnique2", 20.0, 40.0, 1.0),
                                 ("SparseVectorTechnique4", 40.0, 1 / 0.075, 1.0)):
        xs, ys = pair(name, 8)
        rows.append((name, "(1¹⁰, (2⁵,0⁵))",
                     lambda xs=xs, ys=ys, b_rho=b_rho, b_nu=b_nu, t=t: (
                         svt_first_top(xs, b_rho, b_nu, t), svt_first_top(ys, b_rho, b_nu, t))))
    x6, y6 = pair("SparseVectorTechnique6", 8)
    rows.append(("SparseVectorTechnique6", "(1¹⁰, (2⁵,0⁵))",
                 lambda: (svt_no_cutoff(x6, 20, 20, 1), svt_no_cutoff(y6, 20, 20, 1))))
    rappor, one_time = cases["Rappor"].mechanism, cases["OneTimeRappor"].mechanism
    for label, mech in (("Rappor", rappor), ("OneTimeRappor", one_time)):
        p0, p1 = mech.report_probabilities()
        for bits, what in ((6, "DP-Sniper's (0, 1): 6 bits differ"), (8, "best pair: 8 bits")):
            rows.append((label, what, lambda p0=p0, p1=p1, bits=bits: rappor_bits(p1, p0, bits)))
    rows.append(("LaplaceParallel", "(0, 1)", laplace_parallel))
    return rows


def best_single_event(name: str, n: int, alpha: float = ALPHA) -> float | None:
    """The best expected ε_lb of one event at n outputs per side over the pairs computed
    for ``name`` (``None`` when its law is not computed here)."""
    values = [best_bound(*law(), n, alpha) for who, _what, law in computable_laws()
              if who == name]
    return max(values) if values else None


def limits_table() -> str:
    """The Markdown table of best achievable bounds (10⁶, 10⁷, 10⁸ outputs per side)."""
    cases = {c.name.split(".", 1)[1]: c for c in dpsniper_cases()}
    lines = ["| mechanism | pair | DP-Sniper LR | best ε_lb at 10⁶ | at 10⁷ | at 10⁸ |",
             "|---|---|---|---|---|---|"]
    for name, what, law in computable_laws():
        p_x, p_y = law()
        lr = cases[name].reference_results["dpsniper_lr"]
        vals = [best_bound(p_x, p_y, n) for n in (10**6, 10**7, 10**8)]
        lines.append(f"| {name} | {what} | {lr:g} | " + " | ".join(f"{v:.4f}" for v in vals)
                     + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    print(limits_table())


if __name__ == "__main__":
    main()
