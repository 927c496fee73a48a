"""Cost of an audit relative to drawing its samples.

For each mechanism, runs a full audit through a wrapper that counts every output the
auditor draws, then times drawing the same number of outputs alone (in the same batch
sizes) and prints the ratio audit time / sampling time.  Target: ≤ 3×.

Usage: python scripts/audit_cost.py [samples]   (writes docs/audit_cost.md)
"""

from __future__ import annotations

import pathlib
import sys
import time
from typing import Any

import numpy as np

from mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponseMechanism,
    smooth_median_mechanism,
)
from privaudit import AuditConfig, audit
from privaudit.suites import dpsniper_cases


class CountingMechanism(Mechanism):
    """Delegates to ``inner`` and records every batch drawn (input, size)."""

    def __init__(self, inner: Mechanism) -> None:
        super().__init__(inner.spec)
        self.inner = inner
        self.batches: list[tuple[Any, int]] = []

    def provides(self, hook: str) -> bool:
        return self.inner.provides(hook)

    def statistic(self, data: Any) -> Any:
        return self.inner.statistic(data)

    def smooth_sensitivity(self, data: Any) -> float:
        return self.inner.smooth_sensitivity(data)

    def local_sensitivity_bound(self, data: Any) -> float:
        return self.inner.local_sensitivity_bound(data)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        self.batches.append((data, size))
        return self.inner._sample(data, size, rng)

    def __getattr__(self, name: str) -> Any:  # parameters for the consistency check
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


def measure(name: str, mech: Mechanism, config: AuditConfig, pairs: Any = ()) -> str:
    counting = CountingMechanism(mech)
    start = time.perf_counter()
    audit(counting, config=config, pairs=pairs)
    audit_time = time.perf_counter() - start
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for data, size in counting.batches:
        mech.sample(data, size, rng)
    sample_time = time.perf_counter() - start
    drawn = sum(s for _, s in counting.batches)
    return (f"| {name} | {drawn:,} | {audit_time:.2f} | {sample_time:.2f} | "
            f"{audit_time / sample_time:.2f} |")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    config = AuditConfig(samples=n, pilot_samples=4_000, pair_budget=32, pairs_tested=2, seed=0)
    svt1 = next(c for c in dpsniper_cases() if c.name.endswith("SparseVectorTechnique1"))
    cases = [
        ("Laplace ε=1", LaplaceMechanism(1.0, 1.0), ()),
        ("analytic Gaussian (1, 1e-5)", GaussianMechanism(1.0, 1e-5, 1.0), ()),
        ("randomized response k=4", RandomizedResponseMechanism(1.0, categories=4), ()),
        ("smooth median n=101 (1/(1+z⁴))", smooth_median_mechanism(101, 0.0, 1.0, 1.0), ()),
        ("DP-Sniper SVT1 (black box)", svt1.mechanism, svt1.input_pairs),
    ]
    rows = ["| mechanism | outputs drawn | audit (s) | drawing alone (s) | ratio |",
            "|---|---|---|---|---|"]
    for name, mech, pairs in cases:
        rows.append(measure(name, mech, config, pairs))
        print(rows[-1], flush=True)
    text = "# Audit cost\n\n" + (__doc__ or "") + f"\n\nN = {n:,} per side.\n\n" + "\n".join(rows) + "\n"
    out = pathlib.Path(__file__).resolve().parents[1] / "docs" / "audit_cost.md"
    out.write_text(text, encoding="utf-8")
    print(f"written {out}")


if __name__ == "__main__":
    main()
