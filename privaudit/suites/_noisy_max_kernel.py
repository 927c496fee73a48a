"""Compiled (numba) report-noisy-max over Laplace draws, one pass over the noise.

:func:`~privaudit.suites._laplace.laplace_noisy_max` draws standard exponentials and
packed random signs exactly as :func:`~privaudit.suites._laplace.laplace_noise` does;
these kernels then compute, for every sample, ``(±E)·b + answer`` for each query — the
sign flip, the product and the sum are the NumPy path's IEEE operations, in its order
(numba's default ``fastmath=False`` fuses no multiply-add) — and keep the largest value
or the first index reaching it.  The NumPy path applies the signs, the scale and the
answers in three passes over the noise and reduces in a fourth.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["noisy_argmax_rows", "noisy_max_columns"]

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _noisy(
    draws_flat: np.ndarray, packed: np.ndarray, k: int, scale: float, answer: float
) -> float:  # pragma: no cover - compiled
    """Entry k of the noise, its sign applied (bit ``7 − k mod 8`` of byte ``k // 8``),
    times the scale, plus the answer."""
    e = draws_flat[k]
    if (packed[k >> 3] >> (7 - (k & 7))) & 1:
        e = -e
    product = e * scale
    return product + answer


@_jit
def noisy_max_columns(
    draws: np.ndarray, packed: np.ndarray, scale: float, answers: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover - compiled; tested against the NumPy path
    """``out[s] = max_i ((±E[i, s])·scale + answers[i])`` for ``draws`` of shape (n, size)."""
    n, size = draws.shape
    flat = draws.reshape(-1)
    for s in range(size):
        best = _noisy(flat, packed, s, scale, answers[0])
        for i in range(1, n):
            v = _noisy(flat, packed, i * size + s, scale, answers[i])
            if v > best:
                best = v
        out[s] = best


@_jit
def noisy_argmax_rows(
    draws: np.ndarray, packed: np.ndarray, scale: float, answers: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover - compiled; tested against the NumPy path
    """``out[s]`` = the first i maximising ``(±E[s, i])·scale + answers[i]`` for
    ``draws`` of shape (size, n)."""
    size, n = draws.shape
    flat = draws.reshape(-1)
    for s in range(size):
        best = _noisy(flat, packed, s * n, scale, answers[0])
        index = 0
        for i in range(1, n):
            v = _noisy(flat, packed, s * n + i, scale, answers[i])
            if v > best:
                best = v
                index = i
        out[s] = index
