"""Events planned from the declared law (privaudit.auditing.distinguish.declared_plan): loss laws,
the analytic optimum, independence from the samples, loss histograms.

Every audit here is seeded.  Where an assertion is statistical, its docstring or comment
states the error rate: for "a correct mechanism is not flagged" it is the family-wise
α of the call (the probability of a false violation is at most α whatever the seed);
for "a broken mechanism is flagged" it is the power at the stated sample size.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.auditing.distinguish import (
    ThresholdEvent,
    declared_log_densities,
)
from privaudit.auditing.distinguish.privacy_loss import loss_moments
from privaudit.mechanisms import (
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponseMechanism,
    declare_mechanism,
)

from ._shared import audit


# ----------------------------------------------------------------------------------------
# events planned from the declared law
# ----------------------------------------------------------------------------------------
def _declared(mech, x, y):
    from privaudit.auditing.distinguish.densities import declared_llr
    from privaudit.auditing.distinguish.events import LogLikelihoodRatio

    lx, ly = declared_log_densities(mech, x, y)
    return LogLikelihoodRatio(lx, ly, direct=declared_llr(mech, x, y))


def test_declared_loss_laws_match_closed_forms():
    """Every method of :func:`declared_loss_law` against exact values: the masses sum to 1
    on each side, and the tail masses of the optimal Laplace event {o ≤ 0} (L = +ε) are
    P_x = 1/2 and P_y = e^{−ε}/2; for randomized response the law is the table itself."""
    from privaudit.auditing.distinguish.declared_plan import declared_loss_law

    lap = LaplaceMechanism(1.0, 1.0)
    law = declared_loss_law(lap, 0.0, 1.0, _declared(lap, 0.0, 1.0))
    assert law.method.startswith("quadrature")
    assert law.mass_x.sum() == pytest.approx(1.0, abs=1e-12)
    assert law.mass_y.sum() == pytest.approx(1.0, abs=1e-12)
    top = law.values >= 1.0 - 1e-9  # the atom L = ε = 1
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
    law = declared_loss_law(
        hist, [0.0, 0.0, 0.0], [0.5, 0.5, 0.0], _declared(hist, [0.0, 0.0, 0.0], [0.5, 0.5, 0.0])
    )
    assert law.method.startswith("Monte Carlo") and law.mass_y.sum() == pytest.approx(1.0)
    # identical declared laws: nothing to plan
    assert declared_loss_law(lap, 0.0, 0.0, _declared(lap, 0.0, 0.0)) is None


def test_gaussian_main_event_is_the_analytic_optimum():
    """Analytic Gaussian (1, 1e-5), σ = 3.73, 0 vs 1, 10⁶ per side: the main event is the
    half-line {o ≥ t} maximising the expected bound; its declared probabilities agree
    with the normal tails at t (to the quadrature's resolution), and the predicted bound
    is the §5 oracle's 0.77 up to the level (0.8 of the family's α)."""
    from scipy import stats

    from privaudit.auditing.distinguish.declared_plan import declared_loss_law, plan_declared_events

    mech = GaussianMechanism(1.0, 1e-5, 1.0)
    sigma = mech.spec.noise.law.sigma
    llr = _declared(mech, 1.0, 0.0)
    plan = plan_declared_events(
        declared_loss_law(mech, 1.0, 0.0, llr), llr, delta=1e-5, samples=10**6, alpha=0.036
    )
    main = plan.events[0]
    assert main.role == "main" and main.weight == pytest.approx(0.8)
    assert sum(e.weight for e in plan.events) == pytest.approx(1.0)
    # L = (2o − 1)/(2σ²) for x = 1, y = 0: back to the output threshold (the two
    # directions are mirror images; either may come first)
    t = main.event.threshold * sigma**2 + 0.5
    if main.direction == "x_vs_y":  # {o ≥ t}: M(x) = N(1, σ²) below
        lower, upper = stats.norm.sf(t, 1.0, sigma), stats.norm.sf(t, 0.0, sigma)
    else:  # {o ≤ t}: M(y) = N(0, σ²) below
        lower, upper = stats.norm.cdf(t, 0.0, sigma), stats.norm.cdf(t, 1.0, sigma)
    assert lower < 0.01
    assert main.p_lower_side == pytest.approx(lower, rel=0.03)
    assert main.p_upper_side == pytest.approx(upper, rel=0.03)
    assert 0.73 < main.predicted_epsilon < 0.77
    assert {e.role for e in plan.events} == {
        "main",
        "other direction",
        "wider",
        "narrower",
        "central",
    }


def test_declared_events_do_not_depend_on_the_samples():
    """The declared family is a function of the declared law, the pair and N only: the
    same events, at the same levels, whatever the seed (and whatever the mechanism
    actually samples) — given the α they get: the broken sampler's search split shows
    mass far above the declared density, so with rare events on (the default) they take
    RARE_SHARE of α and the plan is made at the rest; compared here with them off."""
    mech = GaussianMechanism(1.0, 1e-5, 1.0)
    a = audit(mech, 0.0, 1.0, samples=10_000, search=2_000, seed=1)
    b = audit(mech, 0.0, 1.0, samples=10_000, search=2_000, seed=2)
    broken = declare_mechanism(
        mech.spec, sampler=lambda v, n, rng: v + rng.normal(0, 0.5, n), statistic=lambda v: v
    )
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
    central = [b for b, e in zip(c.events[:k], c.plan.events, strict=True) if e.role == "central"]
    assert central and central[0].epsilon_lower_bound > 1.0


def test_histogram_counts_equal_mask_counts():
    """Planned LLR thresholds of a full-support law are moved onto the loss histogram's
    lattice and counted from it; counting the same events by masks on the same draws
    gives the same numbers."""
    from privaudit.auditing.distinguish.privacy_loss import LOSS_STEP, LossHistogram

    for mech, x, y in (
        (LaplaceMechanism(0.1, 1.0), 0.0, 1.0),
        (GaussianMechanism(1.0, 1e-5, 1.0), 0.0, 1.0),
    ):
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
    from privaudit.auditing.distinguish.privacy_loss import LOSS_STEP, LossHistogram

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
    from privaudit.auditing.distinguish.privacy_loss import LOSS_STEP, LossHistogram

    rng = np.random.default_rng(11)
    for trial in range(60):
        grid = np.unique(
            np.append(
                np.linspace(0.0, rng.uniform(0.1, 5.0), int(rng.integers(1, 30))), rng.uniform(0, 3)
            )
        )
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
                    [0.0, 1e-18, -1e-18, 5e-324], half
                )
            weights = rng.integers(1, 6, m).astype(float) if trial % 2 else None
            hist.add(loss, weights)
            index = (np.clip(loss * (1.0 / LOSS_STEP), low, high) - low).astype(np.intp)
            full += np.bincount(index, weights=weights, minlength=full.size)
        np.testing.assert_array_equal(hist.counts, full)
        assert hist.n == round(float(full.sum()))
        for k in [
            hist.low + 1,
            hist.low + 2,
            hist.high - 1,
            hist.high,
            *rng.integers(hist.low + 1, hist.high + 1, 50).tolist(),
        ]:
            assert hist.count_at_least(k) == round(float(full[k - hist.low :].sum()))
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
