"""The one door through which a sampler's outputs enter the auditor.

Every draw of an audit calls :func:`draw_outputs`, which calls ``mechanism.sample`` once and
checks what came back against the spec with :func:`check_outputs`: numbers, of shape
``(N,)`` or ``(N, d)``, finite (±inf allowed only for a black-box spec).  Outputs that do
not fit are an **input error** (:class:`~privaudit.spec.errors.SamplerOutputError`, exit
code 2 in the CLI), never a privacy violation.  The check draws nothing, so a report is the
same to the bit with it as without it.

Details (the rule, and its cost): ``docs/engine_notes.md``,
"privaudit.auditing.sampler_outputs".
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from privaudit.spec.errors import (
    NonFiniteOutputError,
    NonNumericOutputError,
    OutputShapeError,
    SamplerTimeoutError,
)

__all__ = ["check_outputs", "draw_outputs", "sampler_timeout_scope"]

_NUMERIC_KINDS = "biuf"
"""numpy dtype kinds of numbers the auditor reads: bool, signed, unsigned, float."""

_SHOWN_COORDINATES = 5
"""How many offending coordinates a message lists before '…'."""


#: Seconds one sampler call may take in the current audit (``None``: no limit); set by
#: :func:`sampler_timeout_scope`.
_SAMPLER_TIMEOUT: ContextVar[float | None] = ContextVar("sampler_timeout", default=None)


@contextmanager
def sampler_timeout_scope(seconds: float | None) -> Iterator[None]:
    """Every :func:`draw_outputs` inside the block gives up after ``seconds`` (``None``:
    no limit) with :class:`~privaudit.spec.errors.SamplerTimeoutError`."""
    token = _SAMPLER_TIMEOUT.set(seconds)
    try:
        yield
    finally:
        _SAMPLER_TIMEOUT.reset(token)


def _timed_sample(mechanism: Any, data: Any, size: int, rng: Any) -> Any:
    """``mechanism.sample`` under the scope's deadline: a real-time alarm (SIGALRM) that
    interrupts the call between Python bytecodes.  Only the main thread can take signals,
    so calls on worker threads (the threads and Dask executors) run unbounded; a forked
    child is its own main thread.  A C loop that never returns to the interpreter is
    interrupted when it does."""
    seconds = _SAMPLER_TIMEOUT.get()
    if (
        seconds is None
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        return mechanism.sample(data, size, rng)
    name = getattr(mechanism, "name", "?")

    def expired(signum: int, frame: Any) -> None:
        raise SamplerTimeoutError(
            f"sampler {name!r} did not return {size} outputs within {seconds:g} s "
            "(the audit's sampler_timeout, by default its time_budget)"
        )

    previous = signal.signal(signal.SIGALRM, expired)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.monotonic()
    try:
        return mechanism.sample(data, size, rng)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)
        if outer > 0.0:  # an enclosing alarm keeps what is left of its time
            signal.setitimer(signal.ITIMER_REAL, max(1e-6, outer - (time.monotonic() - started)))


def draw_outputs(mechanism: Any, data: Any, size: int, rng: Any) -> np.ndarray:
    """``size`` outputs of ``mechanism`` on ``data``, drawn with ``rng`` and checked.

    One ``mechanism.sample(data, size, rng)`` call, bounded by the audit's sampler timeout
    (:func:`sampler_timeout_scope`), then :func:`check_outputs`.

    Returns
    -------
    numpy.ndarray
        ``np.asarray`` of what the sampler returned (its dtype and shape unchanged).

    Raises
    ------
    SamplerOutputError
        As :func:`check_outputs`.
    """
    return check_outputs(mechanism, _timed_sample(mechanism, data, size, rng), size)


def check_outputs(mechanism: Any, outputs: Any, size: int) -> np.ndarray:
    """``outputs`` as an array, if they are what ``mechanism``'s spec declares for
    ``size`` releases (the rule: ``docs/engine_notes.md``, "privaudit.auditing.sampler_outputs").

    ``mechanism`` needs a ``spec`` (its ``output_dimension`` and ``noise``) and is named
    by its ``name``.

    Raises
    ------
    NonNumericOutputError
        The outputs are not numbers (``object``/string/complex dtype, None, a dict, a
        ragged list).
    OutputShapeError
        Not ``size`` outputs, or not of the declared dimension.
    NonFiniteOutputError
        NaN, or ±inf where the declared output is finite.
    """
    spec = mechanism.spec
    who = f"sampler {getattr(mechanism, 'name', spec.name)!r}"
    dim = int(spec.output_dimension)
    expected = (size,) if dim == 1 else (size, dim)
    out = _as_array(outputs, who, expected)
    if out.dtype.kind not in _NUMERIC_KINDS:
        raise NonNumericOutputError(f"{who}: {_dtype_problem(out)}")
    _check_shape(out.shape, size, dim, who, expected)
    if out.dtype.kind == "f":
        _check_finite(out, size, dim, who, infinite_allowed=spec.noise is None, noise=spec.noise)
    return out


def _as_array(outputs: Any, who: str, expected: tuple[int, ...]) -> np.ndarray:
    if outputs is None or isinstance(outputs, (dict, str, bytes)):
        raise NonNumericOutputError(
            f"{who} returned {_kind_of(outputs)}; expected numbers, an array of shape {expected}"
        )
    try:
        out = np.asarray(outputs)
    except (ValueError, TypeError):  # ragged rows, or an object numpy cannot read
        raise NonNumericOutputError(
            f"{who} returned {_kind_of(outputs)} that is not a rectangular array of numbers; "
            f"expected shape {expected}"
        ) from None
    if out.ndim == 0 and out.dtype.kind == "O":  # a lone object: a set, a generator …
        raise NonNumericOutputError(
            f"{who} returned {_kind_of(outputs)}; expected numbers, an array of shape {expected}"
        )
    return out


def _kind_of(value: Any) -> str:
    """'None', 'a dict', 'a list' …: what a value is, never its repr."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _dtype_problem(out: np.ndarray) -> str:
    kind = out.dtype.kind
    if kind == "c":
        return f"outputs have dtype {out.dtype}; expected real numbers"
    if kind in "US":
        return f"outputs have dtype {out.dtype} (text); expected numbers"
    if kind == "O":
        flat = out.reshape(-1)
        for i, value in enumerate(flat):  # the error path only: name the first non-number
            if value is None or not isinstance(value, (int, float, np.integer, np.floating)):
                return (
                    f"outputs have dtype object (output value {i} is {_kind_of(value)}); "
                    "expected numbers"
                )
        return "outputs have dtype object; expected numbers (return an int or float array)"
    return f"outputs have dtype {out.dtype}; expected numbers"


def _check_shape(
    shape: tuple[int, ...], size: int, dim: int, who: str, expected: tuple[int, ...]
) -> None:
    ok_rows = len(shape) >= 1 and shape[0] == size
    if dim == 1:
        ok_form = len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)
        what = "a scalar output"
    else:
        ok_form = len(shape) == 2 and shape[1] == dim
        what = f"a {dim}-dimensional output"
    if ok_form and ok_rows:
        return
    if ok_form:  # the right kind of rows, not as many as asked for
        raise OutputShapeError(
            f"{who} returned {shape[0]} outputs for size={size} (shape {shape}; expected "
            f"{expected})"
        )
    raise OutputShapeError(f"{who} returned shape {shape} for {what}; expected {expected}")


def _check_finite(
    out: np.ndarray, size: int, dim: int, who: str, *, infinite_allowed: bool, noise: Any
) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(out, axis=None)
    if np.isfinite(total):  # NaN and ±inf propagate into the sum: every output is finite
        return
    rows = out.reshape(size, -1)
    problems = [("NaN", np.isnan(rows))]
    if not infinite_allowed:
        problems += [("+inf", np.isposinf(rows)), ("-inf", np.isneginf(rows))]
    clauses, infinite = [], False
    for label, bad in problems:
        hit_rows = bad.any(axis=1)
        count = int(np.count_nonzero(hit_rows))
        if count:
            clause = f"{count} of {size} outputs are {label}"
            if dim > 1:
                coords = np.flatnonzero(bad.any(axis=0))
                shown = ", ".join(str(c) for c in coords[:_SHOWN_COORDINATES])
                more = ", …" if coords.size > _SHOWN_COORDINATES else ""
                plural = "s" if coords.size > 1 else ""
                clause += f" (in coordinate{plural} {shown}{more} of {dim})"
            clauses.append(clause)
            infinite = infinite or label != "NaN"
    if not clauses:  # a finite overflow of the sum (e.g. 1e308 + 1e308): nothing wrong
        return
    message = f"{who}: " + "; ".join(clauses)
    if infinite:
        message += f" (the spec's {type(noise).__name__} releases finite numbers)"
    raise NonFiniteOutputError(message)
