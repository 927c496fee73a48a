"""The U-statistics study the paper does not have: error against n and ε, slopes next to Table 1.

Chaudhuri, Loh, Pandey & Sarkar (NeurIPS 2024) prove rates but report no experiment
(the paper has no experiments section).  This script measures, over repetitions, the private error
|θ̃ − A| (A the non-private statistic the method privatises) and the total error |θ̃ − θ| of

* ``u_n``            the non-private U_n (private error 0 by definition);
* ``naive``          Algorithm A.2 (CoinPress extension) on ⌊n/k⌋ disjoint blocks;
* ``all_tuples``     Algorithm A.2 on all k-subsets (Proposition 1);
* ``alg1_rigorous``  Algorithm 1 with the proven smooth bound S_rig (docs/derivations.md §3);
* ``alg1_paper``     Algorithm 1 with the paper's printed bound (eq. (A.57), unproven);

on the scenarios of :mod:`_ustat_scenarios`, over a grid of n and ε, fits log-log slopes
in n and ε with bootstrap intervals, and writes ``docs/ustat_study.md``, the CSV tables
and one plot per scenario.  Every method is run at the same *total* privacy claim ε, and
without Wrapper 1 (one chunk; see ``docs/ustat_study.md``).

Usage::

    python3 scripts/ustat_study.py            # the full study (≈ 15 min on 2 cores)
    python3 scripts/ustat_study.py --quick    # a smoke run (seconds)
    python3 scripts/ustat_study.py --reps 100 --seed 7 --out /tmp/study
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import pathlib
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: use this checkout's packages
    sys.path.insert(0, str(ROOT))
if str(ROOT / "scripts") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts"))

import numpy as np
from _study_tools import (
    SlopeFit,
    bootstrap_loglog_slope,
    local_loglog_slope,
    stream,
    summarise_errors,
)
from _ustat_scenarios import SCENARIOS, Scenario

from privaudit.estimators.ustatistics import (
    CoinPressSchedule,
    Kernel,
    SubsetFamily,
    adjacency_from_points,
    clipped_means,
    coinpress_schedule,
    family_projections,
    internal_epsilon,
    local_hajek_projections,
    private_coinpress_mean,
    private_mean_local_hajek,
    smooth_sensitivity_paper,
    smooth_sensitivity_rigorous,
)
from privaudit.spec import InvalidParameterError, Laplace

__all__ = [
    "DEFAULT",
    "METHODS",
    "QUICK",
    "CellKey",
    "StudyConfig",
    "StudyResult",
    "all_tuples_release",
    "all_tuples_schedule",
    "expected_private_error",
    "main",
    "private_below_sampling_size",
    "run_study",
    "slope_table",
    "sorted_pair_values",
]

#: The methods, in report order.
METHODS: tuple[str, ...] = ("u_n", "naive", "all_tuples", "alg1_rigorous", "alg1_paper")
METHOD_LABELS = {
    "u_n": "non-private U_n",
    "naive": "naive A.2 (disjoint blocks)",
    "all_tuples": "all-tuples A.2 (Prop. 1)",
    "alg1_rigorous": "Algorithm 1, rigorous S",
    "alg1_paper": "Algorithm 1, paper S",
}
PRIVATE_METHODS = METHODS[1:]


# --------------------------------------------------------------------- configuration
@dataclass(frozen=True)
class StudyConfig:
    """What to run.

    Attributes
    ----------
    scenarios : tuple of str
        Keys of :data:`_ustat_scenarios.SCENARIOS`.
    sizes : tuple of int
        The n grid (the study needs ≥ 5 values spanning ≥ 16×).
    epsilons : tuple of float
        The total privacy claims ε.
    repetitions : dict n -> int
        Repetitions per n (fewer for the largest n if the budget demands it).
    seed : int
        Master seed of every random stream.
    bootstrap : int
        Bootstrap replicates per slope interval.
    methods : tuple of str
        Methods to run.
    """

    scenarios: tuple[str, ...]
    sizes: tuple[int, ...]
    epsilons: tuple[float, ...]
    repetitions: dict[int, int]
    seed: int = 20240
    bootstrap: int = 1000
    methods: tuple[str, ...] = METHODS

    def reps(self, n: int) -> int:
        """Repetitions at sample size n."""
        return self.repetitions[n]


DEFAULT = StudyConfig(
    scenarios=tuple(SCENARIOS),
    sizes=(190, 380, 760, 1520, 3040),
    epsilons=(0.5, 1.0, 2.0, 4.0),
    repetitions={190: 200, 380: 200, 760: 200, 1520: 200, 3040: 200},
)
QUICK = StudyConfig(
    scenarios=tuple(SCENARIOS),
    sizes=(40, 80, 160),
    epsilons=(1.0, 4.0),
    repetitions={40: 4, 80: 4, 160: 4},
    bootstrap=50,
)


# ------------------------------------------------------------------------- methods
@dataclass(frozen=True)
class Release:
    """One method's output on one data set: estimate, what it privatises, noise std."""

    estimate: float
    reference: float
    noise_std: float
    level: int = 1


@dataclass
class Context:
    """Everything public about one (scenario, n) plus one data set's non-private statistics.

    ``schedules`` holds the public A.2 all-tuples schedule per ε; ``pair_values`` computes
    the sorted kernel values of the data set once, on first use, for every ε.
    """

    scenario: Scenario
    kernel: Kernel
    n: int
    xi: float
    u_statistic: float
    naive_statistic: float
    schedules: dict[float, CoinPressSchedule]
    data: object = None
    _pairs: tuple[np.ndarray, np.ndarray] | None = None

    def pair_values(self) -> tuple[np.ndarray, np.ndarray]:
        """Sorted C(n, 2) kernel values of the data set and their prefix sums (cached)."""
        if self._pairs is None:
            self._pairs = sorted_pair_values(self.data, self.kernel)
        return self._pairs


MethodFunction = Callable[[object, Context, float, np.random.Generator], Release]


def _u_n(data: object, ctx: Context, epsilon: float, rng: np.random.Generator) -> Release:
    return Release(ctx.u_statistic, ctx.u_statistic, 0.0)


def _algorithm_1(mode: str) -> MethodFunction:
    """Algorithm 1 on all k-subsets, one chunk, through the library's analyst function."""

    def run(data: object, ctx: Context, epsilon: float, rng: np.random.Generator) -> Release:
        result = private_mean_local_hajek(
            data, ctx.kernel, epsilon, xi=ctx.xi, sensitivity_mode=mode, rng=rng
        )
        return Release(
            float(result.estimate), ctx.u_statistic, float(result.noise_std), int(result.level)
        )

    return run


def _naive(data: object, ctx: Context, epsilon: float, rng: np.random.Generator) -> Release:
    """Algorithm A.2 on the ⌊n/k⌋ disjoint blocks, through the library's analyst function."""
    result = private_coinpress_mean(
        data,
        ctx.kernel,
        epsilon,
        radius=ctx.scenario.mean_bound(ctx.n),
        tau=ctx.scenario.subgaussian_proxy(ctx.n),
        family="naive",
        rng=rng,
        warn=False,
    )
    return Release(float(result.estimate), ctx.naive_statistic, float(result.noise_std))


def all_tuples_schedule(scenario: Scenario, n: int, epsilon: float) -> CoinPressSchedule:
    """The public schedule of Algorithm A.2 on all k-subsets (what the library builds)."""
    kernel = scenario.kernel_for(n)
    family = SubsetFamily.all_tuples(n, kernel.degree)
    return coinpress_schedule(
        epsilon=epsilon,
        radius=scenario.mean_bound(n),
        tau=scenario.subgaussian_proxy(n),
        kind="all",
        n=n,
        degree=kernel.degree,
        dependence=float(family.dependence),
        family_size=math.comb(n, kernel.degree),
        warn=False,
    )


def sorted_pair_values(data: object, kernel: Kernel) -> tuple[np.ndarray, np.ndarray]:
    """All C(n, 2) kernel values sorted, and their prefix sums, computed in closed form.

    This is what ``CoinPressMechanism`` evaluates (by enumerating every pair through
    ``Kernel.evaluate``) and sorts, produced here once per data set instead of once per ε:

    * variance: the values 0.5·(x_i − x_j)² of every pair i < j, the kernel's own formula
      (so the sorted array is bit-for-bit the library's);
    * collision / RGG edge: {0, 1}-valued, so the sorted array is C(n,2) − N₁ zeros then N₁
      ones, with N₁ the exact number of equal pairs (Σ_v c_v(c_v − 1)/2) or of edges (the
      library's own k-d-tree adjacency, which re-tests ‖x − y‖² ≤ r² like the kernel).

    ``tests/unit/scripts/test_ustat_study.py`` checks that releases from these values equal the
    library's ``private_coinpress_mean(..., family="all")`` with the same generator.
    """
    x = kernel.validate_data(data)
    n = int(x.shape[0])
    total = math.comb(n, 2)
    if kernel.name == "variance":
        rows, cols = np.triu_indices(n, 1)
        diff = x[rows] - x[cols]
        ordered = np.sort(0.5 * (diff * diff))
    elif kernel.name in ("collision", "rgg_edge"):
        if kernel.name == "collision":
            counts = np.unique(x, return_counts=True)[1].astype(np.int64)
            ones = int(np.dot(counts, counts - 1) // 2)
        else:
            ones = int(adjacency_from_points(x, kernel.parameters["radius"]).nnz // 2)
        ordered = np.zeros(total)
        ordered[total - ones :] = 1.0
    else:
        raise InvalidParameterError(f"no closed form for the pair values of kernel {kernel.name!r}")
    return ordered, np.concatenate([[0.0], np.cumsum(ordered)])


def all_tuples_release(
    sorted_values: tuple[np.ndarray, np.ndarray],
    schedule: CoinPressSchedule,
    rng: np.random.Generator,
) -> float:
    """One release of Algorithm A.2 from the sorted family values (``CoinPressMechanism._sample``).

    The same steps in the same order as the library: clip to the public interval around
    the current centre, take the mean, add Laplace(Δ_i/ε_i) drawn from ``rng``.
    """
    ordered, prefix = sorted_values
    centres = np.zeros(1)
    for step, scale in enumerate(schedule.laplace_scales):
        lo, hi = schedule.clip_bounds(step, centres)
        centres = clipped_means(ordered, prefix, lo, hi) + Laplace(scale=scale).sample(rng, 1)
    return float(centres[0])


def _all_tuples(data: object, ctx: Context, epsilon: float, rng: np.random.Generator) -> Release:
    schedule = ctx.schedules[epsilon]
    estimate = all_tuples_release(ctx.pair_values(), schedule, rng)
    return Release(estimate, ctx.u_statistic, math.sqrt(2.0) * schedule.laplace_scales[-1])


METHOD_FUNCTIONS: dict[str, MethodFunction] = {
    "u_n": _u_n,
    "naive": _naive,
    "all_tuples": _all_tuples,
    "alg1_rigorous": _algorithm_1("rigorous"),
    "alg1_paper": _algorithm_1("paper"),
}


def expected_private_error(scenario: Scenario, method: str, n: int, epsilon: float) -> float:
    """E|θ̃ − A| predicted by the method's own public noise scale, at any n (no data needed).

    * Algorithm 1: S(1)/β · E|Z| with E|Z| = 1/√2 (docs/derivations.md §2) — exact when every index
      is good (L = 1, Ã_n = A_n), which held in every repetition of the study;
    * A.2 (naive / all-tuples): the last Laplace scale b_{t+1} (E|Lap(b)| = b) — exact when
      the final clipping interval does not cut any kernel value (it is ≥ 2Q wider than the
      kernel's range here).

    Evaluating it on a long n grid shows where the leading terms of Table 1 take over.
    """
    kernel = scenario.kernel_for(n)
    k, c = kernel.degree, kernel.additive_range
    if method in ("alg1_rigorous", "alg1_paper"):
        mode = method.removeprefix("alg1_")
        beta = internal_epsilon(epsilon, mode)
        bound = smooth_sensitivity_rigorous if mode == "rigorous" else smooth_sensitivity_paper
        smooth = bound(1, n=n, degree=k, additive_range=c, xi=scenario.xi(n), beta=beta)
        return smooth / beta / math.sqrt(2.0)
    if method == "all_tuples":
        return all_tuples_schedule(scenario, n, epsilon).laplace_scales[-1]
    if method == "naive":
        family = SubsetFamily.naive_blocks(n, k)
        schedule = coinpress_schedule(
            epsilon=epsilon,
            radius=scenario.mean_bound(n),
            tau=scenario.subgaussian_proxy(n),
            kind="naive",
            n=n,
            degree=k,
            dependence=float(family.dependence),
            family_size=n // k,
            warn=False,
        )
        return schedule.laplace_scales[-1]
    raise InvalidParameterError(f"no private error for method {method!r}")


def private_below_sampling_size(
    scenario: Scenario, method: str, epsilon: float, *, start: int, limit: int = 4_000_000
) -> int | None:
    """The smallest n (to within 2%) from which the method's expected private error is
    below U_n's expected sampling error √(2/π)·√Var(U_n) (normal approximation), or None
    if that does not happen by ``limit``.  Both sides are exact public formulas.
    """

    def below(n: int) -> bool:
        sampling = math.sqrt(2.0 / math.pi) * scenario.u_statistic_sd(n)
        return expected_private_error(scenario, method, n, epsilon) < sampling

    lo, hi = start, start
    while not below(hi):
        lo, hi = hi, 2 * hi
        if hi > limit:
            return None
    if hi == start:
        return start
    while hi > 1.02 * lo:  # the gap closes with n for every method here: bisect
        mid = int(math.sqrt(lo * hi))
        lo, hi = (lo, mid) if below(mid) else (mid, hi)
    return hi


# ------------------------------------------------------------------------- running
#: (scenario, method, n, ε) — one cell of the grid.
CellKey = tuple[str, str, int, float]


@dataclass
class StudyResult:
    """Per-repetition absolute errors of every cell, and bookkeeping.

    Attributes
    ----------
    config : StudyConfig
    private, total : dict CellKey -> ndarray
        |θ̃ − A| and |θ̃ − θ| per repetition.
    noise_std : dict CellKey -> ndarray
        The noise standard deviation each release reported (E|noise| = std/√2 for both
        the Laplace and the 1/(1+z⁴) noise, which have E|W| = b = std/√2 and E|Z| = 1/√2).
    level : dict CellKey -> ndarray
        Algorithm 1's band level L per repetition (1 for the other methods); L = 1 means
        every index was good, so Ã_n = A_n and the noise scale is the public S(1)/β.
    xi : dict (scenario, n) -> float
        The ξ used.
    runtime : dict scenario -> float
        Wall-clock seconds per scenario.
    """

    config: StudyConfig
    private: dict[CellKey, np.ndarray] = field(default_factory=dict)
    total: dict[CellKey, np.ndarray] = field(default_factory=dict)
    noise_std: dict[CellKey, np.ndarray] = field(default_factory=dict)
    level: dict[CellKey, np.ndarray] = field(default_factory=dict)
    xi: dict[tuple[str, int], float] = field(default_factory=dict)
    runtime: dict[str, float] = field(default_factory=dict)


def _naive_statistic(data: object, kernel: Kernel, n: int) -> float:
    family = SubsetFamily.naive_blocks(n, kernel.degree)
    return float(family_projections(data, kernel, family).u_statistic)


def run_study(config: StudyConfig, *, progress: Callable[[str], None] | None = None) -> StudyResult:
    """Run every cell of ``config`` and return the per-repetition errors.

    The data of repetition r at size n of a scenario are drawn from
    ``stream(seed, scenario, n, r, "data")`` and shared by all methods and ε; each release
    draws its noise from ``stream(seed, scenario, n, r, method, ε)``.  So every number is a
    function of the seed and the cell's name only.
    """
    result = StudyResult(config)
    for name in config.scenarios:
        scenario = SCENARIOS[name]
        start = time.perf_counter()
        for n in config.sizes:
            kernel = scenario.kernel_for(n)
            theta = scenario.theta(n)
            xi = scenario.xi(n)
            result.xi[(name, n)] = xi
            reps = config.reps(n)
            schedules = (
                {float(e): all_tuples_schedule(scenario, n, float(e)) for e in config.epsilons}
                if "all_tuples" in config.methods
                else {}
            )
            shape = (reps,)
            buffers = {
                (m, e): (
                    np.empty(shape),
                    np.empty(shape),
                    np.empty(shape),
                    np.empty(shape, dtype=np.int64),
                )
                for m in config.methods
                for e in config.epsilons
            }
            for rep in range(reps):
                data = scenario.sample(n, stream(config.seed, name, n, rep, "data"))
                projections = local_hajek_projections(data, kernel)
                ctx = Context(
                    scenario,
                    kernel,
                    n,
                    xi,
                    projections.u_statistic,
                    _naive_statistic(data, kernel, n),
                    schedules,
                    data,
                )
                for method in config.methods:
                    for eps in config.epsilons:
                        rng = stream(config.seed, name, n, rep, method, float(eps))
                        release = METHOD_FUNCTIONS[method](data, ctx, float(eps), rng)
                        priv, tot, std, lev = buffers[(method, eps)]
                        priv[rep] = abs(release.estimate - release.reference)
                        tot[rep] = abs(release.estimate - theta)
                        std[rep] = release.noise_std
                        lev[rep] = release.level
            for (method, eps), (priv, tot, std, lev) in buffers.items():
                key = (name, method, n, float(eps))
                result.private[key], result.total[key] = priv, tot
                result.noise_std[key], result.level[key] = std, lev
            if progress is not None:
                progress(f"{name}: n={n} done ({reps} reps, {time.perf_counter() - start:.1f}s)")
        result.runtime[name] = time.perf_counter() - start
    return result


# -------------------------------------------------------------------------- slopes
@dataclass(frozen=True)
class SlopeRow:
    """One fitted slope next to its predictions.

    Attributes
    ----------
    scenario, method : str
    metric : {"private", "total"}
    variable : {"n", "eps"}
        What the slope is in.
    held : float
        The ε (for slopes in n) or the n (for slopes in ε) held fixed.
    fit : SlopeFit
        Measured slope with its bootstrap interval.
    leading : float
        The leading-order exponent from Table 1 / docs/derivations.md §6.
    formula : float
        The least-squares slope of the exact expected private error mean(noise_std)/√2
        over the same grid: what the method's own noise scale predicts once lower-order
        terms are kept.  For U_n's total error, the slope of the exact √Var(U_n) (eq. 3);
        nan for the other total errors.
    """

    scenario: str
    method: str
    metric: str
    variable: str
    held: float
    fit: SlopeFit
    leading: float
    formula: float


def _leading_total(theory, method: str) -> float:
    """Total error ~ max(non-private, private): the slower of the two leading exponents."""
    if method == "u_n":
        return theory.nonprivate["u_n"]
    return max(theory.nonprivate[method], theory.private[method][0])


def slope_table(result: StudyResult, *, seed: int | None = None) -> list[SlopeRow]:
    """Fit every slope in n (per ε) and in ε (per n) for both error metrics."""
    config = result.config
    rng = stream(config.seed if seed is None else seed, "bootstrap")
    rows: list[SlopeRow] = []
    sizes, epsilons = list(config.sizes), list(config.epsilons)
    for name in config.scenarios:
        theory = SCENARIOS[name].theory
        for method in config.methods:
            metrics = ("total",) if method == "u_n" else ("private", "total")
            for metric in metrics:
                store = result.private if metric == "private" else result.total
                for eps in epsilons:
                    cells = [store[(name, method, n, eps)] for n in sizes]
                    fit = _safe_fit(sizes, cells, config.bootstrap, rng)
                    if metric == "private":
                        leading = theory.private[method][0]
                        formula = _formula_slope(result, name, method, sizes, [eps] * len(sizes))
                    elif method == "u_n":
                        leading = _leading_total(theory, method)
                        scenario = SCENARIOS[name]
                        formula = local_loglog_slope(
                            sizes, [scenario.u_statistic_sd(n) for n in sizes]
                        )
                    else:
                        leading, formula = _leading_total(theory, method), math.nan
                    rows.append(SlopeRow(name, method, metric, "n", eps, fit, leading, formula))
                if method == "u_n" or len(epsilons) < 2:
                    continue
                for n in (sizes[0], sizes[-1]):
                    cells = [store[(name, method, n, e)] for e in epsilons]
                    fit = _safe_fit(epsilons, cells, config.bootstrap, rng)
                    if metric == "private":
                        leading = theory.private[method][1]
                        formula = _formula_slope(
                            result, name, method, [n] * len(epsilons), epsilons, variable="eps"
                        )
                    else:
                        leading, formula = math.nan, math.nan
                    rows.append(SlopeRow(name, method, metric, "eps", n, fit, leading, formula))
    return rows


def _safe_fit(
    x: Sequence[float], cells: list[np.ndarray], n_boot: int, rng: np.random.Generator
) -> SlopeFit:
    if any(float(np.mean(c)) <= 0 for c in cells):
        nan = math.nan
        return SlopeFit(nan, nan, nan, nan, 0.95, len(cells))
    return bootstrap_loglog_slope(x, cells, n_boot=n_boot, rng=rng)


def _formula_slope(
    result: StudyResult,
    name: str,
    method: str,
    sizes: Sequence[int],
    epsilons: Sequence[float],
    variable: str = "n",
) -> float:
    expected = [
        float(np.mean(result.noise_std[(name, method, n, e)])) / math.sqrt(2.0)
        for n, e in zip(sizes, epsilons, strict=True)
    ]
    if min(expected) <= 0:
        return math.nan
    x = sizes if variable == "n" else epsilons
    return local_loglog_slope(x, expected)


# ------------------------------------------------------------------------- writers
def write_csv(
    result: StudyResult, rows: list[SlopeRow], out: pathlib.Path
) -> tuple[pathlib.Path, pathlib.Path]:
    """Write the full error table and the slope table as CSV; return their paths."""
    errors = out / "ustat_study_errors.csv"
    lines = [
        (
            "scenario,method,n,epsilon,repetitions,xi,private_mae,private_se,total_mae,total_se,"
            "expected_private_from_noise_std"
        )
    ]
    for (name, method, n, eps), priv in result.private.items():
        p, t = summarise_errors(priv), summarise_errors(result.total[(name, method, n, eps)])
        noise = float(np.mean(result.noise_std[(name, method, n, eps)])) / math.sqrt(2.0)
        lines.append(
            f"{name},{method},{n},{eps:g},{p.repetitions},{result.xi[(name, n)]:.6g},"
            f"{p.mean:.6g},{p.standard_error:.6g},{t.mean:.6g},{t.standard_error:.6g},{noise:.6g}"
        )
    errors.write_text("\n".join(lines) + "\n", encoding="utf-8")
    slopes = out / "ustat_study_slopes.csv"
    lines = [
        "scenario,method,metric,variable,held,slope,ci_low,ci_high,leading_theory,formula_slope"
    ]
    for r in rows:
        lines.append(
            f"{r.scenario},{r.method},{r.metric},{r.variable},{r.held:g},{r.fit.slope:.4f},"
            f"{r.fit.ci_low:.4f},{r.fit.ci_high:.4f},{r.leading:.4f},{r.formula:.4f}"
        )
    slopes.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return errors, slopes


def plot_scenario(
    result: StudyResult, rows: list[SlopeRow], name: str, out: pathlib.Path
) -> pathlib.Path:
    """Log-log error against n, one column per ε, private (top) and total (bottom) error."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    config = result.config
    sizes = np.asarray(config.sizes, dtype=float)
    fig, axes = plt.subplots(
        2, len(config.epsilons), figsize=(3.6 * len(config.epsilons), 7), sharex=True, squeeze=False
    )
    colours = dict(
        zip(METHODS, ("black", "tab:orange", "tab:green", "tab:blue", "tab:purple"), strict=True)
    )
    fits = {
        (r.method, r.metric, r.held): r.fit
        for r in rows
        if r.scenario == name and r.variable == "n"
    }
    for col, eps in enumerate(config.epsilons):
        for row, metric in enumerate(("private", "total")):
            ax = axes[row][col]
            store = result.private if metric == "private" else result.total
            for method in config.methods:
                if metric == "private" and method == "u_n":
                    continue
                stats = [summarise_errors(store[(name, method, n, eps)]) for n in config.sizes]
                means = np.array([s.mean for s in stats])
                ses = np.array([s.standard_error for s in stats])
                fit = fits.get((method, metric, eps))
                label = METHOD_LABELS[method]
                if fit is not None and not math.isnan(fit.slope):
                    label += f" (slope {fit.slope:+.2f})"
                    ax.plot(
                        sizes,
                        np.exp(fit.intercept) * sizes**fit.slope,
                        "--",
                        color=colours[method],
                        linewidth=0.8,
                    )
                half = 1.96 * np.nan_to_num(ses)
                lower = np.minimum(half, 0.95 * means)  # keep bars above 0 on a log axis
                shift = 1.0 + 0.03 * (METHODS.index(method) - 2)  # de-overlap the markers
                ax.errorbar(
                    sizes * shift,
                    means,
                    yerr=(lower, half),
                    fmt="o",
                    color=colours[method],
                    markersize=3.5,
                    capsize=2,
                    label=label,
                )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xticks(sizes, [str(int(n)) for n in sizes], fontsize=7)
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_title(f"{metric} error, ε = {eps:g}", fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=6)
            if row == 1:
                ax.set_xlabel("n")
        axes[0][0].set_ylabel("mean |θ̃ − A_n| (private)")
        axes[1][0].set_ylabel("mean |θ̃ − θ| (total)")
    fig.suptitle(
        SCENARIOS[name].title + "\nmean absolute error over repetitions; bars ±1.96 SE "
        "(lower bar truncated at 5% of the mean); dashed: least-squares log-log fits",
        fontsize=10,
    )
    fig.tight_layout()
    path = out / f"ustat_study_{name}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _machine() -> str:
    import os

    import scipy

    cpu = platform.processor() or platform.machine()
    return (
        f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} logical CPUs "
        f"(shared with other jobs), Python {platform.python_version()}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}"
    )


def main(argv: Sequence[str] | None = None) -> StudyResult:
    """Command-line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny smoke run")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per n (all n)")
    parser.add_argument("--seed", type=int, default=None, help="master seed")
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "docs", help="output folder")
    parser.add_argument("--scenarios", nargs="*", default=None, choices=sorted(SCENARIOS))
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    args = parser.parse_args(argv)
    config = QUICK if args.quick else DEFAULT
    if args.reps is not None:
        config = dataclasses.replace(config, repetitions={n: args.reps for n in config.sizes})
    if args.seed is not None:
        config = dataclasses.replace(config, seed=args.seed)
    if args.scenarios:
        config = dataclasses.replace(config, scenarios=tuple(args.scenarios))
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    result = run_study(config, progress=lambda msg: print(msg, flush=True))
    rows = slope_table(result)
    write_csv(result, rows, args.out)
    plots = (
        []
        if args.no_plots
        else [plot_scenario(result, rows, s, args.out) for s in config.scenarios]
    )
    from _ustat_report import write_report

    report = write_report(
        result,
        rows,
        args.out,
        runtime=time.perf_counter() - start,
        machine=_machine(),
        plots=plots,
        quick=args.quick,
        argv=sys.argv[1:] if argv is None else list(argv),
        default_config=DEFAULT,
        labels=METHOD_LABELS,
        expected_private_error=expected_private_error,
        crossover=private_below_sampling_size,
    )
    print(f"written {report}")
    return result


if __name__ == "__main__":
    main()
