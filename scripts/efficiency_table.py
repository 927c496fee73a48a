"""Regenerate the efficiency table of ``docs/efficiency.md`` (and its figure).

For every registered estimator whose problem has a known lower bound, the error of its
releases is measured by seeded Monte Carlo and divided by the bound (the efficiency
ratio; ``docs/derivations.md`` §13 for the explicit bounds):

* central ε-DP, error against the statistic of the input (the mean; the unbiased sample
  variance U_n for the U-statistic estimators): the worst of four inputs (all records at
  the low end, half and half, one record at the high end, uniform records), against the
  two-point bounds (13.1) on the 95 % error quantile and (13.2) on the mean absolute error;
* local ε-DP (the registry's randomized response, run by n users): error against the
  population frequency, worst of two laws, against (13.3) and (13.4);
* rate-only bounds (central mean, population target): fitted exponents in n and ε of the
  Laplace mean's error against the exponents of the rate √(1/n + 1/(nε)²);
* continual counting (the registry's matrix mechanisms, T = 16, and the same at T = 1024):
  the worst step's root-mean-square error of the released prefix sums against the lower
  bound on it for every Gaussian factorization mechanism (Matoušek, Nikolov & Talwar).

Usage::

    python3 scripts/efficiency_table.py            # rewrites docs/efficiency.md + figure
    python3 scripts/efficiency_table.py --stdout   # prints the table only

Deterministic (seed 0); about 10 s on one core.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privaudit import registry  # noqa: E402
from privaudit.estimators import bounded_mean_mechanism, private_prefix_sums  # noqa: E402
from privaudit.mechanisms import (  # noqa: E402
    LowerBound,
    central_mean_bound,
    central_mean_rate,
    central_variance_bound,
    local_mean_bound,
)
from privaudit.mechanisms.matrix import prefix_sum_lower_bound  # noqa: E402

OUTPUT = ROOT / "docs" / "efficiency.md"
FIGURE = ROOT / "docs" / "efficiency.png"
SEED = 0
#: Releases per input for the central estimators (and replicates of the local protocol).
RELEASES = 20_000
LOCAL_REPLICATES = 2_000
LOCAL_USERS = 1_000
BETA = 0.05
MEAN_ENTRIES = ("bounded_mean",)
VARIANCE_ENTRIES = (
    "ustat.local_hajek.variance",
    "ustat.local_hajek.subsampled",
    "ustat.median_of_means.variance",
    "ustat.coinpress.naive.variance",
    "ustat.coinpress.all.variance",
    "ustat.coinpress.subsampled.variance",
    "ustat.subgaussian.variance",
    "ustat.subgaussian.variance.main",
)
LOCAL_ENTRIES = ("randomized_response",)
RATE_NS = (100, 316, 1_000, 3_162, 10_000)
RATE_EPSILONS = (0.001, 0.002, 0.004, 0.008)
#: Continual counting: the registry's T, and a longer stream; releases per method.
PREFIX_LENGTHS = (16, 1_024)
PREFIX_METHODS = (
    ("tree", "matrix.binary_tree"),
    ("honaker", "matrix.binary_tree"),
    ("sqrt_toeplitz", "matrix.sqrt_toeplitz"),
)
PREFIX_RELEASES = 2_000
PREFIX_EPSILON, PREFIX_DELTA = 1.0, 1e-5


@dataclass(frozen=True)
class Row:
    """One estimator: its measured errors, the two bounds and the ratios."""

    name: str
    problem: str
    parameters: str
    quantile: float
    quantile_bound: LowerBound
    mean_abs: float
    mean_abs_bound: LowerBound


def _inputs(n: int, lo: float, hi: float, rng: np.random.Generator) -> list[np.ndarray]:
    """All at lo, half and half, one at hi, uniform: where the worst error is sought."""
    half = np.full(n, lo)
    half[: n // 2] = hi
    one = np.full(n, lo)
    one[0] = hi
    return [np.full(n, lo), half, one, rng.uniform(lo, hi, n)]


def _worst_errors(mechanism, target, inputs, rng) -> tuple[float, float]:
    """(worst 95 % quantile, worst mean) of |release − target(x)| over ``inputs``."""
    quantiles, means = [], []
    for x in inputs:
        err = np.abs(np.asarray(mechanism.sample(x, RELEASES, rng), dtype=float) - target(x))
        quantiles.append(float(np.quantile(err, 1.0 - BETA)))
        means.append(float(np.mean(err)))
    return max(quantiles), max(means)


def central_rows(rng: np.random.Generator) -> list[Row]:
    """The central estimators: the mean and the variance U-statistic."""
    rows = []
    for name in MEAN_ENTRIES + VARIANCE_ENTRIES:
        mech = registry.entry(name).create()
        spec = mech.spec
        n, record = spec.input_domain.size, spec.input_domain.record
        lo, hi, eps = record.lo, record.hi, spec.guarantee.epsilon
        is_mean = name in MEAN_ENTRIES
        target = np.mean if is_mean else (lambda x: float(np.var(x, ddof=1)))
        bound = central_mean_bound if is_mean else central_variance_bound
        q, m = _worst_errors(mech, target, _inputs(n, lo, hi, rng), rng)
        rows.append(
            Row(
                name=name,
                problem="mean" if is_mean else "variance U_n",
                parameters=f"n = {n}, ε = {eps:g}",
                quantile=q,
                quantile_bound=bound(n, eps, 0.0, BETA, width=hi - lo),
                mean_abs=m,
                mean_abs_bound=bound(n, eps, 0.0, width=hi - lo),
            )
        )
    return rows


def local_rows(rng: np.random.Generator) -> list[Row]:
    """The registry's randomized response run by ``LOCAL_USERS`` users on categories 0/1:
    the debiased frequency of category 0 against its population value."""
    rows = []
    for name in LOCAL_ENTRIES:
        mech = registry.entry(name).create()
        law, eps = mech.spec.noise.law, mech.spec.guarantee.epsilon
        keep, flip = law.keep_probability, law.flip_probability
        quantiles, means = [], []
        for p in (0.5, 0.1):
            zeros = rng.binomial(LOCAL_USERS, p, LOCAL_REPLICATES)
            hits = np.zeros(LOCAL_REPLICATES)
            for value, users in ((0, zeros), (1, LOCAL_USERS - zeros)):
                out = np.asarray(mech.sample(value, int(users.sum()), rng)) == 0
                starts = np.concatenate(([0], np.cumsum(users)[:-1]))
                sums = np.add.reduceat(out.astype(float), starts) if out.size else 0.0
                hits += np.where(users > 0, sums, 0.0)
            estimate = (hits / LOCAL_USERS - flip) / (keep - flip)
            err = np.abs(estimate - p)
            quantiles.append(float(np.quantile(err, 1.0 - BETA)))
            means.append(float(np.mean(err)))
        rows.append(
            Row(
                name=name,
                problem="frequency (LDP, population)",
                parameters=f"{LOCAL_USERS} users, ε = {eps:g}",
                quantile=max(quantiles),
                quantile_bound=local_mean_bound(LOCAL_USERS, eps, BETA),
                mean_abs=max(means),
                mean_abs_bound=local_mean_bound(LOCAL_USERS, eps),
            )
        )
    return rows


def _slope(xs, ys) -> float:
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def population_error(n: int, epsilon: float, rng: np.random.Generator) -> float:
    """E|M(x) − 1/2| of the Laplace mean of n Bernoulli(1/2) records (seeded)."""
    mech = bounded_mean_mechanism(n, 0.0, 1.0, epsilon)
    errors = []
    for ones in rng.binomial(n, 0.5, 400):
        x = np.zeros(n)
        x[:ones] = 1.0
        errors.append(np.abs(np.asarray(mech.sample(x, 25, rng)) - 0.5))
    return float(np.mean(errors))


def rate_fits(rng: np.random.Generator) -> dict[str, tuple[float, float, list[float]]]:
    """Fitted exponents (measured, rate) in n at ε = 1 and in ε at n = 1000."""
    in_n = [population_error(n, 1.0, rng) for n in RATE_NS]
    in_eps = [population_error(1_000, e, rng) for e in RATE_EPSILONS]
    rate_n = [central_mean_rate(n, 1.0).value for n in RATE_NS]
    rate_eps = [central_mean_rate(1_000, e).value for e in RATE_EPSILONS]
    return {
        "n (ε = 1)": (_slope(RATE_NS, in_n), _slope(RATE_NS, rate_n), in_n),
        "ε (n = 1000)": (
            _slope(RATE_EPSILONS, in_eps),
            _slope(RATE_EPSILONS, rate_eps),
            in_eps,
        ),
    }


def render(rows: list[Row], fits: dict[str, tuple[float, float, list[float]]]) -> str:
    """The Markdown tables."""
    lines = [
        f"| estimator | problem | parameters | measured q_{1 - BETA:g} | bound (quantile) | "
        "ratio | measured E|err| | bound (mean) | ratio | bound's source |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        q_ratio = r.quantile / r.quantile_bound.value if r.quantile_bound.value > 0 else math.inf
        m_ratio = r.mean_abs / r.mean_abs_bound.value
        eq = "(13.3)/(13.4)" if r.quantile_bound.target == "population" else "(13.1)/(13.2)"
        lines.append(
            f"| `{r.name}` | {r.problem} | {r.parameters} | {r.quantile:.4g} | "
            f"{r.quantile_bound.value:.4g} | {q_ratio:.3g} | {r.mean_abs:.4g} | "
            f"{r.mean_abs_bound.value:.4g} | {m_ratio:.3g} | derivations §13 {eq} |"
        )
    lines += [
        "",
        "| exponent in | measured (Laplace mean, population error) | rate √(1/n + 1/(nε)²) "
        "| source |",
        "|---|---|---|---|",
    ]
    for what, (measured, rate, _) in fits.items():
        lines.append(
            f"| {what} | {measured:.3f} | {rate:.3f} | Barber & Duchi 2014; Cai, Wang & "
            "Zhang 2021 (rate only) |"
        )
    return "\n".join(lines) + "\n"


def figure(fits: dict[str, tuple[float, float, list[float]]]) -> None:
    """Measured population error of the Laplace mean against the rate, in n and in ε."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, (what, (measured, rate, values)), xs, fn in zip(
        axes,
        fits.items(),
        (RATE_NS, RATE_EPSILONS),
        (lambda v: central_mean_rate(int(v), 1.0), lambda v: central_mean_rate(1_000, v)),
        strict=True,
    ):
        ax.loglog(xs, values, "o-", label=f"measured (slope {measured:.2f})")
        ax.loglog(xs, [fn(v).value for v in xs], "--", label=f"rate, constant 1 (slope {rate:.2f})")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(what.split(" ")[0])
        ax.set_ylabel("E|M − θ|")
        ax.set_title(f"Laplace mean, exponent in {what}")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(FIGURE, dpi=110)
    plt.close(fig)


def prefix_rows(rng: np.random.Generator) -> list[tuple[str, str, int, float, float]]:
    """(method, entry, T, worst-step RMS error, lower bound) of the prefix-sum releases."""
    rows = []
    for T in PREFIX_LENGTHS:
        stream = rng.uniform(0.0, 1.0, T)
        exact = np.cumsum(stream)
        bound = prefix_sum_lower_bound(T, PREFIX_EPSILON, PREFIX_DELTA)
        for method, entry in PREFIX_METHODS:
            squared = np.zeros(T)
            for _ in range(PREFIX_RELEASES):
                release = private_prefix_sums(
                    stream, PREFIX_EPSILON, PREFIX_DELTA, method=method, rng=rng
                )
                squared += (np.asarray(release.estimate) - exact) ** 2
            worst = float(np.sqrt(np.max(squared / PREFIX_RELEASES)))
            rows.append((method, entry, T, worst, bound.max_std))
    return rows


def render_prefix(rows: list[tuple[str, str, int, float, float]]) -> str:
    """The continual-counting table."""
    lines = [
        "| estimator (method) | registry entry | T | measured max_t RMS error | lower bound "
        "(factorization mechanisms) | ratio | bound's source |",
        "|---|---|---|---|---|---|---|",
    ]
    for method, entry, T, worst, bound in rows:
        lines.append(
            f"| `private_prefix_sums` ({method}) | `{entry}` | {T} | {worst:.4g} | "
            f"{bound:.4g} | {worst / bound:.3g} | Matoušek, Nikolov & Talwar, IMRN 2020 "
            "(γ₂ of prefix sums) |"
        )
    return "\n".join(lines) + "\n"


def build() -> tuple[list[Row], dict[str, tuple[float, float, list[float]]]]:
    """Every measurement, from one seeded generator (the prefix sums: their own seed)."""
    rng = np.random.default_rng(SEED)
    rows = central_rows(rng) + local_rows(rng)
    return rows, rate_fits(rng)


def tables(rows: list[Row], fits: dict[str, tuple[float, float, list[float]]]) -> str:
    """The page's tables: the estimators, the rate fits, then continual counting."""
    return render(rows, fits) + "\n" + render_prefix(prefix_rows(np.random.default_rng(SEED)))


def write(table: str) -> None:
    """Put ``table`` between the markers of ``docs/efficiency.md``."""
    text = OUTPUT.read_text("utf-8")
    begin, end = "<!-- efficiency:begin -->\n", "<!-- efficiency:end -->"
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    OUTPUT.write_text(head + begin + table + end + tail, "utf-8")


def main() -> None:
    """Measure, then write the table (or print it with ``--stdout``) and the figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stdout", action="store_true", help="print the table only")
    args = parser.parse_args()
    rows, fits = build()
    table = tables(rows, fits)
    if args.stdout:
        print(table)
        return
    write(table)
    figure(fits)


if __name__ == "__main__":
    main()
