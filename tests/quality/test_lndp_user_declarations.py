"""Local-node mechanisms declared as a user would (issue 27): every mechanism is written here.

* no silent skip: a non-local mechanism declared without hooks is flagged by the black-box
  locality test; a required check that cannot run makes the verdict ``inconclusive``;
* layout: a correct mechanism whose messages have unequal lengths (each edge reported once,
  by its lower endpoint) passes once its layout is declared, and is not flagged without it;
* public randomness: ρ makes one node hot (every other node probes it) while the Laplace
  scale is calibrated to the average over ρ (true ε = 9/4 = 2.25 against a claim of 1);
  the audit asks the mechanism (or measures) which node ρ exposes and finds the flaw at
  every seed.

Each audit runs at a fixed seed; a correct mechanism is flagged with probability ≤ 0.05.
"""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

from privaudit import AuditConfig, audit
from privaudit.auditing.checks.local_node import check_locality, exposed_nodes
from privaudit.interfaces.html_report import render_html_report
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    GlobalSensitivity,
    GraphDomain,
    Laplace,
    LocalNodeRelation,
    MechanismSpec,
    MessageLayout,
    NodeNeighbouring,
    PublicRandomness,
    PureDP,
)
from privaudit.spec.errors import (
    InconsistentSpecError,
    InvalidParameterError,
    UnsupportedCombinationError,
)

QUICK = AuditConfig(
    samples=20_000,
    pilot_samples=1_000,
    pair_budget=12,
    pairs_tested=2,
    claim_budget=60,
    conformance_samples=10_000,
    seed=3,
)


def _spec(name, n, dim, sensitivity, scale, eps=1.0, relation=None):
    return MechanismSpec(
        name=name,
        input_domain=GraphDomain(n_nodes=n),
        relation=relation or LocalNodeRelation(),
        statistic=name,
        output_dimension=dim,
        sensitivity=(GlobalSensitivity(value=sensitivity, norm="l1"),),
        noise=AdditiveNoise(law=Laplace(scale=scale)),
        guarantee=PureDP(epsilon=eps),
    )


# -- a non-local mechanism: node v releases d_v / 2m + Lap(2/ε) ------------------------------
def _global_edge_count(n=8, eps=1.0):
    def mean(g):
        d = np.array([g.degree(i) for i in range(n)], dtype=float)
        return d / (2.0 * max(g.number_of_edges(), 1))

    spec = _spec("degree_over_2m", n, n, 2.0, 2.0 / eps, eps)
    return spec, mean, (lambda g, size, rng: mean(g) + rng.laplace(0.0, 2.0 / eps, (size, n)))


@pytest.mark.parametrize("layout", [None, [1] * 8], ids=["no_layout", "layout"])
def test_black_box_locality_flags_a_message_that_needs_the_edge_count(layout):
    """No hooks: the sampled locality test (layout-free when none is declared) flags it."""
    spec, _, sampler = _global_edge_count()
    mech = declare_mechanism(spec, sampler, layout=layout)
    out = check_locality(mech, (), np.random.default_rng(1), alpha=0.005, samples=20_000)
    assert out.status == "violated" and out.error_rate == 0.005
    assert out.details["black_box"] is True and out.details["tests"] > 0


@pytest.mark.quality
def test_audit_without_hooks_reports_the_non_local_mechanism():
    spec, _, sampler = _global_edge_count()
    report = audit(declare_mechanism(spec, sampler), config=QUICK)
    assert report.verdict == "violation"
    assert report.check("lndp.locality").violated


def test_locality_without_hook_and_without_alpha_is_a_required_skip():
    spec, _, sampler = _global_edge_count()
    out = check_locality(declare_mechanism(spec, sampler, layout=[1] * 8))
    assert out.status == "skipped" and out.details["required"] is True
    assert "privaudit.audit" in out.details["remedy"]


# -- unequal message lengths: each edge reported by its lower endpoint --------------------------
def _lower_endpoint(n=7, eps=1.0):
    upper = np.triu_indices(n, 1)
    dim = upper[0].size  # 21 = 3n: divisible by n

    def edges(g):
        return nx.to_numpy_array(g, nodelist=range(n))[upper]

    spec = _spec("lower_endpoint_edges", n, dim, n - 1.0, (n - 1.0) / eps, eps)

    def sampler(g, size, rng):
        return edges(g) + rng.laplace(0.0, (n - 1) / eps, (size, dim))

    return spec, edges, sampler, [n - 1 - i for i in range(n)]


def test_lower_endpoint_layout_is_not_flagged_with_or_without_the_declaration():
    spec, edges, sampler, sizes = _lower_endpoint()
    for layout in (None, sizes):
        for hooks in ({}, {"statistic": edges}):
            mech = declare_mechanism(spec, sampler, layout=layout, **hooks)
            out = check_locality(mech, (), np.random.default_rng(2), alpha=0.005, samples=10_000)
            assert out.status == "passed", (layout, hooks, out.summary)


def test_undeclared_layout_makes_a_clean_audit_inconclusive_and_declared_makes_it_conclusive():
    spec, edges, sampler, sizes = _lower_endpoint()
    bare = audit(declare_mechanism(spec, sampler, statistic=edges), config=QUICK)
    assert bare.verdict == "inconclusive"
    assert bare.check("lndp.structure").status == "skipped"
    assert any("layout" in reason for reason in bare.unmet_requirements)
    assert "required check skipped" in bare.summary()
    assert "required check skipped: lndp.structure" in render_html_report(bare)
    assert json.loads(bare.to_json())["unmet_requirements"] == list(bare.unmet_requirements)
    declared = audit(declare_mechanism(spec, sampler, statistic=edges, layout=sizes), config=QUICK)
    assert declared.verdict == "no_violation" and not declared.unmet_requirements
    assert declared.check("lndp.structure").status == "passed"
    assert declared.spec.relation.layout == MessageLayout.consecutive(sizes)


def test_layout_must_match_the_release():
    spec, _, sampler, sizes = _lower_endpoint()
    with pytest.raises(InconsistentSpecError, match="layout"):
        declare_mechanism(spec, sampler, layout=sizes[:-1] + [1])
    with pytest.raises(InvalidParameterError, match="exactly one of"):
        MessageLayout(block=1, sizes=(1, 1))
    laplace = MechanismSpec(
        name="scalar",
        input_domain=GraphDomain(n_nodes=3),
        relation=NodeNeighbouring(),
        statistic="edges",
        sensitivity=(GlobalSensitivity(value=2.0),),
        noise=AdditiveNoise(law=Laplace(scale=2.0)),
        guarantee=PureDP(epsilon=1.0),
    )
    with pytest.raises(UnsupportedCombinationError, match="local-node"):
        declare_mechanism(laplace, sampler, layout=[1, 0, 0])


# -- public randomness that exposes one node -------------------------------------------------------
N_RHO, CLAIMED = 9, 4.0  # scale 4 = the sensitivity averaged over ρ; true Δ = 9 here


def _probe_partner(seed, *, exposure=True, statistic=False, public=True):
    """Node u releases 1[ρ(u) ∈ N(u)] + Lap(4); ρ: every node probes one hot node."""
    rng = np.random.default_rng(seed)
    hot = int(rng.integers(N_RHO))
    partners = np.full(N_RHO, hot)
    partners[hot] = (hot + 1 + int(rng.integers(N_RHO - 1))) % N_RHO

    def bits(g):
        return np.array([float(g.has_edge(u, int(partners[u]))) for u in range(N_RHO)])

    spec = _spec("probe_partner", N_RHO, N_RHO, CLAIMED, CLAIMED)
    hooks = {}
    if exposure:
        hooks["exposure"] = lambda p: np.bincount(p, minlength=N_RHO).astype(float)
    if statistic:
        hooks["statistic"] = bits
    rho = PublicRandomness(
        drawn="a hot node probed by every other node; its own partner uniform",
        reveals="the node each node probes",
        seed=seed,
    )
    mech = declare_mechanism(
        spec,
        lambda g, size, rng: bits(g) + rng.laplace(0.0, CLAIMED, (size, N_RHO)),
        layout=[1] * N_RHO,
        public_randomness=rho if public else None,
        rho=partners,
        **hooks,
    )
    return mech, hot


@pytest.mark.parametrize("seed", [0, 5, 11])
@pytest.mark.parametrize("source", ["hook", "samples"])
def test_the_exposed_node_is_found(seed, source):
    mech, hot = _probe_partner(seed, exposure=source == "hook")
    focus, info = exposed_nodes(mech, np.random.default_rng(seed))
    assert focus[0] == hot
    assert info["exposure"].startswith("node_exposure" if source == "hook" else "sampled")


def test_without_public_randomness_or_hooks_no_node_is_singled_out():
    mech, _ = _probe_partner(0, exposure=False, public=False)
    assert exposed_nodes(mech, np.random.default_rng(0))[0] == ()


@pytest.mark.quality
@pytest.mark.parametrize("seed", [0, 7])
def test_per_rho_flaw_is_found_with_the_statistic(seed):
    mech, hot = _probe_partner(seed, statistic=True)
    report = audit(mech, config=QUICK.model_copy(update={"seed": seed}))
    assert report.violated
    assert report.check("sensitivity.global").violated
    assert report.check("lndp.exposure").details["exposed_nodes"][0] == hot


@pytest.mark.slow
@pytest.mark.quality
@pytest.mark.parametrize("seed", range(20))
def test_per_rho_flaw_is_found_black_box_at_every_seed(seed):
    """No statistic hook: ρ's hot node is measured on samples, and the distinguishing
    test on its star toggle refutes ε = 1 (true ε = 2.25)."""
    mech, hot = _probe_partner(seed, exposure=False)
    report = audit(
        mech,
        config=AuditConfig(
            samples=40_000,
            pilot_samples=2_000,
            pair_budget=16,
            pairs_tested=2,
            claim_budget=100,
            seed=seed,
        ),
    )
    assert report.violated and report.epsilon_lower_bound > 1.0
    assert report.check("lndp.exposure").details["exposed_nodes"][0] == hot
