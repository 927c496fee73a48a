"""Inverse-sensitivity benchmark cases: correct controls and wrong path lengths.

Every case releases a quantile of n records in [0, 1] under substitute-one, claiming ε-DP
(Asi & Duchi, NeurIPS 2020).  On a public grid the law depends on the data only
through how many records fall in each cell (below, at or between grid points), so the
true ε is computed exactly by :func:`grid_true_epsilon`, which enumerates every multiset
of cells and every substitution.  Broken cases: the exponent ε·len (the /2 of the
exponential mechanism forgotten), the rank imbalance |#{x < g} − #{x > g}| used as the path
length (it moves by 2 under a substitution), and a continuous release that picks a piece
by exp(−ε len/2) alone, forgetting its width (an atom at the median: true ε = ∞).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable

import numpy as np

from privaudit.mechanisms import Mechanism, declare_mechanism
from privaudit.mechanisms.inverse_sensitivity import (
    ASI_DUCHI_2020,
    inverse_sensitivity_median_mechanism,
    quantile_path_intervals,
    quantile_rank,
)
from privaudit.spec import (
    DatasetDomain,
    FiniteOutputLaw,
    FiniteRandomizer,
    MechanismSpec,
    PureDP,
    RealInterval,
    SubstituteOne,
)
from privaudit.spec.errors import InvalidParameterError
from privaudit.suites._base import BenchmarkCase

__all__ = [
    "LogWeights",
    "grid_true_epsilon",
    "imbalance_log_weights",
    "inverse_sensitivity_log_weights",
    "robust_broken_cases",
    "robust_control_cases",
]

_SOURCE = (
    "Asi & Duchi, 'Instance-optimality in differential privacy via approximate inverse "
    "sensitivity mechanisms', NeurIPS 2020 (privaudit/suites/_robust_cases.py)"
)

#: Largest number of cell multisets :func:`grid_true_epsilon` enumerates.
MAX_STATES = 400_000

#: log weights of the grid points from (#{x < g_j}, #{x ≤ g_j}) arrays of shape (S, m).
LogWeights = Callable[[np.ndarray, np.ndarray], np.ndarray]


def inverse_sensitivity_log_weights(n: int, rank: int, epsilon: float, scale: float) -> LogWeights:
    """−scale·ε·len(x; g) with len = max(0, #{x < g} − k + 1, k − #{x ≤ g}).

    ``scale`` = 1/2 is the inverse-sensitivity mechanism; 1 forgets the /2.
    """

    def weights(below: np.ndarray, at_or_below: np.ndarray) -> np.ndarray:
        length = np.maximum(0, np.maximum(below - rank + 1, rank - at_or_below))
        return -scale * epsilon * length

    return weights


def imbalance_log_weights(n: int, epsilon: float) -> LogWeights:
    """−ε/2·|#{x < g} − #{x > g}|: the rank imbalance taken for the path length."""

    def weights(below: np.ndarray, at_or_below: np.ndarray) -> np.ndarray:
        return -0.5 * epsilon * np.abs(below - (n - at_or_below))

    return weights


def _cells(grid: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """One representative record per cell: the grid points, the midpoints between them and
    the parts of [lo, hi] outside the grid (when the grid does not reach lo or hi)."""
    reps = [grid, (grid[1:] + grid[:-1]) / 2.0]
    if grid[0] > lo:
        reps.append(np.array([lo]))
    if grid[-1] < hi:
        reps.append(np.array([hi]))
    return np.sort(np.concatenate(reps))


def _states(cells: int, n: int) -> np.ndarray:
    """Every vector of ``cells`` non-negative counts summing to n (stars and bars)."""
    total = math.comb(n + cells - 1, cells - 1)
    if total > MAX_STATES:
        raise InvalidParameterError(
            f"{total} multisets of {n} records over {cells} cells exceed {MAX_STATES}"
        )
    bars = np.array(list(itertools.combinations(range(n + cells - 1), cells - 1)), dtype=np.int64)
    bars = bars.reshape(-1, cells - 1)
    edges = np.concatenate(
        [np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), n + cells - 1)], axis=1
    )
    return np.diff(edges, axis=1) - 1


def grid_true_epsilon(
    n: int, grid: np.ndarray, lo: float, hi: float, log_weights: LogWeights
) -> tuple[float, tuple[np.ndarray, np.ndarray]]:
    """The exact ε of a grid release P(g) ∝ exp(log_weights) over every substitute-one pair.

    The law depends on x only through the counts of records per cell (:func:`_cells`), so
    every input is a multiset of cells and every substitution moves one record from one
    cell to another.  ε = max over ordered pairs and grid points of ln P_x(g) − ln P_y(g).

    Returns
    -------
    (epsilon, (x, y)) : float and a worst pair of datasets (representative records).
    """
    points = np.asarray(grid, dtype=np.float64)
    reps = _cells(points, lo, hi)
    counts = _states(reps.size, int(n))
    cum = np.cumsum(counts, axis=1)
    # #{x < g_j} and #{x ≤ g_j}: cells strictly below / at or below each grid point
    below_idx = np.searchsorted(reps, points, side="left")
    at_idx = np.searchsorted(reps, points, side="right")
    padded = np.concatenate([np.zeros((counts.shape[0], 1), dtype=np.int64), cum], axis=1)
    logw = log_weights(padded[:, below_idx], padded[:, at_idx])
    top = logw.max(axis=1, keepdims=True)
    logp = logw - top - np.log(np.exp(logw - top).sum(axis=1, keepdims=True))
    base = int(n) + 1
    powers = base ** np.arange(reps.size, dtype=np.int64)
    codes = counts @ powers
    order = np.argsort(codes)
    best, worst = -math.inf, (0, 0, 0)
    for u in range(reps.size):
        has = np.flatnonzero(counts[:, u] > 0)
        for v in range(reps.size):
            if u == v:
                continue
            target = codes[has] - powers[u] + powers[v]
            j = order[np.searchsorted(codes[order], target)]
            gap = (logp[has] - logp[j]).max(axis=1)
            i = int(np.argmax(gap))
            if gap[i] > best:
                best, worst = float(gap[i]), (int(has[i]), u, v)
    state, u, v = worst
    x = np.repeat(reps, counts[state])
    y = x.copy()
    y[int(np.flatnonzero(x == reps[u])[0])] = reps[v]  # the one record moved from u to v
    return best, (x, y)


@functools.lru_cache(maxsize=16)
def _median_case_epsilon(
    kind: str, n: int, m: int, epsilon: float
) -> tuple[float, tuple[np.ndarray, np.ndarray]]:
    """:func:`grid_true_epsilon` of a median case on ``m`` points of [0, 1] (cached: the
    enumeration takes seconds).  ``kind``: "correct", "no_half" or "imbalance"."""
    rank = quantile_rank(n, 0.5)
    weights = {
        "correct": lambda: inverse_sensitivity_log_weights(n, rank, epsilon, 0.5),
        "no_half": lambda: inverse_sensitivity_log_weights(n, rank, epsilon, 1.0),
        "imbalance": lambda: imbalance_log_weights(n, epsilon),
    }[kind]()
    eps, (x, y) = grid_true_epsilon(n, np.linspace(0.0, 1.0, m), 0.0, 1.0, weights)
    x.setflags(write=False)
    y.setflags(write=False)
    return eps, (x, y)


def _grid_median(
    n: int, m: int, epsilon: float, log_weights: LogWeights, name: str, summary: str
) -> Mechanism:
    """A median over ``m`` equally spaced points of [0, 1] with P(g) ∝ exp(log_weights),
    declared ε-DP (what the broken code claims)."""
    grid = np.linspace(0.0, 1.0, m)
    spec = MechanismSpec(
        name=name,
        summary=summary,
        references=(ASI_DUCHI_2020,),
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=n),
        relation=SubstituteOne(),
        statistic=f"median of {n} records in [0, 1]",
        noise=FiniteRandomizer(
            law=FiniteOutputLaw(alphabet=m, length=1, description=summary[:400])
        ),
        guarantee=PureDP(epsilon=epsilon),
    )
    below_pos = grid[None, :]

    def probabilities(x: np.ndarray) -> np.ndarray:
        values = np.asarray(x, dtype=np.float64)[:, None]
        below = (values < below_pos).sum(axis=0)[None, :]
        at_or_below = (values <= below_pos).sum(axis=0)[None, :]
        logw = log_weights(below, at_or_below)[0]
        w = np.exp(logw - logw.max())
        return (w / w.sum())[None, :]

    def sample(x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        cdf = np.cumsum(probabilities(x)[0])
        return np.minimum(np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right"), m - 1)

    return declare_mechanism(
        spec,
        sample,
        statistic=lambda x: float(np.sort(x)[(n - 1) // 2]),
        output_probabilities=probabilities,
    )


class _WidthlessMedian:
    """The continuous median that samples a piece by exp(−ε len/2) alone (no width)."""

    def __init__(self, n: int, epsilon: float) -> None:
        self.n, self.epsilon, self.rank = n, epsilon, quantile_rank(n, 0.5)

    def sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        lower, upper = quantile_path_intervals(np.sort(x), self.rank, 0.0, 1.0)
        left = np.concatenate([lower[1:], lower[:1], upper[:-1]])
        right = np.concatenate([lower[:-1], upper[:1], upper[1:]])
        cost = np.concatenate([np.arange(1, lower.size), [0], np.arange(1, upper.size)])
        w = np.exp(-0.5 * self.epsilon * cost)  # the bug: no factor right − left
        cdf = np.cumsum(w)
        piece = np.minimum(
            np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right"), w.size - 1
        )
        return left[piece] + rng.random(size) * (right[piece] - left[piece])


def _pair(n: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(0.05, 0.95, n)
    y = x.copy()
    y[(n - 1) // 2] = 0.97  # the median record moved to the top
    return x, y


def robust_control_cases(
    n: int = 11, m: int = 5, epsilon: float = 1.0
) -> tuple[BenchmarkCase, ...]:
    """Correct inverse-sensitivity medians: over a grid (true ε exact) and continuous.

    Returns
    -------
    tuple of BenchmarkCase
        ``robust.inverse_sensitivity_median_grid`` (true ε from :func:`grid_true_epsilon`)
        and ``robust.inverse_sensitivity_median_continuous`` (true ε ≤ ε: the exponential
        mechanism's bound, not shown tight).
    """
    grid_mech = inverse_sensitivity_median_mechanism(n, 0.0, 1.0, epsilon, grid=m)
    true_eps, worst = _median_case_epsilon("correct", n, m, float(epsilon))
    cont = inverse_sensitivity_median_mechanism(n, 0.0, 1.0, epsilon)
    return (
        BenchmarkCase(
            name="robust.inverse_sensitivity_median_grid",
            mechanism=grid_mech,
            true_epsilon=true_eps,
            claimed_epsilon=epsilon,
            input_pairs=(worst, _pair(n)),
            source=_SOURCE,
            notes=f"P(g) ∝ exp(−ε len/2) on {m} grid points; exact ε over every pair.",
        ),
        BenchmarkCase(
            name="robust.inverse_sensitivity_median_continuous",
            mechanism=cont,
            true_epsilon=epsilon,
            claimed_epsilon=epsilon,
            input_pairs=(_pair(n),),
            source=_SOURCE,
            notes="density ∝ exp(−ε len/2) on [0, 1]: ε-DP (exponential mechanism with a "
            "sensitivity-1 score); the bound ε is not shown tight.",
            true_epsilon_exact=False,
        ),
    )


def robust_broken_cases(n: int = 11, m: int = 5, epsilon: float = 1.0) -> tuple[BenchmarkCase, ...]:
    """Inverse sensitivity with a wrong path length or a wrong base measure, claiming ε-DP.

    Returns
    -------
    tuple of BenchmarkCase
        ``robust.inverse_sensitivity_no_half`` (exp(−ε len)),
        ``robust.inverse_sensitivity_imbalance_length`` (the imbalance for len), both with
        the exact true ε of :func:`grid_true_epsilon`, and
        ``robust.inverse_sensitivity_widthless`` (true ε = ∞).
    """
    rank = quantile_rank(n, 0.5)
    cases = []
    for name, kind, weights, summary in (
        (
            "robust.inverse_sensitivity_no_half",
            "no_half",
            inverse_sensitivity_log_weights(n, rank, epsilon, 1.0),
            "median over a grid with P(g) ∝ exp(−ε·len(x; g)): the /2 of the exponential "
            "mechanism forgotten",
        ),
        (
            "robust.inverse_sensitivity_imbalance_length",
            "imbalance",
            imbalance_log_weights(n, epsilon),
            "median over a grid with P(g) ∝ exp(−ε·|#{x<g} − #{x>g}|/2): the rank "
            "imbalance, which a substitution moves by 2, taken for the path length",
        ),
    ):
        true_eps, worst = _median_case_epsilon(kind, n, m, float(epsilon))
        mech = _grid_median(n, m, epsilon, weights, name, summary)
        cases.append(
            BenchmarkCase(
                name=name,
                mechanism=mech,
                true_epsilon=true_eps,
                claimed_epsilon=epsilon,
                input_pairs=(worst, _pair(n)),
                source=_SOURCE,
                notes=f"{summary}; exact ε over every pair of multisets of cells.",
            )
        )
    widthless = _WidthlessMedian(n, epsilon)
    honest = inverse_sensitivity_median_mechanism(n, 0.0, 1.0, epsilon).spec
    spec = MechanismSpec.model_validate(
        {**honest.model_dump(), "name": "robust.inverse_sensitivity_widthless"}
    )
    cases.append(
        BenchmarkCase(
            name="robust.inverse_sensitivity_widthless",
            mechanism=declare_mechanism(spec, widthless.sample),
            true_epsilon=math.inf,
            claimed_epsilon=epsilon,
            input_pairs=(_pair(n),),
            source=_SOURCE,
            notes="pieces chosen ∝ exp(−ε len/2) without their widths: the zero-width piece "
            "J_0 = {x_(k)} is an atom at the median, which a neighbour with another median "
            "never outputs, so ε = ∞.",
        )
    )
    return tuple(cases)
