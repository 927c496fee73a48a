"""Inconclusive is a verdict: an audit that could not have detected a violation says so.

Every audit states whether it would have detected a true ε of twice the claim (or
``detect_epsilon``) with probability 0.9; if not, and no check refuted a claim, its verdict
is ``"inconclusive"`` (CLI exit 3, the pytest fixture fails, JSON and HTML show it), with
the samples per side that would make it conclusive (the power calculation inverted in n).
"""

from __future__ import annotations

import json
import math
import runpy
from pathlib import Path

import pytest

from privaudit import audit
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.outcome.report import REPORT_SCHEMA_VERSION, AuditReport
from privaudit.auditing.outcome.results import PowerStatement
from privaudit.auditing.outcome.verdicts import conclusive_power, decide_verdict
from privaudit.interfaces.cli import EXIT_INCONCLUSIVE, main
from privaudit.interfaces.html_report import render_html_report
from privaudit.interfaces.pytest_plugin import AuditOutcome
from privaudit.mechanisms import LaplaceMechanism
from privaudit.spec.errors import CertificateError, InvalidParameterError
from privaudit.statistics.power import detection_probability, samples_to_detect
from privaudit.trust.certificates import Certificate

EXAMPLE = str(Path(__file__).resolve().parents[3] / "examples" / "custom_mechanism.py")
_NS = runpy.run_path(EXAMPLE)
build_noisy_histogram = _NS["build_noisy_histogram"]
build_underscaled_histogram = _NS["build_underscaled_histogram"]


@pytest.fixture(scope="module")
def tiny() -> AuditReport:
    """The broken histogram of the README audited with 10 samples: far too weak."""
    return audit(build_underscaled_histogram(), samples=10, seed=0)


@pytest.fixture(scope="module")
def laplace() -> AuditReport:
    return audit(LaplaceMechanism(1.0, 1.0), samples=20_000, pilot_samples=1_000, seed=1)


# -- the power calculation inverted in n -----------------------------------------------------
@pytest.mark.parametrize(
    "p_y, alpha, delta", [(0.184, 0.05, 0.0), (1e-3, 1e-3, 0.0), (0.05, 0.01, 1e-5)]
)
def test_samples_to_detect_is_the_first_size_that_detects(p_y, alpha, delta):
    kw = dict(alpha=alpha, delta=delta, claimed_epsilon=1.0)
    n = samples_to_detect(2.0, p_y, **kw)
    assert n is not None
    assert detection_probability(2.0, p_y, n, n, **kw) >= 0.9
    # the bisection resolves n to 0.1 %: a size 1 % smaller does not reach 0.9
    smaller = int(n * 0.99)
    assert detection_probability(2.0, p_y, smaller, smaller, **kw) < 0.9


def test_samples_to_detect_none_when_no_size_can():
    # ln(1/p_y) = 0.51 < claim: even P[M(x) in S] = 1 does not exceed e^1 p_y
    assert samples_to_detect(2.0, 0.6, alpha=0.05, delta=0.0, claimed_epsilon=1.0) is None
    # a target at the claim is never detectable
    assert samples_to_detect(1.0, 0.1, alpha=0.05, delta=0.0, claimed_epsilon=1.0) is None
    with pytest.raises(InvalidParameterError, match="start"):
        samples_to_detect(2.0, 0.1, alpha=0.05, delta=0.0, claimed_epsilon=1.0, start=0)


# -- the verdict -----------------------------------------------------------------------------
def test_a_weak_audit_is_inconclusive_with_the_samples_it_needs(tiny):
    assert tiny.verdict == "inconclusive" and tiny.inconclusive and not tiny.violated
    power = tiny.power
    assert power is not None and not power.conclusive and power.target_epsilon == 2.0
    assert power.detectable_epsilon > 2.0
    needed = tiny.samples_to_conclude
    assert needed is not None and needed > 10
    assert (
        detection_probability(
            2.0, power.p_y, needed, needed, alpha=power.alpha, delta=0.0, claimed_epsilon=1.0
        )
        >= 0.9
    )
    assert "INCONCLUSIVE" in tiny.summary() and str(needed) in tiny.summary()


def test_a_strong_audit_is_conclusive(laplace):
    assert laplace.verdict == "no_violation"
    assert laplace.power.conclusive and laplace.power.target_epsilon == 2.0
    assert laplace.power.detectable_epsilon <= 2.0 and laplace.samples_to_conclude is None


def test_detect_epsilon_is_configurable():
    mech = LaplaceMechanism(1.0, 1.0)
    strict = audit(mech, samples=20_000, pilot_samples=1_000, seed=1, detect_epsilon=1.0)
    assert strict.verdict == "inconclusive" and strict.power.target_epsilon == 1.0
    assert strict.samples_to_conclude is None  # the claim itself is never detectable
    loose = audit(mech, samples=200, pilot_samples=200, seed=1, detect_epsilon=50.0)
    assert loose.power.target_epsilon == 50.0


def test_a_violation_stays_a_violation_whatever_the_power():
    report = audit(build_underscaled_histogram(), samples=20_000, seed=0, detect_epsilon=1.0)
    assert report.power is not None and not report.power.conclusive
    assert report.verdict == "violation"
    assert decide_verdict(True, None) == "violation"
    assert decide_verdict(False, None) == "inconclusive"


def test_the_json_report_round_trips_the_verdict(tiny):
    data = json.loads(tiny.to_json())
    assert data["schema_version"] == REPORT_SCHEMA_VERSION == 2
    assert data["verdict"] == "inconclusive"
    assert data["power"]["conclusive"] is False
    assert data["power"]["samples_to_conclude"] == tiny.samples_to_conclude
    assert data["config"]["detect_epsilon"] is None
    again = AuditReport.from_json(tiny.to_json())
    assert again.verdict == "inconclusive" and again.power == tiny.power


def test_the_html_report_shows_inconclusive(tiny, laplace):
    page = render_html_report(tiny, figures="builtin")
    assert "badge inconclusive" in page and 'id="inconclusive"' in page
    assert str(tiny.samples_to_conclude) in page
    assert "badge inconclusive" not in render_html_report(laplace, figures="builtin")


def test_an_inconclusive_audit_is_not_certified(tiny):
    with pytest.raises(CertificateError, match="inconclusive"):
        Certificate.from_report(build_underscaled_histogram(), tiny)


def test_the_pytest_fixture_fails_and_says_how_many_samples(tiny, laplace):
    outcome = AuditOutcome(report=tiny, seed=0, seed_source="test")
    with pytest.raises(AssertionError) as info:
        outcome.assert_no_violation()
    message = str(info.value)
    assert "INCONCLUSIVE" in message and f"samples={tiny.samples_to_conclude}" in message
    assert outcome.inconclusive and outcome.verdict == "inconclusive"
    with pytest.raises(AssertionError, match="expected a violation"):
        outcome.assert_violation()
    AuditOutcome(report=laplace, seed=1, seed_source="test").assert_no_violation()


# -- the command line ------------------------------------------------------------------------
def test_readme_underscaled_histogram_with_10_samples_no_longer_exits_0(capsys):
    code = main(
        ["audit", f"{EXAMPLE}:build_underscaled_histogram", "--samples", "10", "-q", "--json", "-"]
    )
    assert code == EXIT_INCONCLUSIVE == 3
    assert json.loads(capsys.readouterr().out)["verdict"] == "inconclusive"


def test_cli_detect_epsilon_option(capsys):
    code = main(
        [
            "audit",
            f"{EXAMPLE}:build_noisy_histogram",
            "--samples",
            "20000",
            "--detect-epsilon",
            "1",
            "-q",
        ]
    )
    assert code == EXIT_INCONCLUSIVE
    with pytest.raises(SystemExit) as info:
        main(["audit", f"{EXAMPLE}:build_noisy_histogram", "--detect-epsilon", "-1"])
    assert info.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_audit_registry_exits_3_when_an_entry_is_inconclusive(capsys):
    code = main(
        [
            "audit",
            "--registry",
            "laplace",
            "randomized_response",
            "--samples",
            "10",
            "-q",
            "--json",
            "-",
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == 3 and payload["verdict"] == "inconclusive"
    assert {e["verdict"] for e in payload["entries"]} == {"inconclusive"}
    assert all(isinstance(e["samples_to_conclude"], int) for e in payload["entries"])


def test_help_states_exit_code_3(capsys):
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "3: inconclusive" in out and "--detect-epsilon" in out


def test_built_in_noisy_histogram_is_conclusive_at_ci_strength():
    report = audit(build_noisy_histogram(), samples=50_000, seed=3)
    assert report.verdict == "no_violation" and math.isfinite(report.power.detectable_epsilon)


def test_an_event_too_likely_to_show_the_target_still_gets_a_sample_plan():
    """10 outputs estimate P[M(y) ∈ S] = 0.41 for randomized response's atom (truth 0.175):
    e² · 0.41 > 1, so no n lets that event show ε = 2; the plan is for an event half as
    likely as the largest that can, and at that size the target is detected."""
    weak = PowerStatement(
        detectable_epsilon=math.inf,
        probability=0.9,
        samples=10,
        statement="tiny",
        p_y=0.41,
        alpha=0.04,
    )
    assert samples_to_detect(2.0, 0.41, alpha=0.04, delta=0.0, claimed_epsilon=1.0) is None
    power = conclusive_power(weak, AuditConfig(samples=10), claimed_epsilon=1.0, claimed_delta=0.0)
    assert not power.conclusive and power.target_epsilon == 2.0
    n = power.samples_to_conclude
    p = math.exp(-2.0) / 2
    assert isinstance(n, int) and n > 10
    assert detection_probability(2.0, p, n, n, alpha=0.04, delta=0.0, claimed_epsilon=1.0) >= 0.9
