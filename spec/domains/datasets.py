"""Datasets of scalar or vector records: :class:`DatasetDomain`.

:data:`RecordDomain` is the discriminated union (on ``kind``) of the domains a record may
have: the scalar domains and :class:`~spec.domains.VectorDomain`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Annotated, Any, Literal, Self

import numpy as np
import numpy.typing as npt
from pydantic import Field, model_validator

from .._random import RandomLike, as_generator
from .._types import PositiveInt
from ..errors import EmptyInputError, InputShapeError, InvalidInputError, InvalidParameterError
from ._base import DomainBase
from ._common import VARIABLE_SIZE_SPREAD, _none_as_nan, _numeric_array, _unique_by_bytes
from .scalars import Categorical, IntegerRange, RealInterval
from .vectors import VectorDomain

__all__ = ["DatasetDomain", "RecordDomain"]

RecordDomain = Annotated[
    RealInterval | IntegerRange | Categorical | VectorDomain, Field(discriminator="kind")
]


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

    def validate(  # type: ignore[override]  # pydantic's deprecated BaseModel.validate
        self, x: Any
    ) -> npt.NDArray[Any]:
        """Return ``x`` as a float64/int64 array of shape ``(n,) + record_shape``.

        Raises
        ------
        InvalidInputError
            If ``x`` is empty, has the wrong shape or the wrong ``n``, or holds a record
            outside ``record`` (the message names the value and its index).  ``None`` reads
            as NaN when a scalar ``record`` admits NaN.
        """
        label = self.label()
        if isinstance(self.record, RealInterval) and self.record.admits_nan:
            x = _none_as_nan(x)  # a missing record
        arr = _numeric_array(x, label)
        if arr.ndim >= 1 and arr.shape[0] == 0:
            raise EmptyInputError(f"{label}: the dataset is empty (0 records)")
        expected = ("n",) + self.record_shape
        if arr.ndim != len(expected) or arr.shape[1:] != self.record_shape:
            shown = "(" + ", ".join(str(s) for s in expected) + ("," if len(expected) == 1 else "")
            raise InputShapeError(f"{label}: expected shape {shown}), got shape {arr.shape}")
        n = arr.shape[0]
        if self.size is not None and n != self.size:
            raise InputShapeError(
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
        count: int = int(self.record.cardinality) ** int(self.size or 0)
        return count

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
        records: list[npt.ArrayLike] = list(self.record.enumerate())
        return (np.stack(c) for c in itertools.product(records, repeat=int(self.size or 0)))
