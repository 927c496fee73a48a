"""Cost of the halving's pair scores, the pilot's share of a large audit.

Run with ``python -m pytest benchmarks/test_bench_pair_scores.py -q --benchmark-only``.
:func:`threshold_score` (a real scalar output: ReportNoisyMax3's, 3·10⁵ outputs per
side, the size of one halving round at 2·10⁷) and :func:`coarse_codes` (a sparse-vector
output with code and released-value columns: SVT34Parallel's, 10⁵ outputs per side).
Measured on the machine of ``docs/power_table.md`` (x86_64, 2 cores, numpy 2.4.6;
medians): threshold_score 81.5 → 30.6 ms once each half is sorted once for both folds
and the pooled half merged (a stable sort of two sorted runs is linear; the default sort
took 33 ms on such a merge of 6·10⁵ values, more than on random ones), coarse_codes
90.7 → 44.0 ms once only the continuous columns are copied and coded, in place.  The
scores are those of before to the bit (``tests/unit/privaudit/test_threshold_score.py``
and ``test_coarse_codes.py``; 40 audits of DP-Sniper's cases at scale 0.02, seed 3,
with and without pairs, gave the same bounds and events).  Nothing here asserts on time.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.auditing.choice.scores import coarse_codes, threshold_score
from privaudit.suites import dpsniper_cases


def _case_outputs(name: str, n: int, pair: int) -> tuple[np.ndarray, np.ndarray]:
    case = next(c for c in dpsniper_cases() if c.name == f"dpsniper.{name}")
    x, y = case.input_pairs[pair]
    rng = np.random.default_rng(0)
    return (
        case.mechanism.sample(np.asarray(x), n, rng),
        case.mechanism.sample(np.asarray(y), n, rng),
    )


@pytest.mark.benchmark(group="pair_scores")
def test_threshold_score_of_a_scalar_output(benchmark):
    # (1⁵, 2⁵): every query moves by 1, true ε 0.25 at the claim's noise
    ox, oy = _case_outputs("ReportNoisyMax3", 300_000, pair=10)
    score = benchmark(threshold_score, ox, oy, final_samples=20_000_000, level=0.01, delta=0.0)
    assert score is not None and 0.15 < score <= 0.25 + 1e-9


@pytest.mark.benchmark(group="pair_scores")
def test_coarse_codes_of_a_sparse_vector_output(benchmark):
    ox, oy = _case_outputs("SVT34Parallel", 100_000, pair=0)
    cx, cy = benchmark(coarse_codes, ox, oy)
    assert cx.shape == ox.shape and cy.shape == oy.shape
