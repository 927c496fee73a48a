"""The catalogue of bugs of record (privaudit.suites.bug_catalogue) under grey-box replay,
and the pipeline-as-mechanism wrapper (privaudit.auditing.replay.pipeline_mechanism).

Every buggy pipeline that replay is meant to catch fails the check named in its entry, at
its own call site; every fixed pipeline, and every bug replay is not meant to catch, passes
with the composed claim.  All replays are seeded.
"""

from __future__ import annotations

import linecache
import math

import numpy as np
import pytest

from privaudit.auditing.replay.driver import replay
from privaudit.auditing.replay.pipeline_mechanism import PipelineMechanism, flatten_release
from privaudit.spec import (
    AddRemoveOne,
    DatasetDomain,
    MechanismSpec,
    PureDP,
    RealInterval,
    Reference,
    SubstituteOne,
)
from privaudit.spec.errors import (
    AuditError,
    InvalidInputError,
    InvalidParameterError,
    NotNeighboursError,
)
from privaudit.suites.bug_catalogue import BugOfRecord, bugs_of_record

BUGS = bugs_of_record()
IDS = [b.name for b in BUGS]


def _replay(bug: BugOfRecord, version: str):
    return replay(
        bug.pipeline(version),
        bug.data,
        domain=bug.domain,
        relation=bug.relation,
        neighbours=bug.neighbours,
        rng=0,
    )


# -- the catalogue ---------------------------------------------------------------------
def test_the_catalogue_covers_the_reported_bugs_once_each():
    names = [b.name for b in BUGS]
    assert len(names) == len(set(names))
    caught = {b.name for b in BUGS if b.replay_catches}
    assert caught >= {
        "bug.category_domain_from_data",
        "bug.private_size_in_noise_scale",
        "bug.unclipped_covariance_cross_term",
        "bug.sensitivity_from_one_bound",
        "bug.partition_selection_without_threshold",
    }
    assert set(names) - caught >= {
        "bug.unary_encoding_wrong_q",
        "bug.float_laplace",
        "bug.shuffle_accounted_as_poisson",
    }
    for bug in BUGS:
        assert isinstance(bug.source, Reference) and bug.source.url.startswith("https://")
        assert bug.claim and bug.library and bug.pairs
        assert bug.true_epsilon > bug.claimed_epsilon
        if math.isinf(bug.true_epsilon):
            assert "true eps = inf" in bug.notes
    one_bound = next(b for b in BUGS if b.name == "bug.sensitivity_from_one_bound")
    assert "issues/105" in one_bound.source.url and "#104" in one_bound.notes


def test_the_derived_true_epsilons():
    by_name = {b.name: b for b in BUGS}
    ue = by_name["bug.unary_encoding_wrong_q"]
    assert ue.true_epsilon == pytest.approx(math.log(math.e + 2.0), rel=1e-12)
    assert by_name["bug.unclipped_covariance_cross_term"].true_epsilon == 34.0
    assert by_name["bug.sensitivity_from_one_bound"].true_epsilon == 8.5
    dpsgd = by_name["bug.shuffle_accounted_as_poisson"]
    assert not dpsgd.true_epsilon_exact and dpsgd.true_epsilon > 3 * dpsgd.claimed_epsilon


def test_a_malformed_entry_is_refused():
    bug = BUGS[0]
    fields = {f: getattr(bug, f) for f in bug.__dataclass_fields__}
    with pytest.raises(InvalidParameterError, match="replay_check"):
        BugOfRecord(**{**fields, "replay_check": None})
    with pytest.raises(InvalidParameterError, match="exactly one"):
        BugOfRecord(**{**fields, "mechanism": lambda version: None})
    with pytest.raises(NotNeighboursError):
        BugOfRecord(**{**fields, "pairs": ((bug.data, np.r_[bug.data, 3, 3]),)})


# -- replay --------------------------------------------------------------------------------
@pytest.mark.parametrize("bug", [b for b in BUGS if b.replay_catches], ids=lambda b: b.name)
def test_replay_catches_the_buggy_pipeline_at_its_call_site(bug):
    report = _replay(bug, "buggy")
    assert report.violated, report.statement
    first = report.first
    assert first.check == bug.replay_check, report.statement
    path, _, line = first.site.rpartition(":")
    assert path == bug.buggy.__code__.co_filename  # the pipeline's own file
    assert "noise.laplace(" in linecache.getline(path, int(line))  # the primitive's call
    if first.check == "sensitivity" and first.measured is not None:
        assert first.measured > first.declared


@pytest.mark.parametrize("bug", BUGS, ids=IDS)
def test_the_fixed_pipeline_passes_replay_with_its_composed_claim(bug):
    report = _replay(bug, "fixed")
    assert not report.violated, report.statement
    assert report.epsilon is not None and report.neighbours > 0


@pytest.mark.parametrize("bug", [b for b in BUGS if not b.replay_catches], ids=lambda b: b.name)
def test_replay_does_not_see_bugs_inside_primitives_or_accounting(bug):
    report = _replay(bug, "buggy")
    assert not report.violated, report.statement


def test_nan_through_the_clipping_is_caught_only_where_the_domain_admits_it():
    (bug,) = [b for b in BUGS if b.name == "bug.nan_bypasses_clipping"]
    first = _replay(bug, "buggy").first
    assert first.measured is None and "is not finite" in first.message
    assert "nan" in first.y
    refusing = bug.domain.model_copy(
        update={"record": bug.domain.record.model_copy(update={"admits": ()})}
    )
    assert not replay(bug.buggy, bug.data, domain=refusing, relation=bug.relation).violated


def test_the_shuffled_epoch_is_certified_only_at_its_no_amplification_bound():
    bug = next(b for b in BUGS if b.name == "bug.shuffle_accounted_as_poisson")
    report = _replay(bug, "buggy")
    assert report.epsilon > 5 * bug.claimed_epsilon


def test_the_counterexamples_read_as_the_bug():
    by_name = {b.name: b for b in BUGS}
    cov = _replay(by_name["bug.unclipped_covariance_cross_term"], "buggy").first
    assert cov.declared == 3.0 and cov.measured == pytest.approx(102.0)
    size = _replay(by_name["bug.private_size_in_noise_scale"], "buggy").first
    assert "scale" in size.message and "sensitivity" in size.message
    classes = _replay(by_name["bug.category_domain_from_data"], "buggy").first
    assert "shape" in classes.message
    keys = _replay(by_name["bug.partition_selection_without_threshold"], "buggy").first
    assert "skipped" in keys.message


# -- the pipeline as a mechanism ---------------------------------------------------------
DOMAIN = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=3)


def _spec(dimension: int) -> MechanismSpec:
    return MechanismSpec(
        name="test.pipeline",
        input_domain=DOMAIN,
        relation=SubstituteOne(),
        output_dimension=dimension,
        guarantee=PureDP(epsilon=1.0),
    )


def _sum(x, noise):
    return noise.laplace(x.sum(), sensitivity=1.0, epsilon=1.0)


def _pair(x, noise):
    return noise.laplace(x.sum(), sensitivity=1.0, epsilon=1.0), noise.laplace(
        np.array([x.max()]), sensitivity=1.0, epsilon=1.0
    )


def test_samples_have_the_declared_shape_and_are_reproducible():
    x = np.array([0.2, 0.5, 0.9])
    scalar = PipelineMechanism(_sum, _spec(1))
    a, b = scalar.sample(x, 500, rng=7), scalar.sample(x, 500, rng=7)
    assert a.shape == (500,) and a.dtype == np.float64 and np.array_equal(a, b)
    assert not np.array_equal(a, scalar.sample(x, 500, rng=8))
    assert abs(np.median(a) - 1.6) < 0.2 and np.unique(a).size == 500
    vector = PipelineMechanism(_pair, _spec(2)).sample(x, 50, rng=np.random.default_rng(1))
    assert vector.shape == (50, 2)


def test_samples_follow_the_pipeline_law():
    out = PipelineMechanism(_sum, _spec(1)).sample(np.zeros(3), 20_000, rng=3)
    assert np.mean(np.abs(out)) == pytest.approx(1.0, abs=0.03)  # E|Lap(1)| = 1


def test_the_statistic_hook_is_provided_only_when_given():
    plain = PipelineMechanism(_sum, _spec(1))
    assert not plain.provides("statistic") and not plain.provides("output_probabilities")
    with pytest.raises(NotImplementedError):
        plain.statistic(np.zeros(3))
    hooked = PipelineMechanism(_sum, _spec(1), statistic=lambda x: float(x.sum()))
    assert hooked.provides("statistic") and hooked.statistic([0.5, 0.25, 0.0]) == 0.75
    with pytest.raises(InvalidParameterError):
        hooked.provides("no_such_hook")
    assert not hooked.provides("pipeline")
    exposed = PipelineMechanism(_sum, _spec(1), expose_pipeline=True)
    assert exposed.provides("pipeline") and exposed.function is _sum
    report = replay(exposed.pipeline, np.zeros(3), domain=DOMAIN, relation=SubstituteOne())
    assert not report.violated and report.epsilon == 1.0


def test_bad_pipelines_and_inputs_are_clear_errors():
    with pytest.raises(InvalidParameterError):
        PipelineMechanism("not callable", _spec(1))
    with pytest.raises(AuditError, match="output_dimension"):
        PipelineMechanism(_pair, _spec(1)).sample(np.zeros(3), 2, rng=0)
    with pytest.raises(InvalidInputError):
        PipelineMechanism(_sum, _spec(1)).sample(np.array([0.0, 2.0, 0.0]), 2, rng=0)
    with pytest.raises(AuditError, match="numbers"):
        flatten_release({"a": 1.0})
    assert flatten_release((1.0, np.array([[2.0, 3.0]]))).tolist() == [1.0, 2.0, 3.0]


def test_catalogue_pipelines_run_as_mechanisms():
    for bug in BUGS:
        for version in ("buggy", "fixed"):
            spec = bug.audit_spec(version)
            if spec is None:
                mech = bug.statistical_mechanism(version)
            else:
                mech = PipelineMechanism(bug.pipeline(version), spec)
            x, _ = bug.pairs[0]
            out = mech.sample(x, 4, rng=0)
            assert out.shape[0] == 4 and np.all(np.isfinite(out))


def test_add_remove_spec_accepts_variable_sizes():
    spec = MechanismSpec(
        name="test.mean",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0)),
        relation=AddRemoveOne(),
        guarantee=PureDP(epsilon=1.0),
    )
    mech = PipelineMechanism(_sum, spec)
    assert mech.sample([0.5], 3, rng=0).shape == mech.sample([0.5, 0.5], 3, rng=0).shape
