"""Soundness run: ≥ 200 seeded audits of correct mechanisms; prints the false-violation rate.

Two runs: the pure and Gaussian mechanisms of ``CORRECT_MECHANISMS`` at ``samples`` per
side, and the (ε, δ) mechanisms of ``CORRECT_DELTA_MECHANISMS`` (Gaussian laws and rare
leaks within the claimed δ, which the rare-event detection must not flag) at
``delta_samples`` per side.  Each run reports its rate with the one-sided 95 %
Clopper–Pearson upper bound.

A third run audits the correct black boxes of ``CORRECT_BLACK_BOX_MECHANISMS`` (no declared
law: the pairs come from the pilot search and successive halving, with the near ties of
the default robust pair choice, ``AuditConfig.pair_tolerance``) at ``black_box_samples``
per side, and counts the audits that tested near ties.

Usage: python scripts/soundness_run.py [audits_per_mechanism] [samples] [delta_audits]
                                       [delta_samples] [black_box_audits]
                                       [black_box_samples]
"""

from __future__ import annotations

import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout: use its packages
    sys.path.insert(0, str(ROOT))

from privaudit import AuditConfig
from privaudit.trust import (
    CORRECT_BLACK_BOX_MECHANISMS,
    CORRECT_DELTA_MECHANISMS,
    CORRECT_MECHANISMS,
    soundness_run,
)


def main() -> None:
    per = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    delta_per = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    delta_samples = int(sys.argv[4]) if len(sys.argv) > 4 else 100_000
    black_per = int(sys.argv[5]) if len(sys.argv) > 5 else 50
    black_samples = int(sys.argv[6]) if len(sys.argv) > 6 else 20_000
    config = AuditConfig(
        samples=samples,
        pilot_samples=2_000,
        pair_budget=16,
        pairs_tested=2,
        claim_budget=60,
        confidence=0.95,
    )
    runs = (
        (per, samples, CORRECT_MECHANISMS, "pure and Gaussian mechanisms"),
        (delta_per, delta_samples, CORRECT_DELTA_MECHANISMS, "(epsilon, delta) mechanisms"),
        (
            black_per,
            black_samples,
            CORRECT_BLACK_BOX_MECHANISMS,
            f"black boxes (pair_tolerance {config.pair_tolerance})",
        ),
    )
    for audits, size, mechanisms, what in runs:
        if audits <= 0:
            continue
        start = time.perf_counter()
        result = soundness_run(
            audits, config=config.model_copy(update={"samples": size}), mechanisms=mechanisms
        )
        print(result.summary())
        print(
            f"{result.audits} audits of {what} at {size} samples per side in "
            f"{time.perf_counter() - start:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
