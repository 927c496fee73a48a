"""Grey-box replay (privaudit.auditing.replay): the recorder, each check on a pipeline that
breaks exactly it, and the composed claim of a pipeline that breaks none."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.auditing.replay.driver import replay
from privaudit.auditing.replay.recorder import NoiseRecorder, norm_distance
from privaudit.spec import (
    AddRemoveOne,
    DatasetDomain,
    GaussianDP,
    PureDP,
    RealInterval,
    SubstituteOne,
)
from privaudit.spec.errors import AuditError, InvalidParameterError, NonNumericInputError

N = 8
FIXED = DatasetDomain(record=RealInterval(lo=0, hi=1), size=N)
VARIABLE = DatasetDomain(record=RealInterval(lo=0, hi=1))
X = np.linspace(0.1, 0.9, N)


def _sum(x, noise):
    return noise.laplace(np.clip(x, 0.0, 1.0).sum(), sensitivity=1.0, epsilon=1.0)


def _two_releases(x, noise):
    total = noise.laplace(x.sum(), sensitivity=1.0, epsilon=0.5)
    squares = noise.gaussian(np.array([x.sum(), (x**2).sum()]), sensitivity=math.sqrt(2), sigma=4)
    return total, squares


# -- the recorder ----------------------------------------------------------------------
def test_recording_is_reproducible_and_records_every_call():
    first, second = NoiseRecorder(3), NoiseRecorder(3)
    a, b = _two_releases(X, first), _two_releases(X, second)
    assert a[0] == b[0] and np.array_equal(a[1], b[1])
    kinds = [(c.kind, c.norm, c.value.shape) for c in first.calls]
    assert kinds == [("laplace", "l1", ()), ("gaussian", "l2", (2,))]
    assert first.calls[0].guarantee == PureDP(epsilon=0.5)
    assert first.calls[1].guarantee == GaussianDP(mu=math.sqrt(2) / 4)
    line = _two_releases.__code__.co_firstlineno + 1
    assert first.calls[0].site.endswith(f"test_replay.py:{line}")
    assert np.allclose(first.calls[1].output, a[1])


@pytest.mark.parametrize(
    "call",
    [
        lambda r: r.laplace(1.0, sensitivity=0.0, epsilon=1.0),
        lambda r: r.laplace(1.0, sensitivity=1.0, epsilon=-1.0),
        lambda r: r.gaussian(1.0, sensitivity=1.0, sigma=math.nan),
        lambda r: r.primitive(
            1.0, kind="k", sensitivity=1.0, norm="l3", guarantee=None, noise=lambda g, s: 0
        ),
    ],
)
def test_bad_declarations_are_refused(call):
    with pytest.raises(InvalidParameterError):
        call(NoiseRecorder(0))


def test_non_numeric_values_are_refused():
    with pytest.raises(NonNumericInputError, match="non-numeric"):
        NoiseRecorder(0).laplace("x", sensitivity=1.0, epsilon=1.0)


def test_norm_distance():
    assert norm_distance(np.array([3.0, 0.0]), np.array([0.0, 4.0]), "l2") == 5.0
    assert norm_distance(np.array([3.0, 0.0]), np.array([0.0, 4.0]), "l1") == 7.0
    assert norm_distance(np.array([3.0, 0.0]), np.array([0.0, 4.0]), "linf") == 4.0
    assert math.isnan(norm_distance(np.array([math.nan]), np.array([0.0]), "l1"))


# -- a correct pipeline --------------------------------------------------------------
def test_a_correct_pipeline_passes_with_the_composed_claim():
    report = replay(_two_releases, X, domain=FIXED, relation=SubstituteOne())
    assert not report.violated and report.first is None
    assert report.neighbours > N
    assert [c.kind for c in report.calls] == ["laplace", "gaussian"]
    assert report.calls[0].largest_distance == pytest.approx(0.9 - 0.0, abs=1e-12)
    assert report.calls[0].largest_distance <= 1.0
    from privaudit.mechanisms.accounting import PLDAccountant

    both = PLDAccountant().compose(PureDP(epsilon=0.5)).compose(GaussianDP(mu=math.sqrt(2) / 4))
    assert report.delta == 1e-6 and report.epsilon == pytest.approx(both.epsilon(1e-6))
    pure = replay(_sum, X, domain=FIXED, relation=SubstituteOne())
    assert (pure.epsilon, pure.delta) == (1.0, 0.0)
    assert "composed claim ε = 1" in pure.statement


# -- each check, broken alone ------------------------------------------------------------
def _assert_first(report, check, *needles):
    assert report.violated, report.statement
    first = report.first
    assert first.check == check, report.statement
    for needle in needles:
        assert needle in first.message, first.message
    return first


def test_a_sensitivity_too_small_is_caught_with_the_call_site_and_values():
    def doubled(x, noise):
        return noise.laplace(2 * x.sum(), sensitivity=1.0, epsilon=1.0)

    first = _assert_first(
        replay(doubled, X, domain=FIXED, relation=SubstituteOne()), "sensitivity", "exceeds"
    )
    assert first.declared == 1.0 and first.measured > 1.0
    assert first.site.endswith("test_replay.py:" + str(doubled.__code__.co_firstlineno + 1))


def test_a_scale_computed_from_the_data_is_caught_as_a_parameter_change():
    def mean_by_n(x, noise):  # the size leaks under add/remove
        return noise.laplace(x.mean(), sensitivity=1.0 / len(x), epsilon=1.0)

    first = _assert_first(
        replay(mean_by_n, X, domain=VARIABLE, relation=AddRemoveOne()), "parameters", "scale"
    )
    assert first.index == 0


def test_a_branch_on_the_data_is_caught_as_control_flow():
    def branch(x, noise):
        if x.sum() > 4.0:
            return noise.laplace(x.sum(), sensitivity=1.0, epsilon=1.0)
        return noise.gaussian(x.sum(), sensitivity=1.0, sigma=2.0)

    _assert_first(replay(branch, X, domain=FIXED, relation=SubstituteOne()), "control_flow")


def test_a_skipped_call_is_caught_as_control_flow():
    def maybe(x, noise):
        out = noise.laplace(x.sum(), sensitivity=1.0, epsilon=1.0)
        if x.max() < 0.95:
            out += noise.laplace(x.sum(), sensitivity=1.0, epsilon=1.0)
        return out

    _assert_first(
        replay(maybe, X, domain=FIXED, relation=SubstituteOne()), "control_flow", "skipped"
    )


def test_free_randomness_that_depends_on_the_data_is_caught():
    def shuffle_more(x, noise):
        noise.rng.normal(size=1 + int(x.sum() > 4.0))
        return noise.laplace(x.sum(), sensitivity=1.0, epsilon=1.0)

    _assert_first(
        replay(shuffle_more, X, domain=FIXED, relation=SubstituteOne()), "free_randomness"
    )


def test_a_release_outside_the_primitives_is_caught():
    def flag(x, noise):
        return noise.laplace(x.sum(), sensitivity=1.0, epsilon=1.0), bool(x.max() > 0.95)

    _assert_first(replay(flag, X, domain=FIXED, relation=SubstituteOne()), "unprotected_release")


def test_a_non_finite_value_reaching_a_primitive_is_caught():
    def unclipped_log(x, noise):
        with np.errstate(divide="ignore"):
            logged = np.log(x).sum()
        return noise.laplace(logged, sensitivity=1.0, epsilon=1.0)

    report = replay(unclipped_log, np.r_[0.0, X[1:]], domain=FIXED, relation=SubstituteOne())
    _assert_first(report, "non_finite_input", "non-finite")


# -- bad use -----------------------------------------------------------------------------
def test_a_pipeline_without_primitives_or_failing_is_a_clear_error():
    with pytest.raises(InvalidParameterError, match="no primitive"):
        replay(lambda x, noise: x.sum(), X, domain=FIXED, relation=SubstituteOne())

    def boom(x, noise):
        raise KeyError("column")

    with pytest.raises(AuditError, match="KeyError"):
        replay(boom, X, domain=FIXED, relation=SubstituteOne())
    with pytest.raises(InvalidParameterError, match="random_neighbours"):
        replay(_sum, X, domain=FIXED, relation=SubstituteOne(), random_neighbours=-1)


# -- inside audit(): mechanisms that expose their primitives ---------------------------------
def test_audit_replays_a_mechanism_that_exposes_its_primitives():
    from privaudit import AuditConfig, audit
    from privaudit.mechanisms import LaplaceMechanism

    mechanism = LaplaceMechanism(1.0, 1.0)
    assert mechanism.provides("pipeline")
    report = audit(mechanism, config=AuditConfig(samples=2_000), seed=0)
    (check,) = [c for c in report.checks if c.name == "replay"]
    assert check.status == "passed" and check.error_rate == 0.0
    assert check.details["neighbours"] > 0


def test_audit_replay_names_the_call_site_of_an_underdeclared_sensitivity():
    from privaudit import AuditConfig, audit
    from privaudit.suites import broken_cases

    case = next(c for c in broken_cases() if c.name == "broken.sum_underdeclared_sensitivity")
    report = audit(case.mechanism, config=AuditConfig(samples=2_000), pairs=case.input_pairs)
    (check,) = [c for c in report.checks if c.name == "replay"]
    assert check.status == "violated" and report.verdict == "violation"
    assert check.counterexample.relation_reason == "sensitivity"
    assert "generic_additive.py" in check.counterexample.values["site"]
    assert check.statistic > check.threshold


def test_mechanisms_without_the_hook_are_not_replayed():
    from privaudit.auditing.replay.check import check_replay
    from privaudit.suites import broken_cases

    case = next(c for c in broken_cases() if c.name == "broken.range_scaled_mean")
    assert not case.mechanism.provides("pipeline")
    assert check_replay(case.mechanism, ["unused"], 0) is None


def test_no_registry_entry_that_exposes_its_primitives_raises_a_false_alarm():
    from privaudit.auditing.pairs import verified_pair
    from privaudit.auditing.replay.check import check_replay
    from privaudit.auditing.search import candidate_pairs
    from privaudit.trust import registry

    replayed = 0
    for entry in registry.entries():
        mechanism = entry.create()
        if not mechanism.provides("pipeline"):
            continue
        explicit = [verified_pair(mechanism.spec, x, y, "explicit") for x, y in entry.pairs]
        candidates = candidate_pairs(
            mechanism.spec,
            np.random.default_rng(0),
            budget=entry.audit_config.pair_budget,
            explicit_pairs=[(p.x, p.y) for p in explicit],
        )
        outcome = check_replay(mechanism, candidates, 0)
        assert outcome is not None and outcome.status == "passed", (entry.name, outcome)
        replayed += 1
    assert replayed >= 20


def test_extreme_neighbours_can_be_capped_and_counts_are_checked():
    capped = replay(
        _sum, X, domain=FIXED, relation=SubstituteOne(), extreme_neighbours=3, random_neighbours=0
    )
    assert capped.neighbours == 3
    for bad in (-1, 1.5, True):
        with pytest.raises(InvalidParameterError, match="extreme_neighbours"):
            replay(_sum, X, domain=FIXED, relation=SubstituteOne(), extreme_neighbours=bad)


# -- records as real data has them: NaN through the clipping ---------------------------------
def test_nan_bypassing_clipping_is_caught_on_a_domain_that_admits_it():
    admitting = DatasetDomain(record=RealInterval(lo=0, hi=1, admits=("nan",)), size=N)

    def clipped_sum(x, noise):  # np.clip lets NaN through
        return noise.laplace(np.clip(x, 0.0, 1.0).sum(), sensitivity=1.0, epsilon=1.0)

    def nan_safe_sum(x, noise):  # a missing record counts as 0
        return noise.laplace(
            np.nan_to_num(np.clip(x, 0.0, 1.0)).sum(), sensitivity=1.0, epsilon=1.0
        )

    first = _assert_first(
        replay(clipped_sum, X, domain=admitting, relation=SubstituteOne()),
        "sensitivity",
        "is not finite",
    )
    assert any(v == "nan" for v in first.y) and first.measured is None
    recorded = replay(
        clipped_sum,
        np.where(np.arange(N) == 2, np.nan, X),
        domain=admitting,
        relation=SubstituteOne(),
    )
    assert recorded.first.check == "non_finite_input"
    assert not replay(nan_safe_sum, X, domain=admitting, relation=SubstituteOne()).violated
    assert not replay(clipped_sum, X, domain=FIXED, relation=SubstituteOne()).violated


# -- untrusted primitives: audited statistically in isolation ---------------------------------
def _home_made(scale):
    def pipeline(x, noise):
        return noise.primitive(
            np.clip(x, 0.0, 1.0).sum(),
            kind="home_made_laplace",
            sensitivity=1.0,
            norm="l1",
            guarantee=PureDP(epsilon=1.0),
            noise=lambda g, shape: g.laplace(0.0, scale, shape),
            trusted=False,
        )

    return pipeline


def test_an_untrusted_primitive_that_keeps_its_claim_enters_the_composition_labelled():
    from privaudit import AuditConfig, replay

    report = replay(
        _home_made(1.0),
        X,
        domain=FIXED,
        relation=SubstituteOne(),
        isolation_config=AuditConfig(samples=20_000),
    )
    assert not report.violated and report.epsilon == 1.0
    (isolated,) = report.isolated
    assert isolated.verdict == "no_violation" and isolated.epsilon_lower_bound <= 1.0
    assert not report.calls[0].trusted
    assert "audited empirically" in report.statement


def test_an_untrusted_primitive_with_too_little_noise_is_refuted_in_isolation():
    from privaudit import AuditConfig, replay

    report = replay(
        _home_made(0.5),
        X,
        domain=FIXED,
        relation=SubstituteOne(),
        isolation_config=AuditConfig(samples=20_000),
    )
    first = _assert_first(report, "untrusted_primitive", "refutes its declared guarantee")
    assert first.measured > 1.0 and report.epsilon is None


def test_the_engine_room_replay_labels_untrusted_calls_it_did_not_audit():
    report = replay(_home_made(1.0), X, domain=FIXED, relation=SubstituteOne())
    assert report.isolated == () and "not audited in isolation here" in report.statement


def test_trusted_must_be_a_bool():
    with pytest.raises(InvalidParameterError, match="trusted"):
        NoiseRecorder(0).primitive(
            1.0,
            kind="k",
            sensitivity=1.0,
            norm="l1",
            guarantee=None,
            noise=lambda g, s: g.laplace(0, 1, s),
            trusted="no",
        )
