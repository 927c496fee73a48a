"""Protocol B (Bell, Bellet, Gascón & Kulkarni, AISTATS 2020, §4): hierarchical-histogram AUC.

Seeded statistical checks state their level: means of ≥ 200 replications within 4.5
standard errors (two-sided level < 1e-5 per comparison under a normal approximation).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from privaudit.auditing.exact.privacy import exact_privacy
from privaudit.estimators.local_ustatistics import (
    HadamardRandomizerMechanism,
    discretize_scores,
    exact_auc,
    exact_uauc,
    fwht,
    hadamard_reports,
    level_estimates,
    prefix_counts,
    private_auc_hierarchical,
    private_uauc,
)
from privaudit.spec.errors import InvalidInputError, InvalidParameterError


def test_figure1_test_vector():
    h = prefix_counts(np.array([0, 1, 2, 2, 3]), 2)
    assert [x.tolist() for x in h] == [[5.0], [2.0, 3.0], [1.0, 1.0, 2.0, 1.0]]


def test_exact_recursion_equals_the_pairwise_auc_with_ties_counting_zero():
    rng = np.random.default_rng(4)
    for alpha in (1, 3, 7):
        d = 1 << alpha
        sp, sn = rng.integers(0, d, 40), rng.integers(0, d, 55)
        assert exact_auc(sp, sn, alpha) == pytest.approx(np.mean(sp[:, None] > sn[None, :]))


def test_noiseless_private_walk_is_exact():
    """With exact counts and zero variance bounds every node is recursed: UAUĈ = UAUC."""
    rng = np.random.default_rng(1)
    hp, hn = prefix_counts(rng.integers(0, 64, 300), 6), prefix_counts(rng.integers(0, 64, 200), 6)
    value, recursed = private_uauc(hp, hn, 0.0, 0.0)
    assert value == pytest.approx(exact_uauc(hp, hn))
    assert recursed[0] == 1


def test_fwht_is_the_sylvester_hadamard_product():
    h = np.array([[(-1) ** (i & j).bit_count() for j in range(16)] for i in range(16)])
    v = np.random.default_rng(0).normal(size=16)
    assert np.allclose(fwht(v), h @ v)
    with pytest.raises(InvalidParameterError):
        fwht(np.ones(6))


@pytest.mark.parametrize("variant", ["S", "C"])
def test_level_estimates_are_unbiased(variant):
    rng = np.random.default_rng(9)
    s = rng.integers(0, 16, 1500)
    truth = prefix_counts(s, 4)
    reps = np.stack(
        [
            np.concatenate(level_estimates(hadamard_reports(s, 4, 2.0, variant, r)).levels)
            for r in np.random.default_rng(3).spawn(200)
        ]
    )
    se = reps.std(axis=0, ddof=1) / math.sqrt(reps.shape[0])
    flat = np.concatenate(truth)
    assert np.all(np.abs(reps.mean(axis=0) - flat) <= 4.5 * se + 1e-9)
    bound = level_estimates(hadamard_reports(s, 4, 2.0, variant, 0)).variance_bound
    # Var ĥ_p ≤ v = C n α; the sample variance of 200 draws has relative sd ≈ 0.1 (4 sd)
    assert reps.var(axis=0, ddof=1).max() <= 1.4 * bound


def test_hadamard_randomizer_law_and_exact_epsilon():
    for variant in ("S", "C"):
        m = HadamardRandomizerMechanism(3, 1.0, variant)
        p = m.output_probabilities(5)
        assert np.allclose(p.sum(axis=1), 1.0)
        out = m.sample(5, 100_000, rng=2).reshape(100_000, -1)
        freq = np.bincount(out[:, -1], minlength=p.shape[1]) / out.shape[0]
        se = np.sqrt(p[-1] * (1 - p[-1]) / out.shape[0])
        assert np.all(np.abs(freq - p[-1]) <= 5 * se + 1e-12)
        res = exact_privacy(m)
        assert res.coverage == "all_pairs" and res.epsilon_exact == pytest.approx(1.0)


@pytest.mark.parametrize("variant", ["S", "C"])
def test_private_auc_is_close_at_large_n_and_clipping_is_post_processing(variant):
    rng = np.random.default_rng(5)
    n = 60_000
    labels = rng.integers(0, 2, n)
    scores = discretize_scores(np.where(labels == 1, rng.beta(5, 2, n), rng.beta(2, 5, n)), 6)
    truth = exact_auc(scores[labels == 1], scores[labels == 0], 6)
    res = private_auc_hierarchical(scores, labels, 6, 4.0, variant=variant, rng=7)
    assert res.protocol == f"B-{variant}" and res.details["recursed"][0] == 1
    assert abs(res.estimate - truth) <= 5 * math.sqrt(res.variance_bound)
    clipped = private_auc_hierarchical(scores, labels, 6, 4.0, variant=variant, rng=7, clip=True)
    assert clipped.estimate == pytest.approx(min(1.0, max(0.0, res.estimate)))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pure-ldp's randrange calls
def test_frequency_oracle_agrees_with_pure_ldp_hadamard_response():
    """Both oracles estimate the same counts on the same inputs (level 4, d = 16, ε = 1).

    pure-ldp samples from Python's and numpy's global generators, seeded here for it
    only; our oracle takes its own Generator.
    """
    pytest.importorskip("statsmodels")
    hr = pytest.importorskip("pure_ldp.frequency_oracles.hadamard_response")
    random.seed(0)
    np.random.seed(0)
    rng = np.random.default_rng(12)
    d, eps, n, reps = 16, 1.0, 1000, 24
    data = rng.integers(0, d, n)
    truth = np.bincount(data, minlength=d).astype(float)
    ours, theirs = [], []
    for _ in range(reps):
        rep = hadamard_reports(data, 4, eps, "C", rng)  # variant C at α = 4 uses ε/4 per level;
        ours.append(level_estimates(rep).levels[4])  # compare at equal budget below
        server = hr.HadamardResponseServer(eps / 4, d)
        client = hr.HadamardResponseClient(eps / 4, d, server.get_hash_funcs())
        for x in data:
            server.aggregate(client.privatise(int(x) + 1))
        theirs.append([server.estimate(i + 1, suppress_warnings=True) for i in range(d)])
    ours_a, theirs_a = np.array(ours), np.array(theirs)
    se_o = ours_a.std(axis=0, ddof=1) / math.sqrt(reps)
    se_t = theirs_a.std(axis=0, ddof=1) / math.sqrt(reps)
    assert np.all(np.abs(ours_a.mean(0) - truth) <= 4.5 * se_o)
    assert np.all(np.abs(theirs_a.mean(0) - truth) <= 4.5 * se_t)
    assert np.all(np.abs(ours_a.mean(0) - theirs_a.mean(0)) <= 4.5 * np.hypot(se_o, se_t))


@pytest.mark.parametrize(
    "call",
    [
        lambda: prefix_counts([0, 16], 4),
        lambda: prefix_counts([0.5], 4),
        lambda: private_auc_hierarchical([0, 1, 2], [1, 1, 1], 2, 1.0),
        lambda: private_auc_hierarchical([0, 1], [1, 0], 2, 1.0, variant="X"),
        lambda: private_auc_hierarchical([0, 1], [1, 0], 2, 1.0, a=1.0),
        lambda: private_auc_hierarchical([0, 1], [1, 0], 0, 1.0),
    ],
)
def test_bad_inputs_raise_specific_errors(call):
    with pytest.raises((InvalidInputError, InvalidParameterError)):
        call()
