"""Fast Laplace draws for the benchmark samplers: a random sign times an exponential.

The identity: if E ~ Exp(1) and S is a uniform random sign independent of E, then
b·S·E ~ Laplace(0, b).  :func:`laplace_noise` draws E from numpy's ziggurat sampler and S
as a flip of E's IEEE-754 sign bit from one random bit per draw: the law of
``Generator.laplace``, about three times faster, in float64.  References: Kotz,
Kozubowski & Podgórski, Birkhäuser 2001, §2.2; Marsaglia & Tsang, J. Stat. Softw. 2000.

Details (the proof, the costs): ``docs/engine_notes.md``, "privaudit.suites._laplace".
"""

from __future__ import annotations

import math
import sys
from typing import Literal

import numpy as np
import numpy.typing as npt

from privaudit.spec.errors import InvalidParameterError

__all__ = ["exponentials_and_signs", "laplace_noise", "laplace_noisy_max"]

#: Index of the byte holding the sign bit within a native float64.
_SIGN_BYTE = 7 if sys.byteorder == "little" else 0
_NO_BYTES = np.zeros(0, dtype=np.uint8)
#: Fewest draws for which a noisy max calls :func:`laplace_noisy_max` (its compiled
#: kernel); fewer take :func:`laplace_noise` and NumPy's reduction, the same values,
#: without numba's import and call cost.
KERNEL_DRAWS = 1 << 12


def laplace_noise(
    rng: np.random.Generator, scale: float, shape: int | tuple[int, ...]
) -> npt.NDArray[np.float64]:
    """Draw i.i.d. Laplace(0, ``scale``) variates as ``scale · S · E`` (float64).

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness (E from ``standard_exponential``, S from ``bytes``).
    scale : float
        The Laplace scale b > 0 (density e^{−|z|/b} / (2b)).
    shape : int or tuple of int
        Shape of the returned array.

    Returns
    -------
    ndarray of float64
        A fresh C-contiguous array of the requested shape.

    Raises
    ------
    InvalidParameterError
        If ``scale`` is not a finite number > 0.

    Notes
    -----
    Same law as ``rng.laplace(0.0, scale, shape)`` (see the module docstring for the
    identity), not the same stream.

    References
    ----------
    Kotz, Kozubowski & Podgórski, *The Laplace Distribution and Generalizations*,
    Birkhäuser 2001, Section 2.2.
    """
    b = _scale(scale)
    draws, packed = exponentials_and_signs(rng, shape)
    if draws.size:
        signs = np.unpackbits(packed, count=draws.size)
        signs <<= 7  # 0 or 0x80: the sign bit
        sign_bytes = draws.reshape(-1).view(np.uint8)[_SIGN_BYTE::8]
        sign_bytes ^= signs
        draws *= b
    return draws


def exponentials_and_signs(
    rng: np.random.Generator, shape: int | tuple[int, ...]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint8]]:
    """What :func:`laplace_noise` draws, in its order: the standard exponentials E of
    ``shape`` and their random signs, packed eight to a byte (the sign of the k-th
    entry of E in C order is bit ``7 − k mod 8`` of byte ``k // 8``: 1 is negative, as
    ``numpy.unpackbits`` reads it).  ``scale · S · E`` is then Laplace(0, scale)."""
    draws = rng.standard_exponential(shape)
    size = draws.size
    packed = np.frombuffer(rng.bytes(-(-size // 8)), dtype=np.uint8) if size else _NO_BYTES
    return draws, packed


def _scale(scale: float) -> float:
    b = float(scale)
    if not math.isfinite(b) or b <= 0.0:
        raise InvalidParameterError(f"scale must be a finite number > 0, got {scale!r}")
    return b


def laplace_noisy_max(
    rng: np.random.Generator,
    scale: float,
    answers: npt.NDArray[np.float64],
    size: int,
    *,
    report: Literal["value", "index"],
) -> npt.NDArray[np.float64] | npt.NDArray[np.int64]:
    """Report noisy max with Laplace(0, ``scale``) noise on ``size`` samples: the largest
    noisy answer (``report="value"``) or its index (``"index"``, the first on ties).

    The draws are :func:`laplace_noise`'s, from ``rng`` in the same order and with the
    same values to the bit: the noise of answer i in sample s is entry (i, s) of a
    ``(len(answers), size)`` draw for the value and entry (s, i) of a
    ``(size, len(answers))`` draw for the index (the layouts each reduction reads
    fastest).  A compiled kernel (:mod:`privaudit.suites._noisy_max_kernel`) applies
    the signs and the scale, adds the answers and reduces in one pass, instead of four
    NumPy passes over the noise.

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness.
    scale : float
        The Laplace scale b > 0.
    answers : ndarray of float64, shape (n,)
        The query answers.
    size : int
        Samples.
    report : {"value", "index"}
        What each sample releases.

    Returns
    -------
    ndarray
        float64 maxima or int64 indices, shape ``(size,)``.
    """
    b = _scale(scale)
    a = np.ascontiguousarray(answers, dtype=np.float64)
    by_sample = report == "index"
    shape = (size, a.shape[0]) if by_sample else (a.shape[0], size)
    draws, packed = exponentials_and_signs(rng, shape)
    from privaudit.suites import _noisy_max_kernel as kernel  # numba: imported on first use

    if by_sample:
        index = np.empty(size, dtype=np.int64)
        kernel.noisy_argmax_rows(draws, packed, b, a, index)
        return index
    value = np.empty(size, dtype=np.float64)
    kernel.noisy_max_columns(draws, packed, b, a, value)
    return value
