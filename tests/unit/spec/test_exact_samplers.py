"""The vectorised exact CKS20 samplers (``spec.noise._cks``): their decisions, range and law.

Deterministic tests check the exact pieces (the float filter's error bound against exact
rational arithmetic, the exact decision of close calls, the supported range, that the
draws come from the injected generator); binomial tests check the compiled kernel's coins
through the discrete Laplace law and the exact rescue of the discrete Gaussian's coin.  The
seeded statistical tests state their level: α = 1e-4 each.
"""

from __future__ import annotations

import decimal
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from privaudit.spec import DiscreteGaussian, DiscreteLaplace
from privaudit.spec.errors import ExactSamplingRangeError, InvalidParameterError
from privaudit.spec.noise import _cks

ALPHA = 1e-4


@pytest.mark.parametrize(
    "scale", [Fraction(1), Fraction(10, 3), Fraction(7, 2), Fraction(1 << 40), Fraction(1 << 45, 3)]
)
def test_discrete_laplace_zero_and_tail_frequencies(scale):
    """P(Y = 0) = tanh(s/(2t)) and P(|Y| > m) = 2e^{−(m+1)s/t}/(1 + e^{−s/t}) for DLap(t/s)
    (Algorithm 1 at γ = U/t with t up to 2⁴⁵, the e⁻¹ coins, the division by s): exact
    binomial tests on 200 000 draws, α = 1e-4 each."""
    gen = np.random.default_rng(int(scale.numerator % 997))
    n = 200_000
    y = _cks.discrete_laplace_exact(gen, scale, n)
    b = float(scale)
    assert stats.binomtest(int((y == 0).sum()), n, math.tanh(0.5 / b)).pvalue > ALPHA
    m = math.floor(b)
    q = math.exp(-1.0 / b)
    p_tail = 2 * q ** (m + 1) / (1 + q)
    assert stats.binomtest(int((np.abs(y) > m).sum()), n, p_tail).pvalue > ALPHA


def test_discrete_laplace_below_every_integer_scale_is_zero():
    """A scale t/s with s ≥ 2⁶³ (here 2⁻⁷⁰) gives 0 exactly: every U + tV < s."""
    assert not np.any(DiscreteLaplace(scale=2.0**-70).sample_exact(3, 1000))


def test_draws_come_from_the_injected_generator():
    """The kernel advances the caller's generator: a seed reproduces, the next call differs,
    and the generator's state moved."""
    for law in (DiscreteLaplace(scale=2.5), DiscreteGaussian(sigma=2.5)):
        gen = np.random.default_rng(8)
        before = gen.bit_generator.state["state"]["state"]
        first = law.sample_exact(gen, 1000)
        assert gen.bit_generator.state["state"]["state"] != before
        second = law.sample_exact(gen, 1000)
        assert not np.array_equal(first, second)
        np.testing.assert_array_equal(first, law.sample_exact(np.random.default_rng(8), 1000))


@pytest.mark.parametrize("sigma", [0.3, 1.0, 3.73, 12.5, 1000.0, 123456.789])
def test_float_filter_bound_covers_the_exact_gamma(sigma):
    """|γ̂ − γ| ≤ M for every |y| up to 40σ (against exact rational arithmetic)."""
    sigma2 = Fraction(sigma) ** 2
    t = math.floor(sigma) + 1
    a = np.unique(np.linspace(0, 40 * sigma + 5, 400).astype(np.int64))
    gamma, margin = _cks._gamma_float(a.astype(np.float64), sigma, t)
    for ai, gi, mi in zip(a, gamma, margin, strict=True):
        exact = _cks._exact_gamma(int(ai), sigma2, t)
        assert abs(Fraction(float(gi)) - exact) <= Fraction(float(mi))


@pytest.mark.parametrize(
    "r",
    [
        Fraction(0),
        Fraction(1, 3),
        Fraction(1),
        Fraction(7, 2),
        Fraction(4001, 37),
        Fraction(12345, 4001),
    ],
)
def test_exp_bounds_bracket_the_exponential(r):
    """The rational bounds of the exact fallback bracket e^{−r} (against a 60-digit
    decimal value, relative error below 10⁻⁵⁰) and are tight."""
    low, high = _cks._exp_neg_bounds(r, 24)
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        value = (-(decimal.Decimal(r.numerator) / r.denominator)).exp()
        slack = value * decimal.Decimal(10) ** -50
        assert low <= high
        assert decimal.Decimal(low.numerator) / low.denominator <= value + slack
        assert decimal.Decimal(high.numerator) / high.denominator >= value - slack
    assert high - low <= Fraction(1, 10**15) * high


def test_close_calls_are_decided_exactly():
    """``_LazyUniform.below_exp_neg`` away from e^{−r}·2⁵³ draws no randomness; at
    K = ⌊e^{−r}·2⁵³⌋ it draws W's further bits and is Bernoulli(e^{−r}·2⁵³ − K)."""
    r = Fraction(1, 3)
    low, _ = _cks._exp_neg_bounds(r, 40)
    whole = math.floor(low * (1 << 53))
    gen = np.random.default_rng(0)
    state = gen.bit_generator.state["state"]["state"]
    assert _cks._LazyUniform(whole - 1, 53).below_exp_neg(gen, r) is True
    assert _cks._LazyUniform(whole + 1, 53).below_exp_neg(gen, r) is False
    assert _cks._LazyUniform(5, 53).below_exp_neg(gen, Fraction(0)) is True
    assert gen.bit_generator.state["state"]["state"] == state
    p = float(low * (1 << 53) - whole)
    hits = sum(_cks._LazyUniform(whole, 53).below_exp_neg(gen, r) for _ in range(20_000))
    assert stats.binomtest(hits, 20_000, p).pvalue > ALPHA


@pytest.mark.parametrize("sigma", [3.73, 4000.0])
def test_kernel_decisions_match_exact_arithmetic(sigma):
    """Every decision of the discrete Gaussian kernel, replayed from the same raw words in
    exact rational arithmetic (X = max{x : W < e^{−x/t}}, the sign bit, [W < e^{−γ}]),
    gives the same draws: the float filter never decides a comparison wrongly."""
    n = 300
    got = DiscreteGaussian(sigma=sigma).sample_exact(np.random.default_rng(5), n)
    words = np.random.default_rng(5).integers(
        0, (1 << 64) - 1, size=4096, dtype=np.uint64, endpoint=True
    )
    sigma2 = Fraction(sigma) ** 2
    t = math.floor(sigma) + 1
    spare = np.random.default_rng(99)  # a close call would draw here (none expected)
    replay, pos = [], 0
    while len(replay) < n:
        word = int(words[pos])
        pos += 1
        x = _cks._geometric_exact(spare, word >> 11, t)
        if word & 1 and x == 0:
            continue
        y = -x if word & 1 else x
        big_k = int(words[pos]) >> 11
        pos += 1
        if _cks._LazyUniform(big_k, 53).below_exp_neg(spare, _cks._exact_gamma(x, sigma2, t)):
            replay.append(y)
    np.testing.assert_array_equal(got, replay)


def test_vectorised_and_scalar_reference_agree():
    """Two-sample χ² between 3 000 scalar-reference and 200 000 vectorised exact draws
    (σ = 2.5 discrete Gaussian and scale 1.7 discrete Laplace), α = 1e-4 each."""
    for law, ref in [
        (
            DiscreteGaussian(sigma=2.5),
            lambda g: _cks._discrete_gaussian_exact(g, Fraction(2.5) ** 2),
        ),
        (
            DiscreteLaplace(scale=1.7),
            lambda g: _cks._discrete_laplace_exact(g, *Fraction(1.7).as_integer_ratio()),
        ),
    ]:
        gen = np.random.default_rng(21)
        slow = np.array([ref(gen) for _ in range(3000)])
        fast = law.sample_exact(np.random.default_rng(22), 200_000)
        edges = [-np.inf, -3.5, -1.5, -0.5, 0.5, 1.5, 3.5, np.inf]
        table = np.array([np.histogram(s, edges)[0] for s in (slow, fast)])
        assert stats.chi2_contingency(table).pvalue > ALPHA


def test_supported_range_is_enforced():
    with pytest.raises(ExactSamplingRangeError, match="2\\*\\*56"):
        DiscreteLaplace(scale=2.0**60).sample_exact(0, 3)
    with pytest.raises(ExactSamplingRangeError, match="sigma"):
        DiscreteGaussian(sigma=2.0**53).sample_exact(0, 3)
    assert issubclass(ExactSamplingRangeError, InvalidParameterError)
    # the largest float scale of the range works
    assert DiscreteLaplace(scale=2.0**55).sample_exact(1, 4).dtype == np.int64
    assert DiscreteGaussian(sigma=2.0**40).sample_exact(1, 4).dtype == np.int64


def test_exact_sampler_shapes_and_seeds():
    law = DiscreteGaussian(sigma=3.0)
    a = law.sample_exact(5, (3, 4))
    assert a.shape == (3, 4) and a.dtype == np.int64
    np.testing.assert_array_equal(a, law.sample_exact(5, (3, 4)))
    assert DiscreteLaplace(scale=0.4).sample_exact(0, 0).shape == (0,)


@pytest.mark.parametrize("a", [0, 4, 11, 25])
def test_exact_rescue_of_the_acceptance_coin(a):
    """The kernel's close calls of the acceptance coin, decided in exact arithmetic, at
    σ = 3.73 for a fixed |y|: the whole coin (RESCUE_COIN) and the coin [W < e^{−γ}] handed
    over with a uniform K (RESCUE_ACCEPT) are both Bernoulli(exp(−γ)).  Binomial tests on
    5 000 coins each, α = 1e-4."""
    sigma = 3.73
    sigma2 = Fraction(sigma) ** 2
    t = math.floor(sigma) + 1
    gamma = _cks._exact_gamma(a, sigma2, t)
    p = math.exp(-float(gamma))
    gen = np.random.default_rng(a)
    n = 5_000
    kernel = _cks._kernel()
    coin = sum(_cks._rescue(gen, kernel.RESCUE_COIN, a, 0, sigma2, t) is not None for _ in range(n))
    assert stats.binomtest(coin, n, p).pvalue > ALPHA
    big_k = gen.integers(0, 1 << 53, n)
    step = sum(
        _cks._rescue(gen, kernel.RESCUE_ACCEPT, -a, int(k), sigma2, t) is not None for k in big_k
    )
    assert stats.binomtest(step, n, p).pvalue > ALPHA


def test_exact_rescue_of_the_proposal():
    """RESCUE_GEO's X = max{x : W < e^{−x/t}} from a uniform K has P(X ≥ x) = e^{−x/t}
    (binomial tests at x = t and 2t, t = 4, on 5 000 draws, α = 1e-4); K = 0 (W < 2⁻⁵³)
    gives X ≥ 53·t·ln 2."""
    t = 4
    gen = np.random.default_rng(3)
    n = 5_000
    x = np.array([_cks._geometric_exact(gen, int(k), t) for k in gen.integers(0, 1 << 53, n)])
    for m in (t, 2 * t):
        assert stats.binomtest(int((x >= m).sum()), n, math.exp(-m / t)).pvalue > ALPHA
    assert _cks._geometric_exact(gen, 0, t) >= math.floor(53 * t * math.log(2))
