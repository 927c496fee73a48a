"""Scalar domains: :class:`RealInterval`, :class:`IntegerRange` and :class:`Categorical`.

:data:`ScalarDomain` is their discriminated union (on ``kind``), the field type of a
:class:`~spec.domains.VectorDomain`'s ``element``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, Literal, Self

import numpy as np
import numpy.typing as npt
from pydantic import Field, model_validator

from .._random import RandomLike, as_generator
from .._types import PositiveInt
from ..errors import InvalidParameterError, NonFiniteInputError
from ._base import ScalarDomainBase
from ._common import (
    _INT64_MAX,
    _INT64_MIN,
    UNBOUNDED_INTEGER_GEOMETRIC_P,
    UNBOUNDED_REACH,
    UNBOUNDED_REAL_SCALE,
    _as_float64,
    _as_float64_admitting,
    _as_int64,
    _at_first,
    _check_range,
    _OptionalFiniteFloat,
    _OptionalInt64,
    _show,
)

__all__ = ["Categorical", "IntegerRange", "NonFiniteValue", "RealInterval", "ScalarDomain"]

#: The non-finite values a :class:`RealInterval` may admit.
NonFiniteValue = Literal["nan", "inf", "-inf"]
_NON_FINITE: dict[str, float] = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class RealInterval(ScalarDomainBase):
    """The closed real interval ``[lo, hi]``; either side may be unbounded (``None``).

    Parameters
    ----------
    lo, hi : float or None
        Finite bounds with ``lo < hi`` when both are given; ``None`` leaves that side
        unbounded, so ``RealInterval()`` is the whole real line (e.g. query answers).
    admits : tuple of {"nan", "inf", "-inf"}
        Non-finite values admitted besides the interval, for a pipeline that says it
        receives missing (NaN; ``None`` in a dataset reads as NaN) or infinite records.
        Default ``()``: every value must be finite.  Admitted values are extremes, so the
        relations' moves add and substitute them (``docs/replay.md``).

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
    admits: tuple[NonFiniteValue, ...] = ()

    @model_validator(mode="after")
    def _check_order(self) -> Self:
        if self.lo is not None and self.hi is not None and not self.lo < self.hi:
            raise InvalidParameterError(f"lo must be < hi, got lo={self.lo!r}, hi={self.hi!r}")
        if len(set(self.admits)) != len(self.admits):
            raise InvalidParameterError(f"admits repeats a value: {self.admits!r}")
        return self

    @property
    def admits_nan(self) -> bool:
        """True when NaN (a missing record) is admitted."""
        return "nan" in self.admits

    def _admitted(self, values: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        """Which entries are admitted non-finite values."""
        admitted = np.zeros(values.shape, dtype=bool)
        if "nan" in self.admits:
            admitted |= np.isnan(values)
        if "inf" in self.admits:
            admitted |= values == math.inf
        if "-inf" in self.admits:
            admitted |= values == -math.inf
        return admitted

    @property
    def is_bounded(self) -> bool:
        """True when both sides are finite."""
        return self.lo is not None and self.hi is not None

    def label(self) -> str:
        """Short description used in error messages."""
        extra = f", admits={self.admits!r}" if self.admits else ""
        return f"RealInterval(lo={self.lo!r}, hi={self.hi!r}{extra})"

    def check_values(self, values: npt.NDArray[Any], label: str) -> npt.NDArray[np.float64]:
        """Check that values are in ``[lo, hi]`` or admitted non-finite values (NaN in one
        canonical form); return them as float64."""
        if not self.admits:
            floats = _as_float64(values, label)
            _check_range(floats, self.lo, self.hi, label)
            return floats
        raw = _as_float64_admitting(values, label)
        admitted = self._admitted(raw)
        refused = ~np.isfinite(raw) & ~admitted
        if refused.any():
            index, at = _at_first(refused)
            raise NonFiniteInputError(
                f"{label}: value {_show(raw[index])}{at} is not finite and not admitted "
                f"(admits {', '.join(self.admits)})"
            )
        _check_range(
            np.where(admitted, float(self.low_and_high()[0]), raw), self.lo, self.hi, label
        )
        return np.where(np.isnan(raw), np.nan, raw) + 0.0

    def validate(  # type: ignore[override]  # pydantic's deprecated BaseModel.validate
        self, x: Any
    ) -> np.generic:
        """Return ``x`` as ``np.float64`` (``-0.0`` becomes ``0.0``).

        A Python ``float`` or ``np.float64`` that lies in the interval is converted
        directly (the searches validate thousands of such scalars); anything else, and
        every value to refuse, goes through the checks of
        :meth:`ScalarDomainBase.validate`, which give the same value for the former.

        Raises
        ------
        InvalidInputError
            If ``x`` is not a single finite number in ``[lo, hi]``.
        """
        if type(x) is float or type(x) is np.float64:
            value = float(x) + 0.0
            if (
                math.isfinite(value)
                and (self.lo is None or value >= self.lo)
                and (self.hi is None or value <= self.hi)
            ):
                return np.float64(value)
        return super().validate(x)

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

    def sample(self, rng: RandomLike, size: int | tuple[int, ...] | None = None) -> Any:
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
        candidates += [_NON_FINITE[v] for v in self.admits]
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

    def sample(self, rng: RandomLike, size: int | tuple[int, ...] | None = None) -> Any:
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
            other: np.int64 = super().sample_other(current, rng)
            return other
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

    def sample(self, rng: RandomLike, size: int | tuple[int, ...] | None = None) -> Any:
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


ScalarDomain = Annotated[RealInterval | IntegerRange | Categorical, Field(discriminator="kind")]
