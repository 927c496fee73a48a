"""Protocol A (Bell, Bellet, Gascón & Kulkarni, AISTATS 2020, Algorithm 1): k-RR + fast server.

Statistical tests are seeded; each states its level (4-5 standard errors, two-sided level
below 1e-4 under a normal approximation of a mean of ≥ 2000 replications).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.estimators.local_ustatistics import (
    KaryRandomizer,
    UniformQuantizer,
    auc_table,
    collision_table,
    corollary1_bins,
    eq9_probabilities,
    fast_u_statistic,
    gini_table,
    joint_index,
    kendall_table,
    kernel_table,
    pairwise_u_statistic,
    private_auc_rr,
    private_gini_mean_difference_rr,
    private_kendall_tau_rr,
    private_renyi2_rr,
    private_ustatistic_rr,
    report_histogram,
    rr_randomizer_mechanism,
    theorem1_variance_bound,
    two_sample_statistic,
)
from privaudit.spec import FiniteRandomizer, LocalRelation, PureDP
from privaudit.spec.errors import InvalidInputError, InvalidParameterError, PrivauditError


def _u_of_cells(cells, table):
    """Exact U-statistic of the cells under the table (non-private reference)."""
    c = np.bincount(cells, minlength=table.shape[0]).astype(float)
    n = cells.size
    return float((c @ table @ c - c @ np.diag(table)) / (n * (n - 1)))


def test_randomizer_probabilities_match_the_paper_reference_values():
    r = KaryRandomizer(5, 1.0)
    assert r.beta == pytest.approx(0.7442, abs=1e-4)
    assert r.keep_probability == pytest.approx(0.4046, abs=1e-4)
    assert r.other_probability == pytest.approx(0.1488, abs=1e-4)
    assert r.keep_probability / r.other_probability == pytest.approx(math.e)
    assert r.probabilities(2).sum() == pytest.approx(1.0)
    assert 1 / (1 - KaryRandomizer(36, 1.0).beta) == pytest.approx(21.95, abs=0.01)


def test_two_stage_sampler_follows_the_k_rr_law():
    r = KaryRandomizer(6, 1.0)
    out = r.randomize(np.full(600_000, 4), rng=3)
    freq = np.bincount(out, minlength=6) / out.size
    se = np.sqrt(r.probabilities(4) * (1 - r.probabilities(4)) / out.size)
    assert np.all(np.abs(freq - r.probabilities(4)) < 5 * se)


@pytest.mark.parametrize("reading, unbiased", [("mixture", True), ("printed", False)])
def test_eq9_only_the_mixture_reading_makes_the_debiasing_unbiased(reading, unbiased):
    """Erratum of eq. 9: the printed (1 − β, β/k) is not a law and biases the debiasing."""
    k, eps = 5, 1.0
    keep, other = eq9_probabilities(k, eps, reading)
    r = KaryRandomizer(k, eps)
    law = np.full(k, other)
    law[0] = keep
    assert bool(abs(law.sum() - 1.0) < 1e-12) is unbiased
    if reading == "printed":
        assert law.sum() == pytest.approx(0.851, abs=1e-3)
    b = r.beta / k
    expected_u = (law - law.sum() * b) / (1 - r.beta)  # E[(e_x̃ − b)/(1 − β)]
    assert bool(np.allclose(expected_u, np.eye(k)[0], atol=1e-12)) is unbiased


@pytest.mark.parametrize("table_name", ["gini", "kendall", "collision", "random"])
def test_fast_form_equals_the_pairwise_sum(table_name):
    rng = np.random.default_rng(11)
    tables = {
        "gini": gini_table(UniformQuantizer(0, 1, 7)),
        "kendall": kendall_table(3),
        "collision": collision_table(6),
    }
    if table_name == "random":
        m = rng.normal(size=(5, 5))
        tables["random"] = m + m.T
    a = tables[table_name]
    r = KaryRandomizer(a.shape[0], 0.7)
    reports = rng.integers(0, a.shape[0], 60)
    fast = fast_u_statistic(report_histogram(reports, a.shape[0]), a, r)
    assert fast == pytest.approx(pairwise_u_statistic(reports, a, r), rel=1e-11, abs=1e-12)


def test_estimator_is_unbiased_for_the_quantized_statistic():
    """2000 seeded replications at n = 150: mean within 4.5 standard errors of U(π(x))."""
    rng = np.random.default_rng(5)
    q = UniformQuantizer(0, 1, 6)
    x = rng.beta(2, 5, 150)
    a = gini_table(q)
    truth = _u_of_cells(q.index(x), a)
    r = KaryRandomizer(6, 1.0)
    reps = 2000
    reports = r.randomize(np.broadcast_to(q.index(x), (reps, x.size)).copy(), rng=rng)
    counts = np.stack([np.bincount(row, minlength=6) for row in reports])
    values = np.array([fast_u_statistic(c, a, r) for c in counts])
    se = values.std(ddof=1) / math.sqrt(reps)
    assert abs(values.mean() - truth) < 4.5 * se
    # Theorem 1 bounds the variance (kernel in [0, 1])
    assert values.var(ddof=1) <= theorem1_variance_bound(150, 6, 1.0)


def test_two_sample_auc_is_unbiased_for_the_quantized_auc():
    rng = np.random.default_rng(8)
    k = 5
    q = UniformQuantizer(0, 1, k)
    pos, neg = q.index(rng.beta(4, 2, 80)), q.index(rng.beta(2, 4, 120))
    a = auc_table(k)
    truth = float(np.mean(a[pos[:, None], neg[None, :]]))
    r = KaryRandomizer(k, 2.0)
    reps = 2000
    rp = r.randomize(np.broadcast_to(pos, (reps, pos.size)).copy(), rng=rng)
    rn = r.randomize(np.broadcast_to(neg, (reps, neg.size)).copy(), rng=rng)
    values = np.array(
        [
            two_sample_statistic(np.bincount(p, minlength=k), np.bincount(n, minlength=k), a, r)
            for p, n in zip(rp, rn, strict=True)
        ]
    )
    assert abs(values.mean() - truth) < 4.5 * values.std(ddof=1) / math.sqrt(reps)


def test_kendall_joint_domain_targets_tau_a():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 4, 300)
    z = np.clip(y + rng.integers(-1, 2, 300), 0, 3)
    dy, dz = np.sign(y[:, None] - y[None, :]), np.sign(z[:, None] - z[None, :])
    tau_a = (dy * dz)[np.triu_indices(300, 1)].mean()
    assert _u_of_cells(joint_index(y, z, 4), kendall_table(4)) == pytest.approx(tau_a)
    res = private_kendall_tau_rr(y, z, 4, 50.0, rng=1)  # ε large: nearly the truth
    assert res.estimate == pytest.approx(tau_a, abs=1e-6)
    assert res.protocol == "A" and res.details["k"] == 16


def test_private_functions_return_result_objects_with_local_specs():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 5000)
    res = private_gini_mean_difference_rr(x, 1.0, bins=corollary1_bins(5000, 1.0), rng=4)
    assert isinstance(res.spec.relation, LocalRelation)
    assert isinstance(res.spec.noise, FiniteRandomizer)
    assert res.guarantee == PureDP(epsilon=1.0)
    assert abs(res.estimate - 1 / 3) < 5 * math.sqrt(res.variance_bound) + 1 / res.details["k"]
    ren = private_renyi2_rr(rng.integers(0, 4, 4000), 4, 2.0, rng=1)
    assert abs(ren.estimate - 0.25) < 5 * math.sqrt(ren.variance_bound)
    assert ren.details["entropy"] == pytest.approx(-math.log(max(ren.estimate, 1e-12)))
    labels = rng.integers(0, 2, 4000)
    scores = np.where(labels == 1, rng.beta(5, 2, 4000), rng.beta(2, 5, 4000))
    auc = private_auc_rr(scores, labels, 2.0, 8, rng=2, clip=True)
    assert 0.0 <= auc.estimate <= 1.0 and auc.protocol == "A-two-sample"
    same = private_ustatistic_rr(rng.integers(0, 3, 50), collision_table(3), 1.0, rng=9)
    again = private_ustatistic_rr(rng.integers(0, 3, 50), collision_table(3), 1.0, rng=9)
    assert isinstance(same.estimate, float) and isinstance(again.estimate, float)


def test_randomizer_mechanism_exposes_its_output_law():
    m = rr_randomizer_mechanism(1.0, bins=4)
    p = m.output_probabilities(0.3)
    assert p.shape == (1, 4) and p[0, 1] == pytest.approx(math.e / (3 + math.e))
    assert m.provides("output_probabilities")
    assert np.array_equal(m.output_probabilities(0.26), m.output_probabilities(0.49))
    assert m.sample(0.3, 10, rng=0).shape == (10,)


@pytest.mark.parametrize(
    "call",
    [
        lambda: KaryRandomizer(1, 1.0),
        lambda: KaryRandomizer(4, 0.0),
        lambda: KaryRandomizer(4, 1.0).randomize([0, 4]),
        lambda: kernel_table([[0, 1], [0, 0]]),
        lambda: UniformQuantizer(1.0, 0.0, 3),
        lambda: UniformQuantizer(0.0, 1.0, 3).index([0.2, float("nan")]),
        lambda: private_ustatistic_rr([0, 1, 5], collision_table(3), 1.0),
        lambda: private_ustatistic_rr([0], collision_table(3), 1.0),
        lambda: private_auc_rr([0.1, 0.2], [0, 2], 1.0, 4),
        lambda: joint_index([0, 4], [0, 1], 4),
        lambda: fast_u_statistic([1, 2], collision_table(3), KaryRandomizer(3, 1.0)),
    ],
)
def test_bad_inputs_raise_specific_errors(call):
    with pytest.raises(PrivauditError) as info:
        call()
    assert isinstance(info.value, (InvalidInputError, InvalidParameterError))
