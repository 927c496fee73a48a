"""The one home of input validation: parameters (ε, δ, n) and data arrays.

Every public estimator and mechanism constructor of privaudit checks its inputs with these
functions (directly, or through the domains of :mod:`spec.domains`, which use the same
helpers), so that every kind of bad input raises the same named subclass of
:class:`~spec.errors.PrivauditError`, and the message names the offending value:

==============================================  ========================================
bad input                                       error
==============================================  ========================================
a string (also ``"1.0"``), bytes, a boolean,    :class:`~spec.errors.NonNumericInputError`
None or an object among the data
complex data                                    :class:`~spec.errors.ComplexInputError`
NaN or ±inf in the data                         :class:`~spec.errors.NonFiniteInputError`
no records                                      :class:`~spec.errors.EmptyInputError`
wrong dimensions, record shape or ragged data   :class:`~spec.errors.InputShapeError`
a record outside its range or label set         :class:`~spec.errors.OutOfDomainError`
a graph that is not simple, undirected and 0/1  :class:`~spec.errors.InvalidGraphError`
ε, δ or n that is not a number (string,         :class:`~spec.errors.ParameterTypeError`
complex, boolean, None)
ε not finite, ≤ 0 or outside the accepted range :class:`~spec.errors.EpsilonRangeError`
δ outside [0, 1)                                :class:`~spec.errors.DeltaRangeError`
n not an integer ≥ its minimum                  :class:`~spec.errors.SampleSizeError`
an error level α outside (0, 1), a confidence   :class:`~spec.errors.InvalidParameterError`
outside [0.5, 1), a probability outside [0, 1)
or a value that must be > 0 and is not
==============================================  ========================================

**The accepted range of ε** is [:data:`EPSILON_MIN`, :data:`EPSILON_MAX`] = [1e-50, 300]:
finite and > 0, and within limits beyond which the calibrations overflow float64 (noise
scales Δ/ε and their moments for tiny ε; e^ε and e^{2ε} in randomized response, the
exponential mechanism and the (ε, δ) conversions for large ε, which overflow from
ε ≈ 355).  Guarantees of ε > 300 or < 1e-50 have no practical meaning either.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ._types import (
    EPSILON_MAX,
    EPSILON_MIN,
    check_alpha,
    check_confidence,
    check_delta,
    check_epsilon,
    check_positive,
    check_probability,
    check_sample_size,
)
from .domains._common import _as_float64, _as_int64, _numeric_array
from .errors import EmptyInputError, InputShapeError

__all__ = [
    "EPSILON_MAX",
    "EPSILON_MIN",
    "check_alpha",
    "check_confidence",
    "check_delta",
    "check_epsilon",
    "check_positive",
    "check_probability",
    "check_sample_size",
    "integer_array",
    "numeric_array",
    "real_array",
]


def numeric_array(data: Any, what: str = "data") -> npt.NDArray[Any]:
    """``data`` as a numpy array of real numbers (int, uint, float, or object reals).

    Raises :class:`~spec.errors.NonNumericInputError` (strings, numeric strings, bytes,
    booleans, None, objects), :class:`~spec.errors.ComplexInputError` or
    :class:`~spec.errors.InputShapeError` (ragged input).
    """
    return _numeric_array(data, what)


def _shaped(
    arr: npt.NDArray[Any], what: str, ndim: int | None, record_shape: tuple[int, ...] | None
) -> None:
    if arr.ndim == 0:
        raise InputShapeError(
            f"{what}: expected an array of records, got the scalar {arr.item()!r}"
        )
    if arr.shape[0] == 0:
        raise EmptyInputError(f"{what}: no records (shape {arr.shape})")
    if ndim is not None and arr.ndim != ndim:
        raise InputShapeError(f"{what}: expected {ndim}-d data, got shape {arr.shape}")
    if record_shape is not None and arr.shape[1:] != record_shape:
        expected = (
            "(n" + "".join(f", {s}" for s in record_shape) + ("," if not record_shape else "") + ")"
        )
        raise InputShapeError(f"{what}: expected shape {expected}, got shape {arr.shape}")


def real_array(
    data: Any,
    what: str = "data",
    *,
    ndim: int | None = None,
    record_shape: tuple[int, ...] | None = None,
) -> npt.NDArray[np.float64]:
    """``data`` as a non-empty, finite float64 array of the given shape.

    Parameters
    ----------
    data : array_like
        The records.
    what : str
        How the data are named in messages.
    ndim : int, optional
        Required number of dimensions.
    record_shape : tuple of int, optional
        Required shape of one record (``()`` for scalars).

    Raises
    ------
    NonNumericInputError, ComplexInputError, NonFiniteInputError, EmptyInputError,
    InputShapeError
        As in the table of this module, naming the offending value.

    Examples
    --------
    >>> real_array([0.5, 1], ndim=1)
    array([0.5, 1. ])
    >>> real_array(["0.5", "1"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    spec.errors.NonNumericInputError: data: expected real numbers, got strings (dtype <U3), ...
    """
    arr = numeric_array(data, what)
    _shaped(arr, what, ndim, record_shape)
    return _as_float64(arr, what)


def integer_array(
    data: Any, what: str = "labels", *, ndim: int | None = 1
) -> npt.NDArray[np.int64]:
    """``data`` as a non-empty int64 array (floats must be whole numbers).

    Raises as :func:`real_array`, and :class:`~spec.errors.OutOfDomainError` for a value
    that is not an integer.
    """
    arr = numeric_array(data, what)
    _shaped(arr, what, ndim, None)
    return _as_int64(arr, what)
