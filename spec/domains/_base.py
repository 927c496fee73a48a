"""The abstract bases of input domains: :class:`DomainBase` and :class:`ScalarDomainBase`."""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar, cast

import numpy as np
import numpy.typing as npt

from .._base import SpecModel
from .._random import RandomLike, as_generator
from ..errors import InvalidInputError, PrivauditError, UnsupportedCombinationError
from ._common import SAMPLE_OTHER_TRIES, _numeric_array, _same_element, _show

__all__ = [
    "NUDGE_FRACTION",
    "PERTURB_EXTREME",
    "PERTURB_FRESH",
    "DomainBase",
    "ScalarDomainBase",
]


class DomainBase(SpecModel):
    """Abstract base of input domains (subclasses add a ``kind`` literal)."""

    # ``validate`` replaces pydantic's deprecated classmethod ``BaseModel.validate`` (the v1
    # name of ``model_validate``) on purpose: a domain validates its elements, and the
    # signature cannot match the classmethod's, hence the ignore[override] on each definition.
    @abstractmethod
    def validate(  # type: ignore[override]  # pydantic's deprecated BaseModel.validate
        self, x: Any
    ) -> Any:
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

    def random_extreme(self, rng: RandomLike) -> Any:
        """One of :meth:`extremes`, uniformly at random (one ``integers`` draw)."""
        extremes = self.extremes()
        return extremes[int(as_generator(rng).integers(len(extremes)))]

    def perturbed(self, value: Any, rng: RandomLike) -> Any:
        """A new element near or far from ``value``, for the local search over inputs.

        The default is a fresh :meth:`sample`; scalar and vector domains mix extremes,
        fresh samples and small steps (see :meth:`ScalarDomainBase.perturbed`).
        """
        return self.sample(as_generator(rng))

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


#: Probabilities that :meth:`ScalarDomainBase.perturbed` returns an extreme, a fresh sample
#: (else a nudge); :meth:`~spec.domains.VectorDomain.perturbed` uses the first too.
PERTURB_EXTREME, PERTURB_FRESH = 0.4, 0.3
#: A bounded real value is nudged by a normal step of this fraction of the width.
NUDGE_FRACTION = 0.125


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

    def nudged(self, value: Any, rng: RandomLike) -> Any:
        """``value`` moved a small random step, kept inside the domain.

        Integer-valued domains: a geometric(1/2) step with a random sign, clamped.  Real
        domains: a normal step of :data:`NUDGE_FRACTION` of the width (of
        ``max(1, |value|/4)`` when unbounded), clipped.
        """
        gen = as_generator(rng)
        lo, hi = self.value_bounds()
        if self.is_integer_valued:
            step = int(gen.geometric(0.5)) * (1 if gen.random() < 0.5 else -1)
            moved = min(max(int(value) + step, lo), hi)
            return self.validate(int(moved))
        width = hi - lo
        scale = width * NUDGE_FRACTION if math.isfinite(width) else max(1.0, abs(float(value)) / 4)
        return self.validate(float(np.clip(float(value) + gen.normal(0.0, scale), lo, hi)))

    def perturbed(self, value: Any, rng: RandomLike) -> Any:
        """An extreme, a fresh sample or a :meth:`nudged` ``value``.

        With probabilities :data:`PERTURB_EXTREME`, :data:`PERTURB_FRESH` and the rest,
        chosen by one uniform draw.
        """
        gen = as_generator(rng)
        u = gen.random()
        if u < PERTURB_EXTREME:
            return self.random_extreme(gen)
        if u < PERTURB_EXTREME + PERTURB_FRESH:
            return self.sample(gen)
        return self.nudged(value, gen)

    def validate(  # type: ignore[override]  # pydantic's deprecated BaseModel.validate
        self, x: Any
    ) -> np.generic:
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
        # a 0-d array indexed by () is a numpy scalar
        return cast(np.generic, self.check_values(arr, self.label())[()])
