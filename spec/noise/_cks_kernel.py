"""Compiled (numba) kernels of CKS20 Algorithms 1–3 over a pool of random bits.

Every random decision takes its bits from 64-bit words drawn, in buffers of
``_WORDS`` words, from the injected :class:`numpy.random.Generator` itself
(``Generator.integers`` over the full uint64 range inside the kernel: the bit generator's
raw words, so the generator's state advances and a seed reproduces the draws).  A
uniform integer below n is ``b = ⌈log₂ n⌉`` fresh bits, redrawn while ≥ n (exactly
uniform, no division); every decision is an exact integer comparison, except the
discrete Gaussian's acceptance, whose float filter decides only comparisons that a
rigorous error bound settles and hands every other one back to the caller (status codes
below), which decides it in exact rational arithmetic (:mod:`spec.noise._cks`).

Bits left over at the end of a call (never examined) are discarded: the law of the
draws does not depend on them.  The kernel releases the GIL and, like numba's own
generator methods, does not take the bit generator's lock: a ``Generator`` must not be
drawn from by two threads at once (the auditor gives every block its own generator).

References
----------
.. [1] Canonne, Kamath, Steinke. "The Discrete Gaussian for Differential Privacy."
   NeurIPS 2020 (arXiv:2004.00010), Algorithms 1, 2 and 3.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["DONE", "OVERFLOW", "RESCUE_COIN", "RESCUE_STEP", "cks_fill", "gamma_float"]

#: Status codes returned by the kernels.
DONE, OVERFLOW, RESCUE_COIN, RESCUE_STEP = 0, 1, 2, 3
#: Words per buffer refill (32 KiB, stays in L1/L2).
_WORDS = 4096
_FULL = np.uint64(0xFFFFFFFFFFFFFFFF)
_INT64_MAX = np.int64((1 << 63) - 1)
_U = 2.0**-53          # unit roundoff of float64
_TWO53 = float(1 << 53)
_A_MAX = np.int64(1 << 52)

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _refill(gen, buf):  # type: ignore[no-untyped-def]
    """Overwrite the word buffer with fresh raw uint64 words of the injected generator."""
    buf[:] = gen.integers(0, _FULL, size=buf.size, dtype=np.uint64, endpoint=True)


@_jit
def _low_bits(pool, nbits):  # type: ignore[no-untyped-def]
    """(the low ``nbits`` bits of ``pool`` as int64, the remaining bits)."""
    shift = np.uint64(nbits)
    return np.int64(pool & ((np.uint64(1) << shift) - np.uint64(1))), pool >> shift


@_jit
def _bit_length(n):  # type: ignore[no-untyped-def]
    """Number of bits of n ≥ 0 (0 for n = 0)."""
    b = 0
    while n > 0:
        n >>= 1
        b += 1
    return b


@_jit
def gamma_float(a, sigma, t):  # type: ignore[no-untyped-def]
    """γ̂ = (a − σ²/t)²/(2σ²) in float64 and a rigorous bound M ≥ |γ̂ − γ|.

    With unit roundoff u = 2⁻⁵³ and exact a (< 2⁵²), t, σ: σ̂² = σ²(1 + e₁), μ̂ = σ̂²/t ·
    (1 + e₂) so |μ̂ − μ| ≤ 2.01uμ; d̂ = fl(a − μ̂) has |d̂ − (a − μ)| ≤ 2.02uμ + u|a − μ|;
    γ̂ = fl(fl(d̂²)/fl(2σ̂²)) carries three more relative roundings.  Altogether
    |γ̂ − γ| ≤ (5.1u(|a − μ| + μ)² + O(u²))/(2σ²); we take M = 8u(|d̂| + 2μ̂)²/(2σ̂²),
    which covers the bound (|a − μ| ≤ |d̂|(1 + u) + 2.02uμ) and the rounding of M itself.
    Works elementwise on arrays and on scalars.
    """
    s2 = sigma * sigma
    mu = s2 / t
    d = a - mu
    two_s2 = 2.0 * s2
    gamma = d * d / two_s2
    span = np.abs(d) + 2.0 * mu
    margin = 8.0 * _U * span * span / two_s2 + 1e-300
    return gamma, margin


# The kernel keeps its bit pool in local scalars (pos, pool, left): passing arrays or the
# generator to helper functions costs a reference count per call, more than a coin.  Every
# "take b bits" is therefore written out in place:
#     if left < b: (refill the buffer if used up;) pool = next word; left = 64
#     r, pool = _low_bits(pool, b); left -= b
# and a uniform integer below n is b = bit length of n − 1 such bits, redrawn while ≥ n.
@_jit
def cks_fill(gen, out, start, t, s, gaussian, sigma):  # type: ignore[no-untyped-def]
    """Fill ``out[start:]`` (int64) with exact draws of DLap(t/s) or N_ℤ(0, σ²).

    ``gaussian`` False: CKS20 Algorithm 2, DLap(t/s) (``s = 0`` stands for an s ≥ 2⁶³,
    above every U + tV ≤ 2⁶³ − 1, so every draw is 0).  ``gaussian`` True: Algorithm 3,
    proposals DLap(t) (s = 1) with t = ⌊σ⌋ + 1, each accepted with Bernoulli(exp(−γ)),
    γ = (|y| − σ²/t)²/(2σ²), decided by a float filter with a rigorous error bound.

    Returns ``(i, status, y, k, K)``: DONE with i = out.size; OVERFLOW at entry i (a
    U + tV beyond int64, probability below e⁻¹²⁷); or, at entry i, a close call of the
    acceptance coin for proposal y, which the caller decides exactly — RESCUE_COIN (⌊γ⌋ or
    |y| not certain in float: the whole coin Bernoulli(exp(−γ)), no randomness used for it
    yet), RESCUE_STEP (the ⌊γ⌋ coins Bernoulli(e⁻¹) and Algorithm 1's coins 1..k − 1 for
    f = γ − ⌊γ⌋ succeeded; coin k compares V = (K + W)/2⁵³, K the drawn 53 bits, with
    f/k).  After a rescue the caller calls again from the next entry due (rejection is
    memoryless, so a rejected proposal just restarts the entry).
    """
    buf = np.empty(_WORDS, dtype=np.uint64)
    pos = _WORDS  # the buffer is filled on the first request
    pool = np.uint64(0)
    left = 0
    tbits = _bit_length(t - 1)
    vmax = (_INT64_MAX - (t - 1)) // t  # U + tV < 2⁶³ for V ≤ vmax
    zero = np.int64(0)
    i = start
    while i < out.size:
        # ---- Algorithm 2, step 1: U uniform below t, kept with Bernoulli(exp(−U/t)) ----
        u = zero
        if t > 1:
            while True:
                if left < tbits:
                    if pos == _WORDS:
                        _refill(gen, buf)
                        pos = 0
                    pool = buf[pos]
                    pos += 1
                    left = 64
                u, pool = _low_bits(pool, tbits)
                left -= tbits
                if u < t:
                    break
            # Algorithm 1 at γ = U/t: coin k = [R < U] ∧ [S = 0], R below t, S below k
            # (independent, so Bernoulli(U/(tk)) without forming t·k); first failing k odd
            k = 1
            while True:
                while True:
                    if left < tbits:
                        if pos == _WORDS:
                            _refill(gen, buf)
                            pos = 0
                        pool = buf[pos]
                        pos += 1
                        left = 64
                    r, pool = _low_bits(pool, tbits)
                    left -= tbits
                    if r < t:
                        break
                if r >= u:
                    break
                if k > 1:
                    kbits = _bit_length(k - 1)
                    while True:
                        if left < kbits:
                            if pos == _WORDS:
                                _refill(gen, buf)
                                pos = 0
                            pool = buf[pos]
                            pos += 1
                            left = 64
                        r, pool = _low_bits(pool, kbits)
                        left -= kbits
                        if r < k:
                            break
                    if r != 0:
                        break
                k += 1
            if k % 2 == 0:
                continue
        # ---- step 2: V = number of Bernoulli(e⁻¹) successes before the first failure ----
        # each coin is Algorithm 1 at γ = 1: coins Bernoulli(1/k) = [uniform below k is 0],
        # k = 2, 3, …; the coin succeeds iff the first failing k is odd
        v = zero
        while True:
            k = 2
            while True:
                kbits = _bit_length(k - 1)
                while True:
                    if left < kbits:
                        if pos == _WORDS:
                            _refill(gen, buf)
                            pos = 0
                        pool = buf[pos]
                        pos += 1
                        left = 64
                    r, pool = _low_bits(pool, kbits)
                    left -= kbits
                    if r < k:
                        break
                if r != 0:
                    break
                k += 1
            if k % 2 == 0:
                break
            v += 1
        if v > vmax:
            return i, OVERFLOW, zero, zero, zero
        x = u + t * v
        y = x // s if s > 0 else zero
        # ---- step 3: a sign bit; (negative, 0) is rejected ----
        if left < 1:
            if pos == _WORDS:
                _refill(gen, buf)
                pos = 0
            pool = buf[pos]
            pos += 1
            left = 64
        r, pool = _low_bits(pool, 1)
        left -= 1
        if r == 1:
            if y == 0:
                continue
            y = -y
        if not gaussian:
            out[i] = y
            i += 1
            continue
        # ---- Algorithm 3: accept y with Bernoulli(exp(−γ)) ----
        a = abs(y)
        gamma, margin = gamma_float(float(a), sigma, t)
        whole = np.floor(gamma)
        frac = gamma - whole
        if not (frac > margin and 1.0 - frac > margin and a < _A_MAX):
            return i, RESCUE_COIN, y, zero, zero
        # ⌊γ⌋ coins Bernoulli(e⁻¹) (as in step 2), all must succeed
        alive = True
        for _ in range(np.int64(whole)):
            k = 2
            while True:
                kbits = _bit_length(k - 1)
                while True:
                    if left < kbits:
                        if pos == _WORDS:
                            _refill(gen, buf)
                            pos = 0
                        pool = buf[pos]
                        pos += 1
                        left = 64
                    r, pool = _low_bits(pool, kbits)
                    left -= kbits
                    if r < k:
                        break
                if r != 0:
                    break
                k += 1
            if k % 2 == 0:
                alive = False
                break
        if not alive:
            continue
        # Algorithm 1 for f: coins Bernoulli(f/k) = [V < f/k] until one fails (k odd: accept)
        k = 1
        while True:
            if left < 53:
                if pos == _WORDS:
                    _refill(gen, buf)
                    pos = 0
                pool = buf[pos]
                pos += 1
                left = 64
            big_k, pool = _low_bits(pool, 53)
            left -= 53
            lo = float(big_k) / _TWO53
            g = frac / k
            # |ĝ − f/k| ≤ M/k + u (the division), and the sums g ∓ err round by ≤ u
            # (values < 2): 4u covers both with room for the rounding of M/k itself
            err = margin / k + 4.0 * _U
            if lo + 1.0 / _TWO53 <= g - err:
                k += 1
                continue
            if lo >= g + err:
                break
            return i, RESCUE_STEP, y, np.int64(k), big_k
        if k % 2 == 1:
            out[i] = y
            i += 1
    return i, DONE, zero, zero, zero
