"""The exact audit of finite local randomizers (privaudit.auditing.exact.privacy): deterministic
checks."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from privaudit import audit
from privaudit.auditing.exact.privacy import exact_audit_applies, exact_privacy, hockey_stick
from privaudit.auditing.outcome.report import AuditReport
from privaudit.estimators.local_ustatistics import rr_randomizer_mechanism
from privaudit.mechanisms import RandomizedResponseMechanism, declare_mechanism
from privaudit.spec import (
    Categorical,
    FiniteOutputLaw,
    FiniteRandomizer,
    LocalRelation,
    MechanismSpec,
    PureDP,
)
from privaudit.spec.errors import AuditError, InconsistentSpecError
from privaudit.suites.local import LocalKaryRR

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
    # the keep probability is rounded down onto the stable grid: ε just below 1, never above
    assert 1.0 - 1e-5 <= res.epsilon_exact <= 1.0
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
    from privaudit.mechanisms import LaplaceMechanism

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
    from privaudit.mechanisms import LaplaceMechanism

    with pytest.raises(AuditError):
        exact_privacy(LaplaceMechanism(1.0, 1.0))


def _unary_encoding(categories: int, epsilon: float):
    """Unary encoding (Wang et al., USENIX Security 2017): bit c is 1 w.p. p, others w.p. q."""
    p = math.exp(epsilon / 2) / (1 + math.exp(epsilon / 2))
    q = 1 - p

    def law(x):
        rows = np.tile([1 - q, q], (categories, 1))
        rows[int(x)] = [1 - p, p]
        return rows

    spec = MechanismSpec(
        name="unary_encoding",
        input_domain=Categorical(size=categories),
        relation=LocalRelation(),
        noise=FiniteRandomizer(law=FiniteOutputLaw(alphabet=2, length=categories, epsilon=epsilon)),
        guarantee=PureDP(epsilon=epsilon),
    )

    def sample(x, size, rng):
        probs = law(x)[:, 1]
        return (rng.random((size, categories)) < probs).astype(np.int64)

    return declare_mechanism(spec, sample, output_probabilities=law), law


@pytest.mark.parametrize("categories", [6, 16])
def test_the_exact_profile_of_a_product_law_is_the_maximum_over_every_pair(categories):
    mech, law = _unary_encoding(categories, 1.0)
    res = exact_privacy(mech)
    assert res.profile_coverage == "all_pairs"
    assert res.profile_pairs == categories * (categories - 1)
    grid = [pt.epsilon for pt in res.profile]
    brute = np.zeros(len(grid))
    for i, j in itertools.permutations(range(categories), 2):
        brute = np.maximum(brute, hockey_stick(law(i), law(j), grid))
    assert np.allclose([pt.delta_exact for pt in res.profile], brute, atol=1e-12)


def test_a_profile_over_the_largest_epsilon_pairs_only_says_so(monkeypatch):
    from privaudit.auditing.exact import privacy as exact_audit

    monkeypatch.setattr(exact_audit, "PROFILE_ALL_PRODUCT_PAIRS", 0)
    monkeypatch.setattr(exact_audit, "PROFILE_PAIRS", 4)
    mech, _ = _unary_encoding(8, 1.0)
    res = exact_privacy(mech)
    assert res.profile_coverage == "largest_epsilon_pairs" and res.profile_pairs == 4
    assert "not exact" in res.statement and "delta(1) >= " in res.statement


def _coupled_unary_encoding(categories: int, source: int, target: int):
    """Unary encoding whose bit ``target`` reuses bit ``source``'s coin: every marginal is
    right, the release is not (ε = ∞: some outputs are impossible under one input only)."""
    mech, law = _unary_encoding(categories, 1.0)

    def sample(x, size, rng):
        probs = law(x)[:, 1]
        coins = rng.random((size, categories))
        out = (coins < probs).astype(np.int64)
        out[:, target] = (coins[:, source] < probs[target]).astype(np.int64)
        return out

    return declare_mechanism(mech.spec, sample, output_probabilities=law)


@pytest.mark.parametrize(
    "categories, source, target", [(8, 1, 5), (16, 2, 9), (16, 0, 7), (40, 33, 4)]
)
def test_a_coin_shared_between_any_two_coordinates_refutes_the_exact_figures(
    categories, source, target
):
    report = audit(_coupled_unary_encoding(categories, source, target), **CI, seed=2)
    assert report.violated
    law_check = report.check("noise_law")
    assert law_check.violated and f"pair ({min(source, target)}, {max(source, target)})" in (
        law_check.summary
    )
    assert report.exact is not None and report.exact.refuted
    assert report.check("exact.privacy").status == "skipped"


@pytest.mark.parametrize("categories, source, target", [(300, 17, 240), (280, 279, 3)])
def test_wide_releases_screen_every_pair_and_test_the_most_dependent(categories, source, target):
    from privaudit.auditing.checks import check_noise_law

    out = check_noise_law(
        _coupled_unary_encoding(categories, source, target), 0, rng=5, samples=20_000
    )
    assert out.violated
    assert "screened" in out.summary
    assert f"pair ({min(source, target)}, {max(source, target)})" in out.summary


def test_an_honest_unary_encoding_passes_every_pairwise_table():
    from privaudit.auditing.checks import check_noise_law

    mech, _ = _unary_encoding(16, 1.0)
    out = check_noise_law(mech, 3, rng=7, samples=20_000)
    assert out.status == "passed", out.summary
    assert "all 120 pairwise tables" in out.summary


def test_the_report_lists_what_its_shortcuts_rest_on():
    mech, _ = _unary_encoding(6, 1.0)
    report = audit(mech, **CI, seed=4)
    independence = [a for a in report.assumptions if "independent" in a.shortcut]
    assert independence and independence[0].status == "checked"
    assert "15 coordinate pairs" in independence[0].basis
    assert AuditReport.from_json(report.to_json()).assumptions == report.assumptions
