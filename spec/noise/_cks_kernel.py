"""Compiled (numba) kernels of CKS20 Algorithms 1–3 over a pool of random bits.

Every random decision takes its bits from 64-bit words drawn, in buffers of
``_WORDS`` words, from the injected :class:`numpy.random.Generator` itself
(``Generator.integers`` over the full uint64 range inside the kernel: the bit generator's
raw words, so the generator's state advances and a seed reproduces the draws).  A
uniform integer below n is ``b = ⌈log₂ n⌉`` fresh bits, redrawn while ≥ n (exactly
uniform, no division); every decision of the discrete Laplace kernel (:func:`cks_fill`)
is an exact integer comparison.  The discrete Gaussian kernel (:func:`dg_fill`) compares
53-bit uniforms with exponentials through a float filter that decides only comparisons
a rigorous error bound settles and hands every other one back to the caller (status
codes below), which decides it in exact rational arithmetic (:mod:`spec.noise._cks`).

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

__all__ = [
    "DONE",
    "OVERFLOW",
    "RESCUE_ACCEPT",
    "RESCUE_COIN",
    "RESCUE_GEO",
    "cks_fill",
    "dg_fill",
    "gamma_float",
]

#: Status codes returned by the kernels.
DONE, OVERFLOW, RESCUE_COIN, RESCUE_GEO, RESCUE_ACCEPT = 0, 1, 2, 3, 4
#: Words per buffer refill (32 KiB, stays in L1/L2).
_WORDS = 4096
_FULL = np.uint64(0xFFFFFFFFFFFFFFFF)
_INT64_MAX = np.int64((1 << 63) - 1)
_U = 2.0**-53  # unit roundoff of float64
_TWO53 = float(1 << 53)
_INV53 = 2.0**-53
#: Assumed bound on the relative error of float64 ``exp`` on normal results (libm's is
#: below 1 ulp = 2⁻⁵²; the filter takes 2⁻⁴⁵, 128 times that).
_EXP_REL = 2.0**-45
#: The acceptance coin of a proposal with γ above this is certainly lost once its
#: uniform's 53 bits K are not all 0: e^{−γ} < e⁻⁴⁰ < 2⁻⁵⁷ < K/2⁵³.
_GAMMA_TAIL = 40.0
_SIXTH = 1.0 / 6.0  # (its rounding is far inside _SQUEEZE)
_K_HALF = np.int64(1 << 52)
_K_BIG = np.int64(1 << 48)
_K_NEVER = np.int64((1 << 53) + 1)
#: The acceptance table covers |y| < 8t (P(|Y| ≥ 8t) = e⁻⁸ for a proposal) when a call
#: draws at least 8 entries per table entry and the table has at most 2²⁰ entries.
_TABLE_T, _TABLE_MAX = 8, 1 << 20
#: Absolute slack of the squeeze tests (their few roundings are each ≤ 2⁻⁵² here).
_SQUEEZE = 2.0**-40
_A_MAX = np.int64(1 << 52)

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _refill(gen, buf):  # type: ignore[no-untyped-def]  # numba infers the types
    """Overwrite the word buffer with fresh raw uint64 words of the injected generator."""
    buf[:] = gen.integers(0, _FULL, size=buf.size, dtype=np.uint64, endpoint=True)


@_jit
def _low_bits(pool, nbits):  # type: ignore[no-untyped-def]  # numba infers the types
    """(the low ``nbits`` bits of ``pool`` as int64, the remaining bits)."""
    shift = np.uint64(nbits)
    return np.int64(pool & ((np.uint64(1) << shift) - np.uint64(1))), pool >> shift


@_jit
def _bit_length(n):  # type: ignore[no-untyped-def]  # numba infers the types
    """Number of bits of n ≥ 0 (0 for n = 0)."""
    b = 0
    while n > 0:
        n >>= 1
        b += 1
    return b


@_jit
def gamma_float(a, sigma, t):  # type: ignore[no-untyped-def]  # numba infers the types
    """γ̂ = (a − σ²/t)²/(2σ²) in float64 and a rigorous bound M ≥ |γ̂ − γ|.

    With unit roundoff u = 2⁻⁵³ and exact a (< 2⁵²), t, σ: σ̂² = σ²(1 + e₁), μ̂ = σ̂²/t ·
    (1 + e₂) so |μ̂ − μ| ≤ 2.01uμ; d̂ = fl(a − μ̂) has |d̂ − (a − μ)| ≤ 2.02uμ + u|a − μ|;
    γ̂ = fl(fl(d̂²) · fl(1/(2σ̂²))) (a product by the reciprocal, which the kernel's loop
    computes once) carries three more relative roundings (2σ̂² is exact).  Altogether
    |γ̂ − γ| ≤ (5.1u(|a − μ| + μ)² + O(u²))/(2σ²); we take M = 8u(|d̂| + 2μ̂)²/(2σ̂²),
    which covers the bound (|a − μ| ≤ |d̂|(1 + u) + 2.02uμ) and the rounding of M itself.
    Works elementwise on arrays and on scalars.
    """
    mu, inv_two_s2 = _gamma_constants(sigma, t)
    return _gamma_parts(a, mu, inv_two_s2)


@_jit
def _gamma_constants(sigma, t):  # type: ignore[no-untyped-def]  # numba infers the types
    """(μ̂ = fl(σ̂²/t), fl(1/(2σ̂²))): the per-σ part of :func:`gamma_float`."""
    s2 = sigma * sigma
    return s2 / t, 1.0 / (2.0 * s2)


@_jit
def _gamma_parts(a, mu, inv_two_s2):  # type: ignore[no-untyped-def]  # numba infers the types
    """γ̂ and M of :func:`gamma_float` from its per-σ constants (the kernel's loop)."""
    d = a - mu
    gamma = d * d * inv_two_s2
    span = np.abs(d) + 2.0 * mu
    margin = 8.0 * _U * span * span * inv_two_s2 + 1e-300
    return gamma, margin


# The kernel keeps its bit pool in local scalars (pos, pool, left): passing arrays or the
# generator to helper functions costs a reference count per call, more than a coin.  Every
# "take b bits" is therefore written out in place:
#     if left < b: (refill the buffer if used up;) pool = next word; left = 64
#     r, pool = _low_bits(pool, b); left -= b
# and a uniform integer below n is b = bit length of n − 1 such bits, redrawn while ≥ n.
@_jit
def cks_fill(gen, out, t, s):  # type: ignore[no-untyped-def]  # numba infers the types
    """Fill ``out`` (int64) with exact draws of DLap(t/s) — CKS20 Algorithm 2.

    ``s = 0`` stands for an s ≥ 2⁶³, above every U + tV ≤ 2⁶³ − 1, so every draw is 0.
    Returns ``(i, status)``: DONE with i = out.size, or OVERFLOW at entry i (a U + tV
    beyond int64, probability below e⁻¹²⁷).
    """
    buf = np.empty(_WORDS, dtype=np.uint64)
    pos = _WORDS  # the buffer is filled on the first request
    pool = np.uint64(0)
    left = 0
    tbits = _bit_length(t - 1)
    vmax = (_INT64_MAX - (t - 1)) // t  # U + tV < 2⁶³ for V ≤ vmax
    zero = np.int64(0)
    i = 0
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
            return i, OVERFLOW
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
        out[i] = y
        i += 1
    return i, DONE


@_jit
def _exp_bounds(gamma, margin):  # type: ignore[no-untyped-def]  # numba infers the types
    """Floats p_lo ≤ e^{−γ} ≤ p_hi from γ̂ and M (for γ̂ − M ≤ 40 and M ≤ 1/4).

    e^{−γ} ∈ [e^{−γ̂−M}, e^{−γ̂+M}] and p̂ = fl(exp(−γ̂)) = e^{−γ̂}(1 + δ), |δ| ≤ _EXP_REL
    (γ̂ ≤ 41: a normal result), so p̂(1 − M − 2_EXP_REL) ≤ e^{−γ} ≤ p̂(1 + 2M + 4_EXP_REL)
    for M ≤ 1/4, with room for the few roundings (each ≤ u) of these products.
    """
    p = np.exp(-gamma)
    return p * (1.0 - (margin + 2.0 * _EXP_REL)), p * (1.0 + (2.0 * margin + 4.0 * _EXP_REL))


@_jit
def _acceptance_table(size, mu, inv_two_s2):  # type: ignore[no-untyped-def]  # numba infers the types
    """Integer thresholds of the acceptance coin [W < e^{−γ(x)}] for |y| = x < size.

    With K the coin's 53 bits: K < acc[x] ⟺ (K + 1)/2⁵³ ≤ p_lo (certainly accept),
    K ≥ rej[x] ⟺ K/2⁵³ ≥ p_hi (certainly reject), else a close call — the same
    decisions as the kernel's scalar path (:func:`_exp_bounds`, the γ > 40 tail, the
    M > 1/4 guard), computed once per x (p·2⁵³ is exact: a power-of-two scaling).
    """
    acc = np.zeros(size, dtype=np.int64)
    rej = np.empty(size, dtype=np.int64)
    for x in range(size):
        gamma, margin = _gamma_parts(float(x), mu, inv_two_s2)
        if gamma - margin > _GAMMA_TAIL:
            rej[x] = 1
        elif margin > 0.25:
            rej[x] = _K_NEVER
        else:
            p_lo, p_hi = _exp_bounds(gamma, margin)
            acc[x] = np.int64(np.floor(p_lo * _TWO53))
            rej[x] = np.int64(np.ceil(p_hi * _TWO53))
    return acc, rej


@_jit
def dg_fill(gen, out, start, t, sigma):  # type: ignore[no-untyped-def]  # numba infers the types
    """Fill ``out[start:]`` (int64) with exact draws of N_ℤ(0, σ²) — CKS20 Algorithm 3.

    Proposals Y ~ DLap(t), t = ⌊σ⌋ + 1, each accepted with Bernoulli(exp(−γ)),
    γ = (|Y| − σ²/t)²/(2σ²).  Every random decision is one comparison of a uniform
    W = (K + W′)/2⁵³ (K the top 53 bits of a fresh 64-bit word, W′ ∈ [0, 1) its unrevealed
    lower bits) with a value e^{−r}, decided from float64 with a rigorous error bound when
    the whole interval [K/2⁵³, (K + 1)/2⁵³) lies on one side of it, and otherwise handed
    back to the caller, which decides it exactly from the same K (``docs/sampler_speed.md``,
    "Filtered exact coins"):

    * |Y| = X = max{x ≥ 0 : W < e^{−x/t}} = ⌈−t ln W⌉ − 1 (P(X ≥ x) = e^{−x/t}: the
      geometric law of Algorithm 2's U + tV in one uniform), certain when the bounds on
      −t ln W over K's interval, widened by the float error, lie strictly between two
      consecutive integers; the sign is the word's lowest bit and (negative, 0) is
      rejected, as in Algorithm 2;
    * the acceptance coin is [W < e^{−γ}] with a fresh word, γ from :func:`gamma_float`.

    Returns ``(i, status, y, K)``: DONE with i = out.size; otherwise a close call at entry
    i, decided by the caller — RESCUE_GEO (X not certain from K; nothing else drawn for
    this proposal yet), RESCUE_ACCEPT (the acceptance coin of proposal y, not certain from
    K) or RESCUE_COIN (|y| ≥ 2⁵², beyond the float filter of γ: the whole coin, no
    randomness used for it yet).  A rejected proposal restarts its entry (rejection
    sampling is memoryless), so after a rescue the caller calls again from the entry due.
    """
    buf = np.empty(_WORDS, dtype=np.uint64)
    pos = _WORDS  # the buffer is filled on the first request
    zero = np.int64(0)
    tf = float(t)
    slack_52 = 1.01 * tf * 2.0**-52
    slack_48 = 1.01 * tf * 2.0**-48
    mu, inv_two_s2 = _gamma_constants(sigma, t)
    size = _TABLE_T * t
    if size > _TABLE_MAX or 8 * size > out.size - start:
        size = 0
    acc, rej = _acceptance_table(size, mu, inv_two_s2)
    i = start
    while i < out.size:
        # ---- proposal: X from the top 53 bits of one word, the sign from its lowest bit ----
        if pos == _WORDS:
            _refill(gen, buf)
            pos = 0
        word = buf[pos]
        pos += 1
        big_k = np.int64(word >> np.uint64(11))
        if big_k == 0:
            return i, RESCUE_GEO, zero, big_k
        # X = ⌈c(W)⌉ − 1 with c(W) = −t ln W, decreasing in W, so for W in [lo, lo + 2⁻⁵³),
        # lo = K/2⁵³: c(W) ∈ (c(lo) − t ln(1 + 1/K), c(lo)] ⊂ (c(lo) − t/K, c(lo)].  With
        # |log error| ≤ _EXP_REL relative and ĉ = fl(t · loĝ(lo)) (one more rounding),
        # c(lo) ∈ [ĉ(1 − 2_EXP_REL), ĉ(1 + 2_EXP_REL)]; the extra _EXP_REL and the factor
        # 1.01 on t/K cover the roundings (each ≤ u relative) of the bounds themselves.
        # X = n is certain when n < every c and every c < n + 1.
        c = -tf * np.log(float(big_k) * _INV53)
        c_max = c * (1.0 + 3.0 * _EXP_REL)
        # (t/K ≤ t·2⁻⁵² for K ≥ 2⁵², ≤ t·2⁻⁴⁸ for K ≥ 2⁴⁸: a division in 2⁻⁵ of the words)
        if big_k >= _K_HALF:
            width = slack_52
        elif big_k >= _K_BIG:
            width = slack_48
        else:
            width = 1.01 * tf / float(big_k)
        c_min = c * (1.0 - 3.0 * _EXP_REL) - width
        n_lo = np.floor(c_min)
        if not (n_lo < c_min and c_max < n_lo + 1.0):
            return i, RESCUE_GEO, zero, big_k
        x = np.int64(n_lo)
        negative = np.int64(word & np.uint64(1))
        if negative == 1 and x == 0:
            continue
        y = (x ^ -negative) + negative  # −x when negative (branch-free: the bit is a coin)
        # ---- Algorithm 3: accept y with Bernoulli(exp(−γ)) = [W < e^{−γ}] ----
        if x >= _A_MAX:
            return i, RESCUE_COIN, y, zero
        if pos == _WORDS:
            _refill(gen, buf)
            pos = 0
        big_k = np.int64(buf[pos] >> np.uint64(11))
        pos += 1
        if x < size:
            if big_k < acc[x]:
                out[i] = y
                i += 1
                continue
            if big_k >= rej[x]:
                continue
            return i, RESCUE_ACCEPT, y, big_k
        if x < size:
            if big_k < acc[x]:
                out[i] = y
                i += 1
                continue
            if big_k >= rej[x]:
                continue
            return i, RESCUE_ACCEPT, y, big_k
        gamma, margin = _gamma_parts(float(x), mu, inv_two_s2)
        if gamma - margin > _GAMMA_TAIL:
            if big_k > 0:
                continue
            return i, RESCUE_ACCEPT, y, big_k
        if margin > 0.25:
            return i, RESCUE_ACCEPT, y, big_k
        # squeezes first (no exp): 1 − g + g²/2 − g³/6 ≤ e^{−g} ≤ 1/(1 + g + g²/2) for every
        # g ≥ 0, applied at g = γ̂ + M ≥ γ (accept; only for g ≤ 1, where the polynomial's
        # computed value is within a few u of it) and g = γ̂ − M ≤ γ (reject)
        g_hi = gamma + margin
        if g_hi <= 1.0:
            w_hi = float(big_k + 1) * _INV53
            if w_hi <= 1.0 - g_hi * (1.0 - g_hi * (0.5 - g_hi * _SIXTH)) - _SQUEEZE:
                out[i] = y
                i += 1
                continue
        g_lo = gamma - margin
        if g_lo >= 0.0 and float(big_k) * _INV53 * (1.0 + g_lo * (1.0 + 0.5 * g_lo)) >= (
            1.0 + _SQUEEZE
        ):
            continue
        p_lo, p_hi = _exp_bounds(gamma, margin)
        if float(big_k + 1) * _INV53 <= p_lo:
            out[i] = y
            i += 1
            continue
        if float(big_k) * _INV53 >= p_hi:
            continue
        return i, RESCUE_ACCEPT, y, big_k
    return i, DONE, zero, zero
