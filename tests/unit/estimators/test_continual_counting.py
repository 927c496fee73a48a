"""Unit tests of privaudit.estimators.continual_counting.

The Monte Carlo checks run at fixed seeds with 1000 releases; their bands are 6 standard
errors of a variance estimate (chi-square, relative s.e. √(2/1000) ≈ 4.5 %), so a correct
estimator fails with probability below 1e-8 per checked value.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.estimators.continual_counting import (
    PREFIX_SUM_METHODS,
    private_linear_workload,
    private_prefix_sums,
)
from privaudit.spec.errors import (
    EpsilonRangeError,
    InconsistentSpecError,
    InputShapeError,
    InvalidInputError,
    InvalidParameterError,
)


@pytest.mark.parametrize("method", PREFIX_SUM_METHODS)
def test_prefix_sums_errors_have_the_reported_std(method):
    stream = np.random.default_rng(0).random(24)
    rng = np.random.default_rng(11)
    runs = [private_prefix_sums(stream, 1.0, 1e-5, method=method, rng=rng) for _ in range(1000)]
    errors = np.stack([r.estimate for r in runs]) - np.cumsum(stream)
    std = runs[0].per_step_std
    ratio = errors.var(axis=0) / std**2
    assert np.all(np.abs(ratio - 1.0) < 6 * np.sqrt(2 / 1000))
    assert np.all(np.abs(errors.mean(axis=0)) < 6 * std / np.sqrt(1000))
    assert runs[0].max_std == pytest.approx(std.max())
    assert runs[0].max_error_bound(0.05) > runs[0].max_std


def test_honaker_beats_the_plain_tree_and_sqrt_wins_at_the_end():
    stream = np.zeros(1000)
    tree = private_prefix_sums(stream, 1.0, 1e-5, method="tree", rng=0)
    honaker = private_prefix_sums(stream, 1.0, 1e-5, method="honaker", rng=0)
    sqrt = private_prefix_sums(stream, 1.0, 1e-5, method="sqrt_toeplitz", rng=0)
    assert honaker.max_std < tree.max_std
    assert sqrt.max_std < honaker.max_std
    assert honaker.spec == tree.spec


def test_add_remove_events():
    r = private_prefix_sums([0, 3, 3, 7], 1.0, 1e-5, relation="add_remove_one", length=8, rng=1)
    assert r.estimate.shape == (8,)
    assert r.spec.relation.kind == "add_remove_one"


def test_linear_workload_checks_the_factorization():
    W = np.tril(np.ones((4, 4)))
    r = private_linear_workload([0.1, 0.2, 0.3, 0.4], W, W, np.eye(4), 1.0, 1e-5, rng=0)
    assert r.estimate.shape == (4,)
    np.testing.assert_allclose(r.per_query_std, r.noise_std * np.sqrt([1, 2, 3, 4]))
    assert r.total_squared_error == pytest.approx(r.noise_std**2 * 10)
    with pytest.raises(InconsistentSpecError):
        private_linear_workload([0.1] * 4, W, np.eye(4), np.eye(4), 1.0, 1e-5, rng=0)
    with pytest.raises(InputShapeError):
        private_linear_workload([0.1] * 4, W, np.eye(3), np.eye(4), 1.0, 1e-5, rng=0)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"data": [0.5, np.nan]}, InvalidInputError),
        ({"data": [0.5, 1.5]}, InvalidInputError),
        ({"data": []}, InvalidInputError),
        ({"data": [[0.5]]}, InputShapeError),
        ({"method": "kalman"}, InvalidParameterError),
        ({"epsilon": 0.0}, EpsilonRangeError),
        ({"relation": "add_remove_one"}, InvalidParameterError),
        ({"relation": "add_remove_one", "length": 0}, InvalidParameterError),
        ({"relation": "add_remove_one", "length": 2, "data": [0, 5]}, InvalidInputError),
    ],
)
def test_bad_inputs(kwargs, error):
    args = {"data": [0.5, 0.25], "epsilon": 1.0, "delta": 1e-5} | kwargs
    data, eps, delta = args.pop("data"), args.pop("epsilon"), args.pop("delta")
    with pytest.raises(error):
        private_prefix_sums(data, eps, delta, **args)
