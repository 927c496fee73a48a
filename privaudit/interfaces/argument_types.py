"""argparse value types shared by the command line and the pytest plugin.

Each parses one option value or raises :class:`argparse.ArgumentTypeError` naming it.
Only the standard library is imported here, so the pytest plugin stays cheap to load.
"""

from __future__ import annotations

import argparse
import math

from privaudit.auditing.limits import MAX_SAMPLES

__all__ = [
    "MAX_SAMPLES",
    "confidence",
    "nonnegative_int",
    "positive_float",
    "positive_int",
    "sample_count",
]


def _integer(text: str, minimum: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer ≥ 1."""
    return _integer(text, 1, "a positive integer")


def sample_count(text: str) -> int:
    """An integer in [1, MAX_SAMPLES] (outputs per side of an audit)."""
    value = _integer(text, 1, "a positive integer")
    if value > MAX_SAMPLES:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_SAMPLES} samples per side are supported (one float64 output per "
            f"draw is 8 GB per side there), got {text!r}"
        )
    return value


def nonnegative_int(text: str) -> int:
    """An integer ≥ 0 (seeds)."""
    return _integer(text, 0, "a non-negative integer")


def positive_float(text: str) -> float:
    """A finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a finite positive number, got {text!r}")
    return value


def confidence(text: str) -> float:
    """A confidence level in [0.5, 1) (:func:`spec.check_confidence`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0.5, 1), got {text!r}") from None
    if not 0.5 <= value < 1.0:  # refused before spec is loaded: an argument error stays cheap
        raise argparse.ArgumentTypeError(f"expected a number in [0.5, 1), got {text!r}")
    # imported here, not at the top: importing the pytest plugin (which uses these
    # argument types) must not import spec, numpy or pydantic
    from privaudit.spec import check_confidence
    from privaudit.spec.errors import InvalidParameterError

    try:
        return check_confidence(value)
    except InvalidParameterError:
        raise argparse.ArgumentTypeError(f"expected a number in [0.5, 1), got {text!r}") from None
