"""The (ε, δ) distinguishing engine: declared densities, events, selection, distinguish_pair.

Every audit here is seeded.  Where an assertion is statistical, its docstring or comment
states the error rate: for "a correct mechanism is not flagged" it is the family-wise
α of the call (the probability of a false violation is at most α whatever the seed);
for "a broken mechanism is flagged" it is the power at the stated sample size.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privaudit.distinguish as dist
from mechanisms import (
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponseMechanism,
    ReportNoisyMax,
    declare_mechanism,
    smooth_laplace_mechanism,
    smooth_median_mechanism,
)
from privaudit.distinguish import (
    BinIndex,
    Coordinate,
    DiscreteCode,
    Event,
    ThresholdEvent,
    ValueSetEvent,
    declared_log_densities,
    select_events,
)
from privaudit.distinguish.cell_score import (
    CellFit,
    dependence_groups,
    fit_cell_score,
    isotonic,
    whitening,
)
from privaudit.distinguish.columns import ColumnCoder, fit_column_coder
from privaudit.distinguish.logistic import fit_logistic_score
from privaudit.distinguish.privacy_loss import _grid_rank, loss_moments
from privaudit.pairs import verified_pair
from privaudit.results import EventBound, ProfilePoint
from spec import (
    ApproxDP,
    DatasetDomain,
    GlobalSensitivity,
    MechanismSpec,
    PureDP,
    QueryDistance,
    RealInterval,
    SubstituteOne,
    VectorDomain,
)

ALPHA = 0.05


def audit(mech, x, y, *, samples=20_000, search=5_000, seed=0, alpha=ALPHA, **kw):
    pair = verified_pair(mech.spec, x, y, "explicit")
    return dist.distinguish_pair(mech, pair, samples=samples, search_samples=search, rng=seed,
                          alpha=alpha, **kw)


# ----------------------------------------------------------------------------------------
# declared densities
# ----------------------------------------------------------------------------------------
def test_laplace_and_gaussian_densities():
    lap = LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    lp_x, lp_y = declared_log_densities(lap, 0.0, 1.0)
    o = np.array([-3.0, 0.0, 0.5, 1.0, 4.0])
    np.testing.assert_allclose(lp_x(o) - lp_y(o), np.abs(o - 1) - np.abs(o))
    gauss = GaussianMechanism(1.0, 1e-5, 1.0, output_dimension=2)
    gx, gy = declared_log_densities(gauss, [0.0, 0.0], [1.0, 0.0])
    sigma = gauss.noise_law.sigma
    pts = np.array([[0.3, -1.0], [2.0, 5.0]])
    want = (-(pts[:, 0] ** 2) + (pts[:, 0] - 1) ** 2) / (2 * sigma**2)
    np.testing.assert_allclose(gx(pts) - gy(pts), want, rtol=1e-12)


def test_randomized_response_and_argmax_densities():
    rr = RandomizedResponseMechanism(epsilon=1.0, categories=4)
    lx, _ = declared_log_densities(rr, 0, 1)
    o = np.array([0, 1, 2, 3, 7])
    np.testing.assert_allclose(np.exp(lx(o[:4])), rr.law.pmf_given(o[:4], 0))
    assert lx(o)[-1] == -np.inf                                 # not a category
    em = ExponentialMechanism(1.0, 1.0, 3)
    sx, _ = declared_log_densities(em, [0.0, 1.0, 2.0], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(np.exp(sx(np.arange(3))), em.probabilities([0.0, 1.0, 2.0]))
    assert declared_log_densities(ReportNoisyMax(1.0, 1.0, 3), [0.0] * 3, [1.0] * 3) is None


def test_smooth_sensitivity_density_and_missing_information():
    med = smooth_median_mechanism(5, 0.0, 1.0, epsilon=1.0, delta=1e-6)
    x = [0.1, 0.2, 0.5, 0.6, 0.9]
    lx, _ = declared_log_densities(med, x, [0.1, 0.2, 0.6, 0.6, 0.9])
    s = med.smooth_sensitivity(x) / med.alpha
    assert float(lx(np.array([0.5]))[0]) == pytest.approx(math.log(0.5 / s))
    lap = LaplaceMechanism(1.0, 1.0)
    blind = declare_mechanism(lap.spec, sampler=lambda v, n, rng: v + rng.laplace(0, 1, n))
    assert declared_log_densities(blind, 0.0, 1.0) is None      # no statistic hook
    spec = MechanismSpec(name="none", input_domain=RealInterval(),
                         relation=QueryDistance(norm="l1", radius=1.0),
                         guarantee=PureDP(epsilon=1.0))
    assert declared_log_densities(declare_mechanism(spec, sampler=None,
                                                    statistic=lambda v: v), 0.0, 1.0) is None


# ----------------------------------------------------------------------------------------
# events and selection
# ----------------------------------------------------------------------------------------
def test_events_are_vectorised_masks():
    t = ThresholdEvent(feature=Coordinate(), threshold=0.5, side="le")
    assert isinstance(t, Event) and t.description == "output <= 0.5"
    assert t.contains(np.array([0.0, 0.5, 1.0])).tolist() == [True, True, False]
    code = DiscreteCode(columns=(np.array([0, 1, 2]), np.array([0.0, 5.0])))
    rows = np.array([[2, 5.0], [0, 0.0], [1, 3.0]])
    assert code(rows).tolist() == [5, 0, -1]
    v = ValueSetEvent(feature=code, members=(5,))
    assert v.contains(rows).tolist() == [True, False, False]
    assert v.description == "output in {(2, 5.0)}"
    bins = BinIndex(edges=np.array([0.0, 1.0, 2.0]))
    b = ValueSetEvent(feature=bins, members=(1, 2, 0))
    assert b.description == "output in [-inf, 2)"
    assert b.contains(np.array([-5.0, 1.5, 2.0, np.nan])).tolist() == [True, True, False, False]


def test_selection_uses_exact_values_for_randomized_response():
    rr = RandomizedResponseMechanism(epsilon=1.0, categories=4)
    rng = np.random.default_rng(1)
    sx, sy = rr.sample(0, 5000, rng), rr.sample(1, 5000, rng)
    chosen = select_events(sx, sy, delta=0.0, alpha=0.01, events_per_direction=4)
    assert "exact values" in chosen.families
    assert isinstance(chosen.x_vs_y[0], ValueSetEvent)
    assert chosen.x_vs_y[0].description == "output in {0}"
    assert chosen.y_vs_x[0].description == "output in {1}"


@given(st.lists(st.floats(-5, 5), min_size=1, max_size=12),
       st.lists(st.one_of(st.floats(-10, 10), st.sampled_from([np.inf, -np.inf])),
                min_size=1, max_size=200))
def test_loss_moments_match_brute_force(grid, losses):
    g = np.unique(np.abs(np.asarray(grid)))
    loss = np.asarray(losses)
    loss = np.concatenate([loss, g, np.nextafter(g, np.inf)])   # values on and next to the grid
    assert np.array_equal(_grid_rank(loss, g), np.searchsorted(g, loss, side="left"))
    m = loss_moments(loss, g)
    x = np.maximum(0.0, -np.expm1(g[:, None] - loss[None, :]))
    np.testing.assert_allclose(m.sum_x, x.sum(axis=1), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(m.sum_sq, (x * x).sum(axis=1), rtol=1e-9, atol=1e-9)


# ----------------------------------------------------------------------------------------
# tightness
# ----------------------------------------------------------------------------------------
def test_tightness_laplace_at_1e5():
    """Laplace ε = 1 on 0 vs 1 with Poisson(10⁵) test outputs per side (2·10⁴ search).

    The §5 oracle (known event, α/2 per side) is 0.981; the target is ≥ 0.95 × 0.981 =
    0.932.  Measured on seeds 0–4: 1.0028, 0.9782, 0.9801, 0.9845, 0.9877 — the
    rate-ratio bound (one exact CP bound at the event's whole level) is above the
    two-sided oracle.  Seed 0's bound exceeds the true ε = 1: the main event's bound
    fails with probability ≤ its level 0.032 (here π̂ lies 2.2 standard errors above
    e/(1 + e), a 1.5 % event).  The assertion allows one such miss in five audits: two or
    more happen with probability ≤ 1 − 0.95⁵ − 5·0.05·0.95⁴ ≈ 2.3 % for a valid auditor.
    """
    results = [audit(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, samples=10**5,
                     search=2 * 10**4, seed=seed) for seed in range(5)]
    assert all(r.epsilon_lower_bound >= 0.95 * 0.981 for r in results)
    assert sum(r.violated for r in results) <= 1
    r = results[1]
    assert r.best_event is not None and r.tradeoff is not None
    assert r.best_event.method == "rate_ratio"
    assert r.tradeoff.alpha0 + math.e * r.tradeoff.alpha1 >= 1.0      # consistent with ε = 1


def test_tightness_laplace_at_1e6():
    """N = 10⁶ per side: target ≥ 0.97 × 0.994 = 0.964; measured 0.9898 (seed 1)."""
    r = audit(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, samples=10**6, search=10**5, seed=1)
    assert r.epsilon_lower_bound >= 0.97 * 0.994
    assert r.power is not None and 1.0 < r.power.detectable_epsilon < 1.02


# ----------------------------------------------------------------------------------------
# correct mechanisms are not flagged (false-violation probability ≤ α = 0.05 per call)
# ----------------------------------------------------------------------------------------
CORRECT = {
    "laplace": (lambda: LaplaceMechanism(1.0, 1.0), 0.0, 1.0),
    "gaussian": (lambda: GaussianMechanism(1.0, 1e-5, 1.0), 0.0, 1.0),
    "randomized_response": (lambda: RandomizedResponseMechanism(1.0, 4), 0, 1),
    "discrete_laplace": (lambda: DiscreteLaplaceMechanism(1.0, 1), 0, 1),
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_mechanisms_are_not_flagged(name):
    factory, x, y = CORRECT[name]
    mech = factory()
    for seed in range(3):
        r = audit(mech, x, y, seed=seed)
        assert not r.violated, r.summary()
        assert not r.profile_violated, r.summary()
        assert not r.epsilon_lower_bound_infinite
        assert r.epsilon_lower_bound <= r.claimed_epsilon


def test_soundness_mini_run():
    """40 audits of a correct Laplace at α = 0.05 on seeds 100 … 139.

    Validity guarantees P(false violation) ≤ 0.05 per audit, so the count is
    stochastically below Bin(40, 0.05): the assertion (at most 6) fails with probability
    P(≥ 7) ≈ 1.4 % for a valid auditor.  With these seeds the observed count is 1 for the
    event tests (the rate-ratio bound is exact, so on Laplace's tail events, whose ratio
    is exactly e^ε, it errs at close to its nominal level) and 0 for the profile.
    """
    mech = LaplaceMechanism(1.0, 1.0)
    flagged = [audit(mech, 0.0, 1.0, samples=4000, search=1000, seed=s) for s in range(100, 140)]
    assert sum(r.violated for r in flagged) <= 6
    assert sum(r.profile_violated for r in flagged) <= 6


# ----------------------------------------------------------------------------------------
# broken mechanisms are flagged
# ----------------------------------------------------------------------------------------
def test_noisy_hist_like_epsilon_ten_is_found_uncapped():
    """Laplace with scale 0.1 behind a claim of ε = 1 (true ε = 10), N = 10⁵ per side:
    ε_lb must exceed DP-Sniper's cap ln(1/0.01) = 4.605 (measured 8.13)."""
    lap = LaplaceMechanism(1.0, 1.0)
    broken = declare_mechanism(lap.spec, sampler=lambda v, n, rng: v + rng.laplace(0, 0.1, n),
                               statistic=lambda v: v)
    r = audit(broken, 0.0, 1.0, samples=10**5, search=2 * 10**4)
    assert r.violated and r.epsilon_lower_bound > 4.6
    assert r.profile_violated
    blind = declare_mechanism(lap.spec, sampler=lambda v, n, rng: v + rng.laplace(0, 0.1, n))
    r2 = audit(blind, 0.0, 1.0, samples=10**5, search=2 * 10**4)
    assert r2.violated and r2.epsilon_lower_bound > 4.6 and not r2.densities_declared


def test_laplace_with_half_the_declared_scale():
    """True ε = 2 against a claim of 1; at 2·10⁴ per side ε_lb ≈ 1.9."""
    lap = LaplaceMechanism(1.0, 1.0)
    broken = declare_mechanism(lap.spec, sampler=lambda v, n, rng: v + rng.laplace(0, 0.5, n),
                               statistic=lambda v: v)
    r = audit(broken, 0.0, 1.0)
    assert r.violated and r.violating is not None and r.epsilon_lower_bound > 1.5
    assert r.violation_margin > 0


def _noisy_max_value(noise: str, m: int = 5, eps: float = 1.0):
    spec = MechanismSpec(name=f"noisy_max_value_{noise}",
                         input_domain=VectorDomain(element=RealInterval(), length=m),
                         relation=QueryDistance(norm="linf", radius=1.0),
                         sensitivity=(GlobalSensitivity(value=1.0, norm="linf"),),
                         noise=None, guarantee=PureDP(epsilon=eps))
    scale = 2.0 / eps

    def sampler(q, size, rng):
        z = rng.laplace(0, scale, (size, m)) if noise == "laplace" else \
            rng.exponential(scale, (size, m))
        return (np.asarray(q) + z).max(axis=1)

    return declare_mechanism(spec, sampler=sampler)


def test_noisy_argmax_returning_the_value():
    """StatDP's noisy_max_v1b: true ε = m·ε/2 = 2.5 on 0⃗ vs 1⃗; measured ε_lb ≈ 2.2 at 10⁵."""
    r = audit(_noisy_max_value("laplace"), np.zeros(5), np.ones(5), samples=10**5,
              search=2 * 10**4)
    assert r.violated and r.epsilon_lower_bound > 1.5
    assert not r.densities_declared and "histogram LLR" in r.families


def test_exponential_noise_max_value_gives_a_large_finite_bound():
    """noisy_max_v2b: supports shift (true ε = ∞); without declared densities the bound
    is finite, and a zero count would be reported as such (measured 4.88 at 10⁵, from
    {o ≤ 1.38} with 13 outputs of M(y))."""
    r = audit(_noisy_max_value("exponential"), np.zeros(5), np.ones(5), samples=10**5,
              search=2 * 10**4)
    assert r.violated and 4.0 < r.epsilon_lower_bound < math.inf
    assert not r.epsilon_lower_bound_infinite
    if r.best_event.count_y == 0:
        assert "limited by the sample size" in r.zero_count_note
    else:
        assert r.zero_count_note == ""


def test_declared_support_mismatch_is_infinite_evidence():
    """A smooth bound that is 0 on constant data: the declared law of M(x) is a point mass,
    so every output of M(y) has declared probability 0 under x."""
    dom = DatasetDomain(record=RealInterval(lo=0, hi=1), size=3)
    mech = smooth_laplace_mechanism(
        lambda v: float(np.median(v)), lambda v: 0.0 if np.ptp(v) == 0 else 0.5,
        epsilon=1.0, delta=1e-6, input_domain=dom, relation=SubstituteOne())
    r = audit(mech, [0.5, 0.5, 0.5], [0.5, 0.5, 0.9])
    assert r.epsilon_lower_bound_infinite and r.reported_epsilon == math.inf
    assert "epsilon = inf if the implementation follows its declared law" in r.infinite_evidence
    assert r.violated


def test_randomized_response_events_are_exact_values():
    """k = 4, ε = 1: the best event is a single output value; ε_lb ≈ 0.98 at 10⁵."""
    r = audit(RandomizedResponseMechanism(1.0, 4), 0, 1, samples=10**5, search=2 * 10**4)
    assert isinstance(r.best_region, ValueSetEvent)
    assert r.best_event.description in ("output in {0}", "output in {1}")
    assert 0.9 < r.epsilon_lower_bound <= 1.0


def test_multidimensional_without_densities_uses_a_learned_score():
    """Gaussian σ = 1 on 3 coordinates behind a (1, 1e-5) claim needing σ ≈ 3.73."""
    spec = MechanismSpec(name="vector", input_domain=VectorDomain(element=RealInterval(),
                                                                  length=3),
                         relation=QueryDistance(norm="l2", radius=1.0), output_dimension=3,
                         sensitivity=(GlobalSensitivity(value=1.0, norm="l2"),), noise=None,
                         guarantee=ApproxDP(epsilon=1.0, delta=1e-5))
    mech = declare_mechanism(spec, sampler=lambda q, n, rng: np.asarray(q)
                             + rng.normal(0, 1.0, (n, 3)))
    r = audit(mech, [0.0, 0.0, 0.0], [0.6, 0.6, 0.529])
    assert "logistic score" in r.families and r.violated


# ----------------------------------------------------------------------------------------
# bookkeeping
# ----------------------------------------------------------------------------------------
def test_result_accounting_and_round_trip():
    r = audit(GaussianMechanism(1.0, 1e-5, 1.0), 0.0, 1.0, samples=5000, search=1000)
    k = 8
    planned = len(r.plan.events)
    assert 1 <= len(r.events) <= 2 * k + planned and len(r.regions) == len(r.events)
    # declared densities: 0.1 α to the profile, 0.8 α to the declared-law events, 0.1 α
    # to the data-driven ones
    assert r.alpha_profile == pytest.approx(0.1 * ALPHA)
    assert r.alpha_declared == pytest.approx(0.8 * ALPHA)
    assert r.alpha_events == pytest.approx(0.9 * ALPHA)
    # weighted Bonferroni: the levels of the tested events add up to the events' budget,
    # and everything to the pair's α
    assert sum(b.alpha for b in r.events) == pytest.approx(r.alpha_events)
    assert sum(b.alpha for b in r.events[:planned]) == pytest.approx(r.alpha_declared)
    assert sum(b.alpha for b in r.events) + r.alpha_profile <= ALPHA * (1 + 1e-12)
    assert r.alpha_per_event == r.best_event.alpha
    equal = audit(GaussianMechanism(1.0, 1e-5, 1.0), 0.0, 1.0, samples=5000, search=1000,
                  allocation="equal")
    searched = equal.events[len(equal.plan.events):]
    assert all(b.alpha == pytest.approx((equal.alpha_events - equal.alpha_declared) / (2 * k))
               for b in searched)
    assert {b.direction for b in searched} == {"x_vs_y", "y_vs_x"}
    grid = sorted({p.epsilon for p in r.profile})
    # 25 points on [0, 2·ε_c] plus ε_c, which is already one of them here
    assert len(grid) == 25 and grid[0] == 0.0 and 1.0 in grid and grid[-1] == 2.0
    assert len(r.profile) == 2 * 25
    assert all(p.alpha == pytest.approx(0.1 * ALPHA / 50) for p in r.profile)
    assert all(p.delta_claimed == pytest.approx(r_claim) for p, r_claim in
               zip(r.profile, [ApproxDP(epsilon=1.0, delta=1e-5).delta_for_epsilon(p.epsilon)
                               for p in r.profile]))
    for b in r.events:
        assert EventBound.from_json(b.to_json()) == b
    for p in r.profile[:3]:
        assert ProfilePoint.from_json(p.to_json()) == p
    json.dumps(r.details())
    assert set(r.timings) >= {"sampling", "total"}
    again = audit(GaussianMechanism(1.0, 1e-5, 1.0), 0.0, 1.0, samples=5000, search=1000)
    assert again.events == r.events                       # same seed, same audit


def test_parameters_are_checked():
    mech = LaplaceMechanism(1.0, 1.0)
    pair = verified_pair(mech.spec, 0.0, 1.0, "explicit")
    from spec.errors import InvalidParameterError

    for bad in ({"samples": 0}, {"alpha": 1.0}, {"events_per_direction": 0},
                {"epsilon_grid": [-1.0]}, {"allocation": "greedy"}, {"chunk_rows": 0}):
        kwargs = {"samples": 10, "search_samples": 10, "rng": 0, "alpha": 0.05, **bad}
        with pytest.raises(InvalidParameterError):
            dist.distinguish_pair(mech, pair, **kwargs)


# ----------------------------------------------------------------------------------------
# learned scores (privaudit.distinguish.cell_score, .columns, .logistic)
# ----------------------------------------------------------------------------------------


def _bits(p: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    return (rng.random((n, p.size)) < p).astype(np.int64)


def test_column_coder_cells():
    """Exact columns code their values (unseen → one extra cell); continuous columns keep
    atoms exactly and bin the rest by quantiles refined in both tails."""
    exact = fit_column_coder(np.array([-1.0, 0.0, 1.0, 0.0, 1.0]))
    assert exact.exact and exact.size == 4
    assert exact(np.array([1.0, -1.0, 0.5, np.nan])).tolist() == [2, 0, 3, 3]
    rng = np.random.default_rng(3)
    col = np.where(rng.random(50_000) < 0.6, 0.0, rng.laplace(0, 1, 50_000))
    coder = fit_column_coder(col, bins=16)
    assert coder.atoms.tolist() == [0.0] and not coder.exact
    codes = coder(col)
    assert np.all(codes[col == 0.0] == 0) and np.all(codes[col != 0.0] >= 1)
    assert coder.edges.size > 16                      # tail refinement adds edges
    counts = np.bincount(codes[col != 0.0] - 1)
    assert counts.max() < 0.1 * (col != 0.0).sum()    # no bin holds more than ~1/16 + slack
    many = ColumnCoder(atoms=np.arange(20.0), edges=np.zeros(0))     # > 8 atoms: searchsorted
    assert many(np.array([3.0, 19.0, 2.5])).tolist() == [3, 19, 20]


def test_naive_bayes_score_is_the_llr_of_a_product_law():
    """Six independent bits (a RAPPOR-like product law), 2·10⁵ fitting rows per side: the
    naive-Bayes score equals Σ_j log(P_x(b_j)/P_y(b_j)) up to estimation error.  Each
    per-bit cell has ≥ 9·10⁴ rows, so its LLR has sd ≤ 0.005 and six of them ≤ 0.012;
    the tolerance 0.06 is 5 sd: a seed failing it has probability < 10⁻⁶."""
    px = np.array([0.525, 0.525, 0.525, 0.475, 0.475, 0.5])
    py = np.array([0.475, 0.475, 0.475, 0.525, 0.525, 0.5])
    rng = np.random.default_rng(5)
    fx, fy = _bits(px, 200_000, rng), _bits(py, 200_000, rng)
    score = fit_cell_score(fx, fy, groups="columns")
    assert score is not None and score.name == "naive-Bayes LLR"
    rows = np.array(list(itertools.product([0, 1], repeat=6)))
    true = np.sum(np.where(rows == 1, np.log(px / py), np.log((1 - px) / (1 - py))), axis=1)
    np.testing.assert_allclose(score(rows), true, atol=0.06)


def test_joint_cells_capture_what_naive_bayes_cannot():
    """Two fair bits whose XOR is 1 w.p. 0.6 under x and 0.4 under y: each bit alone is
    uninformative (naive Bayes ≈ 0), the joint-cell score is ±log 1.5 on the XOR."""
    rng = np.random.default_rng(7)

    def xor_rows(p: float, n: int) -> np.ndarray:
        a = rng.integers(0, 2, n)
        return np.stack([a, a ^ (rng.random(n) < p)], axis=1).astype(np.int64)

    fx, fy = xor_rows(0.6, 100_000), xor_rows(0.4, 100_000)
    ctx = CellFit(fx, fy)
    nb = fit_cell_score(None, None, groups="columns", context=ctx)
    joint = fit_cell_score(None, None, groups="joint", context=ctx)
    rows = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    assert np.max(np.abs(nb(rows))) < 0.05          # sd ≈ 0.009 per bit: > 5 sd margin
    np.testing.assert_allclose(joint(rows), [-math.log(1.5), math.log(1.5),
                                             math.log(1.5), -math.log(1.5)], atol=0.05)


def test_dependence_groups_split_independent_blocks():
    """Columns 0–1 copy one bit (with 10 % flips), columns 2–3 another, column 4 is
    noise: three groups.  The G-test at level 10⁻⁶ per pair makes a false join of
    independent columns a < 10⁻⁵ event over the ten pairs."""
    rng = np.random.default_rng(2)
    n = 50_000
    u, v = rng.integers(0, 2, n), rng.integers(0, 2, n)
    cols = [u, u ^ (rng.random(n) < 0.1), v, v ^ (rng.random(n) < 0.1), rng.integers(0, 2, n)]
    groups = dependence_groups([c.astype(np.int64) for c in cols], [2] * 5, max_cells=100)
    assert groups == [(0, 1), (2, 3), (4,)]
    assert dependence_groups([c.astype(np.int64) for c in cols], [2] * 5, max_cells=1) == \
        [(0,), (1,), (2,), (3,), (4,)]


def test_whitening_recovers_the_increments_of_prefix_sums():
    """Prefix sums of i.i.d. Laplace noise: (o − μ)W must be uncorrelated and W is, up
    to scale and sampling error, the differencing matrix (|off-band| < 0.05 relative)."""
    rng = np.random.default_rng(4)
    o = np.cumsum(rng.laplace(0, 1, (100_000, 5)), axis=1)
    mu, w = whitening(o)
    z = (o - mu) @ w
    corr = np.corrcoef(z, rowvar=False)
    assert np.max(np.abs(corr - np.eye(5))) < 0.02
    scaled = w / np.max(np.abs(w))
    band = np.eye(5) - np.eye(5, k=1)                # z_j ∝ o_j − o_{j−1}
    assert np.max(np.abs(np.abs(scaled) - np.abs(band))) < 0.05
    assert whitening(rng.laplace(0, 1, (10_000, 3))) is None      # already uncorrelated


@given(st.lists(st.floats(-5, 5), min_size=1, max_size=30),
       st.lists(st.floats(0.1, 10), min_size=30, max_size=30))
def test_isotonic_is_monotone_and_least_squares(values, weights):
    v = np.asarray(values)
    w = np.asarray(weights[: v.size])
    fit = isotonic(v, w)
    assert np.all(np.diff(fit) >= -1e-12)
    # optimality: no monotone vector of the pooled form does better than PAV's fit,
    # checked against the constant fit and against the data itself when it is monotone
    sse = float(np.sum(w * (fit - v) ** 2))
    const = float(np.sum(w * (np.average(v, weights=w) - v) ** 2))
    assert sse <= const + 1e-9
    if np.all(np.diff(v) >= 0):
        assert sse == pytest.approx(0.0, abs=1e-9)
    down = isotonic(v, w, increasing=False)
    assert np.all(np.diff(down) <= 1e-12)


def test_monotone_naive_bayes_pools_a_weak_shift():
    """Laplace(60) shifted by 1 (LLR ±1/60): 32 free bins give LLRs with sd ≈ 0.02 per
    bin — more than the signal — while the monotone fit is monotone and its largest
    |LLR| stays within 0.02 of 1/60 (the pooled halves have ~10⁵ rows: sd < 0.005)."""
    rng = np.random.default_rng(8)
    fx = rng.laplace(0.0, 60.0, (200_000, 1))
    fy = rng.laplace(1.0, 60.0, (200_000, 1))
    ctx = CellFit(fx, fy)
    mono = fit_cell_score(None, None, groups="columns", monotone=True, context=ctx)
    grid = np.linspace(-300, 300, 601)[:, None]
    values = mono(grid)
    assert np.all(np.diff(values) <= 1e-12)            # x = shift down: LLR decreasing
    assert np.max(np.abs(values)) < 1 / 60 + 0.02
    assert mono.name == "monotone naive-Bayes LLR"


def test_logistic_feature_map_has_no_collinear_features():
    """A binary column gives one feature, a 3-valued categorical two (one-hot without its
    first value), a continuous column three plus its atom; a duplicated column adds
    nothing."""
    rng = np.random.default_rng(1)
    n = 4_000

    def rows(shift: float) -> np.ndarray:
        b = rng.integers(0, 2, n).astype(float)
        c = rng.integers(-1, 2, n).astype(float)
        v = np.where(rng.random(n) < 0.3, 0.0, rng.normal(shift, 1, n))
        return np.stack([b, c, v, b], axis=1)

    score = fit_logistic_score(rows(0.5), rows(0.0))
    assert score is not None
    fm = score.features
    assert fm.raw_size == 1 + 2 + 1 + 3 + 1            # b, c (2), atom of v, (z, z², |z|), b again
    assert fm.keep.size == fm.raw_size - 1              # the copy of b is dropped
    out = score(rows(0.0))
    assert out.shape == (n,) and np.all(np.isfinite(out))


# ----------------------------------------------------------------------------------------
# planned levels, streaming test split, new families end to end
# ----------------------------------------------------------------------------------------
def test_planned_levels_sum_to_the_event_budget():
    r = audit(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, samples=10**5, search=2 * 10**4)
    assert sum(b.alpha for b in r.events) == pytest.approx(r.alpha_events)
    assert 1 <= len(r.events) <= 16


def test_the_test_split_can_be_streamed_in_chunks():
    """A sampler that consumes one double per output draws the same stream in chunks, so
    chunking the test split (2 500 rows per call) must change nothing at all."""
    lap = LaplaceMechanism(1.0, 1.0)
    mech = declare_mechanism(lap.spec, sampler=lambda v, n, rng: v + rng.laplace(0, 1, n),
                             statistic=lambda v: v)
    whole = audit(mech, 0.0, 1.0, samples=20_000, search=5_000, seed=3)
    chunked = audit(mech, 0.0, 1.0, samples=20_000, search=5_000, seed=3, chunk_rows=2_500)
    assert chunked.events == whole.events
    for a, b in zip(chunked.profile, whole.profile, strict=True):   # sums in another order
        assert a.delta_lower_bound == pytest.approx(b.delta_lower_bound, rel=1e-9, abs=1e-12)
        assert a.delta_estimate == pytest.approx(b.delta_estimate, rel=1e-9, abs=1e-12)


def test_product_law_is_audited_with_naive_bayes():
    """Eight independent bits flipping with P(1) = 0.6 vs 0.4 on the x side (true ε = 8 ln
    1.5 = 3.24 for a claim of 1): the learned naive-Bayes score finds it.  Measured
    ε_lb ≈ 2.9 at 5·10⁴ per side (seed 2); asserted > 2 (power, not size).  Seed 2, not
    0: since the test split is drawn in SeedSequence blocks (privaudit.streaming), seed 0
    draws 19 all-ones rows of M(y) where 33 are expected, and its ε_lb 3.305 lies above
    the true 3.24 — the ≤ 5 % error event the bound allows (1 of 40 seeds, 0–39)."""
    spec = MechanismSpec(name="bits", input_domain=RealInterval(lo=0, hi=1),
                         relation=QueryDistance(norm="l1", radius=1.0), output_dimension=8,
                         noise=None, guarantee=PureDP(epsilon=1.0))
    mech = declare_mechanism(spec, sampler=lambda v, n, rng: (
        rng.random((n, 8)) < (0.6 if v == 0 else 0.4)).astype(np.int64))
    r = audit(mech, 0.0, 1.0, samples=50_000, search=20_000, seed=2)
    assert r.violated and 2.0 < r.epsilon_lower_bound <= 8 * math.log(1.5)
    assert "naive-Bayes LLR" in r.families


def test_declared_llr_matches_the_declared_densities():
    """The direct LLR of additive full-support noise (differing coordinates only, closed
    forms for Laplace and Gaussian) equals log p_x − log p_y after the common rounding;
    it is None where a law can give zero density (one-sided exponential noise)."""
    from privaudit.distinguish import declared_llr
    from privaudit.distinguish.events import llr_from, llr_round

    rng = np.random.default_rng(0)
    hist = GaussianMechanism(1.0, 1e-5, 1.0, output_dimension=3)
    cases = [(LaplaceMechanism(0.5, 1.0), 0.0, 1.0), (GaussianMechanism(1.0, 1e-5, 1.0), 2.0, 1.0),
             (hist, [0.0, 1.0, 2.0], [0.0, 1.5, 2.0])]
    for mech, x, y in cases:
        out = mech.sample(x, 20_000, rng)
        lx, ly = declared_log_densities(mech, x, y)
        direct = declared_llr(mech, x, y)
        assert direct is not None
        np.testing.assert_allclose(llr_round(direct(out)), llr_from(lx(out), ly(out)),
                                   rtol=0, atol=2e-9)
    spec = MechanismSpec(name="rr", input_domain=RealInterval(),
                         relation=QueryDistance(norm="l1", radius=1.0), noise=None,
                         guarantee=PureDP(epsilon=1.0))
    assert declared_llr(declare_mechanism(spec, sampler=None, statistic=lambda v: v), 0, 1) is None


def test_planned_selection_keeps_at_most_two_learned_scores():
    """Each learned score costs a pass over the test split: the plan sees the candidates
    of at most two of them, and the levels it returns sum to the budget."""
    rng = np.random.default_rng(6)

    def rows(p: float, n: int) -> np.ndarray:
        return (rng.random((n, 6)) < p).astype(np.int64)

    chosen = select_events(rows(0.6, 8_000), rows(0.45, 8_000), delta=0.0, alpha=0.01,
                           budget=0.04, test_samples=50_000)
    events = chosen.x_vs_y + chosen.y_vs_x
    learned = {id(e.feature) for e in events if "LLR" in getattr(e.feature, "name", "")
               or "logistic" in getattr(e.feature, "name", "")}
    assert 1 <= len(events) and len(learned) <= 2
    assert sum(chosen.levels_x_vs_y + chosen.levels_y_vs_x) == pytest.approx(0.04)


# ----------------------------------------------------------------------------------------
# events planned from the declared law
# ----------------------------------------------------------------------------------------
def _declared(mech, x, y):
    from privaudit.distinguish.densities import declared_llr
    from privaudit.distinguish.events import LogLikelihoodRatio

    lx, ly = declared_log_densities(mech, x, y)
    return LogLikelihoodRatio(lx, ly, direct=declared_llr(mech, x, y))


def test_declared_loss_laws_match_closed_forms():
    """Every method of :func:`declared_loss_law` against exact values: the masses sum to 1
    on each side, and the tail masses of the optimal Laplace event {o ≤ 0} (L = +ε) are
    P_x = 1/2 and P_y = e^{−ε}/2; for randomized response the law is the table itself."""
    from privaudit.distinguish.declared_plan import declared_loss_law

    lap = LaplaceMechanism(1.0, 1.0)
    law = declared_loss_law(lap, 0.0, 1.0, _declared(lap, 0.0, 1.0))
    assert law.method.startswith("quadrature")
    assert law.mass_x.sum() == pytest.approx(1.0, abs=1e-12)
    assert law.mass_y.sum() == pytest.approx(1.0, abs=1e-12)
    top = law.values >= 1.0 - 1e-9                     # the atom L = ε = 1
    assert law.mass_x[top].sum() == pytest.approx(0.5, rel=1e-6)
    assert law.mass_y[top].sum() == pytest.approx(0.5 * math.exp(-1.0), rel=1e-6)
    rr = RandomizedResponseMechanism(1.0, 4)
    law = declared_loss_law(rr, 0, 1, _declared(rr, 0, 1))
    assert law.method.startswith("exact") and law.outputs is not None
    p = rr.spec.noise.law.pmf_given(np.arange(4), 0)
    np.testing.assert_allclose(np.sort(law.mass_x), np.sort(p), rtol=1e-12)
    dl = DiscreteLaplaceMechanism(1.0, 1)
    law = declared_loss_law(dl, 0, 1, _declared(dl, 0, 1))
    assert law.method.startswith("exact on the") and law.mass_x.sum() == pytest.approx(1.0)
    hist = LaplaceMechanism(1.0, 1.0, output_dimension=3)
    law = declared_loss_law(hist, [0.0, 0.0, 0.0], [0.5, 0.5, 0.0],
                            _declared(hist, [0.0, 0.0, 0.0], [0.5, 0.5, 0.0]))
    assert law.method.startswith("Monte Carlo") and law.mass_y.sum() == pytest.approx(1.0)
    # identical declared laws: nothing to plan
    assert declared_loss_law(lap, 0.0, 0.0, _declared(lap, 0.0, 0.0)) is None


def test_gaussian_main_event_is_the_analytic_optimum():
    """Analytic Gaussian (1, 1e-5), σ = 3.73, 0 vs 1, 10⁶ per side: the main event is the
    half-line {o ≥ t} maximising the expected bound; its declared probabilities agree
    with the normal tails at t (to the quadrature's resolution), and the predicted bound
    is the §5 oracle's 0.77 up to the level (0.8 of the family's α)."""
    from scipy import stats

    from privaudit.distinguish.declared_plan import declared_loss_law, plan_declared_events

    mech = GaussianMechanism(1.0, 1e-5, 1.0)
    sigma = mech.spec.noise.law.sigma
    llr = _declared(mech, 1.0, 0.0)
    plan = plan_declared_events(declared_loss_law(mech, 1.0, 0.0, llr), llr, delta=1e-5,
                                samples=10**6, alpha=0.036)
    main = plan.events[0]
    assert main.role == "main" and main.weight == pytest.approx(0.8)
    assert sum(e.weight for e in plan.events) == pytest.approx(1.0)
    # L = (2o − 1)/(2σ²) for x = 1, y = 0: back to the output threshold (the two
    # directions are mirror images; either may come first)
    t = main.event.threshold * sigma**2 + 0.5
    if main.direction == "x_vs_y":                      # {o ≥ t}: M(x) = N(1, σ²) below
        lower, upper = stats.norm.sf(t, 1.0, sigma), stats.norm.sf(t, 0.0, sigma)
    else:                                               # {o ≤ t}: M(y) = N(0, σ²) below
        lower, upper = stats.norm.cdf(t, 0.0, sigma), stats.norm.cdf(t, 1.0, sigma)
    assert lower < 0.01
    assert main.p_lower_side == pytest.approx(lower, rel=0.03)
    assert main.p_upper_side == pytest.approx(upper, rel=0.03)
    assert 0.73 < main.predicted_epsilon < 0.77
    assert {e.role for e in plan.events} == {"main", "other direction", "wider", "narrower",
                                             "central"}


def test_declared_events_do_not_depend_on_the_samples():
    """The declared family is a function of the declared law, the pair and N only: the
    same events, at the same levels, whatever the seed (and whatever the mechanism
    actually samples) — given the α they get: the broken sampler's search split shows
    mass far above the declared density, so with rare events on (the default) they take
    RARE_SHARE of α and the plan is made at the rest; compared here with them off."""
    mech = GaussianMechanism(1.0, 1e-5, 1.0)
    a = audit(mech, 0.0, 1.0, samples=10_000, search=2_000, seed=1)
    b = audit(mech, 0.0, 1.0, samples=10_000, search=2_000, seed=2)
    broken = declare_mechanism(mech.spec, sampler=lambda v, n, rng: v + rng.normal(0, 0.5, n),
                               statistic=lambda v: v)
    c = audit(broken, 0.0, 1.0, samples=10_000, search=2_000, seed=1, rare_events=False)
    assert audit(broken, 0.0, 1.0, samples=10_000, search=2_000, seed=1).violated
    k = len(a.plan.events)
    assert k >= 2 and len(b.plan.events) == k == len(c.plan.events)
    for r in (b, c):
        assert [e.description for e in r.events[:k]] == [e.description for e in a.events[:k]]
        assert [e.alpha for e in r.events[:k]] == [e.alpha for e in a.events[:k]]
    # σ = 0.5 instead of 3.73: the tail events hold no output at all, the central split
    # {L ≥ 0} still refutes the claim (as do the data-driven events)
    assert c.violated
    central = [b for b, e in zip(c.events, c.plan.events) if e.role == "central"]
    assert central and central[0].epsilon_lower_bound > 1.0


def test_histogram_counts_equal_mask_counts():
    """Planned LLR thresholds of a full-support law are moved onto the loss histogram's
    lattice and counted from it; counting the same events by masks on the same draws
    gives the same numbers."""
    from privaudit.distinguish.privacy_loss import LOSS_STEP, LossHistogram

    for mech, x, y in ((LaplaceMechanism(0.1, 1.0), 0.0, 1.0),
                       (GaussianMechanism(1.0, 1e-5, 1.0), 0.0, 1.0)):
        r = audit(mech, x, y, samples=50_000, search=5_000, seed=4)
        planned = r.regions[: len(r.plan.events)]
        assert all(isinstance(e, ThresholdEvent) for e in planned)
        rng = np.random.default_rng(9)
        out = mech.sample(x, 30_000, rng)
        llr = planned[0].feature
        loss = llr(out)
        grid = np.linspace(0.0, 2.0, 25)
        hist = LossHistogram(grid)
        hist.add(loss)
        for e in planned:
            k = hist.lattice(e.threshold)
            if e.side == "ge":
                assert e.threshold == k * LOSS_STEP
                assert hist.count_at_least(k) == int(np.count_nonzero(e.contains(out)))
            else:
                assert hist.count_below(k + 1) == int(np.count_nonzero(e.contains(out)))


def test_loss_histogram_moments_are_conservative():
    """The quantised terms never exceed the exact ones: Σ X'_ε ≤ Σ X_ε for the loss and
    for the reversed loss, and they differ by at most h·#{L > ε}."""
    from privaudit.distinguish.privacy_loss import LOSS_STEP, LossHistogram

    rng = np.random.default_rng(3)
    loss = np.concatenate([rng.normal(0.05, 0.4, 40_000), [np.inf, -np.inf, 1.0, -1.0]])
    grid = np.unique(np.append(np.linspace(0.0, 2.0, 25), 1.0))
    hist = LossHistogram(grid)
    hist.add(loss[:20_000])
    hist.add(loss[20_000:])
    assert hist.n == loss.size
    for sign in (1, -1):
        exact = loss_moments(sign * loss, grid)
        quant = hist.moments(sign)
        assert quant.n == exact.n
        assert np.all(quant.sum_x <= exact.sum_x + 1e-9)
        above = np.array([np.count_nonzero(sign * loss > e) for e in grid])
        assert np.all(exact.sum_x - quant.sum_x <= LOSS_STEP * above + 1e-9)


def test_loss_histogram_matches_a_full_length_bincount():
    """Counting each call's losses from its smallest bin, on the touched bins only, gives
    the counts, totals, lattice counts and moments of the plain full-length count
    ``bincount(trunc(clip(L/h, low, high + 1/2) − low))`` (the histogram before it
    tracked the touched bins), for losses far apart, ±inf, lattice points and their
    neighbours, multiplicities and empty calls."""
    from privaudit.distinguish.privacy_loss import LOSS_STEP, LossHistogram

    rng = np.random.default_rng(11)
    for trial in range(60):
        grid = np.unique(np.append(np.linspace(0.0, rng.uniform(0.1, 5.0),
                                               int(rng.integers(1, 30))), rng.uniform(0, 3)))
        hist = LossHistogram(grid)
        full = np.zeros_like(hist.counts)
        low, high = float(hist.low), float(hist.high) + 0.5
        for _ in range(int(rng.integers(1, 4))):
            m = int(rng.integers(0, 20_000))
            loss = rng.normal(rng.uniform(-40, 40), 10 ** rng.uniform(-4, 1.5), m)
            if m and trial % 3 == 0:
                loss[rng.random(m) < 0.01] = np.inf
                loss[rng.random(m) < 0.01] = -np.inf
            if m and trial % 5 == 0:
                half = m // 2
                loss[:half] = np.round(loss[:half] / LOSS_STEP) * LOSS_STEP + rng.choice(
                    [0.0, 1e-18, -1e-18, 5e-324], half)
            weights = rng.integers(1, 6, m).astype(float) if trial % 2 else None
            hist.add(loss, weights)
            index = (np.clip(loss * (1.0 / LOSS_STEP), low, high) - low).astype(np.intp)
            full += np.bincount(index, weights=weights, minlength=full.size)
        np.testing.assert_array_equal(hist.counts, full)
        assert hist.n == round(float(full.sum()))
        for k in [hist.low + 1, hist.low + 2, hist.high - 1, hist.high,
                  *rng.integers(hist.low + 1, hist.high + 1, 50).tolist()]:
            assert hist.count_at_least(k) == round(float(full[k - hist.low:].sum()))
            assert hist.count_below(k) == round(float(full[: k - hist.low].sum()))
        used = np.flatnonzero(full)
        for sign in (1, -1):
            bins = used + hist.low
            levels = bins * LOSS_STEP if sign > 0 else -(bins + 1) * LOSS_STEP
            expected = loss_moments(levels, grid, weights=full[used])
            got = hist.moments(sign)
            assert got.n == expected.n
            np.testing.assert_array_equal(got.sum_x, expected.sum_x)
            np.testing.assert_array_equal(got.sum_sq, expected.sum_sq)
    with pytest.raises(ValueError, match="NaN"):
        LossHistogram(np.linspace(0.0, 1.0, 5)).add(np.array([0.1, np.nan]))


def test_reduced_integer_outputs_give_exact_counts():
    """Small-range integer outputs are reduced to (value, count) pairs per chunk: the
    counts, the profile and hence the whole result are those of the raw outputs."""
    from privaudit.distinguish.rows import distinct_values as _distinct_values

    out = np.array([3, 1, 3, 3, 2, 1], dtype=np.int64)
    values, counts = _distinct_values(out)
    assert values.tolist() == [1, 2, 3] and counts.tolist() == [2, 1, 3]
    flags = np.array([True, False, True])
    v, c = _distinct_values(flags)
    assert v.dtype == bool and dict(zip(v.tolist(), c.tolist())) == {False: 1, True: 2}
    wide = np.array([0, 10**9])
    assert _distinct_values(wide)[1] is None
    assert _distinct_values(np.zeros((3, 2), dtype=np.int64))[1] is None


def test_reduced_integer_rows_give_exact_counts():
    """2-D outputs of small integers (sparse-vector codes) are reduced to distinct rows
    with counts; anything else is left alone."""
    from privaudit.distinguish.rows import distinct_outputs as _distinct_outputs
    from privaudit.distinguish.rows import distinct_rows as _distinct_rows

    rng = np.random.default_rng(5)
    codes = rng.integers(-1, 2, size=(5000, 6)).astype(np.float64)
    rows, counts = _distinct_rows(codes)
    assert counts.sum() == 5000 and rows.dtype == codes.dtype
    uniq, ref = np.unique(codes, axis=0, return_counts=True)
    got = {tuple(r): c for r, c in zip(rows.tolist(), counts.tolist())}
    assert got == {tuple(r): c for r, c in zip(uniq.tolist(), ref.tolist())}
    shifted_rows, shifted_counts = _distinct_rows(codes + 0.5)     # offsets are kept
    assert np.array_equal(np.sort(shifted_rows, axis=0), np.sort(rows + 0.5, axis=0))
    assert np.array_equal(np.sort(shifted_counts), np.sort(counts))
    bad = codes.copy()
    bad[7, 2] = 0.25                                               # not integers
    assert _distinct_rows(bad)[1] is None
    assert _distinct_rows(np.tile(np.arange(2.0), (3, 20)))[1] is None   # 2⁴⁰ cells
    assert _distinct_rows(np.array([[0.0, np.nan]]))[1] is None
    values, c = _distinct_outputs(np.array([2, 2, 5]))
    assert values.tolist() == [2, 5] and c.tolist() == [2, 1]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 4), st.sampled_from([-300.0, -1.0, 0.0, 0.5, 40.0,
                                                                200.0, 1000.0]),
       st.sampled_from(["float64", "int64", "int16"]), st.integers(0, 2**31 - 1))
def test_row_keys_of_small_integer_rows_count_exactly(width, span, offset, dtype, seed):
    """Keys of small-integer rows count every distinct row exactly as ``np.unique`` does,
    for float and integer outputs, integer and fractional offsets, int8 and int16 ranges."""
    from privaudit.distinguish.rows import distinct_rows as _distinct_rows
    from privaudit.distinguish.rows import row_table, small_integer_row_keys

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, span + 1, size=(400, width)) + offset
    if dtype != "float64":
        if not float(offset).is_integer():
            return
        codes = codes.astype(dtype)
    reduced = small_integer_row_keys(codes)
    assert reduced is not None
    (keys,), base, lo = reduced
    assert lo == codes.min() and keys.min() >= 0 and keys.max() < base ** width
    rows, counts = _distinct_rows(codes)
    uniq, ref = np.unique(codes, axis=0, return_counts=True)
    got = {tuple(r): c for r, c in zip(rows.tolist(), counts.tolist())}
    assert got == {tuple(r): c for r, c in zip(uniq.tolist(), ref.tolist())}
    half = codes.shape[0] // 2
    table = row_table(codes[:half], codes[half:])
    assert table is not None and table.size == uniq.shape[0]
    for which, part in ((0, codes[:half]), (1, codes[half:])):
        assert np.array_equal(table.rows[table.index[which]], part)      # rows map back
    weights = table.counts(1, 10, 60)
    assert weights.sum() == 50
    sliced, sliced_counts = np.unique(codes[half + 10:half + 60], axis=0, return_counts=True)
    weighted = {tuple(r): c for r, c in zip(table.rows.tolist(), weights.tolist()) if c}
    assert weighted == {tuple(r): c for r, c in zip(sliced.tolist(), sliced_counts.tolist())}
    assert row_table(codes, max_rows=uniq.shape[0] - 1) is None
    if dtype == "float64":
        bad = codes.astype(np.float64)
        bad[int(rng.integers(0, 400)), int(rng.integers(0, width))] += 0.5
        assert small_integer_row_keys(bad) is None                 # not integers


@pytest.mark.parametrize(("dtype", "low", "span"), [
    ("int8", -128, 100), ("int64", 2**60 + 3, 3), ("int64", -(2**62), 3),
    ("uint64", 2**63 + 5, 3), ("bool", 0, 1)])
def test_row_keys_are_exact_for_every_integer_dtype_and_magnitude(dtype, low, span):
    """Integer rows are keyed exactly whatever their magnitude (no detour through float
    values beyond 2⁵³, no int8 overflow) and booleans are rows of 0/1."""
    from privaudit.distinguish.rows import distinct_rows, row_table

    rng = np.random.default_rng(8)
    codes = np.array((rng.integers(0, span + 1, size=(600, 2)).astype(object) + low).tolist(),
                     dtype=dtype)
    rows, counts = distinct_rows(codes)
    assert counts is not None and rows.dtype == codes.dtype
    uniq, ref = np.unique(codes, axis=0, return_counts=True)
    got = {tuple(r): c for r, c in zip(rows.tolist(), counts.tolist())}
    assert got == {tuple(r): c for r, c in zip(uniq.tolist(), ref.tolist())}
    table = row_table(codes[:300], codes[300:])
    assert table is not None
    assert np.array_equal(table.rows[table.index[0]], codes[:300])
    assert np.array_equal(table.rows[table.index[1]], codes[300:])


@pytest.mark.parametrize("name", ["SparseVectorTechnique1", "SparseVectorTechnique4",
                                  "ReportNoisyMax2"])
def test_search_split_row_table_changes_nothing(monkeypatch, name):
    """Counting the search split once per distinct row (features, value sets, learned
    fits, the judge) chooses exactly the events, levels and expected bound of a pass over
    every row."""
    import privaudit.distinguish.event_candidates as cand
    from privaudit.suites import dpsniper_cases

    case = next(c for c in dpsniper_cases() if c.name.endswith(name))
    x, y = case.input_pairs[0]
    rng = np.random.default_rng(11)
    ox = case.mechanism.sample(x, 60_000, rng=rng)
    oy = case.mechanism.sample(y, 60_000, rng=rng)

    def select():
        return cand.select_events(ox, oy, delta=0.0, alpha=0.05, budget=0.05,
                                  test_samples=10**7, rate_ratio=True)

    with monkeypatch.context() as patch:
        patch.setattr(cand, "_drop_copies", lambda flat, rows, cache: flat)
        with_table = select()
    monkeypatch.setattr(cand, "row_table", lambda *a, **k: None)
    without = select()
    for d in dist.DIRECTIONS:
        assert [e.description for e in with_table.for_direction(d)] == \
            [e.description for e in without.for_direction(d)]
        assert with_table.levels_for(d) == without.levels_for(d)
    assert with_table.families == without.families
    assert with_table.expected_epsilon == without.expected_epsilon


def test_selected_events_of_few_distinct_rows_are_not_copies():
    """On sparse-vector codes no two tested events of one direction hold the same rows
    (a learned-score threshold equal to a value set is tested once)."""
    from privaudit.distinguish.rows import row_table
    from privaudit.suites import dpsniper_cases

    case = next(c for c in dpsniper_cases() if c.name.endswith("SparseVectorTechnique1"))
    x, y = case.input_pairs[0]
    rng = np.random.default_rng(12)
    ox = case.mechanism.sample(x, 200_000, rng=rng)
    oy = case.mechanism.sample(y, 200_000, rng=rng)
    chosen = dist.select_events(ox, oy, delta=0.0, alpha=0.05, budget=0.05,
                                test_samples=10**8, rate_ratio=True)
    table = row_table(ox, oy)
    assert table is not None
    for d in dist.DIRECTIONS:
        masks = [dist.events.event_mask(e, table.rows, {}).tobytes()
                 for e in chosen.for_direction(d)]
        assert len(masks) == len(set(masks))
    assert sum(chosen.levels_for(d)[i] for d in dist.DIRECTIONS
               for i in range(len(chosen.for_direction(d)))) <= 0.05 * (1 + 1e-12)


def test_sparse_vector_counts_are_the_same_with_and_without_row_reduction(monkeypatch):
    """The whole pair test gives identical counts when the row reduction is disabled."""
    import privaudit.distinguish.pair as pt
    from privaudit.suites import dpsniper_cases

    case = next(c for c in dpsniper_cases()
                if c.mechanism.spec.name.endswith("SparseVectorTechnique1"))
    mech, (x, y) = case.mechanism, case.input_pairs[4]
    pair = verified_pair(mech.spec, x, y, "explicit")
    reduced = pt.distinguish_pair(mech, pair, samples=20_000, search_samples=5000, rng=1, alpha=0.05)
    monkeypatch.setattr(pt, "_distinct_outputs", lambda out: (out, None))
    raw = pt.distinguish_pair(mech, pair, samples=20_000, search_samples=5000, rng=1, alpha=0.05)
    assert [(e.count_x, e.count_y) for e in reduced.events] == \
        [(e.count_x, e.count_y) for e in raw.events]
    assert reduced.epsilon_lower_bound == raw.epsilon_lower_bound


def _flat_tail_family():
    """Thresholds of one half-line counted on 1.5·10⁶ rows per side: the edge of a
    plateau of ratio e^0.25 (21 000 counts) and three small thresholds whose ratio looks
    larger by luck (the shape of the noisy maximum's lower tail)."""
    from privaudit.distinguish import event_candidates as cand

    a = np.array([21_000, 1_755, 904, 478])
    b = np.array([16_350, 1_300, 650, 330])
    return cand._Candidates(a, b, 1_500_000, 1_500_000,
                            lambda i: ThresholdEvent(feature=Coordinate(),
                                                     threshold=float(-i), side="le"), 2, 0)


@pytest.mark.parametrize("steady", [False, True])
def test_scalar_selection_keeps_the_steadiest_threshold_of_a_flat_tail(steady):
    """Deterministic.  The one-standard-error ranking prefers the three lucky small
    thresholds (one per octave), so without the steady nomination the plateau's edge —
    the event the test can bound most tightly — never reaches the judge; with it
    (one-dimensional outputs), the edge is kept as well."""
    from privaudit.distinguish import event_candidates as cand

    fam = _flat_tail_family()
    n = np.full(fam.a.size, 1.5e6)
    plug = np.log(fam.a / n) - np.log((fam.b + 0.5) / n)
    kept = cand._stratified_pool([fam], fam.a, fam.b, n, n, np.full(fam.a.size, 2),
                                 np.zeros(fam.a.size, dtype=int), np.arange(fam.a.size),
                                 plug, delta=0.0, alpha=0.0125, k=8, test_samples=10**8,
                                 rate_ratio=True, steady=steady)
    indices = [i for _f, i, _s in kept]
    assert set(indices) >= {1, 2, 3}
    assert (0 in indices) is steady


def test_scalar_selection_tests_a_wide_half_line_of_the_noisy_maximum():
    """Seeded data (max of five Laplace(20) queries, shifted by one, 2·10⁶ per side);
    the selection is deterministic given the data.  A lower half-line holding ≥ 0.5 % of
    M(x) is among the tested events, whatever the equal-rate prior; the levels use the
    whole budget; and the prior's plan tests no more events than the flat one, each at a
    level at least as large (on these data it drops the far upper tail of y → x)."""
    rng = np.random.default_rng(3)
    x = np.array([1.0, 1.0, 1.0, -4.43, 1.0])

    def draw(q):
        return (q + rng.laplace(scale=20.0, size=(2_000_000, 5))).max(axis=1)

    ox, oy = draw(x), draw(x + 1.0)
    levels = {}
    for prior in (0.0, 50.0):
        chosen = dist.select_events(ox, oy, delta=0.0, alpha=0.05, budget=0.05,
                                    test_samples=10**8, rate_ratio=True,
                                    prior_outputs=prior)
        wide = [e for e in chosen.x_vs_y if isinstance(e, ThresholdEvent)
                and e.side == "le" and isinstance(e.feature, Coordinate)
                and np.mean(dist.events.event_mask(e, ox, {})) >= 0.005]
        assert wide
        levels[prior] = chosen.levels_x_vs_y + chosen.levels_y_vs_x
        assert sum(levels[prior]) == pytest.approx(0.05)
    assert len(levels[50.0]) < len(levels[0.0])
    assert min(levels[50.0]) >= min(levels[0.0])
