"""Cost of counting a test split's events when several share one pattern score.

Run with ``python -m pytest benchmarks/test_bench_event_counting.py -q --benchmark-only``.
The pattern-conditional value events that the selection keeps for a sparse vector
(SVT34Parallel's: a pattern LLR over its 20 code columns and released-value features of
its 10 value columns, each event carrying one value feature) share their pattern score.
Counted event by event, each feature computes it and reads the value columns again;
:func:`~privaudit.auditing.distinguish.events.fill_feature_cache` computes the features
that share a pattern in one pass.  Four such events (min, max and max released value, and
the released-value LLR) on 2¹⁷ outputs, on the machine of ``docs/power_table.md``
(x86_64, 2 cores, numpy 2.4.6; medians): 110.0 ms one by one, 51.8 ms in one pass
(839 → 395 ns per output).  In one pair test of SVT34Parallel at 5·10⁶ + 2.5·10⁶
outputs per side (its strongest pair, seed 8) the counting of the test split took
7.3 → 4.1 s.  The masks are the same to the bit
(``tests/unit/privaudit/distinguish/test_feature_evaluation.py``); nothing here asserts
on time.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.auditing.distinguish.cell_score import fit_cell_score
from privaudit.auditing.distinguish.events import event_mask, fill_feature_cache
from privaudit.auditing.distinguish.patterns import (
    PatternAndValue,
    PatternValueEvent,
    ReleasedValue,
    fit_pattern_llr,
    pattern_structure,
)
from privaudit.suites import dpsniper_cases


@pytest.fixture(scope="module")
def shared_pattern_events():
    case = next(c for c in dpsniper_cases() if c.name == "dpsniper.SVT34Parallel")
    x, y = np.array([1.0] * 5 + [0.0] * 5), np.array([0.0] * 5 + [1.0] * 5)
    rng = np.random.default_rng(0)
    fx, fy = case.mechanism.sample(x, 100_000, rng), case.mechanism.sample(y, 100_000, rng)
    structure = pattern_structure(np.concatenate([fx[:10_000], fy[:10_000]]))
    assert structure is not None
    pattern = fit_pattern_llr(fx, fy, structure.categorical)
    grouped = fit_cell_score(fx, fy, groups="grouped", monotone=True)
    value_llr = grouped.restricted(structure.value_columns)
    columns, atoms = structure.value_columns, structure.atoms
    values = [ReleasedValue(columns, atoms, how) for how in ("min", "max", "max")]
    values.append(ReleasedValue(columns, atoms, "score", score=value_llr))
    events = [
        PatternValueEvent(PatternAndValue(pattern, (v,)), -0.25, "le", 0, 0.0, side)
        for v, side in zip(values, ("ge", "ge", "le", "le"), strict=True)
    ]
    return events, case.mechanism.sample(y, 1 << 17, rng)


def _counts(events, outputs, joint: bool) -> list[int]:
    cache: dict[int, np.ndarray] = {}
    if joint:
        fill_feature_cache(events, outputs, cache)
    return [int(np.count_nonzero(event_mask(e, outputs, cache))) for e in events]


@pytest.mark.benchmark(group="event_counting")
@pytest.mark.parametrize("joint", [False, True], ids=["one_by_one", "one_pass"])
def test_count_events_sharing_a_pattern(benchmark, shared_pattern_events, joint):
    events, outputs = shared_pattern_events
    counts = benchmark(_counts, events, outputs, joint)
    assert counts == _counts(events, outputs, not joint)
    assert 0 < max(counts) < outputs.shape[0]
