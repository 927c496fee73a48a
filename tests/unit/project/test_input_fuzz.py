"""Every public estimator and mechanism constructor refuses bad input with a named error.

The estimators and constructors are enumerated from the packages' ``__all__`` (every
``private_*`` and ``*_mechanism`` function of ``estimators``, and every mechanism class of
``mechanisms`` with an ``epsilon`` parameter); hypothesis generates bad data, bad ε, δ and n,
and each call must raise exactly the named :class:`~spec.errors.PrivauditError` subclass of
the table in :mod:`spec.validation` — never a bare exception, never a number.
"""

from __future__ import annotations

import importlib
import inspect
import math
from collections.abc import Callable
from typing import Any

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privaudit.estimators.local_ustatistics as lu
import privaudit.estimators.robust as robust_estimators
from privaudit import estimators, mechanisms
from privaudit.estimators import lndp
from privaudit.estimators.ustatistics import collision_kernel, mean_kernel, variance_kernel
from privaudit.spec import errors
from privaudit.spec.validation import EPSILON_MAX, EPSILON_MIN

PACKAGES = (
    "privaudit.estimators",
    "privaudit.estimators.ustatistics",
    "privaudit.estimators.graphs",
    "privaudit.estimators.hypothesis_tests",
    "privaudit.estimators.local_ustatistics",
    "privaudit.estimators.lndp",
    "privaudit.estimators.robust",
)

#: ``private_*`` functions without an ε: post-processing of already private values (Protocol
#: B's recursion on released level estimates), nothing to fuzz.
POST_PROCESSING = {"private_uauc"}

GOOD_REAL = np.linspace(0.05, 0.95, 24)
GOOD_LABELS = np.arange(24) % 4
GRAPH = nx.gnp_random_graph(12, 0.4, seed=3)
VAR = variance_kernel(0.0, 1.0)
#: The cumulative counts of the 24 good records: the linear workload the fuzz answers.
WORKLOAD = np.tril(np.ones((24, 24)))
GOOD_BINARY = GOOD_LABELS % 2  # public labels of the AUC estimators
RHO = lndp.draw_regular_star_randomness(12, 3, 4, 0)  # public randomness of Algorithm 7


def _abs_difference(a: Any, b: Any) -> Any:
    return np.abs(a - b)


def _greater(a: Any, b: Any) -> Any:
    return (a > b).astype(float)


def _real_domain() -> Any:
    from privaudit.spec import RealInterval

    return RealInterval(lo=0.0, hi=1.0)


#: Estimators that take data: name -> (call(data, epsilon), kind of data).
ESTIMATORS: dict[str, tuple[Callable[[Any, Any], Any], str]] = {
    "private_median": (
        lambda x, e: robust_estimators.private_median(x, 0.0, 1.0, e, rng=0),
        "real",
    ),
    "private_quantile": (
        lambda x, e: robust_estimators.private_quantile(x, 0.0, 1.0, e, quantile=0.3, rng=0),
        "real",
    ),
    "private_trimmed_mean": (
        lambda x, e: robust_estimators.private_trimmed_mean(x, 0.0, 1.0, e, rng=0),
        "real",
    ),
    "private_robust_mean": (
        lambda x, e: robust_estimators.private_robust_mean(x, 0.0, 1.0, e, rng=0),
        "real",
    ),
    "private_bounded_mean": (
        lambda x, e: estimators.private_bounded_mean(x, 0.0, 1.0, e, rng=0),
        "real",
    ),
    "private_prefix_sums": (
        lambda x, e: estimators.private_prefix_sums(x, e, 1e-6, rng=0),
        "real",
    ),
    "private_linear_workload": (
        lambda x, e: estimators.private_linear_workload(
            x, WORKLOAD, WORKLOAD, np.eye(WORKLOAD.shape[1]), e, 1e-6, rng=0
        ),
        "real",
    ),
    "private_mean_local_hajek": (
        lambda x, e: estimators.ustatistics.private_mean_local_hajek(x, VAR, e, xi=0.05, rng=0),
        "real",
    ),
    "private_median_of_means": (
        lambda x, e: estimators.ustatistics.private_median_of_means(
            x, VAR, e, alpha=0.5, xi=0.05, rng=0
        ),
        "real",
    ),
    "private_coinpress_mean": (
        lambda x, e: estimators.ustatistics.private_coinpress_mean(
            x, VAR, e, radius=1.0, family="naive", rng=0, warn=False
        ),
        "real",
    ),
    "private_subgaussian_mean": (
        lambda x, e: estimators.ustatistics.private_subgaussian_mean(
            x, mean_kernel(subgaussian_proxy=1.0), e, radius=10.0, alpha=0.5, rng=0
        ),
        "real",
    ),
    "private_degenerate_mean": (
        lambda x, e: estimators.ustatistics.private_degenerate_mean(
            x, collision_kernel(), e, alpha=0.5, rng=0
        ),
        "labels",
    ),
    "private_uniformity_test": (
        lambda x, e: estimators.hypothesis_tests.private_uniformity_test(
            x, 4, 1.0, e, simulations=9, rng=0
        ),
        "labels",
    ),
    "private_coarse_edge_density": (
        lambda g, e: estimators.graphs.private_coarse_edge_density(g, e, rng=0),
        "graph",
    ),
    "private_edge_density": (
        lambda g, e: estimators.graphs.private_edge_density(g, e, r_max=0.5, alpha=0.9, rng=0),
        "graph",
    ),
    "private_triangle_density": (
        lambda g, e: estimators.graphs.private_triangle_density(g, e, r_max=0.5, alpha=0.9, rng=0),
        "graph",
    ),
    # locally private U-statistics
    "private_ustatistic_rr": (
        lambda x, e: lu.private_ustatistic_rr(x, lu.collision_table(4), e, rng=0),
        "labels",
    ),
    "private_gini_mean_difference_rr": (
        lambda x, e: lu.private_gini_mean_difference_rr(x, e, 4, rng=0),
        "real",
    ),
    "private_kendall_tau_rr": (lambda x, e: lu.private_kendall_tau_rr(x, x, 4, e, rng=0), "labels"),
    "private_renyi2_rr": (lambda x, e: lu.private_renyi2_rr(x, 4, e, rng=0), "labels"),
    "private_auc_rr": (lambda x, e: lu.private_auc_rr(x, GOOD_BINARY, e, 4, rng=0), "real"),
    "private_auc_hierarchical": (
        lambda x, e: lu.private_auc_hierarchical(x, GOOD_BINARY, 2, e, rng=0),
        "labels",
    ),
    "private_ustatistic_2pc": (
        lambda x, e: lu.private_ustatistic_2pc(x, _abs_difference, e, rng=0),
        "real",
    ),
    "private_ustatistic_2pc_discrete": (
        lambda x, e: lu.private_ustatistic_2pc_discrete(x, _greater, [0.0, 1.0], e, rng=0),
        "real",
    ),
    "private_ustatistic_2pc_all_pairs": (
        lambda x, e: lu.private_ustatistic_2pc_all_pairs(x, _abs_difference, e, 1e-5, rng=0),
        "real",
    ),
    # local node DP (the Gaussian ones need ε < 1: GOOD_EPSILON)
    "private_soft_threshold": (
        lambda g, e: lndp.private_soft_threshold(g, e, 1e-3, 0, 4, rng=0),
        "graph",
    ),
    "private_edge_count": (lambda g, e: lndp.private_edge_count(g, e, 1e-3, 6, rng=0), "graph"),
    "private_blurry_linear": (
        lambda g, e: lndp.private_blurry_linear(
            g, e, 1e-3, 3, np.eye(lndp.bucket_count(12, 3)), rng=0
        ),
        "graph",
    ),
    "private_degree_pmf": (lambda g, e: lndp.private_degree_pmf(g, e, 1e-3, 3, rng=0), "graph"),
    "private_degree_cdf": (lambda g, e: lndp.private_degree_cdf(g, e, 1e-3, 3, rng=0), "graph"),
    "private_degree_thresholds": (
        lambda g, e: lndp.private_degree_thresholds(g, e, 1e-3, 3, [3, 6], rng=0),
        "graph",
    ),
    "private_average_degree": (
        lambda g, e: lndp.private_average_degree(g, e, 1e-3, 3, rng=0),
        "graph",
    ),
    "private_erdos_renyi": (lambda g, e: lndp.private_erdos_renyi(g, e, 1e-3, rng=0), "graph"),
    "private_clique_size": (lambda g, e: lndp.private_clique_size(g, e, 1e-3, rng=0), "graph"),
    "private_regular_vs_star": (
        lambda g, e: lndp.private_regular_vs_star(g, e, 1e-3, 3, 4, rng=0),
        "graph",
    ),
    "private_laplace_edge_count": (
        lambda g, e: lndp.private_laplace_edge_count(g, e, rng=0),
        "graph",
    ),
    "private_rr_edge_count": (lambda g, e: lndp.private_rr_edge_count(g, e, 1e-3, rng=0), "graph"),
}

#: Constructors with a public size: name -> call(n, epsilon).
CONSTRUCTORS: dict[str, Callable[[Any, Any], Any]] = {
    "bounded_mean_mechanism": lambda n, e: estimators.bounded_mean_mechanism(n, 0.0, 1.0, e),
    "private_mean_local_hajek_mechanism": lambda n, e: (
        estimators.ustatistics.private_mean_local_hajek_mechanism(n, VAR, e, xi=0.05)
    ),
    "median_of_means_mechanism": lambda n, e: estimators.ustatistics.median_of_means_mechanism(
        n, VAR, e, alpha=0.5, xi=0.05
    ),
    "coinpress_mechanism": lambda n, e: estimators.ustatistics.coinpress_mechanism(
        n, VAR, e, radius=1.0, family="naive", warn=False
    ),
    "degenerate_mean_mechanism": lambda n, e: estimators.ustatistics.degenerate_mean_mechanism(
        n, collision_kernel(), e, alpha=0.5
    ),
    "subgaussian_mean_mechanism": lambda n, e: estimators.ustatistics.subgaussian_mean_mechanism(
        n, mean_kernel(subgaussian_proxy=1.0), e, radius=10.0, alpha=0.5
    ),
    "subgaussian_main_stage_mechanism": lambda n, e: (
        estimators.ustatistics.subgaussian_main_stage_mechanism(
            n, VAR, e, centre=0.1, half_width=0.3, tau=1 / 16, alpha=0.3
        )
    ),
    "coarse_density_mechanism": lambda n, e: estimators.graphs.coarse_density_mechanism(n, e),
    "private_edge_density_mechanism": lambda n, e: estimators.graphs.private_edge_density_mechanism(
        n, e, r_max=0.5, alpha=0.9
    ),
    "private_triangle_density_mechanism": lambda n, e: (
        estimators.graphs.private_triangle_density_mechanism(n, e, r_max=0.5, alpha=0.9)
    ),
    "private_uniformity_test_mechanism": lambda n, e: (
        estimators.hypothesis_tests.private_uniformity_test_mechanism(n, 4, e)
    ),
    "smooth_median_mechanism": lambda n, e: mechanisms.smooth_median_mechanism(
        n, 0.0, 1.0, e, 1e-6, noise="laplace"
    ),
    "inverse_sensitivity_median_mechanism": lambda n, e: (
        mechanisms.inverse_sensitivity_median_mechanism(n, 0.0, 1.0, e, grid=16)
    ),
    "inverse_sensitivity_quantile_mechanism": lambda n, e: (
        mechanisms.inverse_sensitivity_quantile_mechanism(n, 0.0, 1.0, e, quantile=0.3)
    ),
    "inverse_sensitivity_trimmed_mean_mechanism": lambda n, e: (
        mechanisms.inverse_sensitivity_trimmed_mean_mechanism(n, 0.0, 1.0, e, trim=2)
    ),
    "robust_mean_mechanism": lambda n, e: robust_estimators.robust_mean_mechanism(n, 0.0, 1.0, e),
    "subsampled_view_mechanism": lambda n, e: lu.subsampled_view_mechanism(
        n, 1, e, _abs_difference, _real_domain(), 0.0, 1.0
    ),
    "discrete_view_mechanism": lambda n, e: lu.discrete_view_mechanism(
        n, 1, e, _greater, _real_domain(), [0.0, 1.0]
    ),
    "all_pairs_view_mechanism": lambda n, e: lu.all_pairs_view_mechanism(
        n, e, 1e-5, _abs_difference, _real_domain(), 0.0, 1.0
    ),
    "soft_threshold_mechanism": lambda n, e: lndp.soft_threshold_mechanism(n, e, 1e-3, 0, 4),
    "edge_count_mechanism": lambda n, e: lndp.edge_count_mechanism(n, e, 1e-3, 6),
    "blurry_linear_mechanism": lambda n, e: lndp.blurry_linear_mechanism(
        n, e, 1e-3, 3, np.eye(lndp.bucket_count(24, 3))
    ),
    "laplace_edge_count_mechanism": lambda n, e: lndp.laplace_edge_count_mechanism(n, e),
    "rr_edge_count_mechanism": lambda n, e: lndp.rr_edge_count_mechanism(n, e, 1e-3),
}
GOOD_N = {
    "degenerate_mean_mechanism": 40,
    "subgaussian_mean_mechanism": 48,
    "private_uniformity_test_mechanism": 30,
    "smooth_median_mechanism": 21,
}

#: Mechanism classes and constructors without a size: name -> call(epsilon).
MECHANISMS: dict[str, Callable[[Any], Any]] = {
    "LaplaceMechanism": lambda e: mechanisms.LaplaceMechanism(e, 1.0),
    "GaussianMechanism": lambda e: mechanisms.GaussianMechanism(e, 1e-5, 1.0),
    "DiscreteLaplaceMechanism": lambda e: mechanisms.DiscreteLaplaceMechanism(e, 1),
    "DiscreteGaussianMechanism": lambda e: mechanisms.DiscreteGaussianMechanism(e, 1e-5, 1),
    "RandomizedResponseMechanism": lambda e: mechanisms.RandomizedResponseMechanism(e, 4),
    "ExponentialMechanism": lambda e: mechanisms.ExponentialMechanism(e, 1.0, 5),
    "ReportNoisyMax": lambda e: mechanisms.ReportNoisyMax(e, 1.0, 5),
    "smooth_laplace_mechanism": lambda e: mechanisms.smooth_laplace_mechanism(
        lambda x: 0.0, lambda x: 1.0, e, 1e-6, input_domain=_DOMAIN, relation=mechanisms_relation()
    ),
    "smooth_inverse_quartic_mechanism": lambda e: mechanisms.smooth_inverse_quartic_mechanism(
        lambda x: 0.0, lambda x: 1.0, e, input_domain=_DOMAIN, relation=mechanisms_relation()
    ),
    "laplace_scale": lambda e: mechanisms.laplace_scale(e, 1.0),
    "discrete_laplace_scale": lambda e: mechanisms.discrete_laplace_scale(e, 1),
    "analytic_gaussian_sigma": lambda e: mechanisms.analytic_gaussian_sigma(e, 1e-5, 1.0),
    "classical_gaussian_sigma": lambda e: mechanisms.classical_gaussian_sigma(e, 1e-5, 1.0),
    "discrete_gaussian_sigma": lambda e: mechanisms.discrete_gaussian_sigma(e, 1e-5, 1),
    "FloatSafeLaplaceMechanism": lambda e: mechanisms.FloatSafeLaplaceMechanism(e, 1.0),
    "FloatSafeGaussianMechanism": lambda e: mechanisms.FloatSafeGaussianMechanism(e, 1e-5, 1.0),
    "rr_randomizer_mechanism": lambda e: lu.rr_randomizer_mechanism(e, cells=4),
    "regular_vs_star_mechanism": lambda e: lndp.regular_vs_star_mechanism(RHO, e, 1e-3),
    "KeyedHistogramMechanism": lambda e: mechanisms.KeyedHistogramMechanism(4, e, 1e-3),
    "laplace_threshold_delta": lambda e: mechanisms.laplace_threshold_delta(e, 5.0),
    "optimal_release_probabilities": lambda e: mechanisms.optimal_release_probabilities(
        10, e, 1e-3
    ),
    "optimal_release_probability": lambda e: mechanisms.optimal_release_probability(
        np.arange(4), e, 1e-3
    ),
    "central_mean_bound": lambda e: mechanisms.central_mean_bound(100, e, 0.0, 0.05),
    "central_variance_bound": lambda e: mechanisms.central_variance_bound(100, e),
    "central_mean_rate": lambda e: mechanisms.central_mean_rate(100, e),
    "local_mean_bound": lambda e: mechanisms.local_mean_bound(100, e, 0.05),
    "two_point_quantile_bound": lambda e: mechanisms.two_point_quantile_bound([0.1], e, 0.0, 0.05),
    "two_point_absolute_error_bound": lambda e: mechanisms.two_point_absolute_error_bound(
        [0.1], e, 0.0
    ),
}
#: ε of the good calls where 1.0 is outside a mechanism's calibration (the classical
#: Gaussian calibration of the LNDP algorithms needs ε < 1); every other good call uses 1.0.
GOOD_EPSILON = {
    name: 0.5
    for name in (
        "private_soft_threshold",
        "private_edge_count",
        "private_blurry_linear",
        "private_degree_pmf",
        "private_degree_cdf",
        "private_degree_thresholds",
        "private_average_degree",
        "private_erdos_renyi",
        "private_clique_size",
        "private_regular_vs_star",
        "soft_threshold_mechanism",
        "edge_count_mechanism",
        "blurry_linear_mechanism",
        "regular_vs_star_mechanism",
    )
}
#: DP δ of the approximate-DP constructors: name -> call(delta).
DELTAS: dict[str, Callable[[Any], Any]] = {
    "analytic_gaussian_sigma": lambda d: mechanisms.analytic_gaussian_sigma(1.0, d, 1.0),
    "GaussianMechanism": lambda d: mechanisms.GaussianMechanism(1.0, d, 1.0),
    "DiscreteGaussianMechanism": lambda d: mechanisms.DiscreteGaussianMechanism(1.0, d, 1),
    "FloatSafeGaussianMechanism": lambda d: mechanisms.FloatSafeGaussianMechanism(1.0, d, 1.0),
    "smooth_median_mechanism": lambda d: mechanisms.smooth_median_mechanism(
        21, 0.0, 1.0, 1.0, d, noise="laplace"
    ),
    "soft_threshold_mechanism": lambda d: lndp.soft_threshold_mechanism(24, 0.5, d, 0, 4),
    "all_pairs_view_mechanism": lambda d: lu.all_pairs_view_mechanism(
        24, 1.0, d, _abs_difference, _real_domain(), 0.0, 1.0
    ),
    "KeyedHistogramMechanism": lambda d: mechanisms.KeyedHistogramMechanism(4, 1.0, d),
    "central_mean_bound": lambda d: mechanisms.central_mean_bound(100, 1.0, d, 0.05),
    "two_point_quantile_bound": lambda d: mechanisms.two_point_quantile_bound([0.1], 1.0, d, 0.05),
}


def mechanisms_relation() -> Any:
    from privaudit.spec import SubstituteOne

    return SubstituteOne()


def _domain() -> Any:
    from privaudit.spec import DatasetDomain, RealInterval

    return DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=5)


_DOMAIN = _domain()


def _public() -> set[str]:
    names = set()
    for pkg in PACKAGES:
        module = importlib.import_module(pkg)
        for name in module.__all__:
            # unwrap: some constructors are functools.lru_cache wrappers of functions
            if (
                inspect.isfunction(inspect.unwrap(getattr(module, name)))
                and name not in POST_PROCESSING
                and (name.startswith("private_") or name.endswith("_mechanism"))
            ):
                names.add(name)
    for name in mechanisms.__all__:
        obj = getattr(mechanisms, name)
        if callable(obj) and "epsilon" in inspect.signature(obj).parameters:
            names.add(name)
    return names


def test_every_public_estimator_and_constructor_is_fuzzed():
    assert _public() == set(ESTIMATORS) | set(CONSTRUCTORS) | set(MECHANISMS)


def test_the_good_calls_work():
    for name, (call, kind) in ESTIMATORS.items():
        good = {"real": GOOD_REAL, "labels": GOOD_LABELS, "graph": GRAPH}[kind]
        assert call(good, GOOD_EPSILON.get(name, 1.0)) is not None, name
    for name, call in CONSTRUCTORS.items():
        assert call(GOOD_N.get(name, 24), GOOD_EPSILON.get(name, 1.0)) is not None, name
    for name, call in MECHANISMS.items():
        assert call(0.5) is not None, name
    for name in POST_PROCESSING:
        assert "epsilon" not in inspect.signature(getattr(lu, name)).parameters


# -- bad ε -----------------------------------------------------------------------------------
NON_REAL = st.one_of(
    st.text(alphabet="0123456789.e-", min_size=1, max_size=6),
    st.sampled_from(["1.0", "one", None, True, False, b"1"]),
    st.complex_numbers(allow_nan=False, allow_infinity=False, min_magnitude=1e-3).filter(
        lambda z: z.imag != 0
    ),
)
OUT_OF_RANGE = st.one_of(
    st.sampled_from(
        [
            0.0,
            -0.0,
            -1.0,
            math.nan,
            math.inf,
            -math.inf,
            1e300,
            1e-300,
            EPSILON_MAX * 1.01,
            EPSILON_MIN / 2,
        ]
    ),
    st.floats(max_value=0.0),
    st.floats(min_value=EPSILON_MAX, exclude_min=True),
    st.floats(min_value=0.0, max_value=EPSILON_MIN, exclude_max=True),
)
BAD_EPSILON = st.one_of(
    NON_REAL.map(lambda v: (v, errors.ParameterTypeError)),
    OUT_OF_RANGE.map(lambda v: (v, errors.EpsilonRangeError)),
)

EVERY_EPSILON_CALL = sorted(
    [
        (n, lambda e, c=c, k=k: c({"real": GOOD_REAL, "labels": GOOD_LABELS, "graph": GRAPH}[k], e))
        for n, (c, k) in ESTIMATORS.items()
    ]
    + [(n, lambda e, c=c, n=n: c(GOOD_N.get(n, 24), e)) for n, c in CONSTRUCTORS.items()]
    + list(MECHANISMS.items()),
    key=lambda item: item[0],
)


def _raises_exactly(expected: type[Exception], call: Callable[[], Any], value: Any) -> None:
    with pytest.raises(errors.PrivauditError) as info:
        call()
    assert type(info.value) is expected or isinstance(info.value, expected), (
        f"{value!r}: expected {expected.__name__}, got {type(info.value).__name__}: {info.value}"
    )
    shown = repr(value)
    text = str(info.value)
    assert shown in text or str(value) in text or shown.strip("'\"") in text, (value, text)


@pytest.mark.parametrize("name, call", EVERY_EPSILON_CALL, ids=[n for n, _ in EVERY_EPSILON_CALL])
@settings(max_examples=12)
@given(bad=BAD_EPSILON)
def test_bad_epsilon_raises_a_named_error(name, call, bad):
    value, expected = bad
    _raises_exactly(expected, lambda: call(value), value)


# -- bad δ and n -----------------------------------------------------------------------------
BAD_DELTA = st.one_of(
    st.sampled_from(["1e-5", True, 1e-5j]).map(lambda v: (v, errors.ParameterTypeError)),
    st.one_of(
        st.floats(max_value=0.0, exclude_max=True), st.floats(min_value=1.0), st.just(math.nan)
    ).map(lambda v: (v, errors.DeltaRangeError)),
)


@pytest.mark.parametrize("name", sorted(DELTAS))
@settings(max_examples=12)
@given(bad=BAD_DELTA)
def test_bad_delta_raises_a_named_error(name, bad):
    value, expected = bad
    _raises_exactly(expected, lambda: DELTAS[name](value), value)


BAD_N = st.one_of(
    st.sampled_from(["24", None, True, 2.5, 1j]).map(lambda v: (v, errors.ParameterTypeError)),
    st.integers(max_value=0).map(lambda v: (v, errors.SampleSizeError)),
)


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
@settings(max_examples=12)
@given(bad=BAD_N)
def test_bad_sample_size_raises_a_named_error(name, bad):
    value, expected = bad
    _raises_exactly(expected, lambda: CONSTRUCTORS[name](value, GOOD_EPSILON.get(name, 1.0)), value)


# -- bad data --------------------------------------------------------------------------------
def _with(values: np.ndarray, position: int, item: Any) -> Any:
    out = values.astype(object)
    out[position % values.size] = item
    return out


def _bad_data(good: np.ndarray) -> st.SearchStrategy[tuple[Any, type[Exception], str]]:
    pos = st.integers(min_value=0, max_value=good.size - 1)
    return st.one_of(
        pos.map(lambda i: (_with(good, i, "abc"), errors.NonNumericInputError, "abc")),
        st.just((good.astype(str), errors.NonNumericInputError, str(good[0]))),
        pos.map(lambda i: (_with(good, i, None), errors.NonNumericInputError, "None")),
        st.just((good.astype(complex), errors.ComplexInputError, "j")),
        pos.map(lambda i: (_with(good, i, 0.5 + 1j), errors.ComplexInputError, "(0.5+1j)")),
        st.tuples(pos, st.sampled_from([math.nan, math.inf, -math.inf])).map(
            lambda t: (
                _with(good.astype(float), *t).astype(float),
                errors.NonFiniteInputError,
                repr(t[1]),
            )
        ),
        st.just((np.array([], dtype=good.dtype), errors.EmptyInputError, "0")),
        st.just((np.stack([good, good], axis=1), errors.InputShapeError, "shape")),
    )


@pytest.mark.parametrize("name", sorted(n for n, (_, k) in ESTIMATORS.items() if k == "real"))
@settings(max_examples=16)
@given(data=st.data())
def test_bad_real_data_raises_a_named_error(name, data):
    bad, expected, needle = data.draw(_bad_data(GOOD_REAL))
    call = ESTIMATORS[name][0]
    with pytest.raises(errors.PrivauditError) as info:
        call(bad, 1.0)
    assert isinstance(info.value, expected), (name, type(info.value).__name__, str(info.value))
    assert needle in str(info.value), (needle, str(info.value))


@pytest.mark.parametrize("name", sorted(n for n, (_, k) in ESTIMATORS.items() if k == "labels"))
@settings(max_examples=16)
@given(data=st.data())
def test_bad_label_data_raises_a_named_error(name, data):
    cases = [
        _bad_data(GOOD_LABELS),
        st.integers(0, GOOD_LABELS.size - 1).map(
            lambda i: (
                _with(GOOD_LABELS.astype(float), i, 0.5).astype(float),
                errors.OutOfDomainError,
                "0.5",
            )
        ),
    ]
    if name == "private_uniformity_test":  # labels in {0, …, m − 1}, m = 4
        cases.append(
            st.integers(0, GOOD_LABELS.size - 1).map(
                lambda i: (_with(GOOD_LABELS, i, 7).astype(np.int64), errors.OutOfDomainError, "7")
            )
        )
    bad, expected, needle = data.draw(st.one_of(*cases))
    call = ESTIMATORS[name][0]
    with pytest.raises(errors.PrivauditError) as info:
        call(bad, 1.0)
    assert isinstance(info.value, expected), (name, type(info.value).__name__, str(info.value))
    assert needle in str(info.value), (needle, str(info.value))


@pytest.mark.parametrize("name", sorted(n for n, (_, k) in ESTIMATORS.items() if k == "graph"))
def test_bad_graphs_raise_a_named_error(name):
    call = ESTIMATORS[name][0]
    adjacency = nx.to_numpy_array(GRAPH)
    for bad, expected in [
        (nx.DiGraph(GRAPH), errors.InvalidGraphError),
        # a matrix that is not 0/1 is not a graph: named InvalidGraphError (with the value)
        (np.where(np.eye(12) > 0, np.nan, adjacency), errors.InvalidGraphError),
        (adjacency.astype(str), errors.InvalidGraphError),
        (adjacency[:, :5], errors.InvalidGraphError),
        ("graph", errors.InvalidGraphError),
    ]:
        with pytest.raises(errors.PrivauditError) as info:
            call(bad, GOOD_EPSILON.get(name, 1.0))
        assert isinstance(info.value, expected), (name, type(info.value).__name__, str(info.value))


# -- the command line ------------------------------------------------------------------------
@pytest.mark.parametrize("samples", ["100000000000000", "1000000001"])
def test_huge_samples_on_the_cli_is_one_line_and_exit_2(capsys, samples):
    from privaudit.interfaces.cli import main

    with pytest.raises(SystemExit) as info:
        main(["audit", "laplace-does-not-matter.py:x", "--samples", samples])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and samples in err[0] and "at most" in err[0]


def test_huge_samples_in_a_config_is_a_named_error():
    from privaudit import AuditConfig

    with pytest.raises(errors.SampleSizeError, match="1000000000000"):
        AuditConfig(samples=10**12)
