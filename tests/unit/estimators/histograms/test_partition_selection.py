"""The analyst's partition selection and histogram: results, unbounded keys, bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.estimators.histograms import (
    PartitionSelection,
    PrivateHistogram,
    private_histogram,
    private_partition_selection,
)
from privaudit.spec.errors import EmptyInputError, InvalidInputError, InvalidParameterError

KEYS = ["big"] * 200 + ["mid"] * 30 + ["one"]


@pytest.mark.parametrize("method", ["optimal", "laplace", "gaussian"])
def test_selection_releases_large_keys_never_absent_ones(method):
    sel = private_partition_selection(KEYS, 1.0, 1e-6, method=method, rng=0)
    assert isinstance(sel, PartitionSelection)
    assert "big" in sel.keys and "mid" in sel.keys
    assert set(sel.keys) <= set(KEYS)
    assert sel.spec.guarantee.delta == 1e-6


@pytest.mark.parametrize("method", ["laplace", "gaussian"])
def test_histogram_counts_clear_the_threshold(method):
    hist = private_histogram(KEYS, 1.0, 1e-6, method=method, rng=1)
    assert isinstance(hist, PrivateHistogram)
    assert set(hist.keys) <= {"big", "mid", "one"}
    assert all(v >= hist.threshold for v in hist.counts.values())
    assert abs(hist.counts["big"] - 200) < 30


def test_one_user_key_is_rarely_released():
    kept = sum(
        "one" in private_partition_selection(KEYS, 1.0, 1e-3, rng=s).keys for s in range(200)
    )
    assert kept <= 5  # P[kept] = 1e-3 per draw; P[kept > 5 in 200] < 1e-8


def test_seeded_results_are_reproducible():
    a = private_histogram(KEYS, 1.0, 1e-3, rng=np.random.default_rng(4))
    b = private_histogram(KEYS, 1.0, 1e-3, rng=np.random.default_rng(4))
    assert a.counts == b.counts


def test_bad_inputs():
    with pytest.raises(EmptyInputError):
        private_partition_selection([], 1.0, 1e-3)
    with pytest.raises(InvalidInputError, match="hashable"):
        private_partition_selection([[1], [2]], 1.0, 1e-3)
    with pytest.raises(InvalidInputError, match="NaN"):
        private_partition_selection([float("nan")], 1.0, 1e-3)
    with pytest.raises(InvalidInputError, match="sequence"):
        private_partition_selection("abc", 1.0, 1e-3)
    with pytest.raises(InvalidParameterError, match="histogram"):
        private_histogram(KEYS, 1.0, 1e-3, method="optimal")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        private_partition_selection(KEYS, -1.0, 1e-3)
    with pytest.raises(InvalidParameterError):
        private_partition_selection(KEYS, 1.0, 0.7)


def test_numpy_keys_come_back_as_python_values_and_numpy_nan_is_refused():
    sel = private_partition_selection(np.array([3] * 40 + [4]), 1.0, 1e-6, rng=0)
    assert sel.keys == (3,) and type(sel.keys[0]) is int
    with pytest.raises(InvalidInputError, match="NaN"):
        private_partition_selection(np.full(3, np.nan, dtype=np.float32), 1.0, 1e-6)
