"""LNDP mechanisms audited on the joint messages: correct controls pass, broken variants fail.

The object under test is the joint vector of all n messages, with the public randomness ρ
fixed and known (Raskhodnikova, Smith, Wagaman & Zavyalov, arXiv:2602.15802,
Definition 2.3).  Black-box audits run with a fixed seed (deterministic); each reports a
violation of a true claim with probability at most 1 − confidence = 0.05.  The exact
white-box checks (:func:`estimators.lndp.joint_accounting`) are deterministic.

Broken variants (the pitfalls of the paper's auditing discussion, ``docs/lndp_study.md``):

1. per-node noise calibrated to the node's *own* sensitivity (LDP-style), spec correct;
2. a degrees-only mechanism whose claimed sensitivity counts the rewired node only and so
   ignores the neighbours' copies of its edges: caught at the degree-preserving swap, where
   the rewired node's own message does not move at all; and a randomizer that reads the
   other nodes' lists (thresholds from the average degree), caught by ``lndp.locality``;
3. Algorithm 7 with the paper's tail-bound M on an adversarial ρ (per-ρ claim fails);
4. Laplace noise with an ℓ2-calibrated scale and classical Gaussian calibration at ε ≥ 1:
   refused when the spec is built;
5. group privacy at node distance 2 (privaudit.auditing.checks.group_privacy): the implied
   (2ε, δ(1 + e^ε)) claim holds for correct mechanisms and is refuted for Algorithm 8 with
   half its Laplace scale.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit import AuditConfig, audit
from privaudit.auditing.checks.group_privacy import audit_group_privacy
from privaudit.estimators.lndp import (
    RegularStarRandomness,
    joint_accounting,
    laplace_edge_count_mechanism,
    regular_vs_star_mechanism,
    regular_vs_star_sigma,
    soft_threshold_mechanism,
)
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    GlobalSensitivity,
    GraphDomain,
    Laplace,
    LocalNodeRelation,
    MechanismSpec,
    PureDP,
)
from privaudit.spec.errors import InconsistentSpecError, UnsupportedCombinationError
from privaudit.suites.local_node import (
    global_threshold_soft_threshold,
    neighbours_copies_ignored,
    node_degrees,
    own_sensitivity_laplace_edge_count,
    own_sensitivity_soft_threshold,
    sampled_one_hot,
)

CONFIG = AuditConfig(
    samples=40_000, pilot_samples=2_000, pair_budget=48, pairs_tested=3, claim_budget=200, seed=19
)
N = 8


def _checks(report) -> dict[str, str]:
    return {c.name: c.status for c in report.checks}


# -- correct controls -----------------------------------------------------------------------
# The black-box controls are the registry's own CI audits of every ``lndp.*`` entry
# (tests/quality/test_registry_audits.py); here the exact white-box control.
def test_exact_accounting_holds_at_every_adversarial_pair():
    """δ(ε_claim) ≤ δ at every pair the relation offers; the soft threshold is tight."""
    domain = GraphDomain(n_nodes=N)
    mech = soft_threshold_mechanism(N, 0.9, 1e-3, 0, 1)
    shifts = []
    for x, y, _ in LocalNodeRelation().local_node_pairs(domain):
        result = joint_accounting(mech, x, y)
        assert result.holds
        shifts.append(result.shift)
    star = LocalNodeRelation().star_toggle(N, 0)
    assert joint_accounting(mech, *star).shift == pytest.approx(mech.spec.global_sensitivity.value)
    assert max(shifts) <= mech.spec.global_sensitivity.value * (1 + 1e-12)


# -- 1. own sensitivity ----------------------------------------------------------------------
@pytest.mark.quality
def test_own_sensitivity_noise_is_caught():
    report = audit(own_sensitivity_soft_threshold(N)[0], config=CONFIG)
    assert report.violated
    assert _checks(report)["noise_law"] == "violated"


# -- 2. degrees-only, neighbours' copies ignored ---------------------------------------------
def test_ignoring_neighbours_copies_is_caught_by_the_swap():
    """Claim Δ₂ = 1 (the rewired node's own entry); the swap moves 2k other entries."""
    broken = neighbours_copies_ignored(N)
    swap = [
        (x, y)
        for x, y, o in LocalNodeRelation(focus_nodes=(0,)).local_node_pairs(GraphDomain(n_nodes=N))
        if o == "focused_degree_preserving_swap"
    ][0]
    assert node_degrees(swap[0])[0] == node_degrees(swap[1])[0]  # v's own message is unchanged
    result = joint_accounting(broken, *swap)
    assert result.shift == pytest.approx(math.sqrt(2 * ((N - 1) // 2)))
    assert not result.holds and result.delta_at_claim > 10 * result.delta


@pytest.mark.quality
def test_ignoring_neighbours_copies_fails_the_audit():
    broken = neighbours_copies_ignored(N)
    report = audit(broken, config=CONFIG)
    assert report.violated
    assert _checks(report)["sensitivity.global"] == "violated"


# -- 2c. the sampled one-hot pitfall is private at n = 8 -------------------------------------
def test_sampled_one_hot_is_private_at_n8_so_no_audit_may_flag_it():
    """Every mixture component of the sampled one-hot moves by ≤ √2 per node whose degree
    changes (≤ n nodes), so by joint convexity of the hockey-stick divergence its δ(0.9) at
    any pair is ≤ δ_Gauss(0.9; √(2n), σ) — below the claimed 10⁻³ (docs/lndp_study.md)."""
    from privaudit.spec import Gaussian

    mech = sampled_one_hot(N)
    sigma = mech.spec.noise.law.sigma
    bound = Gaussian(sigma=sigma).privacy_profile(0.9, math.sqrt(2 * N))
    assert bound < 1e-3 and bound == pytest.approx(1.07e-4, rel=0.01)


# -- 2b. a randomizer reading the other nodes' lists -------------------------------------------
@pytest.mark.quality
def test_reading_other_lists_fails_the_locality_check():
    """Thresholds from the graph's average degree: node v's message changes when only the
    other nodes' lists do (privaudit.auditing.checks.local_node, deterministic)."""
    report = audit(global_threshold_soft_threshold(N), config=CONFIG)
    assert report.violated
    assert _checks(report)["lndp.locality"] == "violated"


# -- 3. Algorithm 7 on an adversarial ρ -------------------------------------------------------
def _adversarial_rho(n=100, sets=1000) -> RegularStarRandomness:
    members = np.zeros((sets, 1), dtype=np.int64)  # node 0 in every S_t
    return RegularStarRandomness(n, members)


def test_averaged_calibration_fails_per_rho():
    rho = _adversarial_rho()
    eps, delta = 0.9, 1e-3
    honest = regular_vs_star_mechanism(rho, eps, delta)
    sigma_avg, _ = regular_vs_star_sigma(rho, eps, delta, "averaged")
    assert honest.spec.relation.focus_nodes == (0,)
    x, y = LocalNodeRelation().star_toggle(rho.n, 0)
    shift = joint_accounting(honest, x, y).shift
    assert shift == pytest.approx(math.sqrt((rho.n - 1) * rho.sets))  # v's own row stays 0
    from privaudit.spec import Gaussian

    assert Gaussian(sigma=sigma_avg).privacy_profile(eps, shift) > 10 * delta
    assert joint_accounting(honest, x, y).holds
    with pytest.raises(UnsupportedCombinationError, match="average over rho"):
        regular_vs_star_mechanism(rho, eps, delta, calibration="averaged")


@pytest.mark.slow
@pytest.mark.quality
def test_averaged_calibration_fails_the_audit_on_adversarial_rho():
    rho = _adversarial_rho(n=6, sets=120)
    honest = regular_vs_star_mechanism(rho, 0.9, 1e-3)
    sigma_avg, _ = regular_vs_star_sigma(rho, 0.9, 1e-3, "averaged")
    dim = honest.output_dimension

    def sampler(g, size, rng):
        return honest.statistic(g) + rng.normal(0, sigma_avg, (size, dim))

    report = audit(
        declare_mechanism(honest.spec, sampler, statistic=honest.statistic), config=CONFIG
    )
    assert report.violated


# -- 5. group privacy at node distance k > 1 ------------------------------------------------
@pytest.mark.quality
@pytest.mark.parametrize(
    "mech",
    [soft_threshold_mechanism(N, 0.9, 1e-3, 0, 1), laplace_edge_count_mechanism(N, 1.0)],
    ids=["alg1", "alg8"],
)
def test_group_claim_holds_at_distance_2_for_correct_mechanisms(mech):
    """Exact δ(2ε) ≤ δ(1 + e^ε) (ℓ1 loss ≤ 2ε for Laplace) and no black-box refutation on
    the relation's three distance-2 pairs (family-wise 95 %)."""
    results = audit_group_privacy(mech, 2, samples=50_000, rng=19)
    assert {r.origin for r in results} == {
        "empty_vs_starpartite",
        "empty_vs_clique",
        "clique_growth",
    }
    assert not any(r.exact_violated or r.violated for r in results)
    assert all(r.epsilon_lower_bound <= r.epsilon_group for r in results)


@pytest.mark.quality
def test_group_claim_fails_at_distance_2_for_half_scale_laplace():
    """Algorithm 8 sampled at b = (n − 1)/ε: at ∅ vs the 2-starpartite graph the degree
    vector moves by 26 in ℓ1, a loss of 3.7 > 2ε."""
    results = audit_group_privacy(own_sensitivity_laplace_edge_count(N), 2, samples=50_000, rng=19)
    caught = [r for r in results if r.violated]
    assert caught and max(r.epsilon_lower_bound for r in caught) > 2.0


# -- 4. refused specs ------------------------------------------------------------------------
def test_l2_calibrated_laplace_and_classical_at_large_epsilon_are_refused():
    n, eps = 10, 0.5
    l2 = math.sqrt(n - 1 + (n - 1))  # ℓ2 norm of the degree-vector change
    with pytest.raises((InconsistentSpecError, UnsupportedCombinationError)):
        MechanismSpec(
            name="laplace_l2",
            input_domain=GraphDomain(n_nodes=n),
            relation=LocalNodeRelation(),
            statistic="degrees",
            output_dimension=n,
            sensitivity=(GlobalSensitivity(value=2.0 * (n - 1), norm="l1"),),
            noise=AdditiveNoise(law=Laplace(scale=l2 / eps)),
            guarantee=PureDP(epsilon=eps),
        )
    with pytest.raises(UnsupportedCombinationError):
        soft_threshold_mechanism(n, 1.2, 1e-3, 0, 1, calibration="classical")
    assert soft_threshold_mechanism(n, 1.2, 1e-3, 0, 1).spec.noise.calibration == "analytic"
