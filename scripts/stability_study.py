"""Propose-test-release and sample-and-aggregate: refusal probability, error, catch rates.

1. PTR median and IQR (``privaudit.estimators.stability``, ε = 1, δ = 10⁻⁶, proposed
   bound b = 0.05 on [0, 1]): the exact probability of ⊥ (closed form from d(x), averaged
   over 200 data sets) and the mean absolute error of the released values, against the
   smooth-sensitivity median (NRS 2007) and the Laplace bounded mean, versus n, on
   well-behaved data (N(0.5, 0.1²) clipped) and adversarial data (half the records at 0.2,
   half at 0.8: a gap at the median);
2. sample-and-aggregate of the block mean (n = 1200) versus the number of blocks k;
3. the audit's catch rate of the broken PTR medians over seeds 0–4 (``--catch``).

Writes ``docs/stability_mechanisms.png`` and prints the tables of
``docs/stability_mechanisms.md``.  Usage: ``python scripts/stability_study.py [--catch]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from privaudit import AuditConfig, audit  # noqa: E402
from privaudit.estimators import bounded_mean_mechanism  # noqa: E402
from privaudit.estimators.stability import (  # noqa: E402
    ptr_iqr_mechanism,
    ptr_median_mechanism,
    sample_and_aggregate_mechanism,
)
from privaudit.mechanisms import smooth_median_mechanism  # noqa: E402

# private: the lead wires the PTR cases into privaudit.suites; until then they live here
from privaudit.suites._stability_cases import ptr_broken_cases, ptr_control_cases  # noqa: E402

EPS, DELTA, BOUND = 1.0, 1e-6, 0.05
SIZES = (11, 41, 101, 401, 1001)
DOCS = Path(__file__).resolve().parents[1] / "docs"


def _data(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "normal":
        return np.clip(rng.normal(0.5, 0.1, n), 0.0, 1.0)
    half = n // 2
    return rng.permutation(np.concatenate([np.full(half, 0.2), np.full(n - half, 0.8)]))


def _ptr_row(kind: str, n: int, rng: np.random.Generator) -> dict[str, float]:
    """P[⊥] (exact given d) and mean |error| of released values for PTR median and IQR."""
    med = ptr_median_mechanism(n, 0.0, 1.0, EPS, DELTA, BOUND)
    iqr = ptr_iqr_mechanism(n, 0.0, 1.0, EPS, DELTA, BOUND)
    smooth = smooth_median_mechanism(n, 0.0, 1.0, EPS, DELTA)
    mean = bounded_mean_mechanism(n, 0.0, 1.0, EPS)
    refuse_med, refuse_iqr, err_med, err_smooth, err_mean = [], [], [], [], []
    for _ in range(200):
        x = _data(kind, n, rng)
        truth = float(np.median(x))
        out = med.sample(x, size=50, rng=rng)
        refuse_med.append(1.0 - float(np.mean(out[:, 0])))
        if out[:, 0].any():
            err_med.append(float(np.mean(np.abs(out[out[:, 0] == 1, 1] - truth))))
        refuse_iqr.append(1.0 - float(np.mean(iqr.sample(x, size=50, rng=rng)[:, 0])))
        err_smooth.append(float(np.mean(np.abs(smooth.sample(x, size=50, rng=rng) - truth))))
        err_mean.append(float(np.mean(np.abs(mean.sample(x, size=50, rng=rng) - truth))))
    return {
        "refuse_median": float(np.mean(refuse_med)),
        "refuse_iqr": float(np.mean(refuse_iqr)),
        "err_ptr": float(np.mean(err_med)) if err_med else float("nan"),
        "err_smooth": float(np.mean(err_smooth)),
        "err_mean": float(np.mean(err_mean)),
    }


def _sample_aggregate(rng: np.random.Generator) -> list[tuple[int, float, float, float]]:
    n, rows = 1215, []
    mean = bounded_mean_mechanism(n, 0.0, 1.0, EPS)
    for k in (5, 9, 15, 27, 45, 81, 135):
        lap = sample_and_aggregate_mechanism(n, lambda b: b.mean(axis=1), k, 0.0, 1.0, EPS)
        med = sample_and_aggregate_mechanism(
            n, lambda b: b.mean(axis=1), k, 0.0, 1.0, EPS, delta=DELTA, aggregator="smooth_median"
        )
        errs = np.zeros(3)
        for _ in range(100):
            x = np.clip(rng.normal(0.5, 0.2, n), 0.0, 1.0)
            truth = float(np.mean(x))
            for i, mech in enumerate((lap, med, mean)):
                errs[i] += float(np.mean(np.abs(mech.sample(x, size=20, rng=rng) - truth)))
        rows.append((k, *(errs / 100)))
    return rows


def _catch_rates(seeds: int) -> None:
    print("| case | claimed | true eps | samples | flagged | mean eps_lb | mean s |")
    print("|---|---|---|---|---|---|---|")
    for case in ptr_broken_cases() + ptr_control_cases():
        for samples in (20_000, 100_000):
            flagged, lbs, secs = 0, [], []
            for seed in range(seeds):
                start = time.perf_counter()
                report = audit(
                    case.mechanism,
                    config=AuditConfig(samples=samples, seed=seed),
                    pairs=case.input_pairs,
                )
                secs.append(time.perf_counter() - start)
                flagged += bool(report.violated)
                lbs.append(report.epsilon_lower_bound)
            print(
                f"| {case.name} | (1, 1e-6) | {case.true_epsilon:.4g} | {samples:,} | "
                f"{flagged}/{seeds} | {np.mean(lbs):.3g} | {np.mean(secs):.1f} |",
                flush=True,
            )


def main(argv: list[str] | None = None) -> None:
    """Run the study (and the catch rates with ``--catch``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catch", action="store_true", help="audit catch rates (slow)")
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(2026)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    print("| data | n | P[⊥] median | P[⊥] IQR | PTR median error | smooth median | mean |")
    print("|---|---|---|---|---|---|---|")
    for kind, style in (("normal", "-"), ("bimodal", "--")):
        rows = [_ptr_row(kind, n, rng) for n in SIZES]
        for n, row in zip(SIZES, rows, strict=True):
            print(
                f"| {kind} | {n} | {row['refuse_median']:.3f} | {row['refuse_iqr']:.3f} | "
                f"{row['err_ptr']:.4f} | {row['err_smooth']:.4f} | {row['err_mean']:.4f} |"
            )
        axes[0].plot(
            SIZES, [r["refuse_median"] for r in rows], "o" + style, label=f"median, {kind}"
        )
        axes[0].plot(SIZES, [r["refuse_iqr"] for r in rows], "s" + style, label=f"IQR, {kind}")
        axes[1].plot(SIZES, [r["err_ptr"] for r in rows], "o" + style, label=f"PTR median, {kind}")
        axes[1].plot(
            SIZES, [r["err_smooth"] for r in rows], "^" + style, label=f"smooth median, {kind}"
        )
    axes[0].set(xscale="log", xlabel="n", ylabel="P[⊥]", title=f"PTR refusal (ε={EPS}, b={BOUND})")
    axes[1].set(
        xscale="log",
        yscale="log",
        xlabel="n",
        ylabel="mean |error| (released)",
        title="median: PTR vs smooth sensitivity",
    )
    rows_sa = _sample_aggregate(rng)
    print("\n| k | S&A Laplace mean | S&A smooth median | Laplace bounded mean |")
    print("|---|---|---|---|")
    for k, a, b, c in rows_sa:
        print(f"| {k} | {a:.4f} | {b:.4f} | {c:.4f} |")
    ks = [r[0] for r in rows_sa]
    for i, label in enumerate(("S&A Laplace mean", "S&A smooth median", "Laplace bounded mean")):
        axes[2].plot(ks, [r[i + 1] for r in rows_sa], "o-", label=label)
    axes[2].set(
        xscale="log",
        yscale="log",
        xlabel="k (blocks)",
        ylabel="mean |error|",
        title="sample-and-aggregate of the mean, n = 1215",
    )
    for ax in axes:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(DOCS / "stability_mechanisms.png", dpi=110)
    if args.catch:
        _catch_rates(args.seeds)


if __name__ == "__main__":
    main()
