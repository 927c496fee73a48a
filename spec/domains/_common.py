"""Shared pieces of the domain modules: tuning constants, parameter checks, array helpers.

The public constants are re-exported by :mod:`spec.domains`.  The private helpers read
candidate values as numpy arrays, convert them to the canonical ``float64``/``int64``
dtypes and raise :class:`~spec.errors.InvalidInputError` naming the first offending value
and its index.
"""

from __future__ import annotations

import math
import numbers
from typing import Annotated, Any

import networkx as nx
import numpy as np
import numpy.typing as npt
from pydantic import BeforeValidator

from ..errors import (
    ComplexInputError,
    InputShapeError,
    InvalidInputError,
    InvalidParameterError,
    NonFiniteInputError,
    NonNumericInputError,
    OutOfDomainError,
)

__all__ = [
    "MAX_GRAPH_COUNT_STATES",
    "SAMPLE_OTHER_TRIES",
    "UNBOUNDED_INTEGER_GEOMETRIC_P",
    "UNBOUNDED_REACH",
    "UNBOUNDED_REAL_SCALE",
    "VARIABLE_SIZE_SPREAD",
]

_INT64_MIN = int(np.iinfo(np.int64).min)
_INT64_MAX = int(np.iinfo(np.int64).max)

#: How far beyond its finite side (or 0) an unbounded range reaches in ``extremes()``.
UNBOUNDED_REACH = 10**6
#: Scale of the exponential (one unbounded side) or Laplace (both sides unbounded) law
#: that samples an unbounded :class:`RealInterval`.
UNBOUNDED_REAL_SCALE = 10.0
#: Success probability of the geometric law that samples unbounded integer sides
#: (mean distance 31 from the finite side, or from 0).
UNBOUNDED_INTEGER_GEOMETRIC_P = 1.0 / 32.0
#: Extra records (beyond ``min_size``) that a variable-size dataset may get when sampled.
VARIABLE_SIZE_SPREAD = 8
#: Largest DP state space used to count degree-bounded graphs exactly.
MAX_GRAPH_COUNT_STATES = 200_000
#: Tries of rejection sampling before :meth:`DomainBase.sample_other` falls back.
SAMPLE_OTHER_TRIES = 64


# ----------------------------------------------------------------------------------------
# parameter checks and message helpers
# ----------------------------------------------------------------------------------------
def _check_optional_finite_real(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"bound must be a real number or None, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise InvalidParameterError(f"bound must be finite, got {value!r}")
    return x


def _check_optional_int64(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InvalidParameterError(f"bound must be an integer or None, got {value!r}")
    number = int(value)
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise InvalidParameterError(f"bound must fit in int64, got {number!r}")
    return number


_OptionalFiniteFloat = Annotated[float | None, BeforeValidator(_check_optional_finite_real)]
_OptionalInt64 = Annotated[int | None, BeforeValidator(_check_optional_int64)]


def _show(value: Any, limit: int = 80) -> str:
    """Short repr of an offending value (numpy scalars shown as Python values)."""
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _at_first(mask: npt.NDArray[np.bool_]) -> tuple[tuple[int, ...], str]:
    """Index of the first True entry of ``mask`` and a message fragment naming it."""
    index = tuple(int(i) for i in np.argwhere(mask)[0])
    if not index:
        return index, ""
    shown = index[0] if len(index) == 1 else index
    return index, f" at index {shown}"


def _numeric_array(x: Any, label: str) -> npt.NDArray[Any]:
    """``x`` as a numpy array of real numbers (any int/uint/float dtype, or object ints).

    Raises
    ------
    InputShapeError
        For ragged input.
    NonNumericInputError
        For booleans, strings (numeric strings too), bytes, None and other non-numbers.
    ComplexInputError
        For complex numbers.
    """
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as err:
        raise InputShapeError(f"{label}: cannot read {_show(x)} as an array ({err})") from None
    kind = arr.dtype.kind
    if kind == "b":
        raise NonNumericInputError(f"{label}: booleans are not numbers here, got {_show(x)}")
    if kind in "iuf":
        return arr
    if kind == "c":
        bad = arr != arr.real if arr.ndim else np.asarray(True)
        flat = int(np.argmax(np.asarray(bad).reshape(-1))) if arr.ndim else 0
        item = arr.reshape(-1)[flat] if arr.ndim else arr.item()
        raise ComplexInputError(
            f"{label}: expected real numbers, got the complex value "
            f"{_show(item)} (dtype {arr.dtype})"
        )
    if kind == "O":
        for flat_index, item in enumerate(arr.reshape(-1)):
            if isinstance(item, bool) or not isinstance(item, numbers.Real):
                where = np.unravel_index(flat_index, arr.shape) if arr.ndim else ()
                at = f" at index {where[0] if len(where) == 1 else where}" if where else ""
                error = (
                    ComplexInputError
                    if isinstance(item, numbers.Complex) and not isinstance(item, bool)
                    else NonNumericInputError
                )
                raise error(f"{label}: value {_show(item)}{at} is not a real number")
        return arr
    if kind in "USa":
        first = arr.reshape(-1)[0] if arr.size else arr
        raise NonNumericInputError(
            f"{label}: expected real numbers, got strings (dtype {arr.dtype}), e.g. "
            f"{_show(first)}; numeric strings are not read as numbers"
        )
    raise NonNumericInputError(f"{label}: expected real numbers, got dtype {arr.dtype}: {_show(x)}")


def _as_float64(arr: npt.NDArray[Any], label: str) -> npt.NDArray[np.float64]:
    """Convert a numeric array to finite float64 (``-0.0`` becomes ``0.0``)."""
    try:
        values = arr.astype(np.float64)
    except OverflowError:
        raise NonFiniteInputError(f"{label}: a value of {_show(arr)} overflows float64") from None
    bad = ~np.isfinite(values)
    if bad.any():
        index, at = _at_first(bad)
        raise NonFiniteInputError(
            f"{label}: value {_show(values[index])}{at} is not finite (NaN and ±inf are refused)"
        )
    return values + 0.0


def _as_float64_admitting(arr: npt.NDArray[Any], label: str) -> npt.NDArray[np.float64]:
    """Convert a numeric array to float64, keeping NaN and ±inf (checked by the caller)."""
    try:
        return np.asarray(arr.astype(np.float64), dtype=np.float64)
    except OverflowError:
        raise NonFiniteInputError(f"{label}: a value of {_show(arr)} overflows float64") from None


def _none_as_nan(x: Any) -> Any:
    """``x`` with every ``None`` read as NaN (a missing record), for domains admitting NaN."""
    if isinstance(x, np.ndarray) and x.dtype.kind != "O":
        return x
    try:
        arr = np.asarray(x, dtype=object)
    except (ValueError, TypeError):
        return x
    missing = np.array([item is None for item in arr.reshape(-1)], dtype=bool)
    if not missing.any():
        return x
    filled = arr.reshape(-1).copy()
    filled[missing] = np.nan
    return filled.reshape(arr.shape)


def _as_int64(arr: npt.NDArray[Any], label: str) -> npt.NDArray[np.int64]:
    """Convert a numeric array to int64, refusing non-integers and values beyond int64."""
    kind = arr.dtype.kind
    if kind == "i":
        return arr.astype(np.int64)
    if kind == "u":
        too_big = arr > np.uint64(_INT64_MAX)
        if too_big.any():
            index, at = _at_first(too_big)
            raise InvalidInputError(f"{label}: value {_show(arr[index])}{at} exceeds int64")
        return arr.astype(np.int64)
    if kind == "f":
        values = _as_float64(arr, label)
        fractional = values != np.floor(values)
        if fractional.any():
            index, at = _at_first(fractional)
            raise OutOfDomainError(f"{label}: value {_show(values[index])}{at} is not an integer")
        outside = (values < -(2.0**63)) | (values >= 2.0**63)
        if outside.any():
            index, at = _at_first(outside)
            raise InvalidInputError(f"{label}: value {_show(values[index])}{at} exceeds int64")
        return values.astype(np.int64)
    # object array of Python reals (checked by _numeric_array)
    converted = np.empty(arr.shape, dtype=np.int64)
    for where in np.ndindex(arr.shape):
        item = arr[where]
        at = f" at index {where[0] if len(where) == 1 else where}" if where else ""
        if isinstance(item, numbers.Integral):
            if not _INT64_MIN <= int(item) <= _INT64_MAX:
                raise InvalidInputError(f"{label}: value {_show(item)}{at} exceeds int64")
            converted[where] = int(item)
        else:
            as_float = float(item)
            if not math.isfinite(as_float):
                raise NonFiniteInputError(f"{label}: value {_show(item)}{at} is not finite")
            if not as_float.is_integer():
                raise OutOfDomainError(f"{label}: value {_show(item)}{at} is not an integer")
            if not -(2.0**63) <= as_float < 2.0**63:
                raise InvalidInputError(f"{label}: value {_show(item)}{at} exceeds int64")
            converted[where] = int(as_float)
    return converted


def _check_range(
    values: npt.NDArray[Any], lo: float | int | None, hi: float | int | None, label: str
) -> None:
    """Raise naming the first value outside ``[lo, hi]`` (``None`` = unbounded side)."""
    outside = np.zeros(values.shape, dtype=bool)
    if lo is not None:
        outside |= values < lo
    if hi is not None:
        outside |= values > hi
    if outside.any():
        index, at = _at_first(outside)
        low = "-inf" if lo is None else repr(lo)
        high = "inf" if hi is None else repr(hi)
        raise OutOfDomainError(
            f"{label}: value {_show(values[index])}{at} lies outside [{low}, {high}]"
        )


def _unique_by_bytes(items: list[npt.NDArray[Any]]) -> tuple[npt.NDArray[Any], ...]:
    """Drop repeated arrays (same shape and content), keeping the first occurrence."""
    seen: set[tuple[tuple[int, ...], bytes]] = set()
    kept = []
    for item in items:
        key = (item.shape, item.tobytes())
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return tuple(kept)


# ----------------------------------------------------------------------------------------
# comparing elements
# ----------------------------------------------------------------------------------------
def _edge_key(graph: nx.Graph) -> frozenset[tuple[int, int]]:
    return frozenset((min(u, v), max(u, v)) for u, v in graph.edges())


def _same_element(a: Any, b: Any) -> bool:
    if isinstance(a, nx.Graph) and isinstance(b, nx.Graph):
        return _edge_key(a) == _edge_key(b)
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    return a_arr.shape == b_arr.shape and bool(np.array_equal(a_arr, b_arr))
