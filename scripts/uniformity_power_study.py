"""Power of the private uniformity test (Algorithm A.4) against the all-tuples baseline.

For an alphabet of m labels, this study estimates rejection rates of

* ``local_hajek``: the private test of :func:`estimators.hypothesis_tests.private_uniformity_test`
  (Algorithm 1 on the collision kernel under Wrapper 1, α = 0.1, q = 19 chunks, tolerant
  threshold (1 + 3δ²/4)/m);
* ``all_tuples``: the same test on the all-tuples CoinPress baseline (Proposition 1);
* ``non_private``: the collision tester U_n > (1 + 3δ²/4)/m (Diakonikolas et al.), for
  reference;

under three distributions (:mod:`estimators.models.uniformity`):

* H0, exact: the uniform law;
* H0, tolerant boundary: the ±s perturbation at ℓ2 = δ/√(2m) (s = δ/√2);
* H1 boundary: the ±s perturbation at ℓ2 = δ/√m (s = δ);

over a grid of (m, n, δ, ε), with exact (Clopper–Pearson) 95 % intervals.  Next to each
cell: n_α = ⌊n/q⌋ against the sample complexity of Theorem 5 as rebuilt in
``docs/derivations.md`` §4 (every constant set to 1),

    n_α ≳ m^{1/2}/δ² + m^{1/2}/(δε) + m^{1/2}√log(m/(δε))/(δε^{1/2}) + m^{1/3}/(δ^{2/3}ε)
          + 1/(δ²ε),

and the baseline's requirement m/(δ²ε) (Proposition 1: quadratically worse in m).

Each repetition draws fresh samples and fresh noise; the private statistic is drawn from
the very mechanism ``private_uniformity_test`` builds (built once per cell), and the
decision compares it with the fixed threshold, as the test does with
``calibration="threshold"``.

A second table gives the *level* of the test as it runs by default
(``calibration="monte_carlo"``: the private statistic against its own null law simulated
at the data's n, exact Monte Carlo p-value with B = 199 simulations,
:mod:`estimators.hypothesis_tests.monte_carlo`) next to the fixed threshold's, at
n ∈ {50, 100, 300, 1000, 3000} with m = 10, α = 0.1, ε = 4, δ = 1, and the power of both
at the H1 boundary: each repetition calls ``private_uniformity_test`` itself and compares
the same private statistic with the tolerant threshold as well.

Usage::

    python3 scripts/uniformity_power_study.py            # default run (a few minutes)
    python3 scripts/uniformity_power_study.py --quick    # smoke run (seconds)
    python3 scripts/uniformity_power_study.py --level-only   # only the level table, spliced
                                                             # into the existing report
"""

from __future__ import annotations

import math
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.stats import binomtest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout: use its packages
    sys.path.insert(0, str(ROOT))
if str(ROOT / "scripts") not in sys.path:  # and the studies' shared tools
    sys.path.insert(0, str(ROOT / "scripts"))

from _study_tools import run_timed_without_utility_warnings, study_argument_parser

from privaudit.estimators.hypothesis_tests import (
    collision_u_statistic,
    private_uniformity_test,
    private_uniformity_test_mechanism,
    uniformity_threshold,
)
from privaudit.estimators.models import (
    AlphabetDistribution,
    plus_minus_perturbation,
    uniform_distribution,
)

ALPHA = 0.1
#: The level study: sample sizes, alphabet, ε, δ and null simulations per test (B = 39:
#: the Monte Carlo test is valid for every B, and α(B + 1) = 4 keeps the table's cost
#: down; the test's own default is 199).
LEVEL_NS = (50, 100, 300, 1000, 3000)
LEVEL_M, LEVEL_EPSILON, LEVEL_DELTA, LEVEL_SIMULATIONS = 10, 4.0, 1.0, 39
LEVEL_HEADING = "## Level at every n: Monte Carlo calibration against the fixed threshold"
METHODS = ("local_hajek", "all_tuples", "non_private")
HYPOTHESES = ("H0 uniform", "H0 tolerant boundary", "H1 boundary")


def distributions(m: int, delta: float) -> dict[str, AlphabetDistribution]:
    """The three laws of the study for (m, δ)."""
    return {
        "H0 uniform": uniform_distribution(m),
        "H0 tolerant boundary": plus_minus_perturbation(m, delta / math.sqrt(2 * m)),
        "H1 boundary": plus_minus_perturbation(m, delta / math.sqrt(m)),
    }


def theorem5_sample_complexity(m: int, delta: float, epsilon: float) -> float:
    """The n_α of Theorem 5 as rebuilt in docs/derivations.md §4, every constant set to 1."""
    log_term = math.sqrt(max(math.log(m / (delta * epsilon)), 1.0))
    return (
        math.sqrt(m) / delta**2
        + math.sqrt(m) / (delta * epsilon)
        + math.sqrt(m) * log_term / (delta * math.sqrt(epsilon))
        + m ** (1 / 3) / (delta ** (2 / 3) * epsilon)
        + 1 / (delta**2 * epsilon)
    )


def baseline_sample_complexity(m: int, delta: float, epsilon: float) -> float:
    """n = m/(δ²ε): the all-tuples baseline's requirement (Proposition 1)."""
    return m / (delta**2 * epsilon)


@dataclass(frozen=True)
class PowerCell:
    """Rejections of one (m, n, δ, ε, hypothesis, method) over the repetitions."""

    m: int
    n: int
    delta: float
    epsilon: float
    hypothesis: str
    method: str
    rejections: int
    reps: int
    n_alpha: int

    @property
    def rate(self) -> float:
        """The rejection rate."""
        return self.rejections / self.reps

    def interval(self) -> tuple[float, float]:
        """The exact (Clopper–Pearson) 95 % interval of the rejection probability."""
        ci = binomtest(self.rejections, self.reps).proportion_ci(0.95, method="exact")
        return float(ci.low), float(ci.high)


def run_study(
    ms: Sequence[int],
    ns: Sequence[int],
    deltas: Sequence[float],
    epsilons: Sequence[float],
    reps: int,
    *,
    seed: int,
    progress: Callable[[str], None] = lambda _m: None,
) -> list[PowerCell]:
    """Every cell of the study."""
    cells: list[PowerCell] = []
    for i, m in enumerate(ms):
        for j, n in enumerate(ns):
            for d_index, delta in enumerate(deltas):
                laws = distributions(m, delta)
                threshold = uniformity_threshold(m, delta)
                for e_index, eps in enumerate(epsilons):
                    started = time.perf_counter()
                    rng = np.random.default_rng(
                        np.random.SeedSequence([seed, i, j, d_index, e_index])
                    )
                    mechs = {
                        method: private_uniformity_test_mechanism(
                            n, m, eps, alpha=ALPHA, method=method
                        )
                        for method in ("local_hajek", "all_tuples")
                    }
                    n_alpha = min(int(c.records.size) for c in mechs["local_hajek"].chunks)
                    for hypothesis, law in laws.items():
                        counts = dict.fromkeys(METHODS, 0)
                        for _ in range(reps):
                            x = law.sample(n, rng)
                            counts["non_private"] += collision_u_statistic(x, m) > threshold
                            for method, mech in mechs.items():
                                counts[method] += float(mech.sample(x, 1, rng)[0]) > threshold
                        cells += [
                            PowerCell(
                                m=m,
                                n=n,
                                delta=delta,
                                epsilon=eps,
                                hypothesis=hypothesis,
                                method=method,
                                rejections=int(counts[method]),
                                reps=reps,
                                n_alpha=n_alpha,
                            )
                            for method in METHODS
                        ]
                    progress(
                        f"m = {m}, n = {n}, delta = {delta:g}, epsilon = {eps:g}: "
                        f"{time.perf_counter() - started:.1f} s"
                    )
    return cells


def markdown(
    cells: Sequence[PowerCell],
    *,
    ms: Sequence[int],
    ns: Sequence[int],
    deltas: Sequence[float],
    epsilons: Sequence[float],
    reps: int,
    seed: int,
    runtime: float,
) -> str:
    """The study's report."""
    table = {(c.m, c.n, c.delta, c.epsilon, c.hypothesis, c.method): c for c in cells}

    def show(c: PowerCell) -> str:
        low, high = c.interval()
        return f"{c.rate:.2f} [{low:.2f}, {high:.2f}]"

    out = [
        "# Power of the private uniformity test (Algorithm A.4)",
        "",
        "Generated by `python3 scripts/uniformity_power_study.py`.",
        "",
        "## Set-up",
        "",
        f"* m ∈ {{{', '.join(map(str, ms))}}}, n ∈ {{{', '.join(map(str, ns))}}}, "
        f"δ ∈ {{{', '.join(f'{d:g}' for d in deltas)}}}, "
        f"ε ∈ {{{', '.join(f'{e:g}' for e in epsilons)}}}; α = {ALPHA} (Wrapper 1 with "
        "q = 19 chunks); tolerant threshold (1 + 3δ²/4)/m.",
        f"* {reps} repetitions per cell (fresh samples and noise); rejection rates with "
        f"exact 95 % Clopper–Pearson intervals.  Seed {seed}; runtime {runtime:.0f} s on "
        f"{platform.machine()} with Python {platform.python_version()}.",
        "* Laws: the uniform law; the ±s perturbation at ℓ2 = δ/√(2m) (the boundary of the "
        "tolerant null; θ = (1 + δ²/2)/m); the ±s perturbation at ℓ2 = δ/√m (the boundary of "
        "H1; θ = (1 + δ²)/m).  Under both nulls a correct test rejects with probability "
        f"≤ α = {ALPHA}; under H1 it rejects with probability ≥ 1 − α once n is large enough.",
        "* `local_hajek` = Algorithm A.4 (private); `all_tuples` = the all-tuples CoinPress "
        "baseline (private, Proposition 1); `non_private` = the collision tester on U_n.",
        "* n_α/Thm 5 = n_α divided by the Theorem 5 sample complexity with every constant "
        "1; n/baseline = n divided by m/(δ²ε).",
        "",
        "## Rejection rates",
        "",
        'The fixed-threshold rule (`calibration="threshold"`) on the grid below; the '
        "test's default Monte Carlo calibration holds its level at every n (table above).",
        "",
        "| m | n | δ | ε | n_α | n_α/Thm 5 | n/baseline | law | local_hajek | all_tuples | "
        "non_private |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in ms:
        for n in ns:
            for delta in deltas:
                for eps in epsilons:
                    for hypothesis in HYPOTHESES:
                        cs = [table[(m, n, delta, eps, hypothesis, method)] for method in METHODS]
                        ratio = cs[0].n_alpha / theorem5_sample_complexity(m, delta, eps)
                        base = n / baseline_sample_complexity(m, delta, eps)
                        out.append(
                            f"| {m} | {n} | {delta:g} | {eps:g} | {cs[0].n_alpha} | "
                            f"{ratio:.2g} | {base:.2g} | {hypothesis} | "
                            + " | ".join(show(c) for c in cs)
                            + " |"
                        )
    out += ["", "## Summary", ""]
    out += _summary(cells, ms, ns, deltas, epsilons)
    out += NOTES
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class LevelRow:
    """Rejections of uniform (H0) and H1-boundary data at one n, for both calibrations."""

    n: int
    reps: int
    mc_null: int
    threshold_null: int
    mc_h1: int
    threshold_h1: int


def run_level_study(
    ns: Sequence[int],
    reps: int,
    *,
    seed: int,
    simulations: int,
    progress: Callable[[str], None] = lambda _m: None,
) -> list[LevelRow]:
    """False-rejection rate and H1 power of the Monte Carlo and fixed-threshold tests."""
    rows = []
    laws = {
        "null": uniform_distribution(LEVEL_M),
        "h1": plus_minus_perturbation(LEVEL_M, LEVEL_DELTA / math.sqrt(LEVEL_M)),
    }
    cut = uniformity_threshold(LEVEL_M, LEVEL_DELTA)
    for i, n in enumerate(ns):
        started = time.perf_counter()
        counts = {"mc_null": 0, "threshold_null": 0, "mc_h1": 0, "threshold_h1": 0}
        for j, (which, law) in enumerate(laws.items()):
            rng = np.random.default_rng(np.random.SeedSequence([seed, 7, i, j]))
            for _ in range(reps):
                result = private_uniformity_test(
                    law.sample(n, rng),
                    LEVEL_M,
                    LEVEL_DELTA,
                    LEVEL_EPSILON,
                    alpha=ALPHA,
                    simulations=simulations,
                    rng=rng,
                )
                counts[f"mc_{which}"] += result.reject
                counts[f"threshold_{which}"] += result.statistic > cut
        rows.append(LevelRow(n=n, reps=reps, **counts))
        progress(f"level study n = {n}: {time.perf_counter() - started:.1f} s")
    return rows


def _rate(k: int, reps: int) -> str:
    ci = binomtest(k, reps).proportion_ci(0.95, method="exact")
    return f"{k / reps:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def level_markdown(
    rows: Sequence[LevelRow], *, seed: int, simulations: int, runtime: float
) -> list[str]:
    """The level table (false rejections of uniform data) next to the power at H1."""
    out = [
        LEVEL_HEADING,
        "",
        f"m = {LEVEL_M}, α = {ALPHA}, ε = {LEVEL_EPSILON:g}, δ = {LEVEL_DELTA:g} "
        f"(Wrapper 1 with q = 19 chunks).  Each repetition draws fresh data and calls "
        f'`private_uniformity_test` (default `calibration="monte_carlo"`, B = '
        f"{simulations} null simulations at the data's own n, exact Monte Carlo p-value "
        "(1 + #{T_b ≥ T})/(B + 1), reject when ≤ α: valid at level α for every B, so the "
        "Monte Carlo error is accounted for); the same private statistic is also compared "
        "with the tolerant threshold (1 + 3δ²/4)/m = "
        f"{uniformity_threshold(LEVEL_M, LEVEL_DELTA):g} "
        '(`calibration="threshold"`).  H0: uniform data; H1: the ±s perturbation at '
        "ℓ2 = δ/√m.  Rates with exact 95 % Clopper–Pearson intervals; a test keeps its "
        f"level when the interval of its H0 rate reaches down to α = {ALPHA} or below.  "
        f"{rows[0].reps if rows else 0} repetitions per cell, seed {seed}, runtime "
        f"{runtime:.0f} s (a 2-core machine shared with other jobs).",
        "",
        "| n | H0 rejections, Monte Carlo | H0 rejections, threshold | H1 power, "
        "Monte Carlo | H1 power, threshold |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r.n} | {_rate(r.mc_null, r.reps)} | {_rate(r.threshold_null, r.reps)} | "
            f"{_rate(r.mc_h1, r.reps)} | {_rate(r.threshold_h1, r.reps)} |"
        )
    out += [
        "",
        "The fixed threshold holds its level only once the private noise is small "
        "against the gap δ²/(4m); below, it rejects uniform data far more often than α. "
        "The Monte Carlo calibration holds α at every n.  Where the threshold's rejections "
        "are mostly false ones (small n), the calibrated test's power is low, since the "
        "private noise dominates the gap; where the threshold holds its level it is "
        "conservative, and the calibrated test is at least as powerful there.",
        "",
    ]
    return out


def _summary(
    cells: Sequence[PowerCell],
    ms: Sequence[int],
    ns: Sequence[int],
    deltas: Sequence[float],
    epsilons: Sequence[float],
) -> list[str]:
    table = {(c.m, c.n, c.delta, c.epsilon, c.hypothesis, c.method): c for c in cells}
    lines = [
        "Smallest n of the grid at which each test is *correct* in the cell: rejection "
        f"rate ≤ α = {ALPHA} under both nulls and ≥ 1 − α under H1 (point estimates).",
        "",
        "| m | δ | ε | Thm 5 n (×q) | baseline n | local_hajek | all_tuples | non_private |",
        "|---|---|---|---|---|---|---|---|",
    ]
    q = 19
    for m in ms:
        for delta in deltas:
            for eps in epsilons:
                row = [
                    f"{m}",
                    f"{delta:g}",
                    f"{eps:g}",
                    f"{q * theorem5_sample_complexity(m, delta, eps):.3g}",
                    f"{baseline_sample_complexity(m, delta, eps):.3g}",
                ]
                for method in METHODS:
                    good = [
                        n
                        for n in ns
                        if all(
                            table[(m, n, delta, eps, h, method)].rate <= ALPHA
                            for h in HYPOTHESES[:2]
                        )
                        and table[(m, n, delta, eps, HYPOTHESES[2], method)].rate >= 1 - ALPHA
                    ]
                    row.append(str(min(good)) if good else f"> {max(ns)}")
                lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


NOTES = [
    "## Reading the results",
    "",
    "* While the noise of the chunk releases is large compared with the gap δ²/(4m) between "
    "the threshold and either hypothesis, the median of the q = 19 noisy chunk estimates "
    "falls on either side of the threshold about equally often, and a private test rejects "
    "about half of the time under every law: it has no power and no level.  As n grows the "
    "noise falls below the gap and the rejection rates move to 0 under the nulls and 1 under "
    "H1.",
    "* Theorem 5's sample complexity is a rate: with every constant set to 1 it "
    "underestimates the n_α at which Algorithm A.4 becomes correct here by an order of "
    "magnitude (column n_α/Thm 5), because of the explicit constants of the rigorous smooth "
    "bound (docs/derivations.md §3), the tight privacy constant β = ε/(3 + 3^(3/4)) and the "
    "conservative ξ of Lemma A.21 (at least 2/m): for m = 1000, n_α = 6736 the noise scale "
    "S_rig/β of one chunk is 9.5e-5 at ε = 1 and 2.5e-5 at ε = 4, against a gap "
    "δ²/(4m) = 2.5e-4 at δ = 1.",
    "* The all-tuples baseline needs markedly more samples than Algorithm A.4 on the same "
    "grid, and the gap widens with m, as Proposition 1's n = Ω(m/(δ²ε)) against Theorem 5's "
    "Õ(m^{1/2}/min(δ², δε)) predicts.",
    "* The non-private collision tester is correct from the smallest n of the grid: the cost "
    "of privacy here is the factor between its n and the private tests' n.",
    "",
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = study_argument_parser(__doc__.split("\n\n")[0], ROOT / "docs")
    parser.add_argument(
        "--level-only",
        action="store_true",
        help="recompute only the level table and replace it in the report",
    )
    args = parser.parse_args(argv)
    if args.quick:
        ms, ns, deltas, epsilons, reps = (20,), (400, 800), (1.0,), (2.0,), args.reps or 4
    else:
        ms, ns, deltas, epsilons = (100, 1000), (2000, 8000, 32000, 128000), (0.5, 1.0), (1.0, 4.0)
        reps = args.reps or 200
    level_ns, level_reps = ((50, 300), 20) if args.quick else (LEVEL_NS, 200)
    args.out.mkdir(parents=True, exist_ok=True)

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    levels, level_runtime = run_timed_without_utility_warnings(
        lambda: run_level_study(
            level_ns, level_reps, seed=args.seed, simulations=LEVEL_SIMULATIONS, progress=say
        )
    )
    level = "\n".join(
        level_markdown(levels, seed=args.seed, simulations=LEVEL_SIMULATIONS, runtime=level_runtime)
    )
    report = args.out / "uniformity_power_study.md"
    if args.level_only:
        old = report.read_text(encoding="utf-8")
        if LEVEL_HEADING in old:
            head, _, tail = old.partition(LEVEL_HEADING)
            old = head + tail[tail.index("## Rejection rates") :]
        head, sep, rest = old.partition("## Rejection rates")
        note = (
            'The fixed-threshold rule (`calibration="threshold"`) on the grid below; '
            "the test's default Monte Carlo calibration holds its level at every n (table "
            "above).\n\n"
        )
        rest = rest if note.strip() in rest else "\n\n" + note + rest.lstrip("\n")
        report.write_text(head + level + "\n" + sep + rest, encoding="utf-8")
        print(f"written the level table into {report} in {level_runtime:.0f} s")
        return 0
    cells, runtime = run_timed_without_utility_warnings(
        lambda: run_study(ms, ns, deltas, epsilons, reps, seed=args.seed, progress=say)
    )
    text = markdown(
        cells,
        ms=ms,
        ns=ns,
        deltas=deltas,
        epsilons=epsilons,
        reps=reps,
        seed=args.seed,
        runtime=runtime,
    )
    head, sep, rest = text.partition("## Rejection rates")
    report.write_text(head + level + "\n" + sep + rest, encoding="utf-8")
    print(f"written {report} in {runtime + level_runtime:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
