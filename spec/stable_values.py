"""Stable values: numerically computed numbers put on a fixed decimal grid before a spec holds them.

A spec's content hash covers the shortest ``repr`` of every float in it
(:mod:`spec._base`), so a claim computed at run time — an accountant's ε, a σ calibrated by
a root find, a sensitivity from a matrix factorisation — must not depend on the CPU, the
BLAS, the libm or the SIMD path that computed it.  Those differ in the last bits: the PLD
accountant's ε of the DP-SGD registry entries came out 0.5653074598440593 on one CPU and
0.5653074598452299 on another (relative spread 2·10⁻¹²), and every certificate of the
registry went stale.  The rule, applied by every producer of such a value:

1. **inflate** the value by the relative margin :data:`STABLE_MARGIN` = 10⁻⁹ in the
   conservative direction (up for an ε, δ, ρ, μ or a sensitivity; down for a parameter
   whose *decrease* keeps the claim true: ε₀ of a randomized-response coin, ρ for a
   zCDP calibration, β and α of a smooth-sensitivity release); the margin covers the
   routine's own numerical error (a root find stops within 10⁻¹⁴, an FFT is accurate to
   about 10⁻¹²), so the rounded value is on the safe side of the *exact* answer, not only
   of the computed one;
2. **round outward** to :data:`STABLE_DIGITS` = 6 significant decimal digits (ceiling for
   :func:`round_up`, floor for :func:`round_down`), exactly, in decimal arithmetic; the
   nearest double of the grid point is returned (it is on the same side of the input by
   monotonicity of rounding, and its ``repr`` has at most 6 digits).

Why this grid.  Two machines whose answers differ by a relative ``s`` land on different
grid points only if a grid point falls between them: probability about ``s/g`` for the
relative spacing ``g`` ∈ [10⁻⁶, 10⁻⁵] of 6 digits, i.e. about 2·10⁻⁶ per value at the
observed ``s`` = 2·10⁻¹² (8 digits would make it 2·10⁻⁴, too often for a registry of many
computed claims).  The price is tightness: a claim loses at most a relative 10⁻⁵ (plus
the margin), far inside every accountant's own slack (the PLD's discretisation interval
is 10⁻³).  And 6 digits is what ``privaudit list`` prints (``:.6g``), so the printed claim
is the hashed claim.  The derivation is ``docs/derivations.md`` §10.

The margin is applied only to inexact values: pass ``margin=0`` for a value that is exact
by construction (then a value already on the grid stays put).  A computed value is
*always* inflated, even when it happens to land on the grid: a grid point computed as
``2.0`` on one machine and ``1.9999999999999998`` on another must round to the same
``2.00001``.

Examples
--------
>>> round_up(0.5653074598452299), round_up(0.5653074598440593)
(0.565308, 0.565308)
>>> round_down(0.1894116229436012)
0.189411
>>> round_up(2.0, margin=0.0), round_up(2.0), round_up(0.1, margin=0.0)
(2.0, 2.00001, 0.1)
"""

from __future__ import annotations

import math
import numbers
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal

from .errors import UnstableValueError

__all__ = ["STABLE_DIGITS", "STABLE_MARGIN", "is_stable", "round_down", "round_up"]

#: Significant decimal digits of the grid every computed spec value is rounded to.
STABLE_DIGITS = 6
#: Relative margin by which a computed value is first moved to its conservative side.
STABLE_MARGIN = 1e-9

#: Exact enough for the product x·(1 ± margin) of any double (its expansion has ≤ 767
#: significant digits, but only the first ~25 matter for a 6-digit quantisation).
_CONTEXT_UP = Context(prec=60, rounding=ROUND_CEILING)
_CONTEXT_DOWN = Context(prec=60, rounding=ROUND_FLOOR)


def _check(value: float, margin: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UnstableValueError(f"{what} must be a real number, got {value!r}")
    x = float(value)
    if math.isnan(x):
        raise UnstableValueError(f"{what} is NaN: a numerical routine failed; nothing to round")
    if not (math.isfinite(margin) and 0.0 <= margin < 1e-3):
        raise UnstableValueError(f"margin must lie in [0, 1e-3), got {margin!r}")
    return x


def _to_grid(x: float, margin: float, up: bool) -> float:
    """The grid double next to ``x`` moved by ``margin``, on the conservative side.

    The grid is the set of doubles nearest to the decimals of :data:`STABLE_DIGITS`
    significant digits (so ``0.1``, whose double is slightly above 1/10, is on it).
    """
    if x == 0.0 or math.isinf(x):
        return x
    context = _CONTEXT_UP if up else _CONTEXT_DOWN
    d = Decimal(x)  # exact
    if margin == 0.0:
        target = d
    else:  # rounded (to 60 digits) towards the conservative side
        shift = context.multiply(abs(d), Decimal(margin))
        target = context.add(d, shift) if up else context.subtract(d, shift)
    if target == 0:
        return 0.0
    quantum = Decimal(1).scaleb(target.adjusted() - (STABLE_DIGITS - 1))
    near = target.quantize(quantum, rounding=ROUND_FLOOR if up else ROUND_CEILING, context=context)
    candidate = float(near)
    # the decimal on the far side of the target may still round to a double on the safe side
    if (Decimal(candidate) >= target) if up else (Decimal(candidate) <= target):
        return candidate
    far = target.quantize(quantum, rounding=context.rounding, context=context)
    return float(far)


def round_up(value: float, *, margin: float = STABLE_MARGIN) -> float:
    """``value`` moved up by the relative ``margin``, then up to 6 significant digits.

    The conservative rounding of an ε, δ, ρ, μ, a sensitivity or a noise scale computed
    by a numerical routine.  The result is ≥ ``value`` (> when ``margin`` > 0 and the
    value is a finite non-zero normal number); 0 and ±inf are returned unchanged.

    Raises
    ------
    UnstableValueError
        If ``value`` is NaN or not a real number.

    Examples
    --------
    >>> round_up(3.7306316348159365)
    3.73064
    >>> round_up(-0.1234567)
    -0.123456
    """
    x = _check(value, margin, "the value to round up")
    return _to_grid(x, margin, up=True)


def round_down(value: float, *, margin: float = STABLE_MARGIN) -> float:
    """``value`` moved down by the relative ``margin``, then down to 6 significant digits.

    The conservative rounding of a parameter whose decrease keeps a claim true (ε₀ of a
    coin, a β or α of a smooth-sensitivity release, the ρ a calibration may use).  The
    result is ≤ ``value``; 0 and ±inf are returned unchanged; a positive value may round
    to 0 only if it is below the smallest subnormal's grid.

    Raises
    ------
    UnstableValueError
        If ``value`` is NaN or not a real number.

    Examples
    --------
    >>> round_down(0.18941162294360121)
    0.189411
    """
    x = _check(value, margin, "the value to round down")
    return _to_grid(x, margin, up=False)


def is_stable(value: float) -> bool:
    """Whether ``value`` is on the grid (6 significant digits), or 0, or ±inf.

    Examples
    --------
    >>> is_stable(0.565308), is_stable(0.5653074598452299)
    (True, False)
    """
    x = float(value)
    if math.isnan(x):
        return False
    return round_up(x, margin=0.0) == x
