"""The auditor end to end: report contents, reproducibility, JSON, plots, bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from privaudit import AuditConfig, AuditReport, audit
from privaudit.auditing.pairs import verified_pair
from privaudit.mechanisms import LaplaceMechanism, declare_mechanism, smooth_median_mechanism
from privaudit.spec import (
    AdditiveNoise,
    AuditError,
    DatasetDomain,
    GlobalSensitivity,
    InvalidParameterError,
    Laplace,
    MechanismSpec,
    NotNeighboursError,
    PureDP,
    QueryDistance,
    RealInterval,
    SubstituteOne,
)

FAST = AuditConfig(
    samples=20_000, pilot_samples=1_000, pair_budget=12, pairs_tested=2, claim_budget=40, seed=3
)
N = 8


def _sum_spec(declared: float) -> MechanismSpec:
    return MechanismSpec(
        name="noisy_sum",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=2.0), size=N),
        relation=SubstituteOne(),
        statistic="sum",
        sensitivity=(GlobalSensitivity(value=declared),),
        noise=AdditiveNoise(law=Laplace(scale=declared)),
        guarantee=PureDP(epsilon=1.0),
    )


def _noisy_sum(declared: float):
    return declare_mechanism(
        _sum_spec(declared),
        sampler=lambda x, size, rng: x.sum() + rng.laplace(0, declared, size),
        statistic=lambda x: float(x.sum()),
    )


@pytest.fixture(scope="module")
def laplace_report() -> AuditReport:
    return audit(LaplaceMechanism(1.0, 1.0), config=FAST)


def test_correct_laplace_passes_with_a_full_report(laplace_report):
    r = laplace_report
    assert r.verdict == "no_violation" and not r.violations
    assert 0.5 < r.epsilon_lower_bound <= 1.0
    assert (r.epsilon_claimed, r.delta_claimed) == (1.0, 0.0)
    names = {c.name for c in r.checks}
    assert {"spec.consistency", "sensitivity.global", "noise_law", "distinguishability"} <= names
    assert r.spec_hash == r.spec.content_hash
    assert r.power is not None and r.power.detectable_epsilon > 1.0
    assert r.worst_event is not None and r.events
    assert math.isclose(
        sum(
            c.error_rate
            for c in r.checks
            if c.name in {"noise_law", "noise_law.ranked_pairs", "distinguishability"}
        ),
        1 - r.confidence,
        rel_tol=1e-9,
    )


def test_reports_are_reproducible_from_the_seed(laplace_report):
    again = audit(LaplaceMechanism(1.0, 1.0), config=FAST)
    a = laplace_report.model_dump(exclude={"runtime_seconds"})
    b = again.model_dump(exclude={"runtime_seconds"})
    assert a == b
    other = audit(LaplaceMechanism(1.0, 1.0), config=FAST, seed=4)
    assert other.epsilon_lower_bound != laplace_report.epsilon_lower_bound


def test_report_json_round_trip_and_stable_top_level(laplace_report):
    text = laplace_report.to_json()
    assert AuditReport.from_json(text) == laplace_report
    top = json.loads(text)
    for key in (
        "verdict",
        "epsilon_lower_bound",
        "epsilon_claimed",
        "delta_claimed",
        "confidence",
        "samples",
        "seed",
        "spec_hash",
        "checks",
    ):
        assert key in top, key
    assert top["verdict"] in {"violation", "no_violation"}


def test_summary_is_readable_and_honest(laplace_report):
    text = laplace_report.summary()
    assert "no violation found" in text and "never prove" in text
    assert "ε lower bound" in text and "power" in text
    for c in laplace_report.checks:
        assert c.name in text


def test_under_declared_sensitivity_is_a_violation_with_counterexample():
    r = audit(_noisy_sum(1.0), config=FAST)
    assert r.verdict == "violation"
    glob = r.check("sensitivity.global")
    assert glob.violated and glob.ratio == pytest.approx(2.0)
    ce = glob.counterexample
    assert ce is not None and len(ce.x) == N and len(ce.y) == N
    assert r.epsilon_lower_bound > 1.0
    assert "VIOLATION FOUND" in r.summary() and "counterexample" in r.summary()


def test_infinite_epsilon_is_written_as_inf_in_json():
    # a mechanism that adds no noise at all, declaring Laplace noise
    spec = _sum_spec(2.0)
    mech = declare_mechanism(
        spec,
        sampler=lambda x, size, rng: np.full(size, x.sum()),
        statistic=lambda x: float(x.sum()),
    )
    r = audit(mech, config=FAST)
    assert r.violated
    payload = json.loads(r.to_json())
    assert payload["epsilon_lower_bound"] == "inf" or payload["epsilon_lower_bound"] > 5
    assert AuditReport.from_json(r.to_json()) == r


def test_explicit_pairs_are_verified():
    mech = _noisy_sum(2.0)
    x = np.zeros(N)
    y = np.zeros(N)
    y[:2] = 2.0
    with pytest.raises(NotNeighboursError):
        audit(mech, config=FAST, pairs=[(x, y)])
    y[1] = 0.0
    r = audit(mech, config=FAST, pairs=[(x, y)])
    assert not r.violated


def test_smooth_sensitivity_mechanism_is_audited_on_its_smoothness_claims():
    r = audit(smooth_median_mechanism(11, 0.0, 1.0, 1.0), config=FAST)
    names = {c.name for c in r.checks}
    assert {"sensitivity.smooth.upper_bound", "sensitivity.smooth.smoothness"} <= names
    assert not r.violated, r.summary()


def test_bad_arguments():
    with pytest.raises(AuditError):
        audit(object())  # type: ignore[arg-type]  # the wrong type is the test
    with pytest.raises(InvalidParameterError):
        audit(LaplaceMechanism(1.0, 1.0), config=FAST, confidence=1.0)
    with pytest.raises(InvalidParameterError):
        audit(LaplaceMechanism(1.0, 1.0), config=FAST, samples=0)
    with pytest.raises(InvalidParameterError):
        AuditConfig(pairs_tested=10, pair_budget=5)


def test_tradeoff_plot(laplace_report, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "tradeoff.png"
    fig = laplace_report.plot_tradeoff(out)
    assert out.stat().st_size > 10_000
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("type-I error")


def test_claimed_tradeoff_curve_is_the_dp_region():
    from privaudit.auditing.outcome.plotting import claimed_tradeoff_curve

    spec = LaplaceMechanism(1.0, 1.0).spec
    a0 = np.linspace(0, 1, 11)
    expected = np.maximum.reduce([np.zeros_like(a0), 1 - math.e * a0, (1 - a0) / math.e])
    assert np.allclose(claimed_tradeoff_curve(spec, a0), expected, atol=1e-9)


# ---- graphs: the same audit on edge- and node-neighbouring inputs --------------------------
def _edge_count_mechanism(relation, declared: float, n: int = 7):
    from privaudit.spec import GraphDomain

    spec = MechanismSpec(
        name="noisy_edge_count",
        input_domain=GraphDomain(n_nodes=n),
        relation=relation,
        statistic="number of edges",
        sensitivity=(GlobalSensitivity(value=declared),),
        noise=AdditiveNoise(law=Laplace(scale=declared)),
        guarantee=PureDP(epsilon=1.0),
    )
    return declare_mechanism(
        spec,
        sampler=lambda g, size, rng: g.number_of_edges() + rng.laplace(0, declared, size),
        statistic=lambda g: float(g.number_of_edges()),
    )


def test_edge_dp_edge_count_passes_under_edge_neighbouring():
    from privaudit.spec import EdgeNeighbouring

    r = audit(_edge_count_mechanism(EdgeNeighbouring(), 1.0), config=FAST)
    assert not r.violated, r.summary()


def test_edge_sensitivity_claimed_under_node_neighbouring_is_caught_on_a_star():
    from privaudit.spec import NodeNeighbouring

    n = 7
    r = audit(_edge_count_mechanism(NodeNeighbouring(), 1.0, n), config=FAST)
    assert r.violated
    glob = r.check("sensitivity.global")
    # rewiring one node changes up to n − 1 edges: the star toggle is the worst case
    assert glob.violated and glob.ratio == pytest.approx(n - 1)
    assert r.epsilon_lower_bound > 1.0


# ---- choosing the pairs: ties, declared bounds, successive halving ---------------------------
def test_equivalent_pairs_are_tested_once_and_the_error_budget_adds_up():
    """Laplace on a scalar: every generated pair has the declared worst shift 1, so one pair
    gets the distinguishing budget once the declared law is checked at every ranked input;
    the statistical error rates add up to 1 − confidence (noise law α/10, the ranked inputs
    a tenth of the rest, the pair's events and profile the rest)."""
    r = audit(LaplaceMechanism(1.0, 1.0), config=FAST)
    dist = r.check("distinguishability")
    assert dist.details["pairs_tested"] == 1 and dist.details["equivalent_pairs_tied"]
    assert dist.details["pair_objective"] == "statistic shift"
    noise = r.check("noise_law")
    ranked = r.check("noise_law.ranked_pairs")
    assert noise.error_rate == pytest.approx(0.1 * (1 - r.confidence))
    assert ranked.error_rate == pytest.approx(0.1 * 0.9 * (1 - r.confidence))
    assert ranked.details["pairs_tied"] and ranked.details["inputs_tested"] >= 2
    assert noise.error_rate + ranked.error_rate + dist.error_rate == pytest.approx(1 - r.confidence)
    assert r.check("privacy_profile").error_rate == pytest.approx(0.1 * dist.error_rate)
    events = sum(e.alpha for e in r.events)
    assert events + r.check("privacy_profile").error_rate <= dist.error_rate * (1 + 1e-12)


def test_an_explicit_pair_below_the_worst_shift_is_tested_with_the_worst_one():
    r = audit(LaplaceMechanism(1.0, 1.0), config=FAST, pairs=[(0.0, 0.5)])
    assert r.check("distinguishability").details["pairs_tested"] == 2
    r = audit(LaplaceMechanism(1.0, 1.0), config=FAST, pairs=[(0.0, 1.0)])
    assert r.check("distinguishability").details["pairs_tested"] == 1


def test_randomized_response_pairs_are_ranked_by_their_declared_bound():
    """All k(k − 1) pairs of k-ary randomized response have the same declared law up to
    relabelling: the declared-bound objective ties, one pair is tested, and its planned
    main event is a single output value."""
    from privaudit.mechanisms import RandomizedResponseMechanism

    r = audit(RandomizedResponseMechanism(1.0, 4), config=FAST)
    dist = r.check("distinguishability")
    assert dist.details["pair_objective"] == "declared bound"
    assert dist.details["pairs_tested"] == 1 and dist.details["declared_events"] >= 2
    assert not r.violated and 0.8 < r.epsilon_lower_bound <= 1.0


def _bernoulli_box():
    """A black box on inputs 0 … 9: outputs Bernoulli(0.5), except Bernoulli(0.8) on 9."""
    spec = MechanismSpec(
        name="bernoulli_box",
        input_domain=RealInterval(lo=0.0, hi=9.0),
        relation=QueryDistance(norm="l1", radius=9.0),
        noise=None,
        guarantee=PureDP(epsilon=0.1),
    )
    return declare_mechanism(
        spec,
        sampler=lambda v, n, rng: (
            rng.random(n) < (0.8 if float(v) == 9.0 else 0.5 + 0.01 * float(v))
        ).astype(np.int64),
    )


def test_successive_halving_keeps_the_true_worst_pair():
    """Eight pairs, one of which ((8, 9): P = 0.58 vs 0.8) is far more distinguishable than
    the others (0.01 apart): halving on fresh samples keeps it, in 3 rounds (8 → 4 → 2 → 1)."""
    from privaudit.auditing.choice.halving import successive_halving

    mech = _bernoulli_box()
    pairs = [verified_pair(mech.spec, float(a), float(a + 1), "test") for a in range(1, 9)]
    kept, rounds = successive_halving(
        mech,
        pairs,
        keep=1,
        samples=2_000,
        final_samples=100_000,
        level=0.05,
        delta=0.0,
        rng=np.random.default_rng(0),
    )
    assert rounds == 3 and len(kept) == 1
    assert {float(kept[0].x), float(kept[0].y)} == {8.0, 9.0}


def test_black_boxes_rank_pairs_with_a_pilot_and_halving():
    r = audit(_bernoulli_box(), config=FAST)
    dist = r.check("distinguishability")
    assert dist.details["pair_objective"] == "pilot ε estimates"
    assert dist.details["halving_rounds"] >= 1
    assert r.violated and 9.0 in (r.worst_pair.x, r.worst_pair.y)


def test_discrete_score_codes_rows_the_same_way_on_both_paths():
    """The pair ranking's dense row codes are the same partition whether the rows are
    keyed as small integers or sorted by random projections, and real-valued rows that
    do not repeat are not discrete."""
    from privaudit.auditing.choice.scores import _dense_row_codes, discrete_score

    rng = np.random.default_rng(3)
    ox = rng.integers(-1, 2, size=(3000, 6)).astype(np.float64)
    oy = rng.integers(-1, 2, size=(2000, 6)).astype(np.float64)
    fast = _dense_row_codes(ox, oy)  # integer keys
    slow = _dense_row_codes(ox * 0.3, oy * 0.3)  # not integers: projections
    assert fast is not None and slow is not None
    _, reference = np.unique(np.concatenate([ox, oy]), axis=0, return_inverse=True)
    reference = reference.ravel().tolist()
    for coded in (fast, slow):
        codes = np.concatenate(coded).tolist()
        # the same partition: each code matches one reference code and vice versa
        pairs = set(zip(codes, reference, strict=True))
        assert len(pairs) == len(set(codes)) == len(set(reference))
    assert _dense_row_codes(rng.normal(size=(500, 3)), rng.normal(size=(500, 3))) is None
    score = discrete_score(ox, oy, final_samples=10**6, level=0.05, delta=0.0)
    assert score is not None and score >= 0.0
