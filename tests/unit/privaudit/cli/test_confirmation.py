"""The confirmation stage of CI audits (issue 28): session-level false-alarm control.

Mechanisms are written here: a correct Laplace sum, the same with half the noise and no
gray-box hook (so only statistical checks can see it), and a sum that under-declares its
sensitivity (a deterministic check refutes it).  A *screen* false alarm is simulated by a
mechanism that is broken during the first audit only: the independent confirmation then
clears it.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit import CI_STRENGTH
from privaudit.auditing.confirmation import ConfirmationPolicy, confirmation_seed, screened_audit
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    DatasetDomain,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    SubstituteOne,
)
from privaudit.spec.errors import InvalidParameterError

pytest_plugins = ["pytester"]

N = 6


def _sum_spec(name: str, hi: float = 1.0) -> MechanismSpec:
    return MechanismSpec(
        name=name,
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=hi), size=N),
        relation=SubstituteOne(),
        statistic="sum of the records",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)),
        guarantee=PureDP(epsilon=1.0),
    )


class SwitchableSum:
    """Laplace sum whose noise scale is ``scale`` (1 is correct, 0.4 is broken)."""

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def __call__(self, x, size, rng):
        return float(np.sum(x)) + rng.laplace(0.0, self.scale, size)


PAIRS = ((np.zeros(N), np.concatenate([[1.0], np.zeros(N - 1)])),)


def _black_box(name: str, scale: float):
    sampler = SwitchableSum(scale)
    return declare_mechanism(_sum_spec(name), sampler=sampler), sampler


def test_policy_defaults_give_one_percent_for_fifty_audits():
    policy = ConfirmationPolicy()
    assert policy.alpha == pytest.approx(0.01 / 50)
    assert policy.confidence == pytest.approx(1 - 2e-4)
    assert policy.sample_factor == 4 and policy.enabled


@pytest.mark.parametrize(
    "kwargs",
    [
        {"session_alpha": 0.0},
        {"session_alpha": 1.0},
        {"suite_size": 0},
        {"sample_factor": 0},
        {"suite_size": True},
    ],
)
def test_policy_refuses_bad_values(kwargs):
    with pytest.raises(InvalidParameterError, match=next(iter(kwargs))):
        ConfirmationPolicy(**kwargs)


def test_confirmation_seed_is_fixed_and_differs_from_the_screen():
    seeds = {confirmation_seed(s) for s in range(100)}
    assert len(seeds) == 100 and not seeds & set(range(100))
    assert confirmation_seed(7) == confirmation_seed(7) < 2**32


def test_a_screen_false_alarm_is_cleared_by_the_confirmation(monkeypatch):
    """Broken during the screen only (a stand-in for a chance violation): the independent
    confirmation on the correct code finds nothing, so the final verdict is no violation."""
    from privaudit.auditing import auditor

    mechanism, sampler = _black_box("flips_after_screen", 0.4)
    original = auditor.audit
    calls = []

    def audit_then_repair(*args, **kwargs):
        report = original(*args, **kwargs)
        calls.append(report)
        sampler.scale = 1.0
        return report

    monkeypatch.setattr(auditor, "audit", audit_then_repair)
    run = screened_audit(mechanism, config=CI_STRENGTH, pairs=PAIRS, seed=5)
    assert len(calls) == 2
    assert run.screening.violated and run.confirmation is not None
    assert not run.final.violated and not run.confirmed
    assert run.confirmation.seed == confirmation_seed(5)
    assert run.confirmation.samples == 4 * CI_STRENGTH.samples
    assert run.confirmation.confidence == pytest.approx(1 - 0.01 / 50)
    lines = "\n".join(run.stage_lines())
    assert "stage 1 (screen): VIOLATION FOUND" in lines
    assert "stage 2 (confirmation, independent stream, level 0.01/50" in lines


def test_a_broken_black_box_is_confirmed():
    mechanism, _ = _black_box("half_noise_sum", 0.4)
    run = screened_audit(mechanism, config=CI_STRENGTH, pairs=PAIRS, seed=5)
    assert run.screening.violated
    assert all(c.error_rate > 0 for c in run.screening.violations)
    assert run.confirmation is not None and run.confirmed
    assert run.final is run.confirmation


def test_a_deterministic_refutation_is_not_re_tested():
    spec = _sum_spec("underdeclared_sum", hi=2.0)
    mechanism = declare_mechanism(
        spec, sampler=SwitchableSum(1.0), statistic=lambda x: float(np.sum(x))
    )
    run = screened_audit(mechanism, config=CI_STRENGTH, seed=5)
    assert run.screening.violated and run.confirmation is None and run.confirmed
    assert "deterministic" in run.reason


def test_a_correct_mechanism_runs_one_stage_and_disabled_confirmation_keeps_the_screen():
    correct, _ = _black_box("correct_sum", 1.0)
    run = screened_audit(correct, config=CI_STRENGTH, pairs=PAIRS, seed=5)
    assert run.confirmation is None and run.final is run.screening and not run.confirmed
    broken, _ = _black_box("half_noise_sum", 0.4)
    off = screened_audit(
        broken, config=CI_STRENGTH, pairs=PAIRS, seed=5, policy=ConfirmationPolicy(enabled=False)
    )
    assert off.confirmation is None and off.confirmed and off.reason == "confirmation disabled"


# -- through the pytest plugin ---------------------------------------------------------------
MODULE = """
import numpy as np
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (AdditiveNoise, DatasetDomain, GlobalSensitivity, Laplace, MechanismSpec,
                  PureDP, RealInterval, SubstituteOne)

N = 6
PAIRS = ((np.zeros(N), np.concatenate([[1.0], np.zeros(N - 1)])),)


class Sampler:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x, size, rng):
        return float(np.sum(x)) + rng.laplace(0.0, self.scale, size)


def black_box(scale):
    spec = MechanismSpec(
        name="sum", input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
        relation=SubstituteOne(), statistic="sum", sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)), guarantee=PureDP(epsilon=1.0))
    sampler = Sampler(scale)
    return declare_mechanism(spec, sampler=sampler), sampler
"""


def _args(*extra: str) -> list[str]:
    return ["-p", "no:cacheprovider", *extra]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(bbox=MODULE)
    pytester.syspathinsert()
    return pytester


def test_the_failure_message_shows_both_stages(project):
    project.makepyfile(
        test_bad="""
        from bbox import PAIRS, black_box

        def test_half_noise(privacy_audit):
            privacy_audit(black_box(0.4)[0], pairs=PAIRS).assert_no_violation()
    """
    )
    result = project.runpytest(*_args())
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*privacy audit of 'sum': VIOLATION FOUND*",
            "*stage 1 (screen): VIOLATION FOUND*50000 samples per side, confidence 0.95)*",
            (
                "*stage 2 (confirmation, independent stream, level 0.01/50 = 0.0002): VIOLATION "
                "FOUND*200000 samples per side, confidence 0.9998)*"
            ),
            "*violated checks:*",
            "*counterexample (found by *",
            "*reproduce with pytest test_bad.py::test_half_noise --privaudit-seed *",
        ]
    )


def test_an_unconfirmed_screen_alarm_passes_and_keeps_both_reports(project):
    project.makepyfile(
        test_flip="""
        import privaudit.auditing.auditor as auditor
        from bbox import PAIRS, black_box

        def test_flip(privacy_audit, monkeypatch):
            mechanism, sampler = black_box(0.4)
            original = auditor.audit

            def repaired_after_screen(*args, **kwargs):
                report = original(*args, **kwargs)
                sampler.scale = 1.0
                return report

            monkeypatch.setattr(auditor, "audit", repaired_after_screen)
            outcome = privacy_audit(mechanism, pairs=PAIRS).assert_no_violation()
            assert outcome.screening.violated
            assert outcome.confirmation is outcome.report
            assert not outcome.report.violated
    """
    )
    project.runpytest(*_args()).assert_outcomes(passed=1)


def test_no_confirm_fails_on_the_screen_alone(project):
    project.makepyfile(
        test_off="""
        from bbox import PAIRS, black_box

        def test_off(privacy_audit):
            outcome = privacy_audit(black_box(0.4)[0], pairs=PAIRS)
            assert outcome.confirmation is None and outcome.violated
            assert privacy_audit.policy.enabled is False
    """
    )
    project.runpytest(*_args("--privaudit-no-confirm")).assert_outcomes(passed=1)


def test_suite_size_is_at_least_the_number_of_collected_audits(project):
    project.makepyfile(
        test_many="""
        import pytest

        @pytest.mark.parametrize("i", range(60))
        def test_size(privacy_audit, i):
            assert privacy_audit.policy.suite_size == 60
            assert privacy_audit.policy.session_alpha == 0.02
            assert privacy_audit.policy.sample_factor == 3
    """
    )
    project.runpytest(
        *_args("--privaudit-session-alpha", "0.02", "--privaudit-confirm-factor", "3")
    ).assert_outcomes(passed=60)
    project.makeini("[pytest]\nprivaudit_suite_size = 80\nprivaudit_session_alpha = 0.02\n")
    project.makepyfile(
        test_many="""
        def test_size(privacy_audit):
            assert privacy_audit.policy.suite_size == 80
            assert privacy_audit.policy.session_alpha == 0.02
    """
    )
    project.runpytest(*_args()).assert_outcomes(passed=1)


@pytest.mark.parametrize(
    "option,value",
    [
        ("--privaudit-session-alpha", "1.5"),
        ("--privaudit-session-alpha", "x"),
        ("--privaudit-suite-size", "0"),
        ("--privaudit-confirm-factor", "-1"),
    ],
)
def test_bad_confirmation_options_are_usage_errors(project, option, value):
    project.makepyfile(test_x="def test_x(): pass")
    result = project.runpytest(*_args(option, value))
    assert result.ret != 0
    result.stderr.fnmatch_lines([f"*{option}*"])
