"""The ``accuracy`` check (``privaudit/auditing/checks/accuracy.py``).

Error rates: the exact bounded-mean claim sits on the boundary P[error > α] = β, where
the check refutes it at one input with probability P[Bin(N, β) ≥ k*] ≤ α/m (computed
below for N = 20,000); a claim false by a factor 2 in α has P[error > α/2] = 1/√20 ≈
0.224 and is refuted with probability 1 − 10⁻¹⁰⁰ or so at that size.  Seeds are fixed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from privaudit import AuditConfig, audit
from privaudit.auditing.checks import accuracy_check_applies, check_accuracy
from privaudit.auditing.checks.accuracy import accuracy_errors, quantile_interval
from privaudit.auditing.outcome.audit_plan import ACCURACY_SHARE
from privaudit.auditing.pairs import verified_pair
from privaudit.auditing.plan import plan_audit
from privaudit.estimators import bounded_mean_mechanism
from privaudit.estimators.bounded_mean import laplace_accuracy_claim
from privaudit.mechanisms import LaplaceMechanism, declare_mechanism
from privaudit.spec import DatasetDomain, InvalidParameterError, RealInterval, SubstituteOne
from privaudit.statistics import cp_lower

N = 50
INPUTS = [np.zeros(N), np.ones(N), np.linspace(0.0, 1.0, N)]


def _mean(claim_scale_factor: float = 1.0, target: str = "statistic") -> LaplaceMechanism:
    scale = 1.0 / N
    claim = laplace_accuracy_claim(scale * claim_scale_factor, 0.05, lower_bound="mean.central")
    if target != "statistic":
        claim = claim.model_copy(update={"target": target})
    return LaplaceMechanism(
        1.0,
        1.0 / N,
        statistic=lambda x: float(np.mean(x)),
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
        relation=SubstituteOne(),
        name="mean",
        accuracy=claim,
    )


def test_true_claim_passes_at_a_fixed_seed():
    outcome = check_accuracy(_mean(), INPUTS, np.random.default_rng(0), samples=20_000, alpha=0.01)
    assert outcome.status == "passed", outcome.summary
    assert outcome.error_rate == 0.01
    assert "not a proof" in outcome.summary
    d = outcome.details
    assert d["inputs"] == 3 and d["samples_per_input"] == 20_000
    lo, hi = d["measured_quantile_interval"]
    assert lo <= math.log(20) / N <= hi  # the true 0.95-quantile b ln 20
    # efficiency against the two-point bound 2/(2n) (ε = 1, β = 0.05: k ≤ 2)
    assert d["lower_bound"] == pytest.approx(1 / N)
    assert d["efficiency_claimed"] == pytest.approx(math.log(20), rel=1e-5)


def test_claim_false_by_a_factor_two_is_refuted():
    mech = _mean(claim_scale_factor=0.5)
    outcome = check_accuracy(mech, INPUTS, np.random.default_rng(0), samples=20_000, alpha=0.01)
    assert outcome.status == "violated"
    assert outcome.summary.startswith("accuracy claim refuted")
    assert outcome.details["failure_rate"] == pytest.approx(1 / math.sqrt(20), abs=0.01)
    assert outcome.ratio > 1.9  # measured quantile ÷ claimed α ≈ 2
    assert outcome.counterexample is not None


def test_exact_binomial_error_rate_at_the_boundary():
    """At P[fail] = β the per-input refutation probability is P[Bin(N, β) ≥ k*] ≤ α/m."""
    n, beta, level = 20_000, 0.05, 0.01 / 3
    k = np.arange(n + 1)
    refuting = k[cp_lower(k, n, level) > beta]
    k_star = int(refuting[0])
    assert np.all(cp_lower(np.arange(k_star), n, level) <= beta)
    rate = float(stats.binom.sf(k_star - 1, n, beta))
    assert rate <= level
    assert rate > level / 3  # exact, not grossly conservative


def test_skips_without_a_testable_claim():
    rng = np.random.default_rng(0)
    population = _mean(target="population")
    assert not accuracy_check_applies(population)
    out = check_accuracy(population, INPUTS, rng, samples=10, alpha=0.01)
    assert out.status == "skipped" and "population" in out.summary
    plain = LaplaceMechanism(1.0, 1.0)
    assert check_accuracy(plain, [0.0], rng, samples=10, alpha=0.01).status == "skipped"
    spec = _mean().spec
    blind = declare_mechanism(spec, lambda x, size, rng: np.zeros(size))
    assert not blind.provides("statistic")
    assert check_accuracy(blind, INPUTS, rng, samples=10, alpha=0.01).status == "skipped"


def test_bad_arguments_are_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidParameterError):
        check_accuracy(_mean(), INPUTS, rng, samples=0, alpha=0.01)
    with pytest.raises(InvalidParameterError):
        check_accuracy(_mean(), INPUTS, rng, samples=10, alpha=1.5)
    with pytest.raises(InvalidParameterError):
        check_accuracy(_mean(), [], rng, samples=10, alpha=0.01)


def test_error_norms_and_quantile_interval():
    out = np.array([[1.0, -2.0], [0.0, 0.5]])
    assert accuracy_errors(out, [0.0, 0.0], "l1").tolist() == [3.0, 0.5]
    assert accuracy_errors(out, [0.0, 0.0], "l2").tolist() == pytest.approx([math.sqrt(5), 0.5])
    assert accuracy_errors(out, [0.0, 0.0], "linf").tolist() == [2.0, 0.5]
    errors = np.random.default_rng(1).uniform(size=10_000)
    q, lo, hi = quantile_interval(errors, 0.95, 0.01)
    assert lo <= 0.95 <= hi and lo < q < hi and hi - lo < 0.02
    # too few errors for an upper order statistic: the upper end is infinite
    assert quantile_interval(np.arange(5.0), 0.95, 0.01)[2] == math.inf


def test_plan_spends_a_share_only_with_a_claim():
    cfg = AuditConfig(samples=10_000, seed=0)
    claimed = plan_audit(_mean(), cfg)
    assert claimed.accuracy
    assert claimed.share("accuracy") == pytest.approx(ACCURACY_SHARE * cfg.alpha)
    assert sum(claimed.shares.values()) == pytest.approx(cfg.alpha)
    plain = plan_audit(LaplaceMechanism(1.0, 1.0), cfg)
    assert not plain.accuracy and "accuracy" not in plain.shares


def test_no_claim_plan_matches_the_certified_one():
    """The laplace certificate's recorded plan shares are reproduced to the bit."""
    from privaudit import registry

    entry = registry.entry("laplace")
    cert = json.loads(Path(entry.certificate_path).read_text("utf-8"))
    mech = entry.create()
    worst = cert["report"]["worst_pair"]
    pair = verified_pair(mech.spec, worst["x"], worst["y"], "explicit")
    plan = plan_audit(mech, AuditConfig.model_validate(cert["config"]), pair)
    assert plan.shares == cert["report"]["plan"]["shares"]


def test_the_audit_reports_the_check_in_text_json_and_html():
    from privaudit.interfaces.html_report import render_html_report

    mech = bounded_mean_mechanism(200, 0.0, 1.0, 1.0)
    report = audit(mech, config=AuditConfig(samples=20_000, seed=0))
    check = report.check("accuracy")
    assert check.status == "passed"
    assert check.error_rate == pytest.approx(ACCURACY_SHARE * report.config.alpha)
    text = report.summary()
    assert "accuracy claim : P[|M − f(x)| >" in text and "efficiency" in text
    as_json = json.loads(report.to_json())
    assert [c for c in as_json["checks"] if c["name"] == "accuracy"][0]["details"]["lower_bound"]
    assert as_json["plan"]["accuracy"] is True
    html = render_html_report(report, figures="builtin")
    assert "accuracy claim not refuted" in html
