"""Private network statistics: ξ formulas, node sensitivities, the coarse estimate, bad inputs.

Everything here is deterministic (seeded generators, exhaustive enumerations); no test
asserts on a statistical outcome that could fail by chance.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from privaudit.estimators.graphs import (
    NetworkStatisticEstimate,
    node_chunks,
    private_edge_density,
    private_edge_density_mechanism,
    private_triangle_density,
    private_triangle_density_mechanism,
)
from privaudit.estimators.graphs._adjacency import as_adjacency
from privaudit.estimators.graphs.coarse_estimate import (
    coarse_density_mechanism,
    edge_density_node_sensitivity,
    edge_probability_upper_bound,
    private_coarse_edge_density,
    triangle_density_node_sensitivity,
)
from privaudit.estimators.graphs.concentration import (
    bernoulli_variance_bound,
    edge_density_xi,
    triangle_density_xi,
)
from privaudit.estimators.graphs.densities import (
    edge_density,
    node_triangle_counts,
    triangle_density,
)
from privaudit.estimators.graphs.node_chunks import induced_subgraph
from privaudit.estimators.graphs.two_stage import TwoStageNetworkMechanism, round_up_to_grid
from privaudit.estimators.models import random_geometric_graph, rgg_edge_probability
from privaudit.estimators.ustatistics import (
    adjacency_edge_kernel,
    adjacency_triangle_kernel,
    coinpress_mechanism,
)
from privaudit.estimators.ustatistics.binary_coinpress import binary_coinpress
from privaudit.estimators.ustatistics.concentration import ConcentrationRadius
from privaudit.estimators.ustatistics.local_hajek import local_hajek_algorithm
from privaudit.mechanisms import QUARTIC_CONSTANT
from privaudit.mechanisms.smooth_sensitivity import quartic_share
from privaudit.spec import NodeNeighbouring
from privaudit.spec.errors import InvalidGraphError, InvalidParameterError


# ---- ξ formulas against hand computation ------------------------------------------------
def test_edge_density_xi_terms_by_hand():
    n, p, gamma = 500, 0.02, 0.01
    log_term = math.log(4 * n / gamma)
    variance = p * (1 - p)
    expected = {
        "bernstein_variance": math.sqrt(2 * variance * log_term / (n - 1)),
        "bernstein_range": 2 / 3 * log_term / (n - 1),
        "chebyshev_mean": math.sqrt(2 * (2 * variance / (n * (n - 1))) / gamma),
    }
    xi = edge_density_xi(n, p, gamma=gamma)
    assert dict(xi.terms) == pytest.approx(expected, rel=1e-14)
    total = sum(expected.values())  # ξ is rounded up to the stable grid
    assert total < xi.value <= total * (1 + 1.1e-5)
    assert float(xi) == xi.value and xi.n == n and xi.failure_probability == gamma


def test_triangle_density_xi_terms_by_hand():
    n, theta, gamma = 301, 1e-3, 0.02
    log_term = math.log(4 * n / gamma)
    blocks = (n - 1) // 2
    variance = theta * (1 - theta)
    var_un = (2 * n - 5) * variance / math.comb(n, 3)
    expected = {
        "bernstein_variance": math.sqrt(2 * variance * log_term / blocks),
        "bernstein_range": 2 / 3 * log_term / blocks,
        "chebyshev_mean": math.sqrt(2 * var_un / gamma),
    }
    xi = triangle_density_xi(n, theta, gamma=gamma)
    assert dict(xi.terms) == pytest.approx(expected, rel=1e-14)
    total = sum(expected.values())  # ξ is rounded up to the stable grid
    assert total < xi.value <= total * (1 + 1.1e-5)


def test_triangle_xi_variance_of_un_matches_eq3_with_the_zeta_bounds():
    """(2n−5)σ²/C(n,3) is eq. (3) with ζ_1 = 0, ζ_2 = (2/3)σ², ζ_3 = σ²."""
    n, sigma2 = 40, 0.3
    zeta = {1: 0.0, 2: 2 / 3 * sigma2, 3: sigma2}
    eq3 = sum(math.comb(3, c) * math.comb(n - 3, 3 - c) * zeta[c] for c in (1, 2, 3)) / math.comb(
        n, 3
    )
    assert eq3 == pytest.approx((2 * n - 5) * sigma2 / math.comb(n, 3), rel=1e-14)


@given(st.floats(0.0, 1.0))
def test_bernoulli_variance_bound_dominates(mean_upper):
    bound = bernoulli_variance_bound(mean_upper)
    grid = np.linspace(0.0, mean_upper, 101)
    assert np.all(grid * (1 - grid) <= bound + 1e-15)


@pytest.mark.parametrize("xi_fn", [edge_density_xi, triangle_density_xi])
def test_xi_is_monotone_in_the_density_bound(xi_fn):
    values = [xi_fn(200, t).value for t in (1e-4, 1e-3, 1e-2, 0.1, 0.5)]
    assert values == sorted(values)


@pytest.mark.parametrize(
    "args, message",
    [
        ((1, 0.1), "n >= 2"),
        ((2.5, 0.1), "n=2.5"),
        ((100, 1.5), "1.5"),
        ((100, -0.1), "-0.1"),
        ((100, float("nan")), "nan"),
    ],
)
def test_edge_xi_bad_parameters(args, message):
    with pytest.raises(InvalidParameterError, match=message):
        edge_density_xi(*args)


@pytest.mark.parametrize("gamma", [0.0, 1.0, -0.5, 2.0])
def test_xi_bad_gamma(gamma):
    with pytest.raises(InvalidParameterError, match="gamma"):
        edge_density_xi(100, 0.1, gamma=gamma)
    with pytest.raises(InvalidParameterError, match="gamma"):
        triangle_density_xi(100, 0.1, gamma=gamma)


def test_triangle_xi_needs_three_nodes():
    with pytest.raises(InvalidParameterError, match="n >= 3"):
        triangle_density_xi(2, 0.1)


def test_concentration_radius_refuses_a_value_that_is_not_the_sum():
    with pytest.raises(InvalidParameterError, match="sum of its terms"):
        ConcentrationRadius(
            value=1.0, terms={"a": 0.5}, n=3, failure_probability=0.1, source="test"
        )


# ---- exact densities ---------------------------------------------------------------------
@given(st.integers(3, 9), st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_densities_match_networkx(n, p, seed):
    graph = nx.gnp_random_graph(n, p, seed=seed)
    triangles = nx.triangles(graph)
    assert node_triangle_counts(graph).tolist() == [triangles[v] for v in range(n)]
    assert edge_density(graph) == graph.number_of_edges() / math.comb(n, 2)
    assert triangle_density(graph) == sum(triangles.values()) / 3 / math.comb(n, 3)


# ---- node sensitivity, exhaustively ----------------------------------------------------
def _all_graphs(n):
    """Edge-indicator matrix (2^C(n,2) graphs × C(n,2) pairs), the pairs, and each node's star."""
    pairs = list(itertools.combinations(range(n), 2))
    codes = np.arange(2 ** len(pairs), dtype=np.int64)
    bits = ((codes[:, None] >> np.arange(len(pairs))) & 1).astype(np.int64)
    stars = [np.array([v in pair for pair in pairs]) for v in range(n)]
    return bits, pairs, stars


def _triangles(bits, pairs, n):
    index = {pair: col for col, pair in enumerate(pairs)}
    total = np.zeros(bits.shape[0], dtype=np.int64)
    for i, j, k in itertools.combinations(range(n), 3):
        total += bits[:, index[(i, j)]] * bits[:, index[(j, k)]] * bits[:, index[(i, k)]]
    return total


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_node_sensitivities_are_exact_over_every_node_neighbouring_pair(n):
    """Rewire each node of every graph on n nodes in every way: max |Δ density| is 2/n, 3/n."""
    bits, pairs, stars = _all_graphs(n)
    codes = bits @ (1 << np.arange(len(pairs)))
    edges = bits.sum(axis=1)
    triangles = _triangles(bits, pairs, n)
    worst_edges = worst_triangles = 0
    for star in stars:
        star_bits = int(np.sum(1 << np.flatnonzero(star)))
        cleared = codes & ~star_bits
        # every graph obtained by rewiring v: keep the rest, put any subset on v's star
        subsets = np.array(
            [
                int(
                    np.sum(
                        1 << np.flatnonzero(star)[np.flatnonzero((s >> np.arange(star.sum())) & 1)]
                    )
                )
                for s in range(2 ** int(star.sum()))
            ]
        )
        neighbours = cleared[:, None] | subsets[None, :]
        worst_edges = max(worst_edges, int(np.abs(edges[neighbours] - edges[:, None]).max()))
        worst_triangles = max(
            worst_triangles, int(np.abs(triangles[neighbours] - triangles[:, None]).max())
        )
    assert worst_edges / math.comb(n, 2) == pytest.approx(edge_density_node_sensitivity(n))
    assert worst_triangles / math.comb(n, 3) == pytest.approx(triangle_density_node_sensitivity(n))
    assert edge_density_node_sensitivity(n) == pytest.approx(2 / n)
    assert triangle_density_node_sensitivity(n) == pytest.approx(3 / n)


@pytest.mark.parametrize(
    "fn, bad",
    [
        (edge_density_node_sensitivity, 1),
        (triangle_density_node_sensitivity, 2),
        (edge_density_node_sensitivity, True),
        (edge_density_node_sensitivity, 3.0),
    ],
)
def test_node_sensitivity_bad_sizes(fn, bad):
    with pytest.raises(InvalidParameterError, match=repr(bad)):
        fn(bad)


def test_coarse_mechanism_spec_states_node_privacy_and_the_sensitivity():
    mech = coarse_density_mechanism(10, 0.5, "triangle_density")
    assert mech.spec.relation.kind == "node"
    assert mech.spec.global_sensitivity.value == pytest.approx(0.3)
    assert mech.noise_law.scale == pytest.approx(0.3 / 0.5)
    assert mech.spec.guarantee.epsilon == 0.5
    assert "rewiring one node" in mech.spec.summary
    assert mech.statistic(nx.complete_graph(10)) == 1.0
    with pytest.raises(InvalidParameterError, match="statistic"):
        coarse_density_mechanism(10, 0.5, "degree")
    with pytest.raises(InvalidParameterError, match="epsilon"):
        coarse_density_mechanism(10, 0.0)


# ---- the upper confidence bound ---------------------------------------------------------
def test_edge_probability_upper_bound_by_hand():
    noisy, n, eps, gamma = 0.03, 400, 0.5, 0.05
    x = noisy + (2 / n) / eps * math.log(1 / gamma)
    c = math.sqrt(4 / (gamma * n * (n - 1)))
    expected = ((c + math.sqrt(c * c + 4 * x)) / 2) ** 2
    assert edge_probability_upper_bound(noisy, n, eps, gamma=gamma) == pytest.approx(expected)
    # the bound solves p = x + c sqrt(p)
    assert expected == pytest.approx(x + c * math.sqrt(expected))


def test_edge_probability_upper_bound_is_positive_and_capped():
    # x <= 0: p <= c sqrt(p) gives p <= c^2 = 4/(gamma n (n-1))
    assert edge_probability_upper_bound(-5.0, 100, 1.0) == pytest.approx(4 / (0.01 * 100 * 99))
    assert edge_probability_upper_bound(3.0, 100, 1.0) == 1.0


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "0.1", True])
def test_edge_probability_upper_bound_bad_density(bad):
    with pytest.raises(InvalidParameterError, match="noisy_density"):
        edge_probability_upper_bound(bad, 100, 1.0)


def test_private_coarse_estimate_draws_its_noise_from_the_declared_law():
    graph = nx.gnp_random_graph(50, 0.2, seed=3)
    first = private_coarse_edge_density(graph, 2.0, rng=11)
    again = private_coarse_edge_density(graph, 2.0, rng=11)
    assert first == again
    assert first.noise_scale == pytest.approx(2 / 50 / 2.0)
    expected_noise = coarse_density_mechanism(50, 2.0).noise_law.sample(
        np.random.default_rng(11), 1
    )[0]
    assert first.noisy_density == pytest.approx(edge_density(graph) + expected_noise)
    assert first.upper_bound == edge_probability_upper_bound(first.noisy_density, 50, 2.0)
    assert first.guarantee.epsilon == 2.0


# ---- bad graphs ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "graph, message",
    [
        (nx.DiGraph([(0, 1), (1, 2)]), "directed"),
        (nx.MultiGraph([(0, 1), (0, 1), (1, 2)]), "multigraph"),
        (nx.Graph([(0, 0), (0, 1), (1, 2)]), "self-loop"),
        (nx.relabel_nodes(nx.path_graph(3), {2: 7}), "node set"),
        (np.array([[0, 1, 0], [0, 0, 1], [0, 1, 0]]), "not symmetric"),
        (np.array([[1, 1, 0], [1, 0, 1], [0, 1, 0]]), "self-loop"),
        (np.array([[0, 2, 0], [2, 0, 1], [0, 1, 0]]), "0 or 1"),
        (np.array([[0, np.nan, 0], [np.nan, 0, 1], [0, 1, 0]]), "nan"),
        (sp.csr_array(np.array([[0, 1, 0], [0, 0, 1], [0, 1, 0]])), "not symmetric"),
        (np.zeros((3, 4)), "square"),
        ("not a graph", "networkx.Graph"),
    ],
)
def test_bad_graphs_are_refused_by_every_entry_point(graph, message):
    for fn in (
        as_adjacency,
        edge_density,
        triangle_density,
        lambda g: private_coarse_edge_density(g, 1.0, rng=0),
    ):
        with pytest.raises(InvalidGraphError, match=message):
            fn(graph)


# ---- the estimators and their mechanisms ------------------------------------------------

ESTIMATORS = [
    (private_edge_density, private_edge_density_mechanism, edge_density, 2),
    (private_triangle_density, private_triangle_density_mechanism, triangle_density, 3),
]


@pytest.fixture(scope="module")
def rgg():
    """An RGG on S² with 300 nodes and radius n^(-1/4) (seeded)."""
    return random_geometric_graph(300, 300**-0.25, rng=5)


@pytest.mark.parametrize("estimator, factory, exact, k", ESTIMATORS)
@pytest.mark.parametrize(
    "kwargs, source, stages",
    [
        ({"r_max": 0.3}, "public_radius_bound", 1),
        ({"xi": 0.05}, "public_xi", 1),
        ({}, "private_coarse_estimate", 2),
        ({"method": "coinpress"}, "none", 1),
    ],
)
def test_estimate_result_object(rgg, estimator, factory, exact, k, kwargs, source, stages):
    result = estimator(rgg.adjacency, 2.0, alpha=0.3, rng=1, **kwargs)
    assert isinstance(result, NetworkStatisticEstimate)
    assert result.xi_source == source
    assert result.non_private == exact(rgg.adjacency)
    assert result.n == 300 and result.chunks.count == 11  # ceil(8 ln(1/0.3)) = 10, made odd
    assert len(result.privacy.stages) == stages
    assert result.guarantee.epsilon == pytest.approx(2.0)
    assert math.isfinite(result.estimate) and float(result) == result.estimate
    again = estimator(rgg.adjacency, 2.0, alpha=0.3, rng=1, **kwargs)
    assert again.estimate == result.estimate  # seeded: reproducible
    if source == "private_coarse_estimate":
        eps0 = result.privacy.spent_by("coarse edge density for xi")
        assert eps0.epsilon == pytest.approx(0.2)
        assert result.coarse is not None and result.coarse.guarantee == eps0
        assert result.mean_bound == pytest.approx(result.coarse.upper_bound ** (k - 1))
    if source == "public_radius_bound":
        assert result.mean_bound == pytest.approx(rgg_edge_probability(0.3) ** (k - 1))
        for size, radius in result.xi.items():
            assert radius.value == pytest.approx(
                (edge_density_xi if k == 2 else triangle_density_xi)(size, result.mean_bound).value
            )
    if source == "none":
        assert dict(result.xi) == {} and result.mean_bound is None


@pytest.mark.parametrize(
    "factory, kernel",
    [
        (private_edge_density_mechanism, adjacency_edge_kernel),
        (private_triangle_density_mechanism, adjacency_triangle_kernel),
    ],
)
def test_single_chunk_mechanism_is_algorithm_1_with_its_spec(factory, kernel):
    graph = nx.gnp_random_graph(30, 0.3, seed=4)
    mech = factory(30, 1.5, xi=0.05, alpha=0.9)
    spec = mech.spec
    assert spec.relation == NodeNeighbouring() and spec.input_domain.n_nodes == 30
    assert "changing one latent point = rewiring one node" in spec.notes
    beta = quartic_share(1.5)  # 1.5/(3 + 3^(3/4)) rounded down to the stable grid
    assert 1.5 / QUARTIC_CONSTANT * (1 - 1.1e-5) <= beta <= 1.5 / QUARTIC_CONSTANT
    assert spec.smooth_sensitivity_claim.beta == beta
    assert spec.noise.alpha == beta and spec.proof_status == "proven"
    expected = local_hajek_algorithm(30, kernel(), xi=0.05, beta=beta).evaluate(as_adjacency(graph))
    assert mech.statistic(graph) == pytest.approx(expected.weighted_mean)
    assert mech.smooth_sensitivity(graph) == pytest.approx(expected.smooth_sensitivity)
    assert mech.provides("statistic") and mech.provides("smooth_sensitivity")
    draws = mech.sample(graph, 4000, rng=3)
    z = (draws - expected.weighted_mean) / expected.noise_scale
    assert np.median(np.abs(z)) == pytest.approx(0.567, abs=0.05)  # median |Z| of 1/(1+z^4)


def test_wrapped_mechanism_states_the_chunk_vector_and_parallel_composition():
    graph = nx.gnp_random_graph(72, 0.2, seed=2)
    mech = private_edge_density_mechanism(72, 1.0, xi=0.02, alpha=0.7)
    chunks = mech.chunks
    assert chunks.count == 3 and chunks.sizes == (24, 24, 24)
    values = mech.statistic(graph)
    assert values.shape == (3,)
    beta = quartic_share(1.0)  # the β the mechanism uses (on the stable grid)
    smooth = []
    for block, value in zip(chunks.blocks, values, strict=True):
        stat = local_hajek_algorithm(24, adjacency_edge_kernel(), xi=0.02, beta=beta).evaluate(
            induced_subgraph(as_adjacency(graph), block)
        )
        assert value == pytest.approx(stat.weighted_mean)
        smooth.append(stat.smooth_sensitivity)
    assert mech.smooth_sensitivity(graph) == pytest.approx(max(smooth))
    assert mech.spec.smooth_sensitivity_claim.norm == "linf"
    assert mech.spec.noise is None and mech.spec.guarantee.epsilon == 1.0


def test_node_chunks_are_a_public_partition():
    chunks = node_chunks(100, 0.1, 3, seed=7)
    assert chunks.count == 19 and chunks.count % 2 == 1
    together = np.sort(np.concatenate(chunks.blocks))
    assert together.tolist() == list(range(100))
    assert max(chunks.sizes) - min(chunks.sizes) <= 1
    again = node_chunks(100, 0.1, 3, seed=7)
    assert all(np.array_equal(a, b) for a, b in zip(chunks.blocks, again.blocks, strict=True))
    assert node_chunks(100, 0.9, 3).count == 1


def test_rewiring_one_node_changes_only_its_own_chunk():
    """The parallel-composition argument: other chunks' induced subgraphs are untouched."""
    graph = nx.gnp_random_graph(60, 0.3, seed=8)
    chunks = node_chunks(60, 0.5, 2, seed=1)
    relation = NodeNeighbouring()
    from privaudit.spec import GraphDomain

    domain = GraphDomain(n_nodes=60)
    for v in (0, 17, 59):
        _, rewired = relation.complement_rewiring(graph, v, domain)
        a, b = as_adjacency(graph), as_adjacency(rewired)
        changed = [
            not np.array_equal(
                induced_subgraph(a, blk).toarray(), induced_subgraph(b, blk).toarray()
            )
            for blk in chunks.blocks
        ]
        owner = [v in blk for blk in chunks.blocks]
        assert all(owner[i] for i, c in enumerate(changed) if c)


@pytest.mark.parametrize("k, kernel", [(2, adjacency_edge_kernel), (3, adjacency_triangle_kernel)])
def test_binary_coinpress_reproduces_the_materialised_mechanism(k, kernel):
    graph = nx.gnp_random_graph(14, 0.5, seed=2)
    exact = edge_density if k == 2 else triangle_density
    reference = coinpress_mechanism(14, kernel(), 0.7, radius=1.0, family="all", warn=False)
    fast = binary_coinpress(14, k, 0.7)
    assert fast.schedule == reference.schedule
    assert fast.first_step(exact(graph)) == pytest.approx(reference.statistic(graph))
    assert np.array_equal(
        reference.sample(graph, 50, rng=5), fast.draw(exact(graph), 50, np.random.default_rng(5))
    )


def test_coinpress_spec_sensitivity_is_the_largest_first_step():
    mech = private_triangle_density_mechanism(40, 1.0, method="coinpress", alpha=0.6)
    runs = mech.engine.runs
    assert mech.spec.global_sensitivity.value == max(
        r.schedule.sensitivities[0] for r in runs.values()
    )
    assert all(size >= 6 for size in mech.chunks.sizes)


def test_round_up_to_grid():
    values = np.array([1.0, 0.9, 0.5, 0.3, 1e-6])
    grid = round_up_to_grid(values)
    assert np.all(grid >= values) and np.all(grid < values * 2**0.25 + 1e-15)
    assert np.allclose(np.log2(grid) * 4, np.round(np.log2(grid) * 4))
    with pytest.raises(InvalidParameterError):
        round_up_to_grid([0.0])


def test_two_stage_mechanism_accounts_and_matches_its_stages():
    mech = private_edge_density_mechanism(40, 1.0, alpha=0.9, coarse_fraction=0.25)
    assert isinstance(mech, TwoStageNetworkMechanism)
    eps0, eps1 = mech.stage_guarantees
    assert (eps0.epsilon, eps1.epsilon) == pytest.approx((0.25, 0.75))
    assert mech.spec.guarantee.epsilon == pytest.approx(1.0)
    graph = nx.gnp_random_graph(40, 0.2, seed=1)
    gen = np.random.default_rng(9)
    draws = mech.sample(graph, 2000, rng=gen)
    assert draws.shape == (2000,) and np.all(np.isfinite(draws))
    # the same draws, stage by stage
    gen = np.random.default_rng(9)
    bounds = mech.edge_probability_bounds(mech.coarse_releases(graph, 2000, gen))
    expected = np.empty(2000)
    for value in np.unique(bounds):
        where = np.flatnonzero(bounds == value)
        engine = mech.engine_for(float(value))
        expected[where] = engine.draw(engine.evaluate(as_adjacency(graph)), where.size, gen)
    assert np.array_equal(draws, expected)


@pytest.mark.parametrize("estimator, factory, exact, k", ESTIMATORS)
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": 1.0}, "alpha"),
        ({"xi": -0.1}, "xi"),
        ({"r_max": 0.0}, "r_max"),
        ({"r_max": float("inf")}, "r_max"),
        ({"xi": 0.1, "r_max": 0.2}, "at most one"),
        ({"method": "laplace"}, "method"),
        ({"method": "coinpress", "r_max": 0.2}, "coinpress"),
        ({"coarse_fraction": 0.0}, "coarse_fraction"),
        ({"coarse_fraction": 1.5}, "coarse_fraction"),
        ({"partition_seed": -1}, "partition_seed"),
        ({"gamma": 1.0}, "gamma"),
    ],
)
def test_bad_parameters(estimator, factory, exact, k, kwargs, message):
    graph = nx.gnp_random_graph(20, 0.3, seed=0)
    args = {"epsilon": 1.0, **kwargs}
    eps = args.pop("epsilon")
    with pytest.raises(InvalidParameterError, match=message):
        estimator(graph, eps, rng=0, **args)
    with pytest.raises(InvalidParameterError, match=message):
        factory(20, eps, **args)


@pytest.mark.parametrize(
    "factory, too_small",
    [(private_edge_density_mechanism, 1), (private_triangle_density_mechanism, 2)],
)
def test_too_few_nodes(factory, too_small):
    with pytest.raises(InvalidParameterError, match="n >= "):
        factory(too_small, 1.0, xi=0.1)
    with pytest.raises(InvalidParameterError, match="2k"):
        factory(too_small + 2, 1.0, method="coinpress")


@pytest.mark.parametrize("estimator", [private_edge_density, private_triangle_density])
@pytest.mark.parametrize(
    "graph, message",
    [
        (nx.DiGraph([(0, 1), (1, 2), (2, 3)]), "directed"),
        (nx.Graph([(0, 0), (0, 1), (1, 2), (2, 3)]), "self-loop"),
        (nx.relabel_nodes(nx.path_graph(4), {3: "d"}), "node"),
        (np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]]), "not symmetric"),
    ],
)
def test_estimators_refuse_bad_graphs(estimator, graph, message):
    with pytest.raises(InvalidGraphError, match=message):
        estimator(graph, 1.0, xi=0.1, rng=0)


def test_mechanism_refuses_a_graph_of_the_wrong_size():
    mech = private_edge_density_mechanism(10, 1.0, xi=0.1, alpha=0.9)
    with pytest.raises(InvalidGraphError, match="node set|shape"):
        mech.sample(nx.path_graph(11), 3, rng=0)


def test_vectorised_upper_bounds_match_the_scalar_one():
    from privaudit.estimators.graphs.coarse_estimate import edge_probability_upper_bounds

    noisy = np.array([-0.3, 0.0, 0.01, 0.2, 2.0])
    vector = edge_probability_upper_bounds(noisy, 80, 0.7, gamma=0.05)
    assert vector.tolist() == [
        edge_probability_upper_bound(float(v), 80, 0.7, gamma=0.05) for v in noisy
    ]
    with pytest.raises(InvalidParameterError, match="finite"):
        edge_probability_upper_bounds([0.1, float("nan")], 80, 0.7)
