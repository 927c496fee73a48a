"""Replay adapters (privaudit.auditing.replay.adapters): OpenDP's measurements and
diffprivlib's mechanisms through the recorder.  For each library: a correct pipeline passes
with the library's own claim, a primitive calibrated on the data is caught at the
pipeline's line, a recording replays exactly, and what is not additive is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.auditing.replay.adapters import diffprivlib_mechanism, opendp_measurement
from privaudit.auditing.replay.driver import replay
from privaudit.auditing.replay.recorder import NoiseRecorder
from privaudit.mechanisms.accounting import PLDAccountant
from privaudit.spec import (
    AddRemoveOne,
    ApproxDP,
    DatasetDomain,
    PureDP,
    RealInterval,
    SubstituteOne,
    ZeroConcentratedDP,
)
from privaudit.spec.errors import (
    InputShapeError,
    InvalidParameterError,
    OutOfDomainError,
    UnsupportedCombinationError,
)

N = 8
FIXED = DatasetDomain(record=RealInterval(lo=0, hi=1), size=N)
VARIABLE = DatasetDomain(record=RealInterval(lo=0, hi=1))
X = np.linspace(0.1, 0.9, N)
FILE = "test_replay_adapters.py:"


@pytest.fixture(scope="module")
def dp():
    """OpenDP with its contrib features on: the user enables them, the adapter never does."""
    prelude = pytest.importorskip("opendp.prelude")
    prelude.enable_features("contrib")
    return prelude


@pytest.fixture(scope="module")
def dpl():
    """diffprivlib's mechanisms (the test extra caps scikit-learn below 1.9, which
    diffprivlib 0.6.6 needs to import)."""
    return pytest.importorskip("diffprivlib.mechanisms")


def _line_of(function, text):
    """The line of ``function``'s source holding ``text`` (a call site)."""
    import inspect

    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _first(report, check, *needles):
    assert report.violated, report.statement
    first = report.first
    assert first.check == check, report.statement
    for needle in needles:
        assert needle in first.message, first.message
    return first


# -- OpenDP ------------------------------------------------------------------------------
def _float_space(dp, vector=False, metric="absolute"):
    atom = dp.atom_domain(T=float, nan=False)
    if not vector:
        return atom, dp.absolute_distance(T=float)
    distance = dp.l1_distance(T=float) if metric == "l1" else dp.l2_distance(T=float)
    return dp.vector_domain(atom), distance


def test_opendp_pure_pipeline_passes_with_opendp_claim(dp):
    total = dp.m.make_laplace(*_float_space(dp), scale=2.0)
    bins = dp.m.make_laplace(*_float_space(dp, vector=True, metric="l1"), scale=4.0)

    def released(x, noise):
        s = opendp_measurement(noise, total, float(np.clip(x, 0, 1).sum()), d_in=1.0)
        counts = np.array([(x < 0.5).sum(), (x >= 0.5).sum()], dtype=float)
        return s, opendp_measurement(noise, bins, counts, d_in=2.0)

    report = replay(released, X, domain=FIXED, relation=SubstituteOne())
    assert not report.violated, report.statement
    assert [c.kind for c in report.calls] == ["opendp.make_laplace"] * 2
    assert [c.norm for c in report.calls] == ["l1", "l1"]
    assert report.calls[1].parameters == {"scale": 4.0, "epsilon": 0.5}
    assert (report.epsilon, report.delta) == (total.map(1.0) + bins.map(2.0), 0.0)
    assert report.calls[0].site.endswith(FILE + str(_line_of(released, "s = opendp")))


def test_opendp_gaussian_and_fixed_delta_claims_are_opendps(dp):
    gauss = dp.m.make_gaussian(*_float_space(dp, vector=True, metric="l2"), scale=3.0)

    def moments(x, noise):
        return opendp_measurement(noise, gauss, [x.sum(), (x**2).sum()], d_in=math.sqrt(2))

    rho = gauss.map(math.sqrt(2))
    report = replay(moments, X, domain=FIXED, relation=SubstituteOne())
    assert not report.violated, report.statement
    assert report.calls[0].guarantee == repr(ZeroConcentratedDP(rho=rho))
    expected = PLDAccountant().compose(ZeroConcentratedDP(rho=rho)).epsilon(1e-6)
    assert report.epsilon == pytest.approx(expected)

    fixed = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss), 1e-6)
    eps, delta = fixed.map(math.sqrt(2))

    def approx(x, noise):
        return opendp_measurement(noise, fixed, [x.sum(), (x**2).sum()], d_in=math.sqrt(2))

    report = replay(approx, X, domain=FIXED, relation=SubstituteOne(), delta=delta)
    assert not report.violated, report.statement
    assert report.calls[0].guarantee == repr(ApproxDP(epsilon=eps, delta=delta))
    assert report.epsilon == pytest.approx(eps, rel=1e-6)


def test_opendp_integer_count_is_released_as_an_integer(dp):
    count = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)

    def size(x, noise):
        return opendp_measurement(noise, count, len(x), d_in=1)

    report = replay(size, X, domain=VARIABLE, relation=AddRemoveOne())
    assert not report.violated and report.epsilon == 1.0
    assert isinstance(size(X, NoiseRecorder(0)), int)


def test_opendp_scale_or_sensitivity_from_the_data_is_caught(dp):
    def scale_from_max(x, noise):
        m = dp.m.make_laplace(*_float_space(dp), scale=float(x.max()))
        return opendp_measurement(noise, m, float(x.sum()), d_in=1.0)

    first = _first(
        replay(scale_from_max, X, domain=FIXED, relation=SubstituteOne()), "parameters", "scale"
    )
    assert first.site.endswith(FILE + str(_line_of(scale_from_max, "return opendp")))

    def mean_by_n(x, noise):
        m = dp.m.make_laplace(*_float_space(dp), scale=1.0)
        return opendp_measurement(noise, m, float(x.mean()), d_in=1.0 / len(x))

    _first(replay(mean_by_n, X, domain=VARIABLE, relation=AddRemoveOne()), "parameters")

    def doubled(x, noise):
        m = dp.m.make_laplace(*_float_space(dp), scale=1.0)
        return opendp_measurement(noise, m, 2 * float(x.sum()), d_in=1.0)

    first = _first(replay(doubled, X, domain=FIXED, relation=SubstituteOne()), "sensitivity")
    assert first.declared == 1.0 and first.measured > 1.0
    assert first.site.endswith(FILE + str(_line_of(doubled, "return opendp")))


def test_opendp_recording_replays_exactly(dp):
    gauss = dp.m.make_gaussian(*_float_space(dp, vector=True, metric="l2"), scale=1.0)
    record = NoiseRecorder(0)
    out = opendp_measurement(record, gauss, [1.0, 2.0], d_in=1.0)
    (call,) = record.calls
    assert np.array_equal(call.output, out) and call.value.tolist() == [1.0, 2.0]
    again = record.replaying("replay")
    moved = opendp_measurement(again, gauss, [1.5, 2.0], d_in=1.0)
    assert np.array_equal(moved, np.array([1.5, 2.0]) + call.noise)  # OpenDP not called
    frozen = opendp_measurement(record.replaying("frozen"), gauss, [9.0, 9.0], d_in=1.0)
    assert np.array_equal(frozen, out)


def test_opendp_what_is_not_additive_is_refused(dp):
    record = NoiseRecorder(0)
    chained = (
        (
            dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0))),
            dp.symmetric_distance(),
        )
        >> dp.t.then_sum()
        >> dp.m.then_laplace(scale=1.0)
    )
    with pytest.raises(UnsupportedCombinationError, match="make_chain_mt"):
        opendp_measurement(record, chained, [0.5, 0.5], d_in=1)
    with pytest.raises(UnsupportedCombinationError, match="make_randomized_response_bool"):
        opendp_measurement(record, dp.m.make_randomized_response_bool(0.75), True, d_in=1)
    curve = dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(*_float_space(dp), scale=1.0))
    with pytest.raises(UnsupportedCombinationError, match="make_fix_delta"):
        opendp_measurement(record, curve, 1.0, d_in=1.0)
    with pytest.raises(UnsupportedCombinationError, match="Measurement"):
        opendp_measurement(record, object(), 1.0, d_in=1.0)
    scalar = dp.m.make_laplace(*_float_space(dp), scale=1.0)
    with pytest.raises(InputShapeError, match="scalar"):
        opendp_measurement(record, scalar, [1.0, 2.0], d_in=1.0)
    with pytest.raises(InvalidParameterError, match="d_in"):
        opendp_measurement(record, scalar, 1.0, d_in=0.0)
    count = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)
    with pytest.raises(OutOfDomainError, match="whole numbers"):
        opendp_measurement(record, count, 2.5, d_in=1)
    assert record.calls == []

    def unsupported(x, noise):
        return opendp_measurement(noise, chained, list(x), d_in=1)

    with pytest.raises(UnsupportedCombinationError, match="make_chain_mt"):
        replay(unsupported, X, domain=FIXED, relation=SubstituteOne())


# -- diffprivlib -------------------------------------------------------------------------
def test_diffprivlib_pipeline_passes_with_diffprivlibs_claim(dpl):
    lap = dpl.Laplace(epsilon=1.0, sensitivity=1.0, random_state=1)
    gauss = dpl.GaussianAnalytic(epsilon=0.5, delta=1e-6, sensitivity=1.0, random_state=2)

    def released(x, noise):
        total = diffprivlib_mechanism(noise, lap, float(np.clip(x, 0, 1).sum()))
        return total, diffprivlib_mechanism(noise, gauss, np.array([x.sum(), x.max()]))

    report = replay(released, X, domain=FIXED, relation=SubstituteOne(), delta=1e-5)
    assert not report.violated, report.statement
    assert [c.kind for c in report.calls] == ["diffprivlib.Laplace"] + 2 * [
        "diffprivlib.GaussianAnalytic"
    ]
    assert report.calls[0].parameters == {"epsilon": 1.0, "delta": 0.0, "scale": 1.0}
    assert report.calls[1].parameters["scale"] == gauss._scale
    g = ApproxDP(epsilon=0.5, delta=1e-6)
    expected = PLDAccountant().compose(PureDP(epsilon=1.0)).compose(g).compose(g).epsilon(1e-5)
    assert report.epsilon == pytest.approx(expected)
    assert report.calls[2].site.endswith(FILE + str(_line_of(released, "return total")))

    pure = replay(
        lambda x, noise: diffprivlib_mechanism(noise, lap, float(np.clip(x, 0, 1).sum())),
        X,
        domain=FIXED,
        relation=SubstituteOne(),
    )
    assert (pure.epsilon, pure.delta) == (1.0, 0.0)

    geo = dpl.Geometric(epsilon=0.5, sensitivity=1)
    count = replay(
        lambda x, noise: diffprivlib_mechanism(noise, geo, len(x)),
        X,
        domain=VARIABLE,
        relation=AddRemoveOne(),
    )
    assert not count.violated and count.epsilon == 0.5
    assert isinstance(diffprivlib_mechanism(NoiseRecorder(0), geo, 3), int)


def test_diffprivlib_calibrated_on_the_data_is_caught(dpl):
    def sensitivity_from_max(x, noise):
        m = dpl.Laplace(epsilon=1.0, sensitivity=float(x.max()))
        return diffprivlib_mechanism(noise, m, float(x.sum()))

    first = _first(
        replay(sensitivity_from_max, X, domain=FIXED, relation=SubstituteOne()),
        "parameters",
        "sensitivity",
    )
    assert first.site.endswith(FILE + str(_line_of(sensitivity_from_max, "return diffpriv")))

    def epsilon_by_n(x, noise):
        m = dpl.Laplace(epsilon=len(x) / 8, sensitivity=1.0)
        return diffprivlib_mechanism(noise, m, float(x.sum()))

    _first(replay(epsilon_by_n, X, domain=VARIABLE, relation=AddRemoveOne()), "parameters")

    def doubled(x, noise):
        m = dpl.Gaussian(epsilon=1.0, delta=1e-6, sensitivity=1.0)
        return diffprivlib_mechanism(noise, m, 2 * float(x.sum()))

    first = _first(replay(doubled, X, domain=FIXED, relation=SubstituteOne()), "sensitivity")
    assert first.declared == 1.0 and first.measured > 1.0


def test_diffprivlib_recording_replays_exactly(dpl):
    def mech():
        return dpl.Laplace(epsilon=1.0, sensitivity=1.0, random_state=7)

    first, second = NoiseRecorder(0), NoiseRecorder(1)
    a = diffprivlib_mechanism(first, mech(), np.array([1.0, 2.0, 3.0]))
    b = diffprivlib_mechanism(second, mech(), np.array([1.0, 2.0, 3.0]))
    assert np.array_equal(a, b) and len(first.calls) == 3  # diffprivlib's seed decides
    noise = np.array([c.noise for c in first.calls])
    moved = diffprivlib_mechanism(first.replaying("replay"), mech(), np.array([0.0, 2.0, 5.0]))
    assert np.array_equal(moved, np.array([0.0, 2.0, 5.0]) + noise)


def test_diffprivlib_what_is_not_additive_is_refused(dpl):
    record = NoiseRecorder(0)
    refused = [
        (dpl.LaplaceTruncated(epsilon=1, sensitivity=1, lower=0, upper=1), "clamps"),
        (dpl.LaplaceBoundedDomain(epsilon=1, sensitivity=1, lower=0, upper=1), "clamps"),
        (dpl.GeometricFolded(epsilon=1, sensitivity=1, lower=0, upper=4), "folds"),
        (dpl.Uniform(delta=0.1, sensitivity=1), "ε = 0"),
        (dpl.Exponential(epsilon=1, sensitivity=1, utility=[1.0, 2.0]), "does not add"),
        (dpl.Binary(epsilon=1, value0="a", value1="b"), "does not add"),
    ]
    for mechanism, why in refused:
        with pytest.raises(UnsupportedCombinationError, match=type(mechanism).__name__) as err:
            diffprivlib_mechanism(record, mechanism, 0.5)
        assert why in str(err.value)

    class Rounded(dpl.Laplace):
        def randomise(self, value):
            return round(super().randomise(value))

    with pytest.raises(UnsupportedCombinationError, match="Rounded: .*a subclass may"):
        diffprivlib_mechanism(record, Rounded(epsilon=1, sensitivity=1), 0.5)
    with pytest.raises(OutOfDomainError, match="whole numbers"):
        diffprivlib_mechanism(record, dpl.Geometric(epsilon=1, sensitivity=1), 2.5)
    assert record.calls == []
