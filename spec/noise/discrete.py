"""Discrete additive noise laws on the integers: discrete Laplace and discrete Gaussian.

Both laws are symmetric about 0, so every CDF value is computed from the log of a
*left* tail ``log P(Z ≤ −m)`` (m ≥ 1), giving full relative precision in both tails:
``cdf(k) = P(Z ≤ −m)`` for ``k = −m < 0``, ``cdf(k) = 1 − P(Z ≤ −(k+1))`` for k ≥ 0 and
``sf(k) = cdf(−k − 1)``.  Non-integer arguments are floored; ``density`` is the
probability mass (0 off the integers).  ``ppf`` returns float64 (integer values, with
``ppf(0) = −inf`` and ``ppf(1) = +inf``).

Two samplers per law:

* :meth:`sample` — vectorised numpy, **idealized numerics**: the algorithms are exact,
  but run on float64 parameters and ``Generator.geometric`` / ``Generator.random``, so
  the law is exact only up to floating-point rounding (relative errors ~1e-16 in the
  probabilities).  Fast; used for simulation and auditing.
* :meth:`sample_exact` — Canonne–Kamath–Steinke 2020 Algorithms 1–3, exactly (integer
  and rational decisions only), with randomness taken only as uniform integers from the
  generator (its raw 64-bit words through ``Generator.integers``), run by a compiled
  numba kernel (:mod:`spec.noise._cks`, which also keeps the one-draw-at-a-time
  ``Fraction`` reference).  The float parameter is converted exactly with
  ``Fraction(x)``.  Supported range: discrete Laplace scale t/s with t ≤ 2⁵⁶, discrete
  Gaussian ⌊σ⌋ + 1 ≤ 2⁵² (:class:`~spec.errors.ExactSamplingRangeError` outside).

References
----------
.. [1] Canonne, Kamath, Steinke. "The Discrete Gaussian for Differential Privacy."
   NeurIPS 2020 (arXiv:2004.00010), Algorithms 1–3.
.. [2] Ghosh, Roughgarden, Sundararajan. "Universally Utility-Maximizing Privacy
   Mechanisms." STOC 2009 (the geometric / discrete Laplace mechanism).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from fractions import Fraction
from functools import lru_cache
from typing import Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt
from scipy import special

from .._random import RandomLike, as_generator
from .._types import PositiveFloat
from ..errors import InvalidParameterError
from ._base import NoiseLaw
from ._checks import (
    _as_probability_array,
    _as_real_array,
    _check_profile_epsilon,
    _check_sensitivity,
    _check_size,
    _finish,
)
from ._cks import (  # noqa: F401 - the scalar reference stays importable from here
    _bernoulli,
    _bernoulli_exp_neg,
    _discrete_gaussian_exact,
    _discrete_laplace_exact,
    _uniform_below,
    discrete_gaussian_exact,
    discrete_laplace_exact,
)

__all__ = ["DiscreteGaussian", "DiscreteLaplace"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _check_integer_sensitivity(sensitivity: Any) -> int:
    """Δ for a law on ℤ: a positive integer (integer-valued floats accepted)."""
    value = _check_sensitivity(sensitivity)
    if not value.is_integer():
        raise InvalidParameterError(
            f"sensitivity of an integer-valued release must be an integer, got {sensitivity!r}"
        )
    return int(value)


def _integer_ppf(cdf: Any, q: FloatArray, guess: FloatArray) -> FloatArray:
    """Smallest integer k with ``cdf(k) ≥ q``, vectorised (bracket expansion + bisection).

    ``cdf`` maps a float array of integer values to probabilities; ``guess`` is any
    integer-valued starting point.  ``q = 0`` gives −inf and ``q = 1`` gives +inf.
    """
    out = np.empty_like(q)
    out[q == 0.0] = -np.inf
    out[q == 1.0] = np.inf
    inner = (q > 0.0) & (q < 1.0)
    qq = q[inner]
    if qq.size == 0:
        return out
    start = np.floor(guess[inner])
    lo = start.copy()  # want cdf(lo) < q
    hi = start.copy()  # want cdf(hi) >= q
    step = np.ones_like(qq)
    bad = cdf(lo) >= qq
    while bad.any():
        lo[bad] -= step[bad]
        step[bad] *= 2.0
        bad = cdf(lo) >= qq
    step[:] = 1.0
    bad = cdf(hi) < qq
    while bad.any():
        hi[bad] += step[bad]
        step[bad] *= 2.0
        bad = cdf(hi) < qq
    gap = hi - lo > 1.0
    while gap.any():
        mid = np.floor(0.5 * (lo + hi))
        up = cdf(mid) >= qq
        hi = np.where(gap & up, mid, hi)
        lo = np.where(gap & ~up, mid, lo)
        gap = hi - lo > 1.0
    out[inner] = hi + 0.0  # no negative zeros
    return out


class _SymmetricIntegerLaw(NoiseLaw):
    """Shared CDF machinery of the symmetric laws on ℤ (not part of the public API)."""

    is_discrete: ClassVar[bool] = True

    @abstractmethod
    def _log_left(self, m: FloatArray) -> FloatArray:
        """``log P(Z ≤ −m)`` for integer-valued m ≥ 1 (may be +inf)."""

    def _cdf_int(self, k: FloatArray) -> FloatArray:
        """P(Z ≤ k) for integer-valued (or infinite) float k."""
        k = np.asarray(k, dtype=np.float64)
        neg = k <= -1.0
        m = np.where(neg, -k, k + 1.0)  # ≥ 1 everywhere
        left = np.exp(self._log_left(np.atleast_1d(m)).reshape(m.shape))
        return np.where(neg, left, 1.0 - left)

    def cdf(self, x: npt.ArrayLike) -> FloatArray:
        """P(Z ≤ ⌊x⌋); full relative precision in the left tail."""
        return _finish(self._cdf_int(np.floor(_as_real_array(x))))

    def sf(self, x: npt.ArrayLike) -> FloatArray:
        """P(Z > ⌊x⌋) = cdf(−⌊x⌋ − 1); full relative precision in the right tail."""
        return _finish(self._cdf_int(-np.floor(_as_real_array(x)) - 1.0))

    def _log_cdf_int(self, k: float) -> float:
        """log P(Z ≤ k) for one integer k (used by the privacy profile)."""
        if k <= -1:
            return float(self._log_left(np.array([-float(k)]))[0])
        return math.log1p(-math.exp(float(self._log_left(np.array([float(k) + 1.0]))[0])))

    def _profile_at(self, k: float, epsilon: float, shift: int) -> float:
        """``P(Z ≤ k) − e^ε P(Z ≤ k − Δ)``: the hockey-stick mass of the set {Z ≤ k}."""
        p_mass = math.exp(self._log_cdf_int(k))
        q_mass = math.exp(min(epsilon + self._log_cdf_int(k - shift), 709.0))  # no overflow
        return p_mass - q_mass

    def _exact_profile(self, epsilon: float, shift: int, k_star: float) -> float:
        """δ(ε) = Σ_k max(0, P(k) − e^ε P(k − Δ)).

        For a log-concave law on ℤ the likelihood ratio ``P(k)/P(k − Δ)`` is non-increasing
        in k, so the positive part is exactly the set ``{k ≤ K}`` with K the last integer
        where the ratio exceeds e^ε; ``k_star`` is K computed in floating point and its
        neighbours are checked so that a rounding at the boundary cannot change the
        value (the sum is the maximum over K of the hockey-stick mass of {Z ≤ K}).
        """
        best = max(self._profile_at(k_star + j, epsilon, shift) for j in (-1.0, 0.0, 1.0))
        return max(0.0, best)


# --------------------------------------------------------------------------------------
# discrete Laplace
# --------------------------------------------------------------------------------------


class DiscreteLaplace(_SymmetricIntegerLaw):
    """Discrete Laplace (two-sided geometric) law ``P(k) = tanh(1/(2t)) e^{−|k|/t}``, k ∈ ℤ.

    Parameters
    ----------
    scale : float
        t > 0 (finite); ``tanh(1/(2t)) = (e^{1/t} − 1)/(e^{1/t} + 1)``.

    Notes
    -----
    Var Z = ``1/(2 sinh²(1/(2t)))``.  The additive mechanism with integer sensitivity Δ
    is (Δ/t)-DP.  ``sample`` draws ``G₁ − G₂`` with iid ``G ~ Geometric(1 − e^{−1/t})``
    (idealized numerics); ``sample_exact`` is CKS20 Algorithm 2 for the rational scale
    ``Fraction(t)``.

    References
    ----------
    .. [1] Canonne, Kamath, Steinke. NeurIPS 2020, Algorithm 2.
    .. [2] Ghosh, Roughgarden, Sundararajan. STOC 2009.
    """

    kind: Literal["discrete_laplace"] = "discrete_laplace"
    scale: PositiveFloat

    @property
    def _r(self) -> float:
        return math.exp(-1.0 / self.scale)

    def sample(self, rng: RandomLike, size: int | tuple[int, ...]) -> IntArray:
        """Vectorised draw as a difference of two iid geometric variables (int64).

        Idealized numerics: exact law up to the float rounding of ``1 − e^{−1/t}``.
        """
        gen = as_generator(rng)
        shape = _check_size(size)
        p = -math.expm1(-1.0 / self.scale)
        out = gen.geometric(p, shape)
        out -= gen.geometric(p, shape)
        return out.astype(np.int64, copy=False)

    def sample_exact(self, rng: RandomLike, size: int | tuple[int, ...]) -> IntArray:
        """Exact draw by CKS20 Algorithm 2 (compiled kernel, int64).

        The scale is taken as the exact rational ``Fraction(scale) = t/s``; all randomness
        comes as uniform integers from ``Generator.integers``; every decision is an exact
        integer comparison
        (:func:`spec.noise._cks.discrete_laplace_exact`).

        Raises
        ------
        ExactSamplingRangeError
            If t > 2⁵⁶ (a float scale ≥ 2⁵⁶).
        """
        gen = as_generator(rng)
        shape = _check_size(size)
        n = math.prod(shape) if isinstance(shape, tuple) else shape
        return discrete_laplace_exact(gen, Fraction(self.scale), n).reshape(shape)

    def log_density(self, x: npt.ArrayLike) -> FloatArray:
        """``log tanh(1/(2t)) − |k|/t`` on the integers, ``−inf`` elsewhere."""
        z = _as_real_array(x)
        on_lattice = np.isfinite(z) & (z == np.floor(z))
        value = math.log(math.tanh(0.5 / self.scale)) - np.abs(z) / self.scale
        return _finish(np.where(on_lattice, value, -np.inf))

    def _log_left(self, m: FloatArray) -> FloatArray:
        # P(Z ≤ −m) = e^{−m/t} / (1 + e^{−1/t}),  m ≥ 1
        return -m / self.scale - math.log1p(self._r)

    def ppf(self, q: npt.ArrayLike) -> FloatArray:
        """Smallest integer k with cdf(k) ≥ q (closed-form guess, then verified)."""
        p = _as_probability_array(q)
        flat = np.atleast_1d(p).ravel()
        r = self._r
        with np.errstate(divide="ignore", invalid="ignore"):
            low = np.ceil(self.scale * np.log(flat * (1.0 + r)))
            high = np.ceil(-self.scale * np.log((1.0 - flat) * (1.0 + r))) - 1.0
        guess = np.where(flat <= 1.0 / (1.0 + r), low, high)
        guess = np.where(np.isfinite(guess), guess, 0.0)
        return _finish(_integer_ppf(self._cdf_int, flat, guess).reshape(p.shape))

    @property
    def variance(self) -> float:
        """``2e^{−1/t}/(1 − e^{−1/t})² = 1/(2 sinh²(1/(2t)))``."""
        return 0.5 / math.sinh(0.5 / self.scale) ** 2

    def privacy_profile(self, epsilon: float, sensitivity: float) -> float:
        """Exact δ(ε) = Σ_k max(0, P(k) − e^ε P(k − Δ)) for integer Δ.

        The ratio ``P(k)/P(k − Δ) = e^{(|k − Δ| − |k|)/t}`` exceeds e^ε exactly on
        ``{k ≤ K}``, ``K = ⌈(Δ − εt)/2⌉ − 1``; the sum is ``cdf(K) − e^ε cdf(K − Δ)``.
        """
        eps = _check_profile_epsilon(epsilon)
        shift = _check_integer_sensitivity(sensitivity)
        if eps >= shift / self.scale:
            return 0.0
        k_star = float(math.ceil((shift - eps * self.scale) / 2.0) - 1)
        return self._exact_profile(eps, shift, k_star)

    def pure_epsilon(self, sensitivity: float) -> float:
        """``Δ/t`` for integer Δ."""
        return _check_integer_sensitivity(sensitivity) / self.scale


# --------------------------------------------------------------------------------------
# discrete Gaussian
# --------------------------------------------------------------------------------------

#: σ at or below which every left tail is summed directly (≤ 160 terms suffice).
_DG_DIRECT_SIGMA = 16.0
_DG_TERMS = 160
#: Euler–Maclaurin coefficients B_{2m}(1/2)/(2m)!, m = 1..8, exactly.
_EM_COEF = [
    float((Fraction(1, 2 ** (2 * m - 1)) - 1) * b / math.factorial(2 * m))
    for m, b in enumerate(
        [
            Fraction(1, 6),
            Fraction(-1, 30),
            Fraction(1, 42),
            Fraction(-1, 30),
            Fraction(5, 66),
            Fraction(-691, 2730),
            Fraction(7, 6),
            Fraction(-3617, 510),
        ],
        start=1,
    )
]


@lru_cache(maxsize=512)
def _dg_log_normaliser(sigma: float) -> float:
    """``log Σ_j e^{−j²/(2σ²)}``, exact to double precision.

    For σ ≥ 1 through the Jacobi theta (Poisson summation) identity
    ``Σ_j e^{−j²/(2σ²)} = σ√(2π) Σ_n e^{−2π²σ²n²}``; for σ < 1 by direct summation.
    """
    if sigma >= 1.0:
        corr = math.fsum(2.0 * math.exp(-2.0 * math.pi**2 * sigma**2 * n * n) for n in range(1, 5))
        return math.log(sigma * math.sqrt(2.0 * math.pi)) + math.log1p(corr)
    terms = [math.exp(-(j * j) / (2.0 * sigma**2)) for j in range(1, math.ceil(12 * sigma) + 4)]
    return math.log1p(2.0 * math.fsum(terms))


@lru_cache(maxsize=512)
def _dg_variance(sigma: float) -> float:
    """Σ_k k² P(k), by Poisson summation (σ ≥ 1) or direct summation (σ < 1)."""
    if sigma >= 1.0:
        c = 2.0 * math.pi**2 * sigma**2
        num = math.fsum(2.0 * (1.0 - 2.0 * c * n * n) * math.exp(-c * n * n) for n in range(1, 5))
        den = math.fsum(2.0 * math.exp(-c * n * n) for n in range(1, 5))
        return sigma**2 * (1.0 + num) / (1.0 + den)
    js = range(1, math.ceil(12 * sigma) + 4)
    num = 2.0 * math.fsum(j * j * math.exp(-(j * j) / (2.0 * sigma**2)) for j in js)
    return num / math.exp(_dg_log_normaliser(sigma))


def _dg_log_left_direct(m: FloatArray, sigma: float) -> FloatArray:
    """``log Σ_{i≥0} e^{−(m+i)²/(2σ²)}`` by summing the series in i (unnormalised)."""
    two_s2 = 2.0 * sigma * sigma
    acc = np.ones_like(m)
    for i in range(1, _DG_TERMS):
        term = np.exp(-(2.0 * m * i + i * i) / two_s2)
        acc += term
        if not (term > 1e-18).any():
            break
    return -(m * m) / two_s2 + np.log(acc)


def _dg_log_left_em(m: FloatArray, sigma: float) -> FloatArray:
    """``log P(Z ≤ −m)`` by the Euler–Maclaurin (midpoint) expansion, σ > 16, m < σ²/4.

    ``Σ_{j ≤ k} f(j) = ∫_{−∞}^{k+½} f + Σ_m B_{2m}(½)/(2m)! · f^{(2m−1)}(k+½)`` with
    ``f(x) = e^{−x²/(2σ²)}``, ``f^{(n)}(x) = (−1/σ)^n He_n(x/σ) f(x)``; divided by the
    normaliser ``σ√(2π)`` (its theta correction is below 1e−2000 here) this is
    ``Φ(u) − φ(u) Σ_m b_m σ^{−2m} He_{2m−1}(u)``, ``u = (½ − m)/σ``.  In this range the
    terms decrease by a factor ≥ ~600 each, so 8 terms are exact to double precision.
    """
    u = (0.5 - m) / sigma
    he_prev, he = np.ones_like(u), u  # He_0, He_1
    inv_s2 = 1.0 / (sigma * sigma)
    factor = inv_s2
    series = np.zeros_like(u)
    for idx, coef in enumerate(_EM_COEF):
        n = 2 * idx + 1  # He_n is current
        series += coef * factor * he
        factor *= inv_s2
        he_next = u * he - n * he_prev  # He_{n+1}
        he_prev, he = he_next, u * he_next - (n + 1) * he  # He_{n+1}, He_{n+2}
    log_phi_tail = special.log_ndtr(u)
    log_phi = -0.5 * u * u - 0.5 * math.log(2.0 * math.pi)
    rel = np.exp(log_phi - log_phi_tail) * series
    log_tail: FloatArray = log_phi_tail + np.log1p(-rel)
    return log_tail


class DiscreteGaussian(_SymmetricIntegerLaw):
    """Discrete Gaussian law ``P(k) = e^{−k²/(2σ²)} / Σ_j e^{−j²/(2σ²)}``, k ∈ ℤ.

    Parameters
    ----------
    sigma : float
        σ > 0 (finite); σ² is the variance of the continuous Gaussian it discretises
        (the discrete variance is slightly smaller, see :attr:`variance`).

    Notes
    -----
    The normaliser uses the Jacobi-theta (Poisson summation) identity; tails are summed
    directly (σ ≤ 16, or far in the tail) or by an 8-term Euler–Maclaurin expansion,
    accurate to double precision (tested against direct ``math.fsum`` summation).

    ``sample`` is CKS20 Algorithm 3 in vectorised rounds: propose ``Y ~ DLap(t)``,
    ``t = ⌊σ⌋ + 1``, accept with probability ``exp(−(|Y| − σ²/t)²/(2σ²))``, repeat for the
    entries not yet accepted (idealized numerics).  ``sample_exact`` runs Algorithms 1–3
    exactly for the rational ``σ² = Fraction(σ)²``.

    References
    ----------
    .. [1] Canonne, Kamath, Steinke. "The Discrete Gaussian for Differential Privacy."
       NeurIPS 2020, Algorithms 1–3 and Theorem 7 (concentrated DP).
    """

    kind: Literal["discrete_gaussian"] = "discrete_gaussian"
    sigma: PositiveFloat

    def sample(self, rng: RandomLike, size: int | tuple[int, ...]) -> IntArray:
        """Vectorised CKS20 Algorithm 3 (rejection from a discrete Laplace), int64.

        Each round proposes for all entries not yet accepted; the expected number of
        rounds is below 2 (CKS20 show the acceptance probability is bounded below by a
        constant).  Idealized numerics: float acceptance probabilities.
        """
        gen = as_generator(rng)
        shape = _check_size(size)
        sigma = self.sigma
        t = math.floor(sigma) + 1
        p = -math.expm1(-1.0 / t)
        s2 = sigma * sigma
        shift = s2 / t
        out = np.empty(shape, dtype=np.int64)
        flat = out.reshape(-1)
        pending = np.arange(flat.size)
        while pending.size:
            y = gen.geometric(p, pending.size) - gen.geometric(p, pending.size)
            dev = np.abs(y) - shift
            accept = gen.random(pending.size) < np.exp(-(dev * dev) / (2.0 * s2))
            flat[pending[accept]] = y[accept]
            pending = pending[~accept]
        return out

    def sample_exact(self, rng: RandomLike, size: int | tuple[int, ...]) -> IntArray:
        """Exact draw by CKS20 Algorithms 1–3 for σ² = Fraction(σ)² (compiled kernel, int64).

        All randomness comes as uniform integers from ``Generator.integers``; every decision
        is exact (float
        values only filter out comparisons that are far from close, see
        :func:`spec.noise._cks.discrete_gaussian_exact`).

        Raises
        ------
        ExactSamplingRangeError
            If ⌊σ⌋ + 1 > 2⁵².
        """
        gen = as_generator(rng)
        shape = _check_size(size)
        n = math.prod(shape) if isinstance(shape, tuple) else shape
        return discrete_gaussian_exact(gen, self.sigma, n).reshape(shape)

    @property
    def log_normaliser(self) -> float:
        """``log Σ_j e^{−j²/(2σ²)}``."""
        return _dg_log_normaliser(self.sigma)

    def log_density(self, x: npt.ArrayLike) -> FloatArray:
        """``−k²/(2σ²) − log Σ_j e^{−j²/(2σ²)}`` on the integers, ``−inf`` elsewhere."""
        z = _as_real_array(x)
        on_lattice = np.isfinite(z) & (z == np.floor(z))
        with np.errstate(invalid="ignore", over="ignore"):
            value = -(z * z) / (2.0 * self.sigma**2) - self.log_normaliser
        return _finish(np.where(on_lattice, value, -np.inf))

    def _log_left(self, m: FloatArray) -> FloatArray:
        sigma = self.sigma
        out = np.full(m.shape, -np.inf)
        finite = np.isfinite(m)
        direct = finite & ((sigma <= _DG_DIRECT_SIGMA) | (m >= sigma * sigma / 4.0))
        em = finite & ~direct
        if direct.any():
            out[direct] = _dg_log_left_direct(m[direct], sigma) - self.log_normaliser
        if em.any():
            out[em] = _dg_log_left_em(m[em], sigma)
        return out

    def ppf(self, q: npt.ArrayLike) -> FloatArray:
        """Smallest integer k with cdf(k) ≥ q (Gaussian guess, then exact integer search)."""
        p = _as_probability_array(q)
        flat = np.atleast_1d(p).ravel()
        guess = np.floor(self.sigma * special.ndtri(np.clip(flat, 1e-300, 1.0 - 1e-16)))
        return _finish(_integer_ppf(self._cdf_int, flat, guess).reshape(p.shape))

    @property
    def variance(self) -> float:
        """Σ_k k² P(k) (Poisson summation for σ ≥ 1, direct summation below); < σ²."""
        return _dg_variance(self.sigma)

    def privacy_profile(self, epsilon: float, sensitivity: float) -> float:
        """Exact δ(ε) = Σ_k max(0, P(k) − e^ε P(k − Δ)) for integer Δ.

        ``P(k)/P(k − Δ) = exp((Δ² − 2kΔ)/(2σ²))`` exceeds e^ε exactly on ``{k ≤ K}``,
        ``K = ⌈Δ/2 − εσ²/Δ⌉ − 1``, so the sum is ``cdf(K) − e^ε cdf(K − Δ)`` (tails in
        log space, so large ε neither overflows nor loses the second term).

        References
        ----------
        .. [1] Canonne, Kamath, Steinke. NeurIPS 2020, Theorem 7 / Corollary 9.
        """
        eps = _check_profile_epsilon(epsilon)
        shift = _check_integer_sensitivity(sensitivity)
        if math.isinf(eps):
            return 0.0
        k_star = math.ceil(shift / 2.0 - eps * self.sigma**2 / shift) - 1
        return self._exact_profile(eps, shift, float(k_star))

    def pure_epsilon(self, sensitivity: float) -> float:
        """``inf``: the log-likelihood ratio ``(Δ² − 2kΔ)/(2σ²)`` is unbounded in k."""
        _check_integer_sensitivity(sensitivity)
        return math.inf
