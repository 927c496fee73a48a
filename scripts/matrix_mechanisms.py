"""Matrix mechanisms for continual counting: exact errors, a lower bound, Monte Carlo, audits.

For the binary tree (plain and least-squares estimators), the square-root factorization
and the two trivial factorizations (L = A, R = I and L = I, R = A) this script tabulates
the exact worst per-step error standard deviation and the mean squared error against T
(2⁴ … 2²⁰ and 10⁶, O(T log T) each), divides the worst error by the lower bound
γ₂(A) ≥ (2 + ln((2T + 1)/3))/π of Matoušek, Nikolov & Talwar (IMRN 2020), checks the exact
values by Monte Carlo with streaming noise at T = 10⁶, and audits the correct mechanisms
and the "omitted worst column" variants over five seeds.

Writes ``docs/matrix_mechanisms.md`` and ``docs/matrix_mechanisms_error.png``.  Usage::

    python3 scripts/matrix_mechanisms.py            # full run (a few minutes)
    python3 scripts/matrix_mechanisms.py --quick    # smoke run (T ≤ 2^12, 10 draws, 1 seed)
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from privaudit import AuditConfig, audit
from privaudit.mechanisms import analytic_gaussian_sigma
from privaudit.mechanisms.matrix import (
    PREFIX_METHODS,
    FactorizationMechanism,
    binary_tree_mechanism,
    landau_constants,
    prefix_sum_error_profile,
    prefix_sum_lower_bound,
    sqrt_toeplitz_apply,
    sqrt_toeplitz_mechanism,
    tree_column_counts,
    tree_honaker_prefix_sums,
    tree_level_sizes,
    tree_node_sums,
    tree_plain_prefix_sums,
)
from privaudit.spec import GaussianDP

DOC = ROOT / "docs" / "matrix_mechanisms.md"
FIGURE = ROOT / "docs" / "matrix_mechanisms_error.png"
EPSILON, DELTA = 1.0, 1e-5
LABELS = {
    "tree": "binary tree, plain",
    "honaker": "binary tree, least squares (Honaker)",
    "sqrt_toeplitz": "square root A^(1/2)",
    "input_perturbation": "L = A, R = I",
    "output_perturbation": "L = I, R = A",
}


def error_table(lengths: list[int]) -> dict[int, dict[str, tuple[float, float]]]:
    """T ↦ method ↦ (max std per σ₁, mean squared error per σ₁²)."""
    return {
        T: {
            m: (p.max_error_factor, p.mse_factor)
            for m in PREFIX_METHODS
            for p in [prefix_sum_error_profile(T, m)]
        }
        for T in lengths
    }


def monte_carlo(T: int, draws: int, seed: int) -> dict[str, tuple[float, float, float, float]]:
    """method ↦ (mean of err²/var over t and draws, its s.e., mean max_t|err|/max std, secs).

    Noise is generated in O(T log T) per draw without any T × T matrix: node noise with the
    tree estimators, an FFT convolution for A^(1/2); errors do not depend on the data.
    """
    rng = np.random.default_rng(seed)
    nodes = sum(tree_level_sizes(T))
    out = {}
    for method in ("tree", "honaker", "sqrt_toeplitz"):
        profile = prefix_sum_error_profile(T, method)
        sigma = analytic_gaussian_sigma(EPSILON, DELTA, profile.sensitivity)
        var = sigma**2 * profile.variance_units
        ratios, maxima = [], []
        start = time.perf_counter()
        for _ in range(draws):
            if method == "sqrt_toeplitz":
                err = sqrt_toeplitz_apply(rng.normal(0.0, sigma, T))
            else:
                z = rng.normal(0.0, sigma, nodes)
                estimator = tree_plain_prefix_sums if method == "tree" else tree_honaker_prefix_sums
                err = estimator(z, T)
            ratios.append(float(np.mean(err**2 / var)))
            maxima.append(float(np.abs(err).max()) / math.sqrt(float(var.max())))
        seconds = (time.perf_counter() - start) / draws
        r = np.array(ratios)
        out[method] = (
            float(r.mean()),
            float(r.std(ddof=1) / math.sqrt(draws)),
            float(np.mean(maxima)),
            seconds,
        )
    return out


def _omitted_column_tree(T: int) -> FactorizationMechanism:
    counts = tree_column_counts(T)
    return FactorizationMechanism(
        tree_node_sums,
        (sum(tree_level_sizes(T)), T),
        math.sqrt(float(counts[-1])),
        epsilon=EPSILON,
        delta=DELTA,
        name=f"matrix.binary_tree_omits_worst_column[T={T}]",
    )


def _omitted_column_sqrt(T: int) -> FactorizationMechanism:
    declared = math.sqrt(float(landau_constants(T - 1)[-1]))
    return FactorizationMechanism(
        sqrt_toeplitz_apply,
        (T, T),
        declared,
        epsilon=EPSILON,
        delta=DELTA,
        name=f"matrix.sqrt_toeplitz_omits_worst_column[T={T}]",
    )


def audits(seeds: list[int], samples: int) -> list[tuple[str, float, str, float, float]]:
    """(name, true ε, verdicts over seeds, mean ε lower bound, mean seconds)."""
    cases = [
        (sqrt_toeplitz_mechanism(16, EPSILON, DELTA), math.sqrt(float(landau_constants(16)[-1]))),
        (binary_tree_mechanism(16, EPSILON, DELTA), math.sqrt(5.0)),
        (sqrt_toeplitz_mechanism(8, EPSILON, DELTA, relation="add_remove_one"), None),
        (binary_tree_mechanism(8, EPSILON, DELTA, relation="add_remove_one"), 2.0),
        (_omitted_column_sqrt(16), math.sqrt(float(landau_constants(16)[-1]))),
        (_omitted_column_tree(9), 2.0),
    ]
    rows = []
    for mech, true_sens in cases:
        exact = true_sens if true_sens is not None else math.sqrt(float(landau_constants(8)[-1]))
        true_eps = GaussianDP(mu=exact / mech.sigma).epsilon_for_delta(DELTA)
        verdicts, bounds, seconds = [], [], []
        for seed in seeds:
            start = time.perf_counter()
            report = audit(mech, config=AuditConfig(samples=samples, seed=seed))
            seconds.append(time.perf_counter() - start)
            verdicts.append("V" if report.violated else "-")
            bounds.append(report.epsilon_lower_bound)
        rows.append(
            (
                mech.name,
                true_eps,
                "".join(verdicts),
                float(np.mean(bounds)),
                float(np.mean(seconds)),
            )
        )
    return rows


def figure(table: dict[int, dict[str, tuple[float, float]]]) -> None:
    """Max std and mean squared error per unit noise against T, with the lower bound."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lengths = sorted(table)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for method in PREFIX_METHODS:
        axes[0].plot(
            lengths, [table[T][method][0] for T in lengths], marker="o", ms=3, label=LABELS[method]
        )
        axes[1].plot(
            lengths, [table[T][method][1] for T in lengths], marker="o", ms=3, label=LABELS[method]
        )
    bound = [prefix_sum_lower_bound(T, EPSILON, DELTA).factorization_norm_bound for T in lengths]
    axes[0].plot(lengths, bound, "k--", label="lower bound (MNT 2020)")
    for ax, title in zip(
        axes, ("max_t std(error_t) / sigma_1", "mean_t E[error_t^2] / sigma_1^2"), strict=True
    ):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("T")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(FIGURE, dpi=110)
    plt.close(fig)


def render(table, mc, mc_T, mc_draws, audit_rows, seeds, samples) -> str:
    """The Markdown page."""
    lines = [
        "# Matrix mechanisms for continual counting",
        "",
        "Generated by `scripts/matrix_mechanisms.py`; the code is `mechanisms/matrix/` and",
        "`estimators/continual_counting.py`.",
        "",
        "A factorization mechanism for the prefix-sum workload A (the T × T lower-triangular",
        "all-ones matrix) writes A = L R, releases y = R x + N(0, σ² I) and answers L y. Its",
        "exact claim is the Gaussian mechanism on R x at the ℓ2 sensitivity max_t ‖R e_t‖,",
        "valid under substitute-one on a stream in [0, 1]^T and under add/remove-one of an",
        "event (both move x by c·e_t, |c| ≤ 1; Li, Miklau, Hay, McGregor & Rastogi, VLDB J.",
        "2015, §3). With σ = σ₁ Δ(R) (σ₁ = 3.7306: the analytic Gaussian at sensitivity 1 for",
        "(ε, δ) = (1, 10⁻⁵), Balle & Wang, ICML 2018), the t-th estimate has standard deviation",
        "σ₁ ‖R‖_{1→2} ‖L_t‖. Every number below is per unit σ₁ and holds for every (ε, δ).",
        "",
        "Factorizations: the binary tree (all dyadic intervals inside [0, T); Dwork, Naor,",
        "Pitassi & Rothblum, STOC 2010; Chan, Shi & Song, TISSEC 2011) with the plain estimator",
        "(the popcount(t+1) blocks of [0, t]) or the least-squares estimator (Honaker, TPDP 2015;",
        "computed in O(T) by the two passes of Hay, Rastogi, Miklau & Suciu, PVLDB 2010, Thm. 3;",
        "checked equal to lstsq in the unit tests); the square root A^{1/2}, Toeplitz with",
        "c_k = binom(2k, k)/4^k (Fichtenberger, Henzinger & Upadhyay, ICML 2023; Henzinger,",
        "Upadhyay & Upadhyay, SODA 2023); and the trivial L = A, R = I and L = I, R = A.",
        "",
        "## Exact error against T",
        "",
        "![error against T](matrix_mechanisms_error.png)",
        "",
        "Worst per-step standard deviation max_t std(error_t)/σ₁ (= ‖R‖_{1→2}‖L‖_{2→∞}), and in",
        "brackets the efficiency ratio: that ÷ the lower bound (2 + ln((2T + 1)/3))/π on",
        "γ₂(A) of Matoušek, Nikolov & Talwar (IMRN 2020), which every factorization, streaming",
        "or not, obeys.",
        "",
        "| T | lower bound | " + " | ".join(LABELS[m] for m in PREFIX_METHODS) + " |",
        "|---|---|" + "---|" * len(PREFIX_METHODS),
    ]
    for T in sorted(table):
        lb = prefix_sum_lower_bound(T, EPSILON, DELTA).factorization_norm_bound
        cells = [f"{table[T][m][0]:.4g} ({table[T][m][0] / lb:.3f})" for m in PREFIX_METHODS]
        lines.append(f"| {T} | {lb:.4f} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Mean squared error mean_t E[error_t²]/σ₁² (= Δ² ‖L‖_F²/T):",
        "",
        "| T | " + " | ".join(LABELS[m] for m in PREFIX_METHODS) + " |",
        "|---|" + "---|" * len(PREFIX_METHODS),
    ]
    for T in sorted(table):
        lines.append(
            f"| {T} | " + " | ".join(f"{table[T][m][1]:.4g}" for m in PREFIX_METHODS) + " |"
        )
    lines += [
        "",
        "Reading. The square root's worst error is G(T − 1) = Σ_{k<T} c_k² (Landau's",
        "constants), = (ln T + γ + 4 ln 2)/π + O(1/T) (Zhao, in Popa 2010): 1.066 + ln(T)/π,",
        "so its efficiency ratio tends to 1 — it is 1.11 at T = 10⁶, while the best known",
        "γ₂(A) lies in [0.701, 0.846] + ln(T)/π + o(1) (Henzinger, Kalinin & Upadhyay, 2025).",
        "The trees' errors grow as log T (sensitivity √(⌊log₂T⌋ + 1) times up to √⌊log₂(T+1)⌋",
        "blocks): the ratio grows without bound for the plain tree; least squares divides",
        "the worst error by 1.9 (T = 16) to 2.6 (T = 2^20). For T not a power of two the tree",
        "is a forest (one complete tree per bit of T) and the totals of the earlier trees add",
        "their variances: T = 10⁶ is worse than T = 2^20 for least squares (ratio 1.90 vs",
        "1.59). The trivial factorizations are √T: L = A, R = I and",
        "L = I, R = A have the same worst error √T and mean squared errors (T + 1)/2 and T.",
        "For the mean squared error only an asymptotic lower bound (0.701 + ln T/π + o(1))²",
        "for γ_F is known, so no finite-T ratio is reported for it.",
        "",
        f"## Monte Carlo with streaming noise, T = {mc_T}",
        "",
        f"{mc_draws} draws per method; noise generated without T × T matrices (node noise and",
        "the two-pass estimators for the tree, an overlap-add FFT convolution for A^{1/2});",
        "memory O(T). Columns: the mean over t and draws of error_t²/Var_exact(error_t) (1 if",
        "the exact variances are right) with its standard error, the mean over draws of",
        "max_t |error_t| ÷ the exact max std, and seconds per draw.",
        "",
        "| method | mean err²/var | s.e. | E max_t abs err / max std | s per draw |",
        "|---|---|---|---|---|",
    ]
    for method, (ratio, se, mx, secs) in mc.items():
        lines.append(f"| {LABELS[method]} | {ratio:.4f} | {se:.4f} | {mx:.3f} | {secs:.2f} |")
    lines += [
        "",
        f"## Audits ({samples} samples per side, seeds {seeds})",
        "",
        "`V` = violation, `-` = no violation, one character per seed. The broken variants",
        "declare the sensitivity without the worst column: the square root's columns 1..T−1",
        "(√G(T−2)), and the tree's last column (t = T − 1 = 8 lies in one dyadic interval",
        "of [0, 9), t < 8 in four). True ε: the Gaussian at the true sensitivity is exactly",
        "(Δ/σ)-GDP (Dong, Roth & Su, JRSS-B 2022); its ε at δ = 10⁻⁵.",
        "",
        "| mechanism | claimed ε | true ε | verdicts | mean ε lower bound | s per audit |",
        "|---|---|---|---|---|---|",
    ]
    for name, true_eps, verdicts, lb, secs in audit_rows:
        lines.append(f"| `{name}` | 1 | {true_eps:.4f} | {verdicts} | {lb:.3f} | {secs:.1f} |")
    lines += [
        "",
        "The square root without its first column is under-declared by 0.5 % (c_15² = 0.0197",
        "of G(15) = 1.944): only the gray-box sensitivity check (‖R(x − x′)‖ on the pair",
        "differing at t = 0 exceeds the claim) sees it. The tree variant is also refuted by",
        "the statistical privacy-profile test. A black-box tree variant (T = 5, 8 outputs,",
        "true ε 1.83) was not refuted at 5·10⁴ samples (ε lower bound 0.88, 150 s): the",
        "statistical test alone does not see a Gaussian shift of this size in 8 dimensions",
        "at that budget.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Run the study and write the page and the figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small T, few draws, one seed")
    args = parser.parse_args(argv)
    lengths = [2**k for k in range(4, 13 if args.quick else 21, 2)]
    mc_T = 4096 if args.quick else 1_000_000
    lengths = sorted(set(lengths) | {mc_T})
    mc_draws = 10 if args.quick else 100
    seeds = [0] if args.quick else [0, 1, 2, 3, 4]
    samples = 50_000
    table = error_table(lengths)
    mc = monte_carlo(mc_T, mc_draws, seed=0)
    rows = audits(seeds, samples)
    figure(table)
    DOC.write_text(render(table, mc, mc_T, mc_draws, rows, seeds, samples), encoding="utf-8")
    print(f"wrote {DOC} and {FIGURE}")


if __name__ == "__main__":
    main()
