"""Tightness: ε lower bounds of full audits of correct mechanisms next to the oracle.

The oracle (``docs/derivations.md`` §8) is the best ε lower bound any sampling
auditor can certify with N samples per side at 95 % confidence *if the optimal event were
known in advance* (expected counts, CP bounds at α/2 per side).  Our audits run with the
default configuration at confidence 0.95 (only ``samples``, ``seed`` and a smaller
``claim_budget`` set): the noise-law check takes α/10; the pairs all have the declared
worst shift, so one pair is tested (ties, see ``privaudit/auditing/choice/halving.py``); inside the
pair, the privacy-loss profile takes α/10, the events planned from the declared law
0.8 α (the main one 0.8 of that) and the data-driven events on the search split the last
α/10 (``privaudit/auditing/distinguish/declared_plan.py``).

An audit's ε_lb is a random variable: at N = 10⁶ the Gaussian's main event has about
650 expected outputs of M(y), so ε_lb fluctuates by about ±0.045 (one standard
deviation) from seed to seed.  The table therefore shows seed 0 and the mean and
minimum over seeds 0 … S−1; "mean / oracle" is the tightness target (≥ 0.97 at 10⁶).
The mean can exceed the oracle slightly: the reported ε_lb is the largest of the tested
events' bounds (main event, hedges, data-driven events — each valid at its own level),
and a maximum of noisy bounds sits above any one of them on average.

Before issue 3's declared-law plan (data-driven events only, α/5 to the noise law,
two pairs, search split N/5): analytic Gaussian (1, 10⁻⁵) at 10⁶ gave 0.681 on seed 0,
0.885 of the oracle.

Pure-DP events may use the exact rate-ratio bound of a Poissonised test split (one CP
bound at the event's whole level; ``privaudit/statistics/rate_ratio.py``), which is
tighter than the two-CP oracle: the Laplace rows lie at or above it.  The Gaussian's
(ε, δ) claim keeps the two CP bounds.  Over 20 seeds the Gaussian's mean at 10⁶ moved
between 0.970 and 1.004 of the oracle across changes that leave its statistics alone
(the standard error of a 20-seed mean is about 0.01); the table uses 50 seeds.

Usage::

    python scripts/tightness_table.py [--seeds S] [--quick]   (writes docs/tightness_table.md)
    python scripts/tightness_table.py --delta [--seeds S]     (the δ section only)
"""

from __future__ import annotations

import argparse
import math
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout: use its packages
    sys.path.insert(0, str(ROOT))

from privaudit import AuditConfig, audit
from privaudit.mechanisms import DiscreteGaussianMechanism, GaussianMechanism, LaplaceMechanism

ORACLE = {
    ("laplace", 0.1): (0.059, 0.087, 0.096),
    ("laplace", 0.5): (0.450, 0.484, 0.495),
    ("laplace", 1.0): (0.939, 0.981, 0.994),
    ("laplace", 2.0): (1.907, 1.971, 1.991),
    ("gaussian", 1.0): (0.38, 0.59, 0.77),
}
SIZES = (10_000, 100_000, 1_000_000)


DELTA_BEGIN, DELTA_END = "<!-- delta:begin -->", "<!-- delta:end -->"
#: (label, factory, sensitivity) of the δ table.
DELTA_MECHANISMS = (
    ("analytic Gaussian (1, 1e-5)", lambda: GaussianMechanism(1.0, 1e-5, 1.0), 1.0),
    (
        "classical Gaussian (0.5, 1e-5)",
        lambda: GaussianMechanism(0.5, 1e-5, 1.0, calibration="classical"),
        1.0,
    ),
    ("discrete Gaussian (1, 1e-5)", lambda: DiscreteGaussianMechanism(1.0, 1e-5, 1), 1.0),
)
DELTA_EPSILONS = (0.0, 0.25, 0.5, 0.75, 1.0)
DELTA_SIZES = (1_000_000, 10_000_000)


def certified_delta(report, epsilon: float) -> float:
    """The audit's certified lower bound on δ(ε): the largest of the privacy-loss
    profile's lower bounds at ε (both directions) and of every tested event's
    p̲_x − e^ε p̄_y (all within the audit's family-wise α)."""
    best = 0.0
    for point in report.privacy_profile:
        if math.isclose(point.epsilon, epsilon, abs_tol=1e-12):
            best = max(best, point.delta_lower_bound)
    for event in report.events:
        best = max(best, event.p_x_lower - math.exp(epsilon) * event.p_y_upper)
    return best


def delta_section(seeds: int) -> str:
    """The δ(ε) tightness table and the analytic Gaussian's ε_lb / oracle at 10⁶."""
    rows = [
        "| mechanism | N per side | "
        + " | ".join(f"δ(ε={e:g}) certified / exact" for e in DELTA_EPSILONS)
        + " | runtime (s) |",
        "|---|---|" + "---|" * len(DELTA_EPSILONS) + "---|",
    ]
    for label, factory, sens in DELTA_MECHANISMS:
        mech = factory()
        law = mech.spec.noise.law
        for n in DELTA_SIZES:
            start = time.perf_counter()
            report = audit(mech, config=AuditConfig(samples=n, claim_budget=50, seed=0))
            took = time.perf_counter() - start
            cells = []
            for e in DELTA_EPSILONS:
                exact = float(law.privacy_profile(e, sens))
                lb = certified_delta(report, e)
                cells.append(f"{lb:.4g} / {exact:.4g} ({lb / exact:.3f})")
            rows.append(f"| {label} | {n:,} | " + " | ".join(cells) + f" | {took:.1f} |")
            print(rows[-1], flush=True)
    gauss = GaussianMechanism(1.0, 1e-5, 1.0)
    values = [
        float(
            audit(
                gauss, config=AuditConfig(samples=1_000_000, claim_budget=50, seed=s)
            ).epsilon_lower_bound
        )
        for s in range(seeds)
    ]
    oracle = ORACLE[("gaussian", 1.0)][2]
    mean = statistics.fmean(values)
    line = (
        f"Analytic Gaussian (1, 10⁻⁵) at 10⁶ per side, seeds 0–{seeds - 1}: mean ε_lb "
        f"{mean:.4f}, min {min(values):.4f}, oracle {oracle:.3f}: mean / oracle "
        f"**{mean / oracle:.3f}** (standard error of the mean ≈ "
        f"{statistics.stdev(values) / math.sqrt(seeds) / oracle:.3f})."
    )
    print(line, flush=True)
    return (
        f"{DELTA_BEGIN}\n## δ(ε): certified lower bounds against the exact profile\n\n"
        "Generated by `python scripts/tightness_table.py --delta` (default audit, seed 0, "
        "confidence 0.95).  The certified bound at ε is the largest of the privacy-loss "
        "profile's lower bounds at ε and of every tested event's p̲_x − e^ε p̄_y, all "
        "inside the audit's family-wise α; the exact δ(ε) is the law's own profile at "
        "Δ = 1 (Balle & Wang, ICML 2018, Theorem 8; Canonne, Kamath & Steinke, NeurIPS "
        "2020, for the discrete Gaussian).  For (ε, δ) claims the declared law's main "
        "LLR event is tested pooled with its mirror (`privaudit/statistics/pooled.py`: "
        "exact Poisson bounds on both directions' counts together), which raised the "
        "analytic Gaussian's ε_lb at 10⁶ from 0.989 of the oracle (50 seeds, before) "
        "to the value below.  The oracle is that of one event in one direction; the pooled test "
        "uses the outputs of both directions (twice the counts), so it can exceed the oracle.\n\n"
        + "\n".join(rows)
        + "\n\n"
        + line
        + "\n"
        f"{DELTA_END}\n"
    )


def _write_delta(text: str) -> None:
    out = ROOT / "docs" / "tightness_table.md"
    doc = out.read_text(encoding="utf-8") if out.exists() else ""
    if DELTA_BEGIN in doc:
        head, rest = doc.split(DELTA_BEGIN, 1)
        doc = head + text + rest.split(DELTA_END, 1)[1].lstrip("\n")
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
    out.write_text(doc, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description="tightness of full audits")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="N = 10⁴ and 10⁵ only")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--delta",
        action="store_true",
        help="only the δ(ε) section (and the Gaussian's ε_lb at 10⁶)",
    )
    args = parser.parse_args()
    if args.delta:
        section = delta_section(args.seeds)
        if not args.no_write:
            _write_delta(section)
        return
    sizes = SIZES[:2] if args.quick else SIZES
    rows = [
        (
            "| mechanism | N per side | ε_lb seed 0 | mean over seeds | min over seeds | "
            "oracle | seed 0 / oracle | mean / oracle | pairs tested | runtime (s, seed 0) |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (kind, eps), oracle in ORACLE.items():
        mech = (
            LaplaceMechanism(eps, 1.0) if kind == "laplace" else GaussianMechanism(eps, 1e-5, 1.0)
        )
        label = f"Laplace ε={eps:g}" if kind == "laplace" else "analytic Gaussian (1, 1e-5)"
        # strict=False: --quick runs only the first sizes of the oracle's three
        for n, orc in zip(sizes, oracle, strict=False):
            values, took, tested = [], 0.0, 0
            for seed in range(args.seeds):
                cfg = AuditConfig(samples=n, claim_budget=50, seed=seed)
                start = time.perf_counter()
                report = audit(mech, config=cfg)
                if seed == 0:
                    took = time.perf_counter() - start
                    tested = int(report.check("distinguishability").details["pairs_tested"])
                values.append(float(report.epsilon_lower_bound))
            mean = statistics.fmean(values)
            rows.append(
                f"| {label} | {n:,} | {values[0]:.4f} | {mean:.4f} | {min(values):.4f} | "
                f"{orc:.3f} | {values[0] / orc:.3f} | {mean / orc:.3f} | {tested} | "
                f"{took:.2f} |"
            )
            print(rows[-1], flush=True)
    text = (
        "# Tightness of the auditor\n\n"
        + (__doc__ or "")
        + f"\n\nSeeds: {args.seeds}.\n\n"
        + "\n".join(rows)
        + "\n"
    )
    if not args.no_write:
        out = pathlib.Path(__file__).resolve().parents[1] / "docs" / "tightness_table.md"
        out.write_text(text, encoding="utf-8")
        print(f"written {out}")


if __name__ == "__main__":
    main()
