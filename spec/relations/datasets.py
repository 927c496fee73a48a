"""Neighbouring relations between datasets: substitute one record, add or remove one.

Both relations compare datasets as validated numpy arrays (see
:class:`spec.domains.DatasetDomain`) with vectorised numpy operations only; no Python
loop runs over the records.  Their adversarial neighbours and local-search moves (the
interface of :class:`~spec.relations.NeighbouringRelationBase`) are built by
:mod:`spec.relations._moves_datasets`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt

from .._random import RandomLike, as_generator
from ..domains import DatasetDomain
from ..errors import InvalidParameterError, UnsupportedCombinationError
from . import _moves_datasets as _moves
from ._base import AdversarialPair, LocalMoves, NeighbourDecision, NeighbouringRelationBase

__all__ = ["AddRemoveOne", "SubstituteOne"]

#: How many differing indices a decision's reason lists before "…".
_SHOWN_INDICES = 5


def _show_indices(indices: npt.NDArray[np.intp]) -> str:
    shown = ", ".join(str(int(i)) for i in indices[:_SHOWN_INDICES])
    return shown + (", …" if indices.size > _SHOWN_INDICES else "")


def _show_record(record: npt.NDArray[Any]) -> str:
    value = record.tolist()
    return repr(value)


def _records_differ(x: npt.NDArray[Any], y: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """Per position: does record ``x[i]`` differ from ``y[i]`` (vector records: any coordinate)."""
    unequal: npt.NDArray[np.bool_] = _moves.record_keys(x) != _moves.record_keys(y)
    if unequal.ndim == 1:
        return unequal
    return cast(npt.NDArray[np.bool_], unequal.any(axis=1))  # an array: ndim >= 2 here


def _multiset_counts(
    x: npt.NDArray[Any], y: npt.NDArray[Any]
) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Distinct records of ``x`` and ``y`` together, and how often each occurs in either."""
    together = np.concatenate([x, y], axis=0)
    _, first, inverse = np.unique(
        _moves.record_keys(together), axis=0, return_index=True, return_inverse=True
    )
    inverse = np.asarray(inverse).reshape(-1)
    distinct = together[first]
    k = distinct.shape[0]
    counts_x = np.bincount(inverse[: x.shape[0]], minlength=k)
    counts_y = np.bincount(inverse[x.shape[0] :], minlength=k)
    return distinct, counts_x, counts_y


class _DatasetRelation(NeighbouringRelationBase):
    """Shared checks of the dataset relations."""

    def _require_domain(self, domain: Any) -> DatasetDomain:
        if not self.supports_domain(domain):
            shown = domain.label() if hasattr(domain, "label") else repr(domain)
            raise UnsupportedCombinationError(f"{type(self).__name__} is not defined on {shown}")
        return cast(DatasetDomain, domain)  # supports_domain checks isinstance DatasetDomain

    def _validated_pair(
        self, x: Any, y: Any, domain: Any, validated: bool = False
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        """Both datasets validated against ``domain`` (as given when already ``validated``)."""
        return self._validated_inputs(self._require_domain(domain), x, y, validated)

    def _redraw(self, domain: Any, gen: Any) -> Any:
        """``x ↦`` a random neighbour of ``x`` drawn from ``gen``."""
        return lambda x: self.random_neighbour(x, domain, gen)


class SubstituteOne(_DatasetRelation):
    """Datasets of the same size that differ in at most one record, position by position.

    This is the "bounded" or replace-one relation.  The distance is the Hamming distance
    between the records in position (``inf`` when the sizes differ).  It is defined on
    every :class:`~spec.domains.DatasetDomain`; on a variable-size domain it relates
    datasets of equal size only.
    """

    kind: Literal["substitute_one"] = "substitute_one"

    def supports_domain(self, domain: Any) -> bool:
        """True for every :class:`~spec.domains.DatasetDomain`."""
        return isinstance(domain, DatasetDomain)

    def decide(self, x: Any, y: Any, domain: Any, *, validated: bool = False) -> NeighbourDecision:
        """Related iff equal sizes and at most one position holds different records.

        ``validated``: see :meth:`NeighbouringRelationBase.decide`.
        """
        a, b = self._validated_pair(x, y, domain, validated)
        if a.shape[0] != b.shape[0]:
            return NeighbourDecision(
                False,
                f"dataset sizes differ ({a.shape[0]} vs {b.shape[0]}); "
                "substitute-one relates datasets of equal size only",
                float("inf"),
            )
        differing = np.flatnonzero(_records_differ(a, b))
        count = int(differing.size)
        if count == 0:
            return NeighbourDecision(True, "datasets are identical", 0.0)
        if count == 1:
            i = int(differing[0])
            return NeighbourDecision(
                True,
                f"records differ at index {i} ({_show_record(a[i])} vs {_show_record(b[i])})",
                1.0,
            )
        return NeighbourDecision(
            False,
            f"records differ at {count} positions (indices {_show_indices(differing)})",
            float(count),
        )

    def random_neighbour(self, x: Any, domain: Any, rng: RandomLike) -> npt.NDArray[Any]:
        """Replace the record at a uniform random index by a different random record."""
        checked = self._require_domain(domain)
        data = checked.validate(x)
        gen = as_generator(rng)
        neighbour = data.copy()
        i = int(gen.integers(data.shape[0]))
        neighbour[i] = checked.record.sample_other(data[i], gen)
        return neighbour

    def neighbours(self, x: Any, domain: Any) -> Iterator[npt.NDArray[Any]]:
        """All ``n · (|record| − 1)`` substitutions, index by index.

        Raises
        ------
        UnsupportedCombinationError
            If the record domain is infinite.
        """
        checked = self._require_domain(domain)
        data = checked.validate(x)
        if not checked.record.is_finite:
            raise UnsupportedCombinationError(
                f"substitute-one neighbours over {checked.record.label()} are infinitely many"
            )
        records: list[npt.ArrayLike] = list(checked.record.enumerate())

        def generate() -> Iterator[npt.NDArray[Any]]:
            for i in range(data.shape[0]):
                for record in records:
                    if not np.array_equal(record, data[i]):
                        neighbour = data.copy()
                        neighbour[i] = record
                        yield neighbour

        return generate()

    # -- adversarial neighbours and moves (see NeighbouringRelationBase) --------------------
    def adversarial_pairs(
        self,
        domain: Any,
        rng: RandomLike = None,
        budget: int | None = None,
        *,
        claimed_sensitivity: float | None = None,
    ) -> Iterator[AdversarialPair]:
        """Record 0 and a middle record of each extreme dataset replaced by each record
        extreme (origin ``"extreme"``); deterministic, ``rng`` and the hints are unused."""
        return _moves.substitution_extremes(self._require_domain(domain))

    def extreme_neighbours(self, x: Any, domain: Any) -> Iterator[npt.NDArray[Any]]:
        """Every index (first occurrences of distinct records first) × every record extreme."""
        return _moves.substitution_neighbours(x, self._require_domain(domain))

    def group_pairs(
        self, domain: Any, k: int, positions: Sequence[int] | None = None
    ) -> list[tuple[Any, Any, str]]:
        """Pairs of datasets at substitution distance exactly ``k`` (group privacy).

        ``"low_to_high"``: the all-low dataset against the same with k records set to the
        high record extreme (the first k, or the k ``positions`` given: e.g. the records a
        weighted statistic weighs most); ``"high_to_low"`` the reverse.  Used by
        ``privaudit.audit(mech, group=k)``.

        Raises
        ------
        InvalidParameterError
            If ``k`` is not an integer in [1, n] (n the public size, or
            ``max(min_size, 4)`` for a variable-size domain), or ``positions`` are not k
            distinct indices in [0, n).
        """
        checked = self._require_domain(domain)
        n = checked._default_n()
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
            raise InvalidParameterError(f"group_pairs: k must be an integer in [1, {n}], got {k!r}")
        where = np.arange(int(k)) if positions is None else np.asarray(positions)
        if (
            where.shape != (int(k),)
            or where.dtype.kind not in "iu"
            or np.unique(where).size != int(k)
            or not ((where >= 0) & (where < n)).all()
        ):
            raise InvalidParameterError(
                f"group_pairs: positions must be {k} distinct indices in [0, {n}), got "
                f"{positions!r}"
            )
        low, high = checked.record.low_and_high()
        out = []
        for first, second, origin in ((low, high, "low_to_high"), (high, low, "high_to_low")):
            x = np.stack([first] * n)
            y = x.copy()
            y[where] = second
            if self.decide(x, y, checked).distance == k:
                out.append((x, y, origin))
        return out

    def local_moves(self, x: Any, y: Any, domain: Any, rng: RandomLike) -> LocalMoves:
        """Moves under substitution (see :mod:`spec.relations._moves_datasets`).

        ``mutate``: a random record of ``x`` becomes a record extreme, a fresh record or a
        nudge, and ``y`` takes the same record, unless the change hits the differing index:
        then ``y`` is kept or redrawn (1/2 each).  ``target``: the differing record of ``y``
        becomes a record extreme.  ``nudge``: the differing record moves to a new value, or
        to another index.
        """
        checked, gen = self._require_domain(domain), as_generator(rng)
        return LocalMoves(
            mutate=partial(_moves.mutated_substitution, checked, x, y, gen),
            target=partial(_moves.targeted_substitution, checked, x, y, gen),
            nudge=partial(
                _moves.nudged_substitution, checked, x, y, gen, self._redraw(checked, gen)
            ),
        )


class AddRemoveOne(_DatasetRelation):
    """Datasets whose sizes differ by one, the smaller being the larger less one record.

    This is the "unbounded" relation; datasets are compared as multisets of records
    (the order of records does not matter, so equal multisets are identical datasets at
    distance 0).  The distance is the size of the multiset symmetric difference.
    Defined on variable-size :class:`~spec.domains.DatasetDomain` (``size=None``) only:
    a public size contradicts adding or removing a record.
    """

    kind: Literal["add_remove_one"] = "add_remove_one"

    def supports_domain(self, domain: Any) -> bool:
        """True for a variable-size :class:`~spec.domains.DatasetDomain`."""
        return isinstance(domain, DatasetDomain) and domain.size is None

    def decide(self, x: Any, y: Any, domain: Any, *, validated: bool = False) -> NeighbourDecision:
        """Related iff the multiset symmetric difference has at most one record.

        ``validated``: see :meth:`NeighbouringRelationBase.decide`.
        """
        a, b = self._validated_pair(x, y, domain, validated)
        distinct, counts_a, counts_b = _multiset_counts(a, b)
        excess = counts_a - counts_b
        distance = int(np.abs(excess).sum())
        n_a, n_b = a.shape[0], b.shape[0]
        if distance == 0:
            return NeighbourDecision(True, "datasets hold the same multiset of records", 0.0)
        if distance == 1:
            k = int(np.flatnonzero(excess)[0])
            change = "removed" if excess[k] > 0 else "added"
            return NeighbourDecision(
                True,
                f"second dataset is the first with record {_show_record(distinct[k])} {change}",
                1.0,
            )
        if abs(n_a - n_b) != 1:
            reason = f"dataset sizes are {n_a} and {n_b}, which do not differ by exactly one"
        else:
            reason = (
                f"sizes differ by one ({n_a} vs {n_b}) "
                "but the smaller is not contained in the larger"
            )
        return NeighbourDecision(
            False,
            f"{reason}; multiset symmetric difference has {distance} records",
            float(distance),
        )

    def random_neighbour(self, x: Any, domain: Any, rng: RandomLike) -> npt.NDArray[Any]:
        """Remove a random record or insert a random one (probability 1/2 each).

        At ``n == min_size`` a record is always added.
        """
        checked = self._require_domain(domain)
        data = checked.validate(x)
        gen = as_generator(rng)
        n = data.shape[0]
        if n > checked.min_size and gen.random() < 0.5:
            return np.delete(data, int(gen.integers(n)), axis=0)
        record = np.asarray(checked.record.sample(gen), dtype=data.dtype)
        return np.insert(data, int(gen.integers(n + 1)), record, axis=0)

    def neighbours(self, x: Any, domain: Any) -> Iterator[npt.NDArray[Any]]:
        """Each distinct neighbour multiset once.

        One removal per distinct record of ``x``, one addition per record value.

        Additions append at the end; removals drop the first occurrence.  The count is
        ``(#distinct records of x if n > min_size else 0) + |record|``.

        Raises
        ------
        UnsupportedCombinationError
            If the record domain is infinite.
        """
        checked = self._require_domain(domain)
        data = checked.validate(x)
        if not checked.record.is_finite:
            raise UnsupportedCombinationError(
                f"add/remove-one neighbours over {checked.record.label()} are infinitely many"
            )
        records: list[npt.ArrayLike] = list(checked.record.enumerate())

        def generate() -> Iterator[npt.NDArray[Any]]:
            if data.shape[0] > checked.min_size:
                _, first_indices = np.unique(data, axis=0, return_index=True)
                for i in sorted(first_indices.tolist()):
                    yield np.delete(data, i, axis=0)
            for record in records:
                yield np.concatenate([data, np.asarray(record, dtype=data.dtype)[None]], axis=0)

        return generate()

    # -- adversarial neighbours and moves (see NeighbouringRelationBase) --------------------
    def adversarial_pairs(
        self,
        domain: Any,
        rng: RandomLike = None,
        budget: int | None = None,
        *,
        claimed_sensitivity: float | None = None,
    ) -> Iterator[AdversarialPair]:
        """Each extreme dataset with its first and last record removed, or a record extreme
        added (origin ``"extreme"``); deterministic, ``rng`` and the hints are unused."""
        return _moves.add_remove_extremes(self._require_domain(domain))

    def extreme_neighbours(self, x: Any, domain: Any) -> Iterator[npt.NDArray[Any]]:
        """Removal of each distinct record (above ``min_size``), then each record extreme added."""
        return _moves.add_remove_neighbours(x, self._require_domain(domain))

    def local_moves(self, x: Any, y: Any, domain: Any, rng: RandomLike) -> LocalMoves:
        """Moves under add/remove (see :mod:`spec.relations._moves_datasets`).

        ``mutate``: a random record of ``x`` changes, and the added record is re-added (or
        the removed one removed again).  ``target``: a record extreme is added to ``x``.
        ``nudge``: the added record changes, or another record is removed.
        """
        checked, gen = self._require_domain(domain), as_generator(rng)
        return LocalMoves(
            mutate=partial(_moves.mutated_add_remove, checked, x, y, gen),
            target=partial(_moves.targeted_addition, checked, x, gen),
            nudge=partial(_moves.nudged_add_remove, checked, x, y, gen, self._redraw(checked, gen)),
        )
