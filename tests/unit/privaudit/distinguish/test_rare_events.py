"""Rare events of (ε, δ) claims (privaudit.auditing.distinguish.rare_events) and their α share."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.auditing.distinguish.densities import declared_log_densities
from privaudit.auditing.distinguish.error_budget import POOLED_SHARE, RARE_SHARE
from privaudit.auditing.distinguish.rare_events import (
    ExactValues,
    ImpossibleUnder,
    Intervals,
    Neighbourhood,
    disjoint,
    find_rare_events,
)
from privaudit.auditing.pairs import verified_pair
from privaudit.mechanisms import DiscreteGaussianMechanism, GaussianMechanism, LaplaceMechanism
from privaudit.spec.errors import InvalidParameterError
from privaudit.statistics.pooled import garwood_lower, garwood_upper, pooled_bound
from privaudit.suites.broken import LeakyClampMean, NoiselessFallbackMean, RareRawMean

from ._shared import run_pair_test

N_SEARCH = 50_000
X, Y = np.zeros(100), np.concatenate([[1.0], np.zeros(99)])


def _search(mech, seed=0, size=N_SEARCH):
    g = np.random.default_rng(seed)
    pair = verified_pair(mech.spec, X, Y, "explicit")
    return pair, mech.sample(X, size, g), mech.sample(Y, size, g)


def _find(mech, seed=0, delta=1e-5):
    pair, sx, sy = _search(mech, seed)
    return find_rare_events(
        mech,
        pair,
        sx,
        sy,
        epsilon=1.0,
        delta=delta,
        densities=declared_log_densities(mech, pair.x, pair.y),
    )


def test_disjointness():
    assert disjoint(ExactValues(np.array([0.0])), ExactValues(np.array([1.0])))
    assert not disjoint(ExactValues(np.array([0.0, 1.0])), ExactValues(np.array([1.0])))
    assert disjoint(Neighbourhood(np.array([0.0]), 0.4), Neighbourhood(np.array([1.0]), 0.5))
    assert not disjoint(Neighbourhood(np.array([0.0]), 0.5), Neighbourhood(np.array([1.0]), 0.5))
    assert disjoint(
        Intervals(np.array([0.0]), np.array([1.0])), Intervals(np.array([1.5]), np.array([2.0]))
    )
    assert not disjoint(ExactValues(np.array([0.0])), Neighbourhood(np.array([1.0]), 0.1))


def test_event_membership():
    o = np.array([0.0, 0.5, 1.0, 2.0])
    assert ExactValues(np.array([0.5, 2.0])).contains(o).tolist() == [False, True, False, True]
    assert Neighbourhood(np.array([1.0]), 0.5).contains(o).tolist() == [False, True, True, False]
    rows = np.array([[0.0, 0.0], [0.1, -0.1], [0.3, 0.0]])
    assert Neighbourhood(np.array([0.0, 0.0]), 0.2).contains(rows).tolist() == [True, True, False]
    assert Intervals(np.array([0.4, 1.5]), np.array([0.6, 3.0])).contains(o).tolist() == [
        False,
        True,
        False,
        True,
    ]
    impossible = ImpossibleUnder(lambda v: np.where(v == np.floor(v), 0.0, -np.inf))
    assert impossible.contains(o).tolist() == [False, True, False, False]


def test_atoms_are_found_with_and_without_the_hook():
    """Raw branch with p = 10⁻³: ~50 outputs at f(x) = 0 in 5·10⁴ search outputs."""
    for hook in (True, False):
        found = _find(RareRawMean(p=1e-3, hook=hook))
        assert sorted(c.direction for c in found) == ["x_vs_y", "y_vs_x"]  # one each
        for best in found:
            assert best.family in ("atoms", "neighbourhood", "excess")
            assert best.search_lower >= 30 and best.search_upper <= 1
            centre = 0.0 if best.direction == "x_vs_y" else 0.01
            assert best.event.contains(np.array([centre]))[0]
        assert disjoint(found[0].event, found[1].event)


def test_spike_is_found_with_the_hook_and_the_clamp_without_it():
    spike = _find(RareRawMean(p=1e-3, spike=1e-7))
    assert len(spike) == 2 and {c.family for c in spike} <= {"neighbourhood", "excess"}
    assert all(10 * c.declared_expected < c.search_lower for c in spike)
    clamp = _find(LeakyClampMean(hook=False))  # atoms at f ± b ln 1000
    assert len(clamp) == 2 and {c.family for c in clamp} <= {"atoms", "excess"}


def test_correct_mechanisms_and_leaks_within_delta_yield_nothing():
    assert (
        _find(
            LaplaceMechanism(
                1.0,
                0.01,
                statistic=lambda v: float(np.mean(v)),
                input_domain=RareRawMean().spec.input_domain,
                relation=RareRawMean().spec.relation,
            )
        )
        == ()
    )
    # a fallback of probability 10⁻⁶ (within δ = 10⁻⁵): nothing worth α
    assert _find(NoiselessFallbackMean(cutoff=math.log(1e6))) == ()


def test_support_family_on_a_discrete_law():
    """A discrete Gaussian whose x side releases x + 0.5 (off the lattice) 1 % of the time."""
    base = DiscreteGaussianMechanism(1.0, 1e-5, 1)

    class HalfStep(type(base)):
        def _sample(self, data, size, rng):
            out = super()._sample(data, size, rng).astype(np.float64)
            if data == 0:
                out[rng.random(size) < 0.01] += 0.5
            return out

    mech = HalfStep.__new__(HalfStep)
    mech.__dict__.update(base.__dict__)
    pair = verified_pair(mech.spec, 0, 1, "explicit")
    g = np.random.default_rng(3)
    sx, sy = mech.sample(0, 20_000, g), mech.sample(1, 20_000, g)
    found = find_rare_events(
        mech,
        pair,
        sx,
        sy,
        epsilon=1.0,
        delta=1e-5,
        densities=declared_log_densities(mech, pair.x, pair.y),
    )
    assert [c.family for c in found] == ["support"]
    assert found[0].direction == "x_vs_y" and found[0].search_upper == 0


def test_rare_events_take_their_share_only_when_found():
    leak = RareRawMean(p=1e-3)
    pair = verified_pair(leak.spec, X, Y, "explicit")
    r = run_pair_test(leak, pair, samples=200_000, search_samples=50_000, rng=1, alpha=0.05)
    rare = [e for e in r.events if e.description.startswith(("atoms", "neighbourhood", "excess"))]
    # the two directions' atoms, disjoint: pooled at 0.9 of α_rare, the mirror alone at 0.1
    assert [e.method for e in rare] == ["pooled_poisson", "clopper_pearson"]
    assert rare[0].alpha == pytest.approx(POOLED_SHARE * RARE_SHARE * 0.05)
    assert rare[1].alpha == pytest.approx((1 - POOLED_SHARE) * RARE_SHARE * 0.05)
    assert rare[0].samples_x == sum(r.test_sizes)
    assert r.violated and r.violating is not None
    assert sum(e.alpha for e in r.events) + r.alpha_profile == pytest.approx(0.05)
    gauss = GaussianMechanism(1.0, 1e-5, 1.0)
    g_pair = verified_pair(gauss.spec, 0.0, 1.0, "explicit")
    plain = run_pair_test(gauss, g_pair, samples=200_000, search_samples=50_000, rng=1, alpha=0.05)
    assert not any(f.startswith("rare") for f in plain.families)
    off = run_pair_test(
        leak, pair, samples=200_000, search_samples=50_000, rng=1, alpha=0.05, rare_events=False
    )
    assert not any(f.startswith("rare") for f in off.families) and not off.violated


def test_pooled_bound_is_the_garwood_pair():
    """K₁ = 30 + 28, K₂ = 0 + 1 at n = 10⁶: Garwood bounds at α/2 divided by 2n."""
    pb = pooled_bound(30, 0, 28, 1, poisson_mean=1e6, alpha=0.02, delta=1e-6)
    assert (pb.count_lower, pb.count_upper) == (58, 1)
    assert pb.p_lower == pytest.approx(garwood_lower(58, 0.01) / 2e6)
    assert pb.p_upper == pytest.approx(garwood_upper(1, 0.01) / 2e6)
    assert pb.epsilon_lower_bound == pytest.approx(np.log((pb.p_lower - 1e-6) / pb.p_upper))
    # Garwood's bounds are the exact Poisson ones: P[Poisson(upper) <= k] = a
    from scipy import stats

    assert stats.poisson.cdf(1, garwood_upper(1, 0.01)) == pytest.approx(0.01)
    assert stats.poisson.sf(57, garwood_lower(58, 0.01)) == pytest.approx(0.01)
    assert garwood_lower(0, 0.01) == 0.0
    with pytest.raises(InvalidParameterError, match="-1"):
        pooled_bound(-1, 0, 0, 0, poisson_mean=10.0, alpha=0.05, delta=0.0)
    with pytest.raises(InvalidParameterError, match="poisson_mean"):
        pooled_bound(1, 0, 0, 0, poisson_mean=0.0, alpha=0.05, delta=0.0)
