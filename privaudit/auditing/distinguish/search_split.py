"""The search split seen through the declared law: its log-likelihood ratio and the loss on
a prefix of the split that tunes the profile's bets (:func:`score_search_split`).  The
search split only chooses events and levels; nothing on it is tested."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from privaudit.auditing.distinguish.densities import (
    DensityPair,
    declared_llr,
    declared_log_densities,
)
from privaudit.auditing.distinguish.events import LogLikelihoodRatio
from privaudit.auditing.distinguish.stopwatch import Stopwatch
from privaudit.auditing.pairs import CandidatePair
from privaudit.spec.errors import PrivauditError

__all__: list[str] = []

#: Search rows used to tune the profile's bets (a fixed prefix of the search split).
TUNE_ROWS = 1 << 16


@dataclass(frozen=True)
class SearchSplit:
    """The search split and the declared law's view of it.

    ``llr`` is the declared log-likelihood ratio (``None`` without declared densities,
    or when they cannot score the outputs), ``direct`` its direct form for additive
    noise of full support, and ``tune`` the loss on a prefix of the search split (the
    profile's bets).
    """

    sx: np.ndarray
    sy: np.ndarray
    densities: DensityPair | None
    direct: Any
    llr: LogLikelihoodRatio | None
    tune: tuple[np.ndarray, np.ndarray] | None


def score_search_split(
    mechanism: Any, pair: CandidatePair, sx: np.ndarray, sy: np.ndarray, clock: Stopwatch
) -> SearchSplit:
    """The declared law's view of the search split ``(sx, sy)`` (no law: ``densities`` and
    ``llr`` are ``None``)."""
    densities = declared_log_densities(mechanism, pair.x, pair.y)
    # additive noise of full support: a direct LLR on the differing coordinates, and no
    # output is impossible under either input (nothing for the support check to find)
    direct = declared_llr(mechanism, pair.x, pair.y) if densities is not None else None
    tune: tuple[np.ndarray, np.ndarray] | None = None
    llr = None
    if densities is not None:
        llr = LogLikelihoodRatio(
            densities.log_p_x,
            densities.log_p_y,
            direct=direct,
            round_direct=getattr(direct, "has_atoms", True),
        )
        try:
            tune = (llr(sx[:TUNE_ROWS]), llr(sy[:TUNE_ROWS]))
        except (PrivauditError, ValueError, TypeError, IndexError):
            densities = llr = direct = None  # outputs the declared law cannot even score
    clock.tick("densities")
    return SearchSplit(sx=sx, sy=sy, densities=densities, direct=direct, llr=llr, tune=tune)
