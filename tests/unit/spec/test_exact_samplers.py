"""The vectorised exact CKS20 samplers (``spec.noise._cks``): their decisions, range and law.

Deterministic tests check the exact pieces (the factorial-digit decoding of the
Bernoulli(e⁻¹) coin against Algorithm 1's own coins, the float filter's error bound against
exact rational arithmetic, the exact rescue of close calls, the supported range).  The
seeded statistical tests state their level: α = 1e-4 each.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from spec import DiscreteGaussian, DiscreteLaplace
from spec.errors import ExactSamplingRangeError, InvalidParameterError
from spec.noise import _cks

ALPHA = 1e-4


def _first_failing_coin(w: int, n: int) -> int:
    """Algorithm 1 with γ = 1 read off W's factorial digits: W = Σ_j d_j · n!/j!,
    d_j ∈ {0..j−1}; coin k = Bernoulli(1/k) succeeds iff d_k = 0 (k = 2..n)."""
    size = math.factorial(n)
    for k in range(2, n + 1):
        d_k = (w // (size // math.factorial(k))) % k
        if d_k != 0:
            return k
    return n + 1  # all coins 2..n succeeded


def test_exp1_table_matches_algorithm_1_digits():
    """Every one of the 8! table entries against Algorithm 1's coins (deterministic)."""
    n = _cks._EXP1_N
    table = _cks._EXP1_TABLE
    assert table.size == math.factorial(n)
    expected = np.array([1 if _first_failing_coin(w, n) % 2 == 1 else 0
                         for w in range(table.size)], dtype=np.int8)
    expected[0] = -1  # all coins succeeded: undecided, continued from coin n + 1
    np.testing.assert_array_equal(table, expected)
    # P(success) from the table is Σ_{j odd} (1/(j−1)! − 1/j!) exactly
    p = sum(Fraction(1, math.factorial(j - 1)) - Fraction(1, math.factorial(j))
            for j in range(3, n + 1, 2))
    assert Fraction(int((table == 1).sum()), table.size) == p


def test_exp1_coin_and_geometric_frequencies():
    """Binomial tests of P(coin) = e⁻¹ and P(V ≥ 2) = e⁻² on 10⁶ draws, α = 1e-4 each."""
    gen = np.random.default_rng(12)
    n = 1_000_000
    hits = int(_cks._bernoulli_exp1(gen, n).sum())
    assert stats.binomtest(hits, n, math.exp(-1)).pvalue > ALPHA
    v = _cks._geometric_exp1(gen, n)
    assert stats.binomtest(int((v >= 2).sum()), n, math.exp(-2)).pvalue > ALPHA


@pytest.mark.parametrize("t", [1, 2, 7, 1 << 40])
def test_bernoulli_exp_ratio_frequency(t):
    """Bernoulli(exp(−u/t)) at u = ⌊t/2⌋: binomial test on 200 000 coins, α = 1e-4."""
    gen = np.random.default_rng(t % 1000)
    u = np.full(200_000, t // 2, dtype=np.int64)
    hits = int(_cks._bernoulli_exp_ratio(gen, u, t).sum())
    assert stats.binomtest(hits, u.size, math.exp(-(t // 2) / t)).pvalue > ALPHA


@pytest.mark.parametrize("sigma", [0.3, 1.0, 3.73, 12.5, 1000.0, 123456.789])
def test_float_filter_bound_covers_the_exact_gamma(sigma):
    """|γ̂ − γ| ≤ M for every |y| up to 40σ (against exact rational arithmetic)."""
    sigma2 = Fraction(sigma) ** 2
    t = math.floor(sigma) + 1
    a = np.unique(np.linspace(0, 40 * sigma + 5, 400).astype(np.int64))
    gamma, margin = _cks._gamma_float(a.astype(np.float64), sigma, t)
    for ai, gi, mi in zip(a, gamma, margin):
        exact = _cks._exact_gamma(int(ai), sigma2, t)
        assert abs(Fraction(float(gi)) - exact) <= Fraction(float(mi))


def test_close_calls_are_decided_exactly():
    """``_coin_below`` with K at ⌊g·2⁵³⌋ draws W's bits; away from it, no randomness."""
    g = Fraction(1, 3)
    whole = math.floor(g * (1 << 53))
    gen = np.random.default_rng(0)
    assert _cks._coin_below(gen, whole - 1, g) is True
    assert _cks._coin_below(gen, whole + 1, g) is False
    # at K = ⌊g·2⁵³⌋ the coin is Bernoulli(g·2⁵³ − K) = Bernoulli(1/3) or (2/3)
    p = float(g * (1 << 53) - whole)
    hits = sum(_cks._coin_below(gen, whole, g) for _ in range(20_000))
    assert stats.binomtest(hits, 20_000, p).pvalue > ALPHA


def test_vectorised_and_scalar_reference_agree():
    """Two-sample χ² between 3 000 scalar-reference and 200 000 vectorised exact draws
    (σ = 2.5 discrete Gaussian and scale 1.7 discrete Laplace), α = 1e-4 each."""
    for law, ref in [
        (DiscreteGaussian(sigma=2.5), lambda g: _cks._discrete_gaussian_exact(g, Fraction(2.5) ** 2)),
        (DiscreteLaplace(scale=1.7),
         lambda g: _cks._discrete_laplace_exact(g, *Fraction(1.7).as_integer_ratio())),
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


@pytest.mark.parametrize("a", [0, 3, 4, 11, 25])
def test_discrete_gaussian_acceptance_coin_frequency(a):
    """Bernoulli(exp(−(|y| − σ²/t)²/(2σ²))) at σ = 3.73 for a fixed |y|: binomial test on
    100 000 coins (covers ⌊γ⌋ ≥ 1 for a ≥ 11), α = 1e-4."""
    sigma = 3.73
    sigma2 = Fraction(sigma) ** 2
    t = math.floor(sigma) + 1
    y = np.full(100_000, a, dtype=np.int64)
    hits = int(_cks._dg_accept(np.random.default_rng(a), y, sigma, sigma2, t).sum())
    p = math.exp(-float(_cks._exact_gamma(a, sigma2, t)))
    assert stats.binomtest(hits, y.size, p).pvalue > ALPHA
