"""The scalar-sampler adapter (issue 28): a release of one output per call, batched.

Mechanisms are written here, as a user would wrap another library's release; the
floating-point check runs on a user-supplied model of the sampler's float image.
"""

from __future__ import annotations

from importlib import metadata

import numpy as np
import pytest

from privaudit import CI_STRENGTH, audit
from privaudit.auditing.checks import (
    check_float_image,
    float_image_applies,
    float_image_unavailable,
)
from privaudit.auditing.pairs import verified_pair
from privaudit.mechanisms import (
    SamplerCost,
    ScalarSamplerMechanism,
    from_scalar_sampler,
    installed_versions,
)
from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    Gaussian,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    QueryDistance,
    RealInterval,
    VectorDomain,
)
from privaudit.spec.errors import InvalidParameterError


def _spec(name="wrapped_laplace", law=None, guarantee=None):
    return MechanismSpec(
        name=name,
        input_domain=RealInterval(lo=-5.0, hi=5.0),
        relation=QueryDistance(norm="l1", radius=1.0),
        statistic="the value itself",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=law or Laplace(scale=1.0)),
        guarantee=guarantee or PureDP(epsilon=1.0),
    )


def test_scalar_releases_are_stacked_and_seeded_draws_reproduce():
    calls = []

    def release(x, rng):
        calls.append(x)
        return x + rng.laplace(0.0, 1.0)

    mech = from_scalar_sampler(_spec(), release, statistic=float)
    out = mech.sample(0.5, 7, rng=3)
    assert isinstance(mech, ScalarSamplerMechanism)
    assert out.shape == (7,) and out.dtype == np.float64 and len(calls) == 7
    np.testing.assert_array_equal(out, mech.sample(0.5, 7, rng=3))
    assert mech.statistic(0.5) == 0.5 and mech.provides("statistic")
    assert not mech.provides("float_image") and mech.wrapped_distributions == {}


def test_integer_and_vector_releases_keep_their_shape():
    ints = from_scalar_sampler(_spec(), lambda x, rng: int(rng.integers(0, 3)))
    assert ints.sample(0.0, 4, rng=0).dtype.kind == "i"
    vec_spec = MechanismSpec(
        name="wrapped_vector",
        input_domain=VectorDomain(element=RealInterval(), length=2),
        relation=QueryDistance(norm="l1", radius=1.0),
        output_dimension=2,
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)),
        guarantee=PureDP(epsilon=1.0),
    )
    vec = from_scalar_sampler(vec_spec, lambda x, rng: x + rng.laplace(0.0, 1.0, 2))
    assert vec.sample([0.0, 1.0], 5, rng=0).shape == (5, 2)


def test_library_versions_come_from_importlib_metadata():
    mech = from_scalar_sampler(_spec(), lambda x, rng: x, library=("numpy", "pydantic"))
    assert mech.wrapped_distributions == {
        "numpy": metadata.version("numpy"),
        "pydantic": metadata.version("pydantic"),
    }
    with pytest.raises(InvalidParameterError, match="not-a-distribution-28"):
        installed_versions("not-a-distribution-28")
    with pytest.raises(InvalidParameterError, match="release must be callable"):
        from_scalar_sampler(_spec(), None)
    with pytest.raises(InvalidParameterError, match="statistic must be callable"):
        from_scalar_sampler(_spec(), lambda x, rng: x, statistic=3)


def test_cost_per_sample_is_measured_and_stated():
    mech = from_scalar_sampler(_spec(), lambda x, rng: x + rng.laplace(0.0, 1.0))
    cost = mech.cost_per_sample(0.0, calls=200)
    assert isinstance(cost, SamplerCost) and cost.calls == 200
    assert cost.seconds_per_sample > 0
    assert cost.seconds_for(1000) == pytest.approx(1000 * cost.seconds_per_sample)
    assert "µs per sample" in str(cost)


# -- the floating-point check on a user-supplied model ----------------------------------------
G = 2.0**-10


def _pairs(mech, *xy):
    return [verified_pair(mech.spec, x, y, "explicit") for x, y in xy]


def test_a_lattice_library_passes_against_its_own_model():
    """Outputs rounded to the lattice 2⁻¹⁰ℤ whatever f(x) is: no float leaks."""

    def release(x, rng):
        return G * np.round((x + rng.laplace(0.0, 1.0)) / G)

    mech = from_scalar_sampler(
        _spec(),
        release,
        statistic=float,
        float_image=lambda out, c: np.asarray(out) / G == np.round(np.asarray(out) / G),
    )
    assert float_image_applies(mech) and float_image_unavailable(mech) is None
    out = check_float_image(mech, _pairs(mech, (0.0, 0.3)), 0, samples=500, strict=True)
    assert out.status == "passed", out.summary
    assert out.details["model"] == "user-supplied float_image"


def test_a_shifted_lattice_leaks_the_input_under_its_model():
    """Outputs f(x) + 2⁻¹⁰·K: every output of M(0) is impossible under f(y) = 0.3."""

    def release(x, rng):
        return x + G * np.round(rng.laplace(0.0, 1.0) / G)

    def image(out, c):
        steps = (np.asarray(out) - c) / G
        return np.abs(steps - np.round(steps)) < 1e-6

    mech = from_scalar_sampler(_spec(), release, statistic=float, float_image=image)
    loose = check_float_image(mech, _pairs(mech, (0.0, 0.3)), 0, samples=200)
    assert loose.details["leak_found"] and loose.status == "skipped"  # idealized claim
    strict = check_float_image(mech, _pairs(mech, (0.0, 0.3)), 0, samples=200, strict=True)
    assert strict.violated and "user-supplied float_image" in strict.summary
    assert strict.counterexample.values["possible_under_y"] is False


def test_a_model_that_does_not_fit_its_sampler_says_so():
    mech = from_scalar_sampler(
        _spec(),
        lambda x, rng: x + rng.laplace(0.0, 1.0),
        statistic=float,
        float_image=lambda out, c: np.zeros(np.shape(out), dtype=bool),
    )
    out = check_float_image(mech, _pairs(mech, (0.0, 1.0)), 0, samples=50)
    assert out.status == "skipped" and "float_image hook" in out.summary


def test_without_a_model_the_audit_says_why_the_check_cannot_run():
    gauss = _spec(
        "wrapped_gaussian", law=Gaussian(sigma=5.0), guarantee=ApproxDP(epsilon=1.0, delta=1e-5)
    )
    mech = from_scalar_sampler(gauss, lambda x, rng: x + rng.normal(0.0, 5.0), statistic=float)
    reason = float_image_unavailable(mech)
    assert reason is not None and "Gaussian" in reason and "float_image" in reason
    no_stat = from_scalar_sampler(_spec(), lambda x, rng: x + rng.laplace(0.0, 1.0))
    assert "statistic hook" in float_image_unavailable(no_stat)
    report = audit(mech, config=CI_STRENGTH.merged({"samples": 20_000}), seed=1)
    check = report.check("floating_point.image")
    assert check.status == "skipped" and check.summary == reason


def test_the_hook_must_return_one_verdict_per_output():
    mech = from_scalar_sampler(
        _spec(), lambda x, rng: x, statistic=float, float_image=lambda out, c: np.array([True])
    )
    with pytest.raises(InvalidParameterError, match="one boolean per output"):
        mech.float_image(np.zeros(3), 0.0)
