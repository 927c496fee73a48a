"""False alarms of the spike check alone, at its own level α, on mechanisms that meet their law.

Runs :func:`privaudit.auditing.checks.check_spike` with ``alpha`` (default 0.05, twenty times the
share it gets inside an audit at confidence 0.95) on ``seeds`` seeds each of the Laplace
mechanism, the analytic Gaussian mechanism (pairs (0, 1)) and the rare raw-data mean
whose leak p = δ/2 stays within the claimed δ (with the allowance δ, as in the audit),
at ``samples`` outputs per input, and prints each rate with its one-sided 95 %
Clopper–Pearson upper bound.

Usage: python scripts/spike_false_alarms.py [seeds] [samples] [alpha]
"""

from __future__ import annotations

import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout: use its packages
    sys.path.insert(0, str(ROOT))

from privaudit.auditing.checks import check_spike
from privaudit.mechanisms import GaussianMechanism, LaplaceMechanism
from privaudit.statistics import clopper_pearson
from privaudit.suites import RareRawMean


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    alpha = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
    x, y = np.zeros(100), np.concatenate([[1.0], np.zeros(99)])
    cases = (
        ("Laplace (eps = 1)", LaplaceMechanism(epsilon=1.0, sensitivity=1.0), (0.0, 1.0), 0.0),
        (
            "analytic Gaussian (1, 1e-5)",
            GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0),
            (0.0, 1.0),
            1e-5,
        ),
        ("raw branch p = 5e-6 (delta = 1e-5)", RareRawMean(delta=1e-5, p=5e-6), (x, y), 1e-5),
    )
    print("| mechanism | checks | false alarms | rate | one-sided 95 % CP upper bound |")
    print("|---|---|---|---|---|")
    start = time.perf_counter()
    total = flagged_all = 0
    for label, mech, inputs, allowance in cases:
        flagged = sum(
            int(
                check_spike(
                    mech, inputs, seed, samples=samples, alpha=alpha, allowance=allowance
                ).violated
            )
            for seed in range(seeds)
        )
        total += seeds
        flagged_all += flagged
        upper = clopper_pearson(flagged, seeds, 0.90).high
        print(
            f"| {label} | {seeds} | {flagged} | {flagged / seeds:.1%} | {upper:.2%} |", flush=True
        )
    upper = clopper_pearson(flagged_all, total, 0.90).high
    print(f"| all | {total} | {flagged_all} | {flagged_all / total:.1%} | {upper:.2%} |")
    print(
        f"\n{total} checks at alpha = {alpha:g}, {samples:,} outputs per input, in "
        f"{time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
