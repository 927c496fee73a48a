"""Helpers shared by the checks: hooks, norms, memoised evaluation, outcome builders.

Nothing here draws random numbers.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Iterable
from typing import Any

import networkx as nx
import numpy as np

from privaudit.auditing.outcome.results import (
    CheckOutcome,
    jsonable_details,
    pair_counterexample,
)
from privaudit.auditing.pairs import CandidatePair, to_jsonable, verified_pair
from privaudit.spec import MechanismSpec
from privaudit.spec.errors import AuditError, InvalidInputError, InvalidParameterError

__all__ = [
    "REL_TOL",
    "CachedFunction",
    "as_pairs",
    "check_count",
    "difference_norm",
    "exceeds",
    "finite_ratio",
    "input_key",
    "is_required_skip",
    "missing_hooks",
    "neighbour_pair",
    "pair_counterexample",
    "required_skip",
    "skipped",
]

#: Relative slack for floating-point round-off when a measured quantity is compared with a
#: claim (the same slack :mod:`spec.mechanism_spec` allows): a claim c is violated by an
#: observed value v only when v > c · (1 + REL_TOL).
REL_TOL = 1e-9

#: Largest number of memoised values a :class:`CachedFunction` keeps before starting over.
_CACHE_CAPACITY = 50_000


def check_count(value: Any, name: str, minimum: int) -> int:
    """``value`` as an int ≥ ``minimum`` (booleans refused), else :class:`InvalidParameterError`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < minimum:
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def missing_hooks(mechanism: Any, hooks: Iterable[str]) -> list[str]:
    """The gray-box hooks among ``hooks`` that ``mechanism`` does not provide."""
    return [h for h in hooks if not mechanism.provides(h)]


def difference_norm(a: Any, b: Any, norm: str) -> float:
    """‖a − b‖ in ``norm`` (``"l1"``, ``"l2"`` or ``"linf"``) for scalars or vectors.

    Raises
    ------
    AuditError
        If the two values do not have the same number of coordinates.
    """
    u = np.asarray(a, dtype=np.float64).ravel()
    v = np.asarray(b, dtype=np.float64).ravel()
    if u.shape != v.shape:
        raise AuditError(
            f"statistic values of different shapes cannot be compared: {u.shape} vs {v.shape}"
        )
    d = np.abs(u - v)
    if d.size == 0:
        return 0.0
    if norm == "l1":
        return float(d.sum())
    if norm == "l2":
        return float(np.sqrt(np.sum(d * d)))
    if norm == "linf":
        return float(d.max())
    raise AuditError(f"unknown norm {norm!r}; expected 'l1', 'l2' or 'linf'")


def exceeds(observed: float, claimed: float) -> bool:
    """True when ``observed > claimed · (1 + REL_TOL)`` (NaN never exceeds)."""
    return bool(observed > claimed * (1.0 + REL_TOL))


def finite_ratio(num: float, den: float) -> float:
    """``num / den`` with 0/0 = 0 and x/0 = inf for x > 0."""
    if den > 0:
        return num / den
    return 0.0 if num <= 0 else math.inf


def input_key(x: Any) -> Hashable:
    """A hashable key identifying a validated input by content (arrays, scalars, graphs)."""
    if isinstance(x, nx.Graph):
        edges = frozenset((min(u, v), max(u, v)) for u, v in x.edges())
        return ("graph", x.number_of_nodes(), edges)
    if isinstance(x, (np.ndarray, np.generic)):
        arr = np.ascontiguousarray(x)
        return ("array", arr.dtype.str, arr.shape, arr.tobytes())
    if isinstance(x, (int, float, str, bytes, bool)) or x is None:
        return ("plain", type(x).__name__, x)
    return ("repr", repr(to_jsonable(x)))


class CachedFunction:
    """A function of one input, memoised by content, counting its real evaluations.

    Parameters
    ----------
    fn : callable
        The function (a gray-box hook such as ``mechanism.statistic``).

    Attributes
    ----------
    evaluations : int
        Number of calls that reached ``fn`` (cache hits are free).
    """

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self._fn = fn
        self._cache: dict[Hashable, Any] = {}
        self.evaluations = 0

    def __call__(self, x: Any) -> Any:
        key = input_key(x)
        if key in self._cache:
            return self._cache[key]
        value = self._fn(x)
        self.evaluations += 1
        if len(self._cache) >= _CACHE_CAPACITY:
            self._cache.clear()
        self._cache[key] = value
        return value


def as_pairs(spec: MechanismSpec, pairs: Iterable[Any]) -> list[CandidatePair]:
    """Verified pairs from CandidatePairs (re-verified) or ``(x, y)`` tuples (origin "explicit").

    Raises
    ------
    NotNeighboursError, InvalidInputError
        If an item is not a pair of neighbours of the spec's domain.
    """
    out: list[CandidatePair] = []
    for i, item in enumerate(pairs):
        if isinstance(item, CandidatePair):
            out.append(item)
            continue
        try:
            x, y = item
        except (TypeError, ValueError):
            raise AuditError(
                f"pair {i} must be a CandidatePair or an (x, y) tuple, got {type(item).__name__}"
            ) from None
        out.append(verified_pair(spec, x, y, "explicit"))
    return out


def neighbour_pair(spec: MechanismSpec, x: Any, y: Any, origin: str) -> CandidatePair | None:
    """A verified pair of *distinct* neighbours, or ``None`` when ``(x, y)`` is not one."""
    try:
        pair = verified_pair(spec, x, y, origin)
    except InvalidInputError:
        return None
    return pair if pair.decision.distance > 0 else None


def skipped(name: str, reason: str, **details: Any) -> CheckOutcome:
    """A ``skipped`` outcome whose summary is the reason."""
    return CheckOutcome(
        name=name,
        status="skipped",
        summary=reason,
        details=jsonable_details(reason=reason, **details),
    )


def required_skip(name: str, reason: str, remedy: str, **details: Any) -> CheckOutcome:
    """A ``skipped`` outcome of a check the claim *requires*: the audit cannot conclude.

    The auditor turns a verdict that would be ``"no_violation"`` into ``"inconclusive"``
    when such an outcome is present (:func:`privaudit.auditing.outcome.verdicts.decide_verdict`),
    and the
    report states ``reason`` and ``remedy`` (what would make the audit conclusive).
    """
    return CheckOutcome(
        name=name,
        status="skipped",
        summary=f"{reason}; REQUIRED for a conclusive audit: {remedy}",
        details=jsonable_details(reason=reason, required=True, remedy=remedy, **details),
    )


def is_required_skip(outcome: CheckOutcome) -> bool:
    """True for an outcome made by :func:`required_skip`."""
    return outcome.status == "skipped" and outcome.details.get("required") is True
