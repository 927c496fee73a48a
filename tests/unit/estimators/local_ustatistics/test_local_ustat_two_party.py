"""Protocols C and D (Bell, Bellet, Gascón & Kulkarni, AISTATS 2020, §5), 2PC simulated.

Seeded Monte Carlo checks; each states its tolerance (≥ 4 standard errors, or a ±10 %
band on a variance estimated from ≥ 3000 replications, whose relative sd is ≈ 2.6 %).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.auditing.exact.privacy import exact_privacy
from privaudit.estimators.local_ustatistics import (
    all_pairs_epsilon0,
    debias_discrete,
    discrete_view_mechanism,
    permutation_pairs,
    private_ustatistic_2pc,
    private_ustatistic_2pc_all_pairs,
    private_ustatistic_2pc_discrete,
    theorem5_mse,
)
from privaudit.mechanisms import advanced_composition
from privaudit.spec import IntegerRange, PureDP
from privaudit.spec.errors import InvalidInputError, InvalidParameterError


def gini(a, b):
    return np.abs(a - b)


def collision(a, b):
    return (a == b).astype(float)


def test_pairing_puts_each_user_in_p_pairs():
    pairs = permutation_pairs(10, 3, rng=0)
    assert pairs.shape == (15, 2)
    assert np.array_equal(np.bincount(pairs.ravel(), minlength=10), np.full(10, 3))
    assert permutation_pairs(11, 2, rng=0).shape == (10, 2)  # odd n: one left out


@pytest.mark.parametrize("printed, matches", [(False, True), (True, False)])
def test_theorem5_noise_term_is_4p_over_n_eps2_not_the_printed_2p(printed, matches):
    """Erratum of Theorem 5: the Laplace part of the MSE is 4P/(nε²) (Δ = 1)."""
    n, p, eps, reps = 400, 2, 1.0, 3000
    x = np.random.default_rng(0).uniform(0, 1, n)
    gen = np.random.default_rng(1)
    noise = []
    for _ in range(reps):  # the noise part alone: same data and pairs
        res = private_ustatistic_2pc(x, gini, eps, p, rng=gen)
        noise.append(res.estimate)
    # Var(Û | data) = subsampling part + noise part; isolate the noise part by subtracting
    # the subsampling variance measured at ε = 300, the largest ε accepted (noise variance
    # ~1e-7 of the noise part)
    sub = [private_ustatistic_2pc(x, gini, 300.0, p, rng=gen).estimate for _ in range(reps)]
    measured = np.var(noise, ddof=1) - np.var(sub, ddof=1)
    theory = theorem5_mse(n, p, eps, 0.0, 0.0, printed=printed)
    assert bool(0.9 <= measured / theory <= 1.1) is matches


def test_theorem5_matches_monte_carlo_against_the_population():
    """U(0,1) data, f = |x − y|: U = 1/3, ζ2 = 1/18, ζ1 = 1/180 (exact)."""
    n, p, eps, reps = 200, 3, 2.0, 3000
    gen = np.random.default_rng(7)
    err = [
        private_ustatistic_2pc(gen.uniform(0, 1, n), gini, eps, p, rng=gen).estimate - 1 / 3
        for _ in range(reps)
    ]
    mse = float(np.mean(np.square(err)))
    assert 0.9 <= mse / theorem5_mse(n, p, eps, 1 / 180, 1 / 18) <= 1.1


def test_discrete_variant_debiasing_is_exact_and_estimator_unbiased():
    for values in ([0.0, 1.0], [-1.0, 0.0, 1.0]):
        v = np.array(values)
        keep = 0.6
        q = (1 - keep) / (v.size - 1)
        for f in range(v.size):
            probs = np.full(v.size, q)
            probs[f] = keep
            assert probs @ debias_discrete(v, v, keep) == pytest.approx(v[f])
    labels = np.random.default_rng(3).integers(0, 3, 300)
    iu = np.triu_indices(300, 1)
    truth = collision(labels[iu[0]], labels[iu[1]]).mean()
    gen = np.random.default_rng(4)
    est = np.array(
        [
            private_ustatistic_2pc_discrete(labels, collision, [0, 1], 2.0, 2, rng=gen).estimate
            for _ in range(1500)
        ]
    )
    assert abs(est.mean() - truth) <= 4.5 * est.std(ddof=1) / math.sqrt(est.size)


def test_discrete_view_is_exactly_epsilon_dp():
    m = discrete_view_mechanism(4, 2, 1.0, collision, IntegerRange(lo=0, hi=2), [0, 1])
    res = exact_privacy(m)
    assert res.coverage == "all_pairs" and res.epsilon_exact == pytest.approx(1.0)


def test_all_pairs_epsilon0_meets_the_composition_exactly():
    for n, eps in ((246_399, 1.0), (246_399, 10.0), (1000, 0.5)):
        e0 = all_pairs_epsilon0(n, eps, 1e-8)  # rounded down to the stable grid
        composed = advanced_composition(PureDP(epsilon=e0), n - 1, 1e-8).epsilon
        assert eps * (1 - 2.5e-5) <= composed <= eps
    assert all_pairs_epsilon0(246_399, 1.0, 1e-8) == pytest.approx(3.2e-4, rel=0.02)
    assert all_pairs_epsilon0(246_399, 10.0, 1e-8) == pytest.approx(2.7e-3, rel=0.02)
    assert all_pairs_epsilon0(6, 1.0, 1e-8) == pytest.approx(0.2, rel=1.1e-5)  # basic binds


def test_all_pairs_exact_and_clt_noise_have_the_declared_variance():
    x = np.random.default_rng(0).uniform(0, 1, 60)
    gen = np.random.default_rng(1)
    for noise in ("exact", "clt"):
        vals = np.array(
            [
                private_ustatistic_2pc_all_pairs(x, gini, 5.0, 1e-6, noise=noise, rng=gen).estimate
                for _ in range(3000)
            ]
        )
        bound = private_ustatistic_2pc_all_pairs(x, gini, 5.0, 1e-6, rng=0).variance_bound
        assert 0.9 <= vals.var(ddof=1) / bound <= 1.1


@pytest.mark.parametrize(
    "call",
    [
        lambda: permutation_pairs(1, 1),
        lambda: private_ustatistic_2pc([0.1, 0.2, 0.3], gini, 1.0, 0),
        lambda: private_ustatistic_2pc([0.1, 2.0, 3.5], gini, 1.0, 1, rng=0),
        lambda: private_ustatistic_2pc_discrete([0, 5, 9], lambda a, b: a - b, [0, 1], 1.0),
        lambda: all_pairs_epsilon0(10, 1.0, 0.0),
        lambda: private_ustatistic_2pc_all_pairs([0.1, 0.2], gini, 1.0, 1e-6, noise="fast"),
    ],
)
def test_bad_inputs_raise_specific_errors(call):
    with pytest.raises((InvalidInputError, InvalidParameterError)):
        call()
