"""Rare-leak detection of δ audits: how often a leak of probability p is flagged.

For the rare-leak means of ``privaudit.suites.broken`` (mean of 100 records in [0, 1]
plus Laplace(1/(nε)) noise, ε = 1; with probability p the raw mean (an atom) or the
mean plus Laplace(10⁻⁷) noise (a spike)), with and without the ``statistic`` hook, runs
``--seeds`` seeded audits (default configuration, confidence 0.95) at each grid point
(N per side, claimed δ, p) and prints the fraction flagged with its two-sided 95 %
Clopper–Pearson interval.  The target: flagged whenever p ≥ 10·δ and N·p ≥ 30; leaks
with p < δ pass (they do not break the claim).  Writes ``docs/delta_audits.md``'s
detection table (between markers) unless ``--no-write``.

Usage: python scripts/delta_detection.py [--seeds S] [--kinds 0,1] [--points 1,2]
                                         [--no-write]
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout: use its packages
    sys.path.insert(0, str(ROOT))

from privaudit import audit
from privaudit.statistics import clopper_pearson
from privaudit.suites import RareRawMean

DOC = ROOT / "docs" / "delta_audits.md"
BEGIN, END = "<!-- detection:begin -->", "<!-- detection:end -->"

#: (N per side, claimed δ, leak probability p)
GRID = (
    (1_000_000, 1e-5, 1e-4),  # p = 10 δ, N p = 100
    (1_000_000, 3e-6, 3e-5),  # p = 10 δ, N p = 30: the corner of the target
    (100_000, 3e-5, 3e-4),  # p = 10 δ, N p = 30
    (1_000_000, 1e-5, 5e-6),  # p = δ/2: must pass
    (100_000, 1e-4, 5e-5),  # p = δ/2: must pass
)
KINDS = (
    ("atom, hook", {}),
    ("atom, no hook", {"hook": False}),
    ("spike 1e-7, hook", {"spike": 1e-7}),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--kinds", default="", help="comma-separated indices into KINDS")
    parser.add_argument("--points", default="", help="comma-separated indices into GRID")
    args = parser.parse_args(argv)
    kinds = [KINDS[int(i)] for i in args.kinds.split(",") if i] or list(KINDS)
    grid = [GRID[int(i)] for i in args.points.split(",") if i] or list(GRID)
    rows = [
        "| leak | N per side | claimed δ | p | p/δ | N·p | flagged | 95 % CP interval | "
        "mean s/audit |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    start = time.perf_counter()
    for label, kwargs in kinds:
        for n, delta, p in grid:
            flagged = 0
            t0 = time.perf_counter()
            for seed in range(args.seeds):
                report = audit(RareRawMean(delta=delta, p=p, **kwargs), samples=n, seed=seed)
                flagged += int(report.violated)
            each = (time.perf_counter() - t0) / args.seeds
            ci = clopper_pearson(flagged, args.seeds, 0.95)
            row = (
                f"| {label} | {n:,} | {delta:g} | {p:g} | {p / delta:g} | {n * p:g} | "
                f"{flagged}/{args.seeds} | [{ci.low:.2f}, {ci.high:.2f}] | {each:.1f} |"
            )
            rows.append(row)
            print(row, flush=True)
    table = "\n".join(rows)
    footer = (
        f"\n\n{len(kinds) * len(grid) * args.seeds} audits (seeds 0–{args.seeds - 1}) in "
        f"{time.perf_counter() - start:.0f} s on 2 cores shared with other jobs."
    )
    if not args.no_write and DOC.exists():
        text = DOC.read_text(encoding="utf-8")
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        DOC.write_text(f"{head}{BEGIN}\n{table}{footer}\n{END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
