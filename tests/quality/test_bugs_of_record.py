"""Quality tier for the bugs of record (privaudit.suites.bug_catalogue): the statistical
audit refutes every buggy version whose violation reaches its sampled outputs and never
refutes a fixed one.

Each pipeline runs as a ``PipelineMechanism`` against the library's claim, on the entry's
pairs, at :data:`CONFIG` (2·10⁴ outputs per side, confidence 0.95, seed 0): the same
configuration as ``docs/bug_catalogue.md`` (``scripts/bug_catalogue.py``).  A correct
(fixed) version is refuted with probability at most 0.05 per audit and the seed is fixed,
so the outcome is deterministic.  The floating-point entry is refuted by the strict
float-image check (a Laplace claim is declared with idealized numerics, so the audit does
not count the leak); DP-SGD's entry audits the ABLQ mechanisms at 5·10⁴ outputs per
side with the paper's pair (slow tier).  NaN bypassing clipping releases NaN on one side:
the sampled audit stops with ``NonFiniteOutputError`` (no verdict), as the catalogue says.
"""

from __future__ import annotations

import math

import pytest

from privaudit import AuditConfig, audit
from privaudit.auditing.checks import check_float_image
from privaudit.auditing.pairs import verified_pair
from privaudit.auditing.replay.pipeline_mechanism import PipelineMechanism
from privaudit.spec.errors import NonFiniteOutputError
from privaudit.suites.bug_catalogue import bugs_of_record

CONFIG = AuditConfig(
    samples=20_000, pilot_samples=1_000, pair_budget=4, pairs_tested=1, claim_budget=50, seed=0
)
DPSGD_CONFIG = CONFIG.merged({"samples": 50_000})
BUGS = {b.name: b for b in bugs_of_record()}
PIPELINED = [b for b in BUGS.values() if b.mechanism is None and not b.float_image]
#: Bugs whose release is NaN on one side: the sampled audit refuses non-finite outputs
#: (NonFiniteOutputError naming the sampler) and gives no verdict; replay catches them.
NON_FINITE_RELEASES = [b for b in PIPELINED if math.isinf(b.true_epsilon) and "nan" in b.name]
VERDICT = [b for b in PIPELINED if b not in NON_FINITE_RELEASES]


def _mechanism(bug, version):
    spec = bug.audit_spec(version)
    if spec is None:
        return bug.statistical_mechanism(version)
    return PipelineMechanism(bug.pipeline(version), spec, statistic=bug.audit_statistic(version))


def _eps(report) -> float:
    value = report.epsilon_lower_bound
    return math.inf if isinstance(value, str) else float(value)


@pytest.mark.quality
@pytest.mark.parametrize("bug", VERDICT, ids=lambda b: b.name)
def test_the_buggy_pipeline_is_refuted_soundly(bug):
    report = audit(_mechanism(bug, "buggy"), config=CONFIG, pairs=bug.pairs)
    assert report.verdict == "violation", report.summary()
    assert bug.claimed_epsilon < _eps(report) <= bug.true_epsilon


@pytest.mark.quality
@pytest.mark.parametrize("bug", NON_FINITE_RELEASES, ids=lambda b: b.name)
def test_a_nan_release_stops_the_sampled_audit_with_a_named_error(bug):
    with pytest.raises(NonFiniteOutputError, match=f"sampler '{bug.name}'.* are NaN"):
        audit(_mechanism(bug, "buggy"), config=CONFIG, pairs=bug.pairs)


@pytest.mark.quality
@pytest.mark.parametrize("bug", [*PIPELINED, BUGS["bug.float_laplace"]], ids=lambda b: b.name)
def test_the_fixed_pipeline_is_not_refuted(bug):
    report = audit(_mechanism(bug, "fixed"), config=CONFIG, pairs=bug.pairs)
    assert report.verdict != "violation", report.summary()
    assert _eps(report) <= bug.claimed_epsilon


@pytest.mark.quality
def test_unary_encoding_with_the_wrong_q_is_refuted_below_its_true_epsilon():
    bug = BUGS["bug.unary_encoding_wrong_q"]
    report = audit(_mechanism(bug, "buggy"), config=CONFIG, pairs=bug.pairs)
    assert report.violated
    assert 1.2 < _eps(report) <= math.log(math.e + 2.0)


@pytest.mark.quality
def test_float_laplace_leaks_through_its_low_bits_and_the_float_safe_fix_does_not():
    bug = BUGS["bug.float_laplace"]
    for version, expected in (("buggy", "violated"), ("fixed", "passed")):
        mechanism = _mechanism(bug, version)
        pair = verified_pair(mechanism.spec, *bug.pairs[0], "explicit")
        outcome = check_float_image(mechanism, [pair], 0, samples=4_000, strict=True)
        assert outcome.status == expected, outcome.summary
    report = audit(_mechanism(bug, "buggy"), config=CONFIG, pairs=bug.pairs)
    image = next(c for c in report.checks if c.name == "floating_point.image")
    assert image.details["leak_found"] and report.verdict != "violation"


@pytest.mark.slow
@pytest.mark.quality
def test_shuffled_batches_accounted_as_poisson_are_refuted_and_poisson_is_not():
    bug = BUGS["bug.shuffle_accounted_as_poisson"]
    broken = audit(_mechanism(bug, "buggy"), config=DPSGD_CONFIG, pairs=bug.pairs)
    assert broken.violated and _eps(broken) > bug.claimed_epsilon
    control = audit(_mechanism(bug, "fixed"), config=DPSGD_CONFIG, pairs=bug.pairs)
    assert not control.violated
