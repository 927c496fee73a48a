"""Power of the full audit on DP-Sniper's twenty mechanisms, against DP-Sniper's own bounds.

For every case of :func:`privaudit.suites.dpsniper_cases` this runs the complete
:func:`privaudit.audit` (spec, sensitivity and noise-law checks, pilot ranking of the
case's input pairs together with generated ones, the full distinguishing test of the top
pairs) at family-wise confidence 0.95, and prints a Markdown table:

    mechanism | true ε | our ε_lb | DP-Sniper LR | DP-Sniper MLP | StatDP* | runtime (s) | verdict

DP-Sniper's numbers (``eval_sp2021/reference-results``) are 90 %-confidence bounds from
10.7 M training and 200 M final samples per mechanism; ours are 95 %-confidence bounds
(Clopper–Pearson, sample splitting, Bonferroni over pairs and events).

**The sizing rule** (one rule for all twenty; no size is chosen at one seed).  Two
properties of the mechanism decide every size:

* its *output kind*, from 2·10⁴ outputs on its first input pair: ``finite`` (at most
  ``DISCRETE_ROWS`` = 1000 distinct output rows), ``scalar`` (one continuous column) or
  ``vector`` (several columns, not finite);
* its *cost* c, the marginal seconds per output per side of one distinguishing test,
  measured as (t(2·10⁵) − t(5·10⁴)) / 1.5·10⁵ on its first input pair
  (:func:`calibrate`; at least t(2·10⁵)/1.6·10⁶ so that timer noise cannot make it 0),
  the median of five such timings.  ``--seeds`` measures every cost once, before the first
  audit, and keeps them in ``docs/power_table_costs.json``: the tables with and without
  input pairs and all ten seeds then use the same sizes (``--recalibrate`` re-measures).

Then, with a budget of B = 30 s per audit (``--budget``):

* **pairs tested** k = 1 for finite and scalar outputs (the pilot's discrete score and
  cross-fitted threshold score rank those pairs), k = 2 for vector outputs; the robust
  pair choice (``AuditConfig.pair_tolerance`` = 0.15, ``privaudit/auditing/choice/halving.py``,
  the default at certificate strength) adds up to k near ties of the halving, which
  share a quarter of the test's α, and with k = 2 gives the last kept slot to the
  generator's prior pair, the most balanced split pair, when the halving did not keep it;
* **test split** N = the largest of 1, 2, 5·10^j with (k + 1)·N·c ≤ B — the pilot,
  halving, search split and noise-law check together cost about one more tested pair —
  clamped to [10⁶, 10⁸];
* **search split** min(N/4, 8·10⁶); **pilot** 2·10⁴ outputs per side; **pair budget**
  24 (with input pairs, DP-Sniper's eleven and thirteen generated ones; without, the
  generated ones: the sign patterns of ``spec.relations.QueryDistance.extreme_neighbours``
  around 0, its three ``split_pairs`` and the patterns around the extremes); noise-law
  check on min(N, 10⁶) outputs.

A case may depart from the rule only through :data:`OVERRIDES` (both tables) or
:data:`NO_PAIRS_OVERRIDES` (the table without input pairs), whose reason the table
prints in its "sizing" column.  Every audit runs on the ``processes`` executor
(:data:`EXECUTOR`): the chosen pairs, and the pilot tests of the local search's start
pairs and of the halving, run in forked processes, one per core (two here), with the
serial results to the bit, so an audit uses both cores.  The cost is measured on the
machine that runs the script, so a loaded machine gets smaller N: the table prints the
N each audit used.

Usage::

    python scripts/power_table.py                 # seed 0 alone; writes its section of
                                                  # docs/power_table.md
    python scripts/power_table.py --only SparseVectorTechnique3,Rappor --no-write
    python scripts/power_table.py --scale 0.1     # quick run (sample sizes × 0.1)
    python scripts/power_table.py --no-pairs      # no input_pairs: the auditor's own
                                                  # generators and search only; writes
                                                  # its section of docs/power_table.md
    python scripts/power_table.py --seeds 0-9     # min / median / max of ε_lb over ten
    python scripts/power_table.py --seeds 0-9 --no-pairs   # seeds, with the single-event
                                                  # ceiling at our N and the N reaching
                                                  # DP-Sniper's LR where it is impossible
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import platform
import re
import sys
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

ROOT_DIR = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT_DIR) not in sys.path:  # run from a checkout: use its packages
    sys.path.insert(0, str(ROOT_DIR))

from privaudit import audit
from privaudit.auditing import PAIR_TOLERANCE, verified_pair
from privaudit.auditing.distinguish import DISCRETE_ROWS, distinguish_pair, draw_pair_test
from privaudit.suites import BenchmarkCase, dpsniper_cases

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "power_table.md"


M = 1_000_000
#: Where the audits run: the ``processes`` executor tests the chosen pairs in forked
#: processes, one per core, with the serial results to the bit
#: (:mod:`privaudit.execution.forked`), so an audit uses every core.
EXECUTOR = "processes"
#: Seconds one audit may take on two cores under the rule (the pilot, halving, search
#: split and noise-law check count as one more tested pair).
BUDGET = 30.0
#: Test outputs per side: at least 10⁶ (below, no DP-Sniper value is reachable) and at
#: most 10⁸ (the table's memory and the pilot's halving at N/64 per round).
MIN_N, MAX_N = M, 100 * M
#: Search split: N/4, at most 8·10⁶ (enough for the rare best events of the sparse vectors).
SEARCH_MAX = 8 * M
#: Pilot outputs per side (doubled in the pair search) and candidate pairs generated
#: (DP-Sniper's eleven join 13 generated ones; without input pairs, 24 generated ones
#: include every sign pattern of ``spec.relations.QueryDistance.extreme_neighbours``).
PILOT, PAIR_BUDGET = 20_000, 24
#: Outputs per side of the smaller calibration test that measures a mechanism's cost, and
#: the repeats whose median is the cost (one timing varies by up to 3× on a shared machine).
CALIBRATION = 50_000
CALIBRATION_REPEATS = 5
#: Where the measured costs are kept, so that the tables with and without input pairs, and
#: every seed, use the same sizes (``--recalibrate`` measures them again).
COSTS = ROOT / "docs" / "power_table_costs.json"
#: Outputs of the noise-law conformance check (its α share does not depend on it; at
#: 10⁷ outputs of a 20-column law it alone would take half a minute).
CONFORMANCE = M


@dataclass(frozen=True)
class Size:
    """Sample sizes of one audit (outputs per side), and why they differ from the rule."""

    samples: int
    search: int
    pilot: int = PILOT
    pairs_tested: int = 1
    pair_budget: int = PAIR_BUDGET
    kind: str = ""
    reason: str = "rule"


def _override(
    samples: int, search: int, rule: int, seconds: int | None, why: str
) -> tuple[dict[str, int], str]:
    """An entry of :data:`OVERRIDES`: the sizes and the "sizing" cell (``seconds``: the
    slowest audit measured when the override was chosen; ``None``: the table's own
    "slowest audit" column, under the 60 s limit)."""
    audits = "audits under 60 s" if seconds is None else f"audits ≤ {seconds} s"
    if search == min(SEARCH_MAX, samples // 4):
        return {"samples": samples, "search": search}, (
            f"override: {samples // M}M, not the rule's {rule // M}M ({audits} at "
            f"{samples // M}M; {why})"
        )
    return {"samples": samples, "search": search}, (
        f"override: {samples / M:g}M + {search / M:g}M search, not the rule's "
        f"{rule / M:g}M + {rule / 4 / M:g}M ({audits}; {why})"
    )


#: Per-mechanism departures from :func:`sizing_rule`, each with the reason shown in the
#: table's "sizing" column.  One reason for all of them: the rule's time model,
#: (k + 1)·N·c, over-counts some audits (most of all on the :data:`EXECUTOR`, which tests
#: the kept pairs at once), so a mechanism whose ten-seed minimum stayed below DP-Sniper's
#: LR value at the rule's N gets a larger N — the step of the grid at which its ten-seed
#: floor reaches LR (:func:`ten_seed_floor_table`), or the next step when the search split
#: is what failed — when its whole audits there stay under the 60 s limit at seeds 0–9,
#: in both tables:
#:
#: * SparseVectorTechnique3 and NumericalSVT, 2·10⁶ → 5·10⁶ (at most 22 and 25 s at 2·10⁶;
#:   51 and 50 s at 5·10⁶ at their first run, 44.5 and 56.7 s on the two rankings of
#:   the event pool);
#: * SparseVectorTechnique1, 2·10⁷ → 5·10⁷ (at most 22.7 s at 2·10⁷; 46 s at
#:   5·10⁷), the N at which its ten-seed floor reaches LR.
#:
#: NumericalSVT's search split is N/2 = 2.5·10⁶ instead of N/4: its optimal event is
#: common but weak (2.65 % against 2.49 % of the outputs), and at N/4 the search split
#: finds it at some seeds only (minimum 0.0298 < LR 0.034 over seeds 0–9; 0.0353 and
#: 0.0345 at N/2).  Its audits test two to four pairs and take up to 53 s on the
#: ``processes`` executor (:data:`EXECUTOR`; 85 s serially beside the other table).
#:
#: ReportNoisyMax3, SparseVectorTechnique2 and SparseVectorTechnique4 were at their noise
#: floor: their floors reach LR at 2·10⁸, 5·10⁷ and 10⁸, where the :data:`EXECUTOR` runs
#: their audits in at most 42 (30 in an earlier run), 53 and 43 s.  SparseVectorTechnique2
#: gets 10⁸, not 5·10⁷: there its floor only equals LR, and its weakest seed read 0.08585
#: < LR 0.0859.
#: ReportNoisyMax3 gets 4·10⁸, twice the N of its floor: at 2·10⁸ its floor (0.2481)
#: cleared LR by less than the α its near-tie pair takes, and its weakest seed without
#: pairs read 0.2477; at 3·10⁸ its weakest seed (3) reads 0.2477 again.  Its audits at
#: 4·10⁸ took 47–67 s before noisy max reduced its noise in one compiled pass, at most
#: 39.9 s since (``docs/power_table.md``); 5·10⁸ took up to 60.7 s.
#: ReportNoisyMax1 gets the next step, 10⁸: with input pairs its minimum at 5·10⁷ read
#: 0.0920 < LR 0.0923, below its floor of 0.0932 (its events, not its N, fell short).
#:
#: SVT34Parallel at 5·10⁶ + 2.5·10⁶ (NumericalSVT's sizes) reaches LR at every seed
#: without pairs (minimum 0.2635), where its audits now take at most 58 s
#: (:data:`NO_PAIRS_OVERRIDES`); with DP-Sniper's pairs they test more pairs and take
#: longer, so that table keeps the rule's sizes.
OVERRIDES: dict[str, tuple[dict[str, int], str]] = {
    name: _override(samples, search, rule, seconds, why)
    for name, samples, search, rule, seconds, why in (
        (
            "SparseVectorTechnique1",
            50 * M,
            SEARCH_MAX,
            20 * M,
            46,
            "its ten-seed floor reaches LR there",
        ),
        (
            "SparseVectorTechnique3",
            5 * M,
            5 * M // 4,
            2 * M,
            51,
            "at 2M the search split misses the rare best events",
        ),
        (
            "NumericalSVT",
            5 * M,
            5 * M // 2,
            2 * M,
            53,
            "its best event is common but weak: a search split of N/4 misses it at some "
            "seeds, N/2 at none of ten",
        ),
        (
            "ReportNoisyMax1",
            100 * M,
            SEARCH_MAX,
            50 * M,
            26,
            "with pairs its minimum at 50M, 0.0920, was below LR and its floor, 0.0932: "
            "the events found are slightly noisier than the optimal one",
        ),
        (
            "ReportNoisyMax3",
            400 * M,
            SEARCH_MAX,
            100 * M,
            None,
            "at 200M its floor, 0.2481, cleared LR by less than the α its near-tie pair "
            "takes, and its weakest seed read 0.2477",
        ),
        (
            "SparseVectorTechnique2",
            100 * M,
            SEARCH_MAX,
            20 * M,
            53,
            "its ten-seed floor only equals LR at 50M",
        ),
        (
            "SparseVectorTechnique4",
            100 * M,
            SEARCH_MAX,
            20 * M,
            43,
            "its ten-seed floor reaches LR at 100M",
        ),
    )
}

#: Departures from the rule in the table without input pairs only (what a user gets),
#: each with its reason: where the sizes that reach LR at every seed without pairs fit
#: the 60 s limit there, but not with DP-Sniper's pairs, whose larger pool makes the
#: audit test more pairs (the table with pairs keeps the rule's sizes).
NO_PAIRS_OVERRIDES: dict[str, tuple[dict[str, int], str]] = {
    "SVT34Parallel": _override(
        5 * M,
        5 * M // 2,
        2 * M,
        None,
        "without input pairs only: its rare best event needs a search split of N/2 at "
        "5M to be found at every seed; with pairs its audits test up to 4 pairs, over "
        "60 s there",
    ),
}


def _grid_floor(value: float) -> int:
    """The largest of 1, 2, 5 · 10^k not above ``value`` (at least 1)."""
    value *= 1 + 1e-9  # 30 / (3 · 2·10⁻⁶) is 4999999.999…: round-off is not a step down
    if value < 1:
        return 1
    power = 10 ** int(math.floor(math.log10(value)))
    if power > value:  # log10 rounded up
        power //= 10
    return max(step * power for step in (1, 2, 5) if step * power <= value)


def output_kind(outputs: np.ndarray) -> tuple[str, int]:
    """``("finite", d)`` for at most ``DISCRETE_ROWS`` distinct output rows, ``("scalar", 1)``
    for one continuous column, ``("vector", d)`` otherwise (d output columns)."""
    rows = np.asarray(outputs).reshape(np.shape(outputs)[0], -1)
    distinct = np.unique(rows, axis=0).shape[0]
    if distinct <= DISCRETE_ROWS:
        return "finite", rows.shape[1]
    return ("scalar", 1) if rows.shape[1] == 1 else ("vector", rows.shape[1])


def calibrate(case: BenchmarkCase, seed: int = 0) -> tuple[str, float]:
    """The output kind and the marginal cost (seconds per output per side) of a
    distinguishing test on the case's first input pair: the time of a test on
    4·``CALIBRATION`` outputs per side less that of one on ``CALIBRATION``, over
    3·``CALIBRATION`` (the difference removes the fixed cost of the event search)."""
    mechanism = case.mechanism
    x, y = case.input_pairs[0]
    rng = np.random.default_rng(seed)
    kind, _ = output_kind(np.asarray(mechanism.sample(x, 20_000, rng)))
    pair = verified_pair(mechanism.spec, x, y, "calibration")
    costs = []
    for _ in range(CALIBRATION_REPEATS):
        times = []
        for n in (CALIBRATION, 4 * CALIBRATION):
            started = time.perf_counter()
            draws = draw_pair_test(mechanism, pair, samples=n, search_samples=n // 4, rng=rng)
            distinguish_pair(mechanism, pair, draws, alpha=0.05)
            times.append(time.perf_counter() - started)
        costs.append(max(times[1] - times[0], times[1] / 8) / (3 * CALIBRATION))
    return kind, float(np.median(costs))


def sizing_rule(kind: str, cost: float, budget: float = BUDGET) -> Size:
    """The one sizing rule of the table (see the module docstring)."""
    pairs = 1 if kind in ("finite", "scalar") else 2
    samples = _grid_floor(budget / ((pairs + 1) * max(cost, 1e-12)))
    samples = min(MAX_N, max(MIN_N, samples))
    search = min(SEARCH_MAX, samples // 4)
    return Size(samples, search, PILOT, pairs_tested=pairs, pair_budget=PAIR_BUDGET, kind=kind)


_CALIBRATED: dict[str, tuple[str, float]] = {}


def load_costs(path: pathlib.Path, cases: list[BenchmarkCase], recalibrate: bool) -> None:
    """Fill the calibration cache from ``path`` (its machine's costs), measuring and
    recording every case it lacks (all of them with ``recalibrate``)."""
    import json

    record: dict[str, Any] = {}
    if path.exists() and not recalibrate:
        record = json.loads(path.read_text(encoding="utf-8"))
    costs = record.get("costs", {})
    measured = False
    for case in cases:
        short = case.name.split(".", 1)[1]
        if short in costs:
            _CALIBRATED[short] = (costs[short]["kind"], float(costs[short]["seconds"]))
            continue
        _CALIBRATED[short] = calibrate(case)
        costs[short] = {"kind": _CALIBRATED[short][0], "seconds": _CALIBRATED[short][1]}
        measured = True
    if not measured:
        return  # nothing new: the file stays as it is (runs side by side only read it)
    record = {
        "what": "marginal seconds per output per side of one distinguishing test "
        f"(median of {CALIBRATION_REPEATS} timings; scripts/power_table.py calibrate)",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {np.__version__}",
        "costs": costs,
    }
    # written whole then renamed, so that a run reading it meanwhile never sees half of it
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, path)


def size_for(case: BenchmarkCase, *, with_pairs: bool = True, budget: float = BUDGET) -> Size:
    """The sizes of one case's audit: :func:`sizing_rule` of its calibrated cost and output
    kind, then its entry of :data:`OVERRIDES` if any (the same with and without pairs),
    or of :data:`NO_PAIRS_OVERRIDES` without pairs."""
    short = case.name.split(".", 1)[1]
    if short not in _CALIBRATED:
        _CALIBRATED[short] = calibrate(case)
    size = sizing_rule(*_CALIBRATED[short], budget=budget)
    override = OVERRIDES.get(short) or (None if with_pairs else NO_PAIRS_OVERRIDES.get(short))
    if override is not None:
        fields, reason = override
        size = replace(size, reason=reason, **fields)
    return size


NOTES = """
## Reading the tables

* **ε_lb min / median / max** over seeds 0–9 of the audit's 95 %-confidence bound; **min ≥
  LR** compares the minimum with DP-Sniper's logistic-regression value (a 90 %-confidence
  bound from 2·10⁸ final samples).  **verdicts** lists every verdict met over the seeds:
  the correct mechanisms (true ε ≤ 0.1) must read "no_violation", and a "violation" of a
  correct one is a false alarm, which the audit allows with probability ≤ 5 % per seed.
* **single-event ceiling at our N**: for the mechanisms whose output law is exactly
  computable (`scripts/power_limits.py`), the best expected bound of *any* single
  event — the optimal likelihood-ratio event on the best pair computed there, at our N
  per side, the whole α = 0.05 on that one event, counts at their expectations.
  "reachable" means that this ceiling is at least DP-Sniper's LR value, so a miss is
  the audit's choice of pair or event, not the sample size; "impossible at our N"
  names the N that would reach it.  "law not computed": outputs with continuous values
  whose law we did not integrate.
* **pairs tested**: the range over the seeds (the robust pair choice adds near ties of
  the halving, up to twice the rule's count).
* **ten-seed floor** (the table after these notes): the ceiling is an expected value, and
  the minimum of ten seeds falls below it by about 1.54 standard deviations of the bound,
  even for an auditor that always tests the optimal event.  Where that floor is below
  LR, "min ≥ LR" at ten seeds is a matter of luck at our N; the table gives the N that
  lifts the floor to LR.

## What the ten seeds show

The minimum over seeds 0–9 reaches DP-Sniper's LR value on **20 of 20 mechanisms
without input pairs**, every audit under 60 s on 2 cores (slowest 58.1 s), and on 18 of
20 with them (13 and 12 at the rule's sizes alone; 18 and 18 before the two changes of
the last run, below).  With DP-Sniper's pairs:
- SparseVectorTechnique2 misses at one seed (0.0856 against LR 0.0859, a ceiling of
  0.0952 at its N): the pair or events its audit chose there fell short;
- SVT34Parallel keeps the rule's 2·10⁶ + 5·10⁵, where its minimum is 0.2101: its
  override (5·10⁶ + 2.5·10⁶) is for the table without pairs only (below).

The last run changed two rows, with audits made cheaper by the same reports to the bit
("An audit used one core", below): ReportNoisyMax3 at 4·10⁸ in both tables and
SVT34Parallel at 5·10⁶ + 2.5·10⁶ without pairs.

**Seven overrides of the rule, and one without pairs only** (`OVERRIDES` and
`NO_PAIRS_OVERRIDES` in the script; each row's "sizing" column gives its reason).  The
rule's time model, (k + 1)·N·c, counts the tested pairs one after another, and
over-counts some audits even so: at the rule's N, SparseVectorTechnique3 and
NumericalSVT took at most 22 and 25 s, and SparseVectorTechnique1 22.7 s, against a
limit of 60 s.  On the `processes` executor the
kept pairs are tested at once.  A mechanism whose minimum stayed below LR gets the step
of the 1-2-5 grid at which its ten-seed floor reaches LR ("Ten-seed floors", below), or
the next step when its events rather than its N fell short, when its whole audits there
stay under the limit at every seed of both tables.  Each table's paragraph names the
rows re-run alone with `--only`; the others are from the whole runs on the current code
(the two rankings of the event pool, below).
- SparseVectorTechnique3 at 5·10⁶: minimum 0.140 → 0.1982 without pairs and 0.144 →
  0.1979 with them at the override's first run (LR 0.1716); 0.1842 and 0.1964 now.
- NumericalSVT at 5·10⁶: minimum 0.0068 → 0.0337 without pairs and 0.0129 → 0.0316
  with them at the override's first run, against LR 0.034; 0.0298 and 0.0311 on the two
  rankings (medians 0.037 and 0.039).  With a search split of N/2 = 2.5·10⁶ instead of
  N/4 (its optimal event is common but weak, below): **0.0353 and 0.0345** (medians
  0.041 and 0.040), at every seed of both tables.  Its audits test two to four pairs
  and took up to 85 s serially beside the other table; on the `processes` executor
  (the pair tests in two forked processes, the same bounds to the bit) at most 49.4 and
  53.0 s, one table at a time.
- SparseVectorTechnique1 at 5·10⁷: minimum 0.0831 → 0.0912 without pairs and 0.0806 →
  0.0877 with them (LR 0.0858; its ten-seed floor reaches LR at 5·10⁷); 0.0912 and
  0.0874 now.
- SparseVectorTechnique2 at 10⁸: minimum 0.0833 → **0.0869** without pairs and 0.0821 →
  0.0856 with them (LR 0.0859; 0.0863 at its next weakest seed), audits at most 52.8
  and 52.0 s.  At 5·10⁷, where its floor only equals LR, its two weakest seeds without
  pairs read 0.08585 and 0.0863.
- SparseVectorTechnique4 at 10⁸: 0.1623 → **0.1708** and 0.1655 → **0.1701** (LR
  0.1687), at most 39.3 and 42.4 s.
- ReportNoisyMax1 at 10⁸: 0.0927 → **0.0935** and 0.0920 → **0.0924** (LR 0.0923), at
  most 23.8 and 25.4 s.  At 5·10⁷ its floor, 0.0932, was above LR already: with pairs
  the events it found fell short (at seed 7, 0.0920 at 5·10⁷, 0.0924 at 10⁸ and
  0.0925 at 2·10⁸).
- ReportNoisyMax3 at **4·10⁸** (above the rule's cap of 10⁸): **0.2481** without pairs
  (median 0.249) and **0.2487** with them, audits at most 39.9 and 33.7 s.
  Its audits test two pairs, a near tie of the halving, which takes a quarter of α.  At
  2·10⁸ (its override until this run; 731 MB resident) its floor, 0.2481, cleared LR by
  less than that α, and its weakest seed without pairs read 0.2477 (0.2478 with pairs).
  4·10⁸ had reached LR at every seed of both tables before, in two runs of 47.2–51.9 s
  and 52.9–67.0 s on a slower day (drawing 4·10⁹ Laplace variates per side and pair is
  most of the time); noisy max now reduces its noise in one compiled pass (below), and
  its audit at seed 3 took 38.2 → 31.9 s side by side.  At 5·10⁸ (measured before) its
  minima were 0.2486 and 0.2487, but one audit took 60.7 s.
- SVT34Parallel at **5·10⁶ + 2.5·10⁶ without input pairs** (NumericalSVT's sizes; the
  table with pairs keeps the rule's): minimum **0.2635**, median 0.2822, maximum 0.3084
  (LR 0.261), audits 37.9–58.1 s (seed 8, three pairs, the slowest; 44.7–79.7 s when it
  was first measured).  Its rare best event needs the search split of N/2 at 5·10⁶:
  seed 8 reads 0.2565 with 5·10⁶ + 2·10⁶ and 0.2594 with 4·10⁶ + 2.5·10⁶ (below LR),
  and with the rule's N/4 seeds 1 and 3 read 0.237 and 0.250 at 3·10⁶, seed 1 0.2591
  at 5·10⁶.  With DP-Sniper's pairs the same sizes took
  66.2, 53.1 and 54.6 s at seeds 0–2 (three pairs tested at seed 0), over the limit.

**The prior pair** (the change before these overrides, `pair_choice.PRIOR_ORIGIN`,
`docs/derivations.md` §9): the balanced split pair (1⁵0⁵, 0⁵1⁵) takes the second kept
slot when the halving keeps neither it nor its swap.  The halving cannot rank these
pairs by itself: its first rounds, at 4·10⁴ outputs per side, score the rare events of
the sparse vectors' strongest pairs 0 (`scripts/halving_visibility.py`; Spearman ρ
−0.11 between first-round scores and final bounds on SVT34Parallel's pool at seed 2).
It lifted SVT34Parallel without pairs from 0.046 to 0.192 (all ten seeds find the
violation) and SparseVectorTechnique6 from 0.194 to 0.325 (LR 0.272).

**Two rankings of the event pool** (`privaudit/auditing/distinguish/event_ranking.py`,
`docs/derivations.md` §9).  The pool of candidate events of a pair was ranked by
one-standard-error estimates, and its luckiest tiny tails (8 outputs against 0 on the
search split) could take all sixteen places: on NumericalSVT's best pair alone, at
seed 1, the test read 0.  A multi-dimensional output's pool now adds up to K candidates
ranked at two standard errors to its 2K at one.  On that pair alone, seeds 0–9 read
0.030–0.051 (median 0.036) instead of 0–0.038 (median 0.034).  In these tables it
changes little: the
minima of the rows it touches move within their seed-to-seed spread (NumericalSVT 0.0337
→ 0.0298 without pairs and 0.0316 → 0.0311 with them; SparseVectorTechnique3 0.1982 →
0.1842 and 0.1979 → 0.1964; SVT34Parallel 0.1915 → 0.1915 and 0.1915 → 0.2101), and the
counts stay 15 and 14 of 20.  The full audit tests two or more pairs, so one pair's
failed search rarely decided its bound.

**At the noise floor.**  A minimum over ten seeds is not the expected bound.  Even an
auditor that always tested the optimal event would read about its single-event ceiling
minus 1.54 standard deviations of the bound at its smallest of ten seeds.  The table
"Ten-seed floors" below gives that floor at our N and the N at which it reaches LR.  At
the rule's N, ReportNoisyMax3 (floor 0.2473 at 10⁸), SparseVectorTechnique2 (0.0852 at
2·10⁷) and SparseVectorTechnique4 (0.1644 at 2·10⁷) could not reach LR 0.2478, 0.0859
and 0.1687 but by luck; their overrides (above) lift the floors to LR.  ReportNoisyMax3's
floor at 2·10⁸ cleared LR by less than the α that its second pair takes: it now gets
4·10⁸.

**A ceiling above the true ε found a wrong bound.**  At 4·10⁸ the single-event ceiling
of ReportNoisyMax3 first read 0.4044, above its true ε of 0.25.  The cause was scipy's
`betaincinv` (Boost's `ibeta_inv`, scipy 1.17): for 1000 successes in n ≥ 2·10⁸ trials
it returns a Clopper–Pearson lower bound 1.5–2.3 times the true one (above k/n), and
for 999 successes an upper bound up to 4 % low at n ≥ 3·10⁸, so 1000 against 952 outputs
of 4·10⁸ read ε ≥ 0.40.  `privaudit/statistics/clopper_pearson.py` now checks every
quantile through the forward function and recomputes a wrong one by bisection.  The
ceilings and floors here, and ReportNoisyMax3's rows, were computed after the fix.

**Below its floor: SVT34Parallel at 2·10⁶** (and NumericalSVT at 5·10⁶ until its
search split became N/2).  The halving cannot rank their pairs, and the prior pair only
guarantees that one strong pair is tested.  What fails is the event search on that
pair, not the α split: on the exact laws, the optimal event at an eighth of α still has
a ten-seed floor above LR (0.2635 for SVT34Parallel at 2·10⁶, 0.0471 for NumericalSVT
at 5·10⁶, α = 0.00625).  The two
optimal events are hard to find for different reasons:
- SVT34Parallel's is rare: 0.2–0.4 % of the outputs per side (likelihood ratio about
  e^0.3), some thousands at 2·10⁶ and a quarter of that on the search split.
- NumericalSVT's is common but weak: 2.65 % against 2.49 % of the outputs (likelihood
  ratio e^0.06), the tails of the released values over many code patterns, each of
  whose ratios the search split must estimate.

On the best pair alone (α = 0.025), a larger search split helps both:
- SVT34Parallel at 2·10⁶ reads 0.177–0.250 (seeds 0–5) with the rule's search split of
  5·10⁵, and 0.229–0.287 with 2·10⁶;
- NumericalSVT at 5·10⁶ reads 0.030–0.051 (seeds 0–9) with the search split of
  1.25·10⁶.  Before the two rankings it read 0.032, 0, 0.032, 0.033, 0.020 at seeds 0,
  1, 2, 5, 7, and 0.047, 0.040, 0.036, 0.042, 0.051 there with a search split of 5·10⁶.
  At 2·10⁶ test outputs with 5·10⁶ search outputs it reads 0.031–0.041 (seeds 0–4), in
  30 s for the pair alone.  The whole audit at 5·10⁶ + 2.5·10⁶ reaches LR at every
  seed (above).

**An audit used one core**: its CPU time equalled its wall time (SVT34Parallel at
2·10⁶, seed 1: 19.2 s of each), and the threads executor draws and counts only the
streamed test splits on both cores (18.3 s).  The pair tests draw from one random stream
in turn, so they could not run at once without changing every audit's numbers.  The
`processes` executor (`privaudit/execution/forked.py`) now draws each pair test's
randomness in the audit's process, in turn (`distinguish.draw_pair_test`), and
runs the rest of the test in a forked child: the same report to the bit, in 15.3 s
instead of 18.5 s on that audit and 44.9 s instead of 64.8 s on NumericalSVT's at
5·10⁶ + 2.5·10⁶ with three pairs.  The halving's pilot tests now run there too (79.7 →
66.6 s on SVT34Parallel at 5·10⁶ + 2.5·10⁶, seed 8; the tables' times are from before),
and so do the pilot tests of the local search's start pairs; its climbs stay serial.
SVT34Parallel needs more than that: its search split at N/2 finds its rare event at
every seed, but its audit at seed 8 takes 79–83 s.  Three changes cut about a tenth,
with the same reports to the bit: the events that share a pattern score are counted in
one pass (`events.fill_feature_cache`; the test split's counting 7.3 → 4.1 s per pair
test, the search-split estimates that choose each event's bound 4.9 → 2.6 s), the start
pairs' pilots are forked, and a freed worker takes the next task whichever child ended.
The same audit took 88–94 s before them (four runs each, on a slow day: the machine
drew exponential variates at 4.9–5.0 ns, against 4.0 ns at its fastest), and
NumericalSVT's at 5·10⁶ + 2.5·10⁶, seed 0, 38.6–39.7 → 35.2–35.8 s.  A fourth change
fits the pattern score from the cell fit's columns instead of a copy of the rows
(2.3–3.3 → 0.7 s on 1.25·10⁶ rows per side; that pair test's selection 19.1 →
16.9 s): the seed-8 audit then took 73.8 and 76.9 s.  Its timeline (80 s, before the
fourth change):
the start pairs' pilots 3 s, the climbs 12 s (serial), the halving 14 s, then the three
pair tests 49 s — 35 and 31 s for the first two, at once, and 11 s for the third, which
waits for a free core — with the search splits drawn in the audit's process between
them (3–6 s each).  The audit costs 130–140 CPU-seconds, so two cores cannot bring it
under 60 s.  27–33 of them are in the kernel, zeroing fresh pages (`perf`: huge-page
faults take a fifth of all samples, and a third of those of the audit's own process,
which draws 1.2 GB of search split per pair).  On this machine a page touched for the
first time costs 2.3–2.5 s per GB, a page touched again 0.13–0.17 s, and memory that
earlier runs used and freed was cold again (all of 19 GB, allocated after this stop's
audits).  Keeping freed memory in the process (glibc's `mallopt`, in the children only
or everywhere) did not help the whole audit (75.6–78.5 s), though it took one pair
test alone from 30 to 21 s.  What would help is a smaller footprint: the search split
is 2.5·10⁶ rows of 30 float64 per side, 20 of its columns small-integer codes.  That,
ReportNoisyMax3 at its floor and SparseVectorTechnique2's pair choice with input pairs
were what was left of issue 31.  Four more changes, with the same reports to the bit
(40 audits of DP-Sniper's cases at scale 0.02, seed 3, serial and on the `processes`
executor), brought the seed-8 audit under 60 s:
- a compiled (numba) coder of float64 columns: one pass per value instead of four to
  six NumPy passes, 32.7 → 15.5 ms on a 2.5·10⁶-value column with one atom and tail
  bins (`benchmarks/test_bench_column_coding.py`), loaded in the audit's process before
  the first fork (each of the dozens of pilot children loaded it again: 0.15–0.25 s);
- the digits of small-integer code columns read in one compiled pass too (1.83 → 0.83
  ms for 20 columns of 2¹⁵ rows);
- on the `processes` executor the pair tests run one beyond the workers
  (`ForkedPairsExecutor(extra_pair_tests=1)`): the third test no longer waits for a
  free core and then runs alone at the end;
- report noisy max with Laplace noise reduces its noise in one compiled pass (signs,
  scale, answers, maximum): 10⁶ outputs of ReportNoisyMax3 in 33.9 → 29.1 ms, of
  ReportNoisyMax1 in 57.5 → 41.9 ms (`benchmarks/test_bench_dpsniper_samplers.py`).
Side by side on one machine state, SVT34Parallel's seed-8 audit took 62.5 and 64.1 s
before and 57.8 and 57.6 s after; in the table's run, 58.1 s.  That stays close to the
limit: on a slow day (exponential draws at 4.9–5.0 ns instead of 4.3 ns) the same audit
may take over 60 s.

The correct mechanisms stay sound.  Of the 160 audits of mechanisms with true ε ≤ 0.1
(8 mechanisms, 10 seeds, 2 tables), 3 report a violation:
- LaplaceMechanism at one seed in each table, and NoisyHist1 with pairs at one seed;
- their bounds come within 10⁻⁴ of the claim at 10⁸ and 2·10⁷ outputs per side;
- that is 1.9 %, within the ≤ 5 % per audit that a 95 % test allows.

The soundness run (`docs/delta_audits.md`) measures the rate on 604 audits, re-run on
the two rankings.  The slowest audit took 57.4 s.  The tables shared the 2 cores with
each other for most of their run, beside the soundness run and a CI run at nice 19.

* **Rappor, OneTimeRappor**: DP-Sniper tests its own pairs, whose Bloom filters differ
  in 6 bits (ε = 0.30 and 0.60 on them); the audit's pair search also tries generated
  pairs and finds ones differing in 8 bits (ε = 0.40 and 0.80).
* **NumericalSVT: the pilot cannot rank its pairs** (measured before this table).  The
  exact single-event ceilings at 4·10⁶ of the 17 pairs its pilot considers range from
  0.0205 (the pairs that move one query) to 0.0555 ((1⁵0⁵, 0⁵1⁵) and (1¹⁰, (2⁵, 0⁵)));
  pilot scores on 6.25·10⁴ to 10⁶ outputs per side — the halving's coarse-code score, a
  cross-fitted score, a small distinguishing test, each with and without common random
  numbers across pairs — have rank correlations between −0.2 and 0.3 with these
  ceilings (4 seeds each; `scripts/_svt_value_laws.py` gives the laws), so the
  halving's choice is a lottery.

Ceilings of single-event tests on the computed laws (`python scripts/power_limits.py`;
the optimal event of each pair, expected counts, the whole α = 0.05 on that event):

"""


def _fmt(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "n/a"
    if math.isinf(value):
        return "∞"
    return f"{value:.{digits}g}"


def parse_seeds(text: str) -> list[int]:
    """``"0-9"`` → 0 … 9, ``"0,3,5"`` → 0, 3, 5 (ranges and single seeds, comma-separated)."""
    seeds: list[int] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        low, _, high = part.partition("-")
        seeds.extend(range(int(low), int(high or low) + 1))
    if not seeds:
        raise SystemExit(f"--seeds {text!r} names no seed")
    return seeds


def run_case(
    case: BenchmarkCase,
    size: Size,
    scale: float,
    *,
    with_pairs: bool = True,
    seed: int = 0,
    scale_pilot: bool = True,
    pair_tolerance: float = PAIR_TOLERANCE,
) -> dict[str, object]:
    """Audit one case (with its ``input_pairs`` or, ``with_pairs=False``, none: only the
    auditor's own pair generators and search) at ``seed``; returns the row of the table.
    ``scale`` multiplies the test and search splits (and the pilot, unless
    ``scale_pilot=False``)."""
    short = case.name.split(".", 1)[1]
    samples = max(10_000, int(size.samples * scale))
    search = max(5_000, int(size.search * scale))
    pilot = max(2_000, int(size.pilot * min(1.0, 4 * scale))) if scale_pilot else size.pilot
    samples, search = max(samples, pilot), max(search, pilot // 4)
    started = time.perf_counter()
    report = audit(
        case.mechanism,
        pairs=case.input_pairs if with_pairs else (),
        samples=samples,
        search_samples=search,
        pilot_samples=pilot,
        pairs_tested=size.pairs_tested,
        pair_budget=size.pair_budget,
        conformance_samples=min(samples, CONFORMANCE),
        seed=seed,
        confidence=0.95,
        pair_tolerance=pair_tolerance,
        executor=EXECUTOR,
    )
    runtime = time.perf_counter() - started
    refs = case.reference_results
    eps = float(report.epsilon_lower_bound)
    lr = refs.get("dpsniper_lr")
    return {
        "mechanism": short,
        "true": case.true_epsilon,
        "ours": eps,
        "lr": lr,
        "mlp": refs.get("dpsniper_mlp"),
        "statdp": refs.get("statdp"),
        "runtime": runtime,
        "verdict": report.verdict,
        "samples": samples,
        "search": search,
        "pilot": pilot,
        "pairs_tested": size.pairs_tested,
        "pair_budget": size.pair_budget,
        "kind": size.kind,
        "reason": size.reason,
        "beats_lr": lr is not None and eps >= lr,
        "tested": report.check("distinguishability").details["pairs_tested"],
        "event": report.worst_event.description if report.worst_event is not None else "",
    }


def reachability(row: dict[str, Any]) -> str:
    """For a row below DP-Sniper's LR value: can one event reach it at our N?"""
    if row["beats_lr"] or row["lr"] is None:
        return ""
    sys.path.insert(0, str(ROOT / "scripts"))
    from power_limits import best_single_event

    best = best_single_event(str(row["mechanism"]), int(row["samples"]))
    if best is None:
        return "law not computed"
    verdict = "yes" if best >= float(row["lr"]) else "no"
    return f"{verdict} (best single event: {best:.4g})"


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table."""
    head = (
        "| mechanism | true ε | our ε_lb | DP-Sniper LR | DP-Sniper MLP | StatDP* | "
        "runtime (s) | verdict | ≥ LR | LR reachable by one event at our N? | "
        "pairs tested | N per side (test + search) |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for r in rows:
        lines.append(
            f"| {r['mechanism']} | {_fmt(r['true'])} | {_fmt(r['ours'])} | "
            f"{_fmt(r['lr'])} | {_fmt(r['mlp'])} | {_fmt(r['statdp'])} | "
            f"{float(r['runtime']):.1f} | {r['verdict']} | "
            f"{'yes' if r['beats_lr'] else 'no'} | {reachability(r)} | {r['tested']} | "
            f"{int(r['samples']) / 1e6:g}M + {int(r['search']) / 1e6:g}M |"
        )
    return head + "\n".join(lines) + "\n"


def _law_bounds(name: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The exact output laws computed for ``name`` in ``scripts/power_limits.py``."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from power_limits import computable_laws

    return [law() for who, _what, law in computable_laws() if who == name]


def ceiling_and_needed(
    name: str, samples: int, target: float | None
) -> tuple[float | None, int | None]:
    """The single-event ceiling at ``samples`` per side (whole α = 0.05 on the optimal event
    of the best computed pair; ``None`` when the law is not computed) and, when it is below
    ``target``, the smallest N of the 1-2-5 grid up to 10¹¹ whose ceiling reaches it."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from power_limits import best_bound

    laws = _law_bounds(name)
    if not laws:
        return None, None

    def ceiling(n: int) -> float:
        return max(best_bound(p_x, p_y, n) for p_x, p_y in laws)

    at_n = ceiling(samples)
    if target is None or at_n >= target:
        return at_n, None
    return at_n, _first_grid_n(samples, lambda n: ceiling(n) >= target)


def _first_grid_n(start: int, reaches: Callable[[int], bool]) -> int | None:
    """The smallest N of the 1-2-5 grid above ``start``, up to 10¹¹, with ``reaches(N)``
    (``None`` when there is none)."""
    n = start
    while n < 10**11:
        n = _grid_floor(n * 2.5) if str(n)[0] == "2" else _grid_floor(n * 2)
        if reaches(n):
            return n
    return None


def _best_floor(laws: list[tuple[np.ndarray, np.ndarray]], n: int) -> tuple[float, float]:
    """(ten-seed floor, σ) of the computed pair with the highest floor at ``n``."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from power_limits import ten_seed_floor

    return max(ten_seed_floor(p_x, p_y, n) for p_x, p_y in laws)


def ten_seed_floor_table(budget: float = BUDGET, only: Collection[str] = ()) -> str:
    """For the mechanisms whose law is computed: at the tables' N (:func:`size_for`: the
    rule's from the stored costs, or the override's), the single-event ceiling, the
    standard deviation of its bound, the expected minimum over ten seeds
    (:func:`power_limits.ten_seed_floor`), and the smallest N of the 1-2-5 grid whose
    ten-seed floor reaches DP-Sniper's LR value.  ``only``: these mechanisms (default:
    every one)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from power_limits import TEN_SEED_MINIMUM

    cases = dpsniper_cases()
    load_costs(COSTS, cases, False)
    lines = [
        "| mechanism | N per side | ceiling | σ of the bound | ten-seed floor | DP-Sniper LR | "
        "N whose floor reaches LR |",
        "|---|---|---|---|---|---|---|",
    ]
    for case in cases:
        name = case.name.split(".", 1)[1]
        if only and name not in only:
            continue
        laws = _law_bounds(name)
        reference = case.reference_results.get("dpsniper_lr")
        if not laws or reference is None:
            continue
        size = size_for(case, with_pairs=False, budget=budget)
        at_n, sigma = _best_floor(laws, size.samples)
        lr = float(reference)
        ceiling = at_n - TEN_SEED_MINIMUM * sigma
        if at_n >= lr:
            reach = "at our N"
        else:
            needed = _first_grid_n(
                size.samples, lambda n, laws=laws, lr=lr: _best_floor(laws, n)[0] >= lr
            )
            reach = "beyond 10¹¹" if needed is None else f"{needed / 1e6:g}M"
        lines.append(
            f"| {name} | {size.samples / 1e6:g}M | {_fmt(ceiling)} | {sigma:.2g} | "
            f"{_fmt(at_n)} | {_fmt(lr)} | {reach} |"
        )
    return "\n".join(lines) + "\n"


def seeds_row(
    case: BenchmarkCase, seeds: list[int], scale: float, *, with_pairs: bool, budget: float
) -> dict[str, object]:
    """One case audited at every seed: min / median / max of ε_lb, slowest audit, the
    single-event ceiling at our N and, if it is below DP-Sniper's LR value, the N that
    would reach it."""
    size = size_for(case, with_pairs=with_pairs, budget=budget)
    rows = [run_case(case, size, scale, with_pairs=with_pairs, seed=seed) for seed in seeds]
    bounds = [float(r["ours"]) for r in rows]
    for seed, r in zip(seeds, rows, strict=True):
        print(
            f"{r['mechanism']:28s} seed {seed}: ε_lb = {_fmt(r['ours'])} "
            f"(LR {_fmt(r['lr'])}) {float(r['runtime']):5.1f} s  {r['verdict']}",
            file=sys.stderr,
            flush=True,
        )
    first = rows[0]
    lr = first["lr"]
    ceiling, needed = ceiling_and_needed(
        str(first["mechanism"]),
        int(first["samples"]),
        None if lr is None else float(lr),
    )
    return {
        **first,
        "min": min(bounds),
        "median": float(np.median(bounds)),
        "max": max(bounds),
        "slowest": max(float(r["runtime"]) for r in rows),
        "verdicts": sorted({str(r["verdict"]) for r in rows}),
        "tested_range": (
            min(int(r["tested"]) for r in rows),
            max(int(r["tested"]) for r in rows),
        ),
        "beats_lr": lr is not None and min(bounds) >= float(lr),
        "ceiling": ceiling,
        "needed": needed,
    }


def sizing_cell(reason: str) -> str:
    """The short "sizing" cell of a table row: ``rule``, or an override's sizes; the
    override's reason is listed below the tables (:func:`sizing_notes`), so that no cell
    holds a paragraph and the tables fit the page."""
    return reason.split(" (", 1)[0]


def sizing_notes() -> str:
    """The reasons of every size override (:data:`OVERRIDES`, :data:`NO_PAIRS_OVERRIDES`),
    one item each, for the notes below the tables."""
    items = [
        f"* **{name}**{' (without input pairs only)' if table is NO_PAIRS_OVERRIDES else ''}: "
        f"{reason}"
        for table in (OVERRIDES, NO_PAIRS_OVERRIDES)
        for name, (_, reason) in table.items()
    ]
    return (
        'Size overrides (the "sizing" column of the ten-seed tables), with their reasons:\n\n'
        + "\n".join(items)
        + "\n\n"
    )


def _span(bounds: object) -> str:
    assert isinstance(bounds, tuple)
    low, high = bounds
    return f"{low}" if low == high else f"{low}–{high}"


def seeds_table(rows: list[dict[str, object]], seeds: list[int]) -> str:
    """The Markdown table of a multi-seed run."""
    head = (
        f"| mechanism | true ε | ε_lb min | median | max (seeds {seeds[0]}–{seeds[-1]}) | "
        "DP-Sniper LR | DP-Sniper MLP | min ≥ LR | single-event ceiling at our N | "
        "N reaching LR | slowest audit (s) | verdicts | output kind | "
        "N per side (test + search) | pairs tested | sizing |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for r in rows:
        ceiling = r["ceiling"]
        if ceiling is None:
            reach = "law not computed"
        elif r["needed"] is not None:
            reach = f"impossible at our N; {int(r['needed']) / 1e6:g}M"
        elif r["lr"] is not None and float(ceiling) < float(r["lr"]):
            reach = "impossible below 10¹¹"
        else:
            reach = "reachable"
        lines.append(
            f"| {r['mechanism']} | {_fmt(r['true'])} | {_fmt(r['min'])} | "
            f"{_fmt(r['median'])} | {_fmt(r['max'])} | {_fmt(r['lr'])} | "
            f"{_fmt(r['mlp'])} | {'yes' if r['beats_lr'] else 'no'} | "
            f"{_fmt(ceiling)} | {reach} | {float(r['slowest']):.1f} | "
            f"{', '.join(r['verdicts'])} | {r['kind']} | "
            f"{int(r['samples']) / 1e6:g}M + {int(r['search']) / 1e6:g}M | "
            f"{_span(r['tested_range'])} (rule: {r['pairs_tested']}) | "
            f"{sizing_cell(str(r['reason']))} |"
        )
    return head + "\n".join(lines) + "\n"


HEADER = """# Power table: privaudit vs DP-Sniper on DP-Sniper's mechanisms

Each table is generated by `python scripts/power_table.py` with the options it names: the
full `privaudit.audit` (spec, sensitivity and noise-law checks, the pilot search and
successive halving of the pairs with the default robust pair choice, the distinguishing
test of the pairs kept) at family-wise confidence 0.95, on the twenty mechanisms of
DP-Sniper's evaluation, each at claimed ε = 0.1.  The sizes (test and search splits,
pairs tested, pilot, pair budget) come from **one rule** of each mechanism's measured cost
and output kind, written in the script's docstring, but for the seven overrides (and
one in the table without input pairs only) named in their "sizing" cell, whose reasons
are listed in the notes below the tables (a
larger N, or search split, where the ten-seed floor or the event search needed it and
the audits fit in 60 s at every seed, see the notes); no size is chosen at one seed,
and the costs (`docs/power_table_costs.json`, the median of five timings) were measured
once, before the first audit, so that every table and every seed uses the same sizes.
"Without input pairs" is what a user gets: the only pairs are the auditor's own
generators and search.

DP-Sniper's values are 90 %-confidence bounds from 10.7 M training and 200 M final
samples per mechanism; ours are 95 %-confidence bounds (Clopper–Pearson, sample
splitting, Bonferroni over pairs and events).

"""

#: The heading of the ten-seed floors in the notes (:func:`ten_seed_floor_table`).
FLOORS_HEADER = """Ten-seed floors (`ten_seed_floor_table`): at the tables' N (the rule's, or its
override's), the single-event ceiling, the standard deviation σ of its bound (delta method
on the optimal event's counts), the expected minimum over ten seeds (ceiling − 1.54·σ),
and the N of the 1-2-5 grid whose floor reaches DP-Sniper's LR value:

"""

#: The order of the document's generated sections (the notes and ceilings come last).
SECTION_ORDER = ("seeds-no-pairs", "seeds-pairs", "seed0-pairs", "seed0-no-pairs", "notes")


def _sections(doc: str) -> dict[str, str]:
    return {
        key: body
        for key, body in re.findall(r"<!-- ([\w-]+):begin -->\n(.*?)<!-- \1:end -->", doc, re.S)
    }


def write_section(path: pathlib.Path, key: str, section: str) -> None:
    """Write the section ``key`` of ``path`` (the header, the other sections and the notes
    are kept; the notes and the single-event ceilings of ``power_limits`` are refreshed)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from power_limits import limits_table

    # the slow part first: the document is read just before it is written, so that two
    # tables run side by side do not drop each other's section
    notes = NOTES + sizing_notes() + FLOORS_HEADER + ten_seed_floor_table() + "\n" + limits_table()
    doc = path.read_text(encoding="utf-8") if path.exists() else ""
    sections = {k: v for k, v in _sections(doc).items() if k in SECTION_ORDER}
    sections[key] = section
    sections["notes"] = notes
    text = HEADER + "".join(
        f"<!-- {k}:begin -->\n{sections[k].rstrip()}\n<!-- {k}:end -->\n\n"
        for k in SECTION_ORDER
        if k in sections
    )
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def seeds_section(
    text: str,
    seeds_text: str,
    seeds: list[int],
    *,
    no_pairs: bool,
    budget: float,
    scale: float,
    beats: int,
    cases: int,
    slowest: float,
    rerun: list[str] | None = None,
) -> str:
    """The heading and paragraph of a ``--seeds`` table (``rerun``: the rows re-run alone
    with ``--only`` after the whole table, named in the paragraph)."""
    which = "without input pairs" if no_pairs else "with DP-Sniper's input pairs"
    flag = " --no-pairs" if no_pairs else ""
    again = (
        f"  Rows re-run alone with `--only {','.join(rerun)}`"
        f" (`--seeds {seeds_text}{flag}`, one table at a time, on the `{EXECUTOR}` "
        "executor), the others from the whole run."
        if rerun
        else ""
    )
    return (
        f"## Seeds {seeds[0]}–{seeds[-1]}, {which}\n\n"
        f"Generated by `python scripts/power_table.py --seeds {seeds_text}{flag}` (sizes by "
        f"the rule of the script's docstring, budget {budget:g} s, scale {scale:g}; robust "
        f"pair choice, `pair_tolerance` = {PAIR_TOLERANCE}, the default).  Minimum over the "
        f"seeds ≥ DP-Sniper LR on {beats} of {cases}; slowest audit {slowest:.1f} s on "
        f"{platform.machine()}, 2 cores shared by the two tables' runs.{again}\n\n" + text
    )


#: The sentence of a ten-seed section that names the rows re-run alone (``--only``).
_RERUN = re.compile(r"Rows re-run alone with `--only ([^`]*)`")


def _table_rows(section: str) -> dict[str, str]:
    """The body lines of a section's table, by mechanism (the first cell)."""
    return {
        line.split("|")[1].strip(): line
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| mechanism")
    }


def merge_rows(previous: str, text: str, order: list[str]) -> tuple[str, set[str]]:
    """The table ``text`` (rows re-run alone, with ``--only``) merged into the table of the
    ``previous`` section: a re-run row replaces the old one, the other rows stay, in the
    cases' ``order``; also returns every mechanism re-run alone so far (the previous
    section's list and these)."""
    old, new = _table_rows(previous), _table_rows(text)
    head = "\n".join(text.splitlines()[:2])
    lines = [new.get(name) or old[name] for name in order if name in new or name in old]
    found = _RERUN.search(previous)
    rerun = set(found.group(1).split(",")) if found else set()
    return head + "\n" + "\n".join(lines) + "\n", (rerun | set(new)) & set(order)


def table_counts(text: str) -> tuple[int, int, float]:
    """(rows whose minimum reaches LR, rows, slowest audit) of a ten-seed table."""
    cells = [[c.strip() for c in line.split("|")[1:-1]] for line in _table_rows(text).values()]
    return (
        sum(c[7] == "yes" for c in cells),
        len(cells),
        max((float(c[10]) for c in cells), default=0.0),
    )


def main_seeds(args: argparse.Namespace) -> int:
    """``--seeds``: every case at every seed; writes its section of docs/power_table.md."""
    seeds = parse_seeds(args.seeds)
    only = {s for s in args.only.split(",") if s}
    cases = [c for c in dpsniper_cases() if not only or c.name.split(".", 1)[1] in only]
    # every cost is measured (or read from COSTS) before the first audit, so that all sizes
    # come from one machine state rather than from whatever runs beside the later audits
    load_costs(pathlib.Path(args.costs), cases, args.recalibrate)
    for case in cases:
        size = size_for(case, with_pairs=not args.no_pairs, budget=args.budget)
        kind, cost = _CALIBRATED[case.name.split(".", 1)[1]]
        print(
            f"{case.name:40s} {kind:7s} cost {cost * 1e9:8.1f} ns/output/side → "
            f"N = {size.samples / 1e6:g}M, pairs tested {size.pairs_tested}",
            file=sys.stderr,
            flush=True,
        )
    rows = [
        seeds_row(case, seeds, args.scale, with_pairs=not args.no_pairs, budget=args.budget)
        for case in cases
    ]
    text = seeds_table(rows, seeds)
    print(text)
    if args.no_write:
        return 0
    key = "seeds-no-pairs" if args.no_pairs else "seeds-pairs"
    out = pathlib.Path(args.out)
    previous = _sections(out.read_text(encoding="utf-8")).get(key, "") if out.exists() else ""
    order = [c.name.split(".", 1)[1] for c in dpsniper_cases()]
    rerun: set[str] = set()
    if only and previous.startswith(f"## Seeds {seeds[0]}–{seeds[-1]},"):
        # rows re-run alone (same seeds) replace theirs in the whole table, whose counts
        # are recomputed; a table of other seeds is replaced, not merged
        text, rerun = merge_rows(previous, text, order)
    beats, count, slowest = table_counts(text)
    section = seeds_section(
        text,
        args.seeds,
        seeds,
        no_pairs=args.no_pairs,
        budget=args.budget,
        scale=args.scale,
        beats=beats,
        cases=count,
        slowest=slowest,
        rerun=sorted(rerun, key=order.index),
    )
    write_section(out, key, section)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated mechanism names")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply sample sizes")
    parser.add_argument("--no-write", action="store_true", help="do not write the docs file")
    parser.add_argument("--out", default=str(OUT), help="Markdown file to write")
    parser.add_argument(
        "--no-pairs",
        action="store_true",
        help="no input_pairs; writes the 'without input pairs' section",
    )
    parser.add_argument(
        "--seeds", default="", help="e.g. 0-9: min / median / max of ε_lb over these seeds"
    )
    parser.add_argument(
        "--budget", type=float, default=BUDGET, help="seconds per audit for the sizing rule"
    )
    parser.add_argument("--costs", default=str(COSTS), help="JSON file of the measured costs")
    parser.add_argument("--recalibrate", action="store_true", help="measure the costs again")
    args = parser.parse_args(argv)
    if args.seeds:
        return main_seeds(args)
    only = {s for s in args.only.split(",") if s}
    cases = [c for c in dpsniper_cases() if not only or c.name.split(".", 1)[1] in only]
    load_costs(pathlib.Path(args.costs), cases, args.recalibrate)
    rows = []
    for case in cases:
        short = case.name.split(".", 1)[1]
        row = run_case(
            case,
            size_for(case, with_pairs=not args.no_pairs, budget=args.budget),
            args.scale,
            with_pairs=not args.no_pairs,
        )
        rows.append(row)
        print(
            f"{short:28s} ε_lb = {_fmt(row['ours'])} (LR {_fmt(row['lr'])}) "
            f"{float(row['runtime']):5.1f} s  {row['verdict']}  [{row['event']}]",
            file=sys.stderr,
            flush=True,
        )
    text = table(rows)
    print(text)
    if not args.no_write:
        beats = sum(bool(r["beats_lr"]) for r in rows)
        slowest = max(float(r["runtime"]) for r in rows)
        total = sum(float(r["runtime"]) for r in rows)
        which = "without input pairs" if args.no_pairs else "with DP-Sniper's input pairs"
        flag = " --no-pairs" if args.no_pairs else ""
        section = (
            f"## Seed 0 alone, {which}\n\n"
            f"Generated by `python scripts/power_table.py{flag}` (seed 0, sizes by the rule, "
            f"budget {args.budget:g} s, scale {args.scale:g}).  ε_lb ≥ DP-Sniper LR on {beats} "
            f"of {len(rows)}; slowest audit {slowest:.1f} s, total {total:.0f} s on "
            f"{platform.machine()}, shared cores.\n\n" + text
        )
        write_section(
            pathlib.Path(args.out), "seed0-no-pairs" if args.no_pairs else "seed0-pairs", section
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
