"""Continuous additive noise laws: Laplace, Gaussian, inverse-quartic, Gumbel, exponential.

Each class is the single definition of its law: density, CDF, survival function,
quantile function, variance, a batched sampler and the exact privacy quantities of the
additive mechanism ``f(D) + Z``.  Every method is vectorised over numpy arrays; inputs
may be array-like, scalars come back as ``numpy.float64`` and arrays as ``float64``
arrays of the same shape.  NaN inputs are refused with
:class:`~spec.errors.InvalidInputError`.

This module also holds the small input-checking helpers shared by the sibling modules
:mod:`spec.noise.discrete` and :mod:`spec.noise.randomized_response` (names with a
leading underscore; not part of the public API).

References
----------
.. [1] Dwork, McSherry, Nissim, Smith. "Calibrating Noise to Sensitivity in Private
   Data Analysis." TCC 2006 (the Laplace mechanism).
.. [2] Balle, Wang. "Improving the Gaussian Mechanism for Differential Privacy:
   Analytical Calibration and Optimal Denoising." ICML 2018, Theorem 8 (the exact
   Gaussian privacy profile).
.. [3] Chaudhuri et al. NeurIPS 2024, Lemma 2, and ``docs/derivations.md`` §2 (the
   inverse-quartic law with density (√2/(π s)) / (1 + (z/s)⁴)).
.. [4] McSherry, Talwar. "Mechanism Design via Differential Privacy." FOCS 2007, and
   Durfee, Rogers. "Practical Differentially Private Top-k Selection with Pay-what-you-get
   Composition." NeurIPS 2019 (Gumbel / exponential noise in report-noisy-max).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import optimize, special

from .._random import RandomLike, as_generator
from .._types import PositiveFloat
from ..errors import InvalidParameterError
from ._base import NoiseLaw
from ._checks import (
    FloatArray,
    _as_probability_array,
    _as_real_array,
    _check_profile_epsilon,
    _check_sensitivity,
    _check_size,
    _exp_times,
    _finish,
)

__all__ = ["Exponential", "Gaussian", "Gumbel", "InverseQuartic", "Laplace"]


class Laplace(NoiseLaw):
    """Laplace law with density ``exp(-|z|/b) / (2b)``.

    Parameters
    ----------
    scale : float
        The scale ``b > 0`` (finite).

    Notes
    -----
    Var Z = 2b².  The additive mechanism with sensitivity Δ is (Δ/b)-DP, and its exact
    privacy profile is ``δ(ε) = max(0, 1 − exp((ε − Δ/b)/2))``.

    References
    ----------
    .. [1] Dwork, McSherry, Nissim, Smith. TCC 2006.
    .. [2] Balle, Barthe, Gaboardi. "Privacy Amplification by Subsampling: Tight Analyses
       via Couplings and Divergences." NeurIPS 2018 (privacy profiles).
    """

    kind: Literal["laplace"] = "laplace"
    scale: PositiveFloat

    def sample(self, rng: RandomLike, size: int | tuple[int, ...]) -> FloatArray:
        """Draw ``size`` iid variates with ``Generator.laplace`` (float64)."""
        return as_generator(rng).laplace(0.0, self.scale, _check_size(size))

    def log_density(self, x: npt.ArrayLike) -> FloatArray:
        """``−|x|/b − log(2b)``."""
        z = _as_real_array(x)
        return _finish(-np.abs(z) / self.scale - math.log(2.0 * self.scale))

    def cdf(self, x: npt.ArrayLike) -> FloatArray:
        """``½e^{x/b}`` for x < 0 and ``1 − ½e^{−x/b}`` otherwise."""
        u = _as_real_array(x) / self.scale
        half_tail = 0.5 * np.exp(-np.abs(u))
        return _finish(np.where(u < 0, half_tail, 1.0 - half_tail))

    def sf(self, x: npt.ArrayLike) -> FloatArray:
        """``cdf(−x)`` by symmetry (tail-accurate)."""
        u = _as_real_array(x) / self.scale
        half_tail = 0.5 * np.exp(-np.abs(u))
        return _finish(np.where(u > 0, half_tail, 1.0 - half_tail))

    def ppf(self, q: npt.ArrayLike) -> FloatArray:
        """``b·log(2q)`` for q < ½ and ``−b·log(2(1 − q))`` otherwise."""
        p = _as_probability_array(q)
        lower = p < 0.5
        tail = np.where(lower, p, 1.0 - p)  # exact for p >= 1/2 (Sterbenz)
        with np.errstate(divide="ignore"):
            mag = -self.scale * np.log(2.0 * tail)
        return _finish(np.where(lower, -mag, mag))

    @property
    def variance(self) -> float:
        """``2b²``."""
        return 2.0 * self.scale**2

    def privacy_profile(self, epsilon: float, sensitivity: float) -> float:
        """Exact ``δ(ε) = max(0, 1 − exp((ε − Δ/b)/2))``.

        References
        ----------
        .. [1] Balle, Barthe, Gaboardi, NeurIPS 2018; Balle & Wang, ICML 2018.
        """
        eps = _check_profile_epsilon(epsilon)
        ratio = _check_sensitivity(sensitivity) / self.scale
        if eps >= ratio:
            return 0.0
        return float(-math.expm1((eps - ratio) / 2.0))

    def pure_epsilon(self, sensitivity: float) -> float:
        """``Δ/b``."""
        return _check_sensitivity(sensitivity) / self.scale


# --------------------------------------------------------------------------------------
# Gaussian
# --------------------------------------------------------------------------------------


class Gaussian(NoiseLaw):
    """Centred normal law N(0, σ²).

    Parameters
    ----------
    sigma : float
        Standard deviation σ > 0 (finite).

    Notes
    -----
    The additive mechanism is never pure DP (``pure_epsilon`` is ``inf``); its exact
    privacy profile is the Balle–Wang formula
    ``δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)``.

    References
    ----------
    .. [1] Balle, Wang. ICML 2018, Theorem 8.
    """

    kind: Literal["gaussian"] = "gaussian"
    sigma: PositiveFloat

    def sample(self, rng: RandomLike, size: int | tuple[int, ...]) -> FloatArray:
        """Draw ``size`` iid variates with ``Generator.normal`` (float64)."""
        return as_generator(rng).normal(0.0, self.sigma, _check_size(size))

    def log_density(self, x: npt.ArrayLike) -> FloatArray:
        """``−x²/(2σ²) − log(σ√(2π))``."""
        u = _as_real_array(x) / self.sigma
        return _finish(-0.5 * u * u - math.log(self.sigma * math.sqrt(2.0 * math.pi)))

    def cdf(self, x: npt.ArrayLike) -> FloatArray:
        """``Φ(x/σ)`` (``scipy.special.ndtr``)."""
        return _finish(np.asarray(special.ndtr(_as_real_array(x) / self.sigma)))

    def sf(self, x: npt.ArrayLike) -> FloatArray:
        """``Φ(−x/σ)``."""
        return _finish(np.asarray(special.ndtr(-_as_real_array(x) / self.sigma)))

    def ppf(self, q: npt.ArrayLike) -> FloatArray:
        """``σ·Φ⁻¹(q)``."""
        return _finish(np.asarray(self.sigma * special.ndtri(_as_probability_array(q))))

    @property
    def variance(self) -> float:
        """``σ²``."""
        return self.sigma**2

    def privacy_profile(self, epsilon: float, sensitivity: float) -> float:
        """Exact Balle–Wang profile ``Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ)``.

        The second term is evaluated as ``exp(ε + log Φ(·))`` so that large ε neither
        overflows nor loses the term.

        References
        ----------
        .. [1] Balle, Wang. ICML 2018, Theorem 8.
        """
        eps = _check_profile_epsilon(epsilon)
        delta_f = _check_sensitivity(sensitivity)
        if math.isinf(eps):
            return 0.0
        a = delta_f / (2.0 * self.sigma)
        b = eps * self.sigma / delta_f
        value = float(special.ndtr(a - b)) - math.exp(eps + float(special.log_ndtr(-a - b)))
        return max(0.0, value)

    def pure_epsilon(self, sensitivity: float) -> float:
        """``inf``: the Gaussian log-likelihood ratio is unbounded."""
        _check_sensitivity(sensitivity)
        return math.inf


# --------------------------------------------------------------------------------------
# inverse quartic
# --------------------------------------------------------------------------------------

_SQRT2 = math.sqrt(2.0)
_IQ_NORM = _SQRT2 / math.pi  # density of the unit law at 0
_IQ_LOG_NORM = math.log(_IQ_NORM)
#: Beyond this |z| (unit scale) the tail is summed from its convergent series in 1/z⁴.
_IQ_SWITCH = 1.5
#: Series terms: (1/1.5)^(4·32) ≈ 3e-23, far below double precision.
_IQ_SERIES = np.array([(-1.0) ** k / (4 * k + 3) for k in range(32)])
#: Largest Δ/s for which the privacy quantities are evaluated (beyond: overflow).
_IQ_MAX_RATIO = 1e100


def _iq_series(w: FloatArray) -> FloatArray:
    """``Σ_k (−w)^k / (4k + 3)`` by Horner's rule (0 ≤ w ≤ 1/1.5⁴)."""
    acc = np.full_like(w, _IQ_SERIES[-1])
    for c in _IQ_SERIES[-2::-1]:
        acc = acc * w + c
    return acc


def _iq_tail(x: FloatArray) -> FloatArray:
    """P(Z > x) for the unit law and x ≥ 0, to full relative precision.

    Near the centre the closed form of the CDF is used; for x ≥ 1.5 the tail
    ``(√2/π) ∫_x^∞ du/(1+u⁴) = (√2/π) Σ_k (−1)^k x^{−(4k+3)}/(4k+3)`` avoids the
    cancellation of the closed form.
    """
    out = np.empty_like(x)
    near = x < _IQ_SWITCH
    xn = x[near]
    out[near] = (
        0.5
        - np.log1p(2.0 * _SQRT2 * xn / (xn * xn - _SQRT2 * xn + 1.0)) / (4.0 * math.pi)
        - (np.arctan(_SQRT2 * xn + 1.0) + np.arctan(_SQRT2 * xn - 1.0)) / (2.0 * math.pi)
    )
    y = 1.0 / x[~near]
    out[~near] = _IQ_NORM * y**3 * _iq_series(y**4)
    return out


def _iq_log_tail(x: FloatArray) -> FloatArray:
    """log P(Z > x) for the unit law and x ≥ 0, without underflow."""
    out = np.empty_like(x)
    near = x < _IQ_SWITCH
    out[near] = np.log(_iq_tail(x[near]))
    y = 1.0 / x[~near]
    with np.errstate(divide="ignore"):
        out[~near] = _IQ_LOG_NORM + 3.0 * np.log(y) + np.log(_iq_series(y**4))
    return out


def _iq_log1p_pow4(x: FloatArray) -> FloatArray:
    """``log(1 + x⁴)`` without overflow for huge |x|."""
    ax = np.abs(x)
    big = ax > 1.0
    with np.errstate(divide="ignore", over="ignore"):
        small_val = np.log1p(ax**4)
        inv = np.where(big, 1.0 / np.where(big, ax, 1.0), 0.0)
        big_val = 4.0 * np.log(np.where(big, ax, 1.0)) + np.log1p(inv**4)
    value: FloatArray = np.where(big, big_val, small_val)
    return value


def _iq_tail_inverse(t: FloatArray) -> FloatArray:
    """The x ≥ 0 with P(Z > x) = t for the unit law, t ∈ [0, ½], vectorised.

    Newton's method on ``log P(Z > x) − log t`` with a bisection safeguard inside the
    bracket ``[0, (√2/(3πt))^{1/3}]`` (the right end bounds x because
    ``P(Z > x) < √2/(3πx³)``).  Converges to a relative accuracy of a few ulp.
    """
    x_out = np.zeros_like(t)
    x_out[t == 0.0] = np.inf
    active_idx = np.flatnonzero((t > 0.0) & (t < 0.5))
    if active_idx.size == 0:
        return x_out
    tt = t[active_idx]
    log_t = np.log(tt)
    hi = np.exp((math.log(_IQ_NORM / 3.0) - log_t) / 3.0) * (1.0 + 1e-12)
    lo = np.zeros_like(tt)
    # Starting point: the asymptotic inverse in the tail, the linearisation at the centre.
    x = np.where(tt < 0.2, hi, (0.5 - tt) / _IQ_NORM)
    idx = np.arange(tt.size)
    for _ in range(200):
        xi = x[idx]
        log_tail = _iq_log_tail(xi)
        g = log_tail - log_t[idx]  # decreasing in x
        pos = g > 0
        lo[idx] = np.where(pos, xi, lo[idx])
        hi[idx] = np.where(pos, hi[idx], xi)
        # d/dx log P(Z > x) = −p(x)/P(Z > x)
        hazard = np.exp(_IQ_LOG_NORM - _iq_log1p_pow4(xi) - log_tail)
        step = g / hazard
        x_new = xi + step
        outside = ~((x_new >= lo[idx]) & (x_new <= hi[idx]))
        x_new = np.where(outside, 0.5 * (lo[idx] + hi[idx]), x_new)
        x_new = np.where(g == 0.0, xi, x_new)
        x[idx] = x_new
        done = (
            (np.abs(x_new - xi) <= 4e-16 * x_new)
            | (g == 0.0)
            | (hi[idx] - lo[idx] <= 4e-16 * hi[idx])
        )
        idx = idx[~done]
        if idx.size == 0:
            break
    # Log space limits the relative accuracy of t to ~|log t|·ulp; two Newton steps on
    # the linear ratio P(Z > x)/t − 1 recover full precision wherever t is a normal number.
    lin = tt > 1e-305
    for _ in range(2):
        xl = x[lin]
        ratio = _iq_tail(xl) / tt[lin] - 1.0
        hazard = np.exp(_IQ_LOG_NORM - _iq_log1p_pow4(xl) - _iq_log_tail(xl))
        x[lin] = xl + ratio / hazard
    x_out[active_idx] = x
    return x_out


def _iq_log_ratio(z: float, d: float) -> float:
    """``log p(z) − log p(z − d)`` for the unit law (accurate for small and large d)."""
    if max(abs(z), d) < 1e60:
        num = -d * (2.0 * z - d) * ((z - d) ** 2 + z * z)  # (z − d)⁴ − z⁴, factored
        return math.log1p(num / (1.0 + z**4))
    arr = _iq_log1p_pow4(np.array([z - d, z]))
    return float(arr[0] - arr[1])


def _iq_argmax_ratio(d: float) -> float:
    """The unique maximiser of ``log p(z) − log p(z − d)`` (unit law), in closed form.

    Stationarity ``f'(z − d) = f'(z)`` with ``f = log(1 + z⁴)`` becomes, with
    ``m = z − d/2`` and ``a = d²/4``, ``(m² − a)³ = 3m² + a``; putting ``m² = a + r``
    gives the depressed cubic ``r³ − 3r − 4a = 0`` whose largest root is the only one with
    ``a + r > 0``.  The maximiser is ``d/2 − √(a + r) = −r / (d/2 + √(a + r))``.
    """
    a = d * d / 4.0
    if a < 0.5:
        r = 2.0 * math.cos(math.acos(2.0 * a) / 3.0)
    else:
        u = math.cbrt(2.0 * a * (1.0 + math.sqrt(1.0 - 1.0 / (4.0 * a * a))))
        r = u + 1.0 / u
    for _ in range(3):  # Newton polish; the derivative is ≥ 6 at the largest root
        r -= (r**3 - 3.0 * r - 4.0 * a) / (3.0 * r * r - 3.0)
    return -r / (d / 2.0 + math.sqrt(a + r))


class InverseQuartic(NoiseLaw):
    """Inverse-quartic law with density ``(√2/(π s)) / (1 + (z/s)⁴)``.

    Parameters
    ----------
    scale : float, default 1.0
        The scale ``s > 0``; Var Z = s² exactly and E|Z| = s/√2.

    Notes
    -----
    For the unit law the CDF has the closed form

    ``F(z) = ½ + ln((z² + √2z + 1)/(z² − √2z + 1))/(4π)
    + [arctan(√2z + 1) + arctan(√2z − 1)]/(2π)``,

    used near the centre; for ``|z| ≥ 1.5`` the tail is summed from the convergent series
    ``(√2/π) Σ_k (−1)^k |z|^{−(4k+3)}/(4k+3)``, so ``cdf`` is accurate to full relative
    precision for very negative z and ``sf(z) = cdf(−z)`` in the right tail.

    The sampler uses ``Z = s · sign · (G₁/G₂)^{1/4}`` with independent
    ``G₁ ~ Gamma(1/4)``, ``G₂ ~ Gamma(3/4)`` (``Z⁴/s⁴`` is Beta-prime(1/4, 3/4)).

    The additive mechanism is pure DP with
    ``ε(Δ) = sup_z |log(1 + ((z + Δ)/s)⁴) − log(1 + (z/s)⁴)|``, evaluated in closed form
    through the stationarity cubic; ``ε(Δ) → 3^{3/4} Δ/s`` as ``Δ/s → 0``.

    References
    ----------
    .. [1] Chaudhuri et al. NeurIPS 2024, Lemma 2; ``docs/derivations.md`` §2.
    """

    kind: Literal["inverse_quartic"] = "inverse_quartic"
    scale: PositiveFloat = 1.0

    def sample(self, rng: RandomLike, size: int | tuple[int, ...]) -> FloatArray:
        """Draw ``size`` iid variates by the gamma-ratio construction (float64).

        ``G₂`` is floored at the smallest normal double, so a (probability ≈ 0) zero
        draw cannot produce ``inf``; ``G₁ = 0`` gives the valid value 0.
        """
        gen = as_generator(rng)
        shape = _check_size(size)
        g1 = gen.standard_gamma(0.25, shape)
        g2 = gen.standard_gamma(0.75, shape)
        np.maximum(g2, np.finfo(np.float64).tiny, out=g2)
        np.divide(g1, g2, out=g1)
        np.sqrt(g1, out=g1)
        np.sqrt(g1, out=g1)
        sign = gen.random(shape) < 0.5
        g1 *= self.scale
        np.negative(g1, out=g1, where=sign)
        return g1

    def log_density(self, x: npt.ArrayLike) -> FloatArray:
        """``log(√2/(π s)) − log(1 + (x/s)⁴)``, without overflow in the far tail."""
        u = _as_real_array(x) / self.scale
        return _finish(_IQ_LOG_NORM - math.log(self.scale) - _iq_log1p_pow4(u))

    def _tail_abs(self, x: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
        u = _as_real_array(x) / self.scale
        return u, _iq_tail(np.abs(np.atleast_1d(u))).reshape(u.shape)

    def cdf(self, x: npt.ArrayLike) -> FloatArray:
        """P(Z ≤ x); full relative precision in the left tail."""
        u, tail = self._tail_abs(x)
        return _finish(np.where(u < 0, tail, 1.0 - tail))

    def sf(self, x: npt.ArrayLike) -> FloatArray:
        """P(Z > x) = cdf(−x); full relative precision in the right tail."""
        u, tail = self._tail_abs(x)
        return _finish(np.where(u > 0, tail, 1.0 - tail))

    def ppf(self, q: npt.ArrayLike) -> FloatArray:
        """Quantile by safeguarded Newton iteration on the tail (relative error ~1e-15)."""
        p = _as_probability_array(q)
        flat = np.atleast_1d(p).ravel()
        lower = flat < 0.5
        tail = np.where(lower, flat, 1.0 - flat)  # exact for p >= 1/2 (Sterbenz)
        mag = _iq_tail_inverse(tail) * self.scale
        return _finish(np.where(lower, -mag, mag).reshape(p.shape))

    @property
    def variance(self) -> float:
        """``s²`` (exactly)."""
        return self.scale**2

    @property
    def mean_absolute(self) -> float:
        """``E|Z| = s/√2``."""
        return self.scale / _SQRT2

    def _unit_shift(self, sensitivity: float) -> float:
        d = _check_sensitivity(sensitivity) / self.scale
        if d > _IQ_MAX_RATIO:
            raise InvalidParameterError(
                f"sensitivity/scale = {d!r} exceeds {_IQ_MAX_RATIO:g}; "
                "the inverse-quartic privacy quantities are not evaluated there"
            )
        return d

    def pure_epsilon(self, sensitivity: float) -> float:
        """``sup_z |log(1 + ((z+Δ)/s)⁴) − log(1 + (z/s)⁴)|``, in closed form.

        The supremum is attained at the unique stationary point given by the cubic in
        :func:`_iq_argmax_ratio`; it increases with Δ, so shifts ``|s'| ≤ Δ`` do not
        exceed it.
        """
        d = self._unit_shift(sensitivity)
        return _iq_log_ratio(_iq_argmax_ratio(d), d)

    def privacy_profile(self, epsilon: float, sensitivity: float) -> float:
        """Exact δ(ε) of ``f(D) + Z`` for shift Δ, to about double precision.

        The set ``{z : p(z) > e^ε p(z − Δ)}`` is a single interval on the left of the
        unique maximiser of the log-ratio; its end points are found with Brent's method
        and δ is then the exact difference of CDF masses
        ``P(a < Z < b) − e^ε P(a − Δ < Z < b − Δ)``.  Both shift directions give the same
        value (the law is symmetric), and δ increases with the shift, so Δ is the worst
        case.
        """
        eps = _check_profile_epsilon(epsilon)
        d = self._unit_shift(sensitivity)
        z_star = _iq_argmax_ratio(d)
        eps_max = _iq_log_ratio(z_star, d)
        if eps >= eps_max:
            return 0.0
        if eps == 0.0:
            a, b = -math.inf, d / 2.0
        else:

            def excess(z: float) -> float:
                return _iq_log_ratio(z, d) - eps

            b = optimize.brentq(excess, z_star, d / 2.0, xtol=1e-300, rtol=1e-15, maxiter=500)
            reach = max(1.0, d)
            while excess(z_star - reach) > 0.0 and reach < 1e60:
                reach *= 2.0
            if excess(z_star - reach) > 0.0:
                a = -math.inf  # ε below ~1e-58: the lost mass is negligible
            else:
                a = optimize.brentq(
                    excess, z_star - reach, z_star, xtol=1e-300, rtol=1e-15, maxiter=500
                )
        mass_p = _iq_mass(a, b)
        mass_q = _iq_mass(a - d, b - d)
        return max(0.0, mass_p - float(_exp_times(eps, mass_q)))


def _iq_mass(a: float, b: float) -> float:
    """P(a < Z < b) for the unit inverse-quartic law, using the accurate tail side."""
    if b <= a:
        return 0.0
    ends = np.array([a, b])
    tails = _iq_tail(np.abs(ends))
    cdf_a, cdf_b = (tails[i] if ends[i] < 0 else 1.0 - tails[i] for i in range(2))
    sf_a, sf_b = (tails[i] if ends[i] > 0 else 1.0 - tails[i] for i in range(2))
    return float(sf_a - sf_b) if a >= 0 else float(cdf_b - cdf_a)


# --------------------------------------------------------------------------------------
# Gumbel
# --------------------------------------------------------------------------------------


class Gumbel(NoiseLaw):
    """Standard (max-)Gumbel law with location 0 and scale β: ``F(x) = exp(−e^{−x/β})``.

    Parameters
    ----------
    scale : float
        β > 0 (finite).

    Notes
    -----
    Adding iid Gumbel noise of scale 2Δ/ε to every score and reporting the arg-max is the
    exponential mechanism; as *additive* noise on a single value the law is not pure DP
    (``pure_epsilon`` is ``inf``), but it is log-concave, so its privacy profile is exact
    in closed form (below).  E Z = γβ (Euler's γ); Var Z = π²β²/6.

    References
    ----------
    .. [1] McSherry, Talwar. FOCS 2007; Durfee, Rogers. NeurIPS 2019.
    """

    kind: Literal["gumbel"] = "gumbel"
    scale: PositiveFloat

    def sample(self, rng: RandomLike, size: int | tuple[int, ...]) -> FloatArray:
        """Draw ``size`` iid variates with ``Generator.gumbel`` (float64)."""
        return as_generator(rng).gumbel(0.0, self.scale, _check_size(size))

    def log_density(self, x: npt.ArrayLike) -> FloatArray:
        """``−log β − u − e^{−u}`` with ``u = x/β``."""
        u = _as_real_array(x) / self.scale
        with np.errstate(over="ignore", invalid="ignore"):
            value = -math.log(self.scale) - u - np.exp(-u)
        return _finish(np.where(np.isinf(u), -np.inf, value))

    def cdf(self, x: npt.ArrayLike) -> FloatArray:
        """``exp(−e^{−x/β})``."""
        u = _as_real_array(x) / self.scale
        with np.errstate(over="ignore"):
            return _finish(np.exp(-np.exp(-u)))

    def sf(self, x: npt.ArrayLike) -> FloatArray:
        """``−expm1(−e^{−x/β})`` (tail-accurate)."""
        u = _as_real_array(x) / self.scale
        with np.errstate(over="ignore"):
            return _finish(-np.expm1(-np.exp(-u)))

    def ppf(self, q: npt.ArrayLike) -> FloatArray:
        """``−β log(−log q)`` (``log q`` as ``log1p(q − 1)`` for q ≥ ½)."""
        p = _as_probability_array(q)
        with np.errstate(divide="ignore"):
            log_q = np.where(p < 0.5, np.log(p), np.log1p(p - 1.0))
            return _finish(-self.scale * np.log(-log_q))

    @property
    def variance(self) -> float:
        """``π²β²/6``."""
        return math.pi**2 * self.scale**2 / 6.0

    def privacy_profile(self, epsilon: float, sensitivity: float) -> float:
        """Exact δ(ε), the larger of the two shift directions, in closed form.

        With ``d = Δ/β`` the log-likelihood ratio of Z against Z + Δ is
        ``−d + e^{−u}(e^d − 1)``, monotone in u, so each direction is one threshold
        event: ``δ₁ = exp(−c₁) − exp(ε − c₁e^d)`` with ``c₁ = (ε + d)/(e^d − 1)`` and, for
        ε < d, ``δ₂ = −expm1(−c₂e^d) + e^ε expm1(−c₂)`` with ``c₂ = (d − ε)/(e^d − 1)``.
        """
        eps = _check_profile_epsilon(epsilon)
        d = _check_sensitivity(sensitivity) / self.scale
        if math.isinf(eps):
            return 0.0
        em1 = math.expm1(d) if d < 700 else math.inf
        one_minus = -math.expm1(-d)  # 1 − e^{−d}
        delta1 = math.exp(-(eps + d) / em1) - math.exp(eps - (eps + d) / one_minus)
        delta2 = 0.0
        if eps < d:
            c2 = (d - eps) / em1
            delta2 = -math.expm1(-(d - eps) / one_minus) + math.exp(eps) * math.expm1(-c2)
        return max(0.0, delta1, delta2)

    def pure_epsilon(self, sensitivity: float) -> float:
        """``inf``: the log-likelihood ratio ``−d + e^{−u}(e^d − 1)`` is unbounded."""
        _check_sensitivity(sensitivity)
        return math.inf


# --------------------------------------------------------------------------------------
# exponential (one-sided)
# --------------------------------------------------------------------------------------


class Exponential(NoiseLaw):
    """One-sided exponential law on [0, ∞) with density ``e^{−x/λ}/λ``.

    Parameters
    ----------
    scale : float
        λ > 0 (finite); E Z = λ, Var Z = λ².

    Notes
    -----
    Used by report-noisy-max with exponential noise (equivalent to the exponential
    mechanism, McKenna & Sheldon 2020).  As additive noise on one value it is not DP at
    all: a shift by Δ moves mass ``1 − e^{−Δ/λ}`` outside the other support, so
    ``δ(ε) = 1 − e^{−Δ/λ}`` for every ε and ``pure_epsilon`` is ``inf``.
    ``ppf(0)`` is the left end of the support, 0.

    References
    ----------
    .. [1] McKenna, Sheldon. "Permute-and-Flip: A new mechanism for differentially private
       selection." NeurIPS 2020; Ding et al. "The Permute-and-Flip Mechanism is Identical to
       Report-Noisy-Max with Exponential Noise." 2021.
    """

    kind: Literal["exponential"] = "exponential"
    scale: PositiveFloat

    def sample(self, rng: RandomLike, size: int | tuple[int, ...]) -> FloatArray:
        """Draw ``size`` iid variates with ``Generator.exponential`` (float64)."""
        return as_generator(rng).exponential(self.scale, _check_size(size))

    def log_density(self, x: npt.ArrayLike) -> FloatArray:
        """``−x/λ − log λ`` on x ≥ 0 and ``−inf`` below."""
        z = _as_real_array(x)
        return _finish(np.where(z >= 0, -z / self.scale - math.log(self.scale), -np.inf))

    def cdf(self, x: npt.ArrayLike) -> FloatArray:
        """``1 − e^{−x/λ}`` (as ``−expm1``) for x ≥ 0, else 0."""
        z = _as_real_array(x)
        return _finish(np.where(z > 0, -np.expm1(-np.maximum(z, 0.0) / self.scale), 0.0))

    def sf(self, x: npt.ArrayLike) -> FloatArray:
        """``e^{−x/λ}`` for x ≥ 0, else 1."""
        z = _as_real_array(x)
        return _finish(np.exp(-np.maximum(z, 0.0) / self.scale))

    def ppf(self, q: npt.ArrayLike) -> FloatArray:
        """``−λ log1p(−q)``; ``ppf(1) = inf``."""
        p = _as_probability_array(q)
        with np.errstate(divide="ignore"):
            return _finish(-self.scale * np.log1p(-p))

    @property
    def variance(self) -> float:
        """``λ²``."""
        return self.scale**2

    def privacy_profile(self, epsilon: float, sensitivity: float) -> float:
        """``1 − e^{−Δ/λ}`` for every ε ≥ 0 (the mass outside the shifted support)."""
        _check_profile_epsilon(epsilon)
        return float(-math.expm1(-_check_sensitivity(sensitivity) / self.scale))

    def pure_epsilon(self, sensitivity: float) -> float:
        """``inf`` (the supports differ)."""
        _check_sensitivity(sensitivity)
        return math.inf
