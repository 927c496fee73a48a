"""Validated scalar types shared by every spec model.

Each type refuses the offending value with an :class:`~spec.errors.InvalidParameterError`
that names it: ``Epsilon`` (finite, > 0: :class:`~spec.errors.EpsilonRangeError`; the
accepted range [EPSILON_MIN, EPSILON_MAX] = [1e-50, 300] of :func:`check_epsilon` applies
to the ε a mechanism or estimator is calibrated with), ``Delta`` (in [0, 1):
:class:`~spec.errors.DeltaRangeError`), ``RenyiOrder`` (> 1), ``PositiveFloat``,
``NonNegativeFloat``, ``Probability``, ``PositiveInt``.  Booleans, strings (numeric ones
too), complex numbers and None are never silently read as numbers
(:class:`~spec.errors.ParameterTypeError`).  :mod:`spec.validation` is the public home of
these checks and of the data checks.
"""

from __future__ import annotations

import math
import numbers
from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer

from .errors import (
    DeltaRangeError,
    EpsilonRangeError,
    InvalidParameterError,
    ParameterTypeError,
    SampleSizeError,
)

__all__ = [
    "EPSILON_MAX",
    "EPSILON_MIN",
    "Delta",
    "Epsilon",
    "ExtendedEpsilon",
    "NonNegativeFloat",
    "NonNegativeInt",
    "PositiveFloat",
    "PositiveInt",
    "Probability",
    "RenyiOrder",
    "check_alpha",
    "check_confidence",
    "check_delta",
    "check_epsilon",
    "check_positive",
    "check_probability",
    "check_sample_size",
]

#: Smallest accepted ε.  Below it, noise scales Δ/ε and their moments leave float64
#: (ε = 1e-300 overflowed in ``private_bounded_mean``); a wide margin is kept.
EPSILON_MIN = 1e-50
#: Largest accepted ε.  Calibrations evaluate e^ε and e^{2ε} (randomized response, the
#: exponential mechanism, (ε, δ) conversions), which overflow float64 from ε ≈ 355;
#: ε = 1e300 overflowed in ``private_bounded_mean`` and Algorithm 1.
EPSILON_MAX = 300.0


def _as_real(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterTypeError(f"{what} must be a real number, got {value!r}")
    return float(value)


def check_epsilon(value: Any, what: str = "epsilon") -> float:
    """Return ``value`` as a float if it is a finite ε in [EPSILON_MIN, EPSILON_MAX].

    Raises :class:`~spec.errors.ParameterTypeError` for a non-number (a string such as
    ``"1.0"``, a complex number, a boolean) and :class:`~spec.errors.EpsilonRangeError`
    for NaN, ±inf, ε ≤ 0 or ε outside the accepted range.
    """
    x = _as_real(value, what)
    if not math.isfinite(x) or x <= 0:
        raise EpsilonRangeError(f"{what} must be finite and > 0, got {value!r}")
    if not EPSILON_MIN <= x <= EPSILON_MAX:
        raise EpsilonRangeError(
            f"{what} must lie in the accepted range [{EPSILON_MIN:g}, {EPSILON_MAX:g}] "
            f"(beyond it the noise calibration overflows float64), got {value!r}"
        )
    return x


def check_claimed_epsilon(value: Any, what: str = "epsilon") -> float:
    """Return ``value`` as a float if it is a finite ε > 0 (a stated guarantee).

    Guarantees (a composition of many mechanisms, say) may state any finite ε > 0; the
    accepted range of :func:`check_epsilon` applies to the ε that a mechanism or an
    estimator is *calibrated* with.
    """
    x = _as_real(value, what)
    if not math.isfinite(x) or x <= 0:
        raise EpsilonRangeError(f"{what} must be finite and > 0, got {value!r}")
    return x


def check_delta(value: Any, what: str = "delta") -> float:
    """Return ``value`` as a float if 0 ≤ δ < 1; raise otherwise."""
    x = _as_real(value, what)
    if not (0.0 <= x < 1.0):
        raise DeltaRangeError(f"{what} must lie in [0, 1), got {value!r}")
    return x


def check_sample_size(value: Any, minimum: int = 1, what: str = "n") -> int:
    """Return ``value`` as an int ≥ ``minimum`` (a number of records, outputs, draws).

    Raises :class:`~spec.errors.ParameterTypeError` for a non-integer type (booleans,
    strings, floats with a fractional part) and :class:`~spec.errors.SampleSizeError`
    for an integer below ``minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ParameterTypeError(f"{what} must be an integer >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise SampleSizeError(f"{what} must be an integer >= {minimum}, got {value!r}")
    return int(value)


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


def check_alpha(value: Any, what: str = "alpha") -> float:
    """Return ``value`` as a float if it is an error level α in (0, 1); raise otherwise.

    The one validator of error levels (the α of a confidence bound, a test or a
    Bonferroni share).  Raises :class:`~spec.errors.ParameterTypeError` for a non-number
    and :class:`~spec.errors.InvalidParameterError` for NaN or α ∉ (0, 1).
    """
    x = _as_real(value, what)
    if not 0.0 < x < 1.0:
        raise InvalidParameterError(f"{what} must lie in (0, 1), got {value!r}")
    return x


def check_confidence(value: Any, what: str = "confidence") -> float:
    """Return ``value`` as a float if it is a confidence level in [0.5, 1); raise otherwise.

    A confidence is 1 − α for an error level α ≤ 1/2 (:func:`check_alpha`); levels
    below 1/2 would call a coin flip evidence.  Raises
    :class:`~spec.errors.ParameterTypeError` for a non-number and
    :class:`~spec.errors.InvalidParameterError` for NaN or a level outside [0.5, 1).
    """
    x = _as_real(value, what)
    if not 0.5 <= x < 1.0:
        raise InvalidParameterError(f"{what} must lie in [0.5, 1), got {value!r}")
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
            raise ParameterTypeError(f"{what} must be an integer, got {value!r}")
    number = int(value)
    if number < minimum:
        raise InvalidParameterError(f"{what} must be >= {minimum}, got {number!r}")
    return number


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


Epsilon = Annotated[float, BeforeValidator(check_claimed_epsilon)]
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
