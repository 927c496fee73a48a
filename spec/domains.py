"""Input domains: the sets that a mechanism's inputs are drawn from.

Every domain is a spec model (frozen, hashable by content, JSON round-trip) that also
knows how to check, sample, enumerate and stress its elements:

* :meth:`DomainBase.validate` returns the canonical form of an element (``float64`` or
  ``int64`` numpy values of the right shape; a fresh :class:`networkx.Graph` for graphs)
  or raises :class:`~spec.errors.InvalidInputError` (:class:`~spec.errors.InvalidGraphError`
  for graphs) naming the offending value;
* :meth:`DomainBase.contains` is the non-raising twin of ``validate``;
* :attr:`DomainBase.is_finite` and :attr:`DomainBase.cardinality` (exact Python ints);
* :meth:`DomainBase.sample`, :meth:`DomainBase.sample_other` draw random elements from an
  injected generator;
* :meth:`DomainBase.extremes` lists a few adversarially interesting elements;
* :meth:`DomainBase.enumerate` iterates over every element of a finite domain.

Canonical values
----------------
Scalar domains return numpy scalars (``np.float64`` for :class:`RealInterval`, ``np.int64``
for :class:`IntegerRange` and :class:`Categorical`); ``-0.0`` is canonicalised to ``0.0``.
A :class:`VectorDomain` element is a 1-d array of shape ``(length,)``; a
:class:`DatasetDomain` element an array of shape ``(n,)`` (scalar records) or ``(n, d)``
(vector records).  Booleans are never read as numbers (only graph adjacency matrices may
be boolean).
"""

from __future__ import annotations

import itertools
import math
import numbers
from abc import abstractmethod
from collections.abc import Iterator
from functools import lru_cache
from typing import Annotated, Any, ClassVar, Literal, Self, Union

import networkx as nx
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from pydantic import BeforeValidator, Field, model_validator

from ._base import SpecModel
from ._random import RandomLike, as_generator
from ._types import NonNegativeInt, PositiveInt
from .errors import (
    InvalidGraphError,
    InvalidInputError,
    InvalidParameterError,
    PrivauditError,
    UnsupportedCombinationError,
)

__all__ = [
    "Categorical",
    "DatasetDomain",
    "DomainBase",
    "GraphDomain",
    "InputDomain",
    "IntegerRange",
    "MAX_GRAPH_COUNT_STATES",
    "RealInterval",
    "RecordDomain",
    "SAMPLE_OTHER_TRIES",
    "ScalarDomain",
    "ScalarDomainBase",
    "UNBOUNDED_INTEGER_GEOMETRIC_P",
    "UNBOUNDED_REACH",
    "UNBOUNDED_REAL_SCALE",
    "VARIABLE_SIZE_SPREAD",
    "VectorDomain",
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
    value = int(value)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise InvalidParameterError(f"bound must fit in int64, got {value!r}")
    return value


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
    InvalidInputError
        For ragged input, booleans, complex numbers, strings and other non-numbers.
    """
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as err:
        raise InvalidInputError(f"{label}: cannot read {_show(x)} as an array ({err})") from None
    kind = arr.dtype.kind
    if kind == "b":
        raise InvalidInputError(f"{label}: booleans are not numbers here, got {_show(x)}")
    if kind in "iuf":
        return arr
    if kind == "O":
        for flat_index, item in enumerate(arr.reshape(-1)):
            if isinstance(item, bool) or not isinstance(item, numbers.Real):
                where = np.unravel_index(flat_index, arr.shape) if arr.ndim else ()
                at = f" at index {where[0] if len(where) == 1 else where}" if where else ""
                raise InvalidInputError(f"{label}: value {_show(item)}{at} is not a real number")
        return arr
    raise InvalidInputError(f"{label}: expected real numbers, got dtype {arr.dtype}: {_show(x)}")


def _as_float64(arr: npt.NDArray[Any], label: str) -> npt.NDArray[np.float64]:
    """Convert a numeric array to finite float64 (``-0.0`` becomes ``0.0``)."""
    try:
        values = arr.astype(np.float64)
    except OverflowError:
        raise InvalidInputError(f"{label}: a value of {_show(arr)} overflows float64") from None
    bad = ~np.isfinite(values)
    if bad.any():
        index, at = _at_first(bad)
        raise InvalidInputError(
            f"{label}: value {_show(values[index])}{at} is not finite (NaN and ±inf are refused)"
        )
    return values + 0.0


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
            raise InvalidInputError(f"{label}: value {_show(values[index])}{at} is not an integer")
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
                raise InvalidInputError(f"{label}: value {_show(item)}{at} is not finite")
            if not as_float.is_integer():
                raise InvalidInputError(f"{label}: value {_show(item)}{at} is not an integer")
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
        raise InvalidInputError(
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
# the abstract bases
# ----------------------------------------------------------------------------------------
class DomainBase(SpecModel):
    """Abstract base of input domains (subclasses add a ``kind`` literal)."""

    @abstractmethod
    def validate(self, x: Any) -> Any:
        """Return the canonical form of ``x``, or raise if ``x`` is not an element.

        Raises
        ------
        InvalidInputError
            Naming the offending value (shape, NaN/inf, range, integrality, size …).
        """

    def contains(self, x: Any) -> bool:
        """True when :meth:`validate` accepts ``x``; never raises for bad data."""
        try:
            self.validate(x)
        except (PrivauditError, TypeError, ValueError, OverflowError, AttributeError):
            return False
        return True

    @property
    @abstractmethod
    def cardinality(self) -> int | float:
        """Number of elements as an exact Python int, or ``math.inf``."""

    @property
    def is_finite(self) -> bool:
        """True when the domain has finitely many elements."""
        return self.cardinality != math.inf

    @abstractmethod
    def sample(self, rng: RandomLike, size: int | None = None) -> Any:
        """A random element (or ``size`` of them, see the subclass)."""

    def sample_other(self, current: Any, rng: RandomLike) -> Any:
        """A random element different from ``current`` (``current`` if none exists).

        The default rejects samples equal to ``current``; after
        :data:`SAMPLE_OTHER_TRIES` failures it falls back on :meth:`extremes` and, for
        finite domains, on :meth:`enumerate`.
        """
        gen = as_generator(rng)
        for _ in range(SAMPLE_OTHER_TRIES):
            candidate = self.sample(gen)
            if not _same_element(candidate, current):
                return candidate
        for candidate in self.extremes():
            if not _same_element(candidate, current):
                return candidate
        if self.is_finite:
            for candidate in self.enumerate():
                if not _same_element(candidate, current):
                    return candidate
        return current

    @abstractmethod
    def extremes(self) -> tuple[Any, ...]:
        """A few adversarially interesting elements (bounds, midpoints, outliers …)."""

    @abstractmethod
    def enumerate(self) -> Iterator[Any]:
        """Iterate over every element of a finite domain.

        Raises
        ------
        UnsupportedCombinationError
            If the domain is infinite.
        """

    @abstractmethod
    def label(self) -> str:
        """Short description used in error messages, e.g. ``RealInterval(lo=0.0, hi=1.0)``."""

    def _refuse_enumeration(self) -> UnsupportedCombinationError:
        return UnsupportedCombinationError(f"{self.label()} is infinite and cannot be enumerated")


def _same_element(a: Any, b: Any) -> bool:
    if isinstance(a, nx.Graph) and isinstance(b, nx.Graph):
        return _edge_key(a) == _edge_key(b)
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    return a_arr.shape == b_arr.shape and bool(np.array_equal(a_arr, b_arr))


class ScalarDomainBase(DomainBase):
    """A set of real numbers (an interval of reals or integers, or category codes)."""

    #: True for domains whose canonical values are ``int64``.
    is_integer_valued: ClassVar[bool] = False

    @abstractmethod
    def check_values(self, values: npt.NDArray[Any], label: str) -> npt.NDArray[Any]:
        """Vectorised check of an array of candidate values (any shape).

        Parameters
        ----------
        values : ndarray
            Numbers as read by ``numpy.asarray`` (already known not to be booleans).
        label : str
            Prefix of error messages (names the domain the values are checked against).

        Returns
        -------
        ndarray
            The values as ``float64`` or ``int64``, same shape.

        Raises
        ------
        InvalidInputError
            Naming the first offending value and its index.
        """

    @abstractmethod
    def value_bounds(self) -> tuple[float, float]:
        """``(lo, hi)`` as floats, infinite on unbounded sides."""

    @abstractmethod
    def low_and_high(self) -> tuple[Any, Any]:
        """The lowest and highest extreme values (finite stand-ins for unbounded sides)."""

    def validate(self, x: Any) -> np.generic:
        """Return ``x`` as a numpy scalar (``np.float64`` or ``np.int64``).

        Raises
        ------
        InvalidInputError
            If ``x`` is not a single number of this domain.
        """
        arr = _numeric_array(x, self.label())
        if arr.ndim != 0:
            raise InvalidInputError(
                f"{self.label()}: expected a single number, got shape {arr.shape}: {_show(x)}"
            )
        return self.check_values(arr, self.label())[()]


# ----------------------------------------------------------------------------------------
# scalar domains
# ----------------------------------------------------------------------------------------
class RealInterval(ScalarDomainBase):
    """The closed real interval ``[lo, hi]``; either side may be unbounded (``None``).

    Parameters
    ----------
    lo, hi : float or None
        Finite bounds with ``lo < hi`` when both are given; ``None`` leaves that side
        unbounded, so ``RealInterval()`` is the whole real line (e.g. query answers).

    Notes
    -----
    Bounded intervals are sampled uniformly.  An unbounded side is sampled from an
    exponential law of scale :data:`UNBOUNDED_REAL_SCALE` measured from the finite side,
    or from a Laplace law of that scale around 0 when both sides are unbounded; its
    extreme stand-in lies :data:`UNBOUNDED_REACH` beyond the finite side (or 0).
    """

    kind: Literal["real_interval"] = "real_interval"
    lo: _OptionalFiniteFloat = None
    hi: _OptionalFiniteFloat = None

    @model_validator(mode="after")
    def _check_order(self) -> Self:
        if self.lo is not None and self.hi is not None and not self.lo < self.hi:
            raise InvalidParameterError(f"lo must be < hi, got lo={self.lo!r}, hi={self.hi!r}")
        return self

    @property
    def is_bounded(self) -> bool:
        """True when both sides are finite."""
        return self.lo is not None and self.hi is not None

    def label(self) -> str:
        """Short description used in error messages."""
        return f"RealInterval(lo={self.lo!r}, hi={self.hi!r})"

    def check_values(self, values: npt.NDArray[Any], label: str) -> npt.NDArray[np.float64]:
        """Check that values are finite and in ``[lo, hi]``; return them as float64."""
        floats = _as_float64(values, label)
        _check_range(floats, self.lo, self.hi, label)
        return floats

    def value_bounds(self) -> tuple[float, float]:
        """``(lo, hi)``, infinite on unbounded sides."""
        lo = -math.inf if self.lo is None else self.lo
        hi = math.inf if self.hi is None else self.hi
        return lo, hi

    def low_and_high(self) -> tuple[np.float64, np.float64]:
        """The bounds, or ``UNBOUNDED_REACH`` beyond the finite side (or 0)."""
        low = self.lo if self.lo is not None else (self.hi or 0.0) - UNBOUNDED_REACH
        high = self.hi if self.hi is not None else (self.lo or 0.0) + UNBOUNDED_REACH
        return np.float64(low), np.float64(high)

    @property
    def cardinality(self) -> float:
        """Always ``math.inf``."""
        return math.inf

    def sample(self, rng: RandomLike, size: int | None = None) -> Any:
        """A random value (see Notes); ``np.float64`` or a float64 array of ``size`` values."""
        gen = as_generator(rng)
        if self.lo is not None and self.hi is not None:
            u = gen.random(size)
            values = np.clip(self.lo * (1.0 - u) + self.hi * u, self.lo, self.hi)
        elif self.lo is not None:
            values = self.lo + gen.exponential(UNBOUNDED_REAL_SCALE, size=size)
        elif self.hi is not None:
            values = self.hi - gen.exponential(UNBOUNDED_REAL_SCALE, size=size)
        else:
            values = gen.laplace(0.0, UNBOUNDED_REAL_SCALE, size=size)
        values = np.asarray(values, dtype=np.float64) + 0.0
        return np.float64(values) if size is None else values

    def extremes(self) -> tuple[np.float64, ...]:
        """The bounds (far stand-ins for unbounded sides), the midpoint, and 0 when inside."""
        low, high = (float(v) for v in self.low_and_high())
        candidates = [low, high, low / 2 + high / 2]
        if low < 0.0 < high:
            candidates.append(0.0)
        return tuple(np.float64(v) for v in dict.fromkeys(candidates))

    def enumerate(self) -> Iterator[np.float64]:
        """Refuse: an interval of reals is infinite."""
        raise self._refuse_enumeration()


class IntegerRange(ScalarDomainBase):
    """The integers ``lo, lo + 1, …, hi``; either side may be unbounded (``None``).

    Parameters
    ----------
    lo, hi : int or None
        Bounds within int64, ``lo ≤ hi`` when both are given.

    Notes
    -----
    Unbounded sides are sampled from a geometric law (success probability
    :data:`UNBOUNDED_INTEGER_GEOMETRIC_P`) measured from the finite side, or two-sided
    around 0 when both sides are unbounded.
    """

    kind: Literal["integer_range"] = "integer_range"
    lo: _OptionalInt64 = None
    hi: _OptionalInt64 = None

    is_integer_valued: ClassVar[bool] = True

    @model_validator(mode="after")
    def _check_order(self) -> Self:
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise InvalidParameterError(f"lo must be <= hi, got lo={self.lo!r}, hi={self.hi!r}")
        return self

    def label(self) -> str:
        """Short description used in error messages."""
        return f"IntegerRange(lo={self.lo!r}, hi={self.hi!r})"

    def check_values(self, values: npt.NDArray[Any], label: str) -> npt.NDArray[np.int64]:
        """Check that values are integers in ``[lo, hi]``; return them as int64."""
        ints = _as_int64(values, label)
        _check_range(ints, self.lo, self.hi, label)
        return ints

    def value_bounds(self) -> tuple[float, float]:
        """``(lo, hi)`` as floats, infinite on unbounded sides."""
        lo = -math.inf if self.lo is None else float(self.lo)
        hi = math.inf if self.hi is None else float(self.hi)
        return lo, hi

    def low_and_high(self) -> tuple[np.int64, np.int64]:
        """The bounds, or ``UNBOUNDED_REACH`` beyond the finite side (or 0)."""
        low = self.lo if self.lo is not None else (self.hi or 0) - UNBOUNDED_REACH
        high = self.hi if self.hi is not None else (self.lo or 0) + UNBOUNDED_REACH
        return np.int64(max(low, _INT64_MIN)), np.int64(min(high, _INT64_MAX))

    @property
    def cardinality(self) -> int | float:
        """``hi − lo + 1``, or ``math.inf`` with an unbounded side."""
        if self.lo is None or self.hi is None:
            return math.inf
        return self.hi - self.lo + 1

    def sample(self, rng: RandomLike, size: int | None = None) -> Any:
        """Uniform on a bounded range; geometric tails on unbounded sides (see Notes)."""
        gen = as_generator(rng)
        if self.lo is not None and self.hi is not None:
            values = gen.integers(self.lo, self.hi, size=size, endpoint=True, dtype=np.int64)
        else:
            offsets = gen.geometric(UNBOUNDED_INTEGER_GEOMETRIC_P, size=size) - 1
            offsets = np.asarray(offsets, dtype=np.int64)
            if self.lo is not None:
                values = self.lo + np.minimum(offsets, min(_INT64_MAX, _INT64_MAX - self.lo))
            elif self.hi is not None:
                values = self.hi - np.minimum(offsets, min(_INT64_MAX, self.hi - _INT64_MIN))
            else:
                signs = gen.choice(np.array([-1, 1], dtype=np.int64), size=size)
                values = signs * offsets
        values = np.asarray(values, dtype=np.int64)
        return values[()] if size is None else values

    def sample_other(self, current: Any, rng: RandomLike) -> np.int64:
        """Uniform over the other values of a bounded range (``current`` if it is alone)."""
        if self.lo is None or self.hi is None:
            return super().sample_other(current, rng)
        if self.lo == self.hi:
            return np.int64(current)
        gen = as_generator(rng)
        value = int(gen.integers(self.lo, self.hi, endpoint=False, dtype=np.int64))
        return np.int64(value + 1 if value >= int(current) else value)

    def extremes(self) -> tuple[np.int64, ...]:
        """The bounds (far stand-ins for unbounded sides), and 0 when inside."""
        low, high = self.low_and_high()
        candidates = [int(low), int(high)]
        if low < 0 < high:
            candidates.append(0)
        return tuple(np.int64(v) for v in dict.fromkeys(candidates))

    def enumerate(self) -> Iterator[np.int64]:
        """``lo, …, hi`` in order (refused when a side is unbounded)."""
        if self.lo is None or self.hi is None:
            raise self._refuse_enumeration()
        return (np.int64(v) for v in range(self.lo, self.hi + 1))


class Categorical(ScalarDomainBase):
    """Category codes ``0, 1, …, size − 1`` (as integers).

    Parameters
    ----------
    size : int
        Number of categories, ``≥ 1``.
    """

    kind: Literal["categorical"] = "categorical"
    size: PositiveInt

    is_integer_valued: ClassVar[bool] = True

    def label(self) -> str:
        """Short description used in error messages."""
        return f"Categorical(size={self.size!r})"

    def check_values(self, values: npt.NDArray[Any], label: str) -> npt.NDArray[np.int64]:
        """Check that values are integer codes in ``0 … size − 1``; return them as int64."""
        ints = _as_int64(values, label)
        _check_range(ints, 0, self.size - 1, label)
        return ints

    def value_bounds(self) -> tuple[float, float]:
        """``(0, size − 1)`` as floats."""
        return 0.0, float(self.size - 1)

    def low_and_high(self) -> tuple[np.int64, np.int64]:
        """The first and the last category."""
        return np.int64(0), np.int64(self.size - 1)

    @property
    def cardinality(self) -> int:
        """``size``."""
        return self.size

    def sample(self, rng: RandomLike, size: int | None = None) -> Any:
        """Uniform category codes (``np.int64`` or an int64 array)."""
        values = np.asarray(as_generator(rng).integers(0, self.size, size=size), dtype=np.int64)
        return values[()] if size is None else values

    def sample_other(self, current: Any, rng: RandomLike) -> np.int64:
        """Uniform over the other categories (``current`` when ``size == 1``)."""
        if self.size == 1:
            return np.int64(current)
        value = int(as_generator(rng).integers(0, self.size - 1))
        return np.int64(value + 1 if value >= int(current) else value)

    def extremes(self) -> tuple[np.int64, ...]:
        """The first and last category."""
        return tuple(np.int64(v) for v in dict.fromkeys([0, self.size - 1]))

    def enumerate(self) -> Iterator[np.int64]:
        """``0, …, size − 1`` in order."""
        return (np.int64(v) for v in range(self.size))


ScalarDomain = Annotated[
    Union[RealInterval, IntegerRange, Categorical], Field(discriminator="kind")
]


# ----------------------------------------------------------------------------------------
# vectors
# ----------------------------------------------------------------------------------------
class VectorDomain(DomainBase):
    """Vectors of fixed ``length`` whose coordinates all lie in ``element``.

    Used for query-answer vectors and for vector-valued records such as a point in R³.

    Parameters
    ----------
    element : RealInterval, IntegerRange or Categorical
        The domain of every coordinate.
    length : int
        Number of coordinates, ``≥ 1``.
    """

    kind: Literal["vector"] = "vector"
    element: ScalarDomain
    length: PositiveInt

    def label(self) -> str:
        """Short description used in error messages."""
        return f"VectorDomain(element={self.element.label()}, length={self.length})"

    def check_values(self, values: npt.NDArray[Any], label: str) -> npt.NDArray[Any]:
        """Check the coordinates of an array whose last axis has ``length`` entries."""
        return self.element.check_values(values, label)

    def validate(self, x: Any) -> npt.NDArray[Any]:
        """Return ``x`` as a float64/int64 array of shape ``(length,)``.

        Raises
        ------
        InvalidInputError
            On a wrong shape or a coordinate outside ``element``.
        """
        arr = _numeric_array(x, self.label())
        if arr.shape != (self.length,):
            raise InvalidInputError(
                f"{self.label()}: expected shape ({self.length},), got shape {arr.shape}: "
                f"{_show(x)}"
            )
        return self.check_values(arr, self.label())

    def low_and_high(self) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        """All coordinates at the element's low, and all at its high extreme."""
        low, high = self.element.low_and_high()
        return np.full(self.length, low), np.full(self.length, high)

    @property
    def cardinality(self) -> int | float:
        """``|element| ** length`` as a Python int, or ``math.inf``."""
        card = self.element.cardinality
        return math.inf if card == math.inf else int(card) ** self.length

    def sample(self, rng: RandomLike, size: int | None = None) -> npt.NDArray[Any]:
        """One vector of shape ``(length,)``, or ``size`` of them as ``(size, length)``."""
        shape = self.length if size is None else (size, self.length)
        return self.element.sample(rng, size=shape)

    def sample_other(self, current: Any, rng: RandomLike) -> npt.NDArray[Any]:
        """A random vector; when it equals ``current``, one coordinate is changed."""
        gen = as_generator(rng)
        candidate = self.sample(gen)
        if np.array_equal(candidate, current):
            j = int(gen.integers(self.length))
            candidate[j] = self.element.sample_other(candidate[j], gen)
        return candidate

    def extremes(self) -> tuple[npt.NDArray[Any], ...]:
        """Constant vectors at each element extreme, and first-coordinate outliers."""
        low, high = self.element.low_and_high()
        items = [np.full(self.length, e) for e in self.element.extremes()]
        one_high = np.full(self.length, low)
        one_high[0] = high
        one_low = np.full(self.length, high)
        one_low[0] = low
        items += [one_high, one_low]
        return _unique_by_bytes(items)

    def enumerate(self) -> Iterator[npt.NDArray[Any]]:
        """Every vector in lexicographic order (refused for an infinite element domain)."""
        if not self.element.is_finite:
            raise self._refuse_enumeration()
        values = list(self.element.enumerate())
        dtype = np.int64 if self.element.is_integer_valued else np.float64
        return (np.array(c, dtype=dtype) for c in itertools.product(values, repeat=self.length))


RecordDomain = Annotated[
    Union[RealInterval, IntegerRange, Categorical, VectorDomain], Field(discriminator="kind")
]


# ----------------------------------------------------------------------------------------
# datasets
# ----------------------------------------------------------------------------------------
class DatasetDomain(DomainBase):
    """Datasets: arrays of ``n`` records, shape ``(n,)`` or ``(n, d)`` for vector records.

    Parameters
    ----------
    record : RealInterval, IntegerRange, Categorical or VectorDomain
        The domain of one record.
    size : int or None
        The public number of records; ``None`` for variable size (as under add/remove).
    min_size : int
        Smallest admissible ``n`` when the size is variable (default 1; datasets are
        never empty).  Must not exceed ``size`` when both are given.
    """

    kind: Literal["dataset"] = "dataset"
    record: RecordDomain
    size: PositiveInt | None = None
    min_size: PositiveInt = 1

    @model_validator(mode="after")
    def _check_sizes(self) -> Self:
        if self.size is not None and self.min_size > self.size:
            raise InvalidParameterError(
                f"min_size must be <= size, got min_size={self.min_size}, size={self.size}"
            )
        return self

    def label(self) -> str:
        """Short description used in error messages."""
        return f"DatasetDomain(record={self.record.label()}, size={self.size})"

    @property
    def record_shape(self) -> tuple[int, ...]:
        """Shape of one record: ``()`` for scalars, ``(d,)`` for vectors."""
        return (self.record.length,) if isinstance(self.record, VectorDomain) else ()

    def validate(self, x: Any) -> npt.NDArray[Any]:
        """Return ``x`` as a float64/int64 array of shape ``(n,) + record_shape``.

        Raises
        ------
        InvalidInputError
            If ``x`` is empty, has the wrong shape or the wrong ``n``, or holds a record
            outside ``record`` (the message names the value and its index).
        """
        label = self.label()
        arr = _numeric_array(x, label)
        if arr.ndim >= 1 and arr.shape[0] == 0:
            raise InvalidInputError(f"{label}: the dataset is empty (0 records)")
        expected = ("n",) + self.record_shape
        if arr.ndim != len(expected) or arr.shape[1:] != self.record_shape:
            shown = "(" + ", ".join(str(s) for s in expected) + ("," if len(expected) == 1 else "")
            raise InvalidInputError(f"{label}: expected shape {shown}), got shape {arr.shape}")
        n = arr.shape[0]
        if self.size is not None and n != self.size:
            raise InvalidInputError(
                f"{label}: the dataset has n={n} records but the public size is {self.size}"
            )
        if n < self.min_size:
            raise InvalidInputError(
                f"{label}: the dataset has n={n} records, fewer than min_size={self.min_size}"
            )
        return self.record.check_values(arr, label)

    @property
    def is_finite(self) -> bool:
        """True for a public size over a finite record domain."""
        return self.size is not None and self.record.is_finite

    @property
    def cardinality(self) -> int | float:
        """``|record| ** size`` (ordered datasets) when finite, else ``math.inf``."""
        if not self.is_finite:
            return math.inf
        return int(self.record.cardinality) ** int(self.size or 0)

    def _default_n(self) -> int:
        return self.size if self.size is not None else max(self.min_size, 4)

    def sample(self, rng: RandomLike, size: int | None = None) -> Any:
        """A random dataset (records i.i.d. from ``record.sample``).

        A variable-size domain draws ``n`` uniformly from ``min_size`` to
        ``min_size + VARIABLE_SIZE_SPREAD − 1``.  With ``size``, a list of datasets.
        """
        gen = as_generator(rng)
        if size is not None:
            return [self.sample(gen) for _ in range(size)]
        n = self.size
        if n is None:
            n = self.min_size + int(gen.integers(0, VARIABLE_SIZE_SPREAD))
        return self.record.sample(gen, size=n)

    def extremes(self) -> tuple[npt.NDArray[Any], ...]:
        """All-low, all-high, half-half, and one-outlier datasets.

        ``n`` is the public size, or ``max(min_size, 4)`` for variable-size domains.
        """
        n = self._default_n()
        low, high = self.record.low_and_high()
        all_low = np.stack([low] * n)
        all_high = np.stack([high] * n)
        half_half = all_low.copy()
        half_half[n // 2 :] = high
        high_outlier = all_low.copy()
        high_outlier[-1] = high
        low_outlier = all_high.copy()
        low_outlier[-1] = low
        return _unique_by_bytes([all_low, all_high, half_half, high_outlier, low_outlier])

    def enumerate(self) -> Iterator[npt.NDArray[Any]]:
        """Every dataset of the public size, as ordered tuples of records."""
        if not self.is_finite:
            raise self._refuse_enumeration()
        records = list(self.record.enumerate())
        return (np.stack(c) for c in itertools.product(records, repeat=int(self.size or 0)))


# ----------------------------------------------------------------------------------------
# graphs
# ----------------------------------------------------------------------------------------
def _edge_key(graph: nx.Graph) -> frozenset[tuple[int, int]]:
    return frozenset((min(u, v), max(u, v)) for u, v in graph.edges())


def _graph_from_edges(n: int, edges: Any) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(edges)
    return graph


@lru_cache(maxsize=256)
def _count_degree_bounded_graphs(n: int, max_degree: int) -> int:
    """Exact number of labelled simple graphs on ``n`` nodes with all degrees ≤ ``max_degree``.

    Nodes are added one at a time; node ``i`` picks its neighbours among earlier nodes.
    Only the multiset of earlier degrees matters, so the state is the vector
    ``(c_0, …, c_d)`` of how many earlier nodes have each degree.
    """
    d = max_degree
    states: dict[tuple[int, ...], int] = {tuple([0] * (d + 1)): 1}
    for _ in range(n):
        following: dict[tuple[int, ...], int] = {}
        for counts, ways in states.items():
            for picks in _degree_picks(counts, d):
                weight = ways
                new_counts = list(counts)
                for j, k in enumerate(picks):
                    if k:
                        weight *= math.comb(counts[j], k)
                        new_counts[j] -= k
                        new_counts[j + 1] += k
                new_counts[sum(picks)] += 1
                key = tuple(new_counts)
                following[key] = following.get(key, 0) + weight
        states = following
    return sum(states.values())


def _degree_picks(counts: tuple[int, ...], d: int) -> Iterator[tuple[int, ...]]:
    """Vectors ``(k_0, …, k_{d−1})`` with ``k_j ≤ counts[j]`` and ``Σ k_j ≤ d``."""

    def extend(j: int, budget: int) -> Iterator[tuple[int, ...]]:
        if j == d:
            yield ()
            return
        for k in range(min(counts[j], budget) + 1):
            for rest in extend(j + 1, budget - k):
                yield (k, *rest)

    return extend(0, d)


class GraphDomain(DomainBase):
    """Simple undirected graphs on the public node set ``{0, …, n_nodes − 1}``.

    Parameters
    ----------
    n_nodes : int
        Number of nodes, ``≥ 1``.
    max_degree : int or None
        Optional public bound on every node's degree.

    Notes
    -----
    :meth:`validate` accepts a :class:`networkx.Graph` (node and edge attributes are
    dropped) or a 0/1 (or boolean) symmetric adjacency matrix, dense or
    ``scipy.sparse``, and returns a fresh ``networkx.Graph`` whose nodes are the Python
    ints ``0 … n − 1``.
    """

    kind: Literal["graph"] = "graph"
    n_nodes: PositiveInt
    max_degree: NonNegativeInt | None = None

    def label(self) -> str:
        """Short description used in error messages."""
        return f"GraphDomain(n_nodes={self.n_nodes}, max_degree={self.max_degree})"

    @property
    def degree_bound(self) -> int:
        """The effective bound on degrees: ``max_degree`` capped at ``n_nodes − 1``."""
        unbounded = self.n_nodes - 1
        return unbounded if self.max_degree is None else min(self.max_degree, unbounded)

    # -- validation ---------------------------------------------------------------------
    def validate(self, x: Any) -> nx.Graph:
        """Return ``x`` as a canonical ``networkx.Graph``.

        Raises
        ------
        InvalidGraphError
            For directed graphs, multigraphs, self-loops, a wrong node set, an adjacency
            matrix that is not square, symmetric and 0/1, or a degree above the bound.
        """
        if isinstance(x, nx.Graph):
            edges = self._edges_of_networkx(x)
        elif sp.issparse(x):
            edges = self._edges_of_sparse(x)
        elif isinstance(x, (np.ndarray, list, tuple)):
            edges = self._edges_of_dense(x)
        else:
            raise InvalidGraphError(
                f"{self.label()}: expected a networkx.Graph or an adjacency matrix, "
                f"got {type(x).__name__}: {_show(x)}"
            )
        graph = _graph_from_edges(self.n_nodes, edges)
        self._check_degrees(graph)
        return graph

    def _edges_of_networkx(self, graph: nx.Graph) -> list[tuple[int, int]]:
        label = self.label()
        if graph.is_directed():
            raise InvalidGraphError(
                f"{label}: directed graphs are refused, got a {type(graph).__name__}"
            )
        if graph.is_multigraph():
            raise InvalidGraphError(
                f"{label}: multigraphs are refused, got a {type(graph).__name__}"
            )
        nodes = set(graph.nodes)
        expected = set(range(self.n_nodes))
        if nodes != expected:
            extra = ", ".join(repr(v) for v in sorted(nodes - expected, key=repr)[:5])
            missing = sorted(expected - nodes)[:5]
            raise InvalidGraphError(
                f"{label}: the node set must be exactly 0..{self.n_nodes - 1}; "
                f"unexpected nodes [{extra}], missing nodes {missing}"
            )
        loops = list(nx.selfloop_edges(graph))
        if loops:
            raise InvalidGraphError(f"{label}: self-loop at node {loops[0][0]!r}")
        return [(int(u), int(v)) for u, v in graph.edges()]

    def _check_adjacency_shape(self, shape: tuple[int, ...]) -> None:
        n = self.n_nodes
        if shape != (n, n):
            raise InvalidGraphError(
                f"{self.label()}: adjacency matrix must have shape ({n}, {n}), got {shape}"
            )

    def _edges_of_dense(self, x: Any) -> list[tuple[int, int]]:
        label = self.label()
        try:
            matrix = np.asarray(x)
        except (ValueError, TypeError) as err:
            raise InvalidGraphError(f"{label}: cannot read the adjacency matrix ({err})") from None
        self._check_adjacency_shape(matrix.shape)
        if matrix.dtype.kind not in "biuf":
            raise InvalidGraphError(f"{label}: adjacency entries must be 0/1, got {matrix.dtype}")
        not_binary = (matrix != 0) & (matrix != 1)
        if not_binary.any():
            (i, j), _ = _at_first(not_binary)
            raise InvalidGraphError(
                f"{label}: adjacency entries must be 0 or 1, "
                f"got {_show(matrix[i, j])} at ({i}, {j})"
            )
        binary = matrix.astype(bool)
        self._check_symmetric_loopless(binary, binary.T)
        rows, cols = np.nonzero(np.triu(binary, 1))
        return list(zip(rows.tolist(), cols.tolist()))

    def _edges_of_sparse(self, x: Any) -> list[tuple[int, int]]:
        label = self.label()
        self._check_adjacency_shape(tuple(x.shape))
        coo = sp.coo_matrix(x)
        data = coo.data
        if data.dtype.kind not in "biuf":
            raise InvalidGraphError(f"{label}: adjacency entries must be 0/1, got {data.dtype}")
        not_binary = (data != 0) & (data != 1)
        if not_binary.any():
            k = int(np.argmax(not_binary))
            raise InvalidGraphError(
                f"{label}: adjacency entries must be 0 or 1, got {_show(data[k])} "
                f"at ({int(coo.row[k])}, {int(coo.col[k])})"
            )
        keep = data != 0
        rows, cols = coo.row[keep].astype(np.int64), coo.col[keep].astype(np.int64)
        loops = rows == cols
        if loops.any():
            raise InvalidGraphError(f"{label}: self-loop at node {int(rows[np.argmax(loops)])}")
        forward = set(zip(rows.tolist(), cols.tolist()))
        for i, j in sorted(forward):
            if (j, i) not in forward:
                raise InvalidGraphError(
                    f"{label}: adjacency matrix is not symmetric (directed edge): "
                    f"A[{i}, {j}] = 1 but A[{j}, {i}] = 0"
                )
        return [(i, j) for i, j in forward if i < j]

    def _check_symmetric_loopless(
        self, binary: npt.NDArray[np.bool_], transposed: npt.NDArray[np.bool_]
    ) -> None:
        label = self.label()
        diagonal = np.diagonal(binary)
        if diagonal.any():
            raise InvalidGraphError(f"{label}: self-loop at node {int(np.argmax(diagonal))}")
        asymmetric = binary & ~transposed
        if asymmetric.any():
            (i, j), _ = _at_first(asymmetric)
            raise InvalidGraphError(
                f"{label}: adjacency matrix is not symmetric (directed edge): "
                f"A[{i}, {j}] = 1 but A[{j}, {i}] = 0"
            )

    def _check_degrees(self, graph: nx.Graph) -> None:
        if self.max_degree is None:
            return
        for node, degree in graph.degree():
            if degree > self.max_degree:
                raise InvalidGraphError(
                    f"{self.label()}: node {node} has degree {degree}, "
                    f"above max_degree={self.max_degree}"
                )

    # -- size ---------------------------------------------------------------------------
    @property
    def is_finite(self) -> bool:
        """Always True: the node set is finite."""
        return True

    @property
    def cardinality(self) -> int:
        """Number of graphs: ``2**C(n, 2)`` without bound; exact DP count with one.

        Raises
        ------
        UnsupportedCombinationError
            When the degree-bounded count needs more than
            :data:`MAX_GRAPH_COUNT_STATES` DP states.
        """
        n, d = self.n_nodes, self.degree_bound
        if d >= n - 1:
            return 2 ** math.comb(n, 2)
        if d == 0:
            return 1
        if math.comb(n + d, d) > MAX_GRAPH_COUNT_STATES:
            raise UnsupportedCombinationError(
                f"{self.label()}: counting degree-bounded graphs exactly is too costly "
                f"(more than {MAX_GRAPH_COUNT_STATES} states)"
            )
        return _count_degree_bounded_graphs(n, d)

    # -- generation ---------------------------------------------------------------------
    def sample(self, rng: RandomLike, size: int | None = None) -> Any:
        """A G(n, 1/2) graph, trimmed to the degree bound; with ``size`` a list of them.

        Trimming visits the nodes in random order and deletes random incident edges of
        any node above ``max_degree``; deletions only lower degrees, so one pass suffices.
        """
        gen = as_generator(rng)
        if size is not None:
            return [self.sample(gen) for _ in range(size)]
        n = self.n_nodes
        rows, cols = np.triu_indices(n, 1)
        keep = gen.random(rows.size) < 0.5
        graph = _graph_from_edges(n, zip(rows[keep].tolist(), cols[keep].tolist()))
        bound = self.degree_bound
        for node in gen.permutation(n).tolist():
            excess = graph.degree(node) - bound
            if excess > 0:
                neighbours = sorted(graph[node])
                dropped = gen.choice(len(neighbours), size=excess, replace=False)
                graph.remove_edges_from((node, neighbours[k]) for k in dropped.tolist())
        return graph

    def extremes(self) -> tuple[nx.Graph, ...]:
        """The empty graph, the densest near-regular graph allowed, and a star at node 0.

        Without a binding bound the dense graph is complete; with bound ``d`` it is the
        circulant graph joining each node to its ``⌊d/2⌋`` nearest nodes on either side,
        plus the "opposite" chords ``(i, i + ⌊n/2⌋)`` where both ends have room.
        """
        n, d = self.n_nodes, self.degree_bound
        empty = _graph_from_edges(n, [])
        if d >= n - 1:
            dense = nx.complete_graph(n)
        else:
            dense = _graph_from_edges(
                n, [(i, (i + k) % n) for i in range(n) for k in range(1, d // 2 + 1)]
            )
            half = n // 2
            for i in range(n):
                j = (i + half) % n
                has_room = max(dense.degree(i), dense.degree(j)) < d
                if i != j and not dense.has_edge(i, j) and has_room:
                    dense.add_edge(i, j)
        star = _graph_from_edges(n, [(0, j) for j in range(1, min(n - 1, d) + 1)])
        graphs, seen = [], set()
        for graph in (empty, _graph_from_edges(n, dense.edges()), star):
            key = _edge_key(graph)
            if key not in seen:
                seen.add(key)
                graphs.append(graph)
        return tuple(graphs)

    def enumerate(self) -> Iterator[nx.Graph]:
        """Every graph within the degree bound, each once (lazy; exponential in ``n²``)."""
        n, d = self.n_nodes, self.degree_bound

        def extend(
            node: int, degrees: list[int], edges: list[tuple[int, int]]
        ) -> Iterator[nx.Graph]:
            if node == n:
                yield _graph_from_edges(n, edges)
                return
            room = d - degrees[node]
            later = [v for v in range(node + 1, n) if degrees[v] < d]
            for k in range(min(room, len(later)) + 1):
                for chosen in itertools.combinations(later, k):
                    new_degrees = degrees.copy()
                    new_degrees[node] += k
                    for v in chosen:
                        new_degrees[v] += 1
                    yield from extend(node + 1, new_degrees, edges + [(node, v) for v in chosen])

        return extend(0, [0] * n, [])


InputDomain = Annotated[
    Union[RealInterval, IntegerRange, Categorical, VectorDomain, DatasetDomain, GraphDomain],
    Field(discriminator="kind"),
]
