"""How much the audit's bound depends on which pair its pilot keeps (issue 31, point 1).

For each named DP-Sniper case and each seed, run the full :func:`privaudit.audit` without
input pairs (the auditor's own generators, pilot search and successive halving) and
record the pairs the pilot kept, the ε lower bound of each at full size, and the audit's
bound.  Prints one line per audit and a summary per mechanism: how many distinct pair
choices the seeds made and the min / median / max of the bound.  Only the test split is
scaled by ``--scale`` (the pilot keeps the size of ``scripts/power_table.py``; the
halving's first round is max(2·pilot, N/64), so it shrinks with N); sizes come from the
table's sizing rule.  ``--tolerance`` sets ``AuditConfig.pair_tolerance``.

Usage::

    python scripts/pair_choice_spread.py --seeds 0-3 --scale 0.1 --tolerance 0.15 \\
        --only ReportNoisyMax3,SparseVectorTechnique6,NumericalSVT,SparseVectorTechnique2
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time
from typing import Any

ROOT_DIR = pathlib.Path(__file__).resolve().parents[1]
for extra in (ROOT_DIR, ROOT_DIR / "scripts"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from power_table import parse_seeds, run_case, size_for

# private: main() wraps the final tests' distinguish_pair to record each tested pair and its
# bound; no AuditConfig field, audit() keyword or report field gives the pairs' bounds
import privaudit.auditing.choice.final_tests as final_tests_module
from privaudit.auditing import to_jsonable
from privaudit.suites import dpsniper_cases

DEFAULT = "ReportNoisyMax3,SparseVectorTechnique6,NumericalSVT,SparseVectorTechnique2"


def _short(value: object) -> str:
    return repr(to_jsonable(value)).replace(" ", "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=DEFAULT)
    parser.add_argument("--seeds", default="0-3")
    parser.add_argument("--scale", type=float, default=0.05, help="multiply the test split only")
    parser.add_argument(
        "--tolerance",
        default="0,0.15",
        help="comma-separated AuditConfig.pair_tolerance values, each run "
        "at the same sizes (0: the choice before issue 31)",
    )
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    kept: list[list[tuple[str, float]]] = []
    original = final_tests_module.distinguish_pair

    def recording(mechanism: Any, pair: Any, draws: Any, **kwargs: Any) -> Any:
        result = original(mechanism, pair, draws, **kwargs)
        kept[-1].append((f"{_short(pair.x)}~{_short(pair.y)}", float(result.epsilon_lower_bound)))
        return result

    final_tests_module.distinguish_pair = recording
    names = [s for s in args.only.split(",") if s]
    for case in dpsniper_cases():
        short = case.name.split(".", 1)[1]
        if short not in names:
            continue
        size = size_for(case, with_pairs=False)
        for tolerance in (float(t) for t in args.tolerance.split(",")):
            bounds, choices = [], []
            for seed in seeds:
                kept.append([])
                started = time.perf_counter()
                row = run_case(
                    case,
                    size,
                    args.scale,
                    with_pairs=False,
                    seed=seed,
                    scale_pilot=False,
                    pair_tolerance=tolerance,
                )
                bounds.append(float(row["ours"]))
                choices.append(tuple(sorted(p for p, _ in kept[-1])))
                per_pair = ", ".join(f"{p} → {e:.4f}" for p, e in kept[-1])
                print(
                    f"{short} tolerance {tolerance:g} seed {seed}: ε_lb {row['ours']:.4f} "
                    f"N {row['samples']} ({time.perf_counter() - started:.0f} s)  "
                    f"[{per_pair}]",
                    flush=True,
                )
            print(
                f"== {short} tolerance {tolerance:g}: {len(set(choices))} distinct choices "
                f"over {len(seeds)} seeds; ε_lb min {min(bounds):.4f} median "
                f"{statistics.median(bounds):.4f} max {max(bounds):.4f} "
                f"(DP-Sniper LR {case.reference_results.get('dpsniper_lr')})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
