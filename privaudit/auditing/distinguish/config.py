"""The options of a pair test (:class:`PairTestConfig`), checked once when built."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from privaudit.spec.errors import InvalidParameterError

__all__ = ["PLAN_PRIOR_OUTPUTS", "PairTestConfig"]

#: Pseudo-outputs at equal rates that the audit's final tests add to every candidate's
#: judging counts before planning the levels
#: (:func:`~privaudit.statistics.allocation.equal_rate_prior`), so that events counted a
#: handful of times on the search split do not take the level of the event that carries
#: the bound (``docs/derivations.md`` §11, "Why the shares are what they are").
PLAN_PRIOR_OUTPUTS = 50.0


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise InvalidParameterError(f"{what} must be an integer >= 1, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class PairTestConfig:
    """How :func:`~privaudit.auditing.distinguish.pair.distinguish_pair` tests a pair.

    Parameters
    ----------
    events_per_direction : int
        K (default 8): candidates kept per direction; at most 2K data-driven events.
    epsilon_grid : tuple of float, optional
        The ε values of the privacy-loss profile (default: 25 points from 0 to
        max(2ε_c, 1), plus the claimed ε_c).
    allocation : {"planned", "equal"}
        ``"planned"`` (default): the search split decides how many events to test and the
        level of each (:func:`~privaudit.statistics.allocation.plan_events`); ``"equal"``:
        2K events at α_search/(2K) each.
    chunk_rows : int, optional
        Test outputs held in memory at once (default: 2²⁰ numbers), rounded up to whole
        blocks; the result does not depend on it.
    declared : bool
        Plan events from the declared law when densities are declared (default).
    rare_events : bool
        Look for rare events of δ > 0 claims on the search split (default).
    prior_outputs : float
        Pseudo-outputs at equal rates added to the judging counts before the levels are
        planned (default 0; the audit's final tests use :data:`PLAN_PRIOR_OUTPUTS`).  Only
        the plan sees them: every event is tested on its raw counts.

    Raises
    ------
    InvalidParameterError
        If a value is out of range.
    """

    events_per_direction: int = 8
    epsilon_grid: tuple[float, ...] | None = None
    allocation: Literal["planned", "equal"] = "planned"
    chunk_rows: int | None = None
    declared: bool = True
    rare_events: bool = True
    prior_outputs: float = 0.0

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(
            self,
            "events_per_direction",
            _positive_int(self.events_per_direction, "events_per_direction"),
        )
        if self.allocation not in ("planned", "equal"):
            raise InvalidParameterError(
                f"allocation must be 'planned' or 'equal', got {self.allocation!r}"
            )
        if self.chunk_rows is not None:
            set_(self, "chunk_rows", _positive_int(self.chunk_rows, "chunk_rows"))
        if self.epsilon_grid is not None:
            grid = np.asarray(self.epsilon_grid, dtype=np.float64).ravel()
            if grid.size == 0 or not np.all(np.isfinite(grid) & (grid >= 0)):
                raise InvalidParameterError(
                    f"epsilon_grid must hold finite values >= 0, got {self.epsilon_grid!r}"
                )
            set_(self, "epsilon_grid", tuple(float(e) for e in grid))
        prior = float(self.prior_outputs)
        if not (prior >= 0.0 and np.isfinite(prior)):
            raise InvalidParameterError(
                f"prior_outputs must be finite and >= 0, got {self.prior_outputs!r}"
            )
        set_(self, "prior_outputs", prior)
        set_(self, "declared", bool(self.declared))
        set_(self, "rare_events", bool(self.rare_events))
