"""Sequential audits (privaudit.auditing.sequential): the schedule of looks, the stopping
rule, the report, and the error control under optional stopping (docs/derivations.md §12).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from privaudit import AuditConfig, AuditReport, audit
from privaudit.auditing.config import CERTIFICATE_STRENGTH, below_certificate_minimums
from privaudit.auditing.sequential import (
    FIRST_LOOK,
    GROWTH,
    LAST_JUMP,
    LAST_LOOK_SHARE,
    look_config,
    look_schedule,
)
from privaudit.mechanisms import LaplaceMechanism, declare_mechanism
from privaudit.spec import DatasetDomain, MechanismSpec, PureDP, RealInterval, SubstituteOne
from privaudit.spec.errors import CertificateError, InvalidParameterError
from privaudit.statistics import cp_lower, cp_upper

SMALL = AuditConfig(
    samples=8_000, pilot_samples=500, pair_budget=6, pairs_tested=1, claim_budget=40, seed=0
)


def _black_box(epsilon_true: float, name: str = "leaky") -> object:
    """A black-box scalar release claiming ε = 1 whose true ε is ``epsilon_true``."""
    spec = MechanismSpec(
        name=name,
        input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1), size=1),
        relation=SubstituteOne(),
        statistic="the record",
        guarantee=PureDP(epsilon=1.0),
    )
    scale = 1.0 / epsilon_true
    return declare_mechanism(spec, lambda x, size, rng: float(x[0]) + rng.laplace(0.0, scale, size))


# -- the schedule ---------------------------------------------------------------------------
@given(
    samples=st.integers(1, 10**8),
    alpha=st.floats(1e-6, 0.5),
    seed=st.integers(0, 2**32 - 1),
)
@settings(max_examples=200, deadline=None)
def test_schedule_ends_at_samples_spends_at_most_alpha_and_grows_by_the_factor(
    samples, alpha, seed
):
    looks = look_schedule(samples, alpha, seed)
    sizes = [look.samples for look in looks]
    assert sizes[-1] == samples
    assert sum(look.alpha for look in looks) <= alpha
    assert all(look.alpha > 0 for look in looks)
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    if len(looks) > 1:
        assert sizes[0] >= FIRST_LOOK and sizes[0] / GROWTH < FIRST_LOOK
        assert looks[-1].alpha == pytest.approx(LAST_LOOK_SHARE * alpha, rel=1e-12)
        assert sizes[-2] == math.ceil(samples / LAST_JUMP)
        assert all(
            b == pytest.approx(GROWTH * a, abs=GROWTH)
            for a, b in zip(sizes[:-2], sizes[1:-1], strict=True)
        )
        assert sum(sizes[:-1]) <= samples / 12 + len(sizes)  # at most 13/12 of the last look
    else:
        assert samples < FIRST_LOOK * LAST_JUMP
        assert looks[0].alpha == pytest.approx(alpha, rel=1e-12)
    assert looks[-1].seed == seed  # the last look is the fixed-size audit at the seed
    assert len({look.seed for look in looks[:-1]}) == len(looks) - 1
    assert look_schedule(samples, alpha, seed) == looks  # a pure function


def test_the_default_and_ci_schedules():
    sizes = [look.samples for look in look_schedule(200_000, 0.05, 0)]
    assert sizes == [782, 3125, 12_500, 200_000]
    assert [look.samples for look in look_schedule(50_000, 0.05, 0)] == [782, 3125, 50_000]
    ci = look_schedule(50_000, 0.05, 0)
    assert [round(look.alpha, 10) for look in ci] == [0.00625, 0.00625, 0.0375]


def test_look_configuration_scales_the_pilot_and_explicit_sizes_only():
    cfg = SMALL.merged({"sequential": True, "search_samples": 4_000, "time_budget": 30.0})
    looks = look_schedule(cfg.samples, cfg.alpha, cfg.seed)
    first, last = looks[0], looks[-1]
    small = look_config(cfg, first)
    assert (small.samples, small.sequential, small.time_budget) == (first.samples, False, None)
    assert small.confidence == 1.0 - first.alpha and small.seed == first.seed
    assert small.search_samples == 250 and small.pilot_samples == 50
    big = look_config(cfg, last)
    assert (big.samples, big.search_samples, big.pilot_samples) == (8_000, 4_000, 500)
    assert big.pair_budget == cfg.pair_budget and big.claim_budget == cfg.claim_budget


def test_sequential_is_a_strict_boolean():
    with pytest.raises(InvalidParameterError, match="AuditConfig.sequential = 'yes'"):
        AuditConfig(sequential="yes")
    with pytest.raises(InvalidParameterError, match="sequential"):
        AuditConfig(sequential=1)


# -- the stopping rule ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def leaky_report() -> AuditReport:
    return audit(_black_box(20.0), config=SMALL, sequential=True)


def test_a_gross_violation_stops_at_the_first_look(leaky_report):
    record = leaky_report.sequential
    assert leaky_report.violated
    assert record.stopping_reason == "violation"
    assert len(record.looks) == 1 and record.samples_drawn == record.schedule[0].samples
    assert leaky_report.samples == record.schedule[0].samples
    assert leaky_report.epsilon_lower_bound > 1.0


def test_the_report_is_the_whole_audit_and_round_trips(leaky_report):
    assert leaky_report.config.sequential and leaky_report.config.samples == SMALL.samples
    assert (leaky_report.seed, leaky_report.confidence) == (SMALL.seed, SMALL.confidence)
    assert "sequential     : 1 of 2 looks" in leaky_report.summary()
    again = AuditReport.model_validate(json.loads(leaky_report.model_dump_json()))
    assert again == leaky_report


def test_a_correct_mechanism_runs_every_look_and_reruns_from_the_seed():
    mechanism = LaplaceMechanism(1.0, 1.0)
    report = audit(mechanism, config=SMALL, sequential=True)
    record = report.sequential
    assert not report.violated
    assert record.stopping_reason == "sample budget"
    assert [look.samples for look in record.looks] == [look.samples for look in record.schedule]
    assert record.samples_drawn == sum(look.samples for look in record.schedule)
    assert report.samples == SMALL.samples
    rerun = audit(mechanism, config=report.config)
    keep = {"runtime_seconds", "sequential"}
    assert rerun.model_dump(exclude=keep) == report.model_dump(exclude=keep)
    assert [look.verdict for look in rerun.sequential.looks] == [
        look.verdict for look in record.looks
    ]


def test_the_last_look_is_the_fixed_size_audit_at_its_share_of_alpha():
    mechanism = LaplaceMechanism(1.0, 1.0)
    report = audit(mechanism, config=SMALL, sequential=True)
    last = report.sequential.schedule[-1]
    alone = audit(mechanism, config=SMALL.merged({"confidence": 1.0 - last.alpha}))
    assert alone.epsilon_lower_bound == report.epsilon_lower_bound
    assert alone.checks == report.checks
    assert alone.worst_event == report.worst_event


def test_a_time_budget_stops_before_a_look_that_would_not_fit():
    ticks = iter(range(0, 10**6, 10))  # every reading of the clock: 10 s later
    report = audit(
        LaplaceMechanism(1.0, 1.0),
        config=SMALL,
        sequential=True,
        time_budget=25.0,
        clock=lambda: float(next(ticks)),
    )
    record = report.sequential
    assert record.stopping_reason == "time budget"
    assert len(record.looks) == 1 < len(record.schedule)
    assert report.config.time_budget == 25.0


def test_progress_names_the_looks():
    said: list[str] = []
    audit(_black_box(20.0), config=SMALL, sequential=True, progress=said.append)
    assert said[0].startswith("look 1/2: ")
    assert said[-1].startswith("sequential: 1 of 2 looks")


def test_certificates_refuse_sequential_audits():
    cfg = CERTIFICATE_STRENGTH.merged({"sequential": True})
    assert below_certificate_minimums(cfg) == (
        "sequential = True (a certificate records one audit of fixed size)",
    )
    from privaudit.trust.certificates import certify

    with pytest.raises(CertificateError, match="sequential"):
        certify(LaplaceMechanism(1.0, 1.0), config=cfg)


# -- error control under optional stopping (docs/derivations.md §12) -------------------------
def _event_rejection(n: int, p_x: float, p_y: float, epsilon: float, alpha: float) -> float:
    """Exact P(ln(cp_lower(K_x, n, α/2) / cp_upper(K_y, n, α/2)) > ε) for independent
    K_x ~ Bin(n, p_x), K_y ~ Bin(n, p_y): the one-event ε bound of the pair test."""
    k = np.arange(n + 1)
    lower = np.asarray(cp_lower(k, n, alpha / 2))
    upper = np.asarray(cp_upper(k, n, alpha / 2))  # increasing in k
    # reject iff upper[k_y] < lower[k_x] e^{-ε}: k_y below a threshold for each k_x
    limit = np.searchsorted(upper, lower * math.exp(-epsilon), side="left")  # count of k_y
    p_y_below = np.where(limit > 0, stats.binom.cdf(limit - 1, n, p_y), 0.0)
    return float(np.sum(stats.binom.pmf(k, n, p_x) * p_y_below))


@given(
    epsilon=st.floats(0.05, 2.0),
    p_y=st.floats(0.01, 0.3),
    samples=st.integers(2_000, 40_000),
    alpha=st.sampled_from([0.01, 0.05, 0.1]),
)
@settings(max_examples=25, deadline=None)
def test_sequential_looks_never_exceed_alpha_at_the_claims_boundary(epsilon, p_y, samples, alpha):
    """On an event with p_x = e^ε p_y (the claim exactly tight), whatever look stops the
    audit, P(any look rejects) = 1 − Π(1 − rⱼ) ≤ Σ rⱼ ≤ Σ αⱼ ≤ α, computed exactly."""
    p_x = min(1.0, math.exp(epsilon) * p_y)
    looks = look_schedule(samples, alpha, 0)
    rejections = [_event_rejection(look.samples, p_x, p_y, epsilon, look.alpha) for look in looks]
    assert all(r <= look.alpha for r, look in zip(rejections, looks, strict=True))
    assert 1.0 - math.prod(1.0 - r for r in rejections) <= alpha


def _peeking_rejection(p: float, step: int, looks: int, alpha: float) -> float:
    """Exact P(some look j rejects "P(S) ≤ p") when the one-sided CP lower bound at level α
    is read on the cumulative count after every ``step`` outputs (a fixed-size test peeked
    at ``looks`` times), at the boundary P(S) = p: forward recursion over the count."""
    mass = np.zeros(step * looks + 1)
    mass[0] = 1.0
    increment = stats.binom.pmf(np.arange(step + 1), step, p)
    rejected = 0.0
    for j in range(1, looks + 1):
        mass = np.convolve(mass, increment)[: step * looks + 1]
        n = j * step
        counts = np.arange(n + 1)
        reject = np.asarray(cp_lower(counts, n, alpha)) > p  # one-sided, level α
        rejected += float(mass[: n + 1][reject].sum())
        mass[: n + 1][reject] = 0.0
    return rejected


def test_a_fixed_size_test_read_at_every_look_exceeds_alpha_and_the_schedule_does_not():
    """Peeking is not free: the one-sided exact test of an event's probability, read at
    level α = 0.05 after every 100 of 10,000 outputs, rejects a true claim with probability
    well above α; the same test at privaudit's schedule (fresh draws, αⱼ) stays below α."""
    alpha, p = 0.05, 0.2
    peeked = _peeking_rejection(p, step=100, looks=100, alpha=alpha)
    assert peeked > 2 * alpha
    looks = look_schedule(10_000, alpha, 0)
    per_look = []
    for look in looks:
        counts = np.arange(look.samples + 1)
        reject = np.asarray(cp_lower(counts, look.samples, look.alpha)) > p
        per_look.append(float(stats.binom.pmf(counts[reject], look.samples, p).sum()))
    assert 1.0 - math.prod(1.0 - r for r in per_look) <= alpha


def test_the_html_report_shows_the_looks(leaky_report):
    from privaudit.interfaces.html_report import render_html_report

    page = render_html_report(leaky_report, figures="builtin")
    assert 'id="sequential"' in page and "Sequential audit" in page
    assert "stopped: violation" in page
    assert page.count('<tr><td class="num">') >= len(leaky_report.sequential.looks)
