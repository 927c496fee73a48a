"""Finite local randomizers declared as a user would (issue 27): exact figures are never
contradicted by the audit's own samples.

The randomizers are written here.  Each releases 4 bits; coordinate c is 1 with
probability p_c(x), x ∈ {0, 1}.  The *shared* sampler draws one uniform for all bits
(``bit_c = 1[u < p_c(x)]``): its marginals are the declared ones, but the pattern (0, 1, ·, ·)
is impossible under x = 1, so its true ε is ∞ while the product law declares 1.69.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from privaudit import audit
from privaudit.interfaces.html_report import render_html_report as render_html
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    Categorical,
    FiniteOutputLaw,
    FiniteRandomizer,
    GlobalSensitivity,
    Laplace,
    LocalRelation,
    MechanismSpec,
    PrivauditWarning,
    PureDP,
    RealInterval,
)
from privaudit.spec.errors import InconsistentSpecError, InvalidParameterError

P1 = {0: np.array([0.3, 0.5, 0.3, 0.5]), 1: np.array([0.5, 0.3, 0.5, 0.3])}
EXACT = float(
    sum(
        max(np.log(a / b), np.log(b / a)) if a != b else 0.0
        for a, b in zip(P1[0], P1[1], strict=True)
    )
)  # 4 ln(5/3) = 2.04: a safe claim


def _probabilities(x):
    return np.column_stack([1.0 - P1[int(x)], P1[int(x)]])


def _shared(x, size, rng):
    return (rng.random((size, 1)) < P1[int(x)][None, :]).astype(np.int64)


def _independent(x, size, rng):
    return (rng.random((size, 4)) < P1[int(x)][None, :]).astype(np.int64)


def _bits(sampler, *, independent=True, epsilon=None):
    law = FiniteOutputLaw(alphabet=2, length=4, independent=independent, epsilon=epsilon)
    spec = MechanismSpec(
        name="four_bits",
        input_domain=Categorical(size=2),
        relation=LocalRelation(),
        statistic="x",
        noise=FiniteRandomizer(law=law),
        guarantee=PureDP(epsilon=EXACT),
    )
    return declare_mechanism(spec, sampler, output_probabilities=_probabilities)


@pytest.mark.quality
def test_correlated_sampler_refutes_the_exact_figures_everywhere():
    report = audit(_bits(_shared), samples=50_000, seed=1)
    assert report.violated
    assert report.check("noise_law").violated  # the joint table, not marginals
    assert "joint" in report.check("noise_law").summary
    assert report.exact is not None and report.exact.refuted
    assert report.check("exact.sampling_agreement").violated
    assert report.check("exact.privacy").status == "skipped"
    assert "REFUTED" in report.summary()
    data = json.loads(report.to_json())
    assert data["exact"]["refuted"] is True and "REFUTED" in data["exact"]["refutation"]
    html = render_html(report)
    assert "REFUTED by sampling" in html and 'id="exact-refuted"' in html


@pytest.mark.quality
def test_independent_sampler_agrees_with_the_exact_figures():
    report = audit(_bits(_independent), samples=50_000, seed=1)
    assert report.verdict == "no_violation"
    assert report.exact is not None and not report.exact.refuted
    assert report.check("noise_law").status == "passed"
    assert report.epsilon_lower_bound <= report.exact.epsilon_exact


@pytest.mark.quality
def test_declared_dependent_coordinates_give_a_statistical_audit():
    """independent=False: no exact product law; the samples still refute the claim."""
    report = audit(_bits(_shared, independent=False), samples=50_000, seed=1)
    assert report.exact is None and report.audit_mode == "statistical"
    assert "not independent" in report.check("exact.privacy").summary
    assert report.violated and report.check("distinguishability").violated


def test_epsilon_and_length_are_stated_once():
    mech = _bits(_independent)
    assert mech.spec.noise.law.epsilon == EXACT and mech.spec.output_dimension == 4
    with pytest.raises(InconsistentSpecError, match="pure claim"):
        MechanismSpec(
            name="x",
            input_domain=Categorical(size=2),
            relation=LocalRelation(),
            statistic="x",
            noise=FiniteRandomizer(law=FiniteOutputLaw(alphabet=2)),
            guarantee=ApproxDP(epsilon=1.0, delta=1e-6),
        )


def test_a_law_epsilon_below_the_hook_is_a_violation():
    report = audit(_bits(_independent, epsilon=1.0), samples=5_000, seed=1)
    assert report.check("exact.privacy").violated
    assert "FiniteOutputLaw states" in report.check("exact.privacy").summary


def test_per_coordinate_alphabets():
    """A ternary and a binary coordinate; row 1 is zero beyond its alphabet."""
    law = FiniteOutputLaw(alphabets=(3, 2))
    assert (law.alphabet, law.length, law.outputs) == (3, 2, 6)
    with pytest.raises(InvalidParameterError, match="alphabets"):
        FiniteOutputLaw(alphabet=2, length=3, alphabets=(2, 2))
    keep = np.e / (np.e + 2)

    def probs(x):
        first = np.full(3, (1 - keep) / 2)
        first[int(x)] = keep
        second = [0.5, 0.5, 0.0]
        return np.vstack([first, second])

    def sampler(x, size, rng):
        first = np.where(
            rng.random(size) < keep, int(x), (int(x) + 1 + rng.integers(0, 2, size)) % 3
        )
        return np.column_stack([first, rng.integers(0, 2, size)])

    spec = MechanismSpec(
        name="rr3_and_coin",
        input_domain=Categorical(size=3),
        relation=LocalRelation(),
        statistic="x",
        noise=FiniteRandomizer(law=law),
        guarantee=PureDP(epsilon=1.0),
    )
    report = audit(
        declare_mechanism(spec, sampler, output_probabilities=probs), samples=20_000, seed=2
    )
    assert report.exact is not None and report.exact.epsilon_exact == pytest.approx(1.0)
    assert report.verdict == "no_violation"

    def leaking(x):
        p = probs(x)
        p[1] = [0.5, 0.25, 0.25]
        return p

    with pytest.raises(Exception, match="beyond a coordinate's declared alphabet"):
        audit(declare_mechanism(spec, sampler, output_probabilities=leaking), samples=2_000)


def test_output_probabilities_without_a_finite_law_is_named():
    spec = MechanismSpec(
        name="laplace_bit",
        input_domain=RealInterval(lo=0, hi=1),
        relation=LocalRelation(),
        statistic="x",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)),
        guarantee=PureDP(epsilon=1.0),
    )
    with pytest.warns(PrivauditWarning, match="output_probabilities is ignored"):
        mech = declare_mechanism(
            spec,
            lambda x, size, rng: x + rng.laplace(0, 1, size),
            output_probabilities=lambda x: [[0.5, 0.5]],
            statistic=lambda x: x,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = audit(mech, samples=5_000, seed=0)
    assert "not a finite output law" in report.check("exact.privacy").summary
