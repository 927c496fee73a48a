"""The exact audit of finite local randomizers (privaudit.auditing.exact_audit): deterministic
checks."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from estimators.local_ustatistics import rr_randomizer_mechanism
from mechanisms import RandomizedResponseMechanism, declare_mechanism
from privaudit import audit
from privaudit.auditing.exact_audit import exact_audit_applies, exact_privacy, hockey_stick
from privaudit.auditing.report import AuditReport
from privaudit.suites.local import LocalKaryRR
from spec import (
    Categorical,
    FiniteOutputLaw,
    FiniteRandomizer,
    LocalRelation,
    MechanismSpec,
    PureDP,
)
from spec.errors import AuditError, InconsistentSpecError

CI = {
    "samples": 20_000,
    "pilot_samples": 1_000,
    "pair_budget": 12,
    "pairs_tested": 1,
    "claim_budget": 50,
}


def test_randomized_response_is_audited_exactly_over_every_pair():
    rr = RandomizedResponseMechanism(1.0, 4)
    assert exact_audit_applies(rr)
    res = exact_privacy(rr)
    assert res.coverage == "all_pairs" and res.pairs_examined == 6
    assert res.epsilon_exact == pytest.approx(1.0, rel=1e-12)
    for pt in res.profile:
        assert pt.delta_exact == pytest.approx(rr.law.privacy_profile(pt.epsilon), abs=1e-12)
    assert not res.violated and "EXACT" in res.statement


def test_quantized_randomizer_is_exact_on_the_searched_grid():
    res = exact_privacy(rr_randomizer_mechanism(0.5, bins=5))
    assert res.coverage == "searched_pairs" and res.details["distinct_laws"] == 5
    assert res.epsilon_exact == pytest.approx(0.5, rel=1e-12)


def test_product_law_profile_equals_brute_force_enumeration():
    m = LocalKaryRR(0.7, 3, copies=3, name="three_copies")
    p, q = m.output_probabilities(0), m.output_probabilities(1)
    grid = [0.0, 0.5, 1.0, 2.1, 3.0]
    brute = np.zeros(len(grid))
    for o in itertools.product(range(3), repeat=3):
        px = np.prod([p[c, o[c]] for c in range(3)])
        py = np.prod([q[c, o[c]] for c in range(3)])
        brute += np.maximum(px - np.exp(grid) * py, 0.0)
    assert np.allclose(hockey_stick(p, q, grid), brute, atol=1e-14)
    res = exact_privacy(m)
    assert res.epsilon_exact == pytest.approx(2.1) and res.violated


def test_audit_report_states_the_exact_mode_and_round_trips():
    report = audit(RandomizedResponseMechanism(1.0, 3), **CI)
    assert report.audit_mode == "exact" and report.exact is not None
    assert report.check("exact.privacy").status == "passed"
    assert "exact ε" in report.summary() and "EXACT" in report.summary()
    assert AuditReport.from_json(report.to_json()) == report
    # statistical mechanisms keep the statistical mode
    from mechanisms import LaplaceMechanism

    assert audit(LaplaceMechanism(1.0, 1.0), **CI).audit_mode == "statistical"


def _finite_spec(eps_declared: float, k: int = 3) -> MechanismSpec:
    return MechanismSpec(
        name="declared_rr",
        input_domain=Categorical(size=k),
        relation=LocalRelation(),
        noise=FiniteRandomizer(law=FiniteOutputLaw(alphabet=k, epsilon=eps_declared)),
        guarantee=PureDP(epsilon=1.0),
    )


def test_declare_mechanism_accepts_the_hook_and_a_lying_hook_is_caught_by_conformance():
    keep = math.e / (2 + math.e)

    def law(x):
        row = np.full(3, (1 - keep) / 2)
        row[int(x)] = keep
        return row[None, :]

    def honest(x, size, rng):
        kept = rng.random(size) < keep
        other = (int(x) + rng.integers(1, 3, size)) % 3
        return np.where(kept, int(x), other)

    good = declare_mechanism(_finite_spec(1.0), honest, output_probabilities=law)
    assert not audit(good, **CI).violated
    # the code always tells the truth, the hook says it randomizes: the exact figure (ε = 1)
    # is computed, then refuted by the audit's own samples (issue 27), and the
    # sampler-vs-hook conformance check and the statistical test refute the claim
    liar = declare_mechanism(
        _finite_spec(1.0), lambda x, size, rng: np.full(size, int(x)), output_probabilities=law
    )
    report = audit(liar, **CI)
    assert report.exact is not None and report.exact.refuted
    assert report.check("exact.privacy").status == "skipped"
    assert report.violated and {"noise_law", "exact.sampling_agreement"} <= {
        c.name for c in report.violations
    }


def test_spec_refuses_a_finite_law_stronger_than_the_claim_and_bad_hooks_raise():
    with pytest.raises(InconsistentSpecError):
        _finite_spec(1.5)
    bad = declare_mechanism(
        _finite_spec(1.0),
        lambda x, size, rng: np.zeros(size, int),
        output_probabilities=lambda x: np.array([[0.5, 0.2, 0.2]]),
    )
    with pytest.raises(AuditError, match="sum to 1"):
        exact_privacy(bad)
    wrong_shape = declare_mechanism(
        _finite_spec(1.0),
        lambda x, size, rng: np.zeros(size, int),
        output_probabilities=lambda x: np.ones((2, 3)) / 3,
    )
    with pytest.raises(AuditError, match="shape"):
        exact_privacy(wrong_shape)
    from mechanisms import LaplaceMechanism

    with pytest.raises(AuditError):
        exact_privacy(LaplaceMechanism(1.0, 1.0))
