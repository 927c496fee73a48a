"""Unit and property tests of ``spec.noise``: every law's formulas, checks and identity.

Numerical references are independent of the code under test: ``scipy.integrate.quad``
of the density, brute-force ``math.fsum`` summation of probability masses, closed forms
from the literature, and (where available) ``mpmath`` at 40 digits.  Monte Carlo checks
state their tolerance in standard errors next to the assertion.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter
from scipy import integrate, optimize, stats

from privaudit.spec.errors import InvalidInputError, InvalidParameterError
from privaudit.spec.noise import (
    AdditiveNoiseLaw,
    DiscreteGaussian,
    DiscreteLaplace,
    Exponential,
    Gaussian,
    Gumbel,
    InverseQuartic,
    Laplace,
    NoiseLaw,
    RandomizedResponseLaw,
)

SQRT2 = math.sqrt(2.0)

CONTINUOUS = [
    Laplace(scale=1.3),
    Gaussian(sigma=0.7),
    InverseQuartic(),
    InverseQuartic(scale=2.5),
    Gumbel(scale=1.1),
    Exponential(scale=0.6),
]
DISCRETE = [
    DiscreteLaplace(scale=2.5),
    DiscreteLaplace(scale=0.4),
    DiscreteGaussian(sigma=1.7),
    DiscreteGaussian(sigma=0.3),
    DiscreteGaussian(sigma=40.0),
]
ALL_LAWS = CONTINUOUS + DISCRETE
LAW_CLASSES = {
    Laplace: "scale",
    Gaussian: "sigma",
    InverseQuartic: "scale",
    Gumbel: "scale",
    Exponential: "scale",
    DiscreteLaplace: "scale",
    DiscreteGaussian: "sigma",
}


def law_id(law: object) -> str:
    return repr(law)


def _param(law: NoiseLaw) -> float:
    return getattr(law, LAW_CLASSES[type(law)])


def _quad(f, a, b, points=()):
    """∫_a^b f with break points, to ~1e-13 absolute."""
    inner: list[float] = []
    for p in sorted(p for p in points if a < p < b):
        if not inner or p - inner[-1] > 1e-9 * (1.0 + abs(p)):  # drop near-duplicates
            inner.append(p)
    edges = [a, *inner, b]
    return math.fsum(
        integrate.quad(f, lo, hi, limit=400, epsabs=1e-15, epsrel=1e-13)[0]
        for lo, hi in zip(edges[:-1], edges[1:], strict=True)
    )


def _support_window(law: NoiseLaw) -> np.ndarray:
    """Integers carrying all but < 1e-40 of a discrete law's mass."""
    spread = 60.0 * (law.std + 1.0)
    return np.arange(-math.ceil(spread), math.ceil(spread) + 1, dtype=np.float64)


# --------------------------------------------------------------------------------------
# identity: JSON round trip, discriminated union, content hash
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
def test_json_round_trip(law):
    again = type(law).from_json(law.to_json())
    assert again == law
    assert again.content_hash == law.content_hash


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
def test_round_trip_through_the_discriminated_union(law):
    adapter = TypeAdapter(AdditiveNoiseLaw)
    parsed = adapter.validate_json(law.to_json())
    assert type(parsed) is type(law)
    assert parsed == law
    assert adapter.validate_python(law.model_dump()) == law


def test_union_works_as_a_field_type_and_refuses_unknown_kinds():
    class Holder(BaseModel):
        law: AdditiveNoiseLaw

    for law in ALL_LAWS:
        assert Holder.model_validate_json(Holder(law=law).model_dump_json()).law == law
    with pytest.raises(ValueError):
        Holder.model_validate({"law": {"kind": "cauchy", "scale": 1.0}})
    with pytest.raises(ValueError):
        Holder.model_validate({"law": {"kind": "laplace", "sigma": 1.0}})


def test_randomized_response_round_trip_and_not_additive():
    law = RandomizedResponseLaw(categories=5, keep_probability=0.6)
    assert RandomizedResponseLaw.from_json(law.to_json()) == law
    assert not isinstance(law, NoiseLaw)
    with pytest.raises(ValueError):
        TypeAdapter(AdditiveNoiseLaw).validate_json(law.to_json())


@pytest.mark.parametrize("cls", list(LAW_CLASSES), ids=lambda c: c.__name__)
def test_content_hash_is_stable_and_sensitive(cls):
    name = LAW_CLASSES[cls]
    a, b = cls(**{name: 1.5}), cls(**{name: 1.5})
    assert a.content_hash == b.content_hash
    assert a.content_hash.startswith("sha256:") and len(a.content_hash) == 7 + 64
    assert cls(**{name: 1}).content_hash == cls(**{name: 1.0}).content_hash
    assert cls(**{name: 1.5000000000000002}).content_hash != a.content_hash
    assert cls(**{name: 2.0}).content_hash != a.content_hash
    assert cls.from_json(a.to_json(indent=None)).content_hash == a.content_hash


def test_content_hash_distinguishes_kinds_with_equal_parameters():
    hashes = {
        Laplace(scale=1.0).content_hash,
        DiscreteLaplace(scale=1.0).content_hash,
        InverseQuartic(scale=1.0).content_hash,
        Gumbel(scale=1.0).content_hash,
        Exponential(scale=1.0).content_hash,
    }
    assert len(hashes) == 5
    assert Gaussian(sigma=1.0).content_hash != DiscreteGaussian(sigma=1.0).content_hash


def test_content_hash_golden_value():
    """The canonical form ``{"kind":"laplace","scale":1.0}`` must never drift."""
    import hashlib

    from privaudit.spec import HASH_SCHEMA

    law = Laplace(scale=1.0)
    assert law.canonical_json() == '{"kind":"laplace","scale":1.0}'
    expected = hashlib.sha256(f"{HASH_SCHEMA}\n{law.canonical_json()}".encode()).hexdigest()
    assert law.content_hash == f"sha256:{expected}"


def test_randomized_response_hash():
    a = RandomizedResponseLaw(categories=3, keep_probability=0.5)
    assert a.content_hash == RandomizedResponseLaw(categories=3, keep_probability=0.5).content_hash
    assert a.content_hash != RandomizedResponseLaw(categories=4, keep_probability=0.5).content_hash
    assert a.content_hash != RandomizedResponseLaw(categories=3, keep_probability=0.6).content_hash


def test_inverse_quartic_default_scale():
    assert InverseQuartic() == InverseQuartic(scale=1.0)
    assert InverseQuartic.from_json('{"kind": "inverse_quartic"}') == InverseQuartic()


# --------------------------------------------------------------------------------------
# invalid parameters
# --------------------------------------------------------------------------------------

BAD_SCALES = [
    0,
    0.0,
    -1.0,
    -1e-300,
    math.nan,
    math.inf,
    -math.inf,
    True,
    False,
    "1.0",
    None,
    [1.0],
    1 + 2j,
]


@pytest.mark.parametrize("cls", list(LAW_CLASSES), ids=lambda c: c.__name__)
@pytest.mark.parametrize("bad", BAD_SCALES, ids=repr)
def test_invalid_parameters_are_refused(cls, bad):
    with pytest.raises(InvalidParameterError):
        cls(**{LAW_CLASSES[cls]: bad})


@pytest.mark.parametrize("cls", list(LAW_CLASSES), ids=lambda c: c.__name__)
def test_extra_fields_and_wrong_kind_are_refused(cls):
    name = LAW_CLASSES[cls]
    with pytest.raises(InvalidParameterError):
        cls(**{name: 1.0, "location": 0.0})
    with pytest.raises(InvalidParameterError):
        cls(**{name: 1.0, "kind": "something_else"})
    kind = cls.model_fields["kind"].default
    with pytest.raises(InvalidParameterError):
        cls.from_json(f'{{"kind": "{kind}", "{name}": "NaN"}}')


def test_error_names_the_offending_value():
    with pytest.raises(InvalidParameterError, match="-2"):
        Laplace(scale=-2.0)
    with pytest.raises(InvalidParameterError, match="sigma"):
        Gaussian(sigma=math.nan)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"categories": 1, "keep_probability": 0.5},
        {"categories": 0, "keep_probability": 0.5},
        {"categories": -3, "keep_probability": 0.5},
        {"categories": 2.5, "keep_probability": 0.5},
        {"categories": True, "keep_probability": 0.5},
        {"categories": "3", "keep_probability": 0.5},
        {"categories": 3, "keep_probability": 0.0},
        {"categories": 3, "keep_probability": -0.1},
        {"categories": 3, "keep_probability": 1.0000001},
        {"categories": 3, "keep_probability": math.nan},
        {"categories": 3, "keep_probability": math.inf},
        {"categories": 3, "keep_probability": True},
        {"categories": 3, "keep_probability": "0.5"},
        {"categories": 3},
        {"categories": 3, "keep_probability": 0.5, "extra": 1},
    ],
)
def test_randomized_response_invalid_parameters(kwargs):
    with pytest.raises(InvalidParameterError):
        RandomizedResponseLaw(**kwargs)


def test_randomized_response_from_epsilon_validation():
    for bad in (-1.0, math.nan, True, "1"):
        with pytest.raises(InvalidParameterError):
            RandomizedResponseLaw.from_epsilon(bad, 3)
    with pytest.raises(InvalidParameterError):
        RandomizedResponseLaw.from_epsilon(1.0, 1)


# --------------------------------------------------------------------------------------
# input checks, shapes and dtypes
# --------------------------------------------------------------------------------------

FUNCS = ["density", "log_density", "cdf", "sf"]


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
@pytest.mark.parametrize("func", FUNCS)
def test_nan_and_non_numeric_inputs_are_refused(law, func):
    with pytest.raises(InvalidInputError, match="NaN"):
        getattr(law, func)(math.nan)
    with pytest.raises(InvalidInputError, match="NaN"):
        getattr(law, func)([0.0, 1.0, math.nan])
    with pytest.raises(InvalidInputError):
        getattr(law, func)("1.0")
    with pytest.raises(InvalidInputError):
        getattr(law, func)(True)


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
@pytest.mark.parametrize("bad", [math.nan, -0.1, 1.1, [0.5, 2.0], "0.5"], ids=repr)
def test_ppf_refuses_bad_probabilities(law, bad):
    with pytest.raises(InvalidInputError):
        law.ppf(bad)


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
def test_shapes_and_dtypes(law):
    for func in [*FUNCS, "ppf"]:
        f = getattr(law, func)
        arg = 0.3
        scalar = f(arg)
        assert isinstance(scalar, np.float64), (func, type(scalar))
        arr = f(np.full((2, 3), arg))
        assert isinstance(arr, np.ndarray) and arr.shape == (2, 3) and arr.dtype == np.float64
        assert f([arg]).shape == (1,)
        assert np.all(arr == scalar)
        assert f(np.empty(0)).shape == (0,)
    sample = law.sample(1, (3, 4))
    assert sample.shape == (3, 4)
    assert sample.dtype == (np.int64 if law.is_discrete else np.float64)
    assert law.sample(1, 0).shape == (0,)
    assert law.sample(1, 5).shape == (5,)


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
def test_infinite_arguments(law):
    x = np.array([-np.inf, np.inf])
    np.testing.assert_array_equal(law.density(x), [0.0, 0.0])
    np.testing.assert_array_equal(law.log_density(x), [-np.inf, -np.inf])
    np.testing.assert_array_equal(law.cdf(x), [0.0, 1.0])
    np.testing.assert_array_equal(law.sf(x), [1.0, 0.0])


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
@pytest.mark.parametrize("bad", [-1, 2.5, True, "3", (2, -1), (2.0, 3), None], ids=repr)
def test_bad_sizes_are_refused(law, bad):
    with pytest.raises(InvalidParameterError):
        law.sample(0, bad)


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
def test_sampling_is_reproducible_and_uses_the_given_generator(law):
    np.testing.assert_array_equal(law.sample(42, 100), law.sample(42, 100))
    gen = np.random.default_rng(7)
    before = gen.bit_generator.state["state"]["state"]
    law.sample(gen, 50)
    assert gen.bit_generator.state["state"]["state"] != before  # the caller's stream advances
    with pytest.raises(InvalidParameterError):
        law.sample(np.random.RandomState(0), 3)
    with pytest.raises(InvalidParameterError):
        law.sample(-1, 3)


# --------------------------------------------------------------------------------------
# CDF against numerical integration / summation; cdf, sf, ppf consistency
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("law", CONTINUOUS, ids=law_id)
def test_cdf_matches_integral_of_density(law):
    s = law.std
    lower = 0.0 if isinstance(law, Exponential) else -np.inf
    for x in np.linspace(-6 * s, 6 * s, 17):
        if x <= lower:
            assert law.cdf(x) == 0.0
            continue
        ref = _quad(lambda z: float(law.density(z)), lower, x, points=[0.0])
        assert law.cdf(x) == pytest.approx(ref, rel=1e-10, abs=1e-13), x
        right = _quad(lambda z: float(law.density(z)), x, np.inf, points=[0.0])
        assert law.sf(x) == pytest.approx(right, rel=1e-10, abs=1e-13), x


@pytest.mark.parametrize("law", CONTINUOUS, ids=law_id)
def test_density_integrates_to_one_and_matches_log_density(law):
    lower = 0.0 if isinstance(law, Exponential) else -np.inf
    total = _quad(lambda z: float(law.density(z)), lower, np.inf, points=[0.0])
    assert total == pytest.approx(1.0, abs=1e-11)
    xs = np.linspace(-5, 5, 41) * law.std
    np.testing.assert_allclose(law.density(xs), np.exp(law.log_density(xs)), rtol=1e-15)


@pytest.mark.parametrize("law", DISCRETE, ids=law_id)
def test_discrete_cdf_matches_summation(law):
    ks = _support_window(law)
    pmf = law.density(ks)
    assert math.fsum(pmf) == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_allclose(np.exp(law.log_density(ks)), pmf, rtol=1e-15)
    inner = ks[np.abs(ks) <= 0.5 * ks[-1]]  # the window's truncated mass is negligible here
    probe = inner[:: max(1, len(inner) // 60)]
    for k in probe:
        below = math.fsum(pmf[ks <= k])
        above = math.fsum(pmf[ks > k])
        assert law.cdf(k) == pytest.approx(below, rel=1e-12, abs=1e-300)
        assert law.sf(k) == pytest.approx(above, rel=1e-12, abs=1e-300)
    # non-integers are floored; the mass off the lattice is 0
    assert law.cdf(0.5) == law.cdf(0.0)
    assert law.cdf(-0.5) == law.cdf(-1.0)
    assert law.sf(-0.5) == law.sf(-1.0)
    assert law.density(0.5) == 0.0 and law.log_density(0.5) == -np.inf
    assert law.density(np.inf) == 0.0
    assert law.cdf(-np.inf) == 0.0 and law.cdf(np.inf) == 1.0


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
def test_cdf_sf_ppf_consistency(law):
    q = np.concatenate([np.geomspace(1e-12, 0.5, 40), 1.0 - np.geomspace(1e-12, 0.5, 40)])
    x = law.ppf(q)
    assert np.all(np.diff(x[:40]) >= 0) and np.all(np.diff(x[40:][::-1]) >= 0)
    c = law.cdf(x)
    if law.is_discrete:
        assert np.all(c >= q)
        assert np.all(law.cdf(x - 1) < q)
        assert np.all(x == np.floor(x))
    else:
        np.testing.assert_allclose(c[:40], q[:40], rtol=1e-12)
        np.testing.assert_allclose(law.sf(x[40:]), 1.0 - q[40:], rtol=1e-9)
    grid = np.linspace(-8, 8, 161) * law.std
    np.testing.assert_allclose(law.cdf(grid) + law.sf(grid), 1.0, atol=2e-16)
    assert law.ppf(0.0) == (0.0 if isinstance(law, Exponential) else -np.inf)
    assert law.ppf(1.0) == np.inf


@pytest.mark.parametrize(
    "law", [law for law in CONTINUOUS if not isinstance(law, Exponential)], ids=law_id
)
def test_ppf_inverts_cdf(law):
    xs = np.linspace(-7, 7, 57) * law.std
    c = law.cdf(xs)
    # below the median q carries full relative precision; above it, q = cdf(x) rounds
    # 1 − q, so compare on the probability scale there
    low = (c > 1e-300) & (c <= 0.5)
    np.testing.assert_allclose(law.ppf(c[low]), xs[low], rtol=1e-11, atol=1e-12 * law.std)
    np.testing.assert_allclose(law.cdf(law.ppf(c[~low & (c > 0)])), c[~low & (c > 0)], rtol=1e-15)


# --------------------------------------------------------------------------------------
# hypothesis properties
# --------------------------------------------------------------------------------------

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
@given(a=finite, b=finite)
def test_property_cdf_monotone_and_complementary(law, a, b):
    lo, hi = min(a, b), max(a, b)
    assert law.cdf(lo) <= law.cdf(hi)
    assert law.sf(lo) >= law.sf(hi)
    assert 0.0 <= law.cdf(lo) <= 1.0
    assert law.cdf(a) + law.sf(a) == pytest.approx(1.0, abs=2e-16)
    assert law.density(a) >= 0.0


@pytest.mark.parametrize(
    "law", [law for law in CONTINUOUS if not isinstance(law, Exponential)], ids=law_id
)
@given(x=st.floats(min_value=-30, max_value=30, allow_nan=False))
def test_property_ppf_of_cdf(law, x):
    x = x * law.std
    c = law.cdf(x)
    if 1e-300 < c <= 0.5:  # q = cdf(x) carries full relative precision here
        assert law.ppf(c) == pytest.approx(x, rel=1e-10, abs=1e-12 * law.std)
    elif c > 0.5:  # q rounds 1 − q: compare on the probability scale
        assert law.cdf(law.ppf(c)) == pytest.approx(c, rel=1e-15)


@pytest.mark.parametrize("law", DISCRETE, ids=law_id)
@given(q=st.floats(min_value=0.0, max_value=1.0, exclude_min=True, exclude_max=True))
def test_property_discrete_ppf_is_the_generalised_inverse(law, q):
    k = law.ppf(q)
    assert law.cdf(k) >= q > law.cdf(k - 1)


@given(
    z=st.floats(min_value=-1e5, max_value=1e5, allow_nan=False),
    s=st.floats(min_value=0.01, max_value=100),
)
def test_property_inverse_quartic_symmetry_and_scaling(z, s):
    law, unit = InverseQuartic(scale=s), InverseQuartic()
    assert law.density(z) == law.density(-z)
    assert law.cdf(-z) == law.sf(z)
    assert law.cdf(z) == pytest.approx(float(unit.cdf(z / s)), rel=1e-14)
    assert law.density(z) == pytest.approx(float(unit.density(z / s)) / s, rel=1e-14)


# --------------------------------------------------------------------------------------
# the inverse-quartic law
# --------------------------------------------------------------------------------------


def _closed_form_cdf(z: float) -> float:
    """The brief's exact CDF for s = 1 (accurate away from the far tails)."""
    return (
        0.5
        + math.log((z * z + SQRT2 * z + 1) / (z * z - SQRT2 * z + 1)) / (4 * math.pi)
        + (math.atan(SQRT2 * z + 1) + math.atan(SQRT2 * z - 1)) / (2 * math.pi)
    )


def test_inverse_quartic_closed_form_cdf():
    law = InverseQuartic()
    for z in np.linspace(-4, 4, 81):
        assert law.cdf(z) == pytest.approx(_closed_form_cdf(z), abs=3e-16)
    assert law.cdf(0.0) == 0.5


def test_inverse_quartic_moments():
    law = InverseQuartic()

    def dens(z):
        return float(law.density(z))

    assert _quad(lambda z: z * z * dens(z), -np.inf, np.inf, [0.0]) == pytest.approx(1.0, abs=1e-10)
    assert law.variance == 1.0 and law.std == 1.0
    mean_abs = _quad(lambda z: abs(z) * dens(z), -np.inf, np.inf, [0.0])
    assert mean_abs == pytest.approx(1 / SQRT2, abs=1e-11)
    assert law.mean_absolute == 1 / SQRT2
    assert _quad(lambda z: z * dens(z), -50.0, 50.0, [0.0]) == pytest.approx(0.0, abs=1e-14)
    wide = InverseQuartic(scale=2.5)
    assert wide.variance == 6.25
    var = _quad(lambda z: z * z * float(wide.density(z)), -np.inf, np.inf, [0.0])
    assert var == pytest.approx(6.25, rel=1e-10)


def test_inverse_quartic_mean_absolute_monte_carlo():
    """E|Z| = 1/√2 from 200 000 draws.

    sd(|Z|) = √(E Z² − (E|Z|)²) = √½, so the standard error is √½/√200000 ≈ 0.00158;
    the tolerance of 5 standard errors has two-sided level ≈ 6e-7 (fixed seed).
    """
    z = InverseQuartic().sample(np.random.default_rng(11), 200_000)
    se = math.sqrt(0.5) / math.sqrt(z.size)
    assert abs(np.abs(z).mean() - 1 / SQRT2) < 5 * se
    assert abs(np.mean(z > 0) - 0.5) < 5 * 0.5 / math.sqrt(z.size)  # symmetry of the sign


def test_inverse_quartic_tails_to_full_precision():
    law = InverseQuartic()
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40

    def tail(x):  # ∫_x^∞ √2/(π(1+u⁴)) du, as ∫_0^{1/x} √2 v²/(π(1+v⁴)) dv
        y = 1 / mpmath.mpf(x)
        return mpmath.sqrt(2) / mpmath.pi * mpmath.quad(lambda v: v**2 / (1 + v**4), [0, y])

    for x in [0.3, 1.2, 1.49, 1.5, 1.51, 2.0, 3.7, 10.0, 123.4, 1e4, 1e8, 1e30, 1e100]:
        ref = float(tail(x))
        assert law.cdf(-x) == pytest.approx(ref, rel=2e-15), x
        assert law.sf(x) == pytest.approx(ref, rel=2e-15), x
    # leading asymptotics: P(Z < −x) ≈ √2/(3πx³)
    assert law.cdf(-1e80) == pytest.approx(SQRT2 / (3 * math.pi) * 1e-240, rel=1e-15)
    assert law.log_density(1e200) == pytest.approx(math.log(SQRT2 / math.pi) - 800 * math.log(10))


def test_inverse_quartic_tail_cdf_against_quad():
    law = InverseQuartic()
    for x in [1.0, 2.0, 5.0, 20.0, 300.0]:
        ref = integrate.quad(
            lambda z: float(law.density(z)), -np.inf, -x, epsabs=0, epsrel=1e-13, limit=200
        )[0]
        assert law.cdf(-x) == pytest.approx(ref, rel=1e-11)


def test_inverse_quartic_ppf_extreme_tails():
    law = InverseQuartic()
    for q in [1e-300, 1e-200, 1e-50, 1e-17, 1e-6]:
        x = law.ppf(q)
        assert law.cdf(x) == pytest.approx(q, rel=1e-14)
        upper = 1.0 - q
        assert law.ppf(upper) == -law.ppf(1.0 - upper)  # symmetric, and 1 − upper is exact
    assert law.ppf(5e-324) < -1e107
    assert law.ppf(0.5) == 0.0


# --------------------------------------------------------------------------------------
# pure ε
# --------------------------------------------------------------------------------------


def _iq_pure_epsilon_numeric(d: float) -> float:
    """sup_z |log(1 + (z + d)⁴) − log(1 + z⁴)|: fine grid, then bounded refinement."""

    def f(z):
        return math.log1p((z + d) ** 4) - math.log1p(z**4)

    span = 10.0 * (1.0 + d)
    grid = np.linspace(-span, span, 200_001)
    vals = np.log1p((grid + d) ** 4) - np.log1p(grid**4)
    i = int(np.argmax(np.abs(vals)))
    h = grid[1] - grid[0]
    sign = np.sign(vals[i])
    res = optimize.minimize_scalar(
        lambda z: -sign * f(z),
        bounds=(grid[i] - h, grid[i] + h),
        method="bounded",
        options={"xatol": 1e-13},
    )
    return abs(f(res.x))


def test_pure_epsilon_closed_forms():
    assert Laplace(scale=2.0).pure_epsilon(3.0) == 1.5
    assert DiscreteLaplace(scale=2.0).pure_epsilon(3) == 1.5
    assert DiscreteLaplace(scale=2.0).pure_epsilon(3.0) == 1.5
    for law in [
        Gaussian(sigma=1.0),
        DiscreteGaussian(sigma=1.0),
        Gumbel(scale=1.0),
        Exponential(scale=1.0),
    ]:
        assert law.pure_epsilon(1) == math.inf


@pytest.mark.parametrize("d", [1e-4, 0.05, 0.3, 1.0, 1.4142, 2.0, 7.5, 40.0])
def test_inverse_quartic_pure_epsilon_matches_numerical_supremum(d):
    ref = _iq_pure_epsilon_numeric(d)
    assert InverseQuartic().pure_epsilon(d) == pytest.approx(ref, rel=1e-10)
    # scale invariance: only Δ/s matters
    assert InverseQuartic(scale=3.0).pure_epsilon(3.0 * d) == pytest.approx(ref, rel=1e-12)


def test_inverse_quartic_pure_epsilon_small_shift_limit_and_monotonicity():
    law = InverseQuartic()
    for d in [1e-3, 1e-6, 1e-9]:
        assert law.pure_epsilon(d) == pytest.approx(3**0.75 * d, rel=2 * d)
    ds = np.geomspace(1e-6, 1e6, 200)
    eps = [law.pure_epsilon(d) for d in ds]
    assert np.all(np.diff(eps) > 0)
    assert law.pure_epsilon(1e6) == pytest.approx(math.log1p(1e24), rel=1e-6)


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, True, "1"], ids=repr)
def test_bad_sensitivity_is_refused(law, bad):
    with pytest.raises(InvalidParameterError):
        law.pure_epsilon(bad)
    with pytest.raises(InvalidParameterError):
        law.privacy_profile(0.5, bad)


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
@pytest.mark.parametrize("bad", [-0.1, math.nan, True, "1", None], ids=repr)
def test_bad_profile_epsilon_is_refused(law, bad):
    with pytest.raises(InvalidParameterError):
        law.privacy_profile(bad, 1)


@pytest.mark.parametrize("law", DISCRETE, ids=law_id)
def test_discrete_laws_need_integer_sensitivity(law):
    with pytest.raises(InvalidParameterError, match="integer"):
        law.privacy_profile(0.5, 1.5)
    with pytest.raises(InvalidParameterError, match="integer"):
        law.pure_epsilon(0.5)
    assert law.privacy_profile(0.5, 2.0) == law.privacy_profile(0.5, 2)


# --------------------------------------------------------------------------------------
# privacy profiles
# --------------------------------------------------------------------------------------


def _hockey_stick_continuous(law: NoiseLaw, eps: float, shift: float) -> float:
    """max over both directions of ∫ (p(z) − e^ε p(z − Δ))₊ dz by quad.

    The break points are the sign changes of the integrand, located on a grid with
    brentq (independently of the code under test).
    """

    def one(sign: float) -> float:
        def g(z: float) -> float:
            return float(law.density(z)) - math.exp(eps) * float(law.density(z - sign * shift))

        s = law.std + shift
        grid = (
            np.concatenate(
                [-np.geomspace(1e-3, 1e5, 400) * s, [0.0], np.geomspace(1e-3, 1e5, 400) * s]
            )
            + sign * shift / 2
        )
        grid.sort()
        vals = np.array([g(z) for z in grid])
        roots = [
            optimize.brentq(g, a, b, xtol=1e-14)
            for a, b, va, vb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:], strict=True)
            if va * vb < 0
        ]
        pts = [*roots, 0.0, sign * shift]
        lower = 0.0 if isinstance(law, Exponential) else -np.inf
        return _quad(lambda z: max(0.0, g(z)), lower, np.inf, pts)

    return max(one(1.0), one(-1.0))


def _hockey_stick_discrete(law: NoiseLaw, eps: float, shift: int) -> float:
    """Σ_k max(0, P(k) − e^ε P(k − Δ)) by brute force (both directions)."""
    ks = _support_window(law)
    ks = np.arange(ks[0] - shift, ks[-1] + shift + 1)
    logp = law.log_density(ks)
    out = []
    for sgn in (1, -1):
        logq = law.log_density(ks - sgn * shift)
        terms = np.exp(logp) - np.exp(np.minimum(eps + logq, 700.0))
        out.append(math.fsum(terms[terms > 0]))
    return max(out)


PROFILE_EPS = [0.0, 0.05, 0.3, 1.0, 2.5]


@pytest.mark.parametrize("law", CONTINUOUS, ids=law_id)
@pytest.mark.parametrize("shift", [0.4, 2.0])
def test_continuous_profiles_match_numerical_hockey_stick(law, shift):
    shift *= law.std
    for eps in PROFILE_EPS:
        ref = _hockey_stick_continuous(law, eps, shift)
        assert law.privacy_profile(eps, shift) == pytest.approx(ref, rel=1e-8, abs=1e-12), eps


@pytest.mark.parametrize("law", DISCRETE, ids=law_id)
@pytest.mark.parametrize("shift", [1, 3])
def test_discrete_profiles_match_brute_force_summation(law, shift):
    for eps in [*PROFILE_EPS, 6.0, 30.0]:
        ref = _hockey_stick_discrete(law, eps, shift)
        assert law.privacy_profile(eps, shift) == pytest.approx(ref, rel=1e-11, abs=1e-15), eps


def test_laplace_profile_closed_form():
    law = Laplace(scale=1.7)
    for d in [0.1, 1.0, 4.0]:
        for eps in np.linspace(0, 3, 13):
            expected = max(0.0, 1 - math.exp((eps - d / 1.7) / 2))
            assert law.privacy_profile(eps, d) == pytest.approx(expected, rel=1e-14, abs=1e-300)


def test_gaussian_profile_is_balle_wang():
    law = Gaussian(sigma=1.3)
    for d in [0.2, 1.0, 5.0]:
        for eps in [0.0, 0.1, 1.0, 4.0]:
            a, b = d / (2 * 1.3), eps * 1.3 / d
            expected = stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)
            assert law.privacy_profile(eps, d) == pytest.approx(expected, rel=1e-12, abs=1e-16)
    assert law.privacy_profile(800.0, 1.0) == 0.0  # no overflow
    assert law.privacy_profile(math.inf, 1.0) == 0.0


def test_gumbel_and_exponential_profiles():
    g = Gumbel(scale=0.8)
    assert 0 < g.privacy_profile(1.0, 1.0) < g.privacy_profile(0.5, 1.0) < 1
    assert 0.0 < g.privacy_profile(50.0, 1.0) < 1e-8  # ratio unbounded: δ > 0 for all ε
    assert g.privacy_profile(math.inf, 1.0) == 0.0
    assert g.privacy_profile(1.0, 1000.0) == pytest.approx(1.0)
    e = Exponential(scale=2.0)
    for eps in [0.0, 1.0, 100.0, math.inf]:
        assert e.privacy_profile(eps, 1.0) == pytest.approx(1 - math.exp(-0.5), rel=1e-15)


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
def test_profile_at_zero_is_total_variation(law):
    shift = 2 if law.is_discrete else 0.9 * law.std
    if law.is_discrete:
        ks = _support_window(law)
        ks = np.arange(ks[0] - shift, ks[-1] + shift + 1)
        tv = 0.5 * math.fsum(np.abs(law.density(ks) - law.density(ks - shift)))
    else:
        lower = 0.0 if isinstance(law, Exponential) else -np.inf
        tv = 0.5 * _quad(
            lambda z: abs(float(law.density(z)) - float(law.density(z - shift))),
            lower,
            np.inf,
            [0.0, shift, shift / 2],
        )
    assert law.privacy_profile(0.0, shift) == pytest.approx(tv, rel=1e-9, abs=1e-14)


@pytest.mark.parametrize("law", ALL_LAWS, ids=law_id)
def test_profile_is_monotone_and_vanishes_beyond_pure_epsilon(law):
    shift = 1
    eps_grid = np.linspace(0.0, 8.0, 33)
    deltas = [law.privacy_profile(e, shift) for e in eps_grid]
    assert all(0.0 <= d <= 1.0 for d in deltas)
    assert np.all(np.diff(deltas) <= 1e-15)
    pure = law.pure_epsilon(shift)
    if math.isfinite(pure):
        assert law.privacy_profile(pure, shift) == 0.0
        assert law.privacy_profile(pure * 1.0001, shift) == 0.0
        assert law.privacy_profile(pure * 0.99, shift) > 0.0


def test_inverse_quartic_worst_shift_is_the_sensitivity():
    """δ(ε) at shift Δ dominates every smaller shift (checked on a grid)."""
    law = InverseQuartic()
    for eps in [0.0, 0.2, 1.0, 3.0]:
        deltas = [law.privacy_profile(eps, s) for s in np.linspace(0.05, 6.0, 60)]
        assert np.all(np.diff(deltas) >= -1e-15)


def test_inverse_quartic_profile_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 30
    law = InverseQuartic()

    def p(z):
        return mpmath.sqrt(2) / mpmath.pi / (1 + z**4)

    for d, eps in [(1.0, 0.001), (3.0, 0.1), (0.5, 0.4)]:
        dd, ee = mpmath.mpf(d), mpmath.mpf(eps)

        def g(z, dd=dd, ee=ee):
            return mpmath.log(p(z)) - mpmath.log(p(z - dd)) - ee

        def dg(z, dd=dd):
            return 4 * (z - dd) ** 3 / (1 + (z - dd) ** 4) - 4 * z**3 / (1 + z**4)

        z_star = mpmath.findroot(dg, optimize.brentq(lambda z: float(dg(z)), -50.0, 0.0))

        def gf(z, g=g):
            return float(g(z))

        b = mpmath.findroot(g, optimize.brentq(gf, float(z_star), d / 2))
        a = mpmath.findroot(g, optimize.brentq(gf, -1e6, float(z_star)))
        ref = mpmath.quad(lambda z, dd=dd, ee=ee: p(z) - mpmath.exp(ee) * p(z - dd), [a, z_star, b])
        assert law.privacy_profile(eps, d) == pytest.approx(float(ref), rel=1e-13)


def test_discrete_profile_large_epsilon_uses_log_space():
    law = DiscreteGaussian(sigma=1.0)
    ref = _hockey_stick_discrete(law, 714.0, 40)
    assert law.privacy_profile(714.0, 40) == pytest.approx(ref, rel=1e-9)
    assert law.privacy_profile(1e6, 3) == 0.0
    assert law.privacy_profile(math.inf, 3) == 0.0


# --------------------------------------------------------------------------------------
# discrete laws: closed forms, variance, exact samplers
# --------------------------------------------------------------------------------------


def test_discrete_laplace_pmf_closed_form():
    t = 1.7
    law = DiscreteLaplace(scale=t)
    for k in range(-5, 6):
        expected = (math.exp(1 / t) - 1) / (math.exp(1 / t) + 1) * math.exp(-abs(k) / t)
        assert law.density(k) == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize(
    "law", [*DISCRETE, DiscreteGaussian(sigma=0.9), DiscreteGaussian(sigma=3.0)], ids=law_id
)
def test_discrete_variance_by_summation(law):
    ks = _support_window(law)
    ref = math.fsum(ks**2 * law.density(ks))
    assert law.variance == pytest.approx(ref, rel=1e-13)


def test_discrete_gaussian_normaliser_and_variance_against_direct_sums():
    for sigma in [0.05, 0.5, 0.99, 1.0, 1.01, 2.0, 16.0, 16.5, 123.4]:
        law = DiscreteGaussian(sigma=sigma)
        j = np.arange(1, math.ceil(40 * sigma) + 5, dtype=np.float64)
        w = np.exp(-j * j / (2 * sigma * sigma))
        z = 1 + 2 * math.fsum(w)
        assert law.log_normaliser == pytest.approx(math.log(z), rel=3e-16, abs=3e-16)
        assert law.variance == pytest.approx(2 * math.fsum(j * j * w) / z, rel=1e-13)
        assert law.variance <= sigma**2 * (1 + 1e-15)


@pytest.mark.parametrize("sigma", [3.3, 16.0, 17.0, 57.3, 300.0])
def test_discrete_gaussian_tails_in_both_regimes(sigma):
    """Left tails P(Z ≤ −m) from direct summation vs the code's series/Euler–Maclaurin paths."""
    law = DiscreteGaussian(sigma=sigma)
    big = np.arange(1, math.ceil(45 * sigma) + 5, dtype=np.float64)
    w = np.exp(-big * big / (2 * sigma * sigma))
    z = 1 + 2 * math.fsum(w)
    ms = np.unique(
        np.concatenate(
            [np.linspace(1, 37 * sigma, 40).round(), np.round([sigma**2 / 4 - 1, sigma**2 / 4 + 1])]
        )
    )
    ms = ms[(ms >= 1) & (ms < 37 * sigma)]
    for m in ms:
        ref = math.fsum(w[big >= m]) / z
        assert law.cdf(-m) == pytest.approx(ref, rel=1e-13), m
        assert law.sf(m - 1) == pytest.approx(ref, rel=1e-13), m


class _IntegersOnly(np.random.Generator):
    """A generator that refuses every method except ``integers``."""

    def __getattribute__(self, name):
        if name in {
            "random",
            "geometric",
            "normal",
            "standard_normal",
            "laplace",
            "uniform",
            "exponential",
            "standard_exponential",
            "standard_gamma",
            "gamma",
            "choice",
            "bytes",
            "binomial",
            "poisson",
            "permutation",
            "shuffle",
        }:
            raise AssertionError(f"exact sampler used Generator.{name}")
        return super().__getattribute__(name)


@pytest.mark.parametrize("law", DISCRETE, ids=law_id)
def test_exact_sampler_uses_only_integers_and_is_reproducible(law):
    draws = law.sample_exact(_IntegersOnly(np.random.PCG64(3)), (4, 5))
    assert draws.shape == (4, 5) and draws.dtype == np.int64
    again = law.sample_exact(_IntegersOnly(np.random.PCG64(3)), (4, 5))
    np.testing.assert_array_equal(draws, again)
    assert law.sample_exact(0, 0).shape == (0,)


def test_exact_bernoulli_exp_and_uniform_helpers():
    from fractions import Fraction

    from privaudit.spec.noise.discrete import _bernoulli_exp_neg, _uniform_below

    gen = np.random.default_rng(5)
    huge = (1 << 200) + 12345
    draws = [_uniform_below(gen, huge) for _ in range(200)]
    assert all(0 <= d < huge for d in draws)
    assert max(draws) > huge // 2  # uses the high bits
    for gamma in [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(7, 3)]:
        n = 4000
        hits = sum(_bernoulli_exp_neg(gen, gamma) for _ in range(n))
        p = math.exp(-float(gamma))
        # 5 binomial standard errors: two-sided level ≈ 6e-7 (fixed seed)
        assert abs(hits / n - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-12


# --------------------------------------------------------------------------------------
# randomized response
# --------------------------------------------------------------------------------------


def test_randomized_response_probabilities():
    law = RandomizedResponseLaw(categories=4, keep_probability=0.55)
    q = 0.15
    m = np.array([[law.pmf_given(y, x) for y in range(4)] for x in range(4)])
    np.testing.assert_allclose(m.sum(axis=1), 1.0, rtol=1e-15)
    np.testing.assert_allclose(np.diag(m), 0.55)
    assert law.flip_probability == pytest.approx(q)
    assert law.pmf_given([0, 1, 2, 3], 1).tolist() == pytest.approx([q, 0.55, q, q])
    np.testing.assert_allclose(law.log_pmf_given(np.arange(4)[:, None], np.arange(4)), np.log(m))
    assert isinstance(law.pmf_given(0, 0), np.float64)


def test_randomized_response_epsilon_and_profile():
    law = RandomizedResponseLaw(categories=4, keep_probability=0.55)
    eps = math.log(0.55 * 3 / 0.45)
    assert law.epsilon == pytest.approx(eps, rel=1e-15)
    for m in [2, 3, 10]:
        for e in [0.0, 0.1, 1.0, 3.0]:
            rr = RandomizedResponseLaw.from_epsilon(e, m)
            p = math.exp(e) / (math.exp(e) + m - 1)
            # p rounded down to the stable grid (spec.stable_values): never above the exact p
            # and within one grid step of it, so ε is at most e and loses 1e-5/(1 − p)
            assert p * (1 - 1.1e-5) <= rr.keep_probability <= p
            assert e - 1.1e-5 / (1 - p) <= rr.epsilon <= e + 1e-14
    # exact profile against brute force over outputs, every ordered pair of inputs
    for law in [
        RandomizedResponseLaw(categories=3, keep_probability=0.7),
        RandomizedResponseLaw(categories=5, keep_probability=0.1),
    ]:
        for e in [0.0, 0.2, 0.8, 2.0, law.epsilon, law.epsilon + 0.1]:
            worst = max(
                math.fsum(
                    max(0.0, law.pmf_given(y, x) - math.exp(e) * law.pmf_given(y, xp))
                    for y in range(law.categories)
                )
                for x in range(law.categories)
                for xp in range(law.categories)
                if x != xp
            )
            assert law.privacy_profile(e) == pytest.approx(worst, abs=1e-15)
        assert law.privacy_profile(0.0) == pytest.approx(law.total_variation(), abs=1e-15)
        assert law.privacy_profile(law.epsilon) == pytest.approx(0.0, abs=1e-15)
    below = RandomizedResponseLaw(categories=5, keep_probability=0.1)  # p < 1/m is allowed
    assert below.epsilon == pytest.approx(abs(math.log(0.1 * 4 / 0.9)))
    sure = RandomizedResponseLaw(categories=3, keep_probability=1.0)
    assert sure.epsilon == math.inf
    assert sure.privacy_profile(5.0) == 1.0 and sure.privacy_profile(math.inf) == 1.0
    assert RandomizedResponseLaw.from_epsilon(math.inf, 3) == sure
    assert RandomizedResponseLaw.from_epsilon(0.0, 3).keep_probability == pytest.approx(1 / 3)


def test_randomized_response_sampling_shapes_and_validation():
    law = RandomizedResponseLaw(categories=3, keep_probability=0.8)
    y = law.sample_given(np.array([0, 1, 2, 2]), 0)
    assert y.shape == (4,) and y.dtype == np.int64 and np.all((y >= 0) & (y < 3))
    assert law.sample_given(1, 0, 7).shape == (7,)
    assert law.sample_given(np.array([0, 1]), 0, (5, 2)).shape == (5, 2)
    assert isinstance(law.sample_given(2, 0), np.integer)
    np.testing.assert_array_equal(law.sample_given([0, 1, 2], 9), law.sample_given([0, 1, 2], 9))
    assert np.all(
        RandomizedResponseLaw(categories=3, keep_probability=1.0).sample_given(
            np.arange(3), 1, (100, 3)
        )
        == np.arange(3)
    )
    for bad in [3, -1, [0, 5], 1.5, "a", math.nan, True]:
        with pytest.raises(InvalidInputError):
            law.sample_given(bad, 0)
    with pytest.raises(InvalidInputError):
        law.sample_given([0, 1, 2], 0, (4, 2))
    with pytest.raises(InvalidInputError):
        law.pmf_given(3, 0)
    with pytest.raises(InvalidParameterError):
        law.sample_given(0, 0, -2)
    with pytest.raises(InvalidParameterError):
        law.privacy_profile(-1.0)
