"""``scripts/halving_visibility.py``: the halving's round sizes, and the agreement of its
scores with the final test's bounds (ρ and regret)."""

from __future__ import annotations

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))

import halving_visibility as visibility
from power_table import Size

from privaudit.auditing.choice.halving import halving_first_round, halving_pool_size
from privaudit.suites import dpsniper_cases


def test_round_sizes_follow_the_halving_from_its_pool_to_the_pairs_tested():
    size = Size(samples=2_000_000, search=500_000, pairs_tested=2)
    first = halving_first_round(size.pilot, size.samples)
    # a pool of 16 halves to 8, 4, 2: three rounds, the samples doubling each round
    assert halving_pool_size(2) == 16
    assert visibility.round_sizes(size) == [first, 2 * first, 4 * first]
    one = Size(samples=10**8, search=8 * 10**6, pairs_tested=1)
    assert len(visibility.round_sizes(one)) == 4  # 16 → 8 → 4 → 2 → 1


def test_distinct_pairs_count_a_pair_and_its_swap_once():
    case = next(c for c in dpsniper_cases() if c.name.endswith("ReportNoisyMax1"))
    pairs = visibility.distinct_pairs(case, 100)
    keys = {(repr(p.x), repr(p.y)) for p in pairs}
    assert len(pairs) == 8  # DP-Sniper's 16 input pairs are 8 pairs and their swaps
    assert not any((y, x) in keys for x, y in keys)
    assert len(visibility.distinct_pairs(case, 3)) == 3


def _result(reference, scores):
    return visibility.Visibility(
        pairs=[None] * len(reference),
        sizes=[1000 << r for r in range(len(scores))],
        reference=np.asarray(reference, float),
        scores=np.asarray(scores, float),
    )


def test_scores_in_the_references_order_have_rho_one_and_no_regret():
    ref = [[0.1, 0.1], [0.3, 0.3], [0.2, 0.2]]
    result = _result(ref, [[[1.0, 1.1], [3.0, 2.9], [2.0, 2.1]]])
    assert result.spearman() == [1.0]
    assert result.regret() == [0.0]


def test_regret_is_the_reference_lost_by_each_seeds_top_scored_pair():
    ref = [[0.1, 0.1], [0.3, 0.3], [0.2, 0.2]]
    # seed 0 ranks pair 0 first (loses 0.2), seed 1 pair 2 (loses 0.1); constant scores
    scores = [[[5.0, 0.0], [1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]]
    result = _result(ref, scores)
    assert np.allclose(result.regret(), [0.15, 0.2])  # ties rank the first pair first
    assert np.isnan(result.spearman()[1])


def test_measure_and_table_on_a_cheap_scalar_case():
    case = next(c for c in dpsniper_cases() if c.name.endswith("LaplaceMechanism"))
    size = Size(samples=20_000, search=5_000, pilot=2_000, pairs_tested=1)
    result = visibility.measure(case, size, seeds=[0, 1], pairs=2)
    assert result.reference.shape == (2, 2)
    assert result.scores.shape == (len(result.sizes), 2, 2)
    assert np.all(np.isfinite(result.scores)) and np.all(result.reference >= 0)
    text = visibility.table(result)
    assert text.count("\n") == 2 + 2 + 1  # header, rule, two pairs, ρ and regret rows
    assert "Spearman ρ" in text and "regret" in text
