"""Scaling of the Dask executor from 1 to 2 local workers on an expensive mechanism.

The mechanism is a sparse-vector mechanism of the DP-Sniper suite (default
``SVT34Parallel``: Lyu, Su & Li, PVLDB 2017, Algorithms 3 and 4 run side by side, 30
numbers per output), on the first input pair of its suite case.  Two measurements:

1. **the test split** — :func:`privaudit.auditing.distinguish.distinguish_pair` with ``--samples``
   outputs per side, on the serial executor (in this process) and on a ``LocalCluster``
   of 1 and of 2 worker *processes* (one thread each; :class:`privaudit.execution.distributed.
   DaskExecutor`).  This is the part an executor distributes.  The cluster is started
   and warmed up (one small split, so the workers have imported privaudit) before the
   clock starts; its start-up time is reported apart.
2. **the whole audit** — :func:`privaudit.audit` at ``--samples`` per side, which also
   draws the search split, the pilot and the sensitivity checks in this process
   (Amdahl's law bounds its speed-up).

Every run at the same seed must give the same counts and bounds (checked; the script
fails otherwise).  Each timing is repeated ``--repeats`` times, interleaved over the
executors, and the minimum is reported (``timeit``'s rule on a noisy machine).  Speed-up
= serial time / time on the executor (and 1-worker time / 2-worker time), all measured
in the same run.

Usage::

    python scripts/distributed_scaling.py [--samples N] [--repeats R]
        [--blocks-per-chunk B] [--mechanism NAME] [--no-audit]

Without ``--blocks-per-chunk`` the executor sizes its tasks per split
(:meth:`privaudit.execution.distributed.DaskExecutor.blocks_for`).

It prints a markdown table (the numbers in ``docs/distributed.md`` were produced by it).
On a shared machine the times, and the speed-up, are pessimistic: two workers need two
idle cores.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import time
from typing import Any

from privaudit import AuditConfig, audit
from privaudit.auditing import verified_pair
from privaudit.auditing.distinguish import distinguish_pair, draw_pair_test
from privaudit.execution import DaskExecutor, SerialExecutor, TimedExecutor
from privaudit.suites import dpsniper_cases


def _outcome(result: Any) -> tuple[Any, ...]:
    return (
        result.test_sizes,
        [(e.description, e.count_x, e.count_y) for e in result.events],
        result.epsilon_lower_bound,
    )


def _report(report: Any) -> dict[str, Any]:
    out = report.model_dump(mode="json")
    out.pop("runtime_seconds")
    return out


def _timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mechanism",
        default="SVT34Parallel",
        help="a DP-Sniper case (default SVT34Parallel; e.g. NumericalSVT)",
    )
    parser.add_argument(
        "--samples", type=int, default=2_000_000, help="test outputs per side (default 2·10⁶)"
    )
    parser.add_argument(
        "--search-samples",
        type=int,
        default=20_000,
        help="search split of the distinguish_pair runs (default 2·10⁴)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timings per executor")
    parser.add_argument(
        "--blocks-per-chunk",
        type=int,
        default=None,
        help="blocks per Dask task (default: the executor's default)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-audit", action="store_true", help="time the test split only")
    args = parser.parse_args()
    logging.getLogger("distributed").setLevel(logging.ERROR)

    case = next(c for c in dpsniper_cases() if c.name.split(".")[-1] == args.mechanism)
    mech = case.mechanism
    x, y = case.input_pairs[0]
    pair = verified_pair(mech.spec, x, y, "explicit")
    options = {} if args.blocks_per_chunk is None else {"blocks_per_chunk": args.blocks_per_chunk}

    def split(executor: Any) -> tuple[Any, float]:
        timed = TimedExecutor(executor)
        draws = draw_pair_test(
            mech, pair, samples=args.samples, search_samples=args.search_samples, rng=args.seed
        )
        result = distinguish_pair(mech, pair, draws, alpha=0.05, executor=timed)
        return result, timed.seconds

    config = AuditConfig(
        samples=args.samples, search_samples=args.search_samples, seed=args.seed, pairs_tested=1
    )

    def whole(executor: Any) -> Any:
        return audit(mech, config=config, pairs=[(x, y)], executor=executor)

    print(
        f"# {case.name}: {args.samples:,} test outputs per side, output width "
        f"{mech.spec.output_dimension if hasattr(mech.spec, 'output_dimension') else '?'}"
    )
    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f} at the start"
    )
    executors: dict[str, Any] = {"serial": SerialExecutor()}
    startup: dict[str, float] = {}
    try:
        for n in (1, 2):
            ex = DaskExecutor(n_workers=n, processes=True, **options)
            startup[f"{n} worker(s)"], _ = _timed(lambda ex=ex: ex.worker_threads)
            warm_up = draw_pair_test(mech, pair, samples=20_000, search_samples=1_000, rng=0)
            distinguish_pair(mech, pair, warm_up, alpha=0.05, executor=ex)  # warm-up
            executors[f"{n} worker(s)"] = ex
        times: dict[str, list[float]] = {k: [] for k in executors}
        split_times: dict[str, list[float]] = {k: [] for k in executors}
        audit_times: dict[str, list[float]] = {k: [] for k in executors}
        reference = reference_report = None
        for _ in range(args.repeats):
            for name, ex in executors.items():
                seconds, (result, mapped) = _timed(lambda ex=ex: split(ex))
                times[name].append(mapped)
                split_times[name].append(seconds)
                if reference is None:
                    reference = _outcome(result)
                elif _outcome(result) != reference:
                    raise SystemExit(f"{name}: the test split differs from the serial one")
                if args.no_audit:
                    continue
                seconds, report = _timed(lambda ex=ex: whole(ex))
                audit_times[name].append(seconds)
                if reference_report is None:
                    reference_report = _report(report)
                elif _report(report) != reference_report:
                    raise SystemExit(f"{name}: the audit report differs from the serial one")
        print(
            f"# load average {os.getloadavg()[0]:.1f} at the end; results identical on "
            f"every executor (ε lower bound {reference[2]:.4f} on the test split)"
        )
        print()
        print(
            "| executor | cluster start (s) | test split: drawn and counted (s) | vs serial "
            "| vs 1 worker | distinguish_pair (s) | vs serial | whole audit (s) | vs serial |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        serial = min(times["serial"])
        one = min(times["1 worker(s)"])
        serial_pair = min(split_times["serial"])
        serial_audit = min(audit_times["serial"]) if not args.no_audit else None
        for name in executors:
            t, p = min(times[name]), min(split_times[name])
            a = min(audit_times[name]) if not args.no_audit else None
            start = f"{startup[name]:.1f}" if name in startup else "—"
            print(
                f"| {name} | {start} | {t:.2f} | {serial / t:.2f}× | {one / t:.2f}× | {p:.2f} "
                f"| {serial_pair / p:.2f}× | "
                + ("—" if a is None else f"{a:.2f}")
                + " | "
                + ("—" if serial_audit is None or a is None else f"{serial_audit / a:.2f}×")
                + " |"
            )
        print()
        print(
            f"(minimum of {args.repeats} interleaved runs; speed-ups are the serial time, or the "
            "1-worker time, over this executor's)"
        )
        for label, table in (
            ("test split", times),
            ("distinguish_pair", split_times),
            ("audit", audit_times),
        ):
            for name, values in table.items():
                if values:
                    print(f"#   {label:10s} {name:12s}: " + " ".join(f"{v:.2f}" for v in values))
    finally:
        for ex in executors.values():
            if isinstance(ex, DaskExecutor):
                ex.close()


if __name__ == "__main__":
    main()
