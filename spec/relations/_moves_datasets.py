"""The adversarial neighbours and local-search moves of the dataset relations.

Helpers of :class:`~spec.relations.SubstituteOne` and :class:`~spec.relations.AddRemoveOne`
(:mod:`spec.relations.datasets`): pair anatomy (where two datasets differ), the patterns
built from the domain's extremes, and the moves of the auditor's hill climbing.  Datasets
are validated numpy arrays, records along axis 0.  Every random choice is drawn from the
``gen`` argument, in a fixed order, so a seeded search is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from ..domains import DatasetDomain
from ._base import AdversarialPair

__all__ = [
    "add_remove_extremes",
    "add_remove_neighbours",
    "added_or_removed_record",
    "appended",
    "differing_index",
    "distinct_first_indices",
    "mutated_add_remove",
    "mutated_substitution",
    "nudged_add_remove",
    "nudged_substitution",
    "record_keys",
    "substitution_extremes",
    "substitution_neighbours",
    "targeted_addition",
    "targeted_substitution",
]

_Redraw = Callable[[Any], Any]


# ----------------------------------------------------------------------------------------
# the anatomy of a pair of datasets
# ----------------------------------------------------------------------------------------
def record_keys(data: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Records as exact keys: float records by their bits with every NaN one key, so that a
    missing record equals a missing record (domains admitting NaN); others as they are."""
    if data.dtype.kind != "f":
        return data
    canonical = np.where(np.isnan(data), np.nan, data).astype(np.float64) + 0.0
    return canonical.view(np.int64)


def differing_index(x: npt.NDArray[Any], y: npt.NDArray[Any]) -> int | None:
    """The first position where two equal-size datasets hold different records."""
    if x.shape != y.shape:
        return None
    unequal = record_keys(x) != record_keys(y)
    if unequal.ndim > 1:
        unequal = unequal.any(axis=tuple(range(1, unequal.ndim)))
    positions = np.flatnonzero(unequal)
    return int(positions[0]) if positions.size else None


def added_or_removed_record(
    x: npt.NDArray[Any], y: npt.NDArray[Any]
) -> tuple[str, npt.NDArray[Any]] | None:
    """``("added", r)`` when ``y`` is ``x`` plus record ``r``, ``("removed", r)`` when minus.

    ``None`` when the sizes do not differ by one or the multisets do not nest.
    """
    if abs(x.shape[0] - y.shape[0]) != 1:
        return None
    big, small, change = (y, x, "added") if y.shape[0] > x.shape[0] else (x, y, "removed")
    together = np.concatenate([big, small], axis=0)
    _, first, inverse = np.unique(
        record_keys(together), axis=0, return_index=True, return_inverse=True
    )
    inverse = np.asarray(inverse).reshape(-1)
    counts_big = np.bincount(inverse[: big.shape[0]], minlength=first.shape[0])
    counts_small = np.bincount(inverse[big.shape[0] :], minlength=first.shape[0])
    excess = counts_big - counts_small
    if (excess < 0).any() or int(excess.sum()) != 1:
        return None
    return change, together[int(first[int(np.flatnonzero(excess)[0])])]


def appended(data: npt.NDArray[Any], record: Any) -> npt.NDArray[Any]:
    """``data`` with ``record`` added as its last row."""
    return np.concatenate([data, np.asarray(record, dtype=data.dtype)[None]], axis=0)


def _first_index_of(data: npt.NDArray[Any], record: Any) -> int | None:
    matches = record_keys(data) == record_keys(np.asarray(record, dtype=data.dtype))
    if matches.ndim > 1:
        matches = matches.all(axis=1)
    found = np.flatnonzero(matches)
    return int(found[0]) if found.size else None


def distinct_first_indices(data: npt.NDArray[Any]) -> list[int]:
    """Every index, those holding a record's first occurrence first (in order of index)."""
    _, first = np.unique(record_keys(data), axis=0, return_index=True)
    leading = sorted(int(i) for i in first)
    chosen = set(leading)
    return leading + [i for i in range(data.shape[0]) if i not in chosen]


# ----------------------------------------------------------------------------------------
# adversarial pairs and extreme neighbours
# ----------------------------------------------------------------------------------------
def substitution_extremes(domain: DatasetDomain) -> Iterator[AdversarialPair]:
    """Record 0 and a middle record of each extreme dataset replaced by each record extreme."""
    for x in domain.extremes():
        for i in dict.fromkeys([0, x.shape[0] // 2]):
            for record in domain.record.extremes():
                y = x.copy()
                y[i] = record
                yield x, y, "extreme"


def add_remove_extremes(domain: DatasetDomain) -> Iterator[AdversarialPair]:
    """Each extreme dataset with its first and last record removed, or an extreme added."""
    for x in domain.extremes():
        if x.shape[0] > domain.min_size:
            for i in dict.fromkeys([0, x.shape[0] - 1]):
                yield x, np.delete(x, i, axis=0), "extreme"
        for record in domain.record.extremes():
            yield x, np.concatenate([x, np.asarray(record, dtype=x.dtype)[None]]), "extreme"


def substitution_neighbours(x: npt.NDArray[Any], domain: DatasetDomain) -> Iterator[Any]:
    """Every index (first occurrences of distinct records first) × every record extreme."""
    for i in distinct_first_indices(x):
        for record in domain.record.extremes():
            y = x.copy()
            y[i] = record
            yield y


def add_remove_neighbours(x: npt.NDArray[Any], domain: DatasetDomain) -> Iterator[Any]:
    """Removal of each distinct record (above ``min_size``), then addition of each extreme."""
    if x.shape[0] > domain.min_size:
        _, first = np.unique(record_keys(x), axis=0, return_index=True)
        for i in sorted(int(k) for k in first):
            yield np.delete(x, i, axis=0)
    for record in domain.record.extremes():
        yield appended(x, record)


# ----------------------------------------------------------------------------------------
# local-search moves
# ----------------------------------------------------------------------------------------
def _mutated_record(
    domain: DatasetDomain, x: npt.NDArray[Any], gen: np.random.Generator
) -> tuple[int, Any, npt.NDArray[Any]]:
    """A random index ``i``, its new record, and ``x`` with record ``i`` replaced."""
    i = int(gen.integers(x.shape[0]))
    record = domain.record.perturbed(x[i], gen)
    new_x = x.copy()
    new_x[i] = record
    return i, record, new_x


def mutated_substitution(
    domain: DatasetDomain, x: Any, y: Any, gen: np.random.Generator
) -> tuple[Any, Any | None]:
    """One record of ``x`` perturbed; ``y`` takes the same record.

    When the change hits the differing index, ``y`` is kept (only the values at that
    index move) or redrawn (``None``), with probability 1/2 each.
    """
    i, record, new_x = _mutated_record(domain, x, gen)
    d = differing_index(x, y)
    if d is None or (d == i and gen.random() < 0.5):
        return new_x, None
    if d == i:
        return new_x, y
    new_y = y.copy()
    new_y[i] = record
    return new_x, new_y


def mutated_add_remove(
    domain: DatasetDomain, x: Any, y: Any, gen: np.random.Generator
) -> tuple[Any, Any | None]:
    """One record of ``x`` perturbed; the added record re-added, or the removed one removed."""
    _, _, new_x = _mutated_record(domain, x, gen)
    change = added_or_removed_record(x, y)
    if change is None:
        return new_x, None
    kind, changed = change
    if kind == "added":
        return new_x, appended(new_x, changed)
    position = _first_index_of(x, changed)
    return new_x, (None if position is None else np.delete(new_x, position, axis=0))


def targeted_substitution(domain: DatasetDomain, x: Any, y: Any, gen: np.random.Generator) -> Any:
    """The differing record of ``y`` (a random one when ``x == y``) set to a record extreme."""
    d = differing_index(x, y)
    d = int(gen.integers(x.shape[0])) if d is None else d
    new_y = x.copy()
    new_y[d] = domain.record.random_extreme(gen)
    return new_y


def targeted_addition(domain: DatasetDomain, x: Any, gen: np.random.Generator) -> Any:
    """``x`` with a random record extreme added."""
    return appended(x, domain.record.random_extreme(gen))


def nudged_substitution(
    domain: DatasetDomain, x: Any, y: Any, gen: np.random.Generator, redraw: _Redraw
) -> Any:
    """The differing record moves to a new value, or to another index (1/2 each).

    ``redraw(x)`` gives a random neighbour when ``x == y``.
    """
    d = differing_index(x, y)
    if d is None:
        return redraw(x)
    new_y = x.copy()
    if gen.random() < 0.5:
        new_y[d] = domain.record.perturbed(y[d], gen)
    else:
        new_y[int(gen.integers(x.shape[0]))] = y[d]
    return new_y


def nudged_add_remove(
    domain: DatasetDomain, x: Any, y: Any, gen: np.random.Generator, redraw: _Redraw
) -> Any:
    """The added record changes, or another record is removed.

    ``redraw(x)`` gives a random neighbour when ``(x, y)`` is not an add/remove pair.
    """
    change = added_or_removed_record(x, y)
    if change is None:
        return redraw(x)
    kind, record = change
    if kind == "added":
        return appended(x, domain.record.perturbed(record, gen))
    return np.delete(x, int(gen.integers(x.shape[0])), axis=0)
