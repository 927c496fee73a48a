"""Shared argument checks and helpers of the noise laws.

O(1) for parameters, one vectorised NaN scan for data.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import numpy.typing as npt

from .._types import check_positive
from ..errors import InvalidInputError, InvalidParameterError

FloatArray = npt.NDArray[np.float64]


def _show(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 120 else shown[:117] + "..."


def _as_real_array(x: npt.ArrayLike, what: str = "x") -> FloatArray:
    """``x`` as a float64 array; refuse strings, booleans, complex numbers and NaN."""
    raw = np.asarray(x)
    if raw.dtype.kind not in "iuf":
        raise InvalidInputError(f"{what} must be real numbers, got {_show(x)}")
    arr = raw.astype(np.float64, copy=False)
    nan = np.isnan(arr)
    if nan.any():
        where = tuple(int(i) for i in np.argwhere(nan)[0]) if arr.ndim else ()
        raise InvalidInputError(f"{what} must not contain NaN, got NaN at index {where}")
    return arr


def _as_probability_array(q: npt.ArrayLike, what: str = "q") -> FloatArray:
    """``q`` as a float64 array of probabilities in [0, 1]; refuse anything else."""
    arr = _as_real_array(q, what)
    bad = (arr < 0.0) | (arr > 1.0)
    if bad.any():
        raise InvalidInputError(f"{what} must lie in [0, 1], got {float(arr[bad].flat[0])!r}")
    return arr


def _finish(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Return 0-d results as numpy scalars, arrays unchanged.

    Typed as an array: a numpy scalar has the array interface (``dtype``, ``shape``,
    ``ndim``, arithmetic, ufuncs) that the laws' callers rely on.
    """
    return a[()] if a.ndim == 0 else a


def _check_size(size: Any) -> int | tuple[int, ...]:
    """Validate a sample size: a non-negative int or a tuple of them (O(1) per axis)."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        if size < 0:
            raise InvalidParameterError(f"size must be >= 0, got {size!r}")
        return int(size)
    if isinstance(size, tuple) and all(
        isinstance(s, numbers.Integral) and not isinstance(s, bool) and int(s) >= 0 for s in size
    ):
        return tuple(int(s) for s in size)
    raise InvalidParameterError(
        f"size must be a non-negative int or a tuple of them, got {_show(size)}"
    )


def _check_profile_epsilon(epsilon: Any) -> float:
    """ε for a privacy profile: a real number in [0, ∞] (∞ allowed, NaN refused)."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise InvalidParameterError(f"epsilon must be a real number, got {_show(epsilon)}")
    eps = float(epsilon)
    if not eps >= 0.0:
        raise InvalidParameterError(f"epsilon must be >= 0, got {epsilon!r}")
    return eps


def _check_sensitivity(sensitivity: Any) -> float:
    """Sensitivity Δ: finite and > 0."""
    return check_positive(sensitivity, "sensitivity")


def _exp_times(epsilon: float, p: FloatArray | float) -> Any:
    """``e^ε · p`` without overflow to ``inf · 0``."""
    with np.errstate(divide="ignore"):
        return np.exp(epsilon + np.log(p))


# --------------------------------------------------------------------------------------
# Laplace
# --------------------------------------------------------------------------------------
