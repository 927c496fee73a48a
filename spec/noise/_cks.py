"""Exact samplers of the discrete Laplace and discrete Gaussian laws (CKS20 Algorithms 1–3).

Two implementations of the same algorithms, both exact (the law of every draw is the
target law exactly, not up to floating-point rounding), both taking all their
randomness as uniform integers from the injected ``Generator``:

* the **scalar reference** (``_bernoulli_exp_neg``, ``_discrete_laplace_exact``,
  ``_discrete_gaussian_exact``): one draw at a time in :class:`fractions.Fraction`
  arithmetic, a literal transcription of the paper;
* the **compiled samplers** (:func:`discrete_laplace_exact`,
  :func:`discrete_gaussian_exact`): the same laws, one draw after the other in numba
  kernels (:mod:`spec.noise._cks_kernel`) over the generator's raw 64-bit words
  (``Generator.integers`` over the full uint64 range), every decision exact.

How each random decision is made exactly in the kernel:

* a uniform integer below n: ``⌈log₂ n⌉`` fresh bits, redrawn while ≥ n;
* ``Bernoulli(exp(−u/t))`` for integers ``0 ≤ u < t`` (Algorithm 1, γ = u/t ≤ 1): coin
  k is ``Bernoulli(u/(tk)) = [R < u] ∧ [S = 0]`` with R uniform below t and S uniform
  below k, independent (so no product tk is formed); the result is "the first failing k
  is odd";
* ``Bernoulli(exp(−1))`` (Algorithm 1 with γ = 1): coins ``Bernoulli(1/k)`` = [a uniform
  integer below k is 0], k = 2, 3, …;
* the discrete Gaussian (Algorithm 3, its own kernel ``dg_fill``): every decision is one
  comparison ``W < e^{−r}`` of a uniform ``W = (K + W′)/2⁵³`` (K the top 53 bits of a
  raw word, W′ its unrevealed lower bits) with an exponential — the proposal's
  ``|Y| = max{x : W < e^{−x/t}}`` (the geometric law of Algorithm 2's U + tV, by
  inversion, with the word's lowest bit as the sign) and the acceptance coin
  ``[W < e^{−γ}]``, ``γ = (|y| − σ²/t)²/(2σ²)``.  The kernel decides a comparison in
  float64 only when ``[K/2⁵³, (K+1)/2⁵³)`` lies on one side of the value's rigorous
  float bounds (libm ``log``/``exp`` taken as accurate to 2⁻⁴⁵ relative, 128 times
  their documented error; γ̂ with its bound from ``_gamma_float``; polynomial squeezes
  ``1 − g + g²/2 − g³/6 ≤ e^{−g} ≤ 1/(1 + g + g²/2)`` before ``exp``), and otherwise
  hands the close call back (``_rescue``): exact rational bounds on ``e^{−r}`` (Taylor
  partial sums, ``_exp_neg_bounds``) against W's interval, drawing W′'s bits 32 at a
  time only then (``_LazyUniform``), so the float is a filter and never decides a close
  call.  A rejected proposal restarts its entry (rejection sampling is memoryless), so
  the kernel simply resumes at the entry due.

The kernels' random streams differ from the numpy-batch implementation they replaced, and
the discrete Gaussian's from the Algorithm-2-proposal kernel before it (the same laws,
different draws for a seed; ``docs/sampler_speed.md``).

Supported parameters (``ExactSamplingRangeError`` outside): discrete Laplace scale
``t/s`` (in lowest terms) with ``t ≤ 2⁵⁶`` — every float scale below 2⁵⁶ qualifies
(floats are dyadic, ``t`` ≤ 2⁵³ · 2^e) — and discrete Gaussian σ with ``⌊σ⌋ + 1 ≤ 2⁵²``
(every float σ < 2⁵² − 1).  Draws are int64; a draw whose ``U + tV`` exceeds 2⁶³ − 1
(probability below e⁻¹²⁷ in the supported range) raises the same error rather than wrap.

References
----------
.. [1] Canonne, Kamath, Steinke. "The Discrete Gaussian for Differential Privacy."
   NeurIPS 2020 (arXiv:2004.00010), Algorithms 1 (Bernoulli(exp(−γ))), 2 (discrete
   Laplace) and 3 (discrete Gaussian).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ExactSamplingRangeError

__all__ = ["MAX_EXACT_T", "discrete_gaussian_exact", "discrete_laplace_exact"]

IntArray = npt.NDArray[np.int64]


def _kernel() -> ModuleType:
    """The compiled kernel module, imported on first use (numba is a heavy import)."""
    from . import _cks_kernel

    return _cks_kernel


def _gamma_float(a: Any, sigma: float, t: int) -> tuple[Any, Any]:
    """The kernel's float filter γ̂ and its error bound M (scalars or arrays)."""
    result: tuple[Any, Any] = _kernel().gamma_float(a, sigma, t)
    return result


#: Largest numerator t of the discrete Laplace scale t/s (and ⌊σ⌋ + 1) supported.
MAX_EXACT_T = 1 << 56
#: Largest ⌊σ⌋ + 1 of the discrete Gaussian: t and |y| < 2⁵² are exact in float64.
_MAX_DG_T = 1 << 52
_INT64_MAX = (1 << 63) - 1
_INT64_SPAN = 1 << 63


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
# exact decisions of the discrete Gaussian kernel's close calls (Python Fractions)
# --------------------------------------------------------------------------------------
def _exact_gamma(a: int, sigma2: Fraction, t: int) -> Fraction:
    return (a - sigma2 / t) ** 2 / (2 * sigma2)


def _series_bounds(f: Fraction, terms: int) -> tuple[Fraction, Fraction]:
    """Rational bounds L ≤ e^{−f} ≤ U for 0 ≤ f ≤ 1 (terms ≥ 2).

    The Taylor series of e^{−f} alternates with non-increasing terms fⁿ/n!, so the limit
    lies between two consecutive partial sums (Leibniz); for f ≤ 1 and n ≥ 2 both are > 0.
    """
    term, total = Fraction(1), Fraction(1)
    for n in range(1, terms + 1):
        term = -term * f / n
        total += term
    following = total - term * f / (terms + 1)
    return min(total, following), max(total, following)


@functools.lru_cache(maxsize=256)
def _exp_neg_bounds(r: Fraction, terms: int) -> tuple[Fraction, Fraction]:
    """Rational bounds L ≤ e^{−r} ≤ U for rational r ≥ 0: e^{−r} = (e^{−1})^⌊r⌋ · e^{−f}."""
    whole = math.floor(r)
    low, high = _series_bounds(r - whole, terms)
    if whole:
        low1, high1 = _series_bounds(Fraction(1), terms)
        low, high = low * low1**whole, high * high1**whole
    return low, high


class _LazyUniform:
    """A uniform W ∈ [0, 1) of which only the leading bits are drawn: W ∈ [m/2ᵇ, (m+1)/2ᵇ).

    Starts from the kernel's 53 bits K (b = 53) and draws 32 more bits from the generator
    whenever a comparison is not yet decided, so every comparison ``W < e^{−r}`` is exact
    (e^{−r} is irrational for rational r > 0 (Lindemann), so the refinement ends with
    probability 1; e⁰ = 1 > W at once).
    """

    def __init__(self, mantissa: int, bits: int) -> None:
        self.mantissa, self.bits = mantissa, bits

    def refine(self, gen: np.random.Generator) -> None:
        self.mantissa = (self.mantissa << 32) | int(gen.integers(0, 1 << 32))
        self.bits += 32

    def below_exp_neg(self, gen: np.random.Generator, r: Fraction) -> bool:
        """Exactly [W < e^{−r}]."""
        terms = 24
        while True:
            low, high = _exp_neg_bounds(r, terms)
            if Fraction(self.mantissa + 1, 1 << self.bits) <= low:
                return True
            if Fraction(self.mantissa, 1 << self.bits) >= high:
                return False
            self.refine(gen)
            terms += 16


def _geometric_exact(gen: np.random.Generator, big_k: int, t: int) -> int:
    """X = max{x ≥ 0 : W < e^{−x/t}} exactly, W the uniform whose top 53 bits are K."""
    w = _LazyUniform(big_k, 53)
    while w.mantissa == 0:
        w.refine(gen)
    # a float guess, then exact comparisons (e^{−x/t} decreases in x)
    x = max(0, math.floor(t * (w.bits * math.log(2) - math.log(w.mantissa + 1))))
    if w.below_exp_neg(gen, Fraction(x, t)):
        while w.below_exp_neg(gen, Fraction(x + 1, t)):
            x += 1
        return x
    x -= 1
    while not w.below_exp_neg(gen, Fraction(x, t)):
        x -= 1
    return x


def _rescue(
    gen: np.random.Generator, status: int, y: int, big_k: int, sigma2: Fraction, t: int
) -> int | None:
    """The kernel's close call at one entry, decided exactly: the draw, or None (rejected).

    ``RESCUE_GEO``: X from K exactly, then a fresh sign bit and the whole acceptance coin
    (Algorithm 1 in Fractions).  ``RESCUE_ACCEPT``: the coin [W < e^{−γ}] of proposal y
    from its drawn K.  ``RESCUE_COIN``: the whole coin Bernoulli(exp(−γ)) of proposal y
    (no randomness used for it yet).
    """
    kernel = _kernel()
    if status == kernel.RESCUE_GEO:
        x = _geometric_exact(gen, big_k, t)
        if int(gen.integers(0, 2)) == 1:
            if x == 0:
                return None
            y = -x
        else:
            y = x
        accept = _bernoulli_exp_neg(gen, _exact_gamma(x, sigma2, t))
    elif status == kernel.RESCUE_ACCEPT:
        accept = _LazyUniform(big_k, 53).below_exp_neg(gen, _exact_gamma(abs(y), sigma2, t))
    else:
        accept = _bernoulli_exp_neg(gen, _exact_gamma(abs(y), sigma2, t))
    return y if accept else None


# --------------------------------------------------------------------------------------
# compiled samplers (spec.noise._cks_kernel)
# --------------------------------------------------------------------------------------
def _check_t(t: int, what: str) -> None:
    if t > MAX_EXACT_T:
        raise ExactSamplingRangeError(
            f"the exact vectorised sampler supports {what} with numerator t <= 2**56, got t = {t}"
        )


def _overflow(what: str) -> ExactSamplingRangeError:
    return ExactSamplingRangeError(
        f"an exact {what} draw exceeded the int64 range (probability below e**-127 per draw)"
    )


def discrete_laplace_exact(gen: np.random.Generator, scale: Fraction, n: int) -> IntArray:
    """n exact i.i.d. draws of DLap(scale), ``P(y) ∝ e^{−|y|/scale}`` (int64).

    Parameters
    ----------
    gen : numpy.random.Generator
        The only source of randomness (its bit generator's raw words, through
        ``integers``).
    scale : Fraction
        The rational scale t/s > 0 with t ≤ 2⁵⁶.
    n : int
        Number of draws.

    Raises
    ------
    ExactSamplingRangeError
        If t > 2⁵⁶, or (probability below e⁻¹²⁷ per draw) ``U + tV`` exceeds int64.
    """
    t, s = scale.numerator, scale.denominator
    _check_t(t, "a discrete Laplace scale t/s")
    out = np.empty(n, dtype=np.int64)
    if n == 0:
        return out
    # s = 0 tells the kernel that s exceeds every U + tV < 2⁶³ (all draws are 0)
    status = _kernel().cks_fill(gen, out, t, s if s <= _INT64_MAX else 0)[1]
    if status != _kernel().DONE:
        raise _overflow(f"discrete Laplace (scale {t}/{s})")
    return out


def discrete_gaussian_exact(gen: np.random.Generator, sigma: float, n: int) -> IntArray:
    """n exact i.i.d. draws of N_ℤ(0, σ²) for σ² = ``Fraction(σ)²`` (int64).

    Parameters
    ----------
    gen : numpy.random.Generator
        The only source of randomness (its bit generator's raw words, through
        ``integers``; the rare exact rescues call ``integers`` from Python).
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
            f"got sigma = {sigma!r}"
        )
    out = np.empty(n, dtype=np.int64)
    i = 0
    while i < n:
        i, status, y, big_k = _kernel().dg_fill(gen, out, i, t, float(sigma))
        if status == _kernel().DONE:
            break
        draw = _rescue(gen, int(status), int(y), int(big_k), sigma2, t)
        if draw is not None:
            if abs(draw) > _INT64_MAX:
                raise _overflow(f"discrete Gaussian (sigma {sigma!r})")
            out[i] = draw
            i += 1
    return out
