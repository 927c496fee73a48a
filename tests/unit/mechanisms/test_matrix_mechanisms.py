"""Unit tests of privaudit.mechanisms.matrix: factorizations, sensitivities, estimators, noise.

The one statistical test (FFT-generated noise covariance) runs at a fixed seed; its
threshold is a 6-sigma band of the sample covariance, so a correct implementation fails
it with probability below 1e-6 per entry (and deterministically never at this seed).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.mechanisms.matrix import (
    MATRIX_RELATIONS,
    PREFIX_METHODS,
    binary_tree_mechanism,
    binary_tree_sensitivity,
    calibrate_gaussian,
    column_norms,
    factorization_mechanism,
    factorization_sensitivity,
    landau_asymptotic,
    landau_constants,
    prefix_sum_error_profile,
    prefix_sum_lower_bound,
    sqrt_toeplitz_apply,
    sqrt_toeplitz_coefficients,
    sqrt_toeplitz_matrix,
    sqrt_toeplitz_mechanism,
    sqrt_toeplitz_sensitivity,
    tree_column_counts,
    tree_honaker_prefix_sums,
    tree_honaker_variances,
    tree_node_sums,
    tree_plain_prefix_sums,
    tree_plain_variances,
    tree_strategy_matrix,
    workload_error,
)
from privaudit.spec import ApproxDP, GaussianDP, ZeroConcentratedDP
from privaudit.spec.errors import (
    EpsilonRangeError,
    InputShapeError,
    InvalidInputError,
    InvalidParameterError,
    NonFiniteInputError,
)

LENGTHS = (1, 2, 3, 5, 8, 9, 13, 16, 17, 31)


def _prefix(T):
    return np.tril(np.ones((T, T)))


@pytest.mark.parametrize("T", (1, 2, 7, 16, 65, 200))
def test_sqrt_factorization_squares_to_the_prefix_matrix(T):
    root = sqrt_toeplitz_matrix(T)
    np.testing.assert_allclose(root @ root, _prefix(T), atol=1e-12)


def test_sqrt_coefficients_are_central_binomials_over_four_to_the_k():
    c = sqrt_toeplitz_coefficients(30)
    exact = [math.comb(2 * k, k) / 4**k for k in range(30)]
    np.testing.assert_allclose(c, exact, rtol=1e-14)
    # (1 - x)^(-1/2) squared is 1/(1 - x): the self-convolution is all ones
    np.testing.assert_allclose(np.convolve(c, c)[:30], np.ones(30), rtol=1e-13)


@pytest.mark.parametrize("T", (1, 4, 16, 100, 257))
def test_sqrt_sensitivity_is_the_largest_column_norm(T):
    norms = column_norms(sqrt_toeplitz_matrix(T))
    assert norms.argmax() == 0
    assert sqrt_toeplitz_sensitivity(T) == pytest.approx(norms.max(), rel=1e-13)
    assert landau_constants(T)[-1] == pytest.approx(norms.max() ** 2, rel=1e-13)


def test_landau_constants_within_zhaos_bounds():
    # Zhao: asymptotic + 5/(192 pi m^2) < G(n) <= that + 3/(128 pi m^3), m = n + 1
    g = landau_constants(2000)
    for n in (10, 100, 1000, 1999):
        m = n + 1
        low = float(landau_asymptotic(n)) + 5.0 / (192 * math.pi * m**2)
        assert low - 1e-13 < g[n] <= low + 3.0 / (128 * math.pi * m**3) + 1e-13


@pytest.mark.parametrize("T", LENGTHS)
def test_tree_column_counts_against_brute_force(T):
    strategy = tree_strategy_matrix(T)
    assert set(np.unique(strategy)) <= {0.0, 1.0}
    # every row is a dyadic interval inside [0, T)
    for row in strategy:
        (idx,) = np.nonzero(row)
        size = idx.size
        assert size & (size - 1) == 0 and idx[0] % size == 0 and np.all(np.diff(idx) == 1)
    brute = np.array(
        [
            sum(
                1
                for lvl in range(T.bit_length())
                for j in range(T >> lvl)
                if j << lvl <= t < (j + 1) << lvl
            )
            for t in range(T)
        ]
    )
    np.testing.assert_array_equal(tree_column_counts(T), brute)
    np.testing.assert_array_equal((strategy**2).sum(axis=0), brute)
    assert binary_tree_sensitivity(T) ** 2 == pytest.approx(T.bit_length())  # floor(log2 T) + 1


@pytest.mark.parametrize("T", LENGTHS)
def test_plain_tree_estimator_is_exact_without_noise(T):
    x = np.random.default_rng(T).random((3, T))
    np.testing.assert_allclose(tree_plain_prefix_sums(tree_node_sums(x), T), np.cumsum(x, 1))
    blocks = [bin(t + 1).count("1") for t in range(T)]
    np.testing.assert_array_equal(tree_plain_variances(T), blocks)


@pytest.mark.parametrize("T", LENGTHS)
def test_honaker_estimator_equals_least_squares(T):
    strategy = tree_strategy_matrix(T)
    y = np.random.default_rng(100 + T).normal(size=(4, strategy.shape[0]))
    lstsq = np.linalg.lstsq(strategy, y.T, rcond=None)[0].T.cumsum(axis=1)
    np.testing.assert_allclose(tree_honaker_prefix_sums(y, T), lstsq, atol=1e-10)
    gram_inv = np.linalg.inv(strategy.T @ strategy)
    exact = np.diag(_prefix(T) @ gram_inv @ _prefix(T).T)
    np.testing.assert_allclose(tree_honaker_variances(T), exact, rtol=1e-12)
    assert np.all(tree_honaker_variances(T) <= tree_plain_variances(T) + 1e-12)


def test_fft_noise_has_the_covariance_of_the_sqrt_factor():
    T, draws = 96, 20_000  # the FFT path (T > 64)
    rng = np.random.default_rng(2024)
    noise = sqrt_toeplitz_apply(rng.standard_normal((draws, T)))
    root = sqrt_toeplitz_matrix(T)
    target = root @ root.T
    sample = noise.T @ noise / draws
    # Var of a sample covariance entry: (S_ij^2 + S_ii S_jj)/draws; a 6-sigma band
    band = 6.0 * np.sqrt((target**2 + np.outer(np.diag(target), np.diag(target))) / draws)
    assert np.all(np.abs(sample - target) <= band)
    x = rng.normal(size=(2, 1000))
    np.testing.assert_allclose(sqrt_toeplitz_apply(x), x @ sqrt_toeplitz_matrix(1000).T, atol=1e-9)


def test_substitution_of_records_uses_pairwise_differences():
    strategy = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
    brute = max(
        np.linalg.norm(strategy[:, i] - strategy[:, j])
        for i in range(3)
        for j in range(3)
        if i != j
    )
    assert factorization_sensitivity(strategy, "substitute_one_records") == pytest.approx(brute)
    assert factorization_sensitivity(strategy, "add_remove_one") == pytest.approx(2.0)
    assert factorization_sensitivity(strategy, "substitute_one") == pytest.approx(2.0)


def test_workload_error_matches_the_frobenius_and_row_norms():
    L = np.array([[1.0, 2.0], [0.0, 3.0]])
    err = workload_error(L, 2.0)
    assert err.total_squared_error == pytest.approx(4.0 * 14.0)
    assert err.max_query_variance == pytest.approx(4.0 * 9.0)
    assert err.max_query_std == pytest.approx(6.0)
    assert err.mean_squared_error == pytest.approx(28.0)


def test_calibration_targets():
    sigma, g, _ = calibrate_gaussian(2.0, epsilon=1.0, delta=1e-5)
    assert isinstance(g, ApproxDP) and sigma == pytest.approx(2 * 3.7306, rel=1e-4)
    sigma, g, _ = calibrate_gaussian(2.0, rho=0.5)
    assert isinstance(g, ZeroConcentratedDP) and sigma == pytest.approx(2.0, rel=1e-5)
    sigma, g, _ = calibrate_gaussian(2.0, mu=0.5)
    assert isinstance(g, GaussianDP) and sigma == pytest.approx(4.0, rel=1e-5)
    with pytest.raises(InvalidParameterError, match="exactly one"):
        calibrate_gaussian(1.0, epsilon=1.0, delta=1e-5, rho=0.1)
    with pytest.raises(InvalidParameterError, match="exactly one"):
        calibrate_gaussian(1.0)


@pytest.mark.parametrize("relation", ("substitute_one", "add_remove_one"))
@pytest.mark.parametrize("factory", (binary_tree_mechanism, sqrt_toeplitz_mechanism))
def test_prefix_factories_declare_the_exact_sensitivity(factory, relation):
    mech = factory(16, 1.0, 1e-5, relation=relation)
    exact = (
        binary_tree_sensitivity if factory is binary_tree_mechanism else sqrt_toeplitz_sensitivity
    )(16)
    claim = mech.spec.global_sensitivity
    assert claim.norm == "l2" and exact <= claim.value <= exact * (1 + 2e-5)
    data = np.zeros(16) if relation == "substitute_one" else np.array([0, 5, 5])
    out = mech.sample(data, size=7, rng=1)
    assert out.shape == (7, mech.spec.output_dimension)
    statistic = mech.statistic(data)
    x = mech.data_vector(data)
    strategy = (
        tree_strategy_matrix(16) if factory is binary_tree_mechanism else sqrt_toeplitz_matrix(16)
    )
    np.testing.assert_allclose(statistic, strategy @ x, atol=1e-12)


def test_zcdp_and_gdp_factories():
    mech = sqrt_toeplitz_mechanism(8, rho=0.5)
    assert isinstance(mech.spec.guarantee, ZeroConcentratedDP)
    mech = binary_tree_mechanism(8, mu=1.0)
    assert isinstance(mech.spec.guarantee, GaussianDP)
    assert mech.sigma == pytest.approx(2.0, rel=3e-5)


def test_general_factorization_mechanism_relations():
    strategy = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    mech = factorization_mechanism(
        strategy, 1.0, 1e-5, relation="substitute_one_records", n_records=4
    )
    assert mech.spec.global_sensitivity.value == pytest.approx(math.sqrt(2.0), rel=2e-5)
    np.testing.assert_allclose(mech.statistic(np.array([0, 0, 1, 2])), [3.0, 2.0])
    assert set(MATRIX_RELATIONS) == {"substitute_one", "add_remove_one", "substitute_one_records"}


def test_error_profiles_and_lower_bound():
    bound = prefix_sum_lower_bound(1024, 1.0, 1e-5)
    assert bound.factorization_norm_bound == pytest.approx((2 + math.log(2049 / 3)) / math.pi)
    for method in PREFIX_METHODS:
        profile = prefix_sum_error_profile(64, method)
        assert profile.variance_units.shape == (64,)
        assert bound.efficiency_ratio(prefix_sum_error_profile(1024, method)) >= 1.0
    sqrt = prefix_sum_error_profile(64, "sqrt_toeplitz")
    assert sqrt.max_error_factor == pytest.approx(landau_constants(64)[-1])
    assert prefix_sum_error_profile(64, "output_perturbation").max_error_factor == pytest.approx(
        8.0
    )


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: binary_tree_mechanism(0, 1.0, 1e-5), InvalidParameterError),
        (lambda: sqrt_toeplitz_mechanism(2.5, 1.0, 1e-5), InvalidParameterError),
        (lambda: sqrt_toeplitz_mechanism(8, -1.0, 1e-5), EpsilonRangeError),
        (lambda: sqrt_toeplitz_mechanism(8, 1.0, 1.5), InvalidParameterError),
        (lambda: binary_tree_mechanism(8, 1.0, 1e-5, relation="edge"), InvalidParameterError),
        (lambda: factorization_sensitivity(np.eye(2), "swap"), InvalidParameterError),
        (lambda: column_norms(np.array([[np.nan]])), NonFiniteInputError),
        (lambda: column_norms(np.ones(3)), InputShapeError),
        (lambda: factorization_mechanism(np.zeros((2, 2)), 1.0, 1e-5), InvalidParameterError),
        (lambda: prefix_sum_error_profile(8, "magic"), InvalidParameterError),
        (lambda: tree_honaker_prefix_sums(np.zeros(7), 8), InputShapeError),
        (
            lambda: sqrt_toeplitz_mechanism(4, 1.0, 1e-5).sample([0.0, 2.0, 0.0, 0.0], 2, 0),
            InvalidInputError,
        ),
        (
            lambda: sqrt_toeplitz_mechanism(4, 1.0, 1e-5).sample([0.0, np.nan, 0.0, 0.0], 2, 0),
            InvalidInputError,
        ),
    ],
)
def test_bad_inputs_raise_specific_errors(call, error):
    with pytest.raises(error):
        call()
