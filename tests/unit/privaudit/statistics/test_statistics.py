"""Exact binomial bounds, ε lower bounds, mean bounds and power (privaudit.statistics).

Every statistical assertion is seeded and states its error rate: the probability, under
the model the bound claims to cover, that the assertion would fail for some seed.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from privaudit.spec import ApproxDP, GaussianDP, PureDP, ZeroConcentratedDP
from privaudit.spec.errors import InvalidInputError, InvalidParameterError
from privaudit.statistics import (
    DEFAULT_REPORT_DELTA,
    claimed_point,
    cp_lower,
    cp_upper,
    detectable_epsilon,
    detection_probability,
    eb_lower_bound_from_sums,
    epsilon_lower_bound,
    mean_lower_bound,
    tune_eb_bet,
    violation_margin,
)
from privaudit.statistics.allocation import (
    equal_rate_prior,
    plan_events,
    predicted_epsilon,
    wilson_lower,
    wilson_upper,
)


# ----------------------------------------------------------------------------------------
# Clopper–Pearson
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 7, 100, 10_000])
def test_cp_bounds_agree_with_scipy_exact_interval(n):
    """scipy finds the ends by root finding (relative error up to ~1e-8); ours invert the
    incomplete beta function directly, and match the closed forms at k = 0, 1, n."""
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
        assert float(cp_lower(k, n, 0.025)) == pytest.approx(ci.low, rel=1e-7, abs=1e-15)
        assert float(cp_upper(k, n, 0.025)) == pytest.approx(ci.high, rel=1e-7, abs=1e-15)
    a = 0.025
    assert float(cp_upper(0, n, a)) == pytest.approx(-math.expm1(math.log(a) / n), rel=1e-12)
    assert float(cp_lower(1, n, a)) == pytest.approx(-math.expm1(math.log1p(-a) / n), rel=1e-12)
    assert float(cp_lower(n, n, a)) == pytest.approx(math.exp(math.log(a) / n), rel=1e-12)


# ----------------------------------------------------------------------------------------
# epsilon lower bounds
# ----------------------------------------------------------------------------------------
def test_epsilon_lower_bound_is_the_cp_formula_vectorised():
    kx = np.array([5000, 900, 10, 0])
    ky = np.array([1840, 10, 0, 3])
    got = epsilon_lower_bound(kx, 10_000, ky, 10_000, alpha=0.05, delta=1e-3)
    num = cp_lower(kx, 10_000, 0.025) - 1e-3
    want = np.where(
        num > 0,
        np.maximum(np.log(np.maximum(num, 1e-300)) - np.log(cp_upper(ky, 10_000, 0.025)), 0),
        0,
    )
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got.shape == (4,) and got[-1] == 0.0


def test_epsilon_lower_bound_monotone():
    n = 50_000
    kx = np.arange(1000, 30_000, 997)
    up = epsilon_lower_bound(kx, n, 800, n, alpha=0.05)
    assert np.all(np.diff(up) >= 0)  # more x-hits: more ε
    ky = np.arange(0, 5000, 97)
    down = epsilon_lower_bound(20_000, n, ky, n, alpha=0.05)
    assert np.all(np.diff(down) <= 0)  # more y-hits: less ε
    deltas = np.linspace(0.0, 0.3, 31)
    by_delta = [float(epsilon_lower_bound(20_000, n, 800, n, alpha=0.05, delta=d)) for d in deltas]
    assert np.all(np.diff(by_delta) <= 0)
    by_alpha = [
        float(epsilon_lower_bound(20_000, n, 800, n, alpha=a)) for a in (1e-6, 1e-3, 0.05, 0.5)
    ]
    assert np.all(np.diff(by_alpha) >= 0)  # less confidence: more ε


def test_epsilon_lower_bound_is_uncapped():
    """NoisyHist-like: Laplace scale 0.1, shift 1 (true ε = 10) at N = 1e5 per side.

    Expected counts of the event {o <= 0}: 50 000 on x, 0.5·e^{-10}·1e5 ≈ 2.3 on y.  The
    bound goes far past DP-Sniper's ln(1/c) = 4.605 cap; even a zero y-count is finite.
    """
    eps = float(epsilon_lower_bound(50_000, 100_000, 2, 100_000, alpha=0.05))
    assert eps > 4.6 and eps > 8.8
    zero = float(epsilon_lower_bound(50_000, 100_000, 0, 100_000, alpha=0.05))
    assert math.isfinite(zero) and zero > eps
    assert float(epsilon_lower_bound(0, 100, 0, 100, alpha=0.05)) == 0.0


@pytest.mark.parametrize(
    "n, table", [(10**4, 0.939), (10**5, 0.981), (10**6, 0.994), (10**7, 0.998)]
)
def test_reproduces_the_oracle_table_for_laplace(n, table):
    """The oracle of docs/derivations.md §8: Laplace ε = 1, event {o <= 0}, expected counts."""
    kx, ky = round(0.5 * n), round(0.5 * math.exp(-1) * n)
    assert float(epsilon_lower_bound(kx, n, ky, n, alpha=0.05)) == pytest.approx(table, abs=6e-4)


def test_epsilon_lower_bound_refuses_bad_parameters():
    with pytest.raises(InvalidParameterError):
        epsilon_lower_bound(1, 10, 1, 10, alpha=0.0)
    with pytest.raises(InvalidParameterError):
        epsilon_lower_bound(1, 10, 1, 10, alpha=0.05, delta=1.0)
    with pytest.raises(InvalidParameterError):
        epsilon_lower_bound(11, 10, 1, 10, alpha=0.05)


# ----------------------------------------------------------------------------------------
# violation margins
# ----------------------------------------------------------------------------------------
def test_violation_margin_for_pure_claims_is_the_epsilon_comparison():
    px = np.array([0.5, 0.5, 0.3])
    py = np.array([0.1, 0.2, 0.3])
    margin = violation_margin(px, py, PureDP(epsilon=1.0))
    np.testing.assert_allclose(margin, px - math.e * py)
    eps = np.log(px / py)
    assert np.array_equal(margin > 0, eps > 1.0)


def test_violation_margin_checks_the_whole_claimed_curve():
    claim = ApproxDP(epsilon=1.0, delta=1e-3)
    # an event whose ratio is below e^1 but which breaks the claimed profile below ε = 1
    px, py = 0.95, 0.36
    assert math.log((px - claim.delta) / py) < 1.0
    margin, at = violation_margin(px, py, claim, return_epsilon=True)
    assert margin > 0 and at < 1.0
    assert margin == pytest.approx(px - math.exp(at) * py - claim.delta_for_epsilon(at))
    # the same with a callable profile and an explicit grid
    grid = np.linspace(0, 1, 101)
    m2 = violation_margin(px, py, claim.delta_for_epsilon, grid)
    assert m2 == pytest.approx(
        max(px - math.exp(e) * py - claim.delta_for_epsilon(e) for e in grid)
    )
    # a GDP claim (no ε of its own) uses the fine default grid
    assert violation_margin(0.5, 0.49, GaussianDP(mu=1.0)) < 0


def test_claimed_point():
    assert claimed_point(PureDP(epsilon=2.0)) == (2.0, 0.0)
    assert claimed_point(ApproxDP(epsilon=1.0, delta=1e-5)) == (1.0, 1e-5)
    eps, delta = claimed_point(ZeroConcentratedDP(rho=0.5))
    assert delta == DEFAULT_REPORT_DELTA
    assert ZeroConcentratedDP(rho=0.5).delta_for_epsilon(eps) <= delta * (1 + 1e-6)


# ----------------------------------------------------------------------------------------
# mean bounds
# ----------------------------------------------------------------------------------------
MEAN_LAWS = {
    "bernoulli(0.01)": (lambda rng, s: (rng.random(s) < 0.01).astype(float), 0.01),
    "bernoulli(0.3)": (lambda rng, s: (rng.random(s) < 0.3).astype(float), 0.3),
    "beta(0.5, 5)": (lambda rng, s: rng.beta(0.5, 5.0, s), 0.5 / 5.5),
    "sparse hockey-stick": (
        lambda rng, s: np.where(rng.random(s) < 0.01, rng.random(s), 0.0),
        0.005,
    ),
}


@pytest.mark.parametrize("law", sorted(MEAN_LAWS))
def test_mean_lower_bound_covers(law):
    """2000 seeded replications of n = 400 at α = 0.1.

    If the bound is valid, misses ~ Bin(2000, q) with q ≤ 0.1, and P(misses > 240) ≤ 0.0013;
    in fact the bound is conservative and misses stay far below that.
    """
    draw, mu = MEAN_LAWS[law]
    rng = np.random.default_rng(sum(map(ord, law)))
    lower = mean_lower_bound(draw(rng, (2000, 400)), alpha=0.1)
    misses = int(np.sum(lower > mu))
    assert misses <= stats.binom.isf(0.0013, 2000, 0.1)
    assert misses <= 100  # observed ≤ 30 for these seeds


@pytest.mark.parametrize("law", sorted(MEAN_LAWS))
def test_fixed_bet_lower_bound_covers(law):
    """The one-bet form with (λ, c) tuned on an independent split; same rates as above."""
    draw, mu = MEAN_LAWS[law]
    rng = np.random.default_rng(7 + sum(map(ord, law)))
    tune, data = draw(rng, (2000, 200)), draw(rng, (2000, 400))
    centre = tune.mean(axis=1)
    lam, c = tune_eb_bet(centre, ((tune - centre[:, None]) ** 2).mean(axis=1), 400, alpha=0.1)
    lower = eb_lower_bound_from_sums(
        data.sum(axis=1), ((data - c[:, None]) ** 2).sum(axis=1), 400, alpha=0.1, lam=lam, centre=c
    )
    assert int(np.sum(lower > mu)) <= stats.binom.isf(0.0013, 2000, 0.1)


def test_mean_lower_bound_is_nearly_as_tight_as_cp_for_rare_events():
    rng = np.random.default_rng(3)
    x = (rng.random(10**6) < 1e-4).astype(float)
    cp = float(cp_lower(int(x.sum()), x.size, 0.01))
    eb = float(mean_lower_bound(x, alpha=0.01))
    assert 0.8 * cp < eb <= x.mean()


def test_mean_bounds_refuse_bad_input():
    with pytest.raises(InvalidInputError):
        mean_lower_bound([0.5, 1.5], alpha=0.1)
    with pytest.raises(InvalidInputError):
        mean_lower_bound([], alpha=0.1)
    with pytest.raises(InvalidParameterError):
        eb_lower_bound_from_sums(1.0, 1.0, 10, alpha=0.1, lam=2.0, centre=0.5)


# ----------------------------------------------------------------------------------------
# power
# ----------------------------------------------------------------------------------------
def test_detectable_epsilon_decreases_with_n_and_exceeds_the_claim():
    values = [
        detectable_epsilon(0.184, n, n, alpha=0.05 / 16, delta=0.0, claimed_epsilon=1.0)
        for n in (10**3, 10**4, 10**5, 10**6)
    ]
    assert all(v > 1.0 for v in values)
    assert all(a > b for a, b in itertools.pairwise(values))
    assert values[-1] < 1.02


def test_detectable_epsilon_limits():
    assert (
        detectable_epsilon(0.0, 1000, 1000, alpha=0.05, delta=0.0, claimed_epsilon=1.0) == math.inf
    )
    # p_y so large that even P[M(x) in S] = 1 cannot beat e^3 · p_y
    assert (
        detectable_epsilon(0.2, 10**4, 10**4, alpha=0.05, delta=0.0, claimed_epsilon=3.0)
        == math.inf
    )
    with pytest.raises(InvalidParameterError):
        detectable_epsilon(0.1, 0, 10, alpha=0.05, delta=0.0, claimed_epsilon=1.0)


def test_detection_probability_is_exact_and_the_test_has_its_size():
    """At ε′ = claimed ε the test rejects with probability ≤ α/2 (CP is exact); the
    exact detection probability matches a seeded simulation of 4000 runs (|error| ≤ 0.03,
    4.8 binomial standard deviations at p = 0.5: failure probability < 2e-6)."""
    n, p_y, alpha = 2000, 0.1, 0.05
    size = detection_probability(1.0, p_y, n, n, alpha=alpha, delta=0.0, claimed_epsilon=1.0)
    assert size <= alpha / 2
    eps_true = 1.35
    exact = detection_probability(eps_true, p_y, n, n, alpha=alpha, delta=0.0, claimed_epsilon=1.0)
    rng = np.random.default_rng(11)
    kx = rng.binomial(n, math.exp(eps_true) * p_y, 4000)
    ky = rng.binomial(n, p_y, 4000)
    simulated = np.mean(epsilon_lower_bound(kx, n, ky, n, alpha=alpha) > 1.0)
    assert abs(simulated - exact) <= 0.03
    target = detectable_epsilon(p_y, n, n, alpha=alpha, delta=0.0, claimed_epsilon=1.0)
    assert (
        detection_probability(target, p_y, n, n, alpha=alpha, delta=0.0, claimed_epsilon=1.0) >= 0.9
    )
    assert (
        detection_probability(target - 1e-3, p_y, n, n, alpha=alpha, delta=0.0, claimed_epsilon=1.0)
        < 0.9
    )


# ----------------------------------------------------------------------------------------
# planning the event tests (predicted bounds, weighted Bonferroni)
# ----------------------------------------------------------------------------------------


def test_wilson_bounds_track_clopper_pearson():
    """Deterministic: for counts ≥ 100 the Wilson stand-ins are within 3 % of the exact
    bounds (relative), within 10 % at 30, and they bracket the estimate."""
    for n in (1_000, 100_000):
        k = np.array([30, 100, n // 10, n // 2, n - 100])
        for a in (0.05, 1e-3):
            lo, hi = wilson_lower(k, n, a), wilson_upper(k, n, a)
            np.testing.assert_allclose(lo[1:], cp_lower(k[1:], n, a), rtol=0.03)
            np.testing.assert_allclose(hi[1:], cp_upper(k[1:], n, a), rtol=0.03)
            np.testing.assert_allclose(lo[0], cp_lower(k[0], n, a), rtol=0.10)
            np.testing.assert_allclose(hi[0], cp_upper(k[0], n, a), rtol=0.10)
            assert np.all(lo < k / n) and np.all(hi > k / n)
    # fractional "expected" counts are accepted and monotone
    assert float(wilson_upper(0.5, 100, 0.05)) > float(wilson_upper(0.0, 100, 0.05)) > 0


def test_predicted_epsilon_matches_the_exact_bound_at_expected_counts():
    """Deterministic: within 0.002 of epsilon_lower_bound at rounded expected counts."""
    n = 10**6
    for p_y, eps in ((0.5 * math.exp(-0.1), 0.1), (0.01, 1.0), (0.2, 0.5)):
        p_x = p_y * math.exp(eps)
        for alpha in (0.05, 0.05 / 16):
            want = float(epsilon_lower_bound(round(p_x * n), n, round(p_y * n), n, alpha=alpha))
            got = float(predicted_epsilon(p_x, p_y, n, n, alpha=alpha))
            assert got == pytest.approx(want, abs=2e-3)
    assert float(predicted_epsilon(0.1, 0.2, n, n, alpha=0.05)) == 0.0
    assert float(predicted_epsilon(0.01, 0.001, n, n, alpha=0.05, delta=0.02)) == 0.0


def test_plan_spends_everything_on_a_clear_winner():
    """Deterministic (fixed internal seed): one event with huge search counts and a large
    ratio against weak ones gets the whole budget; the levels always sum to the budget."""
    a = np.array([40_000, 20_000, 5_000])
    b = np.array([5_000, 19_000, 4_900])
    plan = plan_events(
        a, 100_000, b, 100_000, feature=[0, 1, 2], budget=0.05, test_a=10**6, test_b=10**6
    )
    assert plan.chosen == (0,) and plan.levels == (0.05,)
    assert plan.total == pytest.approx(0.05)
    again = plan_events(
        a, 100_000, b, 100_000, feature=[0, 1, 2], budget=0.05, test_a=10**6, test_b=10**6
    )
    assert again == plan


def test_plan_hedges_when_the_search_split_is_unsure():
    """Deterministic: eight candidates of separate features, equally good and measured on
    a tiny search split, are worth testing together; the levels still sum to the budget
    and no candidate is chosen twice."""
    a = np.full(8, 60)
    b = np.full(8, 30)
    plan = plan_events(
        a, 1_000, b, 1_000, feature=np.arange(8), budget=0.05, test_a=10**6, test_b=10**6
    )
    assert len(plan.chosen) >= 2 and len(set(plan.chosen)) == len(plan.chosen)
    assert sum(plan.levels) == pytest.approx(0.05)
    # the same counts as thresholds of ONE feature (moving together) hedge less
    nested = plan_events(
        a, 1_000, b, 1_000, feature=np.zeros(8), budget=0.05, test_a=10**6, test_b=10**6
    )
    assert len(nested.chosen) <= len(plan.chosen)
    with pytest.raises(InvalidParameterError):
        plan_events(a, 1_000, b, 1_000, feature=np.arange(8), budget=1.5, test_a=10, test_b=10)
    assert plan_events([], 1, [], 1, feature=[], budget=0.05, test_a=10, test_b=10).chosen == ()


def test_equal_rate_prior_pulls_small_counts_to_no_evidence():
    """Deterministic.  Pseudo-outputs split by the sizes: a count in the thousands keeps
    its ratio to 0.1 %, a handful is pulled most of the way to 1; zero prior is the
    identity; a negative, NaN or infinite prior is refused."""
    a = np.array([15_000.0, 5.0, 3.0])
    b = np.array([14_370.0, 1.0, 0.0])
    sa, sb = equal_rate_prior(a, 250_000, b, 250_000, 50.0)
    np.testing.assert_allclose(sa - a, 25.0)
    np.testing.assert_allclose(sb - b, 25.0)
    assert sa[0] / sb[0] == pytest.approx(a[0] / b[0], rel=1e-3)
    assert np.all(sa[1:] / sb[1:] < 1.2)
    same_a, same_b = equal_rate_prior(a, 10, b, 10, 0.0)
    np.testing.assert_array_equal(same_a, a)
    np.testing.assert_array_equal(same_b, b)
    # unequal sizes: both rates move to the pooled rate, the ratio of rates to 1
    ua, ub = equal_rate_prior([0.0], 100, [0.0], 300, 40.0)
    assert (ua[0] / 100) == pytest.approx(ub[0] / 300)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(InvalidParameterError, match="prior_outputs"):
            equal_rate_prior(a, 10, b, 10, bad)


def test_equal_rate_prior_keeps_the_plan_on_the_event_that_carries_the_bound():
    """Deterministic (the plan's draws use a fixed seed).  NumericalSVT's shape: one
    event counted ~15 000 times with a small ratio, four counted a handful of times.
    Centred on conservative estimates with a flat prior, the plan buys the handful as
    lottery tickets and leaves the strong event a sixth of α or less; with 50
    equal-rate pseudo-outputs it is planned first with at least half of α."""
    n, test = 250_000, 4_000_000
    a = np.array([15_000.0, 3, 5, 2, 4])
    b = np.array([14_370.0, 0, 1, 0, 1])

    def plan(prior):
        pa, pb = equal_rate_prior(a, n, b, n, prior)
        lo, hi = wilson_lower(pa, n, 0.025), wilson_upper(pb, n, 0.025)
        return plan_events(
            lo * n,
            n,
            hi * n,
            n,
            feature=np.arange(5),
            budget=0.05,
            test_a=test,
            test_b=test,
            rate_ratio=True,
        )

    flat, shrunk = plan(0.0), plan(50.0)
    level = dict(zip(flat.chosen, flat.levels, strict=True)).get(0, 0.0)
    assert flat.chosen[0] != 0 and level <= 0.05 / 6 + 1e-15
    assert shrunk.chosen[0] == 0 and shrunk.levels[0] >= 0.025 - 1e-15
    assert sum(shrunk.levels) == pytest.approx(0.05)
