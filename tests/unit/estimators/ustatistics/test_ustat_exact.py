"""Exact U_n, all local Hájek projections ĥ(i), and min-weighted tuple sums.

Every path (closed-form fast paths, the k = 2 blocked path, chunked enumeration) is
compared with the brute-force definitions (eqs. 1 and 9 of Chaudhuri et al. 2024)
evaluated tuple by tuple in pure Python.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.estimators.ustatistics import (
    HajekProjections,
    Kernel,
    adjacency_edge_kernel,
    adjacency_triangle_kernel,
    auc_kernel,
    collision_kernel,
    gini_mean_difference_kernel,
    kendall_tau_kernel,
    local_hajek_projections,
    mean_kernel,
    min_weight_tuple_sum,
    rgg_edge_kernel,
    rgg_triangle_kernel,
    symmetry_kernel,
    table_kernel,
    triangle_product_kernel,
    u_statistic,
    variance_kernel,
    weighted_tuple_sum,
    wilcoxon_signed_rank_kernel,
)
from privaudit.estimators.ustatistics.fast_paths import (
    adjacency_from_points,
    kendall_concordance_sums,
)
from privaudit.spec.errors import InvalidInputError, InvalidParameterError, KernelRangeError

FAST = settings(max_examples=25, deadline=None)


def brute_force(data, kernel):
    """U_n and ĥ(i) straight from eqs. (1) and (9), one tuple at a time."""
    data = kernel.validate_data(data)
    n, k = data.shape[0], kernel.degree
    total, per_index = 0.0, [0.0] * n
    for subset in itertools.combinations(range(n), k):
        value = float(kernel.function(data, np.array([subset]))[0])
        total += value
        for i in subset:
            per_index[i] += value
    return total / math.comb(n, k), np.array(per_index) / math.comb(n - 1, k - 1)


def brute_weighted(data, kernel, weights):
    data = kernel.validate_data(data)
    n, k = data.shape[0], kernel.degree
    return sum(
        min(weights[i] for i in subset) * float(kernel.function(data, np.array([subset]))[0])
        for subset in itertools.combinations(range(n), k)
    )


def assert_matches_brute_force(data, kernel, method):
    u_value, projections = brute_force(data, kernel)
    result = local_hajek_projections(data, kernel, method=method)
    assert result.u_statistic == pytest.approx(u_value, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(result.projections, projections, rtol=1e-9, atol=1e-12)
    # each S is counted k times: Σ_i ĥ(i) = k·C(n,k)/C(n−1,k−1)·U_n = n·U_n
    assert result.projections.sum() == pytest.approx(
        result.n * result.u_statistic, rel=1e-9, abs=1e-12
    )
    assert (result.n, result.degree) == (len(projections), kernel.degree)
    return result


# ------------------------------------------------------------ strategies
sizes = st.integers(4, 11)
reals = st.floats(-3, 3, allow_nan=False, width=32)
tied_reals = st.integers(-3, 3).map(float)  # many ties and exact zeros


@st.composite
def real_samples(draw, elements=reals):
    return np.array(draw(st.lists(elements, min_size=4, max_size=11)), dtype=float)


@st.composite
def pair_samples(draw):
    n = draw(sizes)
    values = draw(st.lists(st.tuples(tied_reals, tied_reals), min_size=n, max_size=n))
    return np.array(values, dtype=float)


@st.composite
def graphs(draw):
    n = draw(sizes)
    bits = draw(st.lists(st.booleans(), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2))
    adjacency = np.zeros((n, n))
    adjacency[np.triu_indices(n, 1)] = bits
    return adjacency + adjacency.T


@st.composite
def sphere_points(draw):
    n = draw(sizes)
    seed = draw(st.integers(0, 2**31))
    points = np.random.default_rng(seed).normal(size=(n, 3))
    return points / np.linalg.norm(points, axis=1, keepdims=True)


# ------------------------------------------------------------ fast paths = brute force
@FAST
@given(real_samples(st.one_of(reals, tied_reals)))
def test_real_kernel_paths_equal_brute_force(x):
    for kernel in (
        mean_kernel(-3, 3),
        variance_kernel(-3, 3),
        gini_mean_difference_kernel(-3, 3),
        wilcoxon_signed_rank_kernel(),
    ):
        fast = assert_matches_brute_force(x, kernel, "auto")
        assert fast.method.startswith("fast:")
        assert_matches_brute_force(x, kernel, "generic")


@FAST
@given(pair_samples())
def test_kendall_fast_path_equals_brute_force_with_ties(z):
    assert_matches_brute_force(z, kendall_tau_kernel(), "fast")
    assert_matches_brute_force(z, kendall_tau_kernel(), "blocked")


@FAST
@given(st.lists(st.integers(0, 4), min_size=4, max_size=11), st.integers(0, 2**31))
def test_label_kernel_fast_paths_equal_brute_force(labels, seed):
    labels = np.array(labels)
    table = np.random.default_rng(seed).uniform(-1, 1, (5, 5))
    for kernel in (collision_kernel(), table_kernel(table + table.T)):
        assert_matches_brute_force(labels, kernel, "fast")
        assert_matches_brute_force(labels, kernel, "generic")


@FAST
@given(pair_samples())
def test_auc_fast_path_equals_brute_force(records):
    records[:, 1] = records[:, 1] > 0  # labels in {0, 1}, scores with ties
    assert_matches_brute_force(records, auc_kernel(), "fast")


@FAST
@given(graphs())
def test_graph_kernel_fast_paths_equal_brute_force(adjacency):
    for data in (adjacency, sp.csr_array(adjacency)):
        for kernel in (adjacency_edge_kernel(), adjacency_triangle_kernel()):
            assert_matches_brute_force(data, kernel, "fast")
            assert_matches_brute_force(data, kernel, "generic")


@FAST
@given(sphere_points(), st.floats(0.2, 2.1))
def test_rgg_fast_paths_equal_brute_force(points, radius):
    for kernel in (rgg_edge_kernel(radius), rgg_triangle_kernel(radius)):
        assert_matches_brute_force(points, kernel, "fast")


def test_rgg_boundary_pairs_agree_with_the_kernel():
    # points at distance exactly r (and duplicated points at distance 0)
    points = np.array(
        [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [1.0, 0.0, 0.0]]
    )
    for kernel in (rgg_edge_kernel(0.5), rgg_triangle_kernel(0.5)):
        assert_matches_brute_force(points, kernel, "fast")


@FAST
@given(real_samples(), st.integers(1, 7))
def test_blocked_path_is_exact_for_every_block_size(x, block_size):
    u_value, projections = brute_force(x, variance_kernel(-3, 3))
    result = local_hajek_projections(
        x, variance_kernel(-3, 3), method="blocked", block_size=block_size
    )
    assert result.method == "blocked"
    assert result.u_statistic == pytest.approx(u_value, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(result.projections, projections, rtol=1e-9, atol=1e-12)


@FAST
@given(real_samples())
def test_degree_three_enumeration_equals_brute_force(x):
    result = assert_matches_brute_force(x, symmetry_kernel(-3, 3), "auto")
    assert result.method == "generic"


def _all_equal(data, tuples):
    values = data[tuples]
    return (values == values[:, :1]).all(axis=1).astype(float)


@pytest.mark.parametrize("k", [1, 2, 4, 5])
def test_general_degree_enumeration_equals_brute_force(rng, k):
    # the Theorem 3 lower-bound kernel 1(x_1 = … = x_k) on labels
    kernel = Kernel(f"all_equal_{k}", k, _all_equal, 0.0, 1.0)
    data = rng.integers(0, 2, 10).astype(float)
    assert_matches_brute_force(data, kernel, "generic")


def test_fast_paths_equal_generic_paths_at_moderate_n(rng):
    n = 160
    x = rng.uniform(-1, 1, n)
    tied = np.round(rng.normal(size=(n, 2)), 1)
    labels = rng.integers(0, 6, n)
    scored = np.column_stack([np.round(rng.normal(size=n), 1), rng.integers(0, 2, n)])
    points = rng.normal(size=(n, 3))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    adjacency = adjacency_from_points(points, 0.6)
    cases = [
        (variance_kernel(-1, 1), x),
        (gini_mean_difference_kernel(-1, 1), x),
        (wilcoxon_signed_rank_kernel(), np.round(x, 1)),
        (kendall_tau_kernel(), tied),
        (collision_kernel(), labels),
        (auc_kernel(), scored),
        (rgg_edge_kernel(0.6), points),
        (adjacency_edge_kernel(), adjacency),
    ]
    for kernel, data in cases:
        fast = local_hajek_projections(data, kernel, method="fast")
        generic = local_hajek_projections(data, kernel, method="generic", block_size=37)
        assert fast.u_statistic == pytest.approx(generic.u_statistic, rel=1e-10, abs=1e-12), (
            kernel.name
        )
        np.testing.assert_allclose(fast.projections, generic.projections, rtol=1e-10, atol=1e-12)


def _similarity(data, tuples):
    return np.exp(-np.abs(data[tuples[:, 0]] - data[tuples[:, 1]]))


@FAST
@given(real_samples(st.one_of(reals, tied_reals)))
def test_triangle_product_fast_path_equals_brute_force(x):
    similarity = Kernel("similarity", 2, _similarity, 0.0, 1.0)  # dense pairwise matrix
    result = assert_matches_brute_force(x, triangle_product_kernel(similarity), "fast")
    assert result.method == "fast:triangle_matrix_product"
    signed = triangle_product_kernel(kendall_tau_kernel())  # values in {−1, 0, 1}
    assert_matches_brute_force(np.column_stack([x, np.round(x[::-1])]), signed, "fast")


@FAST
@given(sphere_points(), st.floats(0.2, 1.5))
def test_triangle_product_of_rgg_edges_is_the_rgg_triangle_kernel(points, radius):
    product = local_hajek_projections(points, triangle_product_kernel(rgg_edge_kernel(radius)))
    direct = local_hajek_projections(points, rgg_triangle_kernel(radius), method="generic")
    assert product.u_statistic == pytest.approx(direct.u_statistic, abs=1e-12)
    np.testing.assert_allclose(product.projections, direct.projections, atol=1e-12)


def test_fast_paths_only_run_when_the_declared_range_is_implied():
    """A built-in function with a narrower declared range must go through the checked path."""
    from privaudit.estimators.ustatistics import DataDomain
    from privaudit.estimators.ustatistics import _builtin_functions as fn

    narrow = Kernel(
        "narrow_variance",
        2,
        fn.half_squared_difference,
        0.0,
        0.1,
        domain=DataDomain("real", lower=0.0, upper=1.0),
    )
    x = np.array([0.0, 0.2, 1.0])
    with pytest.raises(InvalidParameterError, match="no fast path"):
        local_hajek_projections(x, narrow, method="fast")
    with pytest.raises(KernelRangeError, match="0.5"):
        local_hajek_projections(x, narrow)
    with pytest.raises(KernelRangeError, match="0.5"):
        weighted_tuple_sum(x, narrow, np.ones(3))
    unbounded_data = Kernel("v", 2, fn.half_squared_difference, 0.0, 1.0)  # data not bounded
    assert local_hajek_projections(x, unbounded_data).method == "blocked"
    edges = Kernel("half_edges", 2, fn.adjacency_entry, 0.0, 0.5, domain=DataDomain("adjacency"))
    with pytest.raises(KernelRangeError):
        weighted_tuple_sum(np.ones((3, 3)) - np.eye(3), edges, np.ones(3))
    wide = Kernel(
        "wide_variance",
        2,
        fn.half_squared_difference,
        -1.0,
        5.0,
        domain=DataDomain("real", lower=0.0, upper=1.0),
    )
    assert local_hajek_projections(x, wide).method == "fast:variance_closed_form"


# ------------------------------------------------------------ closed forms
@FAST
@given(real_samples())
def test_variance_kernel_gives_the_unbiased_sample_variance(x):
    assert u_statistic(x, variance_kernel(-3, 3)) == pytest.approx(
        np.var(x, ddof=1), rel=1e-9, abs=1e-12
    )
    assert u_statistic(x, mean_kernel(-3, 3)) == pytest.approx(np.mean(x), abs=1e-12)


@FAST
@given(pair_samples())
def test_tau_a_equals_a_direct_pair_count(z):
    n = len(z)
    concordant = discordant = 0
    for i, j in itertools.combinations(range(n), 2):
        product = (z[i, 0] - z[j, 0]) * (z[i, 1] - z[j, 1])
        concordant += product > 0
        discordant += product < 0
    assert u_statistic(z, kendall_tau_kernel()) == pytest.approx(
        (concordant - discordant) / math.comb(n, 2)
    )
    sums = kendall_concordance_sums(z[:, 0], z[:, 1])
    assert sums.sum() == 2 * (concordant - discordant)


@FAST
@given(st.lists(st.integers(0, 5), min_size=2, max_size=30))
def test_collision_u_statistic_from_counts(labels):
    n = len(labels)
    counts = np.bincount(labels)
    result = local_hajek_projections(labels, collision_kernel())
    assert result.u_statistic == pytest.approx(np.sum(counts * (counts - 1)) / (n * (n - 1)))
    np.testing.assert_allclose(result.projections, (counts[labels] - 1) / (n - 1))


def test_triangle_projections_match_networkx(rng):
    points = rng.normal(size=(300, 3))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    adjacency = adjacency_from_points(points, 0.5)
    triangles = nx.triangles(nx.from_scipy_sparse_array(adjacency))
    counts = np.array([triangles[i] for i in range(300)])
    for kernel, data in (
        (adjacency_triangle_kernel(), adjacency),
        (rgg_triangle_kernel(0.5), points),
    ):
        result = local_hajek_projections(data, kernel)
        np.testing.assert_allclose(result.projections * math.comb(299, 2), counts)
        assert result.u_statistic == pytest.approx(counts.sum() / 3 / math.comb(300, 3))
    degrees = np.asarray(adjacency.sum(axis=1)).ravel()
    edge = local_hajek_projections(adjacency, adjacency_edge_kernel())
    np.testing.assert_allclose(edge.projections, degrees / 299)
    assert edge.u_statistic == pytest.approx(nx.density(nx.from_scipy_sparse_array(adjacency)))


def test_result_object(rng):
    result = local_hajek_projections(rng.uniform(0, 1, 20), variance_kernel(0, 1))
    assert isinstance(result, HajekProjections)
    assert result.tuple_sum == pytest.approx(result.u_statistic * 190)
    assert result.max_deviation == pytest.approx(
        np.max(np.abs(result.projections - result.u_statistic))
    )
    with pytest.raises(AttributeError):
        result.u_statistic = 0.0  # type: ignore[misc]  # frozen: the assignment must fail
    with pytest.raises(ValueError, match="read-only"):
        result.projections[0] = 1.0


@pytest.mark.parametrize(
    "kernel, data",
    [
        (mean_kernel(0, 1), [0.3]),
        (variance_kernel(0, 1), [0.2, 0.9]),
        (gini_mean_difference_kernel(0, 1), [0.2, 0.9]),
        (kendall_tau_kernel(), [[0.0, 1.0], [1.0, 0.0]]),
        (wilcoxon_signed_rank_kernel(), [-1.0, 1.0]),
        (collision_kernel(), [2, 2]),
        (auc_kernel(), [[0.1, 1.0], [0.4, 0.0]]),
        (symmetry_kernel(0, 1), [0.1, 0.2, 0.9]),
        (adjacency_triangle_kernel(), np.ones((3, 3)) - np.eye(3)),
        (adjacency_edge_kernel(), [[0, 1], [1, 0]]),
        (rgg_triangle_kernel(2.0), np.eye(3)),
    ],
)
def test_n_equal_to_k(kernel, data):
    """With n = k there is one tuple: U_n = h(X_[n]) and every ĥ(i) equals it."""
    fast = local_hajek_projections(data, kernel)
    generic = local_hajek_projections(data, kernel, method="generic")
    assert fast.u_statistic == pytest.approx(generic.u_statistic)
    np.testing.assert_allclose(fast.projections, generic.u_statistic)


# ------------------------------------------------------------ weighted sums
@st.composite
def weight_vectors(draw, n):
    weights = draw(
        st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.9, 1.0, 1.0, 1.0]), min_size=n, max_size=n)
    )
    return np.array(weights)


@FAST
@given(st.data())
def test_weighted_tuple_sum_equals_brute_force(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    n = data.draw(st.integers(4, 9))
    w = data.draw(weight_vectors(n))
    x = rng.uniform(-1, 1, n)
    adjacency = np.triu(rng.random((n, n)) < 0.5, 1).astype(float)
    adjacency += adjacency.T
    points = rng.normal(size=(n, 3))
    cases = [
        (variance_kernel(-1, 1), x),
        (symmetry_kernel(-1, 1), x),
        (collision_kernel(), rng.integers(0, 3, n)),
        (kendall_tau_kernel(), np.round(rng.normal(size=(n, 2)))),
        (adjacency_edge_kernel(), adjacency),
        (adjacency_triangle_kernel(), sp.csr_array(adjacency)),
        (rgg_edge_kernel(1.5), points),
        (rgg_triangle_kernel(1.5), points),
    ]
    for kernel, sample in cases:
        want = brute_weighted(sample, kernel, w)
        for method in ("auto", "generic"):
            got = weighted_tuple_sum(sample, kernel, w, method=method)
            assert got == pytest.approx(want, rel=1e-9, abs=1e-9), (kernel.name, method)


def test_weighted_tuple_sum_with_few_small_weights_uses_touching_tuples(rng):
    n = 60
    x = rng.uniform(0, 1, n)
    w = np.ones(n)
    w[[3, 17, 40]] = [0.2, 0.0, 0.7]
    kernel = variance_kernel(0, 1)
    assert weighted_tuple_sum(x, kernel, w) == pytest.approx(
        weighted_tuple_sum(x, kernel, w, method="generic")
    )
    assert weighted_tuple_sum(x, kernel, np.ones(n)) == pytest.approx(
        u_statistic(x, kernel) * math.comb(n, 2)
    )


@FAST
@given(
    st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.5, 1.0]), min_size=1, max_size=9), st.integers(1, 5)
)
def test_min_weight_tuple_sum_equals_brute_force(weights, k):
    if k > len(weights):
        with pytest.raises(InvalidParameterError, match="exceeds"):
            min_weight_tuple_sum(weights, k)
        return
    want = sum(
        min(weights[i] for i in subset) for subset in itertools.combinations(range(len(weights)), k)
    )
    assert min_weight_tuple_sum(weights, k) == pytest.approx(want, abs=1e-9)


# ------------------------------------------------------------ bad inputs
def test_enumerated_paths_check_the_declared_range():
    liar = Kernel("liar", 2, lambda d, t: d[t[:, 0]] + d[t[:, 1]], lower=0.0, upper=1.0)
    with pytest.raises(KernelRangeError, match="1.2"):
        local_hajek_projections(np.array([0.1, 0.6, 0.6]), liar)
    with pytest.raises(KernelRangeError):
        weighted_tuple_sum(np.array([0.1, 0.6, 0.6]), liar, np.ones(3))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda: local_hajek_projections([0.1, 0.2], variance_kernel(0, 1), method="magic"),
            InvalidParameterError,
            "magic",
        ),
        (
            lambda: local_hajek_projections(
                [0.1, 0.2, 0.3], symmetry_kernel(0, 1), method="blocked"
            ),
            InvalidParameterError,
            "degree 3",
        ),
        (
            lambda: local_hajek_projections([0.1, 0.2, 0.3], symmetry_kernel(0, 1), method="fast"),
            InvalidParameterError,
            "no fast path",
        ),
        (
            lambda: local_hajek_projections([0.1, 0.2], variance_kernel(0, 1), block_size=0),
            InvalidParameterError,
            "block_size",
        ),
        (lambda: local_hajek_projections([0.1, 0.2], "variance"), InvalidParameterError, "Kernel"),
        (lambda: local_hajek_projections([0.1], variance_kernel(0, 1)), InvalidInputError, "n=1"),
        (
            lambda: local_hajek_projections([0.1, np.nan], variance_kernel(0, 1)),
            InvalidInputError,
            "nan",
        ),
        (lambda: u_statistic([[0.1, 0.2]], variance_kernel(0, 1)), InvalidInputError, "shape"),
        (
            lambda: weighted_tuple_sum([0.1, 0.2], variance_kernel(0, 1), [1.0, 1.5]),
            InvalidParameterError,
            "1.5",
        ),
        (
            lambda: weighted_tuple_sum([0.1, 0.2], variance_kernel(0, 1), [1.0, np.nan]),
            InvalidParameterError,
            "nan",
        ),
        (
            lambda: weighted_tuple_sum([0.1, 0.2], variance_kernel(0, 1), [1.0]),
            InvalidParameterError,
            "2 records",
        ),
        (
            lambda: weighted_tuple_sum([0.1, 0.2], variance_kernel(0, 1), [1, 1], method="fast"),
            InvalidParameterError,
            "fast",
        ),
        (lambda: min_weight_tuple_sum([0.5, -0.1], 1), InvalidParameterError, "-0.1"),
        (lambda: min_weight_tuple_sum([], 1), InvalidParameterError, "non-empty"),
        (lambda: min_weight_tuple_sum([0.5], 0), InvalidParameterError, "k"),
    ],
)
def test_bad_arguments_raise_specific_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
