"""The stable grid of computed spec values (spec.stable_values, docs/derivations.md §10)."""

from __future__ import annotations

import math
import sys
from decimal import Decimal

import numpy as np
import pytest

from privaudit.spec.errors import InvalidParameterError, UnstableValueError
from privaudit.spec.stable_values import (
    STABLE_DIGITS,
    STABLE_MARGIN,
    is_stable,
    round_down,
    round_up,
)


def _digits(x: float) -> int:
    mantissa = repr(abs(x)).split("e")[0].replace(".", "").strip("0")
    return len(mantissa)


def test_the_two_cpus_of_the_dpsgd_claim_round_to_one_value():
    assert round_up(0.5653074598440593) == round_up(0.5653074598452299) == 0.565308
    assert repr(round_up(0.5653074598452299)) == "0.565308"


def test_values_are_moved_by_the_margin_then_to_six_digits():
    assert STABLE_DIGITS == 6 and STABLE_MARGIN == 1e-9
    assert round_up(3.7306316348159365) == 3.73064
    assert round_down(0.1894116229436012) == 0.189411
    # a computed grid point still moves (the other machine may see 1.9999999999999998)
    assert round_up(2.0) == round_up(1.9999999999999998) == 2.00001
    assert round_down(2.0) == round_down(2.0000000000000004) == 1.99999
    # an exact value on the grid stays put, also when its double is off the decimal
    for x in (2.0, 0.1, 0.3, 1e-5, 123456.0):
        assert round_up(x, margin=0.0) == x == round_down(x, margin=0.0)


@pytest.mark.parametrize("seed", range(4))
def test_rounding_is_outward_on_the_grid_and_idempotent(seed):
    rng = np.random.default_rng(seed)
    values = rng.uniform(-1, 1, 2000) * 10.0 ** rng.uniform(-300, 300, 2000)
    for x in map(float, values):
        up, down = round_up(x), round_down(x)
        assert Decimal(up) > Decimal(x) * (1 + Decimal(0.9e-9) * (1 if x > 0 else -1))
        assert Decimal(down) < Decimal(x) * (1 - Decimal(0.9e-9) * (1 if x > 0 else -1))
        assert _digits(up) <= STABLE_DIGITS and _digits(down) <= STABLE_DIGITS
        assert is_stable(up) and is_stable(down)
        assert round_up(up, margin=0.0) == up and round_down(down, margin=0.0) == down
        # at most one grid step (relative 1e-5) plus the margin away
        assert abs(up - x) <= 1.1e-5 * abs(x) and abs(x - down) <= 1.1e-5 * abs(x)


def test_edge_cases():
    for special in (0.0, -0.0, math.inf, -math.inf):
        assert round_up(special) == special and round_down(special) == special
    assert round_up(-0.1234567) == -0.123456 and round_down(-0.1234567) == -0.123457
    tiny = 5e-324  # the smallest subnormal: no room for a margin, still on the safe side
    assert round_up(tiny) >= tiny and round_down(tiny) <= tiny
    assert round_up(1e-310) > 1e-310 > round_down(1e-310)
    assert round_up(sys.float_info.max) == math.inf  # up from the largest double
    assert round_down(sys.float_info.max) == 1.79769e308
    assert round_up(np.float64(0.25)) == 0.250001 and round_up(1) == 1.00001


def test_nan_and_non_numbers_are_refused_by_a_named_error():
    for bad in (math.nan, "0.5", None):
        with pytest.raises(UnstableValueError):
            round_up(bad)  # type: ignore[arg-type]
        with pytest.raises(UnstableValueError):
            round_down(bad)  # type: ignore[arg-type]
    with pytest.raises(UnstableValueError, match="margin"):
        round_up(1.0, margin=-1e-9)
    assert issubclass(UnstableValueError, InvalidParameterError)
    assert not is_stable(math.nan)
