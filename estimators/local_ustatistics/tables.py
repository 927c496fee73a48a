"""Kernels as k×k tables A with A[t, u] = f on the quantized / discrete domain.

Protocol A (Bell, Bellet, Gascón & Kulkarni, AISTATS 2020, Algorithm 1) only ever sees a
kernel through its table on the k public bins:

* discrete data: π is the identity and A[t, u] = f(t, u) (§3, "discrete" case);
* continuous data with a Lipschitz kernel: A[t, u] = f(c_t, c_u) at the bin centres
  (Theorem 2, first bound);
* the AUC indicator I[s > s'] is not Lipschitz: its cell average over B_t × B_u is 1 for
  t > u, 0 for t < u and ½ on the diagonal (Theorem 2, second bound: smooth densities).

The joint-domain variants index a pair (y, z) ∈ {0..K−1}² by t = y·K + z, so Kendall's τ
(eq. 6) is a K²×K² table and one k-RR report over all K² cells protects both coordinates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from privaudit.estimators.ustatistics import table_kernel
from privaudit.spec.errors import InputShapeError, InvalidParameterError, OutOfDomainError
from privaudit.spec.validation import integer_array

from .quantization import UniformQuantizer

__all__ = [
    "auc_table",
    "collision_table",
    "gini_table",
    "joint_index",
    "kendall_table",
    "kernel_table",
    "lipschitz_table",
]


def kernel_table(table: Any, *, symmetric: bool = True) -> np.ndarray:
    """Validate a k×k kernel table (finite, square; symmetric unless ``symmetric=False``).

    Symmetric tables are validated by :func:`estimators.ustatistics.table_kernel` (the
    same rules as every other table kernel of privaudit).

    Raises
    ------
    InvalidParameterError
        A table that is not square, not finite, or (when required) not symmetric.
    """
    if symmetric:
        return np.asarray(table_kernel(table).parameters["table"], dtype=np.float64)
    try:
        array = np.array(table, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"kernel table must be a real matrix: {exc}") from exc
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] < 1:
        raise InvalidParameterError(f"kernel table must be square k×k, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise InvalidParameterError("kernel table must be finite")
    return array


def lipschitz_table(
    f: Callable[[np.ndarray, np.ndarray], np.ndarray], quantizer: UniformQuantizer
) -> np.ndarray:
    """A[t, u] = f(c_t, c_u) at the bin centres (vectorised ``f``), validated symmetric."""
    c = quantizer.centres
    return kernel_table(np.asarray(f(c[:, None], c[None, :]), dtype=np.float64))


def gini_table(quantizer: UniformQuantizer) -> np.ndarray:
    """Gini mean difference |c_t − c_u| (eq. 4) at the bin centres."""
    return lipschitz_table(lambda a, b: np.abs(a - b), quantizer)


def collision_table(k: int) -> np.ndarray:
    """I[t = u] (eq. 5): U is the collision probability, H₂ = −ln U (Rényi-2 entropy)."""
    return np.eye(_check_k(k))


def joint_index(y: Any, z: Any, levels: int) -> np.ndarray:
    """t = y·K + z for pairs on {0..K−1}² (the joint domain of §6's Kendall experiment).

    Raises
    ------
    NonNumericInputError, ComplexInputError, NonFiniteInputError, EmptyInputError,
    InputShapeError, OutOfDomainError
        If a coordinate is not an integer in [0, K) (:mod:`spec.validation`), or y and z
        differ in shape.
    """
    k = _check_k(levels)
    yy, zz = integer_array(y, "y"), integer_array(z, "z")
    for name, arr in (("y", yy), ("z", zz)):
        bad = (arr < 0) | (arr >= k)
        if bad.any():
            raise OutOfDomainError(f"{name} must be integers in [0, {k}), got {arr[bad][0]!r}")
    if yy.shape != zz.shape:
        raise InputShapeError(f"y and z must have the same shape, got {yy.shape} and {zz.shape}")
    return yy * k + zz


def kendall_table(levels: int) -> np.ndarray:
    """sign(y − y')·sign(z − z') on the K² joint cells t = y·K + z (eq. 6; tau-a)."""
    k = _check_k(levels)
    y, z = np.divmod(np.arange(k * k), k)
    return np.sign(y[:, None] - y[None, :]) * np.sign(z[:, None] - z[None, :]).astype(np.float64)


def auc_table(k: int, tie: float = 0.5) -> np.ndarray:
    """A[t, u] = I[t > u] + tie·I[t = u] (not symmetric: two-sample AUC, positives first).

    ``tie = 0.5`` is the cell average of I[s > s'] for continuous scores quantized into the
    same bin; ``tie = 0`` is eq. 7's strict inequality on already-discrete scores.
    """
    kk = _check_k(k)
    if not (0.0 <= float(tie) <= 1.0):
        raise InvalidParameterError(f"tie must lie in [0, 1], got {tie!r}")
    t = np.arange(kk)
    return (t[:, None] > t[None, :]).astype(np.float64) + float(tie) * np.eye(kk)


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or int(k) < 1:
        raise InvalidParameterError(f"the number of cells must be an integer >= 1, got {k!r}")
    return int(k)
