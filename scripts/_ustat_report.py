"""Writes ``docs/ustat_study.md`` from a :class:`ustat_study.StudyResult` and its slopes.

Everything numeric in the report is computed here from the result; the only hand-written
prose is :data:`DISCUSSION`, which interprets the default run (seed 20240) and is printed
only for that configuration.
"""

from __future__ import annotations

import itertools
import math
import pathlib
from collections.abc import Sequence

import numpy as np
from _study_tools import summarise_errors
from _ustat_scenarios import (
    CLIP_RADIUS,
    COLLISION_LABELS,
    PROJECTION_FAILURE,
    SCENARIOS,
    STATISTIC_FAILURE,
)

__all__ = ["DISCUSSION", "EXTENDED_SIZES", "write_report"]

#: The long n grid on which the methods' own noise formulas are evaluated (×4 steps).
EXTENDED_SIZES = tuple(190 * 4**j for j in range(8))


def _f(x: float, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}g}"


def _s(x: float) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:+.2f}"


def _ci(fit) -> str:
    if math.isnan(fit.slope):
        return "—"
    return f"{fit.slope:+.2f} [{fit.ci_low:+.2f}, {fit.ci_high:+.2f}]"


def _verdict(fit, leading: float, formula: float) -> str:
    if math.isnan(fit.slope) or math.isnan(leading):
        return ""
    if fit.contains(leading):
        return "agrees"
    if not math.isnan(formula) and fit.contains(formula):
        return "differs; matches own noise formula"
    return "**differs**"


def _headline(result, rows, labels) -> list[str]:
    config = result.config
    eps_ref = 1.0 if 1.0 in config.epsilons else config.epsilons[0]
    n_big = config.sizes[-1]
    index = {(r.scenario, r.method, r.metric, r.variable, r.held): r for r in rows}
    out = [
        (
            f"| scenario | method | private: slope in n (ε = {eps_ref:g}) [95% CI] | Table 1 / "
            "docs/derivations.md §6 "
            f"leading | own-formula slope | verdict | total: slope in n (ε = {eps_ref:g}) [95% CI] "
            f"| theory (total) | private: slope in ε (n = {n_big}) [95% CI] | theory (ε) |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in config.scenarios:
        for method in config.methods:
            total = index.get((name, method, "total", "n", eps_ref))
            if method == "u_n":
                out.append(
                    f"| {name} | {labels[method]} | — | — | — | — | {_ci(total.fit)} | "
                    f"{_s(total.leading)} | — | — |"
                )
                continue
            priv = index[(name, method, "private", "n", eps_ref)]
            in_eps = index.get((name, method, "private", "eps", float(n_big)))
            eps_cell = _ci(in_eps.fit) if in_eps else "—"
            eps_lead = _s(in_eps.leading) if in_eps else "—"
            out.append(
                f"| {name} | {labels[method]} | {_ci(priv.fit)} | {_s(priv.leading)} | "
                f"{_s(priv.formula)} | {_verdict(priv.fit, priv.leading, priv.formula)} | "
                f"{_ci(total.fit)} | {_s(total.leading)} | {eps_cell} | {eps_lead} |"
            )
    return out


def _slopes_every_eps(result, rows, labels) -> list[str]:
    config = result.config
    index = {(r.scenario, r.method, r.metric, r.variable, r.held): r for r in rows}
    head = " | ".join(f"ε = {e:g}" for e in config.epsilons)
    out = [
        (
            f"| scenario | method | metric | {head} | leading | own formula (ε = "
            f"{config.epsilons[0]:g} … {config.epsilons[-1]:g}) |"
        ),
        "|---|---|---|" + "---|" * len(config.epsilons) + "---|---|",
    ]
    for name in config.scenarios:
        for method in config.methods:
            for metric in ("total",) if method == "u_n" else ("private", "total"):
                cells = [index[(name, method, metric, "n", float(e))] for e in config.epsilons]
                formulas = ", ".join(_s(c.formula) for c in cells) if metric == "private" else "—"
                out.append(
                    f"| {name} | {labels[method]} | {metric} | "
                    + " | ".join(_ci(c.fit) for c in cells)
                    + f" | {_s(cells[0].leading)} | {formulas} |"
                )
    return out


def _slopes_in_eps(result, rows, labels) -> list[str]:
    config = result.config
    sizes = (config.sizes[0], config.sizes[-1])
    out = [
        "| scenario | method | "
        + " | ".join(f"n = {n}" for n in sizes)
        + " | leading | own formula (n = "
        + f"{sizes[0]}, {sizes[1]}) |",
        "|---|---|---|---|---|---|",
    ]
    index = {(r.scenario, r.method, r.metric, r.variable, r.held): r for r in rows}
    for name in config.scenarios:
        for method in config.methods:
            if method == "u_n":
                continue
            cells = [index.get((name, method, "private", "eps", float(n))) for n in sizes]
            if None in cells:
                continue
            out.append(
                f"| {name} | {labels[method]} | "
                + " | ".join(_ci(c.fit) for c in cells)
                + f" | {_s(cells[0].leading)} | "
                + ", ".join(_s(c.formula) for c in cells)
                + " |"
            )
    return out


def _extended(result, labels, expected_private_error) -> list[str]:
    config = result.config
    eps = 1.0 if 1.0 in config.epsilons else config.epsilons[0]
    sizes = EXTENDED_SIZES
    head = " | ".join(f"{a}→{b}" for a, b in itertools.pairwise(sizes))
    out = [f"| scenario | method | {head} | leading |", "|---|---|" + "---|" * len(sizes)]
    for name in config.scenarios:
        scenario = SCENARIOS[name]
        for method in config.methods:
            if method == "u_n":
                continue
            values = [expected_private_error(scenario, method, n, eps) for n in sizes]
            slopes = [
                math.log(values[i + 1] / values[i]) / math.log(sizes[i + 1] / sizes[i])
                for i in range(len(sizes) - 1)
            ]
            out.append(
                f"| {name} | {labels[method]} | "
                + " | ".join(f"{s:+.2f}" for s in slopes)
                + f" | {_s(scenario.theory.private[method][0])} |"
            )
    return out


def _error_tables(result, labels) -> list[str]:
    config = result.config
    out: list[str] = []
    for name in config.scenarios:
        out += [
            "",
            f"#### {SCENARIOS[name].title}",
            "",
            (
                "Cells: private MAE ± SE / total MAE ± SE (private error of U_n is 0 by "
                "definition); last column: the noise formula's E|θ̃ − A| at that n and ε."
            ),
            "",
            "| method | n | reps | "
            + " | ".join(f"ε = {e:g}" for e in config.epsilons)
            + " | formula E\\|noise\\| (per ε) |",
            "|---|---|---|" + "---|" * len(config.epsilons) + "---|",
        ]
        for method in config.methods:
            for n in config.sizes:
                cells, formula = [], []
                for e in config.epsilons:
                    key = (name, method, n, float(e))
                    p, t = (
                        summarise_errors(result.private[key]),
                        summarise_errors(result.total[key]),
                    )
                    cells.append(
                        f"{_f(p.mean)} ± {_f(p.standard_error, 2)} / "
                        f"{_f(t.mean)} ± {_f(t.standard_error, 2)}"
                    )
                    formula.append(_f(float(np.mean(result.noise_std[key])) / math.sqrt(2.0)))
                reps = result.private[(name, method, n, float(config.epsilons[0]))].size
                out.append(
                    f"| {labels[method]} | {n} | {reps} | "
                    + " | ".join(cells)
                    + f" | {', '.join(formula)} |"
                )
    return out


def _snapshot(result, labels, crossover) -> list[str]:
    """Private MAE of every method at the largest n, next to U_n's sampling error."""
    config = result.config
    eps = 1.0 if 1.0 in config.epsilons else config.epsilons[0]
    n = config.sizes[-1]
    private = [m for m in config.methods if m != "u_n"]
    out = [
        "| scenario | E\\|U_n − θ\\| (measured) | "
        + " | ".join(labels[m] for m in private)
        + " | "
        + " | ".join(
            f"n from which {labels[m]} < sampling error"
            for m in ("all_tuples", "alg1_rigorous", "alg1_paper")
            if m in private
        )
        + " |",
        "|---|---|"
        + "---|" * len(private)
        + "---|" * len([m for m in ("all_tuples", "alg1_rigorous", "alg1_paper") if m in private]),
    ]
    for name in config.scenarios:
        scenario = SCENARIOS[name]
        sampling = summarise_errors(result.total[(name, "u_n", n, eps)]).mean
        cells = [_f(summarise_errors(result.private[(name, m, n, eps)]).mean) for m in private]
        cross = []
        for m in ("all_tuples", "alg1_rigorous", "alg1_paper"):
            if m in private:
                size = crossover(scenario, m, eps, start=config.sizes[0])
                cross.append("> 4·10⁶" if size is None else f"≈ {size:,}")
        out.append(
            f"| {name} | {_f(sampling)} | " + " | ".join(cells) + " | " + " | ".join(cross) + " |"
        )
    return out, eps, n


def _calibration(result, labels) -> list[str]:
    """Measured private MAE against the exact formula E|noise| = mean(noise_std)/√2."""
    config = result.config
    out = [
        "| method | cells | median MAE / formula | range | cells with \\|z\\| > 1.96 |",
        "|---|---|---|---|---|",
    ]
    for method in config.methods:
        if method == "u_n":
            continue
        ratios, z_big, cells = [], 0, 0
        for name in config.scenarios:
            for n in config.sizes:
                for e in config.epsilons:
                    key = (name, method, n, float(e))
                    summary = summarise_errors(result.private[key])
                    formula = float(np.mean(result.noise_std[key])) / math.sqrt(2.0)
                    ratios.append(summary.mean / formula)
                    z_big += abs(summary.mean - formula) > 1.96 * summary.standard_error
                    cells += 1
        out.append(
            f"| {labels[method]} | {cells} | {np.median(ratios):.3f} | "
            f"[{min(ratios):.2f}, {max(ratios):.2f}] | {z_big} ({z_big / cells:.0%}) |"
        )
    return out


def _flags(result, rows, labels) -> list[str]:
    out = []
    for r in rows:
        if r.metric != "private" or r.variable != "n" or math.isnan(r.fit.slope):
            continue
        if r.fit.contains(r.leading):
            continue
        explained = (not math.isnan(r.formula)) and r.fit.contains(r.formula)
        out.append(
            f"- {r.scenario}, {labels[r.method]}, ε = {r.held:g}: measured "
            f"{_ci(r.fit)} vs leading {_s(r.leading)}; own noise formula {_s(r.formula)} "
            + ("(inside the CI: lower-order terms)" if explained else "(**outside the CI too**)")
        )
    return out


def _scenario_table(result) -> list[str]:
    config = result.config
    out = [
        "| scenario | data | kernel, C | θ | ξ at n = "
        + ", ".join(str(n) for n in config.sizes)
        + " | A.2: R, τ |",
        "|---|---|---|---|---|---|",
    ]
    for name in config.scenarios:
        s = SCENARIOS[name]
        n0 = config.sizes[0]
        kernel = s.kernel_for(n0)
        xis = ", ".join(_f(result.xi[(name, n)]) for n in config.sizes)
        theta = ", ".join(_f(s.theta(n), 4) for n in (config.sizes[0], config.sizes[-1]))
        out.append(
            f"| {name} | {s.title} | {kernel.name}, C = {_f(kernel.additive_range)} | "
            f"{theta} | {xis} | R = {_f(s.mean_bound(n0))}, τ = C²/4 = "
            f"{_f(s.subgaussian_proxy(n0))} |"
        )
    return out


#: Interpretation of the default run (seed 20240, 200 repetitions); see write_report.
DISCUSSION = """\
All numbers quoted here are from the tables above (seed 20240, 200 repetitions per cell).

**1. What agrees with the theory.**
* *Non-private U_n* matches √Var(U_n) in all four scenarios: slopes −0.50, −0.98, −1.24,
  −1.32 against −1/2 (non-degenerate, Lemma A.1(i)), −1 (degenerate, Lemma A.1(ii)) and
  r_n/n = n^(−1.25), n^(−1.33) (docs/derivations.md §6).
* *Baselines A.2* (naive and all-tuples): private error ∝ n^(−1)ε^(−1) as Table 1 says —
  slopes in n between −0.92 and −1.18, in ε between −0.92 and −1.08 at n = 3040. The small
  departures are the methods' own lower-order terms (their exact noise formula is inside
  almost every interval): Q(γ) = √(2τ ln(2M/γ)) adds a √log n factor (asymptotic local
  slope −0.97, not −1), and at small nε the first step's Laplace noise widens the second
  step's interval (a 1/(n²ε²) term: slopes −1.1 to −1.2 at ε = 0.5 and in ε at n = 190).
  All-tuples is *worse* than naive in private error (median ratio 1.25, range 0.9–1.5 over
  the 80 cells: same dep = 2/n, larger Q — ln C(n,2) vs ln(n/2)), in line with Table 1's
  k^{3/2} vs k. Neither gets near the
  sampling error: for the degenerate and sparse kernels the all-tuples private error stays
  above E|U_n − θ| up to n = 4·10⁶ and asymptotically for ever (Remark 2: private
  Θ̃(1/(nε)) vs non-private O(1/n) or O(r_n/n)), and at n = 3040, ε = 1 it exceeds θ itself
  for the RGG scenarios (7.8e−3 and 9.1e−3 against θ = 4.5e−3 and 1.2e−3). The naive
  baseline's non-private part √(ζ_k/⌊n/2⌋) ∝ n^(−1/2) (Table 1: "No") is visible where its
  private part is small: collision, ε = 4, total-error slope −0.67 heading to −1/2.
* *Algorithm 1 beats the baselines by the predicted margin where Table 1 says it should*:
  at n = 3040, ε = 1 its private error (rigorous S) is 5× smaller than all-tuples A.2 for the
  variance (0.029 vs 0.151), 20× for collisions (4.3e−4 vs 8.5e−3) and 28–32× for RGG edges.
* Every measured private MAE agrees with the method's exact noise formula (median ratio
  0.99, all ratios in [0.78, 1.23]; see the calibration table), and Algorithm 1's band level
  was L = 1 in every repetition (ξ is never exceeded, Ã_n = A_n, no weighting bias).

**2. Disagreement 1 — Algorithm 1's private error falls *faster* in n than Table 1's
leading term.** Measured slopes at ε = 1: −1.40 / −1.67 (rigorous / paper S; theory −1)
for the variance, −1.88 / −1.99 (theory −3/2) for collisions, −1.98 / −2.02 and
−1.96 / −2.06 (theory −7/4 and −11/6) for RGG edges. The method's own formula reproduces
each of them (−1.36 / −1.63, −1.86 / −1.96, −1.97 / −1.99, −1.98 / −2.00), so the gap is
lower-order terms, not a wrong rate. Algorithm 1 runs at β = ε/(3 + 3^{3/4}) ≈ ε/5.28
(rigorous) or ε/10 (paper), so at ε = 1 its internal ε is 0.19 or 0.1, and the smooth
bound's maximum over ℓ (attained near ℓ ≈ 1–2/β, where the band radius has grown by
6kC/n per level) makes the C·(k/(nβ))² and C·(k/(nβ))³ terms of Theorem 2 / Corollary 2
dominate kξ/(nβ) at these n. The local-slope table shows where the leading term takes
over: by n ≈ 10⁴–5·10⁴ for the variance (−1.03), by n ≈ 2·10⁵–8·10⁵ for collisions (−1.50);
for RGG edges not even at n = 3·10⁶ (−1.87 and −1.97). For RGG this is exactly the
1/(n²ε²) term of docs/derivations.md §6: ξ ≍ r_n√(log n/n) is so small that r_n/(n^{3/2}ε) exceeds
C/(n²ε²)·(constants) only when n^{1/4}β (resp. n^{1/6}β) is large compared with the
constants of S, far beyond any practical n. So the r_n/(n^{3/2}ε) rate, though correct
asymptotically, never describes the private error in practice; n^(−2)ε^(−2)-type decay does.

**3. Disagreement 2 — the slopes in ε are not −1.** At n = 3040 Algorithm 1's private error
scales like ε^(−0.67) (rigorous, variance), ε^(−0.98) (rigorous, collision), ε^(−1.3)
(rigorous, RGG), and ε^(−1.1) to ε^(−2.6) in paper mode. Two opposite effects:
* *Flatter than −1* (rigorous mode, and both modes asymptotically): the smooth bound at
  L = 1 has an ε-free part. As n → ∞, S_rig(1) ≈ (kξ/n)(2 + 3.75β) and S_paper(1) ≈
  (kξ/n)(1 + β) (the paper's own g carries the factor (1 + εL)), so the noise S/β ≈
  (kξ/n)(10.6/ε + 3.75) (rigorous) or (kξ/n)(10/ε + 1) (paper). Over ε ∈ [0.5, 4] that is a
  slope of about −0.66 (rigorous) and −0.86 (paper), not −1: Table 1's ε^(−1) is the ε → 0
  limit. In the rigorous bound the extra term is the proven cost of the ≤ 2L + 1 bad indices
  whose weights a neighbour can shift by s(D_x + a) with ramp slope s = β/a.
* *Steeper than −1* (paper mode, small n, RGG): the C(k/(nβ))² and C(k/(nβ))³ terms above,
  which scale like ε^(−2) and ε^(−3) (Theorem 2); paper mode sits at the smaller β = ε/10 and
  its g_paper has the L²·min(k, L) term, so it is hit hardest.

**4. Disagreement 3 — total error.** Table 1 says Algorithm 1's total error matches
√Var(U_n) ("Yes"); at the measured n it does not yet, because the private part still
dominates at ε ≤ 1 (total slopes equal the private ones: e.g. −1.87 vs theory −1 for
collisions). The snapshot table gives, from the exact formulas, the n from which the private
error drops below E|U_n − θ| at ε = 1: ≈ 7·10³ (variance), ≈ 2·10⁴ (collisions), ≈ 1·10⁵
and ≈ 4·10⁵ (RGG, r_n = n^(−1/4), n^(−1/3)); at ε = 4 the variance case is already there
(private 0.016 vs sampling 0.020 at n = 3040). For the all-tuples baseline the crossover is
≈ 2.6·10⁵ for the variance and beyond 4·10⁶ for the others — the separation the paper claims.

**5. Rigorous vs paper S at the same total ε.** The paper's printed S is 2–5× smaller per β
but is only claimed 10β-DP (and is not a valid smooth bound, docs/derivations.md §3), while the
rigorous S is proven (3 + 3^{3/4})β-DP. At equal total ε the unproven paper mode is *worse*
at ε = 0.5 (variance 0.078 vs 0.063, collision 3.0e−3 vs 1.0e−3, RGG 3.1e−3 vs 1.0e−3 at
n = 3040), within a factor 1.5 either way at ε = 1 (paper/rigorous 0.72, 1.02, 1.36, 1.50),
and better only at ε = 4 (by 2.0–4.3×). Asymptotically the ratio
rigorous/paper tends to (10.6/ε + 3.75)/(10/ε + 1): 1.3 at ε = 1, 1.8 at ε = 4.

**6. Statistical caveats.** The bootstrap intervals are 95% percentile intervals per slope
and are not corrected for the 208 slopes reported. Across the 320 private-error cells, 25
(7.8%) have |MAE − formula| > 1.96 SE against 5% expected with exact formulas; the mild
excess is consistent with slow CLT convergence for |Z| (E|Z|³ = ∞ for the inverse-quartic
noise) and for the Laplace cells alike, and no method or scenario is systematically off
(all ratios within 0.78–1.23). Slope intervals that exclude their own formula's slope (5 of
64 private slopes in n, 2 of 32 in ε) are of the same nature.

**7. What this study does not show.** (i) Wrapper 1 is not exercised (one chunk): its
median of q chunks changes constants, not exponents. (ii) ξ comes from the known law; the
distribution-free Corollary 2 ξ would be about 4× larger for collisions, scaling the
kξ/(nβ) term (not the dominant lower-order terms) by 4. (iii) n stops at 3040 because the
library's all-tuples A.2 enumerates at most 5·10⁶ pairs; beyond that only the exact noise
formulas (evaluated to 3·10⁶) speak for the asymptotic regime — they are exact expectations
given L = 1, which held throughout, but L = 1 itself was only observed up to n = 3040.
"""


def write_report(
    result,
    rows,
    out: pathlib.Path,
    *,
    runtime: float,
    machine: str,
    plots: Sequence[pathlib.Path],
    quick: bool,
    argv,
    default_config,
    labels: dict[str, str],
    expected_private_error,
    crossover,
) -> pathlib.Path:
    """Render ``ustat_study.md`` into ``out`` and return its path."""
    config = result.config
    snapshot, snap_eps, snap_n = _snapshot(result, labels, crossover)
    reps = sorted({config.repetitions[n] for n in config.sizes})
    command = "python3 scripts/ustat_study.py" + ("" if not argv else " " + " ".join(argv))
    lines = [
        "# U-statistics study: error against n and ε, log-log slopes next to Table 1",
        "",
        (
            "Chaudhuri, Loh, Pandey & Sarkar (NeurIPS 2024) prove rates but report no experiment "
            "(the paper has no experiments section). This study measures them (issue 5 §3). "
            "Generated by "
            f"`{command}`; every number below is recomputed by that command."
        ),
        "",
        "## Setup",
        "",
        (
            f"* **Sizes** n ∈ {{{', '.join(map(str, config.sizes))}}} "
            f"({config.sizes[-1] / config.sizes[0]:g}× range); **privacy** ε ∈ "
            f"{{{', '.join(f'{e:g}' for e in config.epsilons)}}}; **repetitions** "
            f"{', '.join(map(str, reps))} per (scenario, n) — the same data set serves every "
            "method and every ε of a repetition (common random numbers)."
        ),
        (
            f"* **Seed** {config.seed}: data of repetition r at size n come from "
            "`SeedSequence(seed, spawn_key=(crc32(scenario), n, r, crc32('data')))`, each "
            "release's noise from the key (scenario, n, r, method, ε) — a cell's numbers do not "
            "depend on which other cells ran."
        ),
        f"* **Machine** {machine}. **Runtime** {runtime:.0f} s in total ("
        + ", ".join(f"{k}: {v:.0f} s" for k, v in result.runtime.items())
        + ").",
        (
            "* **Metrics.** Private error |θ̃ − A| where A is the non-private statistic the method "
            "privatises (U_n; for the naive baseline the mean of its ⌊n/2⌋ disjoint pairs); total "
            "error |θ̃ − θ|. Each cell reports the mean absolute error (MAE) and its standard "
            "error. RMSE is not used: Algorithm 1's noise Z (density ∝ 1/(1+z⁴)) has E Z² = 1 but "
            "E Z⁴ = ∞, so a sample RMSE has no finite-variance standard error."
        ),
        (
            f"* **Slopes.** Least squares of log MAE on log n (per ε) or on log ε (per n); 95% "
            f"percentile intervals from {config.bootstrap} bootstrap replicates that resample the "
            "repetitions within every cell. *Leading* = the exponent of the leading private term "
            "of Table 1 / docs/derivations.md §6 (and of √Var for the non-private part). *Own "
            "formula* = the least-squares slope, over the same grid, of the method's exact "
            "expected private error computed from its public noise scale (Algorithm 1: S(1)/β·E|Z| "
            "= S(1)/(β√2); A.2: the final Laplace scale) — the prediction that keeps every "
            "lower-order term."
        ),
        "",
        "### Scenarios (all public parameters fixed before any data are drawn)",
        "",
        *_scenario_table(result),
        "",
        (
            f"* (a) X ~ N(0,1) clipped to the public [−{CLIP_RADIUS:g}, {CLIP_RADIUS:g}], so the "
            "variance kernel (x − y)²/2 is bounded with C = 2R² = 18 (Theorem 2's bounded setting, "
            "not Corollary 1: (x − y)²/2 of Gaussian data is sub-exponential, not sub-Gaussian). θ "
            "is the variance of the clipped law, θ_R ≈ 0.99501; the clipping bias 1 − θ_R is not "
            "part of any error below."
        ),
        (
            f"* (b) uniform law on [m], m = {COLLISION_LABELS} fixed, so the kernel's law (and "
            "every constant) stays fixed as n grows and Table 1's n-rates apply as stated. ζ₁ = 0."
        ),
        (
            "* (c) latent points uniform on S² (normalised Gaussians), r_n = n^(−1/4) and "
            "n^(−1/3), θ = r_n²/4 exactly; the estimators see the latent points through the "
            "library's `rgg_edge_kernel(r_n)` (k-d tree fast path). ζ₁ = 0."
        ),
        (
            "* **ξ** = sup_x |h₁(x) − θ| + a Bernstein radius for max_i |ĥ(i) − h₁(X_i)| (union "
            f"over the n indices, failure {PROJECTION_FAILURE}) + a radius for |U_n − θ| "
            f"(Lemma A.3(ii) or Chebyshev with the exact Var(U_n), whichever is smaller; failure "
            f"{STATISTIC_FAILURE}); total failure γ = 0.01 as in the paper's proofs. It is "
            "computed from the *known law* of the scenario — a public number, so privacy holds for "
            "any data (Theorem 2: ξ only affects utility). The distribution-free Corollary 2 ξ of "
            "the library (`degenerate_xi`, σ_i ≤ C/2) is about 4× larger for (b) (0.23 vs 0.059 at "
            "n = 1000); the rates are the same."
        ),
        "",
        "### Methods (every method at the same **total** privacy claim ε)",
        "",
        "* `u_n` — the non-private U-statistic (fast exact path of `local_hajek_projections`).",
        (
            "* `naive` — Algorithm A.2 (CoinPress extension) on the ⌊n/2⌋ disjoint pairs, "
            '`private_coinpress_mean(..., family="naive")`; public R = max |kernel range| and '
            "τ = C²/4 (Hoeffding's lemma), γ = 0.01. ε-DP."
        ),
        (
            "* `all_tuples` — Algorithm A.2 on all C(n, 2) pairs (Proposition 1), same R, τ, γ. "
            "ε-DP. The library enumerates the pairs and evaluates the kernel on each (and refuses "
            "more than 5·10⁶ pairs, hence n ≤ 3040 here); to afford 200 repetitions the study "
            "computes the same sorted pair values once per data set in closed form "
            "(`sorted_pair_values`) and runs the library's public schedule and `clipped_means` "
            "with the same Laplace draws. `tests/unit/scripts/test_ustat_study.py` checks that "
            "these releases are "
            'bit-for-bit the library\'s `private_coinpress_mean(..., family="all")` with the same '
            "generator."
        ),
        (
            "* `alg1_rigorous` — Algorithm 1 on all pairs, `private_mean_local_hajek(..., "
            'sensitivity_mode="rigorous")`: S = S_rig (docs/derivations.md §3), '
            "internal β = ε/(3 + 3^{3/4}) ≈ "
            "ε/5.28, a proven ε-DP claim."
        ),
        (
            "* `alg1_paper` — the same with the paper's printed S (eq. (A.57)), "
            "β = ε/10 (Lemma 2 read as "
            "10ε). Its claim is **unproven** (S_paper is not a bound on the local sensitivity, "
            "docs/derivations.md §3); it is here to reproduce the paper's rates."
        ),
        (
            "* **No Wrapper 1.** Algorithm 1 and A.2 are run on the whole sample as one chunk "
            "(equivalently Wrapper 1 with q = 1, i.e. α ≥ e^{−1/8}). The wrapper's median of "
            "q = ⌈8 ln(1/α)⌉ chunks only turns a constant-probability bound into a 1 − α bound at "
            "n_α = n/q; it changes constants, not exponents, and expected errors are what is "
            "measured here. Theory columns are therefore stated in n, not n_α."
        ),
        "",
        *_result_sections(result, rows, labels, expected_private_error, snapshot, snap_eps, snap_n),
    ]
    levels_above_one = {k: float(np.mean(v > 1)) for k, v in result.level.items() if np.any(v > 1)}
    lines += [
        "Algorithm 1's band level: L = 1 (every index good, Ã_n = A_n) in "
        + (
            "every repetition of every cell."
            if not levels_above_one
            else "all but these cells (fraction with L > 1): "
            + "; ".join(f"{k}: {v:.3f}" for k, v in levels_above_one.items())
            + "."
        ),
        "",
    ]
    if not quick and config == default_config:
        lines += [
            "## Discussion: where measurement and theory disagree, and why",
            "",
            DISCUSSION,
            "",
        ]
    else:
        lines += [
            "## Discussion",
            "",
            (
                "This is not the default configuration (a quick or "
                "modified run): the written discussion of the default run is omitted."
            ),
            "",
        ]
    lines += ["## Plots", ""]
    lines += [f"![{p.stem}]({p.name})" for p in plots] or ["(plots skipped)"]
    lines += [
        "",
        "## Full error table",
        *_error_tables(result, labels),
        "",
        ("Raw per-cell numbers: `ustat_study_errors.csv`; every slope: `ustat_study_slopes.csv`."),
        "",
    ]
    path = out / "ustat_study.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _result_sections(
    result,
    rows,
    labels: dict[str, str],
    expected_private_error,
    snapshot: list[str],
    snap_eps: float,
    snap_n: int,
) -> list[str]:
    """The measured sections of ``ustat_study.md``: the slope table next to Table 1, the
    private error at the largest n, the calibration, the local slopes of the noise
    formulas, the slopes in n and in ε, and the cells that exclude the leading exponent."""
    return [
        "## The slope table (measurement next to Table 1)",
        "",
        *_headline(result, rows, labels),
        "",
        (
            "Verdict: *agrees* — the leading exponent lies in the bootstrap interval; *differs; "
            "matches own noise formula* — it does not, but the exact noise formula of the method "
            "(all terms kept) does, so the gap is lower-order terms at these n; **differs** — "
            "neither."
        ),
        "",
        (
            f"### Private error at the largest n (n = {snap_n}, ε = {snap_eps:g}) against the "
            "sampling error"
        ),
        "",
        (
            "Private MAE of each method; the last columns give the n from which the method's exact "
            "expected private error (its noise formula) falls below E|U_n − θ| ≈ √(2/π)·√Var(U_n) "
            "(exact variance, eq. 3), i.e. where privacy stops dominating the error."
        ),
        "",
        *snapshot,
        "",
        "### Calibration: measured private error against each method's noise formula",
        "",
        (
            "z = (MAE − formula)/SE per cell; with exact formulas about 5% of cells should have "
            "|z| > 1.96 by chance."
        ),
        "",
        *_calibration(result, labels),
        "",
        "### Where the leading terms take over: local slopes of the noise formulas (ε = 1)",
        "",
        (
            "The expected private error each method's public noise scale implies (valid when every "
            "index is good for Algorithm 1 — true in every repetition here — and when A.2's final "
            "clipping cuts nothing), differentiated in log-log between successive n of a ×4 grid "
            "up to 3·10⁶:"
        ),
        "",
        *_extended(result, labels, expected_private_error),
        "",
        "### Slopes in n at every ε",
        "",
        *_slopes_every_eps(result, rows, labels),
        "",
        "### Slopes in ε at the smallest and largest n (private error)",
        "",
        *_slopes_in_eps(result, rows, labels),
        "",
        "### Cells where the measured private slope excludes the leading exponent",
        "",
        *(_flags(result, rows, labels) or ["- none"]),
        "",
    ]
