"""Built-in mechanisms: calibration, batched sampling, specs, refusals, smooth bounds.

Distributional checks of the outputs live in ``tests/statistical/test_mechanism_outputs.py``.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import privaudit.mechanisms.smooth_median as smooth_median_module
from privaudit.mechanisms import (
    QUARTIC_CONSTANT,
    AdditiveNoiseMechanism,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponseMechanism,
    ReportNoisyMax,
    SmoothSensitivityMechanism,
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
    discrete_gaussian_sigma,
    discrete_laplace_scale,
    laplace_scale,
    median_smooth_sensitivity,
    smooth_inverse_quartic_mechanism,
    smooth_laplace_mechanism,
    smooth_median_mechanism,
    zcdp_discrete_gaussian_sigma,
)
from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    DatasetDomain,
    DiscreteGaussian,
    DiscreteLaplace,
    Exponential,
    Gaussian,
    GlobalSensitivity,
    Gumbel,
    InconsistentSpecError,
    InvalidInputError,
    InvalidParameterError,
    InverseQuartic,
    Laplace,
    MechanismSpec,
    PrivauditError,
    PureDP,
    RealInterval,
    SubstituteOne,
    UnsupportedCombinationError,
    ZeroConcentratedDP,
)

DATA = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=5)


def built_in_mechanisms() -> dict[str, Mechanism]:
    """One instance of every built-in mechanism, with an input it accepts."""
    return {
        "laplace": LaplaceMechanism(1.0, 1.0),
        "laplace_vector": LaplaceMechanism(0.5, 2.0, output_dimension=3),
        "gaussian": GaussianMechanism(1.0, 1e-5, 1.0),
        "gaussian_classical": GaussianMechanism(
            0.5, 1e-5, 1.0, calibration="classical", output_dimension=2
        ),
        "discrete_laplace": DiscreteLaplaceMechanism(1.0, 2),
        "discrete_laplace_exact": DiscreteLaplaceMechanism(1.0, 1, numerics="exact"),
        "discrete_gaussian": DiscreteGaussianMechanism(1.0, 1e-5, 1),
        "discrete_gaussian_vector": DiscreteGaussianMechanism(1.0, 1e-5, 1, output_dimension=2),
        "discrete_gaussian_zcdp": DiscreteGaussianMechanism(
            sensitivity=1, rho=0.5, numerics="exact"
        ),
        "rr_binary": RandomizedResponseMechanism(1.0),
        "rr_kary": RandomizedResponseMechanism(2.0, categories=5),
        "exponential": ExponentialMechanism(1.0, 1.0, 4),
        "rnm_laplace": ReportNoisyMax(1.0, 1.0, 4),
        "rnm_exponential": ReportNoisyMax(1.0, 1.0, 4, noise="exponential", monotone=True),
        "smooth_median_laplace": smooth_median_mechanism(5, 0.0, 1.0, 1.0, 1e-6),
        "smooth_median_quartic": smooth_median_mechanism(5, 0.0, 1.0, 1.0),
    }


INPUTS = {
    "laplace": 3.0,
    "laplace_vector": [1.0, 2.0, 3.0],
    "gaussian": -1.5,
    "gaussian_classical": [0.0, 1.0],
    "discrete_laplace": 7,
    "discrete_laplace_exact": -2,
    "discrete_gaussian": 0,
    "discrete_gaussian_vector": [1, 2],
    "discrete_gaussian_zcdp": 4,
    "rr_binary": 1,
    "rr_kary": 3,
    "exponential": [0.0, 1.0, 5.0, 2.0],
    "rnm_laplace": [0.0, 1.0, 5.0, 2.0],
    "rnm_exponential": [3.0, 1.0, 0.0, 2.0],
    "smooth_median_laplace": [0.1, 0.9, 0.4, 0.5, 0.6],
    "smooth_median_quartic": [0.1, 0.9, 0.4, 0.5, 0.6],
}
EXPECTED = {  # (shape after `size`, dtype kind)
    "laplace": ((), "f"),
    "laplace_vector": ((3,), "f"),
    "gaussian": ((), "f"),
    "gaussian_classical": ((2,), "f"),
    "discrete_laplace": ((), "i"),
    "discrete_laplace_exact": ((), "i"),
    "discrete_gaussian": ((), "i"),
    "discrete_gaussian_vector": ((2,), "i"),
    "discrete_gaussian_zcdp": ((), "i"),
    "rr_binary": ((), "i"),
    "rr_kary": ((), "i"),
    "exponential": ((), "i"),
    "rnm_laplace": ((), "i"),
    "rnm_exponential": ((), "i"),
    "smooth_median_laplace": ((), "f"),
    "smooth_median_quartic": ((), "f"),
}
MECHS = built_in_mechanisms()
NAMES = sorted(MECHS)


# ---- batched sampling ---------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_batched_sample_shape_and_dtype(name):
    mech = MECHS[name]
    size = 7 if name.endswith(("exact", "zcdp")) else 1000
    out = mech.sample(INPUTS[name], size=size, rng=1)
    shape, kind = EXPECTED[name]
    assert out.shape == (size, *shape)
    assert out.dtype.kind == kind
    assert out.dtype.itemsize == 8
    assert np.all(np.isfinite(out))


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_outputs(name):
    mech, x = MECHS[name], INPUTS[name]
    a = mech.sample(x, size=50, rng=123)
    b = mech.sample(x, size=50, rng=np.random.default_rng(123))
    np.testing.assert_array_equal(a, b)
    c = mech.sample(x, size=50, rng=124)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("name", NAMES)
def test_release_is_one_scalar_or_vector(name):
    mech, x = MECHS[name], INPUTS[name]
    out = mech.release(x, rng=5)
    shape, kind = EXPECTED[name]
    if shape == ():
        assert isinstance(out, (int, float)) and not isinstance(out, bool)
        assert isinstance(out, int) == (kind == "i")
    else:
        assert isinstance(out, np.ndarray) and out.shape == shape
    np.testing.assert_array_equal(out, mech.sample(x, 1, rng=5)[0])


def test_rng_is_only_the_injected_generator():
    mech = LaplaceMechanism(1.0, 1.0)
    gen = np.random.default_rng(9)
    first = mech.sample(0.0, 10, rng=gen)
    second = mech.sample(0.0, 10, rng=gen)  # the caller's stream advances
    assert not np.array_equal(first, second)
    expected = np.random.default_rng(9).laplace(0.0, 1.0, 20)
    np.testing.assert_allclose(np.concatenate([first, second]), expected)


@pytest.mark.parametrize("size", [0, -1, 1.5, True, "3"])
def test_bad_sample_size_is_refused(size):
    with pytest.raises(InvalidParameterError, match="size"):
        MECHS["laplace"].sample(0.0, size)


# ---- the law used is the spec's law ---------------------------------------------------------
def test_laws_come_from_the_spec_and_match_the_calibration():
    assert MECHS["laplace"].noise_law == Laplace(scale=laplace_scale(1.0, 1.0))
    assert MECHS["laplace_vector"].spec.noise.law.scale == pytest.approx(4.0)
    g = MECHS["gaussian"]
    assert g.spec.noise.law == Gaussian(sigma=analytic_gaussian_sigma(1.0, 1e-5, 1.0))
    assert g.spec.noise.calibration == "analytic"
    gc = MECHS["gaussian_classical"]
    assert gc.spec.noise.law.sigma == classical_gaussian_sigma(0.5, 1e-5, 1.0)
    assert gc.spec.noise.calibration == "classical"
    assert MECHS["discrete_laplace"].noise_law == DiscreteLaplace(
        scale=discrete_laplace_scale(1.0, 2)
    )
    assert MECHS["discrete_gaussian"].noise_law == DiscreteGaussian(
        sigma=discrete_gaussian_sigma(1.0, 1e-5, 1)
    )
    assert MECHS["discrete_gaussian_zcdp"].noise_law.sigma == zcdp_discrete_gaussian_sigma(0.5, 1)
    assert MECHS["exponential"].noise_law == Gumbel(scale=2.0)
    assert MECHS["rnm_laplace"].noise_law == Laplace(scale=2.0)
    assert MECHS["rnm_exponential"].noise_law == Exponential(scale=1.0)
    assert ExponentialMechanism(1.0, 1.0, 3, monotone=True).noise_law == Gumbel(scale=1.0)
    assert MECHS["smooth_median_quartic"].noise_law == InverseQuartic(scale=1.0)
    assert MECHS["smooth_median_laplace"].noise_law == Laplace(scale=1.0)


def test_additive_mechanism_samples_from_the_spec_law(monkeypatch):
    """Replacing the law's sampler changes the outputs: the code reads the spec's law."""
    mech = LaplaceMechanism(1.0, 1.0)
    calls = []

    def fake(self, rng, size):
        calls.append(size)
        return np.zeros(size)

    monkeypatch.setattr(Laplace, "sample", fake)
    np.testing.assert_array_equal(mech.sample(2.5, 4, rng=0), np.full(4, 2.5))
    assert calls == [(4,)]


def test_guarantees_and_properties():
    assert MECHS["laplace"].spec.guarantee == PureDP(epsilon=1.0)
    assert (MECHS["laplace"].epsilon, MECHS["laplace"].delta) == (1.0, 0.0)
    g = MECHS["gaussian"]
    assert g.spec.guarantee == ApproxDP(epsilon=1.0, delta=1e-5)
    assert (g.epsilon, g.delta) == (1.0, 1e-5)
    z = MECHS["discrete_gaussian_zcdp"]
    assert z.spec.guarantee == ZeroConcentratedDP(rho=0.5) and z.rho == 0.5 and z.epsilon is None
    assert MECHS["discrete_gaussian_zcdp"].spec.numerics == "exact"
    assert MECHS["discrete_laplace"].spec.numerics == "idealized"
    rr = MECHS["rr_kary"]
    assert rr.spec.guarantee == PureDP(epsilon=2.0) and rr.categories == 5
    assert 2.0 * (1 - 1e-4) <= rr.law.epsilon <= 2.0  # p on the stable grid, rounded down
    sm = MECHS["smooth_median_laplace"]  # β on the stable grid, rounded down
    assert sm.alpha == 0.5 and sm.beta == pytest.approx(1.0 / (2 * math.log(2e6)), rel=1.1e-5)
    assert sm.beta <= 1.0 / (2 * math.log(2e6))
    sq = MECHS["smooth_median_quartic"]
    assert sq.alpha == sq.beta == pytest.approx(1.0 / QUARTIC_CONSTANT, rel=1.1e-5)
    assert sq.beta <= 1.0 / QUARTIC_CONSTANT and sq.delta == 0.0


def test_every_built_in_spec_cites_its_sources():
    for name, mech in MECHS.items():
        assert mech.spec.references, name

    def cites(m):
        return " ".join(r.citation for r in m.spec.references)

    assert "Dwork, McSherry, Nissim & Smith" in cites(MECHS["laplace"])
    assert "Balle & Wang" in cites(MECHS["gaussian"])
    assert "Canonne, Kamath & Steinke" in cites(MECHS["discrete_gaussian"])
    assert "Warner" in cites(MECHS["rr_binary"]) and "Kairouz" in cites(MECHS["rr_binary"])
    assert "McSherry & Talwar" in cites(MECHS["exponential"])
    assert "Ding" in cites(MECHS["rnm_exponential"])
    assert "Nissim, Raskhodnikova & Smith" in cites(MECHS["smooth_median_quartic"])


# ---- gray-box hooks ------------------------------------------------------------------------
def test_gray_box_hooks():
    assert MECHS["laplace"].statistic(3.0) == 3.0
    np.testing.assert_array_equal(MECHS["laplace_vector"].statistic([1, 2, 3]), [1.0, 2.0, 3.0])
    assert MECHS["discrete_laplace"].statistic(7) == 7
    np.testing.assert_array_equal(MECHS["exponential"].statistic([0, 1, 5, 2]), [0, 1, 5, 2])
    sm = MECHS["smooth_median_quartic"]
    assert sm.statistic([0.1, 0.9, 0.4, 0.5, 0.6]) == 0.5
    assert sm.smooth_sensitivity([0.1, 0.9, 0.4, 0.5, 0.6]) == median_smooth_sensitivity(
        [0.1, 0.9, 0.4, 0.5, 0.6], sm.beta, 0.0, 1.0
    )
    assert sm.noise_scale([0.1, 0.9, 0.4, 0.5, 0.6]) == pytest.approx(
        sm.smooth_sensitivity([0.1, 0.9, 0.4, 0.5, 0.6]) / sm.alpha
    )
    for name in ("laplace", "gaussian", "discrete_gaussian", "exponential", "rnm_laplace"):
        assert MECHS[name].provides("statistic")
        assert not MECHS[name].provides("smooth_sensitivity")
    assert sm.provides("smooth_sensitivity") and sm.provides("statistic")
    assert not MECHS["rr_binary"].provides("statistic")


def test_custom_statistic_on_a_dataset():
    n, eps = 10, 1.0
    mech = LaplaceMechanism(
        eps,
        1.0 / n,
        statistic=np.mean,
        input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1), size=n),
        relation=SubstituteOne(),
    )
    x = np.linspace(0, 1, n)
    assert mech.statistic(x) == pytest.approx(0.5)
    assert mech.spec.statistic == "mean"
    assert mech.noise_law.scale == pytest.approx(0.1)
    with pytest.raises(InvalidParameterError, match="go together"):
        LaplaceMechanism(eps, 1.0, statistic=np.mean)


def test_summary_and_extra_references_go_into_the_spec():
    from privaudit.spec import Reference

    extra = Reference(citation="A textbook", locator="Example 1")
    for build in (
        lambda **kw: LaplaceMechanism(1.0, 1.0, **kw),
        lambda **kw: GaussianMechanism(1.0, 1e-5, 1.0, **kw),
        lambda **kw: DiscreteLaplaceMechanism(1.0, 1, **kw),
        lambda **kw: DiscreteGaussianMechanism(1.0, 1e-5, 1, **kw),
    ):
        default = build()
        mech = build(summary="my summary", references=(extra,))
        assert mech.spec.summary == "my summary"
        assert mech.spec.references == (*default.spec.references, extra)
        with pytest.raises(InvalidParameterError, match="Reference"):
            build(references=("not a reference",))


def test_additive_mechanism_from_a_spec():
    spec = MechanismSpec(
        name="count",
        input_domain=DATA,
        relation=SubstituteOne(),
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=DiscreteLaplace(scale=1.0)),
        guarantee=PureDP(epsilon=1.0),
        numerics="exact",
    )
    count = AdditiveNoiseMechanism(spec, lambda x: int(np.sum(x > 0.5)))
    assert count.sample([0.1, 0.9, 0.8, 0.2, 1.0], 5, rng=0).dtype == np.int64
    mean = AdditiveNoiseMechanism(spec, np.mean)
    with pytest.raises(InvalidInputError, match="integer-valued"):
        mean.sample([0.1, 0.9, 0.8, 0.2, 1.0], 5, rng=0)
    wrong_shape = AdditiveNoiseMechanism(spec, lambda x: x)
    with pytest.raises(InvalidInputError, match="shape"):
        wrong_shape.sample([0.1, 0.9, 0.8, 0.2, 1.0], 5, rng=0)
    nan = AdditiveNoiseMechanism(
        spec.model_copy(update={"numerics": "idealized"}), lambda x: float("nan")
    )
    with pytest.raises(InvalidInputError, match="non-finite"):
        nan.sample([0.1, 0.9, 0.8, 0.2, 1.0], 5, rng=0)
    with pytest.raises(UnsupportedCombinationError):
        AdditiveNoiseMechanism(MECHS["exponential"].spec, np.max)
    with pytest.raises(InvalidParameterError, match="callable"):
        AdditiveNoiseMechanism(spec, "mean")


# ---- calibration ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("eps", "delta", "published"), [(1.0, 1e-5, 3.731), (1.0, 1e-3, 2.575), (0.5, 1e-5, 7.032)]
)
def test_analytic_gaussian_matches_balle_wang(eps, delta, published):
    assert analytic_gaussian_sigma(eps, delta, 1.0) == pytest.approx(published, abs=6e-4)


@given(eps=st.floats(1e-2, 20.0), log_delta=st.floats(-12.0, -0.5), delta_f=st.floats(1e-2, 1e2))
def test_analytic_gaussian_is_safe_and_tight(eps, log_delta, delta_f):
    delta = 10.0**log_delta
    sigma = analytic_gaussian_sigma(eps, delta, delta_f)
    assert Gaussian(sigma=sigma).privacy_profile(eps, delta_f) <= delta
    # rounded up to the stable grid: within one grid step (relative 1e-5) of the optimum
    assert Gaussian(sigma=sigma * (1 - 1.1e-5)).privacy_profile(eps, delta_f) > delta
    if eps < 1.0:  # the analytic σ never exceeds the classical one
        assert sigma <= classical_gaussian_sigma(eps, delta, delta_f)


def test_analytic_gaussian_scales_with_sensitivity():
    assert analytic_gaussian_sigma(1.0, 1e-5, 3.0) == pytest.approx(
        3.0 * analytic_gaussian_sigma(1.0, 1e-5, 1.0),
        rel=2.2e-5,  # two stable grids
    )


def test_classical_gaussian_formula_and_its_refusal():
    exact = 2.0 * math.sqrt(2 * math.log(1.25e5)) / 0.5
    assert exact < classical_gaussian_sigma(0.5, 1e-5, 2.0) <= exact * (1 + 1.1e-5)
    for eps in (1.0, 1.5, 10.0):
        with pytest.raises(UnsupportedCombinationError, match="epsilon < 1"):
            classical_gaussian_sigma(eps, 1e-5, 1.0)
        with pytest.raises(UnsupportedCombinationError, match="epsilon < 1"):
            GaussianMechanism(eps, 1e-5, 1.0, calibration="classical")


@given(eps=st.floats(1e-3, 50.0), delta_f=st.floats(1e-6, 1e6))
def test_laplace_scale_is_safe(eps, delta_f):
    b = laplace_scale(eps, delta_f)
    assert Laplace(scale=b).pure_epsilon(delta_f) <= eps
    assert b == pytest.approx(delta_f / eps, rel=1e-14)


@given(eps=st.floats(1e-3, 50.0), delta_f=st.integers(1, 1000))
def test_discrete_laplace_scale_is_safe(eps, delta_f):
    t = discrete_laplace_scale(eps, delta_f)
    assert DiscreteLaplace(scale=t).pure_epsilon(delta_f) <= eps
    assert t == pytest.approx(delta_f / eps, rel=1e-14)


@pytest.mark.parametrize(
    ("eps", "delta", "delta_f"),
    [(1.0, 1e-5, 1), (0.5, 1e-6, 1), (2.0, 1e-3, 3), (0.1, 1e-8, 2), (5.0, 1e-10, 1)],
)
def test_discrete_gaussian_sigma_is_safe_and_tight(eps, delta, delta_f):
    sigma = discrete_gaussian_sigma(eps, delta, delta_f)
    assert DiscreteGaussian(sigma=sigma).privacy_profile(eps, delta_f) <= delta
    # rounded up to the stable grid: within one grid step (relative 1e-5) of the optimum
    assert DiscreteGaussian(sigma=sigma * (1 - 1.1e-5)).privacy_profile(eps, delta_f) > delta
    # close to the continuous analytic σ once σ is well above the lattice spacing
    assert sigma == pytest.approx(analytic_gaussian_sigma(eps, delta, delta_f), rel=0.1)


def test_vector_discrete_gaussian_uses_the_zcdp_conversion():
    sigma = discrete_gaussian_sigma(1.0, 1e-5, 2, dimension=3)
    rho = 2**2 / (2 * sigma**2)
    assert ZeroConcentratedDP(rho=rho).delta_for_epsilon(1.0) <= 1e-5
    assert ZeroConcentratedDP(rho=rho * 1.001).delta_for_epsilon(1.0) > 1e-5


BAD_CALLS = [
    lambda: laplace_scale(0.0, 1.0),
    lambda: laplace_scale(-1.0, 1.0),
    lambda: laplace_scale(float("nan"), 1.0),
    lambda: laplace_scale(float("inf"), 1.0),
    lambda: laplace_scale(True, 1.0),
    lambda: laplace_scale(1.0, 0.0),
    lambda: laplace_scale(1.0, float("nan")),
    lambda: discrete_laplace_scale(1.0, 1.5),
    lambda: analytic_gaussian_sigma(1.0, 0.0, 1.0),
    lambda: analytic_gaussian_sigma(1.0, 1.0, 1.0),
    lambda: analytic_gaussian_sigma(1.0, float("nan"), 1.0),
    lambda: analytic_gaussian_sigma(1.0, 1e-5, -2.0),
    lambda: classical_gaussian_sigma(0.5, 1.5, 1.0),
    lambda: discrete_gaussian_sigma(1.0, 1e-5, 0.5),
    lambda: zcdp_discrete_gaussian_sigma(0.0, 1),
    lambda: LaplaceMechanism(0.0, 1.0),
    lambda: LaplaceMechanism(float("nan"), 1.0),
    lambda: LaplaceMechanism(1.0, -1.0),
    lambda: LaplaceMechanism(1.0, 1.0, output_dimension=0),
    lambda: GaussianMechanism(1.0, 0.0, 1.0),
    lambda: GaussianMechanism(1.0, 1.0, 1.0),
    lambda: GaussianMechanism(1.0, -0.1, 1.0),
    lambda: GaussianMechanism(-1.0, 1e-5, 1.0),
    lambda: GaussianMechanism(1.0, 1e-5, 0.0),
    lambda: GaussianMechanism(1.0, 1e-5, 1.0, calibration="magic"),
    lambda: DiscreteLaplaceMechanism(1.0, 0.5),
    lambda: DiscreteLaplaceMechanism(1.0, 0),
    lambda: DiscreteLaplaceMechanism(float("inf"), 1),
    lambda: DiscreteLaplaceMechanism(1.0, 1, numerics="fast"),
    lambda: DiscreteGaussianMechanism(1.0, 1e-5, 1.5),
    lambda: DiscreteGaussianMechanism(1.0, 1e-5),
    lambda: DiscreteGaussianMechanism(1.0, None, 1),
    lambda: DiscreteGaussianMechanism(1.0, 1e-5, 1, rho=0.5),
    lambda: DiscreteGaussianMechanism(sensitivity=1, rho=-0.5),
    lambda: DiscreteGaussianMechanism(1.0, 2.0, 1),
    lambda: RandomizedResponseMechanism(0.0),
    lambda: RandomizedResponseMechanism(float("nan"), 3),
    lambda: RandomizedResponseMechanism(1.0, categories=1),
    lambda: RandomizedResponseMechanism(1.0, categories=2.5),
    lambda: ExponentialMechanism(0.0, 1.0, 3),
    lambda: ExponentialMechanism(1.0, 0.0, 3),
    lambda: ExponentialMechanism(1.0, 1.0, 0),
    lambda: ExponentialMechanism(1.0, 1.0, 3, monotone="yes"),
    lambda: ReportNoisyMax(1.0, 1.0, 3, noise="gaussian"),
    lambda: ReportNoisyMax(-1.0, 1.0, 3),
    lambda: smooth_median_mechanism(4, 0.0, 1.0, 1.0),
    lambda: smooth_median_mechanism(0, 0.0, 1.0, 1.0),
    lambda: smooth_median_mechanism(5, 1.0, 1.0, 1.0),
    lambda: smooth_median_mechanism(5, 0.0, float("inf"), 1.0),
    lambda: smooth_median_mechanism(5, 0.0, 1.0, 0.0),
    lambda: smooth_median_mechanism(5, 0.0, 1.0, 1.0, 0.0),
    lambda: smooth_median_mechanism(5, 0.0, 1.0, 1.0, 1.0),
    lambda: smooth_median_mechanism(5, 0.0, 1.0, 1.0, noise="laplace"),
    lambda: smooth_median_mechanism(5, 0.0, 1.0, 1.0, 1e-6, noise="inverse_quartic"),
    lambda: smooth_median_mechanism(5, 0.0, 1.0, 1.0, noise="cauchy"),
    lambda: smooth_inverse_quartic_mechanism(
        np.median, np.std, input_domain=DATA, relation=SubstituteOne()
    ),
    lambda: smooth_inverse_quartic_mechanism(
        np.median, np.std, 1.0, beta=0.5, input_domain=DATA, relation=SubstituteOne()
    ),
    lambda: SmoothSensitivityMechanism(
        np.median,
        "S",
        beta=0.1,
        alpha=0.1,
        law=Laplace(scale=1),
        input_domain=DATA,
        relation=SubstituteOne(),
        guarantee=ApproxDP(epsilon=1.0, delta=1e-5),
    ),
]


@pytest.mark.parametrize("call", BAD_CALLS)
def test_bad_parameters_are_refused_with_our_errors(call):
    with pytest.raises((InvalidParameterError, UnsupportedCombinationError)) as info:
        call()
    assert str(info.value)


def test_error_messages_name_the_offending_value():
    with pytest.raises(InvalidParameterError, match="-0.25"):
        LaplaceMechanism(-0.25, 1.0)
    with pytest.raises(InvalidParameterError, match="1.5"):
        DiscreteLaplaceMechanism(1.0, 1.5)
    with pytest.raises(InvalidParameterError, match="categories.*1"):
        RandomizedResponseMechanism(1.0, categories=1)
    with pytest.raises(InvalidParameterError, match="n=4"):
        smooth_median_mechanism(4, 0.0, 1.0, 1.0)


# ---- smooth-sensitivity constants (checked by the spec, not here) ---------------------------
def test_smooth_constants_are_validated_by_the_spec():
    kw = dict(input_domain=DATA, relation=SubstituteOne())
    # the defaults sit at the admissible constants (β rounded down to the stable grid)
    mech = smooth_laplace_mechanism(np.median, lambda x: 1.0, 1.0, 1e-6, **kw)
    beta_max = 1.0 / (2 * math.log(2e6))
    assert mech.alpha == 0.5 and beta_max * (1 - 1.1e-5) <= mech.beta <= beta_max
    with pytest.raises(InconsistentSpecError, match="a <= epsilon/2"):
        smooth_laplace_mechanism(np.median, lambda x: 1.0, 1.0, 1e-6, alpha=0.6, **kw)
    with pytest.raises(InconsistentSpecError, match="beta <="):
        smooth_laplace_mechanism(np.median, lambda x: 1.0, 1.0, 1e-6, beta=0.1, **kw)
    # computed constants are on the stable grid, rounded the safe way (within 1e-5)
    q = smooth_inverse_quartic_mechanism(np.median, lambda x: 1.0, 2.0, **kw)
    assert 2.0 * (1 - 1.1e-5) <= 3 * q.beta + 3**0.75 * q.alpha <= 2.0
    q = smooth_inverse_quartic_mechanism(np.median, lambda x: 1.0, 2.0, beta=0.1, **kw)
    assert (2.0 - 0.3) / 3**0.75 * (1 - 1.1e-5) <= q.alpha <= (2.0 - 0.3) / 3**0.75
    q = smooth_inverse_quartic_mechanism(np.median, lambda x: 1.0, 2.0, alpha=0.1, **kw)
    assert (2.0 - 0.1 * 3**0.75) / 3 * (1 - 1.1e-5) <= q.beta <= (2.0 - 0.1 * 3**0.75) / 3
    q = smooth_inverse_quartic_mechanism(np.median, lambda x: 1.0, alpha=0.1, beta=0.2, **kw)
    assert 0.6 + 0.1 * 3**0.75 <= q.epsilon <= (0.6 + 0.1 * 3**0.75) * (1 + 1.1e-5)
    with pytest.raises(InconsistentSpecError, match="more than the claimed"):
        smooth_inverse_quartic_mechanism(np.median, lambda x: 1.0, 1.0, alpha=1.0, beta=1.0, **kw)
    # the paper's a = β = ε is (3 + 3^{3/4})ε-DP, not ε-DP
    eps = 0.1
    smooth_inverse_quartic_mechanism(
        np.median, lambda x: 1.0, QUARTIC_CONSTANT * eps, alpha=eps, beta=eps, **kw
    )
    with pytest.raises(InconsistentSpecError):
        smooth_inverse_quartic_mechanism(
            np.median, lambda x: 1.0, 5.0 * eps, alpha=eps, beta=eps, **kw
        )
    with pytest.raises(UnsupportedCombinationError):
        SmoothSensitivityMechanism(
            np.median,
            lambda x: 1.0,
            beta=0.1,
            alpha=0.1,
            law=Laplace(scale=1.0),
            input_domain=DATA,
            relation=SubstituteOne(),
            guarantee=PureDP(epsilon=1.0),
        )


def test_smooth_mechanism_from_spec_and_bad_hook_values():
    spec = MECHS["smooth_median_quartic"].spec
    mech = SmoothSensitivityMechanism.from_spec(spec, np.median, lambda x: -1.0)
    with pytest.raises(InvalidInputError, match="smooth sensitivity"):
        mech.sample([0.1, 0.9, 0.4, 0.5, 0.6], 3, rng=0)
    mech = SmoothSensitivityMechanism.from_spec(spec, lambda x: x, lambda x: 1.0)
    with pytest.raises(InvalidInputError, match="statistic"):
        mech.sample([0.1, 0.9, 0.4, 0.5, 0.6], 3, rng=0)
    with pytest.raises(UnsupportedCombinationError):
        SmoothSensitivityMechanism.from_spec(MECHS["laplace"].spec, np.median, np.std)


def test_zero_smooth_sensitivity_releases_the_statistic():
    mech = MECHS["smooth_median_laplace"]
    # all records at one bound: S = max_k e^{-kβ}(...) > 0 still, because of the padding
    assert mech.smooth_sensitivity([0.0] * 5) > 0
    const = SmoothSensitivityMechanism.from_spec(mech.spec, np.median, lambda x: 0.0)
    np.testing.assert_array_equal(const.sample([0.5] * 5, 4, rng=0), np.full(4, 0.5))


# ---- bad data -------------------------------------------------------------------------------
BAD_DATA = [
    ("laplace", float("nan")),
    ("laplace", float("inf")),
    ("laplace", [1.0, 2.0]),
    ("laplace", "3"),
    ("laplace", True),
    ("laplace_vector", [1.0, 2.0]),
    ("laplace_vector", [1.0, float("nan"), 3.0]),
    ("laplace_vector", [[1.0, 2.0, 3.0]]),
    ("gaussian", None),
    ("discrete_laplace", 1.5),
    ("discrete_laplace", float("nan")),
    ("discrete_gaussian_vector", [1, 2, 3]),
    ("rr_binary", 2),
    ("rr_kary", -1),
    ("rr_kary", 5),
    ("rr_kary", 1.5),
    ("exponential", [0.0, 1.0, 2.0]),
    ("exponential", [0.0, 1.0, float("nan"), 2.0]),
    ("rnm_exponential", [0.0, 1.0, 2.0, 3.0, 4.0]),
    ("smooth_median_laplace", [0.1, 0.2, 0.3, 0.4]),
    ("smooth_median_laplace", [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]),
    ("smooth_median_quartic", [0.1, 0.2, 0.3, 0.4, 1.5]),
    ("smooth_median_quartic", [0.1, 0.2, float("nan"), 0.4, 0.5]),
    ("smooth_median_quartic", [[0.1, 0.2, 0.3, 0.4, 0.5]]),
]


@pytest.mark.parametrize(("name", "data"), BAD_DATA)
def test_bad_data_is_refused_by_the_domain(name, data):
    mech = MECHS[name]
    with pytest.raises(InvalidInputError):
        mech.sample(data, 3, rng=0)
    with pytest.raises(InvalidInputError):
        mech.release(data, rng=0)
    if mech.provides("statistic"):
        with pytest.raises(InvalidInputError):
            mech.statistic(data)


def test_even_number_of_records_for_the_median_bound():
    with pytest.raises(InvalidInputError, match="odd"):
        median_smooth_sensitivity([0.1, 0.2], 0.1, 0.0, 1.0)
    with pytest.raises(InvalidInputError):
        median_smooth_sensitivity([0.1, 2.0, 0.3], 0.1, 0.0, 1.0)


def test_all_errors_belong_to_the_hierarchy():
    for name, data in BAD_DATA:
        with contextlib.suppress(PrivauditError):
            MECHS[name].sample(data, 2, rng=0)


# ---- spec round-trip and hash ------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_spec_round_trips_and_hashes_stably(name):
    spec = MECHS[name].spec
    back = MechanismSpec.from_json(spec.to_json())
    assert back == spec
    assert back.content_hash == spec.content_hash
    assert built_in_mechanisms()[name].spec.content_hash == spec.content_hash


def test_different_claims_hash_differently():
    hashes = {mech.spec.content_hash for mech in MECHS.values()}
    assert len(hashes) == len(MECHS)
    assert (
        LaplaceMechanism(1.0, 1.0).spec.content_hash != LaplaceMechanism(1.0, 2.0).spec.content_hash
    )


# ---- the smooth sensitivity of the median -----------------------------------------------------
def _median(x: np.ndarray) -> float:
    return float(np.sort(x)[(x.size - 1) // 2])


def _local_sensitivity(x: np.ndarray, lower: float, upper: float) -> float:
    """max over substitute-one neighbours of |med(x') − med(x)|, by brute force.

    The median is monotone in each record, so the extremes lower/upper attain the
    maximum; every record value is tried too.
    """
    med, best = _median(x), 0.0
    for i in range(x.size):
        for v in {lower, upper, *x.tolist()}:
            y = x.copy()
            y[i] = v
            best = max(best, abs(_median(y) - med))
    return best


def _naive_smooth(x: np.ndarray, beta: float, lower: float, upper: float) -> float:
    """NRS 2007 §3.1 formula with plain loops (reference for the vectorised version)."""
    xs = np.sort(x)
    n = xs.size
    m = (n + 1) // 2

    def at(i: int) -> float:  # 1-based with padding
        return lower if i <= 0 else upper if i > n else float(xs[i - 1])

    return max(
        math.exp(-k * beta) * max(at(m + t) - at(m + t - k - 1) for t in range(k + 2))
        for k in range(n + 1)
    )


records = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=9).filter(lambda v: len(v) % 2)
betas = st.sampled_from([0.01, 0.1, 0.5, 2.0])


@given(x=records, beta=betas)
def test_median_smooth_bound_dominates_the_local_sensitivity(x, beta):
    arr = np.array(x)
    s = median_smooth_sensitivity(arr, beta, 0.0, 1.0)
    assert s >= _local_sensitivity(arr, 0.0, 1.0)
    assert s == pytest.approx(_naive_smooth(arr, beta, 0.0, 1.0), rel=1e-12, abs=0)


@given(x=records, beta=betas, data=st.data())
def test_median_smooth_bound_is_beta_smooth(x, beta, data):
    arr = np.array(x)
    i = data.draw(st.integers(0, arr.size - 1))
    y = arr.copy()
    y[i] = data.draw(st.sampled_from([0.0, 1.0]) | st.floats(0.0, 1.0))
    s_x = median_smooth_sensitivity(arr, beta, 0.0, 1.0)
    s_y = median_smooth_sensitivity(y, beta, 0.0, 1.0)
    slack = 1.0 + 1e-12
    assert s_x <= math.exp(beta) * s_y * slack
    assert s_y <= math.exp(beta) * s_x * slack


def test_median_smooth_bound_on_wider_bounds_and_in_blocks(monkeypatch):
    gen = np.random.default_rng(3)
    x = gen.uniform(-5.0, 5.0, size=41)
    expected = _naive_smooth(x, 0.05, -5.0, 5.0)
    monkeypatch.setattr(smooth_median_module, "_BLOCK_ELEMENTS", 50)  # many blocks, early stop
    assert median_smooth_sensitivity(x, 0.05, -5.0, 5.0) == pytest.approx(expected, rel=1e-12)
    assert median_smooth_sensitivity(x, 1e-4, -5.0, 5.0) == pytest.approx(
        _naive_smooth(x, 1e-4, -5.0, 5.0), rel=1e-12
    )


def test_median_smooth_bound_is_fast_for_large_n():
    x = np.random.default_rng(0).uniform(0.0, 1.0, size=10_001)
    s = median_smooth_sensitivity(x, 0.01, 0.0, 1.0)
    assert 0.0 < s <= 1.0


def test_smooth_median_mechanism_uses_its_own_beta():
    mech = smooth_median_mechanism(7, -1.0, 1.0, 0.5, 1e-4)
    x = np.linspace(-1, 1, 7)
    assert mech.smooth_sensitivity(x) == median_smooth_sensitivity(x, mech.beta, -1.0, 1.0)
    assert mech.spec.input_domain == DatasetDomain(record=RealInterval(lo=-1.0, hi=1.0), size=7)
    assert mech.spec.relation == SubstituteOne()
    assert mech.spec.smooth_sensitivity_claim.beta == mech.beta


# ---- selection ---------------------------------------------------------------------------------
def test_selection_picks_the_clear_winner():
    scores = [0.0, 0.0, 100.0, 0.0]
    for name in ("exponential", "rnm_laplace", "rnm_exponential"):
        out = MECHS[name].sample(scores, 2000, rng=0)
        assert np.mean(out == 2) > 0.99
        assert out.min() >= 0 and out.max() <= 3


def test_exponential_probabilities_are_the_softmax():
    em = ExponentialMechanism(2.0, 0.5, 3)
    p = em.probabilities([1.0, 0.0, -1.0])
    w = np.exp(2.0 * np.array([1.0, 0.0, -1.0]) / (2 * 0.5))
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-14)


def test_selection_blocks_do_not_change_the_law(monkeypatch):
    import privaudit.mechanisms.selection as selection

    monkeypatch.setattr(selection, "_BLOCK_ELEMENTS", 8)
    out = MECHS["exponential"].sample([0.0, 1.0, 5.0, 2.0], 101, rng=0)
    assert out.shape == (101,) and out.dtype == np.int64
