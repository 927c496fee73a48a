"""Planning the event tests: predicted ε bounds and a weighted-Bonferroni split of α.

The event tests of one pair share α by weighted Bonferroni, which holds whatever the levels
α_i *provided they are fixed before the test data are seen*; this module fixes them from the
search split alone: :func:`wilson_lower` and :func:`wilson_upper` (cheap stand-ins for the
exact bounds), :func:`predicted_epsilon`, :func:`predicted_rate_ratio_epsilon` and
:func:`prefers_rate_ratio`, :func:`plan_events` (which events to test, at which levels, a
deterministic function of the search split) and :func:`equal_rate_prior`.

References: Wilson, JASA 1927; Holm, Scand. J. Statist. 1979; Ding et al., CCS 2018.
Details (how :func:`plan_events` decides): ``docs/engine_notes.md``,
"privaudit.statistics.allocation".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special

from privaudit.spec.errors import InvalidParameterError
from privaudit.statistics.rate_ratio import checked_poisson_means

__all__ = [
    "EventPlan",
    "equal_rate_prior",
    "plan_events",
    "predicted_epsilon",
    "predicted_rate_ratio_epsilon",
    "prefers_rate_ratio",
    "wilson_lower",
    "wilson_upper",
]

#: Posterior draws used by :func:`plan_events`.
REPLICATES = 128
#: Fixed seed of the planning draws.
_SEED = 0x9E3779B9


def _z(alpha: npt.ArrayLike) -> np.ndarray:
    return np.asarray(special.ndtri(1.0 - np.asarray(alpha, dtype=np.float64)))


def _wilson_centre_and_half_width(
    k: npt.ArrayLike, n: npt.ArrayLike, alpha: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """Centre and half-width of the one-sided Wilson-score interval at level ``alpha``."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    z = _z(alpha)
    z2 = z * z
    centre = (k + z2 / 2.0) / (n + z2)
    half = z * np.sqrt(np.maximum(k * (n - k) / n, 0.0) + z2 / 4.0) / (n + z2)
    return centre, half


def wilson_lower(k: npt.ArrayLike, n: npt.ArrayLike, alpha: npt.ArrayLike) -> np.ndarray:
    """One-sided Wilson-score lower bound (level ``alpha``); ``k`` may be fractional."""
    centre, half = _wilson_centre_and_half_width(k, n, alpha)
    return np.clip(centre - half, 0.0, 1.0)


def wilson_upper(k: npt.ArrayLike, n: npt.ArrayLike, alpha: npt.ArrayLike) -> np.ndarray:
    """One-sided Wilson-score upper bound (level ``alpha``); ``k`` may be fractional."""
    centre, half = _wilson_centre_and_half_width(k, n, alpha)
    return np.clip(centre + half, 0.0, 1.0)


def predicted_epsilon(
    p_x: npt.ArrayLike,
    p_y: npt.ArrayLike,
    n_x: int,
    n_y: int,
    *,
    alpha: npt.ArrayLike,
    delta: float = 0.0,
    rate_ratio: bool = False,
) -> np.ndarray:
    """ε lower bound expected from an event with probabilities (p_x, p_y).

    The bound of :func:`~privaudit.statistics.epsilon_lower_bound` at the expected
    counts p·n, with Wilson bounds in place of the exact ones (α/2 per side), clipped
    below at 0.  With ``rate_ratio`` (Poissonised test sizes of means n_x, n_y and a
    pure-DP claim, δ = 0), the larger of that and the predicted rate-ratio bound
    (:func:`predicted_rate_ratio_epsilon`): the test
    then uses, event by event, whichever bound is predicted larger.

    Examples
    --------
    >>> round(float(predicted_epsilon(0.5, 0.5 * np.exp(-0.1), 10**6, 10**6,
    ...                               alpha=0.05)), 3)
    0.096
    """
    a = np.asarray(alpha, dtype=np.float64) / 2.0
    lo = wilson_lower(np.asarray(p_x, dtype=np.float64) * n_x, n_x, a) - delta
    hi = wilson_upper(np.asarray(p_y, dtype=np.float64) * n_y, n_y, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(np.where(lo > 0, lo, 1.0)) - np.log(np.maximum(hi, 1e-300))
    eps = np.where(lo > 0, np.maximum(eps, 0.0), 0.0)
    if rate_ratio and delta == 0.0:
        eps = np.maximum(eps, predicted_rate_ratio_epsilon(p_x, p_y, n_x, n_y, alpha=alpha))
    return eps


def predicted_rate_ratio_epsilon(
    p_x: npt.ArrayLike,
    p_y: npt.ArrayLike,
    mean_x: npt.ArrayLike,
    mean_y: npt.ArrayLike,
    *,
    alpha: npt.ArrayLike,
) -> np.ndarray:
    """The rate-ratio ε bound expected from an event with probabilities (p_x, p_y).

    The bound at the expected counts λp, with a Wilson-score bound (one-sided, level
    α) in place of the exact binomial one — cheap, vectorised and accepting fractional
    counts, for planning which events to test (as
    :func:`~privaudit.statistics.allocation.predicted_epsilon` does for the classical
    bound).

    Examples
    --------
    >>> round(float(predicted_rate_ratio_epsilon(0.011, 0.01, 10**6, 10**6,
    ...                                          alpha=0.05)), 3)
    0.073
    """
    lx, ly = checked_poisson_means(mean_x, mean_y)
    kx = np.asarray(p_x, dtype=np.float64) * lx
    ky = np.asarray(p_y, dtype=np.float64) * ly
    total = kx + ky
    pi_low = wilson_lower(kx, np.maximum(total, 1e-300), alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_r = (
            np.log(np.maximum(pi_low, 1e-300))
            - np.log1p(-np.minimum(pi_low, 1 - 1e-16))
            + np.log(ly / lx)
        )
    return np.where((kx > 0) & (total > 0), np.maximum(log_r, 0.0), 0.0)


def prefers_rate_ratio(
    p_x: npt.ArrayLike, p_y: npt.ArrayLike, n_x: float, n_y: float, *, alpha: npt.ArrayLike
) -> np.ndarray:
    """Where the rate-ratio bound is predicted larger than the two-CP bound (pure DP).

    The choice the event test makes, per event, from estimates fixed before its test
    split is drawn (search counts or the declared law), so it costs no correction.

    Examples
    --------
    >>> bool(prefers_rate_ratio(0.011, 0.01, 10**6, 10**6, alpha=0.05))
    True
    """
    classical = predicted_epsilon(p_x, p_y, int(n_x), int(n_y), alpha=alpha)
    ratio = predicted_rate_ratio_epsilon(p_x, p_y, n_x, n_y, alpha=alpha)
    return np.asarray(ratio > classical)


def _wilson_draw(k: np.ndarray, n: np.ndarray, z: np.ndarray) -> np.ndarray:
    """A plausible proportion for k of n at standard-normal deviate z: the Wilson bound
    with signed z (an approximate posterior draw that stays in [0, 1] for small k)."""
    z2 = z * z
    centre = (k + z2 / 2.0) / (n + z2)
    half = z * np.sqrt(np.maximum(k * (n - k) / n, 0.0) + z2 / 4.0) / (n + z2)
    return np.clip(centre + half, 0.0, 1.0)


@dataclass(frozen=True)
class EventPlan:
    """The candidates to test (indices into the caller's list) and their levels."""

    chosen: tuple[int, ...]
    levels: tuple[float, ...]
    objective: float

    @property
    def total(self) -> float:
        """Σ α_i (at most the budget)."""
        return float(sum(self.levels))


def equal_rate_prior(
    count_a: npt.ArrayLike,
    n_a: npt.ArrayLike,
    count_b: npt.ArrayLike,
    n_b: npt.ArrayLike,
    prior_outputs: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Counts with ``prior_outputs`` pseudo-outputs in S at equal rates on both sides.

    Each side gets ``prior_outputs · n / (n_a + n_b)`` extra counts (its share of the
    pooled size), so the shrunk rate ratio lies between the observed one and 1.  An
    event counted thousands of times barely moves; one counted a handful of times —
    whose flat-prior posterior is so wide that a plan maximising the posterior mean of
    the best bound would buy it as a lottery ticket and split α with it — is pulled to
    "no evidence".  Only the plan sees the shrunk counts; the tests use the raw ones.

    Parameters
    ----------
    count_a, n_a, count_b, n_b : array_like
        Judging counts and sizes of the two sides (``count_a`` bounded from below).
    prior_outputs : float
        Total pseudo-outputs (≥ 0; 0 returns the counts unchanged, as floats).

    Returns
    -------
    count_a, count_b : numpy.ndarray
    """
    prior = float(prior_outputs)
    if not (prior >= 0.0 and np.isfinite(prior)):
        raise InvalidParameterError(f"prior_outputs must be finite and >= 0, got {prior_outputs!r}")
    a = np.asarray(count_a, dtype=np.float64)
    b = np.asarray(count_b, dtype=np.float64)
    na = np.asarray(n_a, dtype=np.float64)
    nb = np.asarray(n_b, dtype=np.float64)
    total = np.maximum(na + nb, 1.0)
    return a + prior * na / total, b + prior * nb / total


def plan_events(
    count_a: npt.ArrayLike,
    n_a: npt.ArrayLike,
    count_b: npt.ArrayLike,
    n_b: npt.ArrayLike,
    *,
    feature: npt.ArrayLike,
    budget: float,
    test_a: int,
    test_b: int,
    delta: float = 0.0,
    max_events: int = 16,
    replicates: int = REPLICATES,
    rate_ratio: bool = False,
) -> EventPlan:
    """Choose events and levels (Σ α_i = ``budget``) from search counts only.

    Parameters
    ----------
    count_a, n_a : arrays
        Search count and search size of each candidate on the side bounded from below.
    count_b, n_b : arrays
        The same on the side bounded from above.
    feature : array of int
        Candidates with the same id are thresholds of one feature (in one direction):
        their posteriors use common random numbers.
    budget : float
        The α shared by the tested events.
    test_a, test_b : int
        Test outputs per side.
    delta : float
        The δ of the ε bound.
    max_events : int
        Largest number of events tested.
    replicates : int
        Posterior draws.
    rate_ratio : bool
        The test may use the rate-ratio bound (Poissonised sizes, pure DP): predictions
        are the larger of the two bounds (:func:`predicted_epsilon`).

    Returns
    -------
    EventPlan
        ``chosen`` in the order the events were added (best first).
    """
    a = np.asarray(count_a, dtype=np.float64)
    b = np.asarray(count_b, dtype=np.float64)
    na = np.broadcast_to(np.asarray(n_a, dtype=np.float64), a.shape)
    nb = np.broadcast_to(np.asarray(n_b, dtype=np.float64), b.shape)
    fid = np.asarray(feature, dtype=np.int64)
    if not (0.0 < budget < 1.0):
        raise InvalidParameterError(f"budget must lie in (0, 1), got {budget!r}")
    m = a.size
    if m == 0:
        return EventPlan((), (), 0.0)
    kmax = max(1, min(int(max_events), m))
    rng = np.random.default_rng(_SEED)
    groups, gidx = np.unique(fid, return_inverse=True)
    zx = rng.standard_normal((replicates, groups.size))[:, gidx]
    zy = rng.standard_normal((replicates, groups.size))[:, gidx]
    px = _wilson_draw(a, na, zx)  # (R, m)
    py = _wilson_draw(b, nb, zy)
    # bound[k-1] : every candidate at level budget/k ; heavy[k-1]: at budget/(2(k-1))
    levels = budget / np.arange(1, kmax + 1)
    bound = predicted_epsilon(
        px[None],
        py[None],
        test_a,
        test_b,
        alpha=levels[:, None, None],
        delta=delta,
        rate_ratio=rate_ratio,
    )  # (K, R, m)
    half = predicted_epsilon(
        px, py, test_a, test_b, alpha=budget / 2.0, delta=delta, rate_ratio=rate_ratio
    )
    best_obj, best_plan = -1.0, EventPlan((), (), 0.0)
    chosen: list[int] = []
    free = np.ones(m, dtype=bool)
    for k in range(1, kmax + 1):
        cur = bound[k - 1]
        run = cur[:, chosen].max(axis=1) if chosen else np.full(cur.shape[0], -np.inf)
        gain = np.maximum(run[:, None], cur).mean(axis=0)
        gain[~free] = -np.inf
        pick = int(np.argmax(gain))
        chosen.append(pick)
        free[pick] = False
        obj = float(gain[pick])
        if obj > best_obj + 1e-12:
            best_obj = obj
            best_plan = EventPlan(tuple(chosen), tuple([budget / k] * k), obj)
        if k >= 2:
            rest = budget / (2.0 * (k - 1))
            rest_bound = predicted_epsilon(
                px[:, chosen[1:]],
                py[:, chosen[1:]],
                test_a,
                test_b,
                alpha=rest,
                delta=delta,
                rate_ratio=rate_ratio,
            )
            obj_h = float(np.maximum(half[:, chosen[0]], rest_bound.max(axis=1)).mean())
            if obj_h > best_obj + 1e-12:
                best_obj = obj_h
                best_plan = EventPlan(
                    tuple(chosen), tuple([budget / 2.0] + [rest] * (k - 1)), obj_h
                )
    return best_plan
