"""The square-root factorization of the prefix-sum matrix: L = R = A^{1/2}, Toeplitz.

A is the T × T lower-triangular all-ones matrix, the Toeplitz matrix of 1/(1 − x); its
square root is the Toeplitz matrix of (1 − x)^{−1/2} = Σ_k c_k x^k, c_k = binom(2k, k)/4^k
(c₀ = 1, c_k = c_{k−1}(2k − 1)/(2k)).  Column j of R holds c₀, …, c_{T−1−j}, so the
sensitivity is √G(T − 1) with G(n) = Σ_{k ≤ n} c_k² (Landau's constants); row t of L has
squared norm G(t), the variance of the t-th prefix sum in units of σ².
G(n) = (ln(n + 1) + γ + 4 ln 2)/π − 1/(4π(n + 1)) + O(n⁻²) (Zhao; see Popa, 2010).
Noise L z is a causal convolution, computed by FFT in O(T log T) with O(T) memory.

References: Fichtenberger, Henzinger & Upadhyay, ICML 2023; Henzinger, Upadhyay &
Upadhyay, SODA 2023.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy import signal

from privaudit.spec import Reference
from privaudit.spec.errors import InputShapeError, InvalidParameterError

__all__ = [
    "FHU_2023",
    "HUU_2023",
    "landau_asymptotic",
    "landau_constants",
    "sqrt_toeplitz_apply",
    "sqrt_toeplitz_coefficients",
    "sqrt_toeplitz_matrix",
    "sqrt_toeplitz_variances",
]

FHU_2023 = Reference(
    citation="Fichtenberger, Henzinger & Upadhyay, 'Constant matters: fine-grained error "
    "bound on differentially private continual observation', ICML 2023",
    locator="the explicit factorization L = R = M_count^{1/2} (entries binom(2k,k)/4^k)",
    url="https://arxiv.org/abs/2202.11205",
)
HUU_2023 = Reference(
    citation="Henzinger, Upadhyay & Upadhyay, 'Almost tight error bounds on differentially "
    "private continual counting', SODA 2023",
    locator="the square-root factorization's mean squared error",
    url="https://arxiv.org/abs/2211.05006",
)


def _check_length(T: object) -> int:
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or int(T) < 1:
        raise InvalidParameterError(f"T must be an integer >= 1, got {T!r}")
    return int(T)


def sqrt_toeplitz_coefficients(T: int) -> npt.NDArray[np.float64]:
    """c_k = binom(2k, k)/4^k for k < T, by the recurrence c_k = c_{k−1}(2k − 1)/(2k).

    Examples
    --------
    >>> sqrt_toeplitz_coefficients(4).tolist()
    [1.0, 0.5, 0.375, 0.3125]
    """
    n = _check_length(T)
    k = np.arange(1, n, dtype=np.float64)
    return np.concatenate(([1.0], np.cumprod((2.0 * k - 1.0) / (2.0 * k))))


def landau_constants(T: int) -> npt.NDArray[np.float64]:
    """G(t) = Σ_{k ≤ t} c_k² for t < T (Landau's constants), by a cumulative sum."""
    c = sqrt_toeplitz_coefficients(T)
    return np.cumsum(c * c)


def sqrt_toeplitz_variances(T: int) -> npt.NDArray[np.float64]:
    """Var of each prefix-sum estimate L y, in units of σ²: ‖row t of A^{1/2}‖² = G(t)."""
    return landau_constants(T)


def sqrt_toeplitz_matrix(T: int) -> npt.NDArray[np.float64]:
    """The dense lower-triangular Toeplitz A^{1/2} (small T only: T × T memory)."""
    c = sqrt_toeplitz_coefficients(T)
    n = c.size
    lag = np.arange(n)[:, None] - np.arange(n)[None, :]
    return np.where(lag >= 0, c[np.clip(lag, 0, None)], 0.0)


def sqrt_toeplitz_apply(x: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """A^{1/2} x along the last axis: (A^{1/2} x)_t = Σ_{j ≤ t} c_{t−j} x_j.

    An overlap-add FFT convolution (``scipy.signal.oaconvolve``) truncated to the first T
    terms: O(T log T) time and O(T) memory per row, no T × T matrix; relative round-off
    about 1e-15 · √T.

    Parameters
    ----------
    x : array_like, shape (..., T)

    Returns
    -------
    numpy.ndarray, shape (..., T)
    """
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise InputShapeError(f"expected an array with a non-empty last axis, got {arr.shape}")
    n = arr.shape[-1]
    c = sqrt_toeplitz_coefficients(n).reshape((1,) * (arr.ndim - 1) + (n,))
    if n <= 64:
        full = np.stack([np.convolve(row, c.ravel()) for row in arr.reshape(-1, n)])
        return full[:, :n].reshape(arr.shape)
    return np.asarray(signal.oaconvolve(arr, c, axes=-1)[..., :n])


def landau_asymptotic(n: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(ln(n + 1) + γ + 4 ln 2)/π − 1/(4π(n + 1)): Zhao's expansion of G(n) to O(n⁻²).

    References
    ----------
    Zhao's inequalities for Landau's constants, as stated by Popa, "Note of the constants of
    Landau", General Mathematics 18(1), 2010, eq. (2); Watson, Quart. J. Math. 1930.
    """
    m = np.asarray(n, dtype=np.float64) + 1.0
    return (np.log(m) + np.euler_gamma + 4.0 * math.log(2.0)) / math.pi - 1.0 / (4.0 * math.pi * m)
