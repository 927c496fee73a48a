"""Validated scalar types shared by every spec model.

Each type refuses the offending value with an :class:`~spec.errors.InvalidParameterError`
that names it: ``Epsilon`` (finite, > 0), ``Delta`` (in [0, 1)), ``RenyiOrder`` (> 1),
``PositiveFloat``, ``NonNegativeFloat``, ``Probability``, ``PositiveInt``.
Booleans and strings are never silently read as numbers.
"""

from __future__ import annotations

import math
import numbers
from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer

from .errors import InvalidParameterError

__all__ = [
    "Delta",
    "Epsilon",
    "ExtendedEpsilon",
    "NonNegativeFloat",
    "NonNegativeInt",
    "PositiveFloat",
    "PositiveInt",
    "Probability",
    "RenyiOrder",
    "check_delta",
    "check_epsilon",
    "check_positive",
    "check_probability",
]


def _as_real(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{what} must be a real number, got {value!r}")
    return float(value)


def check_epsilon(value: Any, what: str = "epsilon") -> float:
    """Return ``value`` as a float if it is a finite ε > 0; raise otherwise."""
    x = _as_real(value, what)
    if not math.isfinite(x) or x <= 0:
        raise InvalidParameterError(f"{what} must be finite and > 0, got {value!r}")
    return x


def check_delta(value: Any, what: str = "delta") -> float:
    """Return ``value`` as a float if 0 ≤ δ < 1; raise otherwise."""
    x = _as_real(value, what)
    if not (0.0 <= x < 1.0):
        raise InvalidParameterError(f"{what} must lie in [0, 1), got {value!r}")
    return x


def check_positive(value: Any, what: str = "value") -> float:
    """Return ``value`` as a float if finite and > 0; raise otherwise."""
    x = _as_real(value, what)
    if not math.isfinite(x) or x <= 0:
        raise InvalidParameterError(f"{what} must be finite and > 0, got {value!r}")
    return x


def _check_nonnegative(value: Any, what: str = "value") -> float:
    x = _as_real(value, what)
    if not math.isfinite(x) or x < 0:
        raise InvalidParameterError(f"{what} must be finite and >= 0, got {value!r}")
    return x


def check_probability(value: Any, what: str = "probability") -> float:
    """Return ``value`` as a float if 0 ≤ p ≤ 1; raise otherwise."""
    x = _as_real(value, what)
    if not (0.0 <= x <= 1.0):
        raise InvalidParameterError(f"{what} must lie in [0, 1], got {value!r}")
    return x


def _check_renyi_order(value: Any) -> float:
    x = _as_real(value, "Renyi order alpha")
    if not math.isfinite(x) or x <= 1:
        raise InvalidParameterError(f"Renyi order alpha must be finite and > 1, got {value!r}")
    return x


def _check_int(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InvalidParameterError(f"{what} must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        raise InvalidParameterError(f"{what} must be >= {minimum}, got {value!r}")
    return value


def _check_extended_epsilon(value: Any) -> float:
    """ε in (0, ∞]; ∞ is written ``"inf"`` in JSON (reports only, never a claim)."""
    if isinstance(value, str) and value.strip().lower() in {"inf", "infinity", "+inf"}:
        return math.inf
    x = _as_real(value, "epsilon")
    if x != x or x < 0:
        raise InvalidParameterError(f"epsilon must be >= 0 or 'inf', got {value!r}")
    return x


def _ser_extended(x: float) -> float | str:
    return "inf" if math.isinf(x) else x


Epsilon = Annotated[float, BeforeValidator(check_epsilon)]
Delta = Annotated[float, BeforeValidator(check_delta)]
PositiveFloat = Annotated[float, BeforeValidator(check_positive)]
NonNegativeFloat = Annotated[float, BeforeValidator(_check_nonnegative)]
Probability = Annotated[float, BeforeValidator(check_probability)]
RenyiOrder = Annotated[float, BeforeValidator(_check_renyi_order)]
PositiveInt = Annotated[int, BeforeValidator(lambda v: _check_int(v, "value", 1))]
NonNegativeInt = Annotated[int, BeforeValidator(lambda v: _check_int(v, "value", 0))]
#: An ε that may be infinite, for reports (serialised as the string ``"inf"``).
ExtendedEpsilon = Annotated[
    float,
    BeforeValidator(_check_extended_epsilon),
    PlainSerializer(_ser_extended, return_type=float | str, when_used="json"),
]
