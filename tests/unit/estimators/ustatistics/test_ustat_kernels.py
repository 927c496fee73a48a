"""Kernels of U-statistics: definitions, declared ranges, symmetry checks, bad inputs."""

from __future__ import annotations

import itertools
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import mannwhitneyu

from privaudit.estimators.ustatistics import (
    DataDomain,
    Kernel,
    adjacency_edge_kernel,
    adjacency_triangle_kernel,
    auc_from_u_statistic,
    auc_kernel,
    collision_kernel,
    gini_mean_difference_kernel,
    kendall_tau_kernel,
    mean_kernel,
    rgg_edge_kernel,
    rgg_triangle_kernel,
    symmetry_kernel,
    table_kernel,
    triangle_product_kernel,
    u_statistic,
    variance_kernel,
    wilcoxon_signed_rank_kernel,
)
from privaudit.spec.errors import (
    InvalidGraphError,
    InvalidInputError,
    InvalidParameterError,
    KernelRangeError,
)

FAST = settings(max_examples=30, deadline=None)


def _sign(v: float) -> int:
    return int(v > 0) - int(v < 0)


# Independent scalar definitions (pure Python), one per built-in kernel.
SCALAR = {
    "mean": lambda a: a,
    "variance": lambda a, b: (a - b) ** 2 / 2,
    "gini_mean_difference": lambda a, b: abs(a - b),
    "kendall_tau": lambda a, b: _sign(a[0] - b[0]) * _sign(a[1] - b[1]),
    "wilcoxon_signed_rank": lambda a, b: float(a + b > 0),
    "symmetry": lambda a, b, c: sorted((a, b, c))[1] - (a + b + c) / 3,
    "collision": lambda a, b: float(a == b),
}


def _random_graph(rng, n, p=0.4):
    upper = np.triu(rng.random((n, n)) < p, k=1)
    return (upper | upper.T).astype(float)


def _sphere(rng, n):
    points = rng.normal(size=(n, 3))
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def builtin_cases(rng, n=8):
    """(kernel, data) for every built-in kernel."""
    x = rng.uniform(-2, 3, n)
    labels = rng.integers(0, 3, n)
    table = rng.uniform(-1, 1, (3, 3))
    table = table + table.T
    return [
        (mean_kernel(-2, 3), x),
        (mean_kernel(), x),
        (variance_kernel(-2, 3), x),
        (gini_mean_difference_kernel(-2, 3), x),
        (kendall_tau_kernel(), rng.integers(0, 3, (n, 2)).astype(float)),
        (wilcoxon_signed_rank_kernel(), np.round(x)),
        (symmetry_kernel(-2, 3), x),
        (collision_kernel(), labels),
        (table_kernel(table), labels),
        (auc_kernel(), np.column_stack([np.round(x), rng.integers(0, 2, n)])),
        (rgg_edge_kernel(1.2), _sphere(rng, n)),
        (rgg_triangle_kernel(1.2), _sphere(rng, n)),
        (adjacency_edge_kernel(), _random_graph(rng, n)),
        (adjacency_triangle_kernel(), _random_graph(rng, n)),
        (triangle_product_kernel(rgg_edge_kernel(1.2)), _sphere(rng, n)),
    ]


# ----------------------------------------------------------------- definitions
@FAST
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=3, max_size=9))
def test_real_kernels_match_their_scalar_definitions(values):
    x = np.array(values)
    kernels = [
        mean_kernel(-5, 5),
        variance_kernel(-5, 5),
        gini_mean_difference_kernel(-5, 5),
        wilcoxon_signed_rank_kernel(),
        symmetry_kernel(-5, 5),
    ]
    for kernel in kernels:
        tuples = np.array(list(itertools.combinations(range(x.size), kernel.degree)))
        got = kernel.evaluate(x, tuples)
        want = [SCALAR[kernel.name](*(x[i] for i in t)) for t in tuples]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@FAST
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=9))
def test_kendall_and_collision_match_scalar_definitions(records):
    z = np.array(records, dtype=float)
    tuples = np.array(list(itertools.combinations(range(len(records)), 2)))
    got = kendall_tau_kernel().evaluate(z, tuples)
    assert got.tolist() == [SCALAR["kendall_tau"](z[i], z[j]) for i, j in tuples]
    labels = z[:, 0].astype(int)
    got = collision_kernel().evaluate(labels, tuples)
    assert got.tolist() == [float(labels[i] == labels[j]) for i, j in tuples]


def test_auc_kernel_definition_and_relation_to_mann_whitney(rng):
    scores = np.round(rng.normal(size=40), 1)  # rounding creates ties
    labels = (rng.random(40) < 0.4).astype(float)
    data = np.column_stack([scores, labels])
    kernel = auc_kernel()
    tuples = np.array(list(itertools.combinations(range(40), 2)))
    values = kernel.evaluate(data, tuples)
    for (i, j), v in zip(tuples, values, strict=True):
        if labels[i] == labels[j]:
            assert v == 0.5
        else:
            pos, neg = (i, j) if labels[i] == 1 else (j, i)
            assert v == (scores[pos] > scores[neg]) + 0.5 * (scores[pos] == scores[neg])
    n_pos, n_neg = int(labels.sum()), int((1 - labels).sum())
    auc = auc_from_u_statistic(u_statistic(data, kernel), n_pos, n_neg)
    statistic = mannwhitneyu(scores[labels == 1], scores[labels == 0]).statistic
    assert auc == pytest.approx(statistic / (n_pos * n_neg), abs=1e-12)


def test_graph_kernels_read_the_adjacency_matrix(rng):
    adjacency = _random_graph(rng, 7)
    pairs = np.array(list(itertools.combinations(range(7), 2)))
    triples = np.array(list(itertools.combinations(range(7), 3)))
    for data in (adjacency, sp.csr_matrix(adjacency), sp.coo_array(adjacency)):
        assert adjacency_edge_kernel().evaluate(data, pairs).tolist() == [
            adjacency[i, j] for i, j in pairs
        ]
        want = [adjacency[i, j] * adjacency[j, k] * adjacency[i, k] for i, j, k in triples]
        assert adjacency_triangle_kernel().evaluate(data, triples).tolist() == want


def test_rgg_kernels_are_distance_indicators(rng):
    points = _sphere(rng, 9)
    triples = np.array(list(itertools.combinations(range(9), 3)))

    def edge(a: int, b: int) -> float:
        return float(np.linalg.norm(points[a] - points[b]) <= 1.1)

    got = rgg_triangle_kernel(1.1).evaluate(points, triples)
    assert got.tolist() == [edge(a, b) * edge(b, c) * edge(a, c) for a, b, c in triples]
    pairs = triples[:, :2]
    assert rgg_edge_kernel(1.1).evaluate(points, pairs).tolist() == [edge(a, b) for a, b in pairs]


def test_table_kernel_generalises_collision(rng):
    labels = rng.integers(0, 4, 30)
    assert u_statistic(labels, table_kernel(np.eye(4))) == pytest.approx(
        u_statistic(labels, collision_kernel())
    )
    kernel = table_kernel([[0, 2], [2, -1]])
    assert (kernel.lower, kernel.upper, kernel.additive_range) == (-1.0, 2.0, 3.0)
    assert kernel.parameters == {"table": [[0.0, 2.0], [2.0, -1.0]]}


# ----------------------------------------------------------------- ranges
def test_declared_ranges():
    assert (variance_kernel(-1, 3).lower, variance_kernel(-1, 3).upper) == (0.0, 8.0)
    assert gini_mean_difference_kernel(-1, 3).additive_range == 4.0
    assert symmetry_kernel(0, 3).additive_range == pytest.approx(2.0)
    assert mean_kernel(2, 5).additive_range == 3.0
    for kernel in (kendall_tau_kernel(),):
        assert (kernel.lower, kernel.upper) == (-1.0, 1.0)
    for kernel in (
        wilcoxon_signed_rank_kernel(),
        collision_kernel(),
        auc_kernel(),
        rgg_edge_kernel(0.5),
        rgg_triangle_kernel(0.5),
        adjacency_edge_kernel(),
        adjacency_triangle_kernel(),
    ):
        assert (kernel.lower, kernel.upper, kernel.additive_range) == (0.0, 1.0, 1.0)


def test_symmetry_kernel_range_is_attained():
    kernel = symmetry_kernel(-1.0, 2.0)
    extremes = np.array([-1.0, -1.0, 2.0, 2.0])
    values = kernel.evaluate(extremes, np.array([[0, 1, 2], [0, 2, 3]]))
    assert values.tolist() == [kernel.lower, kernel.upper]
    assert kernel.upper == pytest.approx(1.0)


@FAST
@given(
    st.lists(st.floats(-1, 2, allow_nan=False), min_size=3, max_size=8),
    st.sampled_from([(-1.0, 2.0), (-1.0, 5.0)]),
)
def test_bounded_real_kernels_stay_in_declared_range(values, bounds):
    x = np.array(values)
    for kernel in (
        mean_kernel(*bounds),
        variance_kernel(*bounds),
        gini_mean_difference_kernel(*bounds),
        symmetry_kernel(*bounds),
    ):
        tuples = np.array(list(itertools.combinations(range(x.size), kernel.degree)))
        out = kernel.evaluate(x, tuples)  # evaluate raises KernelRangeError if outside
        assert kernel.lower <= out.min() and out.max() <= kernel.upper


def test_triangle_product_range_from_the_corners():
    assert (
        triangle_product_kernel(kendall_tau_kernel()).lower,
        triangle_product_kernel(kendall_tau_kernel()).upper,
    ) == (-1.0, 1.0)
    kernel = triangle_product_kernel(
        Kernel("e", 2, lambda d, t: d[t[:, 0]] * 0, lower=-2.0, upper=1.0)
    )
    assert (kernel.lower, kernel.upper) == (-8.0, 4.0)  # (−2)³ and (−2)²·1
    positive = triangle_product_kernel(variance_kernel(0, 2))
    assert (positive.lower, positive.upper) == (0.0, 8.0)
    assert positive.parameters == {
        "edge": "variance",
        "edge_parameters": {"lower": 0.0, "upper": 2.0},
    }
    with pytest.raises(InvalidParameterError, match="degree 2"):
        triangle_product_kernel(symmetry_kernel(0, 1))
    with pytest.raises(InvalidParameterError, match="bounded"):
        triangle_product_kernel(Kernel("e", 2, lambda d, t: d[t[:, 0]]))


def test_unbounded_kernel_has_no_additive_range():
    kernel = mean_kernel(subgaussian_proxy=2.0)
    assert not kernel.is_bounded and kernel.subgaussian_proxy == 2.0
    with pytest.raises(InvalidParameterError, match="unbounded"):
        _ = kernel.additive_range


# ----------------------------------------------------------------- symmetry check
def test_builtin_kernels_pass_the_symmetry_check(rng):
    for kernel, data in builtin_cases(rng, n=10):
        result = kernel.check_symmetry(data, rng, n_tuples=50, n_permutations=4)
        assert result.symmetric, kernel.name
        assert result.max_discrepancy <= 1e-12 and result.offending_tuple is None


def test_symmetry_check_catches_an_asymmetric_kernel():
    def difference(data, tuples):
        return data[tuples[:, 0]] - data[tuples[:, 1]]

    kernel = Kernel("difference", 2, difference)
    result = kernel.check_symmetry(np.arange(10.0), 0, n_tuples=20, n_permutations=3)
    assert not result.symmetric
    assert result.max_discrepancy > 0.5
    i, j = result.offending_tuple
    assert result.permuted_tuple == (j, i)
    assert (result.n_tuples, result.n_permutations) == (20, 3)


def test_symmetry_check_is_deterministic_given_the_seed(rng):
    kernel = Kernel("difference", 2, lambda d, t: d[t[:, 0]] * 2 - d[t[:, 1]])
    first = kernel.check_symmetry(np.arange(12.0), 5)
    second = kernel.check_symmetry(np.arange(12.0), 5)
    assert first == second


# ----------------------------------------------------------------- bad inputs
@pytest.mark.parametrize(
    "data, match",
    [
        ([1.0, np.nan, 0.5], "nan"),
        ([1.0, np.inf, 0.5], "inf"),
        ([], "non-empty"),
        ([[0.1, 0.2], [0.3, 0.4]], r"shape \(n,\)"),
        ([0.5], "n=1"),
        ([0.5, 7.0], "7.0"),
    ],
)
def test_variance_kernel_rejects_bad_data(data, match):
    with pytest.raises(InvalidInputError, match=match):
        variance_kernel(0, 1).validate_data(data)


def test_n_less_than_k_names_both():
    with pytest.raises(InvalidInputError, match=r"k=3.*n=2"):
        symmetry_kernel(0, 1).validate_data([0.1, 0.2])


@pytest.mark.parametrize(
    "kernel, data, error, match",
    [
        (kendall_tau_kernel(), [1.0, 2.0, 3.0], InvalidInputError, r"\(n, 2\)"),
        (kendall_tau_kernel(), [[1.0, np.nan], [2.0, 3.0]], InvalidInputError, "nan"),
        (auc_kernel(), [[0.1, 0.0], [0.2, 2.0]], InvalidInputError, "2.0"),
        (auc_kernel(), [0.1, 0.2], InvalidInputError, r"\(n, 2\)"),
        (collision_kernel(), [0, 1.5, 2], InvalidInputError, "1.5"),
        (collision_kernel(), ["a", "b"], InvalidInputError, "integers"),
        (table_kernel(np.eye(3)), [0, 1, 3], InvalidInputError, "3"),
        (table_kernel(np.eye(3)), [0, -1, 2], InvalidInputError, "-1"),
        (rgg_edge_kernel(0.5), np.zeros((4, 2)), InvalidInputError, r"\(n, 3\)"),
        (adjacency_edge_kernel(), [[0, 1], [0, 0]], InvalidGraphError, "undirected"),
        (adjacency_edge_kernel(), [[1, 0], [0, 0]], InvalidGraphError, "self-loop"),
        (adjacency_edge_kernel(), [[0, 2], [2, 0]], InvalidGraphError, "2.0"),
        (adjacency_edge_kernel(), np.zeros((2, 3)), InvalidGraphError, "square"),
        (
            adjacency_edge_kernel(),
            sp.csr_matrix(np.array([[0, 1], [0, 0]])),
            InvalidGraphError,
            "undirected",
        ),
        (adjacency_triangle_kernel(), sp.eye(3, format="csr"), InvalidGraphError, "self-loop"),
        (adjacency_triangle_kernel(), np.zeros((2, 2)), InvalidInputError, "n=2"),
        (mean_kernel(0, 1), sp.csr_matrix(np.eye(2)), InvalidInputError, "sparse"),
    ],
)
def test_domain_violations_raise_specific_errors(kernel, data, error, match):
    with pytest.raises(error, match=match):
        kernel.validate_data(data)


def test_kernel_leaving_its_declared_range_is_caught():
    liar = Kernel("liar", 2, lambda d, t: d[t[:, 0]] + d[t[:, 1]], lower=0.0, upper=1.0)
    with pytest.raises(KernelRangeError, match=r"1\.5.*\(0, 1\)"):
        liar.evaluate(np.array([0.75, 0.75, 0.1]), np.array([[0, 1]]))
    nan_kernel = Kernel("nan", 2, lambda d, t: np.full(len(t), np.nan))
    with pytest.raises(KernelRangeError, match="nan"):
        nan_kernel.evaluate(np.zeros(3), np.array([[0, 2]]))


def test_wrong_output_shape_and_bad_tuples_are_refused():
    scalar = Kernel("scalar", 2, lambda d, t: np.zeros((len(t), 2)))
    with pytest.raises(InvalidParameterError, match=r"shape \(2, 2\)"):
        scalar.evaluate(np.zeros(3), np.array([[0, 1], [1, 2]]))
    kernel = variance_kernel(0, 1)
    with pytest.raises(InvalidInputError, match="repeats"):
        kernel.evaluate(np.zeros(3), np.array([[1, 1]]))
    with pytest.raises(InvalidInputError, match="outside 0..2"):
        kernel.evaluate(np.zeros(3), np.array([[0, 3]]))
    with pytest.raises(InvalidInputError, match=r"shape \(m, 2\)"):
        kernel.evaluate(np.zeros(3), np.array([[0, 1, 2]]))
    with pytest.raises(InvalidInputError, match="integers"):
        kernel.evaluate(np.zeros(3), np.array([[0.0, 1.0]]))


@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: Kernel("k", 0, lambda d, t: d), "degree"),
        (lambda: Kernel("", 1, lambda d, t: d), "name"),
        (lambda: Kernel("k", 1, "not callable"), "callable"),
        (lambda: Kernel("k", 1, lambda d, t: d, lower=2.0, upper=1.0), "lower <= upper"),
        (lambda: Kernel("k", 1, lambda d, t: d, lower=float("nan")), "finite"),
        (lambda: Kernel("k", 1, lambda d, t: d, subgaussian_proxy=0.0), "proxy"),
        (lambda: variance_kernel(1.0, 1.0), "lower < upper"),
        (lambda: mean_kernel(0.0, np.inf), "lower < upper"),
        (lambda: rgg_edge_kernel(0.0), "radius"),
        (lambda: rgg_triangle_kernel(-1.0), "radius"),
        (lambda: table_kernel([[0, 1], [0, 0]]), "symmetric"),
        (lambda: table_kernel([[0, 1, 2]]), "square"),
        (lambda: table_kernel([[np.nan]]), "finite"),
        (lambda: DataDomain("real", lower=0.0), "both"),
        (lambda: DataDomain("pictures"), "kind"),
        (lambda: auc_from_u_statistic(0.5, 0, 3), "both classes"),
    ],
)
def test_bad_kernel_parameters_are_refused(build, match):
    with pytest.raises(InvalidParameterError, match=match):
        build()


def test_symmetry_check_rejects_bad_counts():
    with pytest.raises(InvalidParameterError, match="n_tuples"):
        variance_kernel(0, 1).check_symmetry(np.zeros(4), 0, n_tuples=0)


# ----------------------------------------------------------------- records
def test_kernels_pickle_and_keep_names_and_parameters(rng):
    for kernel, data in builtin_cases(rng):
        clone = pickle.loads(pickle.dumps(kernel))
        assert (clone.name, clone.degree, clone.lower, clone.upper) == (
            kernel.name,
            kernel.degree,
            kernel.lower,
            kernel.upper,
        )
        assert clone.parameters == kernel.parameters
        tuples = np.array(list(itertools.combinations(range(8), kernel.degree)))
        np.testing.assert_array_equal(clone.evaluate(data, tuples), kernel.evaluate(data, tuples))
    assert variance_kernel(0, 2).parameters == {"lower": 0.0, "upper": 2.0}
    assert rgg_edge_kernel(0.3).parameters == {"radius": 0.3, "dimension": 3}


def test_kernel_is_immutable():
    kernel = variance_kernel(0, 1)
    with pytest.raises(AttributeError):
        kernel.upper = 3.0  # type: ignore[misc]  # frozen: the assignment must fail
    assert math.isclose(kernel.additive_range, 0.5)
