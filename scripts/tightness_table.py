"""Tightness: ε lower bounds of full audits of correct mechanisms next to the oracle.

The oracle (``auditing_state_of_the_art.md`` §5) is the best ε lower bound any sampling
auditor can certify with N samples per side at 95 % confidence *if the optimal event were
known in advance*.  Our audits must also choose the event (on a separate search split),
spend part of α on the noise-law check, and correct for every event tested.

Usage: python scripts/tightness_table.py [--quick]   (writes docs/tightness_table.md)
"""

from __future__ import annotations

import pathlib
import sys
import time

from mechanisms import GaussianMechanism, LaplaceMechanism
from privaudit import AuditConfig, audit

ORACLE = {
    ("laplace", 0.1): (0.059, 0.087, 0.096),
    ("laplace", 0.5): (0.450, 0.484, 0.495),
    ("laplace", 1.0): (0.939, 0.981, 0.994),
    ("laplace", 2.0): (1.907, 1.971, 1.991),
    ("gaussian", 1.0): (0.38, 0.59, 0.77),
}
SIZES = (10_000, 100_000, 1_000_000)


def main() -> None:
    quick = "--quick" in sys.argv
    sizes = SIZES[:2] if quick else SIZES
    rows = ["| mechanism | N per side | ε_lb (ours) | oracle | ours / oracle | runtime (s) |",
            "|---|---|---|---|---|---|"]
    for (kind, eps), oracle in ORACLE.items():
        mech = LaplaceMechanism(eps, 1.0) if kind == "laplace" else GaussianMechanism(eps, 1e-5, 1.0)
        label = f"Laplace ε={eps:g}" if kind == "laplace" else "analytic Gaussian (1, 1e-5)"
        for n, orc in zip(sizes, oracle):
            cfg = AuditConfig(samples=n, search_samples=max(2_000, n // 5), pairs_tested=1,
                              pair_budget=16, claim_budget=50, seed=0)
            start = time.perf_counter()
            report = audit(mech, config=cfg)
            took = time.perf_counter() - start
            rows.append(f"| {label} | {n:,} | {report.epsilon_lower_bound:.4f} | {orc:.3f} | "
                        f"{report.epsilon_lower_bound / orc:.3f} | {took:.1f} |")
            print(rows[-1], flush=True)
    text = "# Tightness of the auditor\n\n" + (__doc__ or "") + "\n\n" + "\n".join(rows) + "\n"
    out = pathlib.Path(__file__).resolve().parents[1] / "docs" / "tightness_table.md"
    out.write_text(text, encoding="utf-8")
    print(f"written {out}")


if __name__ == "__main__":
    main()
