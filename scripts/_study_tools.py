"""Reusable pieces of the simulation studies in ``scripts/``: seeding, repetitions, slopes.

A study is a grid of cells (method × n × ε), each filled by independent repetitions.
Three things must hold for its numbers to be worth printing, and this module provides
them:

* **Reproducibility.**  Every random stream is derived from one integer seed and the
  *names* of what it feeds (scenario, n, repetition, method, ε) through
  ``numpy.random.SeedSequence``.  A cell's numbers therefore do not depend on which other
  cells, methods or scenarios were run, nor in which order.  The data of one repetition
  are shared by every method and every ε (common random numbers), so differences between
  methods are not blurred by data noise.
* **Honest summaries.**  Errors are summarised by their mean absolute value with its
  standard error.  (The root-mean-square error is not used: the inverse-quartic noise of
  Algorithm 1 has E Z² = 1 but E Z⁴ = ∞, so the sample mean of squared errors has no
  finite variance and its standard error would be meaningless.)
* **One command line.**  Every study takes ``--quick``, ``--reps``, ``--seed`` and ``--out``
  (:func:`study_argument_parser`) and runs with the utility-condition warnings silenced and
  timed (:func:`run_timed_without_utility_warnings`).
* **Slopes with uncertainty.**  Log-log slopes are least-squares fits of log(mean error)
  on log(x); their confidence intervals come from a nonparametric bootstrap that resamples
  the repetitions *within* every cell (cells are independent), refits, and takes
  percentiles.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from privaudit.spec import InvalidInputError, InvalidParameterError, UtilityConditionWarning

__all__ = [
    "DEFAULT_STUDY_SEED",
    "ErrorSummary",
    "SlopeFit",
    "bootstrap_loglog_slope",
    "fit_loglog_slope",
    "local_loglog_slope",
    "run_timed_without_utility_warnings",
    "stream",
    "study_argument_parser",
    "summarise_errors",
]

#: The default master seed of the studies' command lines.
DEFAULT_STUDY_SEED = 20261121

_Result = TypeVar("_Result")


def study_argument_parser(description: str, default_out: Path) -> argparse.ArgumentParser:
    """The command line shared by the studies: ``--quick``, ``--reps``, ``--seed``, ``--out``.

    Parameters
    ----------
    description : str
        The parser's description (a study passes the first paragraph of its docstring).
    default_out : pathlib.Path
        Where the report goes unless ``--out`` says otherwise.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="tiny smoke run")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per cell")
    parser.add_argument("--seed", type=int, default=DEFAULT_STUDY_SEED)
    parser.add_argument("--out", type=Path, default=default_out)
    return parser


def run_timed_without_utility_warnings(run: Callable[[], _Result]) -> tuple[_Result, float]:
    """``run()`` with :class:`~spec.errors.UtilityConditionWarning` silenced, and its runtime.

    The studies deliberately include small n where a chunk count is clamped; the warning
    says so once per call and would drown the progress lines.

    Returns
    -------
    tuple
        What ``run`` returned and the wall time in seconds (for the report only).
    """
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityConditionWarning)
        result = run()
    return result, time.perf_counter() - started


def _name_key(name: str | int) -> int:
    """A stable 32-bit integer for a name (``hash`` is salted per process, crc32 is not)."""
    if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
        if int(name) < 0:
            raise InvalidParameterError(f"stream keys must be non-negative, got {name!r}")
        return int(name)
    return zlib.crc32(str(name).encode("utf-8"))


def stream(seed: int, *names: str | float) -> np.random.Generator:
    """An independent random generator for the cell named by ``names``.

    Parameters
    ----------
    seed : int
        The study's master seed (non-negative).
    *names : str, int or float
        What the stream feeds, e.g. ``("collision", 1000, 17, "data")``.  Floats (such as
        ε) are keyed by their ``repr``, so 0.5 and 0.50 are the same stream.

    Returns
    -------
    numpy.random.Generator
        A PCG64 generator seeded by ``SeedSequence(seed, spawn_key=keys)``; distinct
        ``names`` give statistically independent streams.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidParameterError(f"seed must be a non-negative integer, got {seed!r}")
    keys = tuple(_name_key(repr(float(x)) if isinstance(x, float) else x) for x in names)
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=keys))


@dataclass(frozen=True, slots=True)
class ErrorSummary:
    """Mean absolute error of one cell over its repetitions.

    Attributes
    ----------
    mean : float
        Mean of the absolute errors.
    standard_error : float
        Sample standard deviation of the absolute errors over √repetitions.
    repetitions : int
        Number of repetitions summarised.
    """

    mean: float
    standard_error: float
    repetitions: int


def _check_errors(errors: np.ndarray, what: str) -> np.ndarray:
    arr = np.asarray(errors, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise InvalidInputError(f"{what} must be a non-empty 1-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InvalidInputError(f"{what} contains non-finite values: {arr[~np.isfinite(arr)][:3]}")
    if np.any(arr < 0):
        raise InvalidInputError(f"{what} must be absolute errors (>= 0), got {arr.min()!r}")
    return arr


def summarise_errors(errors: Sequence[float] | np.ndarray) -> ErrorSummary:
    """Mean absolute error and its standard error from per-repetition absolute errors.

    Raises
    ------
    InvalidInputError
        If ``errors`` is empty, not 1-D, non-finite or negative.
    """
    arr = _check_errors(np.asarray(errors), "errors")
    se = float(arr.std(ddof=1) / math.sqrt(arr.size)) if arr.size > 1 else float("nan")
    return ErrorSummary(mean=float(arr.mean()), standard_error=se, repetitions=int(arr.size))


@dataclass(frozen=True, slots=True)
class SlopeFit:
    """A least-squares line through (log x, log y) with a bootstrap confidence interval.

    Attributes
    ----------
    slope, intercept : float
        log y ≈ intercept + slope · log x (natural logs).
    ci_low, ci_high : float
        Bootstrap percentile interval for the slope (nan if no bootstrap was run).
    confidence : float
        Its nominal coverage.
    points : int
        Number of x values fitted.
    """

    slope: float
    intercept: float
    ci_low: float
    ci_high: float
    confidence: float
    points: int

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the bootstrap interval."""
        return bool(self.ci_low <= value <= self.ci_high)


def _loglog(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise InvalidInputError(f"x and y must be 1-D of equal length, got {x.shape}, {y.shape}")
    if x.size < 2:
        raise InvalidInputError(f"a slope needs at least 2 points, got {x.size}")
    if not (np.all(np.isfinite(x)) and np.all(x > 0)):
        raise InvalidInputError(f"x must be finite and positive for a log-log fit, got {x}")
    if np.unique(x).size < 2:
        raise InvalidInputError(f"x must take at least two distinct values, got {x}")
    if not (np.all(np.isfinite(y)) and np.all(y > 0)):
        raise InvalidInputError(f"y must be finite and positive for a log-log fit, got {y}")
    return np.log(x), np.log(y)


def fit_loglog_slope(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray
) -> tuple[float, float]:
    """Ordinary least-squares slope and intercept of log y on log x.

    Exact on power laws: for y = c·x^b it returns (b, log c) up to rounding.

    Raises
    ------
    InvalidInputError
        If fewer than two distinct x, or any x or y is non-positive or non-finite.
    """
    lx, ly = _loglog(np.asarray(x), np.asarray(y))
    lx_c = lx - lx.mean()
    slope = float(np.dot(lx_c, ly - ly.mean()) / np.dot(lx_c, lx_c))
    return slope, float(ly.mean() - slope * lx.mean())


def bootstrap_loglog_slope(
    x: Sequence[float],
    errors: Sequence[np.ndarray],
    *,
    n_boot: int = 2000,
    confidence: float = 0.95,
    rng: np.random.Generator,
) -> SlopeFit:
    """Slope of log(mean error) on log x, with a within-cell bootstrap interval.

    Parameters
    ----------
    x : sequence of float, length P
        The design points (n values or ε values), positive.
    errors : sequence of P 1-D arrays
        Per-repetition absolute errors of each cell (lengths may differ between cells).
    n_boot : int
        Bootstrap replicates; each resamples every cell's repetitions with replacement,
        independently across cells, and refits the slope.
    confidence : float
        Coverage of the percentile interval, in (0, 1).
    rng : numpy.random.Generator
        Source of the resampling.

    Returns
    -------
    SlopeFit
    """
    if len(errors) != len(x):
        raise InvalidInputError(f"need one error array per x value, got {len(errors)} for {len(x)}")
    if not 0 < confidence < 1:
        raise InvalidParameterError(f"confidence must lie in (0, 1), got {confidence!r}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 1:
        raise InvalidParameterError(f"n_boot must be a positive integer, got {n_boot!r}")
    cells = [_check_errors(np.asarray(e), f"errors[{i}]") for i, e in enumerate(errors)]
    means = np.array([c.mean() for c in cells])
    slope, intercept = fit_loglog_slope(x, means)
    boot_means = np.empty((n_boot, len(cells)))
    for j, cell in enumerate(cells):
        idx = rng.integers(0, cell.size, size=(n_boot, cell.size))
        boot_means[:, j] = cell[idx].mean(axis=1)
    lx = np.log(np.asarray(x, dtype=float))
    lx_c = lx - lx.mean()
    with np.errstate(divide="ignore"):
        ly = np.log(boot_means)
    finite = np.all(np.isfinite(ly), axis=1)  # a resample of all-zero errors has no log
    boot_slopes = (ly[finite] - ly[finite].mean(axis=1, keepdims=True)) @ lx_c / np.dot(lx_c, lx_c)
    if boot_slopes.size == 0:
        lo = hi = float("nan")
    else:
        lo, hi = np.quantile(boot_slopes, [(1 - confidence) / 2, (1 + confidence) / 2])
    return SlopeFit(
        slope=slope,
        intercept=intercept,
        ci_low=float(lo),
        ci_high=float(hi),
        confidence=confidence,
        points=len(cells),
    )


def local_loglog_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares log-log slope of a deterministic curve sampled at ``x``.

    Used for the "exact-formula" prediction: the slope a measurement can be expected to
    show over the design range once lower-order terms are included.
    """
    return fit_loglog_slope(x, y)[0]
