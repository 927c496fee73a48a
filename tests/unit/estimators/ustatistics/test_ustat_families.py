"""Families of k-subsets: counts M_i and M_ij, the checks (10)/(17), resampling, eq. (11)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from privaudit.estimators.ustatistics import (
    FamilyCheckResult,
    Kernel,
    SubsetFamily,
    collision_kernel,
    default_subsample_size,
    family_min_weight_sum,
    family_projections,
    family_weighted_sum,
    local_hajek_projections,
    mean_kernel,
    min_weight_tuple_sum,
    symmetry_kernel,
    variance_kernel,
    weighted_tuple_sum,
)
from privaudit.spec.errors import InvalidInputError, InvalidParameterError

FAST = settings(max_examples=30, deadline=None)


@st.composite
def explicit_families(draw):
    n = draw(st.integers(2, 9))
    k = draw(st.integers(1, min(n, 4)))
    subsets = list(itertools.combinations(range(n), k))
    chosen = draw(st.lists(st.sampled_from(subsets), min_size=1, max_size=25))
    return SubsetFamily(n, k, "subsampled", np.array(chosen, dtype=np.int64))


def _all_equal(data, tuples):
    values = data[tuples]
    return (values == values[:, :1]).all(axis=1).astype(float)


def brute_counts(family):
    members = Counter()
    pairs = Counter()
    for subset in family.tuples.tolist():
        members.update(subset)
        pairs.update(itertools.permutations(subset, 2))
    return members, pairs


# ------------------------------------------------------------ counts
@FAST
@given(explicit_families())
def test_counts_equal_brute_force(family):
    members, pairs = brute_counts(family)
    n, k = family.n, family.degree
    assert family.size == family.tuples.shape[0]
    assert family.member_counts.tolist() == [members[i] for i in range(n)]
    dense = family.pair_counts.toarray()
    assert dense.tolist() == [[pairs[(i, j)] for j in range(n)] for i in range(n)]
    assert family.max_member_fraction == pytest.approx(max(members.values()) / family.size)
    assert family.dependence == family.max_member_fraction
    ratios = [
        pairs[(i, j)] / members[i] for i in range(n) for j in range(n) if i != j and members[i]
    ]
    assert family.max_pair_ratio == pytest.approx(max(ratios, default=0.0) if k > 1 else 0.0)


@FAST
@given(explicit_families())
def test_check_agrees_with_the_definition(family):
    members, pairs = brute_counts(family)
    n, k, size = family.n, family.degree, family.size
    threshold = 3 * k / n
    passes = (
        all(members[i] > 0 for i in range(n))
        and all(members[i] / size <= threshold for i in range(n))
        and all(
            pairs[(i, j)] / members[i] <= threshold
            for i in range(n)
            for j in range(n)
            if i != j and members[i]
        )
    )
    result = family.check()
    assert isinstance(result, FamilyCheckResult)
    assert result.passed == passes
    assert result.threshold == pytest.approx(threshold)
    assert (result.failed_condition is None) == passes
    assert result.min_member_count == min(members[i] for i in range(n))


@pytest.mark.parametrize("n, k", [(5, 1), (6, 2), (7, 3), (8, 4)])
def test_all_tuples_counts_are_closed_form_and_match_enumeration(n, k):
    implicit = SubsetFamily.all_tuples(n, k)
    explicit = SubsetFamily(n, k, "subsampled", np.array(list(itertools.combinations(range(n), k))))
    assert implicit.tuples is None and implicit.is_implicit
    assert implicit.size == explicit.size == math.comb(n, k)
    np.testing.assert_array_equal(implicit.member_counts, explicit.member_counts)
    assert (
        implicit.max_member_fraction
        == pytest.approx(k / n)
        == pytest.approx(explicit.max_member_fraction)
    )
    assert implicit.max_pair_ratio == pytest.approx(explicit.max_pair_ratio)
    assert implicit.max_pair_ratio == pytest.approx((k - 1) / (n - 1))
    assert implicit.check().passed and explicit.check().passed


def test_all_tuples_is_never_materialised():
    family = SubsetFamily.all_tuples(10**6, 3)
    assert family.size == math.comb(10**6, 3)
    assert family.check().passed
    with pytest.raises(InvalidParameterError, match="implicit"):
        _ = family.pair_counts


def test_naive_blocks():
    family = SubsetFamily.naive_blocks(11, 3)
    assert family.tuples.tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert family.dependence == pytest.approx(1 / 3)
    result = family.check()
    assert not result.passed and result.failed_condition == "member_count_zero"
    assert result.offending_index == 9
    # without leftovers, blocks fail on M_ij/M_i = 1 > 3k/n once n > 3k
    result = SubsetFamily.naive_blocks(12, 3).check()
    assert result.failed_condition == "pair_ratio" and result.max_pair_ratio == 1.0
    assert SubsetFamily.naive_blocks(4, 1).check().passed


def test_crafted_family_fails_on_member_fraction():
    # every subset contains record 0: M_0/M = 1 > 3k/n
    tuples = np.array([[0, j] for j in range(1, 20)] * 3)
    result = SubsetFamily(20, 2, "subsampled", tuples).check()
    assert not result.passed
    assert result.failed_condition == "member_fraction" and result.offending_index == 0
    assert result.max_member_fraction == 1.0


def test_check_is_exact_at_the_threshold():
    # n = 6, k = 1: all six singletons twice → M_i/M = 1/6 ≤ 3/6; one record in half → 1/2 = 3k/n
    at_threshold = np.array([[0]] * 5 + [[1], [2], [3], [4], [5]])
    assert SubsetFamily(6, 1, "subsampled", at_threshold).check().passed
    over = np.array([[0]] * 6 + [[1], [2], [3], [4], [5]])
    assert SubsetFamily(6, 1, "subsampled", over).check().failed_condition == "member_fraction"


# ------------------------------------------------------------ subsampling
def test_subsampled_family_shape_and_reproducibility():
    first = SubsetFamily.subsampled(50, 3, 1000, 7)
    second = SubsetFamily.subsampled(50, 3, 1000, np.random.default_rng(7))
    np.testing.assert_array_equal(first.tuples, second.tuples)
    assert first.tuples.shape == (1000, 3) and first.kind == "subsampled"
    assert (np.diff(first.tuples, axis=1) > 0).all()
    assert first.tuples.min() >= 0 and first.tuples.max() < 50


@pytest.mark.parametrize(
    "n, k", [(6, 2), (5, 3), (4, 4)]
)  # both drawing methods (k² ≤ n and k² > n)
def test_subsampled_subsets_are_uniform(n, k):
    """Chi-square goodness of fit of subset frequencies; seeded, so deterministic.

    Under uniformity the test would reject with probability 10⁻³ for a random seed; with the
    fixed seed the outcome is fixed.
    """
    family = SubsetFamily.subsampled(n, k, 6000, 11)
    subsets = list(itertools.combinations(range(n), k))
    counts = Counter(map(tuple, family.tuples.tolist()))
    assert set(counts) <= set(subsets)
    observed = [counts[s] for s in subsets]
    if len(subsets) > 1:
        assert chisquare(observed).pvalue > 1e-3
    else:
        assert observed == [6000]


def test_draw_valid_subsampled_resamples_until_the_checks_pass():
    n, k = 30, 2
    size = 300  # small: a single draw fails the checks often
    failures = sum(
        not SubsetFamily.subsampled(n, k, size, seed).check().passed for seed in range(20)
    )
    assert failures > 0
    family = SubsetFamily.draw_valid_subsampled(n, k, size, 0, max_attempts=200)
    assert family.check().passed and family.size == size


def test_draw_valid_subsampled_gives_up_with_a_clear_error():
    with pytest.raises(InvalidParameterError, match=r"3 attempts.*member_count_zero"):
        SubsetFamily.draw_valid_subsampled(40, 2, 5, 0, max_attempts=3)


def test_default_subsample_size_passes_the_checks():
    n, k, alpha = 40, 2, 0.05
    size = default_subsample_size(n, k, alpha)
    assert size == math.ceil(8 * n**2 / k**2 * math.log(n / alpha))
    assert SubsetFamily.subsampled(n, k, size, 3).check().passed


# ------------------------------------------------------------ eq. (11)
@FAST
@given(explicit_families(), st.integers(0, 2**31))
def test_family_projections_equal_brute_force(family, seed):
    rng = np.random.default_rng(seed)
    kernel, data = {
        1: (mean_kernel(-1, 1), rng.uniform(-1, 1, family.n)),
        2: (collision_kernel(), rng.integers(0, 3, family.n)),
        3: (symmetry_kernel(-1, 1), rng.uniform(-1, 1, family.n)),
        4: (
            Kernel("all_equal", 4, _all_equal, 0.0, 1.0),
            rng.integers(0, 2, family.n).astype(float),
        ),
    }[family.degree]
    values = [
        float(kernel.function(kernel.validate_data(data), np.array([s]))[0]) for s in family.tuples
    ]
    result = family_projections(data, kernel, family)
    assert result.family_mean == pytest.approx(np.mean(values)) == pytest.approx(result.u_statistic)
    np.testing.assert_allclose(result.kernel_values, values)
    for i in range(family.n):
        mine = [v for s, v in zip(family.tuples.tolist(), values, strict=True) if i in s]
        if mine:
            assert result.projections[i] == pytest.approx(np.mean(mine))
        else:
            assert np.isnan(result.projections[i])
    w = rng.choice([0.0, 0.3, 1.0], size=family.n)
    mins = [min(w[j] for j in s) for s in family.tuples.tolist()]
    assert family_weighted_sum(data, kernel, family, w) == pytest.approx(np.dot(mins, values))
    assert family_min_weight_sum(family, w) == pytest.approx(sum(mins))


def test_all_tuples_family_delegates_to_the_exact_paths(rng):
    x = rng.uniform(0, 1, 25)
    kernel = variance_kernel(0, 1)
    family = SubsetFamily.all_tuples(25, 2)
    result = family_projections(x, kernel, family)
    exact = local_hajek_projections(x, kernel)
    assert result.family_mean == exact.u_statistic and result.kernel_values is None
    np.testing.assert_array_equal(result.projections, exact.projections)
    w = rng.uniform(0, 1, 25)
    assert family_weighted_sum(x, kernel, family, w) == weighted_tuple_sum(x, kernel, w)
    assert family_min_weight_sum(family, w) == min_weight_tuple_sum(w, 2)


# ------------------------------------------------------------ bad inputs
@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: SubsetFamily.all_tuples(3, 4), "n >= k"),
        (lambda: SubsetFamily.all_tuples(0, 1), "n must be"),
        (lambda: SubsetFamily.naive_blocks(5, 0), "k must be"),
        (lambda: SubsetFamily.subsampled(5, 2, 0, 0), "size"),
        (lambda: SubsetFamily(5, 2, "subsampled", np.array([[0, 0]])), "repeats"),
        (lambda: SubsetFamily(5, 2, "subsampled", np.array([[0, 5]])), "0..4"),
        (lambda: SubsetFamily(5, 2, "subsampled", np.array([[0, 1, 2]])), r"\(M >= 1, 2\)"),
        (lambda: SubsetFamily(5, 2, "subsampled", np.array([[0.0, 1.0]])), "integers"),
        (lambda: SubsetFamily(5, 2, "random", np.array([[0, 1]])), "kind"),
        (lambda: SubsetFamily(5, 2, "all_tuples", np.array([[0, 1]])), "implicit"),
        (lambda: default_subsample_size(10, 2, 1.5), "alpha"),
        (lambda: SubsetFamily.draw_valid_subsampled(10, 2, 10, 0, max_attempts=0), "max_attempts"),
    ],
)
def test_bad_family_parameters(build, match):
    with pytest.raises(InvalidParameterError, match=match):
        build()


def test_family_and_data_must_agree():
    with pytest.raises(InvalidInputError, match="n=5.*n=4"):
        family_projections(np.zeros(4), variance_kernel(0, 1), SubsetFamily.all_tuples(5, 2))
    with pytest.raises(InvalidParameterError, match="size 3.*degree 2"):
        family_projections(np.zeros(5), variance_kernel(0, 1), SubsetFamily.all_tuples(5, 3))
    with pytest.raises(InvalidParameterError, match="SubsetFamily"):
        family_projections(np.zeros(5), variance_kernel(0, 1), [[0, 1]])
