"""Verify the smooth sensitivity of Algorithm 1: exact enumeration and the auditor on its own.

Reproduces the finding of ``docs/derivations.md`` §3 with the library's own code:

1. **Exact local sensitivity.**  k = 2 ``table_kernel`` on label domains of 3–7 values
   (tables rescaled to [0, 1], so C = 1), n = 20–60, ξ ∈ {0, 0.01, 0.05, 0.1}, and Algorithm
   1's ε (called β) ∈ {0.25, 0.5, 1, 2}.  For random data sets, skewed ones (90 % one
   label) and adversarial ones (hill climbing on single-record changes maximising LS/S_paper
   or LS/S_rig), LS(Ã_n) is computed exactly by enumerating every neighbour
   (:func:`estimators.ustatistics.exact_local_sensitivity`) and compared with S_paper (eq. (A.57)),
   S_rig (docs/derivations.md §3) and the per-level bounds g_paper(L), G_rig(L).  Smoothness
   (S(X) ≤ e^β S(X′) on every enumerated neighbour) and |L_X − L_X′| ≤ 1 are checked too.
   A sample of data sets is re-evaluated through the production all-tuples path (the
   mechanism's ``statistic`` hook) to make sure both paths agree.
2. **The auditor on its own.**  ``privaudit.audit`` on the paper-mode mechanism (claim
   ε = 10β, unproven) and on the rigorous mechanism (claim ε = (3 + 3^{3/4})β) for the four
   β, at CI strength and with a larger claim budget, with no hint about where the bad
   inputs are.  For the paper-mode counterexample found, the script also computes the
   worst privacy loss sup_z |log p_X(z) − log p_X′(z)| of the two output densities, in
   units of β, to compare with 5.28 (valid smooth bound) and 10 (the paper's claim).

Usage: python3 scripts/ustat_sensitivity_check.py [--quick]   (from the repository root;
writes docs/ustat_sensitivity_check.md; the full run takes about two minutes)
"""

from __future__ import annotations

import math
import pathlib
import sys
import time
from dataclasses import dataclass, field

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file: make the repository's packages importable
    sys.path.insert(0, str(ROOT))

from privaudit import CI_STRENGTH, audit
from privaudit.estimators.ustatistics import (
    exact_local_sensitivity,
    internal_epsilon,
    local_hajek_algorithm,
    private_mean_local_hajek_mechanism,
    table_kernel,
)
from privaudit.mechanisms import QUARTIC_CONSTANT

BETAS = (0.25, 0.5, 1.0, 2.0)
XIS = (0.0, 0.01, 0.05, 0.1)


@dataclass
class Worst:
    """Running maxima of the ratios for one β."""

    datasets: int = 0
    paper: float = 0.0
    rigorous: float = 0.0
    paper_local: float = 0.0
    rigorous_local: float = 0.0
    smooth_paper: float = 0.0
    smooth_rigorous: float = 0.0
    level_jump: int = 0
    paper_case: dict = field(default_factory=dict)
    rigorous_case: dict = field(default_factory=dict)


def random_table(rng: np.random.Generator, m: int) -> np.ndarray:
    t = rng.random((m, m))
    t = (t + t.T) / 2.0
    return (t - t.min()) / (t.max() - t.min())


def evaluate(x, paper_alg, rigorous_alg, symbols):
    p = exact_local_sensitivity(paper_alg, x, symbols)
    r = exact_local_sensitivity(rigorous_alg, x, symbols)
    return p, r


def record(worst: Worst, x, p, r, params) -> None:
    worst.datasets += 1
    if p.ratio > worst.paper:
        worst.paper = p.ratio
        worst.paper_case = dict(
            params,
            data=x.tolist(),
            index=p.worst_index,
            value=p.worst_value,
            ls=p.value,
            s_paper=p.smooth_sensitivity,
            s_rig=r.smooth_sensitivity,
            level=p.level,
        )
    if r.ratio > worst.rigorous:
        worst.rigorous = r.ratio
        worst.rigorous_case = dict(params, ls=r.value, s_rig=r.smooth_sensitivity, level=r.level)
    worst.paper_local = max(worst.paper_local, p.local_ratio)
    worst.rigorous_local = max(worst.rigorous_local, r.local_ratio)
    beta = params["beta"]
    for res, attr in ((p, "smooth_paper"), (r, "smooth_rigorous")):
        gap = np.abs(np.log(res.smooth_sensitivity) - np.log(res.neighbour_smooth)).max() / beta
        setattr(worst, attr, max(getattr(worst, attr), float(gap)))
    worst.level_jump = max(worst.level_jump, int(np.abs(r.neighbour_levels - r.level).max()))


def climb(x, objective, steps, rng, m):
    """Hill climbing on single-record changes (accept ties, so plateaus are crossed)."""
    best_x, best = x, objective(x)
    for _ in range(steps):
        y = best_x.copy()
        y[rng.integers(y.size)] = rng.integers(m)
        value = objective(y)
        if value[0] >= best[0]:
            best_x, best = y, value
    return best_x, best


def part_one(quick: bool, rng: np.random.Generator) -> tuple[dict[float, Worst], int]:
    per_beta = 12 if quick else 40
    climbs = 3 if quick else 10
    steps = 15 if quick else 30
    results: dict[float, Worst] = {}
    crosschecked = 0
    for beta in BETAS:
        worst = Worst()
        for trial in range(per_beta):
            m = int(rng.integers(3, 8))
            n = int(rng.integers(20, 61 if not quick else 36))
            xi = float(rng.choice(XIS))
            kernel = table_kernel(random_table(rng, m))
            algs = [
                local_hajek_algorithm(n, kernel, xi=xi, beta=beta, sensitivity_mode=mode)
                for mode in ("paper", "rigorous")
            ]
            symbols = np.arange(m)
            params = {"beta": beta, "n": n, "m": m, "xi": xi, "table": kernel.parameters["table"]}
            x = rng.integers(0, m, n)
            if trial % 2:
                x = np.where(rng.random(n) < 0.9, int(rng.integers(0, m)), x)
            p, r = evaluate(x, *algs, symbols)
            record(worst, x, p, r, params)
            if trial < 4:  # production all-tuples path == enumerated explicit path
                mech = private_mean_local_hajek_mechanism(n, kernel, QUARTIC_CONSTANT * beta, xi=xi)
                assert abs(mech.statistic(x) - r.statistic) <= 1e-12 * max(1.0, abs(r.statistic))
                assert mech.smooth_sensitivity(x) == r.smooth_sensitivity
                crosschecked += 1
            if trial < climbs:
                for which in (0, 1):

                    def objective(
                        y, which=which, algs=algs, symbols=symbols, worst=worst, params=params
                    ):
                        pp, rr = evaluate(y, *algs, symbols)
                        record(worst, y, pp, rr, params)
                        return ((pp.ratio, rr.ratio)[which],)

                    climb(x, objective, steps, rng, m)
        results[beta] = worst
        print(
            f"beta={beta}: {worst.datasets} data sets, max LS/S_paper={worst.paper:.3f}, "
            f"max LS/S_rig={worst.rigorous:.3f}",
            flush=True,
        )
    return results, crosschecked


def privacy_loss(a: float, s_a: float, b: float, s_b: float) -> float:
    """sup_z |log p_a(z) − log p_b(z)| for a + s_a·Z and b + s_b·Z, Z ∝ 1/(1+z⁴)."""
    scale = max(s_a, s_b)
    z = np.linspace(min(a, b) - 200 * scale, max(a, b) + 200 * scale, 400_001)
    z = np.concatenate([z, np.linspace(min(a, b) - 5 * scale, max(a, b) + 5 * scale, 400_001)])
    log_a = -np.log(s_a) - np.log1p(((z - a) / s_a) ** 4)
    log_b = -np.log(s_b) - np.log1p(((z - b) / s_b) ** 4)
    tails = abs(3.0 * math.log(s_a / s_b))
    return float(max(np.abs(log_a - log_b).max(), tails))


@dataclass
class AuditRow:
    mode: str
    configuration: str
    beta: float
    epsilon: float
    budget: int
    upper_status: str
    upper_ratio: float
    smooth_status: str
    verdict: str
    eps_lb: float
    seconds: float
    counterexample: dict | None
    loss: float | None


def part_two(quick: bool, results: dict[float, Worst]) -> list[AuditRow]:
    """Audit paper and rigorous mechanisms on two configurations per β.

    ``fixed``: a 4-label table kernel, n = 20, ξ = 0 (the same for every β);
    ``worst``: the (table, n, ξ) of the worst paper-mode data set of part 1 for that β —
    the auditor is told the configuration, never the data set.
    """
    rng = np.random.default_rng(11)
    fixed = (table_kernel(random_table(rng, 4)), 20, 0.0)
    rows = []
    budgets = (CI_STRENGTH.claim_budget,) if quick else (CI_STRENGTH.claim_budget, 2000)
    for beta in BETAS:
        case = results[beta].paper_case
        worst = (table_kernel(np.asarray(case["table"])), case["n"], case["xi"])
        for label, (kernel, n, xi) in (("fixed", fixed), ("worst", worst)):
            for mode, eps in (("paper", 10.0 * beta), ("rigorous", QUARTIC_CONSTANT * beta)):
                mech = private_mean_local_hajek_mechanism(
                    n, kernel, eps, xi=xi, sensitivity_mode=mode
                )
                assert math.isclose(internal_epsilon(eps, mode), beta)
                for budget in budgets:
                    rows.append(_audit_row(mech, mode, label, n, beta, eps, budget))
    return rows


def _audit_row(mech, mode, label, n, beta, eps, budget) -> AuditRow:
    cfg = CI_STRENGTH.model_copy(update={"claim_budget": budget})
    start = time.perf_counter()
    report = audit(mech, config=cfg)
    took = time.perf_counter() - start
    upper = report.check("sensitivity.smooth.upper_bound")
    smooth = report.check("sensitivity.smooth.smoothness")
    cx, loss = None, None
    if upper.counterexample is not None:
        x = np.asarray(upper.counterexample.x)
        y = np.asarray(upper.counterexample.y)
        sx, sy = mech.evaluate(x), mech.evaluate(y)
        loss = (
            privacy_loss(sx.weighted_mean, sx.noise_scale, sy.weighted_mean, sy.noise_scale) / beta
        )
        cx = {
            "x": x.tolist(),
            "y": y.tolist(),
            "ls": abs(sx.weighted_mean - sy.weighted_mean),
            "s": sx.smooth_sensitivity,
            "level": sx.level,
        }
    print(
        f"audit {mode} {label} n={n} beta={beta} budget={budget}: {upper.status} "
        f"(LS/S={upper.ratio:.3f}), verdict {report.verdict}, {took:.1f}s",
        flush=True,
    )
    return AuditRow(
        mode,
        f"{label} (n={n})",
        beta,
        eps,
        budget,
        upper.status,
        float(upper.ratio),
        smooth.status,
        report.verdict,
        float(report.epsilon_lower_bound),
        took,
        cx,
        loss,
    )


def write(
    results: dict[float, Worst],
    crosschecked: int,
    rows: list[AuditRow],
    seconds: float,
    quick: bool,
) -> pathlib.Path:
    lines = [
        "# Smooth sensitivity of Algorithm 1: exact enumeration and the auditor",
        "",
        (
            "Generated by `python3 scripts/ustat_sensitivity_check.py"
            f"{' --quick' if quick else ''}` in {seconds:.0f} s (seeded, deterministic)."
        ),
        "",
        (
            "β is Algorithm 1's own ε (smoothness, ramp slope, noise divisor).  The rigorous "
            "mechanism claims ε = (3 + 3^{3/4})β ≈ 5.28β, paper mode claims ε = 10β "
            "(unproven)."
        ),
        "",
        "## 1. Exact local sensitivity against the smooth bounds",
        "",
        (
            "k = 2 table kernels on 3–7 labels (C = 1), n = 20–60, ξ ∈ {0, 0.01, 0.05, 0.1}; "
            "random, skewed and hill-climbed (adversarial) data sets; every neighbour "
            "enumerated."
        ),
        "",
        (
            "| β | data sets | max LS/S_paper | max LS/g_paper(L) | max LS/S_rig | "
            "max LS/G_rig(L) | worst log(S(X)/S(X′))/β paper / rigorous | max \\|L−L′\\| |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for beta, w in results.items():
        lines.append(
            f"| {beta:g} | {w.datasets} | {w.paper:.3f} | {w.paper_local:.3f} | "
            f"{w.rigorous:.3f} | {w.rigorous_local:.3f} | {w.smooth_paper:.3f} / "
            f"{w.smooth_rigorous:.3f} | {w.level_jump} |"
        )
    worst_beta = max(results, key=lambda b: results[b].paper)
    case = results[worst_beta].paper_case
    lines += [
        "",
        (
            f"Every enumerated data set was also checked for smoothness (S(X) ≤ e^β S(X′) "
            "on all neighbours, i.e. the column above ≤ 1) and |L − L′| ≤ 1.  "
            f"{crosschecked} data sets were re-evaluated through the production all-tuples "
            "path (exact U-statistic, fast paths and min-weighted tuple sums) and agree with "
            "the enumerated path to 1e-12."
        ),
        "",
        (
            f"Worst paper-mode input (β = {worst_beta:g}): n = {case['n']}, {case['m']} "
            f"labels, ξ = {case['xi']:g}, L = {case['level']}; replacing record "
            f"{case['index']} by label {case['value']} moves Ã_n by LS = {case['ls']:.4g}, "
            f"while S_paper = {case['s_paper']:.4g} (ratio {case['ls'] / case['s_paper']:.2f}) "
            f"and S_rig = {case['s_rig']:.4g} (ratio {case['ls'] / case['s_rig']:.2f})."
        ),
        "",
        f"- table: `{np.round(np.asarray(case['table']), 4).tolist()}`",
        f"- data: `{case['data']}`",
        "",
        "## 2. The auditor on its own",
        "",
        (
            "`privaudit.audit` with CI strength (50,000 samples per side, claim budget 150) "
            "and with claim budget 2000.  Configurations: *fixed* — k = 2 table kernel on 4 "
            "labels, n = 20, ξ = 0; *worst* — the (table, n, ξ) of part 1's worst paper-mode "
            "data set for that β.  No input is given: the smooth-sensitivity check searches "
            "the domain itself (extremes, random data sets, local search maximising LS/S "
            "with exhaustive neighbourhoods when they fit the budget)."
        ),
        "",
        (
            "| mode | configuration | β | claimed ε | claim budget | S ≥ LS check | worst "
            "LS/S found | smoothness check | verdict | ε lower bound | privacy loss of the "
            "counterexample / β | time (s) |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        loss = f"{r.loss:.2f}" if r.loss is not None else "–"
        lines.append(
            f"| {r.mode} | {r.configuration} | {r.beta:g} | {r.epsilon:.4g} | "
            f"{r.budget} | "
            f"{r.upper_status} | {r.upper_ratio:.3f} | {r.smooth_status} | "
            f"{r.verdict} | {r.eps_lb:.3f} | {loss} | {r.seconds:.1f} |"
        )
    flagged = [r for r in rows if r.counterexample is not None]
    if flagged:
        best = max(flagged, key=lambda r: r.upper_ratio)
        cx = best.counterexample or {}
        lines += [
            "",
            (
                f"Worst counterexample found by the auditor (paper mode, β = "
                f"{best.beta:g}, claim budget {best.budget}): LS = {cx['ls']:.4g} > S = "
                f"{cx['s']:.4g} at L = {cx['level']}."
            ),
            "",
            f"- x = `{cx['x']}`",
            f"- y = `{cx['y']}`",
        ]
    paper_betas = [b for b, w in results.items() if w.paper > 1.0]
    rig_bad = [
        b
        for b, w in results.items()
        if w.rigorous > 1.0
        or w.rigorous_local > 1.0
        or w.smooth_rigorous > 1.0 + 1e-9
        or w.level_jump > 1
    ]
    audit_paper = sorted({r.beta for r in rows if r.mode == "paper" and r.counterexample})
    audit_rig = [r for r in rows if r.mode == "rigorous" and r.verdict != "no_violation"]
    losses = [r.loss for r in rows if r.loss is not None]
    lines += [
        "",
        "## Reading",
        "",
        f"- Paper mode: exact enumeration finds LS > S_paper at β ∈ "
        f"{[float(b) for b in paper_betas]}; the auditor, on its own, flags "
        f"`sensitivity.smooth.upper_bound` at β ∈ {[float(b) for b in audit_paper]}.  "
        "Once LS > S the proof of Lemma 2 no longer applies, so the paper-mode claim is "
        "unproven (its spec says so)."
        + (
            f"  The privacy loss of the auditor's counterexample pairs is up to "
            f"{max(losses):.2f}β (a valid smooth bound guarantees ≤ 5.28β; the paper "
            "claims 10β)."
            if losses
            else ""
        ),
        "- Rigorous mode: "
        + (
            "no violation of S_rig ≥ LS, of G_rig(L) ≥ LS, of smoothness or of "
            "|L − L′| ≤ 1 in any enumeration, and no audit found a violation; the "
            "bound G_rig of docs/derivations.md §3 is used unchanged."
            if not rig_bad and not audit_rig
            else f"VIOLATIONS at β ∈ {rig_bad} / audits {[r.beta for r in audit_rig]}: "
            "the bound must be fixed."
        ),
        "",
    ]
    out = ROOT / "docs" / "ustat_sensitivity_check.md"
    out.write_text("\n".join(lines), encoding="utf-8")
    return out


def main() -> None:
    quick = "--quick" in sys.argv
    start = time.perf_counter()
    results, crosschecked = part_one(quick, np.random.default_rng(2024))
    rows = part_two(quick, results)
    out = write(results, crosschecked, rows, time.perf_counter() - start, quick)
    print(f"written {out}")


if __name__ == "__main__":
    main()
