"""Algorithm 1 (private mean via local Hájek projections): weights, bounds, mechanism, spec.

The references below re-implement Algorithm 1 of Chaudhuri et al. (NeurIPS 2024) line by line with
plain loops (small n only) and compare the vectorised library with them.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.estimators.ustatistics import (
    Kernel,
    LocalHajekEstimate,
    SubsetFamily,
    adjacency_edge_kernel,
    all_index_tuples,
    all_tuples_overlap,
    band_levels,
    collision_kernel,
    exact_local_sensitivity,
    internal_epsilon,
    local_hajek_algorithm,
    local_hajek_statistic,
    local_hajek_weights,
    local_sensitivity_bound_paper,
    local_sensitivity_bound_rigorous,
    private_mean_local_hajek,
    private_mean_local_hajek_mechanism,
    smooth_sensitivity_paper,
    smooth_sensitivity_rigorous,
    table_kernel,
    variance_kernel,
)
from privaudit.estimators.ustatistics._validation import DataDomain
from privaudit.mechanisms.smooth_sensitivity import QUARTIC_CONSTANT
from privaudit.spec import Categorical, GraphDomain, InverseQuartic, NodeNeighbouring, SubstituteOne
from privaudit.spec.errors import (
    InvalidInputError,
    InvalidParameterError,
    KernelRangeError,
)

FAST = settings(max_examples=40, deadline=None)

#: A documented paper-mode counterexample (hill climbing, docs/derivations.md §3): k = 2 table
#: kernel on 3 labels (C = 1), n = 20, ξ = 0, β = 1; 19 records of label 0 and one of 2.
#: Replacing record 0 by label 2 moves Ã_n by 0.1397, while S_paper = 0.0515.
COUNTEREXAMPLE_TABLE = [[0.0, 0.5, 1.0], [0.5, 0.0, 0.875], [1.0, 0.875, 1.0]]
COUNTEREXAMPLE_DATA = [0] * 19 + [2]


# ----------------------------------------------------------------------------------------
# direct references (Algorithm 1 with loops)
# ----------------------------------------------------------------------------------------
def reference_weights(proj, mean, k, c, xi, beta):
    n = len(proj)
    d = [abs(p - mean) for p in proj]
    level = next(t for t in range(1, n + 1) if sum(di > xi + 6 * k * c * t / n for di in d) <= t)
    r = xi + 6 * k * c * level / n
    w = [max(0.0, 1 - (beta * n / (6 * c * k)) * max(0.0, di - r)) for di in d]
    good = [i for i in range(n) if d[i] <= r]
    return level, r, w, good


def reference_algorithm_one(x, h, k, c, xi, beta, tuples=None):
    """A_n, Ã_n and L by the pseudocode of Algorithm 1 (h: function of a tuple of records)."""
    n = len(x)
    family = (
        list(itertools.combinations(range(n), k)) if tuples is None else [tuple(t) for t in tuples]
    )
    values = {idx: h(*[x[i] for i in s]) for idx, s in enumerate(family)}
    m = len(family)
    a_n = sum(values.values()) / m
    proj = []
    for i in range(n):
        members = [values[idx] for idx, s in enumerate(family) if i in s]
        proj.append(sum(members) / len(members))
    level, _, w, _ = reference_weights(proj, a_n, k, c, xi, beta)
    g = []
    for idx, s in enumerate(family):
        w_s = min(w[i] for i in s)
        g.append(w_s * values[idx] + (1 - w_s) * a_n)
    return a_n, sum(g) / m, level


def random_table(rng, m):
    t = rng.random((m, m))
    t = (t + t.T) / 2
    return (t - t.min()) / (t.max() - t.min())


# ----------------------------------------------------------------------------------------
# weights and L
# ----------------------------------------------------------------------------------------
@FAST
@given(
    st.lists(st.floats(0, 1), min_size=2, max_size=25),
    st.floats(0, 1),
    st.sampled_from([1, 2, 3]),
    st.floats(0, 0.3),
    st.floats(0.05, 3.0),
)
def test_weights_and_level_match_the_pseudocode(proj, mean, k, xi, beta):
    if k > len(proj):
        return
    got = local_hajek_weights(proj, mean, degree=k, additive_range=1.0, xi=xi, beta=beta)
    level, r, w, good = reference_weights(proj, mean, k, 1.0, xi, beta)
    assert got.level == level
    assert got.band_radius == pytest.approx(r, rel=1e-12)
    np.testing.assert_allclose(got.weights, w, rtol=0, atol=1e-12)
    assert got.good.tolist() == good
    assert sorted(got.good.tolist() + got.bad.tolist()) == list(range(len(proj)))
    assert got.bad.size <= got.level


def test_band_levels_is_row_wise():
    rng = np.random.default_rng(3)
    rows = rng.random((6, 9))
    levels = band_levels(rows, 0.05, 0.1)
    assert levels.tolist() == [int(band_levels(r, 0.05, 0.1)) for r in rows]


def test_all_good_gives_the_u_statistic():
    x = np.linspace(0.0, 1.0, 30)
    stat = local_hajek_statistic(x, variance_kernel(0.0, 1.0), xi=1.0, beta=0.5)
    assert stat.level == 1 and stat.weights.all_good
    assert stat.weighted_mean == stat.mean


@pytest.mark.parametrize("seed", range(4))
def test_weighted_mean_matches_the_pseudocode_on_all_tuples(seed):
    rng = np.random.default_rng(seed)
    x = 0.05 * rng.random(40)
    far = rng.choice(40, 2, replace=False)
    x[far[0]] = 0.65 + 0.1 * rng.random()  # a far record with a partial weight
    if seed % 2:
        x[far[1]] = 1.0  # and one with weight 0
    kernel = variance_kernel(0.0, 1.0)
    stat = local_hajek_statistic(x, kernel, xi=0.0, beta=0.7)
    a_n, tilde, level = reference_algorithm_one(x, lambda a, b: (a - b) ** 2 / 2, 2, 0.5, 0.0, 0.7)
    assert not stat.weights.all_good
    assert stat.level == level
    assert stat.mean == pytest.approx(a_n, rel=1e-12)
    assert stat.weighted_mean == pytest.approx(tilde, rel=1e-12, abs=1e-15)


def test_weighted_mean_matches_the_pseudocode_on_a_subsampled_family():
    rng = np.random.default_rng(7)
    table = random_table(rng, 4)
    x = rng.integers(0, 4, 12)
    family = SubsetFamily.draw_valid_subsampled(12, 2, 400, rng=1)
    stat = local_hajek_statistic(x, table_kernel(table), xi=0.0, beta=1.0, family=family)
    a_n, tilde, level = reference_algorithm_one(
        x, lambda a, b: table[a, b], 2, 1.0, 0.0, 1.0, tuples=family.tuples
    )
    assert (stat.mean, stat.level) == (pytest.approx(a_n, rel=1e-12), level)
    assert stat.weighted_mean == pytest.approx(tilde, rel=1e-12)


def test_explicit_all_tuples_and_implicit_all_tuples_agree():
    rng = np.random.default_rng(11)
    table = random_table(rng, 5)
    x = np.where(rng.random(25) < 0.85, 1, rng.integers(0, 5, 25))
    kernel = table_kernel(table)
    implicit = local_hajek_statistic(x, kernel, xi=0.01, beta=0.5)
    explicit = local_hajek_statistic(x, kernel, xi=0.01, beta=0.5, family=all_index_tuples(25, 2))
    assert implicit.level == explicit.level
    assert implicit.weighted_mean == pytest.approx(explicit.weighted_mean, rel=1e-12)
    assert implicit.smooth_sensitivity == pytest.approx(explicit.smooth_sensitivity, rel=1e-12)


@FAST
@given(
    st.integers(0, 10_000),
    st.integers(3, 6),
    st.integers(8, 24),
    st.sampled_from([0.0, 0.02, 0.1]),
    st.sampled_from([0.25, 1.0, 2.0]),
)
def test_level_moves_by_at_most_one_between_neighbours(seed, m, n, xi, beta):
    rng = np.random.default_rng(seed)
    alg = local_hajek_algorithm(n, table_kernel(random_table(rng, m)), xi=xi, beta=beta)
    x = np.where(rng.random(n) < 0.7, int(rng.integers(m)), rng.integers(0, m, n))
    found = exact_local_sensitivity(alg, x, np.arange(m))
    assert np.abs(found.neighbour_levels - found.level).max() <= 1


# ----------------------------------------------------------------------------------------
# the smooth bounds
# ----------------------------------------------------------------------------------------
def test_smooth_bounds_reproduce_the_spec_example():
    # docs/derivations.md §3: n = 2000, k = 2, C = 1, ξ = 0.02, ε = 1 (L = 1)
    common = {"n": 2000, "degree": 2, "additive_range": 1.0, "xi": 0.02, "beta": 1.0}
    assert smooth_sensitivity_paper(1, **common) == pytest.approx(4.3e-5, rel=1e-12)
    assert smooth_sensitivity_rigorous(1, **common) == pytest.approx(2.2e-4, rel=0.02)


def test_bounds_are_non_decreasing_in_the_level():
    levels = np.arange(1, 101)
    for fn in (local_sensitivity_bound_paper, local_sensitivity_bound_rigorous):
        g = fn(levels, n=100, degree=3, additive_range=2.0, xi=0.05, beta=0.7)
        assert np.all(np.diff(g) >= 0)


def test_all_tuples_overlap():
    ov = all_tuples_overlap(10, 3)
    assert (ov.member_fraction, ov.pair_ratio) == (0.3, 2 / 9)
    assert all_tuples_overlap(10, 1).pair_ratio == 0.0


@FAST
@given(
    st.integers(0, 10_000),
    st.integers(3, 7),
    st.integers(8, 22),
    st.sampled_from([0.0, 0.01, 0.05, 0.1]),
    st.sampled_from([0.25, 0.5, 1.0, 2.0]),
)
def test_rigorous_bound_is_a_smooth_upper_bound_on_the_exact_local_sensitivity(
    seed, m, n, xi, beta
):
    """S_rig ≥ LS (exact, every neighbour enumerated) and S(X) ≤ e^β S(X′) on neighbours."""
    rng = np.random.default_rng(seed)
    alg = local_hajek_algorithm(n, table_kernel(random_table(rng, m)), xi=xi, beta=beta)
    x = np.where(rng.random(n) < rng.random(), int(rng.integers(m)), rng.integers(0, m, n))
    found = exact_local_sensitivity(alg, x, np.arange(m))
    assert found.value <= found.local_bound * (1 + 1e-12)
    assert found.value <= found.smooth_sensitivity * (1 + 1e-12)
    log_gap = np.abs(np.log(found.neighbour_smooth) - math.log(found.smooth_sensitivity))
    assert log_gap.max() <= beta * (1 + 1e-9)


def test_rigorous_bound_holds_for_a_subsampled_family():
    rng = np.random.default_rng(5)
    family = SubsetFamily.draw_valid_subsampled(16, 2, 600, rng=2)
    alg = local_hajek_algorithm(
        16, table_kernel(random_table(rng, 4)), xi=0.0, beta=1.0, family=family
    )
    assert alg.overlap.member_fraction == family.max_member_fraction
    assert alg.overlap.pair_ratio == pytest.approx(family.max_pair_ratio, rel=1e-12)
    for trial in range(6):
        x = np.where(rng.random(16) < 0.8, trial % 4, rng.integers(0, 4, 16))
        found = exact_local_sensitivity(alg, x, np.arange(4))
        assert found.value <= found.smooth_sensitivity
        assert np.abs(found.neighbour_levels - found.level).max() <= 1


def test_documented_paper_mode_counterexample():
    """The paper's box formula (prefactor 1) is below the exact local sensitivity.

    See docs/derivations.md §3.
    """
    kernel = table_kernel(COUNTEREXAMPLE_TABLE)
    x = np.array(COUNTEREXAMPLE_DATA)
    paper = local_hajek_algorithm(20, kernel, xi=0.0, beta=1.0, sensitivity_mode="paper")
    rigorous = local_hajek_algorithm(20, kernel, xi=0.0, beta=1.0)
    found = exact_local_sensitivity(paper, x, np.arange(3))
    assert (found.level, found.worst_index, found.worst_value) == (1, 0, 2)
    assert found.value == pytest.approx(0.13973684, rel=1e-6)
    assert found.smooth_sensitivity == pytest.approx(0.05150312, rel=1e-6)
    assert found.ratio > 2.7  # LS > S_paper: not a valid smooth upper bound
    assert exact_local_sensitivity(rigorous, x, np.arange(3)).ratio < 0.32


# ----------------------------------------------------------------------------------------
# the mechanism and its spec
# ----------------------------------------------------------------------------------------
def test_rigorous_spec_matches_the_code():
    kernel = variance_kernel(0.0, 1.0)
    mech = private_mean_local_hajek_mechanism(40, kernel, 2.0, xi=0.05)
    spec = mech.spec
    beta = 2.0 / QUARTIC_CONSTANT
    assert spec.guarantee.epsilon == 2.0 and spec.proof_status == "proven"
    assert isinstance(spec.relation, SubstituteOne)
    assert spec.input_domain.size == 40
    assert isinstance(spec.noise.law, InverseQuartic) and spec.noise.law.scale == 1.0
    assert spec.noise.alpha == pytest.approx(beta) and mech.beta == pytest.approx(beta)
    assert mech.algorithm.beta == mech.alpha
    assert 3 * mech.beta + 3**0.75 * mech.alpha == pytest.approx(2.0)


def test_paper_spec_is_marked_unproven():
    mech = private_mean_local_hajek_mechanism(
        40, variance_kernel(0.0, 1.0), 5.0, xi=0.05, sensitivity_mode="paper"
    )
    assert mech.spec.proof_status == "unproven"
    assert "derivations.md section 3" in mech.spec.notes and "unproven" in mech.spec.notes
    assert mech.beta == 0.5 == internal_epsilon(5.0, "paper")
    assert mech.spec.name.endswith(".paper")


def test_release_is_statistic_plus_scaled_inverse_quartic_noise():
    kernel = variance_kernel(0.0, 1.0)
    mech = private_mean_local_hajek_mechanism(30, kernel, 1.0, xi=0.0)
    x = np.where(np.arange(30) < 25, 0.5, np.linspace(0, 1, 30))
    stat = mech.evaluate(x)
    draws = mech.sample(x, 5, rng=42)
    z = InverseQuartic(scale=1.0).sample(np.random.default_rng(42), 5)
    np.testing.assert_allclose(draws, stat.weighted_mean + stat.smooth_sensitivity / mech.beta * z)
    assert mech.statistic(x) == stat.weighted_mean
    assert mech.smooth_sensitivity(x) == stat.smooth_sensitivity


def test_statistic_and_smooth_sensitivity_share_one_evaluation(monkeypatch):
    mech = private_mean_local_hajek_mechanism(30, variance_kernel(0.0, 1.0), 1.0, xi=0.1)
    calls = []
    original = type(mech.algorithm).evaluate

    def counting(self, data, **kw):
        calls.append(1)
        return original(self, data, **kw)

    monkeypatch.setattr(type(mech.algorithm), "evaluate", counting)
    x = np.linspace(0.0, 1.0, 30)
    mech.statistic(x), mech.smooth_sensitivity(x), mech.sample(x, 10, rng=0)
    assert len(calls) == 1


def test_private_mean_returns_a_complete_result():
    x = np.random.default_rng(0).uniform(0.0, 1.0, 200)
    r = private_mean_local_hajek(x, variance_kernel(0.0, 1.0), 1.0, xi=0.1, rng=3)
    assert isinstance(r, LocalHajekEstimate)
    assert r.u_statistic == pytest.approx(np.var(x, ddof=1), rel=1e-12)
    assert r.noise_scale == r.noise_std == pytest.approx(r.smooth_sensitivity / r.beta)
    assert r.epsilon == 1.0 and r.sensitivity_mode == "rigorous" and r.level >= 1
    again = private_mean_local_hajek(x, variance_kernel(0.0, 1.0), 1.0, xi=0.1, rng=3)
    assert again.estimate == r.estimate


def test_collision_kernel_on_a_known_alphabet():
    mech = private_mean_local_hajek_mechanism(
        30, collision_kernel(), 1.0, xi=0.1, record_domain=Categorical(size=4)
    )
    assert mech.spec.input_domain.record == Categorical(size=4)
    x = np.arange(30) % 4
    counts = np.bincount(x)
    assert mech.evaluate(x).mean == pytest.approx((counts * (counts - 1)).sum() / (30 * 29))


def test_graph_kernel_uses_node_neighbouring_on_graphs():
    graph = nx.gnp_random_graph(24, 0.3, seed=1)
    mech = private_mean_local_hajek_mechanism(24, adjacency_edge_kernel(), 1.0, xi=0.5)
    assert isinstance(mech.spec.input_domain, GraphDomain)
    assert isinstance(mech.spec.relation, NodeNeighbouring)
    assert mech.statistic(graph) == pytest.approx(nx.density(graph))
    dense = nx.to_numpy_array(graph, nodelist=range(24))
    assert mech.statistic(dense) == pytest.approx(nx.density(graph))


def test_subsampled_family_mechanism_uses_the_families_overlaps():
    family = SubsetFamily.draw_valid_subsampled(30, 2, 2000, rng=4)
    mech = private_mean_local_hajek_mechanism(
        30, variance_kernel(0.0, 1.0), 1.0, xi=0.05, family=family
    )
    assert "explicit family of 2000" in mech.spec.statistic
    assert mech.algorithm.overlap.member_fraction == family.max_member_fraction


# ----------------------------------------------------------------------------------------
# bad inputs
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", [0.0, -1.0, math.nan, math.inf])
def test_bad_epsilon(epsilon):
    with pytest.raises(InvalidParameterError, match="epsilon"):
        private_mean_local_hajek_mechanism(20, variance_kernel(0, 1), epsilon, xi=0.1)


@pytest.mark.parametrize("xi", [-0.1, math.nan, math.inf])
def test_bad_xi(xi):
    with pytest.raises(InvalidParameterError, match="xi"):
        private_mean_local_hajek_mechanism(20, variance_kernel(0, 1), 1.0, xi=xi)


def test_n_smaller_than_k():
    with pytest.raises(InvalidParameterError, match="n >= k"):
        private_mean_local_hajek_mechanism(1, variance_kernel(0, 1), 1.0, xi=0.1)
    with pytest.raises(InvalidInputError):
        private_mean_local_hajek(np.array([0.5]), variance_kernel(0, 1), 1.0, xi=0.1)


def test_unknown_mode():
    with pytest.raises(InvalidParameterError, match="sensitivity_mode"):
        private_mean_local_hajek_mechanism(
            20, variance_kernel(0, 1), 1.0, xi=0.1, sensitivity_mode="loose"
        )


def test_family_failing_the_checks_is_refused_not_resampled():
    # naive blocks: M_i/M = k/n... but leftover records have M_i = 0 (n odd)
    with pytest.raises(InvalidParameterError, match="checks of Algorithm 1"):
        private_mean_local_hajek_mechanism(
            21, variance_kernel(0, 1), 1.0, xi=0.1, family=SubsetFamily.naive_blocks(21, 2)
        )
    crowded = np.array([[0, 1]] * 50 + [[i, i + 1] for i in range(19)])
    with pytest.raises(InvalidParameterError, match="checks of Algorithm 1"):
        private_mean_local_hajek_mechanism(20, variance_kernel(0, 1), 1.0, xi=0.1, family=crowded)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_data(bad):
    x = np.linspace(0, 1, 20)
    x[3] = bad
    mech = private_mean_local_hajek_mechanism(20, variance_kernel(0, 1), 1.0, xi=0.1)
    with pytest.raises(InvalidInputError):
        mech.statistic(x)
    with pytest.raises(InvalidInputError):
        private_mean_local_hajek(x, variance_kernel(0, 1), 1.0, xi=0.1)


def test_data_outside_the_domain_and_wrong_size():
    mech = private_mean_local_hajek_mechanism(20, variance_kernel(0, 1), 1.0, xi=0.1)
    with pytest.raises(InvalidInputError, match="1.5"):
        mech.statistic(np.full(20, 1.5))
    with pytest.raises(InvalidInputError, match="n=19"):
        mech.statistic(np.full(19, 0.5))
    with pytest.raises(InvalidInputError, match="empty"):
        private_mean_local_hajek(np.array([]), variance_kernel(0, 1), 1.0, xi=0.1)


def test_kernel_value_outside_its_declared_range():
    def too_big(data, tuples):
        return 2.0 * data[tuples[:, 0]] * data[tuples[:, 1]]

    liar = Kernel("liar", 2, too_big, 0.0, 1.0, domain=DataDomain("real", lower=0.0, upper=1.0))
    with pytest.raises(KernelRangeError, match="outside its declared range"):
        local_hajek_statistic(np.full(10, 0.9), liar, xi=0.1, beta=1.0)


def test_unbounded_kernel_is_refused():
    from privaudit.estimators.ustatistics import mean_kernel

    with pytest.raises(InvalidParameterError, match="unbounded"):
        private_mean_local_hajek_mechanism(20, mean_kernel(subgaussian_proxy=1.0), 1.0, xi=0.1)
