"""DP-SGD as ABLQ: batch samplers, accountants, the paper's lower bound, the mechanisms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.mechanisms.dpsgd import (
    ABLQMechanism,
    LogisticDPSGD,
    batch_masks,
    batch_sums,
    logistic_data,
    partition_epsilon,
    poisson_epsilon,
    shuffle_lower_bound,
)
from privaudit.spec import GaussianDP, SubstituteOne
from privaudit.spec.errors import InvalidParameterError, PrivauditError


@pytest.mark.parametrize("sampler", ["shuffle", "balls_in_bins"])
def test_partition_samplers_put_every_example_in_one_batch_per_epoch(sampler):
    mask = batch_masks(sampler, 6, 2, 6, 50, np.random.default_rng(0))
    per_epoch = mask.reshape(50, 2, 3, 6).sum(axis=2)
    assert (per_epoch == 1).all()
    if sampler == "shuffle":
        assert (mask.sum(axis=2) == 2).all()


def test_poisson_masks_have_rate_b_over_n():
    mask = batch_masks("poisson", 10, 2, 5, 4000, np.random.default_rng(1))
    assert abs(mask.mean() - 0.2) < 0.01


@pytest.mark.parametrize("sampler", ["poisson", "shuffle", "balls_in_bins"])
def test_batch_sums_have_the_law_of_the_masks(sampler):
    # mean and variance of each step's sum agree with summing the masks (seeded; the
    # tolerance is > 6 standard errors at 40 000 runs)
    c = np.array([1.0, -1.0, -1.0, 0.5, 0.5, 1.0])
    fast = batch_sums(sampler, c, 2, 6, 40_000, np.random.default_rng(2))
    slow = batch_masks(sampler, 6, 2, 6, 40_000, np.random.default_rng(3)).astype(float) @ c
    assert np.allclose(fast.mean(axis=0), slow.mean(axis=0), atol=0.05)
    assert np.allclose(fast.var(axis=0), slow.var(axis=0), atol=0.1)


def test_vector_batch_sums_keep_the_dimension():
    out = batch_sums("shuffle", np.eye(4), 2, 4, 3, np.random.default_rng(0))
    assert out.shape == (3, 4, 4)
    assert np.allclose(out.sum(axis=1)[:, :], 2.0)  # two epochs, each example once


def test_poisson_accountant_at_full_sampling_is_the_gaussian_of_sensitivity_2():
    sigma, delta = 2.0, 1e-5
    exact = GaussianDP(mu=2.0 / sigma).epsilon_for_delta(delta)
    pld = poisson_epsilon(sigma, 1.0, 1, delta)
    assert exact <= pld <= exact + 1e-2


def test_partition_accountant_is_gdp_two_sqrt_epochs_over_sigma():
    exact = GaussianDP(mu=2 * 2 / 1.5).epsilon_for_delta(1e-5)
    assert exact < partition_epsilon(1.5, 4, 1e-5) <= exact * (1 + 1.1e-5)  # the stable grid


@pytest.mark.parametrize("sigma,steps", [(0.8, 50), (1.0, 50), (1.0, 10), (2.0, 20)])
def test_paper_lower_bound_is_below_the_honest_upper_bound(sigma, steps):
    lower = shuffle_lower_bound(sigma, steps, 1e-5)
    assert 0 < lower.epsilon <= partition_epsilon(sigma, 1, 1e-5)
    assert lower.p_first - math.exp(lower.epsilon) * lower.p_second == pytest.approx(1e-5, rel=1e-6)


@pytest.mark.parametrize("sigma,steps", [(0.8, 50), (1.0, 50)])
def test_paper_lower_bound_exceeds_the_poisson_claim_at_the_gap_settings(sigma, steps):
    assert shuffle_lower_bound(sigma, steps, 1e-5).epsilon > poisson_epsilon(
        sigma, 1 / steps, steps, 1e-5
    )


def test_ablq_declares_its_accountant_and_relation():
    poisson = ABLQMechanism("poisson", 20, 2, 10, 1.0)
    shuffle = ABLQMechanism("shuffle", 20, 2, 20, 1.0)
    broken = ABLQMechanism("shuffle", 20, 2, 10, 1.0, claim="poisson_pld")
    assert isinstance(poisson.spec.relation, SubstituteOne)
    assert poisson.spec.guarantee.epsilon == pytest.approx(poisson_epsilon(1.0, 0.1, 10, 1e-5))
    assert shuffle.spec.guarantee.epsilon == pytest.approx(partition_epsilon(1.0, 2, 1e-5))
    assert broken.spec.proof_status == "unproven"
    assert poisson.spec.proof_status == shuffle.spec.proof_status == "proven"
    out = shuffle.sample(np.full(20, 2.0), 5, rng=0)
    assert out.shape == (5, 20)


def test_ablq_clips_records_to_c():
    mech = ABLQMechanism("shuffle", 4, 4, 1, 1e-3, clip_norm=0.5, record_bound=2.0)  # one sum
    out = mech.sample(np.array([2.0, 2.0, -0.25, 0.0]), 200, rng=1)
    assert abs(out.mean() - 0.75) < 1e-3
    vec = ABLQMechanism("shuffle", 2, 2, 1, 1e-3, dim=2, clip_norm=1.0)
    assert np.allclose(
        vec.clipped(np.array([[2.0, 2.0], [0.1, 0.0]])), [[2**-0.5, 2**-0.5], [0.1, 0.0]]
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sampler": "minibatch"},
        {"n": 10, "batch_size": 3},
        {"steps": 3},
        {"sigma": 0.0},
        {"sigma": -1.0},
    ],
)
def test_ablq_refuses_bad_parameters(kwargs):
    args = {"sampler": "shuffle", "n": 10, "batch_size": 2, "steps": 5, "sigma": 1.0} | kwargs
    with pytest.raises(PrivauditError):
        ABLQMechanism(args.pop("sampler"), **args)


def test_logistic_dpsgd_releases_the_trajectory_with_clipped_gradients():
    mech = LogisticDPSGD("poisson", 10, 2, 4, 1.0, dim=3, clip_norm=0.3)
    data = logistic_data(10, 3, rng=0)
    assert data.shape == (10, 4) and set(np.unique(data[:, -1])) <= {-1.0, 1.0}
    out = mech.sample(data, 6, rng=1)
    assert out.shape == (6, 12)
    grads = mech.clipped_gradients(np.ones((2, 3)), data)
    assert grads.shape == (2, 10, 3)
    assert (np.linalg.norm(grads, axis=2) <= 0.3 + 1e-12).all()
    assert mech.spec.guarantee.epsilon == pytest.approx(poisson_epsilon(1.0, 0.2, 4, 1e-5))


def test_logistic_dpsgd_without_noise_descends_the_loss():
    mech = LogisticDPSGD("shuffle", 40, 40, 30, 1e-6, dim=2, clip_norm=10.0, learning_rate=1.0)
    data = logistic_data(40, 2, rng=3, weights=[4.0, -4.0])
    theta = mech.sample(data, 1, rng=0)[0].reshape(30, 2)[-1]
    assert theta[0] > 0 > theta[1]


def test_logistic_data_refuses_a_bad_size():
    with pytest.raises(InvalidParameterError):
        logistic_data(0, 2)


@pytest.mark.parametrize(
    ("name", "claim", "epsilon"),
    [
        ("dpsgd.ablq.poisson", "poisson_pld", poisson_epsilon(4.0, 0.1, 10, 1e-5)),
        ("dpsgd.ablq.shuffle", "partition", partition_epsilon(4.0, 1, 1e-5)),
        ("dpsgd.ablq.balls_in_bins", "partition", partition_epsilon(4.0, 1, 1e-5)),
        ("dpsgd.logistic.poisson", "poisson_pld", poisson_epsilon(4.0, 0.2, 5, 1e-5)),
        ("dpsgd.logistic.shuffle", "partition", partition_epsilon(4.0, 1, 1e-5)),
    ],
)
def test_dpsgd_registry_entries_declare_their_accountants_claim_and_are_certified(
    name, claim, epsilon
):
    from privaudit import registry

    mech = registry.get(name)  # refuses an uncertified or stale entry
    assert mech.claim == claim and mech.spec.proof_status == "proven"
    assert mech.spec.guarantee.epsilon == pytest.approx(epsilon)
    assert mech.spec.guarantee.delta == 1e-5
    certificate = registry.certificate(name)
    assert certificate is not None and certificate.verdict == "no_violation"
    # conclusive: the certificate's audit could detect twice the claim
    assert certificate.power is not None and certificate.power.conclusive
    assert certificate.config.samples >= 1_000_000 and certificate.config.confidence >= 0.999
