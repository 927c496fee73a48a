"""Mutant catch rates: broken variants at random positions, and their correct bases.

Each family of :mod:`privaudit.suites.mutants` pairs a correct mechanism with a broken
variant whose defect sits at a random coordinate, node, weight or magnitude (issue 45,
item 3).  For every family, M parameter draws come from the family's own sampler (a numpy
``Generator`` seeded with ``seed + family index``); the broken variant and the correct
variant of each draw are audited at the stated sizes with audit seed i (draw i), using
:data:`privaudit.suites.mutants.MUTANT_AUDIT` (the quality tier's configuration) and
``samples`` outputs per side.

* **catch rate** — share of broken variants whose report is ``violated``, with a two-sided
  95 % Clopper–Pearson interval;
* **false alarms** — share of correct variants whose report is ``violated`` (each audit's
  family-wise error is at most α = 0.05; the interval is the same CP interval);
* the verdicts of the correct variants (``no_violation`` / ``inconclusive``), the checks
  that caught the broken variants (a report may flag several), the checks behind the
  false alarms, and the seconds spent (audits only).

The CI size (20,000 per side) is the quality tier's (``tests/quality/test_mutants.py``);
the smaller size shows where the catch starts to depend on the draw.  "caught by" says
*how*: a family caught only by ``noise_law`` is caught because its spec declares the
noise law the sampler departs from; ``distinguishability`` counts the audits whose
sampled ε lower bound itself exceeded the claim.

Usage::

    python scripts/mutant_table.py [--mutants M] [--samples N[,N2...]] [--seed S]
                                   [--families a,b] [--no-write]
                                   (writes docs/mutant_table.md)
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout: use its packages
    sys.path.insert(0, str(ROOT))

import numpy as np

from privaudit import audit
from privaudit.statistics import clopper_pearson
from privaudit.suites import MUTANT_AUDIT, MUTANT_FAMILIES


def _interval(k: int, n: int) -> str:
    ci = clopper_pearson(k, n, 0.95)
    return f"{k}/{n} = {k / n:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def run_family(index: int, name: str, mutants: int, samples: int, seed: int) -> dict:
    """Audit ``mutants`` broken and correct variants of one family; return the tallies."""
    family = MUTANT_FAMILIES[name]
    rng = np.random.default_rng(seed + index)
    caught = alarms = 0
    by_check: collections.Counter[str] = collections.Counter()
    alarm_checks: collections.Counter[str] = collections.Counter()
    verdicts: collections.Counter[str] = collections.Counter()
    missed: list[dict] = []
    seconds = {"broken": 0.0, "correct": 0.0}
    for i in range(mutants):
        params = family.sample_params(rng)
        for kind in ("broken", "correct"):
            mech, kwargs = getattr(family, kind)(params)
            start = time.perf_counter()
            report = audit(mech, samples=samples, seed=i, **MUTANT_AUDIT, **kwargs)
            seconds[kind] += time.perf_counter() - start
            flagged = {c.name for c in report.checks if c.violated}
            if kind == "broken":
                if report.violated:
                    caught += 1
                    by_check.update(flagged)
                else:
                    missed.append(params)
            else:
                alarms += int(report.violated)
                alarm_checks.update(flagged)
                verdicts[report.verdict] += 1
        print(f"{name} N={samples:,} {i + 1}/{mutants}: caught {caught}, false alarms {alarms}")
    return {
        "caught": caught,
        "alarms": alarms,
        "by_check": by_check,
        "alarm_checks": alarm_checks,
        "verdicts": verdicts,
        "missed": missed,
        "seconds": seconds,
    }


def _counts(counter: collections.Counter[str]) -> str:
    return ", ".join(f"{c} ({k})" for c, k in counter.most_common()) or "–"


def main() -> None:
    parser = argparse.ArgumentParser(description="catch rates of mutant families")
    parser.add_argument("--mutants", type=int, default=40, help="draws per family (M)")
    parser.add_argument(
        "--samples", default="20000", help="outputs per side; several: comma-separated"
    )
    parser.add_argument("--seed", type=int, default=0, help="parameter seed")
    parser.add_argument("--families", default=",".join(MUTANT_FAMILIES))
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    names = [n for n in args.families.split(",") if n]
    sizes = [int(n) for n in args.samples.split(",") if n]
    rows = [
        "| family | defect | N per side | broken caught (95 % CP) | "
        "false alarms on correct (95 % CP) | correct verdicts | caught by | alarmed by | "
        "seconds (broken / correct) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for name in names:
        index = list(MUTANT_FAMILIES).index(name)
        for samples in sizes:
            res = run_family(index, name, args.mutants, samples, args.seed)
            verdicts = ", ".join(f"{v} {k}" for v, k in sorted(res["verdicts"].items()))
            rows.append(
                f"| `{name}` | {MUTANT_FAMILIES[name].defect} | {samples:,} | "
                f"{_interval(res['caught'], args.mutants)} | "
                f"{_interval(res['alarms'], args.mutants)} | {verdicts} | "
                f"{_counts(res['by_check'])} | {_counts(res['alarm_checks'])} | "
                f"{res['seconds']['broken']:.0f} / {res['seconds']['correct']:.0f} |"
            )
            print(rows[-1], flush=True)
            for params in res["missed"]:
                notes.append(f"* `{name}`, N = {samples:,}: missed at `{params}`")
    command = (
        f"python scripts/mutant_table.py --mutants {args.mutants} --samples "
        f"{','.join(map(str, sizes))} --seed {args.seed}"
        + ("" if names == list(MUTANT_FAMILIES) else f" --families {','.join(names)}")
    )
    config = ", ".join(f"{k}={v!r}" for k, v in MUTANT_AUDIT.items())
    text = (
        "# Mutant catch rates\n\n"
        + (__doc__ or "")
        + f"\n\nRegenerate with `{command}`.\n\n"
        + f"Sizes: M = {args.mutants} draws per family (broken and correct) at each N per "
        + f"side, audit configuration {config}; parameter seed {args.seed} (+ family "
        + "index, the same draws at every N), audit seed = draw index.  Seconds are the "
        + "audits' wall-clock time on the machine that ran the table (two shared cores).\n\n"
        + "\n".join(rows)
        + "\n"
        + ("\nMissed broken variants:\n\n" + "\n".join(notes) + "\n" if notes else "")
    )
    if not args.no_write:
        out = ROOT / "docs" / "mutant_table.md"
        out.write_text(text, encoding="utf-8")
        print(f"written {out}")


if __name__ == "__main__":
    main()
