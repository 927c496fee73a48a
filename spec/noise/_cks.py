"""Exact samplers of the discrete Laplace and discrete Gaussian laws (CKS20 Algorithms 1–3).

Two implementations of the same algorithms, both exact (the law of every draw is the
target law exactly, not up to floating-point rounding), both taking all their
randomness from ``Generator.integers`` (exactly uniform integers):

* the **scalar reference** (``_bernoulli_exp_neg``, ``_discrete_laplace_exact``,
  ``_discrete_gaussian_exact``): one draw at a time in :class:`fractions.Fraction`
  arithmetic, a literal transcription of the paper;
* the **vectorised samplers** (:func:`discrete_laplace_exact`,
  :func:`discrete_gaussian_exact`): the same algorithms run over numpy ``int64`` batches,
  every ``while`` loop of the paper becoming batch rounds over the entries still
  running (compacted by index after each round), and every rejection loop becoming
  rounds of proposals until enough are accepted (taking the first accepted proposals in
  draw order, a rule that looks only at the acceptance indicators, so the accepted
  values stay i.i.d. from the target law).

How each random decision is made exactly, vectorised:

* ``Bernoulli(exp(−u/t))`` for integers ``0 ≤ u < t`` (Algorithm 1, γ ≤ 1): round k
  draws ``R`` uniform in ``{0, …, tk − 1}`` and continues where ``R < u`` (an exact
  integer comparison, ``tk < 2⁶³``); the result is "the first failing k is odd".
* ``Bernoulli(exp(−1))`` (Algorithm 1 with γ = 1): its coins ``Bernoulli(1/k)`` for
  ``k = 2, …, 8`` are the 7 independent digits of ONE integer ``W`` uniform in
  ``{0, …, 8! − 1}`` in the factorial number system; the first failing k is the j
  with ``8!/j! ≤ W < 8!/(j − 1)!``, so one uint16 and a lookup in a 40 320-entry table
  decide the coin; ``W = 0`` (probability 1/8!) continues with the scalar coins from
  k = 9.
* ``Bernoulli(exp(−γ))`` for the discrete Gaussian's rational
  ``γ = (|y| − σ²/t)²/(2σ²)`` (σ² = ``Fraction(σ)²`` has ~106-bit numerator and
  denominator, so no int64 formula exists): ``γ = n + f`` with ``n = ⌊γ⌋`` coins
  ``Bernoulli(exp(−1))`` and Algorithm 1 for ``f < 1``, whose coins ``Bernoulli(f/k)``
  compare a uniform ``V = (K + W)/2⁵³`` (K uniform in ``{0, …, 2⁵³ − 1}``, W the
  unrevealed lower bits) with ``f/k``.  The comparison is decided from a float64 value
  of ``f/k`` with a rigorous error bound (``_gamma_margin``) when ``[K/2⁵³, (K+1)/2⁵³)``
  lies on one side of ``f/k ± bound``, and otherwise in exact rational arithmetic from
  the same K (drawing W's bits only then), so the float is a filter and never decides a
  close call.  Where ``n`` itself is uncertain (γ within the bound of an integer), the
  whole coin is drawn by the scalar reference before any randomness is used.

Supported parameters (``ExactSamplingRangeError`` outside): discrete Laplace scale
``t/s`` (in lowest terms) with ``t ≤ 2⁵⁶`` — every float scale below 2⁵⁶ qualifies
(floats are dyadic, ``t`` ≤ 2⁵³ · 2^e) — and discrete Gaussian σ with ``⌊σ⌋ + 1 ≤ 2⁵²``
(every float σ < 2⁵² − 1).  Draws are int64; an output beyond ±(2⁶³ − 1) (probability
below e⁻¹²⁷ in the supported range) raises the same error rather than wrap.

References
----------
.. [1] Canonne, Kamath, Steinke. "The Discrete Gaussian for Differential Privacy."
   NeurIPS 2020 (arXiv:2004.00010), Algorithms 1 (Bernoulli(exp(−γ))), 2 (discrete
   Laplace) and 3 (discrete Gaussian).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from ..errors import ExactSamplingRangeError

__all__ = ["MAX_EXACT_T", "discrete_gaussian_exact", "discrete_laplace_exact"]

IntArray = npt.NDArray[np.int64]

#: Largest numerator t of the discrete Laplace scale t/s (and ⌊σ⌋ + 1) supported.
MAX_EXACT_T = 1 << 56
#: Largest ⌊σ⌋ + 1 of the discrete Gaussian: t and |y| < 2⁵² are exact in float64.
_MAX_DG_T = 1 << 52
_INT64_MAX = (1 << 63) - 1
_INT64_SPAN = 1 << 63
_TWO53 = float(1 << 53)
_U = 2.0**-53        # unit roundoff of float64
#: Largest batch of proposals per round (keeps the working arrays in cache).
_BATCH = 1 << 16
#: Size of the first batch of proposals relative to the outputs still needed.
_OVERSHOOT = 1.15


# --------------------------------------------------------------------------------------
# scalar reference (CKS20 Algorithms 1–3, one draw at a time)
# --------------------------------------------------------------------------------------
def _uniform_below(gen: np.random.Generator, n: int) -> int:
    """An exactly uniform integer in {0, …, n − 1} for any Python int n ≥ 1."""
    if n <= _INT64_SPAN:
        return int(gen.integers(0, n))
    bits = n.bit_length()
    while True:
        value, left = 0, bits
        while left > 0:
            chunk = min(left, 62)
            value = (value << chunk) | int(gen.integers(0, 1 << chunk))
            left -= chunk
        if value < n:
            return value


def _bernoulli(gen: np.random.Generator, p: Fraction) -> bool:
    """Bernoulli(p) for rational p ∈ [0, 1], exactly."""
    return _uniform_below(gen, p.denominator) < p.numerator


def _bernoulli_exp_neg(gen: np.random.Generator, gamma: Fraction) -> bool:
    """Bernoulli(exp(−γ)) for rational γ ≥ 0 — CKS20 Algorithm 1."""
    if gamma <= 1:
        k = 1
        while _bernoulli(gen, gamma / k):
            k += 1
        return k % 2 == 1
    one = Fraction(1)
    for _ in range(math.floor(gamma)):
        if not _bernoulli_exp_neg(gen, one):
            return False
    return _bernoulli_exp_neg(gen, gamma - math.floor(gamma))


def _discrete_laplace_exact(gen: np.random.Generator, t: int, s: int) -> int:
    """DLap(t/s), P(y) ∝ e^{−|y| s/t}, for positive integers s, t — CKS20 Algorithm 2."""
    one = Fraction(1)
    while True:
        u = _uniform_below(gen, t)
        if not _bernoulli_exp_neg(gen, Fraction(u, t)):
            continue
        v = 0
        while _bernoulli_exp_neg(gen, one):
            v += 1
        y = (u + t * v) // s
        negative = _uniform_below(gen, 2) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def _discrete_gaussian_exact(gen: np.random.Generator, sigma2: Fraction) -> int:
    """N_ℤ(0, σ²) for rational σ² > 0 — CKS20 Algorithm 3."""
    t = math.isqrt(sigma2.numerator // sigma2.denominator) + 1  # ⌊σ⌋ + 1, exactly
    centre = sigma2 / t
    while True:
        y = _discrete_laplace_exact(gen, t, 1)
        gamma = (abs(y) - centre) ** 2 / (2 * sigma2)
        if _bernoulli_exp_neg(gen, gamma):
            return y


# --------------------------------------------------------------------------------------
# vectorised coins
# --------------------------------------------------------------------------------------
def _exp1_tail(gen: np.random.Generator, k: int) -> bool:
    """Bernoulli(e⁻¹) given that its coins 2..k − 1 all succeeded (continue from coin k)."""
    while _uniform_below(gen, k) == 0:  # Bernoulli(1/k)
        k += 1
    return k % 2 == 1


def _exp1_table(n: int) -> npt.NDArray[np.int8]:
    """Outcome of Bernoulli(e⁻¹) for each W in {0, …, n! − 1}: 1, 0, or −1 (undecided).

    W's factorial digits (most significant first, ``W = Σ_j d_j·n!/j!``) are the coins
    ``Bernoulli(1/j) = [d_j = 0]``, j = 2..n; the first failing coin is the j with
    ``n!/j! ≤ W < n!/(j − 1)!`` and the result is "j odd"; W = 0 leaves it undecided.
    """
    size = math.factorial(n)
    w = np.arange(size, dtype=np.int64)
    edges = np.array([size // math.factorial(j) for j in range(n, 1, -1)], dtype=np.int64)
    pos = np.searchsorted(edges, w, side="right")  # K = n + 1 − pos
    table = ((n + 1 - pos) % 2 == 1).astype(np.int8)
    table[pos == 0] = -1
    return table


#: Bernoulli(e⁻¹) from one integer W uniform in {0, …, 8! − 1} (coins 2..8); W = 0
#: (probability 1/40320) continues with the scalar coins from 9.
_EXP1_N = 8
_EXP1_TABLE = _exp1_table(_EXP1_N)


def _bernoulli_exp1(gen: np.random.Generator, m: int) -> npt.NDArray[np.bool_]:
    """m independent Bernoulli(e⁻¹) coins (Algorithm 1 with γ = 1), one integer each."""
    w = gen.integers(0, _EXP1_TABLE.size, m, dtype=np.uint16)
    coded = _EXP1_TABLE[w]
    out = coded > 0
    for i in np.flatnonzero(coded < 0):
        out[i] = _exp1_tail(gen, _EXP1_N + 1)
    return out


def _geometric_exp1(gen: np.random.Generator, m: int) -> IntArray:
    """m draws of V = the number of Bernoulli(e⁻¹) successes before the first failure."""
    ok = _bernoulli_exp1(gen, m)
    v = ok.astype(np.int64)
    running = np.flatnonzero(ok)
    while running.size:
        running = running[_bernoulli_exp1(gen, running.size)]
        v[running] += 1
    return v


def _bernoulli_exp_ratio(gen: np.random.Generator, u: IntArray, t: int) -> npt.NDArray[np.bool_]:
    """Bernoulli(exp(−u/t)) for integers 0 ≤ u < t, elementwise (Algorithm 1, γ ≤ 1)."""
    # round k = 1: continue where R < u with R uniform in {0, …, t − 1}
    cont = gen.integers(0, t, u.size) < u
    out = ~cont
    running = np.flatnonzero(cont)
    k = 2
    while running.size:
        if t * k > _INT64_MAX:
            for i in running:
                kk = k
                while _bernoulli(gen, Fraction(int(u[i]), t * kk)):
                    kk += 1
                out[i] = kk % 2 == 1
            break
        cont = gen.integers(0, t * k, running.size) < u[running]
        out[running[~cont]] = k % 2 == 1
        running = running[cont]
        k += 1
    return out


# --------------------------------------------------------------------------------------
# discrete Laplace (Algorithm 2)
# --------------------------------------------------------------------------------------
def _check_t(t: int, what: str) -> None:
    if t > MAX_EXACT_T:
        raise ExactSamplingRangeError(
            f"the exact vectorised sampler supports {what} with numerator t <= 2**56, got "
            f"t = {t}")


def _dlap_round(gen: np.random.Generator, t: int, s: int, m: int) -> IntArray:
    """The accepted outputs of m independent runs of one pass of Algorithm 2."""
    if t == 1:  # U = 0 and exp(−0) = 1: step 1 always accepts
        u = np.zeros(m, dtype=np.int64)
    else:
        u = gen.integers(0, t, m)
        u = u[_bernoulli_exp_ratio(gen, u, t)]
    v = _geometric_exp1(gen, u.size)
    vmax = (_INT64_MAX - (t - 1)) // t  # U + tV < 2⁶³ for V ≤ vmax
    big = np.flatnonzero(v > vmax)
    if big.size == 0:
        y = u + t * v
        if s != 1:
            y //= s
    else:  # probability < e^{-127} per draw in the supported range: Python integers
        y = np.zeros(u.size, dtype=np.int64)
        small = np.flatnonzero(v <= vmax)
        y[small] = (u[small] + t * v[small]) // s
        for i in big:
            y_big = (int(u[i]) + t * int(v[i])) // s
            if y_big > _INT64_MAX:
                raise ExactSamplingRangeError(
                    f"an exact discrete Laplace draw of scale {t}/{s} exceeded the int64 range "
                    f"({y_big})")
            y[i] = y_big
    negative = gen.integers(0, 2, y.size, dtype=np.int8).astype(bool)
    keep = ~(negative & (y == 0))
    np.negative(y, out=y, where=negative)
    return y[keep]


def _fill(round_fn, n: int, rate: float) -> IntArray:  # type: ignore[no-untyped-def]
    """Run ``round_fn(m)`` until n accepted outputs are collected (first n, draw order)."""
    out = np.empty(n, dtype=np.int64)
    have = 0
    while have < n:
        need = n - have
        m = min(int(need / rate * _OVERSHOOT) + 64, _BATCH)
        got = round_fn(m)
        take = min(got.size, need)
        out[have:have + take] = got[:take]
        have += take
    return out


def discrete_laplace_exact(gen: np.random.Generator, scale: Fraction, n: int) -> IntArray:
    """n exact i.i.d. draws of DLap(scale), ``P(y) ∝ e^{−|y|/scale}``, vectorised (int64).

    Parameters
    ----------
    gen : numpy.random.Generator
        The only source of randomness (``integers`` only).
    scale : Fraction
        The rational scale t/s > 0 with t ≤ 2⁵⁶.
    n : int
        Number of draws.

    Raises
    ------
    ExactSamplingRangeError
        If t > 2⁵⁶.
    """
    t, s = scale.numerator, scale.denominator
    _check_t(t, "a discrete Laplace scale t/s")
    if n == 0:
        return np.empty(0, dtype=np.int64)
    # acceptance per pass: P(step 1) · P(not (negative and Y = 0))
    p1 = t * -math.expm1(-1.0 / t)
    q = math.exp(-s / t)
    p_zero = 1.0 - q
    rate = max(min(p1, 1.0) * (1.0 - 0.5 * p_zero), 1e-3)
    return _fill(lambda m: _dlap_round(gen, t, s, m), n, rate)


# --------------------------------------------------------------------------------------
# discrete Gaussian (Algorithm 3)
# --------------------------------------------------------------------------------------
def _gamma_float(a: npt.NDArray[np.float64], sigma: float, t: int) -> tuple[np.ndarray, np.ndarray]:
    """γ̂ = (a − σ²/t)²/(2σ²) in float64 and a rigorous bound M ≥ |γ̂ − γ| (see below).

    With unit roundoff u = 2⁻⁵³ and exact a (< 2⁵²), t, σ: σ̂² = σ²(1 + e₁), μ̂ = σ̂²/t ·
    (1 + e₂) so |μ̂ − μ| ≤ 2.01uμ; d̂ = fl(a − μ̂) has |d̂ − (a − μ)| ≤ 2.02uμ + u|a − μ|;
    γ̂ = fl(fl(d̂²)/fl(2σ̂²)) carries three more relative roundings.  Altogether
    |γ̂ − γ| ≤ (5.1u(|a − μ| + μ)² + O(u²))/(2σ²); we take M = 8u(|d̂| + 2μ̂)²/(2σ̂²),
    which covers the bound (|a − μ| ≤ |d̂|(1 + u) + 2.02uμ) and the rounding of M itself.
    """
    s2 = sigma * sigma
    mu = s2 / t
    d = a - mu
    two_s2 = 2.0 * s2
    gamma = d * d / two_s2
    span = np.abs(d) + 2.0 * mu
    margin = 8.0 * _U * span * span / two_s2 + 1e-300
    return gamma, margin


def _exact_gamma(a: int, sigma2: Fraction, t: int) -> Fraction:
    return (a - sigma2 / t) ** 2 / (2 * sigma2)


def _coin_below(gen: np.random.Generator, k_int: int, g: Fraction) -> bool:
    """Exact ``(K + W)/2⁵³ < g`` for the drawn K and a fresh uniform W ∈ [0, 1)."""
    scaled = g * (1 << 53)
    whole = math.floor(scaled)
    if k_int != whole:
        return k_int < whole
    return _bernoulli(gen, scaled - whole)


def _dg_accept(gen: np.random.Generator, y: IntArray, sigma: float, sigma2: Fraction,
               t: int) -> npt.NDArray[np.bool_]:
    """Bernoulli(exp(−(|y| − σ²/t)²/(2σ²))) per entry, exactly (float filter + exact rescue)."""
    a_int = np.abs(y)
    a = a_int.astype(np.float64)
    gamma, margin = _gamma_float(a, sigma, t)
    whole = np.floor(gamma)
    frac = gamma - whole
    sure = (frac > margin) & (1.0 - frac > margin) & (a_int < (1 << 52))
    out = np.zeros(y.size, dtype=bool)
    for i in np.flatnonzero(~sure):  # n = ⌊γ⌋ uncertain: the whole coin in exact arithmetic
        out[i] = _bernoulli_exp_neg(gen, _exact_gamma(int(a_int[i]), sigma2, t))
    alive = np.flatnonzero(sure)
    # n = ⌊γ⌋ coins Bernoulli(e⁻¹), all must succeed (rounds over the entries still due)
    n_coins = whole[alive]
    dead = np.zeros(alive.size, dtype=bool)
    due = np.flatnonzero(n_coins >= 1.0)
    j = 1.0
    while due.size:
        ok = _bernoulli_exp1(gen, due.size)
        dead[due[~ok]] = True
        due = due[ok]
        due = due[n_coins[due] > j]
        j += 1.0
    alive = alive[~dead]
    # Algorithm 1 for f = γ − n < 1: coins Bernoulli(f/k) until one fails; accept iff k odd
    f = frac[alive]
    fm = margin[alive]
    running = np.arange(alive.size)
    k = 1
    while running.size:
        k_draw = gen.integers(0, 1 << 53, running.size)
        lo = k_draw.astype(np.float64) / _TWO53
        g = f[running] / k
        # |ĝ − f/k| ≤ M/k + u (the division), and the sums g ∓ err below round by ≤ u
        # (values < 2): 4u covers both with room for the rounding of M/k itself
        err = fm[running] / k + 4.0 * _U
        yes = lo + 1.0 / _TWO53 <= g - err
        no = lo >= g + err
        unsure = np.flatnonzero(~(yes | no))
        for i in unsure:  # close call: decide exactly from the same K
            idx = alive[running[i]]
            exact_f = _exact_gamma(int(a_int[idx]), sigma2, t)
            exact_f -= math.floor(exact_f)
            yes[i] = _coin_below(gen, int(k_draw[i]), exact_f / k)
        stop = running[~yes]
        out[alive[stop]] = k % 2 == 1
        running = running[yes]
        k += 1
    return out


def _dg_round(gen: np.random.Generator, sigma: float, sigma2: Fraction, t: int,
              m: int) -> IntArray:
    """The accepted outputs of m proposals of Algorithm 3."""
    y = discrete_laplace_exact(gen, Fraction(t), m)
    return y[_dg_accept(gen, y, sigma, sigma2, t)]


def discrete_gaussian_exact(gen: np.random.Generator, sigma: float, n: int) -> IntArray:
    """n exact i.i.d. draws of N_ℤ(0, σ²) for σ² = ``Fraction(σ)²``, vectorised (int64).

    Parameters
    ----------
    gen : numpy.random.Generator
        The only source of randomness (``integers`` only).
    sigma : float
        σ > 0, taken as the exact rational ``Fraction(σ)``; ⌊σ⌋ + 1 ≤ 2⁵².
    n : int
        Number of draws.

    Raises
    ------
    ExactSamplingRangeError
        If ⌊σ⌋ + 1 > 2⁵².
    """
    sigma2 = Fraction(sigma) ** 2
    t = math.isqrt(sigma2.numerator // sigma2.denominator) + 1
    if t > _MAX_DG_T:
        raise ExactSamplingRangeError(
            f"the exact vectorised discrete Gaussian sampler supports floor(sigma) + 1 <= 2**52, "
            f"got sigma = {sigma!r}")
    if n == 0:
        return np.empty(0, dtype=np.int64)
    # CKS20: the proposal is accepted with probability ≥ ~ 0.5 (σ ≥ 1), more for small σ
    return _fill(lambda m: _dg_round(gen, sigma, sigma2, t, m), n, 0.55)
