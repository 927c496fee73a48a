"""Seconds per 10⁶ outputs of every DP-Sniper and StatDP benchmark sampler; with
``--exact``, throughput of the exact samplers and float-safe mechanisms instead.

Each mechanism draws 10⁶ outputs on the first input of its first pair, ``--repeats``
times from fixed seeds; the table gives the fastest (least disturbed) and the median
wall-clock time of one call, and the fastest process (CPU) time.  The machine is shared,
so the minimum is the figure to compare between runs.

Usage: PYTHONPATH=. python3 scripts/sampler_speed.py [--repeats 7] [--size 1000000]
[--only NAME ...] [--json FILE] [--baseline FILE ...] [--exact] (prints a Markdown table;
``--json`` also saves the numbers; ``--baseline`` adds before/after columns from the
JSON files of earlier runs, e.g. of an older commit, taking the fastest of them).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _exact_speed import exact_table

from privaudit.mechanisms import Mechanism
from privaudit.suites import dpsniper_cases, statdp_cases


def time_sampler(
    mechanism: Mechanism, data: object, size: int, repeats: int
) -> tuple[float, float, float]:
    """(min wall, median wall, min CPU) seconds of ``mechanism.sample(data, size, seed)``."""
    mechanism.sample(data, 1000, rng=0)  # warm caches
    wall, cpu = [], []
    for seed in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        mechanism.sample(data, size, rng=seed)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return min(wall), float(np.median(wall)), min(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument(
        "--only", nargs="*", default=None, help="case names (e.g. dpsniper.SparseVectorTechnique1)"
    )
    parser.add_argument("--json", default=None, help="also save the numbers here")
    parser.add_argument(
        "--baseline", nargs="*", default=None, help="JSON files of earlier runs to compare with"
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="time the exact samplers and float-safe mechanisms instead",
    )
    args = parser.parse_args()
    if args.exact:
        exact_table(args.size, args.repeats, args.json)
        return
    cases = list(dpsniper_cases()) + list(statdp_cases(0.7))
    if args.only:
        cases = [c for c in cases if c.name in set(args.only)]
    baseline: dict[str, float] = {}
    for path in args.baseline or ():
        with open(path, encoding="utf-8") as handle:
            for name, numbers in json.load(handle).items():
                baseline[name] = min(baseline.get(name, np.inf), numbers["min_wall"])
    results = {}
    if baseline:
        print(
            f"| mechanism | output shape | before: min s / {args.size:.0e} | after: min s "
            "| speed-up | after: median s |"
        )
        print("|---|---|---|---|---|---|")
    else:
        print(f"| mechanism | output shape | min s / {args.size:.0e} | median s | min CPU s |")
        print("|---|---|---|---|---|")
    for case in cases:
        x = case.input_pairs[0][0]
        d = case.spec.output_dimension
        best, median, cpu = time_sampler(case.mechanism, x, args.size, args.repeats)
        results[case.name] = {"min_wall": best, "median_wall": median, "min_cpu": cpu}
        shape = f"(N, {d})" if d > 1 else "(N,)"
        if case.name in baseline:
            before = baseline[case.name]
            print(
                f"| {case.name} | {shape} | {before:.3f} | {best:.3f} | "
                f"{before / best:.1f}× | {median:.3f} |",
                flush=True,
            )
        else:
            print(f"| {case.name} | {shape} | {best:.3f} | {median:.3f} | {cpu:.3f} |", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
