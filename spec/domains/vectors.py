"""Vectors of fixed length over a scalar domain: :class:`VectorDomain`."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._random import RandomLike, as_generator
from .._types import PositiveInt
from ..errors import InvalidInputError
from ._base import PERTURB_EXTREME, DomainBase
from ._common import _numeric_array, _show, _unique_by_bytes
from .scalars import ScalarDomain

__all__ = ["VectorDomain"]


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

    def validate(  # type: ignore[override]  # pydantic's deprecated BaseModel.validate
        self, x: Any
    ) -> npt.NDArray[Any]:
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
        vectors: npt.NDArray[Any] = self.element.sample(rng, size=shape)
        return vectors

    def sample_other(self, current: Any, rng: RandomLike) -> npt.NDArray[Any]:
        """A random vector; when it equals ``current``, one coordinate is changed."""
        gen = as_generator(rng)
        candidate = self.sample(gen)
        if np.array_equal(candidate, current):
            j = int(gen.integers(self.length))
            candidate[j] = self.element.sample_other(candidate[j], gen)
        return candidate

    def perturbed(self, value: Any, rng: RandomLike) -> npt.NDArray[Any]:
        """An extreme vector (probability :data:`~spec.domains.PERTURB_EXTREME`), else
        ``value`` with one random coordinate :meth:`~spec.domains.ScalarDomainBase.perturbed`."""
        gen = as_generator(rng)
        if gen.random() < PERTURB_EXTREME:
            extreme: npt.NDArray[Any] = self.random_extreme(gen)
            return extreme
        moved = np.array(value, copy=True)
        j = int(gen.integers(self.length))
        moved[j] = self.element.perturbed(moved[j], gen)
        return moved

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
