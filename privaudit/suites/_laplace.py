"""Fast Laplace draws for the benchmark samplers: a random sign times an exponential.

The benchmark mechanisms draw 10⁷–10⁹ Laplace variates per audit, and numpy's
``Generator.laplace`` (inverse CDF: one uniform and one logarithm per draw) dominates
their cost.  :func:`laplace_noise` draws the same law from the ziggurat exponential
sampler instead, about three times faster, in float64.

The identity used: if E ~ Exp(1) and S is a uniform random sign independent of E, then
b·S·E ~ Laplace(0, b).  Proof: for u ≥ 0, P(b·S·E > u) = P(S = +1)·P(E > u/b) =
½·e^{−u/b}, which is the Laplace(0, b) upper tail, and the law of b·S·E is symmetric
about 0 like Laplace(0, b).  (Equivalently, |L|/b ~ Exp(1) independent of sign(L) for
L ~ Laplace(0, b).)

The sign is applied by flipping the IEEE-754 sign bit of E (exact multiplication by −1)
from one uniform random bit per draw, taken from ``Generator.bytes``.

References
----------
Kotz, Kozubowski & Podgórski, *The Laplace Distribution and Generalizations*,
Birkhäuser 2001, Section 2.2 (representations of the classical Laplace law: a
symmetric sign times a standard exponential; the difference of two exponentials).
Marsaglia & Tsang, "The ziggurat method for generating random variables", Journal of
Statistical Software 5(8), 2000 (the exponential sampler behind
``Generator.standard_exponential``).
"""

from __future__ import annotations

import math
import sys

import numpy as np
import numpy.typing as npt

from spec.errors import InvalidParameterError

__all__ = ["laplace_noise"]

#: Index of the byte holding the sign bit within a native float64.
_SIGN_BYTE = 7 if sys.byteorder == "little" else 0


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
    b = float(scale)
    if not math.isfinite(b) or b <= 0.0:
        raise InvalidParameterError(f"scale must be a finite number > 0, got {scale!r}")
    draws = rng.standard_exponential(shape)
    size = draws.size
    if size:
        signs = np.unpackbits(np.frombuffer(rng.bytes(-(-size // 8)), dtype=np.uint8), count=size)
        signs <<= 7  # 0 or 0x80: the sign bit
        sign_bytes = draws.reshape(-1).view(np.uint8)[_SIGN_BYTE::8]
        sign_bytes ^= signs
        draws *= b
    return draws
