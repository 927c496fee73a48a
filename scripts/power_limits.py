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

The sparse vectors that release noisy values (SparseVectorTechnique3, NumericalSVT,
SVT34Parallel) have mixed outputs — a code pattern plus continuous values; their laws
are integrated over the threshold noise in ``scripts/_svt_value_laws.py`` on a fine grid
of the value axes, and :func:`value_release_table` reports their ceilings at levels
0.025 (each of the two pairs an audit tests) and 0.05, with the optimal event.

Usage: python scripts/power_limits.py   (prints the Markdown tables)
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _svt_value_laws import (
    CellLaw,
    binned,
    codes_only_law,
    fresh_value_law,
    laplace_cdf,
    laplace_pdf,
    product_bins,
    released_comparison_law,
)

from privaudit.statistics import epsilon_lower_bound, rate_ratio_epsilon_lower_bound
from privaudit.suites import dpsniper_cases

#: Per-event level: the whole α = 0.05 of a 95 % audit on one event (the best case for
#: any single-event test; an audit that tests two pairs has at most 0.025 per event).
ALPHA = 0.05


def best_bound(p_x: np.ndarray, p_y: np.ndarray, n: int, alpha: float = ALPHA) -> float:
    """The best expected ε_lb over likelihood-ratio prefixes, both directions.

    Each prefix gets the larger of the two exact bounds the audit can use on a pure
    claim: the two Clopper–Pearson bounds at α/2 each, and the rate-ratio bound of a
    Poissonised test split (one CP bound at α; ``privaudit.statistics.rate_ratio``).
    """
    best = 0.0
    for a, b in ((p_x, p_y), (p_y, p_x)):
        order = np.argsort(-(a / np.maximum(b, 1e-300)))
        ca = np.minimum(np.round(np.cumsum(a[order]) * n), n).astype(np.int64)
        cb = np.minimum(np.round(np.cumsum(b[order]) * n), n).astype(np.int64)
        classical = np.asarray(epsilon_lower_bound(ca, n, cb, n, alpha=alpha))
        ratio = np.asarray(rate_ratio_epsilon_lower_bound(ca, cb, float(n), float(n), alpha=alpha))
        best = max(best, float(np.max(np.maximum(classical, ratio))))
    return best


#: E[min of ten independent standard normals]: how far below its mean the smallest of ten
#: seeds' bounds lands, in standard deviations of the bound.
TEN_SEED_MINIMUM = -1.5388


def ten_seed_floor(
    p_x: np.ndarray, p_y: np.ndarray, n: int, alpha: float = ALPHA
) -> tuple[float, float]:
    """The expected minimum over ten seeds of the optimal event's bound at ``n`` per side,
    and the bound's standard deviation.

    The ceiling c is :func:`best_bound`; the optimal event of the Clopper–Pearson bound
    (:func:`optimal_event`) gives its standard deviation: the event's estimated log-ratio
    ln(p̂_a / p̂_b) has standard deviation σ = √((1 − p_a)/(n p_a) + (1 − p_b)/(n p_b))
    (delta method), and the bound moves with it, so the smallest of ten independent seeds'
    bounds is about c − 1.54·σ.  Even an auditor that always tested this event would meet
    a target above that floor at fewer than ten seeds of ten.
    """
    ceiling = best_bound(p_x, p_y, n, alpha)
    event = optimal_event(p_x, p_y, n, alpha)
    if event.p_a <= 0 or event.p_b <= 0:
        return ceiling, 0.0
    sigma = math.sqrt((1 - event.p_a) / (n * event.p_a) + (1 - event.p_b) / (n * event.p_b))
    return ceiling + TEN_SEED_MINIMUM * sigma, sigma


def noisy_max_index(q: np.ndarray, b: float = 20.0) -> np.ndarray:
    """P(argmax = i) for q + Laplace(b) noise."""
    t = np.linspace(q.min() - 100 * b, q.max() + 100 * b, 400_001)
    dt = t[1] - t[0]
    out = []
    for i in range(q.size):
        prod = laplace_pdf(t - q[i], b)
        for j in range(q.size):
            if j != i:
                prod = prod * laplace_cdf(t - q[j], b)
        out.append(prod.sum() * dt)
    return np.array(out)


def noisy_max_value(q: np.ndarray, b: float = 20.0) -> np.ndarray:
    """P(max ≤ t) on a fine grid of t, as cell masses (the max of q + Laplace(b))."""
    t = np.linspace(-600.0, 600.0, 24_001)
    cdf = np.prod(laplace_cdf(t[:, None] - q[None, :], b), axis=1)
    return np.diff(np.concatenate([[0.0], cdf, [1.0]]))


def svt_first_top(q: np.ndarray, b_rho: float, b_nu: float, t: float) -> np.ndarray:
    """Cut-off c = 1 sparse vector: P(first ⊤ at position k) and P(no ⊤)."""
    r = np.linspace(-40 * b_rho, 40 * b_rho, 40_001)
    w = laplace_pdf(r, b_rho) * (r[1] - r[0])
    below = laplace_cdf(t + r[:, None] - q[None, :], b_nu)
    out, pre = [], np.ones_like(r)
    for k in range(q.size):
        out.append(np.sum(w * pre * (1 - below[:, k])))
        pre = pre * below[:, k]
    out.append(np.sum(w * pre))
    return np.array(out)


def svt_no_cutoff(q: np.ndarray, b_rho: float, b_nu: float, t: float) -> np.ndarray:
    """No cut-off: P(pattern) over all 2ⁿ answer patterns."""
    r = np.linspace(-40 * b_rho, 40 * b_rho, 40_001)
    w = laplace_pdf(r, b_rho) * (r[1] - r[0])
    below = laplace_cdf(t + r[:, None] - q[None, :], b_nu)
    pats = np.array(list(itertools.product([0, 1], repeat=q.size)))
    prob = np.ones((len(pats), r.size))
    for j in range(q.size):
        prob *= np.where(pats[:, j : j + 1] == 1, 1 - below[None, :, j], below[None, :, j])
    return prob @ w


def rappor_bits(p1: float, p0: float, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Number of differing bits reported in x's favour: Bin(bits, p1) vs Bin(bits, p0)."""
    k = np.arange(bits + 1)
    return stats.binom.pmf(k, bits, p1), stats.binom.pmf(k, bits, p0)


def laplace_parallel(n_par: int = 20, b: float = 200.0) -> tuple[np.ndarray, np.ndarray]:
    """(#coords ≤ 0, #coords ≥ 1) of 20 Laplace(200) releases of 0 vs of 1 (the middle
    band (0, 1) scored 0 — slightly pessimistic)."""

    def cells(shift: float) -> np.ndarray:
        lo = float(laplace_cdf(np.array(0.0 - shift), b))
        hi = 1.0 - float(laplace_cdf(np.array(1.0 - shift), b))
        mid = 1.0 - lo - hi
        out = np.zeros((n_par + 1, n_par + 1))
        for kp in range(n_par + 1):
            for km in range(n_par + 1 - kp):
                out[kp, km] = (
                    math.comb(n_par, kp)
                    * math.comb(n_par - kp, km)
                    * lo**kp
                    * hi**km
                    * mid ** (n_par - kp - km)
                )
        return out.ravel()

    return cells(0.0), cells(1.0)


# ----------------------------------------------------------------------------------------
# sparse vectors releasing noisy values (mixed outputs)
# ----------------------------------------------------------------------------------------
#: Width of the LLR bins into which the laws of SVT34Parallel's two runs are merged.
LLR_BIN = 1e-4
#: Levels at which the value-releasing sparse vectors' ceilings are reported.
VALUE_LEVELS = (0.025, 0.05)


@dataclass(frozen=True)
class ValueCase:
    """One value-releasing sparse vector on one DP-Sniper pair: how to build its law."""

    mechanism: str
    pair: str
    x: np.ndarray
    y: np.ndarray

    def law(self) -> CellLaw | tuple[CellLaw, CellLaw]:
        """The cell law (SVT3, NumericalSVT) or the two runs' laws (SVT34Parallel).

        Noise scales as in ``privaudit/suites/_dpsniper_svt.py`` at ε = 0.1 with
        DP-Sniper's c and t: SVT3 c = 1, t = 1: ρ ~ Lap(1/ε1) = Lap(20), ν ~ Lap(c/ε2) =
        Lap(20); NumericalSVT c = 2, t = 1: ρ ~ Lap(3/ε) = Lap(30), ν ~ Lap(6c/ε) =
        Lap(120), released η ~ Lap(3c/ε) = Lap(60); SVT34Parallel c = 2, t = 1: Alg. 3
        with ρ ~ Lap(20), ν ~ Lap(2/0.05) = Lap(40), and Alg. 4 with ε1 = ε/4: ρ ~
        Lap(40), ν ~ Lap(1/0.075).
        """
        if self.mechanism == "SparseVectorTechnique3":
            return released_comparison_law(
                self.x, self.y, b_rho=20.0, b_nu=20.0, t=1.0, c=1, step=0.5
            )
        if self.mechanism == "NumericalSVT":
            return fresh_value_law(
                self.x, self.y, b_rho=30.0, b_nu=120.0, b_release=60.0, t=1.0, c=2
            )
        three = released_comparison_law(
            self.x, self.y, b_rho=20.0, b_nu=40.0, t=1.0, c=2, step=4.0, reach=15.0
        )
        four = codes_only_law(self.x, self.y, b_rho=40.0, b_nu=1 / 0.075, t=1.0, c=2)
        return three, four


def value_cases() -> list[ValueCase]:
    """The value-releasing sparse vectors on their best DP-Sniper pairs (the best of the
    eight patterns at 4·10⁶ per side; the other six give less, see the module notes)."""
    cases = {c.name.split(".", 1)[1]: c for c in dpsniper_cases()}

    def pair(name: str, i: int) -> tuple[np.ndarray, np.ndarray]:
        x, y = cases[name].input_pairs[i]
        return np.asarray(x, float), np.asarray(y, float)

    return [
        ValueCase("SparseVectorTechnique3", "(1¹⁰, 2¹⁰)", *pair("SparseVectorTechnique3", 10)),
        ValueCase("SparseVectorTechnique3", "(1¹⁰, (2⁵,0⁵))", *pair("SparseVectorTechnique3", 8)),
        ValueCase("NumericalSVT", "(1⁵0⁵, 0⁵1⁵)", *pair("NumericalSVT", 14)),
        ValueCase("NumericalSVT", "(1¹⁰, (2⁵,0⁵))", *pair("NumericalSVT", 8)),
        ValueCase("SVT34Parallel", "(1⁵0⁵, 0⁵1⁵)", *pair("SVT34Parallel", 14)),
        ValueCase("SVT34Parallel", "(1¹⁰, (2⁵,0⁵))", *pair("SVT34Parallel", 8)),
    ]


def product_law(three: CellLaw, four: CellLaw) -> tuple[np.ndarray, np.ndarray]:
    """Cell masses of two independent runs, merged into LLR bins of width :data:`LLR_BIN`
    (the joint table would have 4·10⁶ × 56 cells)."""
    joint = product_bins(
        binned(three.p_x, three.p_y, LLR_BIN), binned(four.p_x, four.p_y, LLR_BIN), LLR_BIN
    )
    return joint.p_x, joint.p_y


def masses(case: ValueCase) -> tuple[np.ndarray, np.ndarray]:
    """The (p_x, p_y) table of a value case (binned for SVT34Parallel)."""
    law = case.law()
    return product_law(*law) if isinstance(law, tuple) else (law.p_x, law.p_y)


@dataclass(frozen=True)
class OptimalEvent:
    """The best likelihood-ratio prefix of a law at n per side and level α."""

    bound: float
    direction: str  # "x_vs_y": S where M(x) is likelier
    llr_level: float  # S = {log p_a/p_b ≥ llr_level}
    p_a: float
    p_b: float


def optimal_event(p_x: np.ndarray, p_y: np.ndarray, n: int, alpha: float) -> OptimalEvent:
    """The likelihood-ratio prefix with the best classical bound (two Clopper–Pearson
    bounds at α/2 each), and that bound: :func:`best_bound` without the rate-ratio bound,
    which is at least as large (0.316 against 0.284 on SVT34Parallel's best pair at
    2·10⁶ per side).  It locates the optimal event and gives the counts whose spread
    :func:`ten_seed_floor` uses."""
    best = OptimalEvent(0.0, "x_vs_y", math.inf, 0.0, 0.0)
    for direction, (a, b) in (("x_vs_y", (p_x, p_y)), ("y_vs_x", (p_y, p_x))):
        with np.errstate(divide="ignore"):
            llr = np.log(a) - np.log(np.maximum(b, 1e-300))
        order = np.argsort(-llr, kind="stable")
        ca = np.minimum(np.round(np.cumsum(a[order]) * n), n).astype(np.int64)
        cb = np.minimum(np.round(np.cumsum(b[order]) * n), n).astype(np.int64)
        eps = np.atleast_1d(epsilon_lower_bound(ca, n, cb, n, alpha=alpha))
        i = int(np.argmax(eps))
        if eps[i] > best.bound:
            best = OptimalEvent(
                float(eps[i]), direction, float(llr[order[i]]), float(ca[i] / n), float(cb[i] / n)
            )
    return best


def _ranges(values: np.ndarray) -> str:
    """Compact value range of a set of cell centres."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        return ""
    return f"v ∈ [{v.min():.3g}, {v.max():.3g}]"


def describe_event(law: CellLaw, event: OptimalEvent, top: int = 4) -> str:
    """The patterns carrying most of the optimal event's mass, with their value ranges."""
    a, b = (law.p_x, law.p_y) if event.direction == "x_vs_y" else (law.p_y, law.p_x)
    with np.errstate(divide="ignore"):
        inside = (np.log(a) - np.log(np.maximum(b, 1e-300))) >= event.llr_level
    mass = np.bincount(law.pattern[inside], weights=a[inside], minlength=len(law.names))
    parts = []
    for p in np.argsort(-mass)[:top]:
        if mass[p] <= 0.02 * event.p_a:
            break
        cells = inside & (law.pattern == p)
        share = mass[p] / max(a[law.pattern == p].sum(), 1e-300)
        vals = law.value[cells]
        ranges = "; ".join(r for r in (_ranges(vals[:, 0]), _ranges(vals[:, 1])) if r)
        parts.append(
            f"{law.names[p]}{' with ' + ranges if ranges else ''} ({share:.0%} of the pattern)"
        )
    return "; ".join(parts)


def describe_product(three: CellLaw, four: CellLaw, event: OptimalEvent, top: int = 3) -> str:
    """The optimal event of two independent runs: {L₃ + L₄ ≥ τ}, by the Alg. 4 patterns
    and the Alg. 3 patterns carrying most of its mass."""
    sign = 1.0 if event.direction == "x_vs_y" else -1.0
    a3, b3 = (three.p_x, three.p_y) if sign > 0 else (three.p_y, three.p_x)
    a4, b4 = (four.p_x, four.p_y) if sign > 0 else (four.p_y, four.p_x)
    l3, l4 = np.log(a3) - np.log(b3), np.log(a4) - np.log(b4)
    order3 = np.argsort(l3)
    tail3 = np.cumsum(a3[order3][::-1])[::-1]  # mass of {L3 ≥ l3[order3[i]]}
    need = event.llr_level - l4
    start = np.searchsorted(l3[order3], need - 0.5 * LLR_BIN)
    in4 = np.where(start < l3.size, tail3[np.minimum(start, l3.size - 1)], 0.0) * a4
    order4 = np.argsort(l4)
    tail4 = np.cumsum(a4[order4][::-1])[::-1]
    start4 = np.searchsorted(l4[order4], event.llr_level - l3 - 0.5 * LLR_BIN)
    in3 = np.where(start4 < l4.size, tail4[np.minimum(start4, l4.size - 1)], 0.0) * a3
    by3 = np.bincount(three.pattern, weights=in3, minlength=len(three.names))
    alg4 = ", ".join(f"{four.names[p]} ({in4[p] / event.p_a:.0%})" for p in np.argsort(-in4)[:top])
    alg3 = ", ".join(f"{three.names[p]} ({by3[p] / event.p_a:.0%})" for p in np.argsort(-by3)[:top])
    return f"Alg. 4 part: {alg4}; Alg. 3 part: {alg3}"


def value_release_rows(sizes: tuple[int, ...] = (10**6, 10**7, 10**8)) -> list[dict[str, Any]]:
    """Ceilings of the value-releasing sparse vectors: one row per case and level, with
    the optimal event at the middle size."""
    cases = {c.name.split(".", 1)[1]: c for c in dpsniper_cases()}
    rows = []
    for case in value_cases():
        law = case.law()
        p_x, p_y = product_law(*law) if isinstance(law, tuple) else (law.p_x, law.p_y)
        deficit = max(abs(1 - p_x.sum()), abs(1 - p_y.sum()))
        for level in VALUE_LEVELS:
            bounds = [best_bound(p_x, p_y, n, level) for n in sizes]
            mid = optimal_event(p_x, p_y, sizes[len(sizes) // 2], level)
            what = (
                describe_product(*law, mid) if isinstance(law, tuple) else describe_event(law, mid)
            )
            rows.append(
                {
                    "mechanism": case.mechanism,
                    "pair": case.pair,
                    "level": level,
                    "lr": cases[case.mechanism].reference_results["dpsniper_lr"],
                    "bounds": bounds,
                    "event": mid,
                    "what": what,
                    "deficit": deficit,
                }
            )
    return rows


def value_release_table() -> str:
    """The Markdown table of :func:`value_release_rows`."""
    lines = [
        (
            "| mechanism | pair | DP-Sniper LR | level | best ε_lb at 10⁶ | at 10⁷ | at 10⁸ | "
            "optimal event at 10⁷ (direction, P[S] on the larger side, ratio; patterns) |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in value_release_rows():
        ev: OptimalEvent = r["event"]
        ratio = math.log(ev.p_a / ev.p_b) if ev.p_b > 0 else math.inf
        lines.append(
            f"| {r['mechanism']} | {r['pair']} | {r['lr']:g} | {r['level']:g} | "
            + " | ".join(f"{v:.4f}" for v in r["bounds"])
            + f" | {ev.direction}, P = {ev.p_a:.3g}, ln ratio {ratio:.3f}; "
            f"{r['what']} |"
        )
    return "\n".join(lines) + "\n"


def computable_laws() -> list[tuple[str, str, Callable[[], tuple[np.ndarray, np.ndarray]]]]:
    """(mechanism, pair, exact output law on x and y) for every case computed here."""
    cases = {c.name.split(".", 1)[1]: c for c in dpsniper_cases()}
    rows: list[tuple[str, str, Callable[[], tuple[np.ndarray, np.ndarray]]]] = []

    def pair(name: str, i: int) -> tuple[np.ndarray, np.ndarray]:
        x, y = cases[name].input_pairs[i]
        return np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))

    x, y = pair("ReportNoisyMax1", 6)
    rows.append(
        ("ReportNoisyMax1", "(1⁵, (0,2,2,2,2))", lambda: (noisy_max_index(x), noisy_max_index(y)))
    )
    x3, y3 = pair("ReportNoisyMax3", 10)
    rows.append(("ReportNoisyMax3", "(1⁵, 2⁵)", lambda: (noisy_max_value(x3), noisy_max_value(y3))))
    for name, b_rho, b_nu, t in (
        ("SparseVectorTechnique1", 20.0, 40.0, 0.5),
        ("SparseVectorTechnique2", 20.0, 40.0, 1.0),
        ("SparseVectorTechnique4", 40.0, 1 / 0.075, 1.0),
    ):
        xs, ys = pair(name, 8)
        rows.append(
            (
                name,
                "(1¹⁰, (2⁵,0⁵))",
                lambda xs=xs, ys=ys, b_rho=b_rho, b_nu=b_nu, t=t: (
                    svt_first_top(xs, b_rho, b_nu, t),
                    svt_first_top(ys, b_rho, b_nu, t),
                ),
            )
        )
        # a generated sign-pattern pair: rest above, last below (spec.relations.vectors)
        zs, ws = np.zeros(10), np.r_[np.ones(9), -1.0]
        rows.append(
            (
                name,
                "(0¹⁰, (1⁹,−1)) (generated)",
                lambda zs=zs, ws=ws, b_rho=b_rho, b_nu=b_nu, t=t: (
                    svt_first_top(zs, b_rho, b_nu, t),
                    svt_first_top(ws, b_rho, b_nu, t),
                ),
            )
        )
    x6, y6 = pair("SparseVectorTechnique6", 8)
    rows.append(
        (
            "SparseVectorTechnique6",
            "(1¹⁰, (2⁵,0⁵))",
            lambda: (svt_no_cutoff(x6, 20, 20, 1), svt_no_cutoff(y6, 20, 20, 1)),
        )
    )
    rappor, one_time = cases["Rappor"].mechanism, cases["OneTimeRappor"].mechanism
    for label, mech in (("Rappor", rappor), ("OneTimeRappor", one_time)):
        p0, p1 = mech.report_probabilities()
        for bits, what in ((6, "DP-Sniper's (0, 1): 6 bits differ"), (8, "best pair: 8 bits")):
            rows.append((label, what, lambda p0=p0, p1=p1, bits=bits: rappor_bits(p1, p0, bits)))
    rows.append(("LaplaceParallel", "(0, 1)", laplace_parallel))
    for case in value_cases():
        rows.append((case.mechanism, case.pair, lambda case=case: masses(case)))
    return rows


def best_single_event(name: str, n: int, alpha: float = ALPHA) -> float | None:
    """The best expected ε_lb of one event at n outputs per side over the pairs computed
    for ``name`` (``None`` when its law is not computed here)."""
    values = [best_bound(*law(), n, alpha) for who, _what, law in computable_laws() if who == name]
    return max(values) if values else None


def limits_table() -> str:
    """The Markdown table of best achievable bounds (10⁶, 10⁷, 10⁸ outputs per side)."""
    cases = {c.name.split(".", 1)[1]: c for c in dpsniper_cases()}
    lines = [
        "| mechanism | pair | DP-Sniper LR | best ε_lb at 10⁶ | at 10⁷ | at 10⁸ |",
        "|---|---|---|---|---|---|",
    ]
    for name, what, law in computable_laws():
        p_x, p_y = law()
        lr = cases[name].reference_results["dpsniper_lr"]
        vals = [best_bound(p_x, p_y, n) for n in (10**6, 10**7, 10**8)]
        lines.append(f"| {name} | {what} | {lr:g} | " + " | ".join(f"{v:.4f}" for v in vals) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    print(limits_table())
    print(
        "Sparse vectors releasing noisy values (exact laws integrated over the threshold "
        "noise; the level is the α of the one event):\n"
    )
    print(value_release_table())


if __name__ == "__main__":
    main()
