"""ε lower bounds and profile-violation margins from the counts of one event.

From the counts of one event S on n_x outputs of M(x) and n_y of M(y), exact
Clopper–Pearson bounds (each at α/2) give :func:`epsilon_lower_bound`, ε_lb =
ln((p̲_x − δ)/p̄_y), never capped, and :func:`violation_margin`, max over an ε grid of
p̲_x − e^ε p̄_y − δ_claim(ε).  Both bounds hold together, so checking a whole claimed curve
costs no correction beyond the one paid for the event.

References: Clopper & Pearson 1934; Wasserman & Zhou, JASA 2010; Kairouz, Oh & Viswanath,
ICML 2015; Bichsel et al., IEEE S&P 2021; Lokna et al., ACM CCS 2023.  Details:
``docs/engine_notes.md``, "privaudit.statistics.epsilon_bounds".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from privaudit.spec import check_alpha, check_delta
from privaudit.spec.errors import InvalidParameterError
from privaudit.statistics.clopper_pearson import cp_lower, cp_upper

__all__ = [
    "DEFAULT_REPORT_DELTA",
    "claimed_point",
    "default_margin_grid",
    "epsilon_lower_bound",
    "violation_margin",
]

#: The δ at which ε lower bounds are reported for guarantees without a δ of their own
#: (Rényi, zero-concentrated and Gaussian DP); their claimed ε is ``epsilon_for_delta`` of it.
DEFAULT_REPORT_DELTA = 1e-6

#: Number of points of the fine ε grid used by :func:`violation_margin` by default.
_GRID_POINTS = 257


def _finish(a: np.ndarray) -> Any:
    return a[()] if a.ndim == 0 else a


def epsilon_lower_bound(
    count_x: npt.ArrayLike,
    n_x: npt.ArrayLike,
    count_y: npt.ArrayLike,
    n_y: npt.ArrayLike,
    *,
    alpha: float,
    delta: float = 0.0,
) -> Any:
    """Lower confidence bound on ε from the counts of one event S, vectorised.

    Parameters
    ----------
    count_x, n_x : int or array of int
        Outputs of M(x) that fell in S, out of n_x.
    count_y, n_y : int or array of int
        Outputs of M(y) that fell in S, out of n_y.
    alpha : float
        Error probability of this event's bound, in (0, 1); split α/2 for the lower
        bound on p_x and α/2 for the upper bound on p_y.
    delta : float
        The δ at which ε is bounded, in [0, 1).

    Returns
    -------
    float or numpy.ndarray
        ``ln((cp_lower(count_x, n_x, α/2) − δ) / cp_upper(count_y, n_y, α/2))``, clipped
        below at 0, and 0 wherever the numerator is ≤ 0 (no evidence).  Never capped
        above; always finite, because the CP upper bound is > 0 even for count_y = 0
        (it is then 1 − (α/2)^{1/n_y} ≈ ln(2/α)/n_y, which is exactly how events with
        tiny p_y certify large ε).

    Notes
    -----
    With probability ≥ 1 − α (over the draws), p_x ≥ p̲_x and p_y ≤ p̄_y; any
    mechanism that is (ε, δ)-DP on (x, y) has p_x ≤ e^ε p_y + δ, so
    ε ≥ ln((p̲_x − δ)/p̄_y) (Wasserman & Zhou 2010; Kairouz, Oh & Viswanath 2015).

    References
    ----------
    .. [1] Clopper & Pearson, Biometrika 1934.
    .. [2] Kairouz, Oh & Viswanath, ICML 2015.

    Examples
    --------
    >>> round(float(epsilon_lower_bound(5000, 10000, 1840, 10000, alpha=0.05)), 3)
    0.939
    >>> float(epsilon_lower_bound(0, 100, 50, 100, alpha=0.05))
    0.0
    """
    a = check_alpha(alpha)
    d = check_delta(delta)
    lower = np.asarray(cp_lower(count_x, n_x, a / 2.0), dtype=np.float64)
    upper = np.asarray(cp_upper(count_y, n_y, a / 2.0), dtype=np.float64)
    numerator = lower - d
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(np.where(numerator > 0.0, numerator, 1.0)) - np.log(upper)
    return _finish(np.where(numerator > 0.0, np.maximum(eps, 0.0), 0.0))


def claimed_point(guarantee: Any) -> tuple[float, float]:
    """The (ε, δ) point of a claim at which ε lower bounds are reported.

    The one rule for it: the auditor, the exact audit, reports, certificates and their
    consistency check all quote this point.  Pure ε-DP → (ε, 0); (ε, δ)-DP → (ε, δ);
    Rényi, zero-concentrated and Gaussian DP → (``epsilon_for_delta(δ*)``, δ*) with
    δ* = :data:`DEFAULT_REPORT_DELTA` (the audit itself tests their whole curve).

    Examples
    --------
    >>> from privaudit.spec import ApproxDP
    >>> claimed_point(ApproxDP(epsilon=1.0, delta=1e-5))
    (1.0, 1e-05)
    """
    kind = getattr(guarantee, "kind", None)
    if kind == "pure_dp":
        return float(guarantee.epsilon), 0.0
    if kind == "approx_dp":
        return float(guarantee.epsilon), float(guarantee.delta)
    if hasattr(guarantee, "epsilon_for_delta"):
        return float(guarantee.epsilon_for_delta(DEFAULT_REPORT_DELTA)), DEFAULT_REPORT_DELTA
    raise InvalidParameterError(f"not a privacy guarantee: {guarantee!r}")


def _profile_on(claimed_profile: Any, grid: np.ndarray) -> np.ndarray:
    if hasattr(claimed_profile, "privacy_profile"):
        values = claimed_profile.privacy_profile(grid)
    elif hasattr(claimed_profile, "delta_for_epsilon"):
        values = [claimed_profile.delta_for_epsilon(float(e)) for e in grid]
    elif callable(claimed_profile):
        values = [claimed_profile(float(e)) for e in grid]
    else:
        raise InvalidParameterError(
            f"claimed_profile must be a guarantee or a callable delta(epsilon), got "
            f"{claimed_profile!r}"
        )
    return np.asarray(values, dtype=np.float64).reshape(grid.shape)


def default_margin_grid(
    p_x_lower: npt.ArrayLike,
    p_y_upper: npt.ArrayLike,
    claimed_epsilon: float | None = None,
    points: int = _GRID_POINTS,
) -> np.ndarray:
    """A fine ε grid on [0, ε_top] plus the claimed ε.

    ε_top = max(claimed ε, max ln(p̲_x/p̄_y)): above it p̲_x − e^ε p̄_y < 0 ≤ δ(ε), so no
    larger ε can show a violation.
    """
    px = np.atleast_1d(np.asarray(p_x_lower, dtype=np.float64))
    py = np.atleast_1d(np.asarray(p_y_upper, dtype=np.float64))
    px, py = np.broadcast_arrays(px, py)
    ok = (px > 0) & (py > 0)
    top = 0.0
    if ok.any():
        top = float(np.max(np.log(px[ok]) - np.log(py[ok])))
    if claimed_epsilon is not None and math.isfinite(claimed_epsilon):
        top = max(top, float(claimed_epsilon))
    top = max(top, 0.0)
    grid = np.linspace(0.0, top, points) if top > 0 else np.zeros(1)
    if claimed_epsilon is not None and math.isfinite(claimed_epsilon):
        grid = np.append(grid, float(claimed_epsilon))
    return np.unique(grid)


def violation_margin(
    p_x_lower: npt.ArrayLike,
    p_y_upper: npt.ArrayLike,
    claimed_profile: Any,
    eps_grid: npt.ArrayLike | None = None,
    *,
    return_epsilon: bool = False,
) -> Any:
    """How far one event's CP bounds go beyond a claimed privacy profile.

    Parameters
    ----------
    p_x_lower, p_y_upper : float or array
        The event's lower bound on P[M(x) ∈ S] and upper bound on P[M(y) ∈ S] (arrays
        broadcast: one margin per event).
    claimed_profile : PrivacyGuarantee or callable
        The claim: an object with ``delta_for_epsilon`` (any :mod:`spec.guarantees`
        guarantee) or a callable ε ↦ δ(ε).
    eps_grid : array, optional
        The ε values to check (each ≥ 0).  Default: the claimed ε (when the claim has
        one) and a fine grid of 257 points on [0, ε_top] (see :func:`default_margin_grid`).
        Precomputing the grid once and passing it avoids re-evaluating δ_claim.
    return_epsilon : bool
        Also return the ε at which the margin is attained.

    Returns
    -------
    margin : float or numpy.ndarray
        max over the grid of ``p̲_x − e^ε p̄_y − δ_claim(ε)``.  > 0 means the event
        refutes the claim (at the confidence of its CP bounds).
    epsilon : float or numpy.ndarray
        Only with ``return_epsilon``.

    Notes
    -----
    For a **pure** ε₀-DP claim the margin is simply ``p̲_x − e^{ε₀} p̄_y`` (the grid is
    not used), so "violated" is exactly "ε_lb at δ = 0 exceeds ε₀".  (The pure claim also
    implies the Kairouz–Oh–Viswanath profile below ε₀ on symmetric relations, which could
    be checked too; we keep the verdict identical to the ε comparison.)

    The CP bounds of one event hold simultaneously for every ε, so checking the whole
    claimed curve costs no extra multiple-testing correction (Lokna et al. 2023's
    "group" idea).

    References
    ----------
    .. [1] Kairouz, Oh & Viswanath, ICML 2015.
    .. [2] Lokna, Paradis, Dimitrov & Vechev, CCS 2023.

    Examples
    --------
    >>> from privaudit.spec import PureDP
    >>> round(float(violation_margin(0.5, 0.1, PureDP(epsilon=1.0))), 4)
    0.2282
    """
    px = np.asarray(p_x_lower, dtype=np.float64)
    py = np.asarray(p_y_upper, dtype=np.float64)
    px_b, py_b = np.broadcast_arrays(px, py)
    if getattr(claimed_profile, "kind", None) == "pure_dp":
        e0 = float(claimed_profile.epsilon)
        margin = px_b - np.exp(e0) * py_b
        if return_epsilon:
            return _finish(np.asarray(margin)), _finish(np.full(margin.shape, e0))
        return _finish(np.asarray(margin))
    claimed_eps = getattr(claimed_profile, "epsilon", None)
    claimed_eps = float(claimed_eps) if isinstance(claimed_eps, (int, float)) else None
    if eps_grid is None:
        grid = default_margin_grid(px_b, py_b, claimed_eps)
    else:
        grid = np.atleast_1d(np.asarray(eps_grid, dtype=np.float64))
        if grid.size == 0 or np.any(~(grid >= 0)):
            raise InvalidParameterError(
                f"eps_grid must be non-empty with values >= 0, got {grid!r}"
            )
    delta_claim = _profile_on(claimed_profile, grid)
    with np.errstate(over="ignore", invalid="ignore"):
        values = px_b[..., None] - np.exp(grid) * py_b[..., None] - delta_claim
    values = np.where(np.isnan(values), -np.inf, values)
    best = np.argmax(values, axis=-1)
    margin = np.take_along_axis(values, best[..., None], axis=-1)[..., 0]
    if return_epsilon:
        return _finish(np.asarray(margin)), _finish(np.asarray(grid[best]))
    return _finish(np.asarray(margin))
