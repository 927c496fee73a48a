"""``SoundnessResult``: the rate, its Clopper–Pearson bound and the per-mechanism summary
(near ties and prior pairs of the robust pair choice)."""

from __future__ import annotations

import pytest
from scipy.stats import beta

from privaudit.trust.soundness import SoundnessResult


def test_summary_counts_near_ties_and_prior_pairs_per_mechanism():
    result = SoundnessResult(
        audits=40,
        false_violations=1,
        per_mechanism={"a": 1, "b": 0},
        confidence=0.95,
        near_ties={"a": 3, "b": 0},
        prior_pairs={"a": 0, "b": 7},
    )
    lines = result.summary().splitlines()
    assert lines[0].endswith("1 false violations; 3 audits tested near ties")
    assert lines[1].endswith(
        "0 false violations; 0 audits tested near ties; 7 tested the prior pair"
    )
    assert lines[2].startswith("total: 1/40 = 2.500%")
    assert result.rate == pytest.approx(0.025)
    # one-sided 95 % Clopper–Pearson upper bound of 1 in 40
    assert result.rate_upper_bound == pytest.approx(beta.ppf(0.95, 2, 39))
