"""The lower bound of Chua et al. (ICML 2024, §4) on the privacy of one epoch of shuffling.

Pair (``docs/dpsgd_audit.md`` §2).  ``n = S·b`` examples, one epoch of ``S`` shuffled
batches of ``b``.  In ``x`` every record contributes ``−C`` except one, which contributes
``+C``; ``x'`` replaces that record by ``−C`` (a substitution).  Every batch of ``x'`` sums
to ``−bC``; in ``x`` the batch holding the special record sums to ``(2 − b)C``, and its
position is uniform over the ``S`` steps.  In units of ``C`` and after removing ``−b``:

    P = (1/S) Σ_t N(2 e_t, σ² I_S)   (from x),      Q = N(0, σ² I_S)   (from x').

The paper's test is the largest batch answer.  With ``M = max_t Y_t``,

    P[M ≥ τ] = 1 − Φ((τ − 2)/σ)·Φ(τ/σ)^{S−1},      Q[M ≥ τ] = 1 − Φ(τ/σ)^S,

and every τ gives a valid bound ``ε(δ) ≥ ln((P[M ≥ τ] − δ)/Q[M ≥ τ])``; the reverse
direction uses ``{M < τ}`` with the roles of P and Q swapped.  :func:`shuffle_lower_bound`
maximises over τ on a fine grid (a maximum over valid bounds is valid).  Only the pair
and the test are the paper's; the constants here are computed for the substitution pair
(shift ``2C``), which is the pair the auditor's relation proposes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr

from privaudit.spec.validation import check_delta, check_positive, check_sample_size

__all__ = ["ShuffleLowerBound", "shuffle_lower_bound"]


@dataclass(frozen=True)
class ShuffleLowerBound:
    """ε(δ) ≥ ``epsilon`` for one epoch of ``steps`` shuffled batches at noise multiplier σ.

    ``threshold`` is the τ of the event, ``direction`` ``"max>=tau"`` (P over Q) or
    ``"max<tau"`` (Q over P), and ``p_first`` / ``p_second`` the event's probabilities
    under the numerator's and the denominator's law.
    """

    epsilon: float
    delta: float
    sigma: float
    steps: int
    threshold: float
    direction: str
    p_first: float
    p_second: float


def shuffle_lower_bound(
    sigma: float, steps: int, delta: float, *, grid: int = 20001
) -> ShuffleLowerBound:
    """The max-batch-answer lower bound on ε(δ) of one epoch of ``steps`` shuffled batches.

    Parameters
    ----------
    sigma : float
        Noise multiplier σ.
    steps : int
        Batches in the epoch, ``S = n / b``.
    delta : float
        Target δ.
    grid : int
        Number of thresholds τ tried, evenly spaced on ``[−12σ, 2 + 12σ]``.

    Returns
    -------
    ShuffleLowerBound
    """
    s = check_positive(sigma, "sigma")
    k = check_sample_size(steps, what="steps")
    d = check_delta(delta)
    tau = np.linspace(-12.0 * s, 2.0 + 12.0 * s, check_sample_size(grid, minimum=3, what="grid"))
    log_qc = k * log_ndtr(tau / s)  # ln Q[M < τ]
    log_pc = log_ndtr((tau - 2.0) / s) + (k - 1) * log_ndtr(tau / s)  # ln P[M < τ]
    p_ge = -np.expm1(log_pc)
    q_ge = -np.expm1(log_qc)
    best = ShuffleLowerBound(0.0, d, s, k, math.nan, "none", math.nan, math.nan)
    for direction, num, den in (
        ("max>=tau", p_ge, q_ge),
        ("max<tau", np.exp(log_qc), np.exp(log_pc)),
    ):
        ok = (num > d) & (den > 0)
        if not ok.any():
            continue
        eps = np.full(tau.shape, -np.inf)
        eps[ok] = np.log(num[ok] - d) - np.log(den[ok])
        i = int(np.argmax(eps))
        if eps[i] > best.epsilon:
            best = ShuffleLowerBound(
                float(eps[i]), d, s, k, float(tau[i]), direction, float(num[i]), float(den[i])
            )
    return best
