"""Events planned from the declared law alone: LLR thresholds fixed before any sampling.

When the spec declares both output densities, :func:`declared_loss_law` computes the law of
the declared privacy loss L under M(x) and M(y) (:class:`LossLaw`), and
:func:`plan_declared_events` picks from it a main event {L ≥ t} or {L ≤ t} (the
Neyman–Pearson optimum for the claimed δ, weight :data:`MAIN_WEIGHT`) and a few hedges.
The events depend on the declared law, the pair and the sample size only, never on an
output, so the test may use every sample and (nearly) all of α.  The approximate laws only
steer the choice of thresholds, never a bound.

References: Neyman & Pearson 1933; Wasserman & Zhou, JASA 2010; Kairouz, Oh & Viswanath,
ICML 2015; Dong, Roth & Su, JRSS-B 2022; Holm 1979.  Details (how the law of L is
computed): ``docs/engine_notes.md``, "privaudit.auditing.distinguish.declared_plan".
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from privaudit.auditing.distinguish.densities import declared_tables
from privaudit.auditing.distinguish.events import (
    DiscreteCode,
    Event,
    Feature,
    ThresholdEvent,
    ValueSetEvent,
)
from privaudit.auditing.distinguish.product_loss import product_loss_law
from privaudit.spec import AdditiveNoise, SmoothSensitivityNoise
from privaudit.spec.errors import PrivauditError
from privaudit.statistics.allocation import predicted_epsilon, wilson_lower, wilson_upper

__all__ = [
    "HEDGE_FACTOR",
    "MAIN_WEIGHT",
    "DeclaredEvent",
    "DeclaredPlan",
    "LossLaw",
    "declared_loss_law",
    "plan_declared_events",
]

#: Share of the declared family's error budget spent on the main event.
MAIN_WEIGHT = 0.8
#: The main-direction hedges hold this many times more / less declared mass.
HEDGE_FACTOR = 4.0
#: Smallest tail probability resolved by the quadrature and integer grids.
_TAIL = 1e-15
#: Quadrature points per side: geometric in each tail, uniform in the middle.
_TAIL_POINTS = 1200
_MIDDLE_POINTS = 1024
#: Largest integer range enumerated exactly.
_MAX_INTEGERS = 1 << 20
#: Monte-Carlo draws per side, and their fixed seed (the plan is a function of the
#: declared law only).
_MC_DRAWS = 1 << 16
_MC_SEED = 0x5EED_D1CE
#: One-sided level of the conservative Monte-Carlo estimates (one standard error).
_MC_LEVEL = 0.16


@dataclass(frozen=True)
class LossLaw:
    """The declared law of the privacy loss L, as weighted support points.

    Attributes
    ----------
    values : numpy.ndarray
        Loss values, sorted (may repeat, may be ±inf).
    mass_x, mass_y : numpy.ndarray
        Declared probability of each point under M(x) and under M(y).
    method : str
        How the law was computed (``docs/engine_notes.md``,
        "privaudit.auditing.distinguish.declared_plan").
    outputs : numpy.ndarray, optional
        For laws with finitely many outputs: the output of each point (the planned
        events are then written as sets of output values).
    draws : int, optional
        For Monte-Carlo laws, the draws per side (the plan then ranks thresholds by
        one-standard-error conservative estimates, so that a tail point seen a handful
        of times on one side and never on the other is not mistaken for a great event).
    """

    values: np.ndarray = field(repr=False)
    mass_x: np.ndarray = field(repr=False)
    mass_y: np.ndarray = field(repr=False)
    method: str
    outputs: np.ndarray | None = field(default=None, repr=False)
    draws: int | None = None

    def tails(self) -> dict[str, np.ndarray]:
        """Distinct thresholds t and the declared P[L ≥ t], P[L ≤ t] on both sides."""
        v, mx, my = self.values, self.mass_x, self.mass_y
        thresholds, start = np.unique(v, return_index=True)
        end = np.append(start[1:], v.size) - 1
        suffix_x, suffix_y = np.cumsum(mx[::-1])[::-1], np.cumsum(my[::-1])[::-1]
        prefix_x, prefix_y = np.cumsum(mx), np.cumsum(my)
        return {
            "t": thresholds,
            "ge_x": suffix_x[start],
            "ge_y": suffix_y[start],
            "le_x": prefix_x[end],
            "le_y": prefix_y[end],
        }


@dataclass(frozen=True)
class DeclaredEvent:
    """One planned event: the region, its direction and weight, and what it predicts.

    ``p_lower_side`` is the declared probability of the event on the side bounded from
    below (M(x) for ``x_vs_y``, M(y) for ``y_vs_x``), ``p_upper_side`` on the other.
    """

    event: Event
    direction: str
    weight: float
    role: str
    p_lower_side: float
    p_upper_side: float
    predicted_epsilon: float


@dataclass(frozen=True)
class DeclaredPlan:
    """The planned family: events with weights summing to 1, and the law behind them."""

    events: tuple[DeclaredEvent, ...]
    law: LossLaw = field(repr=False)

    @property
    def predicted_epsilon(self) -> float:
        """The main event's predicted ε lower bound (0 without events)."""
        return self.events[0].predicted_epsilon if self.events else 0.0


# ----------------------------------------------------------------------------------------
# the declared law of the loss
# ----------------------------------------------------------------------------------------
def _finite_vector(value: Any, dim: int) -> np.ndarray | None:
    f = np.asarray(value, dtype=np.float64).reshape(-1)
    if f.size != dim or not np.all(np.isfinite(f)):
        return None
    return f


def _outputs(points: np.ndarray, base: np.ndarray, column: int) -> np.ndarray:
    """Outputs equal to ``base`` except in ``column``, which runs over ``points``."""
    if base.size == 1:
        return points
    out = np.tile(base, (points.size, 1))
    out[:, column] = points
    return out


def _from_cells(
    points: np.ndarray,
    mass_x: np.ndarray,
    mass_y: np.ndarray,
    llr: Feature,
    base: np.ndarray,
    column: int,
    method: str,
    finite: bool = False,
) -> LossLaw:
    loss = np.asarray(llr(_outputs(points, base, column)), dtype=np.float64)
    order = np.argsort(loss, kind="stable")
    return LossLaw(
        values=loss[order],
        mass_x=np.clip(mass_x[order], 0.0, None),
        mass_y=np.clip(mass_y[order], 0.0, None),
        method=method,
        outputs=points[order] if finite else None,
    )


def _cell_masses(law: Any, edges: np.ndarray, centre: float, scale: float) -> np.ndarray:
    """Masses of (−inf, e₀], (e₀, e₁], …, (e_last, inf) under centre + scale·Z."""
    z = (edges - centre) / scale
    cdf = np.asarray(law.cdf(z), dtype=np.float64)
    sf = np.asarray(law.sf(z), dtype=np.float64)
    inner = np.where(cdf[1:] <= 0.5, np.diff(cdf), -np.diff(sf))  # tail precision
    return np.concatenate([cdf[:1], inner, sf[-1:]])


@functools.lru_cache(maxsize=64)
def _quantile_points(law: Any) -> np.ndarray:
    """The law's quantiles at the fixed quadrature levels (cached per law: some laws'
    quantile functions iterate, and pair rankings evaluate many pairs of one law)."""
    tail = np.geomspace(_TAIL, 0.5, _TAIL_POINTS)
    u = np.unique(
        np.concatenate([tail, np.linspace(0.0, 1.0, _MIDDLE_POINTS + 1)[1:-1], 1.0 - tail])
    )
    z = np.asarray(law.ppf(u), dtype=np.float64)
    z.setflags(write=False)
    return z


def _continuous(
    law: Any,
    centres: tuple[float, float],
    scales: tuple[float, float],
    llr: Feature,
    base: np.ndarray,
    column: int,
) -> LossLaw:
    z = _quantile_points(law)
    edges = np.unique(np.concatenate([c + s * z for c, s in zip(centres, scales, strict=True)]))
    edges = edges[np.isfinite(edges)]
    reps = np.concatenate(
        [edges[:1], 0.5 * (edges[1:] + edges[:-1]), np.nextafter(edges[-1:], np.inf)]
    )
    mx = _cell_masses(law, edges, centres[0], scales[0])
    my = _cell_masses(law, edges, centres[1], scales[1])
    return _from_cells(
        reps,
        mx,
        my,
        llr,
        base,
        column,
        f"quadrature on {reps.size} cells of the declared output laws",
    )


def _integers(
    law: Any, centres: tuple[float, float], llr: Feature, base: np.ndarray, column: int
) -> LossLaw | None:
    lo_z, hi_z = (float(v) for v in law.ppf(np.array([_TAIL, 1.0 - _TAIL])))
    step = float(getattr(law, "granularity", 1.0))  # lattice laws live on step·ℤ
    lo = math.floor((min(centres) + lo_z) / step) - 1
    hi = math.ceil((max(centres) + hi_z) / step) + 1
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo > _MAX_INTEGERS:
        return None
    k = np.arange(lo, hi + 1, dtype=np.float64) * step
    mx = np.exp(np.asarray(law.log_density(k - centres[0]), dtype=np.float64))
    my = np.exp(np.asarray(law.log_density(k - centres[1]), dtype=np.float64))
    return _from_cells(
        k,
        mx,
        my,
        llr,
        base,
        column,
        f"exact on the {k.size} integers within {_TAIL:g} of both tails",
    )


def _monte_carlo(
    law: Any, fx: np.ndarray, fy: np.ndarray, differ: np.ndarray, llr: Feature
) -> LossLaw:
    gen = np.random.default_rng(_MC_SEED)
    losses = []
    for f in (fx, fy):
        noise = np.asarray(law.sample(gen, (_MC_DRAWS, differ.size)), dtype=np.float64)
        out = np.tile(f, (_MC_DRAWS, 1))
        out[:, differ] += noise
        losses.append(np.asarray(llr(out), dtype=np.float64))
    values = np.concatenate(losses)
    ones, zeros = np.full(_MC_DRAWS, 1.0 / _MC_DRAWS), np.zeros(_MC_DRAWS)
    order = np.argsort(values, kind="stable")
    return LossLaw(
        values=values[order],
        mass_x=np.concatenate([ones, zeros])[order],
        mass_y=np.concatenate([zeros, ones])[order],
        method=f"Monte Carlo from the declared law ({_MC_DRAWS} draws per side, "
        f"{differ.size} differing coordinates)",
        draws=_MC_DRAWS,
    )


def declared_loss_law(mechanism: Any, x: Any, y: Any, llr: Feature) -> LossLaw | None:
    """The declared law of L = ``llr`` under M(x) and M(y), or ``None``.

    Parameters
    ----------
    mechanism : Mechanism
        Its spec's noise and gray-box hooks determine the law.
    x, y : object
        The pair.
    llr : Feature
        The declared log-likelihood ratio used on test outputs (the same function, with
        the same rounding, is evaluated here on the support points).

    Returns
    -------
    LossLaw or None
        ``None`` when the declared law is not one of the cases listed in ``docs/engine_notes.md``
        (e.g. a point mass from a zero smooth sensitivity), or when f(x) = f(y) (the two
        declared laws coincide: no event can separate them).
    """
    noise = getattr(mechanism.spec, "noise", None)
    try:
        tables = declared_tables(mechanism, x, y)
        if tables is not None:
            cats = np.arange(tables[0].size)
            return _from_cells(
                cats,
                np.exp(tables[0]),
                np.exp(tables[1]),
                llr,
                np.zeros(1),
                0,
                f"exact on the {cats.size} outputs of the declared law",
                finite=True,
            )
        product = product_loss_law(mechanism, x, y)
        # finite product law (only from a declared noise): exact by convolution
        if product is not None and noise is not None:
            return LossLaw(
                values=product[0],
                mass_x=product[1],
                mass_y=product[2],
                method=f"exact convolution over the {noise.law.length} "
                f"coordinates of the declared product law "
                f"({product[0].size} loss values)",
            )
        if isinstance(noise, AdditiveNoise) and mechanism.provides("statistic"):
            dim = int(mechanism.spec.output_dimension)
            fx = _finite_vector(mechanism.statistic(x), dim)
            fy = _finite_vector(mechanism.statistic(y), dim)
            if fx is None or fy is None:
                return None
            differ = np.flatnonzero(fx != fy)
            if differ.size == 0:
                return None
            law = noise.law
            if differ.size > 1:
                return _monte_carlo(law, fx, fy, differ, llr)
            j = int(differ[0])
            centres = (float(fx[j]), float(fy[j]))
            if law.is_discrete:
                return _integers(law, centres, llr, fx, j)
            return _continuous(law, centres, (1.0, 1.0), llr, fx, j)
        if (
            isinstance(noise, SmoothSensitivityNoise)
            and mechanism.provides("statistic")
            and mechanism.provides("smooth_sensitivity")
        ):
            a = float(noise.alpha)
            fx_s = float(np.asarray(mechanism.statistic(x), dtype=np.float64).reshape(()))
            fy_s = float(np.asarray(mechanism.statistic(y), dtype=np.float64).reshape(()))
            sx = float(mechanism.smooth_sensitivity(x)) / a
            sy = float(mechanism.smooth_sensitivity(y)) / a
            if not all(math.isfinite(v) for v in (fx_s, fy_s, sx, sy)) or min(sx, sy) <= 0:
                return None
            if fx_s == fy_s and sx == sy:
                return None
            return _continuous(noise.law, (fx_s, fy_s), (sx, sy), llr, np.zeros(1), 0)
    except (PrivauditError, NotImplementedError, ValueError, TypeError, IndexError):
        return None
    return None


# ----------------------------------------------------------------------------------------
# the plan
# ----------------------------------------------------------------------------------------
def _nearest(mass: np.ndarray, target: float, usable: np.ndarray) -> int | None:
    ok = np.flatnonzero(usable & (mass > 0))
    if ok.size == 0 or not target > 0:
        return None
    return int(ok[np.argmin(np.abs(np.log(mass[ok]) - math.log(target)))])


def plan_declared_events(
    law: LossLaw,
    llr: Feature,
    *,
    delta: float,
    samples: int,
    alpha: float,
    main_weight: float = MAIN_WEIGHT,
    rate_ratio: bool = False,
) -> DeclaredPlan:
    """The main event and hedges for a test with ``samples`` outputs per side.

    Parameters
    ----------
    law : LossLaw
        The declared law of L (:func:`declared_loss_law`).
    llr : Feature
        The loss as a feature of the output (the events threshold it).
    delta : float
        The claimed δ at which ε is bounded.
    samples : int
        Test outputs per side.
    alpha : float
        The family's error budget; the main event is chosen for level
        ``main_weight · alpha``.
    main_weight : float
        The main event's share (the hedges share the rest; without hedges it gets all).
    rate_ratio : bool
        The test may bound each event with the rate-ratio bound (Poissonised test
        sizes, pure claim): thresholds are chosen by the larger predicted bound.

    Returns
    -------
    DeclaredPlan
        Main event first; weights sum to 1.  No events when no threshold predicts a
        positive bound (e.g. two declared laws too close for ``samples``).
    """
    tails = law.tails()
    t = tails["t"]
    level = main_weight * alpha
    sides: dict[str, tuple[np.ndarray, np.ndarray, Literal["ge", "le"]]] = {
        "x_vs_y": (tails["ge_x"], tails["ge_y"], "ge"),
        "y_vs_x": (tails["le_y"], tails["le_x"], "le"),
    }
    best: dict[str, tuple[int, float]] = {}
    predicted: dict[str, np.ndarray] = {}
    for direction, (lo, hi, _side) in sides.items():
        lo_c, hi_c = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
        if law.draws is not None:  # Monte Carlo: one-standard-error estimates
            lo_c = wilson_lower(lo_c * law.draws, law.draws, _MC_LEVEL)
            hi_c = wilson_upper(hi_c * law.draws, law.draws, _MC_LEVEL)
        pred = np.asarray(
            predicted_epsilon(
                lo_c, hi_c, samples, samples, alpha=level, delta=delta, rate_ratio=rate_ratio
            )
        )
        predicted[direction] = pred
        # ties: the event with more mass on the lower-bounded side (fewer small counts)
        i = int(np.lexsort((-lo, -pred))[0])
        best[direction] = (i, float(pred[i]))
    main_dir = max(best, key=lambda d: (best[d][1], d == "x_vs_y"))
    if best[main_dir][1] <= 0.0:
        return DeclaredPlan(events=(), law=law)
    other_dir = "y_vs_x" if main_dir == "x_vs_y" else "x_vs_y"
    i_main = best[main_dir][0]
    lo_main = sides[main_dir][0]
    usable = predicted[main_dir] > 0
    picks: list[tuple[str, int, str]] = [(main_dir, i_main, "main")]
    if best[other_dir][1] > 0:
        picks.append((other_dir, best[other_dir][0], "other direction"))
    for factor, role in ((HEDGE_FACTOR, "wider"), (1.0 / HEDGE_FACTOR, "narrower")):
        target = float(lo_main[i_main]) * factor
        j = _nearest(lo_main, target, usable)
        # only a genuinely different mass (at least half way to the target, on its side)
        if (
            j is not None
            and j != i_main
            and abs(math.log(lo_main[j] / lo_main[i_main])) >= 0.5 * math.log(HEDGE_FACTOR)
        ):
            picks.append((main_dir, j, role))
    # the central split {L ≥ 0} (or {L ≤ 0}): far from the tails, so it still separates an
    # implementation whose noise is much smaller than declared (whose outputs never reach
    # the tail events above)
    if sides[main_dir][2] == "ge":
        central = np.flatnonzero(t >= 0.0)
        j_c = int(central[0]) if central.size else None
    else:
        central = np.flatnonzero(t <= 0.0)
        j_c = int(central[-1]) if central.size else None
    if j_c is not None and predicted[main_dir][j_c] > 0:
        picks.append((main_dir, j_c, "central"))
    seen: set[tuple[str, int]] = set()
    unique = []
    for p in picks:
        if (p[0], p[1]) not in seen:
            seen.add((p[0], p[1]))
            unique.append(p)
    hedges = len(unique) - 1
    weights = [1.0] if hedges == 0 else [main_weight] + [(1.0 - main_weight) / hedges] * hedges
    code = None
    if law.outputs is not None:
        code = DiscreteCode(columns=(np.unique(law.outputs).astype(np.int64),))
    events = []
    for (direction, i, role), w in zip(unique, weights, strict=True):
        lo, hi, side = sides[direction]
        region: Event = ThresholdEvent(
            feature=llr,
            threshold=float(t[i]) + 0.0,  # no −0
            side=side,
        )
        if code is not None and law.outputs is not None:
            # finitely many outputs: the same event, written as its set of values
            inside = law.values >= t[i] if side == "ge" else law.values <= t[i]
            members = np.searchsorted(code.columns[0], law.outputs[inside].astype(np.int64))
            region = ValueSetEvent(feature=code, members=tuple(int(c) for c in members))
        events.append(
            DeclaredEvent(
                event=region,
                direction=direction,
                weight=w,
                role=role,
                p_lower_side=float(lo[i]),
                p_upper_side=float(hi[i]),
                predicted_epsilon=float(predicted[direction][i]),
            )
        )
    return DeclaredPlan(events=tuple(events), law=law)
