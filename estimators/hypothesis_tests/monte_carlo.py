"""Monte Carlo calibration of a private test statistic under a fully specified null.

The rule for every private hypothesis test of this package: when the null hypothesis
fixes the data's law completely (uniform on m cells, say), the null law of the *private*
statistic T — sampling error and privacy noise together — is known up to simulation, at
the data's own n.  Draw B independent copies T_1, …, T_B of T under the null (fresh
simulated data of size n, fresh privacy noise, the very same mechanism) and report the
Monte Carlo p-value

    p = (1 + #{b : T_b ≥ T}) / (B + 1).

Under the null, T, T_1, …, T_B are exchangeable, so P(p ≤ α) ≤ α for *every* B and every
α ∈ (0, 1) (Barnard, JRSS B 1963; Davison & Hinkley, *Bootstrap Methods and their
Application*, CUP 1997, §4.2.5): the Monte Carlo error is accounted for exactly, the test
is valid (conservative with ties) without asymptotics, and a larger B only adds power.
Rejecting when p ≤ α is the same as rejecting when T exceeds the (K + 1)-th largest
simulated value, K = ⌊α(B + 1)⌋ − 1 (``critical_value``; +∞ when K < 0, i.e. when B is
too small for any rejection at level α).

Privacy: the simulation uses only public quantities (n, the null law, the mechanism's
public parameters) and its own randomness; the data enter only through the private
statistic T, so the p-value and the decision are post-processing of T.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from privaudit.spec.errors import InvalidParameterError, ParameterTypeError, SampleSizeError

from ..ustatistics.concentration import check_failure_probability

__all__ = ["DEFAULT_SIMULATIONS", "MonteCarloNull", "monte_carlo_null"]

#: Default number B of null simulations: α(B + 1) = 20 at α = 0.1 and 10 at α = 0.05.
DEFAULT_SIMULATIONS = 199

Simulator = Callable[[np.random.Generator, int], Any]
"""``simulate(rng, size)``: ``size`` independent draws of the private statistic under the
null (fresh null data and fresh privacy noise for each), from ``rng``."""


@dataclass(frozen=True)
class MonteCarloNull:
    """The Monte Carlo p-value of a private statistic against its simulated null law.

    Attributes
    ----------
    simulations : int
        B, the number of null draws.
    exceedances : int
        #{b : T_b ≥ T}.
    p_value : float
        (1 + exceedances)/(B + 1), valid at every level for every B.
    alpha : float
        The level of the decision.
    critical_value : float
        Reject iff T > critical_value (the (K + 1)-th largest null draw,
        K = ⌊α(B + 1)⌋ − 1; +∞ when K < 0, −∞ when K ≥ B).
    reject : bool
        ``p_value <= alpha``.
    """

    simulations: int
    exceedances: int
    p_value: float
    alpha: float
    critical_value: float
    reject: bool


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterTypeError(f"{what} must be an integer >= 1, got {value!r}")
    if int(value) < 1:
        raise SampleSizeError(f"{what} must be an integer >= 1, got {value!r}")
    return int(value)


def monte_carlo_null(
    statistic: float,
    simulate: Simulator,
    *,
    alpha: float,
    simulations: int = DEFAULT_SIMULATIONS,
    rng: np.random.Generator,
) -> MonteCarloNull:
    """Calibrate ``statistic`` (large values reject) against ``simulations`` null draws.

    Parameters
    ----------
    statistic : float
        The observed private statistic T.
    simulate : callable
        ``simulate(rng, size)`` returns ``size`` independent draws of T under the null.
    alpha : float
        The level, in (0, 1).
    simulations : int
        B ≥ 1 (validity holds for every B; B + 1 should be a multiple of 1/α for the
        level to be attained exactly).
    rng : numpy.random.Generator
        The only source of randomness of the simulation.

    Returns
    -------
    MonteCarloNull

    Raises
    ------
    InvalidParameterError
        α ∉ (0, 1), B < 1, a non-finite statistic, or a simulator that does not return
        ``simulations`` finite numbers.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> null = monte_carlo_null(3.0, lambda g, b: g.standard_normal(b), alpha=0.05,
    ...                         simulations=199, rng=rng)
    >>> null.reject, null.p_value < 0.05
    (True, True)
    """
    a = check_failure_probability(alpha, "alpha")
    b = _count(simulations, "simulations")
    if (
        isinstance(statistic, bool)
        or not isinstance(statistic, numbers.Real)
        or not math.isfinite(float(statistic))
    ):
        raise InvalidParameterError(f"the statistic must be a finite number, got {statistic!r}")
    t = float(statistic)
    draws = np.asarray(simulate(rng, b), dtype=np.float64).reshape(-1)
    if draws.size != b or not np.all(np.isfinite(draws)):
        raise InvalidParameterError(
            f"the null simulator must return {b} finite numbers, got {draws.size} "
            f"({int(np.sum(~np.isfinite(draws)))} non-finite)"
        )
    exceed = int(np.count_nonzero(draws >= t))
    p = (1.0 + exceed) / (b + 1.0)
    k = math.floor(a * (b + 1) + 1e-9) - 1
    if k < 0:
        critical = math.inf
    elif k >= b:
        critical = -math.inf
    else:
        critical = float(np.sort(draws)[::-1][k])
    return MonteCarloNull(
        simulations=b,
        exceedances=exceed,
        p_value=p,
        alpha=a,
        critical_value=critical,
        reject=bool(p <= a + 1e-12),
    )
