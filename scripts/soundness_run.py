"""Soundness run: ≥ 200 seeded audits of correct mechanisms; prints the false-violation rate.

Usage: python scripts/soundness_run.py [audits_per_mechanism] [samples]
"""

from __future__ import annotations

import sys
import time

from privaudit import AuditConfig
from privaudit.soundness import soundness_run


def main() -> None:
    per = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    config = AuditConfig(samples=samples, pilot_samples=2_000, pair_budget=16, pairs_tested=2,
                         claim_budget=60, confidence=0.95)
    start = time.perf_counter()
    result = soundness_run(per, config=config)
    print(result.summary())
    print(f"{result.audits} audits at {samples} samples per side in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
