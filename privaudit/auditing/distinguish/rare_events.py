"""Rare events for (ε, δ) claims: atoms, spikes, unsupported outputs and excess mass.

A rare branch (the raw statistic, or a value the declared law cannot produce, released with
small probability p) breaks an (ε, δ) claim once p clearly exceeds δ, yet hides in the
sampling error of events shaped by the declared law.  :func:`find_rare_events` looks for
atoms, neighbourhoods of the statistic, empirical excess over the declared density and
outputs outside the declared support, on the **search split only**, and keeps a candidate
only when its plug-in margin is positive.

References: Lokna, Paradis, Dimitrov & Vechev, ACM CCS 2023; Lu et al., IEEE S&P 2024; Nasr
et al., IEEE S&P 2021; Kulldorff 1997.  Details: ``docs/engine_notes.md``,
"privaudit.auditing.distinguish.rare_events".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from privaudit.auditing.distinguish.densities import DensityPair
from privaudit.spec import AdditiveNoise

__all__ = [
    "EVIDENCE",
    "MAX_ATOMS",
    "MAX_EVENTS",
    "ExactValues",
    "ImpossibleUnder",
    "Intervals",
    "Neighbourhood",
    "RareCandidate",
    "disjoint",
    "find_rare_events",
]

#: Poisson tail probability below which a search count is taken as evidence of mass the
#: declared law does not explain (a selection threshold only: it decides which events
#: are tested, never the verdict).
EVIDENCE = 1e-4
#: Rare events returned per pair: the best of each direction (the caller pools the two
#: when they are disjoint, :mod:`privaudit.statistics.pooled`, or tests the best alone).
MAX_EVENTS = 2
#: Most atom values kept in one atom event (the most repeated first).
MAX_ATOMS = 64
#: Smallest search distances to f tried as neighbourhood radii.
_RADII = 128
#: Window widths of the excess scan, as fractions of the declared law's scale.
_WIDTHS = tuple(10.0**-k for k in range(1, 10))


# ----------------------------------------------------------------------------------------
# events
# ----------------------------------------------------------------------------------------
def _scalar(outputs: np.ndarray) -> np.ndarray:
    o = np.asarray(outputs)
    if o.ndim == 2 and o.shape[1] == 1:
        o = o[:, 0]
    return o


@dataclass(frozen=True, eq=False)
class ExactValues:
    """S = {o ∈ values} for scalar outputs (exact float equality)."""

    values: np.ndarray = field(repr=False)
    description: str = ""

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        o = _scalar(outputs)
        if o.ndim != 1:
            return np.zeros(o.shape[0], dtype=bool)
        return np.isin(o, self.values)


@dataclass(frozen=True, eq=False)
class Neighbourhood:
    """S = {o : max_j |o_j − centre_j| ≤ radius} (a closed ℓ∞ ball)."""

    centre: np.ndarray = field(repr=False)
    radius: float
    description: str = ""

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        o = np.asarray(outputs, dtype=np.float64)
        o = o.reshape(o.shape[0], -1)
        with np.errstate(invalid="ignore"):
            dist = np.max(np.abs(o - self.centre.reshape(1, -1)), axis=1)
        return dist <= self.radius


@dataclass(frozen=True, eq=False)
class Intervals:
    """S = ∪_i [low_i, high_i] for scalar outputs."""

    low: np.ndarray = field(repr=False)
    high: np.ndarray = field(repr=False)
    description: str = ""

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        o = np.asarray(_scalar(outputs), dtype=np.float64)
        hit = np.zeros(o.shape[0], dtype=bool)
        for lo, hi in zip(self.low, self.high, strict=True):
            hit |= (o >= lo) & (o <= hi)
        return hit


@dataclass(frozen=True, eq=False)
class ImpossibleUnder:
    """S = {o : log p(o) = −inf} for the declared density p of one input."""

    log_density: Any = field(repr=False)
    description: str = ""

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.isneginf(np.asarray(self.log_density(outputs), dtype=np.float64))


@dataclass(frozen=True)
class RareCandidate:
    """A rare event chosen on the search split.

    Attributes
    ----------
    event : Event
        The region S.
    direction : {"x_vs_y", "y_vs_x"}
        ``x_vs_y``: S where M(x) is likelier (the side bounded from below is x).
    family : str
        ``"atoms"``, ``"neighbourhood"``, ``"excess"`` or ``"support"``.
    search_lower, search_upper : int
        Search counts on the side bounded from below and on the other side.
    declared_expected : float
        The count the declared law allows on the lower side (NaN when not computed).
    """

    event: Any
    direction: str
    family: str
    search_lower: int
    search_upper: int
    declared_expected: float = math.nan


# ----------------------------------------------------------------------------------------
# search
# ----------------------------------------------------------------------------------------
def _poisson_tail(count: np.ndarray | float, mean: np.ndarray | float) -> np.ndarray:
    """P[Poisson(mean) ≥ count]."""
    return stats.poisson.sf(np.asarray(count) - 1, np.maximum(np.asarray(mean), 1e-300))


def _plugin_margin(
    lower: np.ndarray | float, upper: np.ndarray | float, n_s: int, epsilon: float, delta: float
) -> np.ndarray:
    """count_lo − e^ε count_hi − δ n on the search split (positive: worth testing)."""
    return (
        np.asarray(lower, dtype=np.float64)
        - math.exp(epsilon) * np.asarray(upper, dtype=np.float64)
        - delta * n_s
    )


def _z_margin(
    lower: np.ndarray | float, upper: np.ndarray | float, n_s: int, epsilon: float, delta: float
) -> np.ndarray:
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    e = math.exp(epsilon)
    return _plugin_margin(lo, hi, n_s, epsilon, delta) / np.sqrt(lo + e * e * hi + 1.0)


def _continuous_law(spec: Any) -> Any:
    noise = getattr(spec, "noise", None)
    if isinstance(noise, AdditiveNoise) and not noise.law.is_discrete:
        return noise.law
    return None


def _max_density(law: Any) -> float:
    grid = np.concatenate([[0.0], np.asarray(law.ppf(np.linspace(0.001, 0.999, 999)))])
    return float(np.max(law.density(grid)))


def _atoms(
    lo: np.ndarray, hi: np.ndarray, direction: str, n_s: int, epsilon: float, delta: float
) -> RareCandidate | None:
    values, counts = np.unique(lo, return_counts=True)
    tied = counts >= 2
    if not tied.any():
        return None
    values, counts = values[tied], counts[tied]
    in_hi = np.searchsorted(np.sort(hi), values, side="right") - np.searchsorted(
        np.sort(hi), values, side="left"
    )
    keep = counts > in_hi
    if not keep.any():
        return None
    values, counts, in_hi = values[keep], counts[keep], in_hi[keep]
    order = np.argsort(-counts, kind="stable")[:MAX_ATOMS]
    values, counts, in_hi = values[order], counts[order], in_hi[order]
    lower, upper = int(counts.sum()), int(in_hi.sum())
    if _plugin_margin(lower, upper, n_s, epsilon, delta) <= 0:
        return None
    shown = ", ".join(f"{v:.10g}" for v in np.sort(values)[:4])
    more = f", … ({values.size} values)" if values.size > 4 else ""
    return RareCandidate(
        event=ExactValues(np.sort(values), f"atoms: output in {{{shown}{more}}}"),
        direction=direction,
        family="atoms",
        search_lower=lower,
        search_upper=upper,
        declared_expected=0.0,
    )


def _neighbourhood(
    lo: np.ndarray,
    hi: np.ndarray,
    centre: np.ndarray,
    other: np.ndarray,
    law: Any,
    direction: str,
    n_s: int,
    epsilon: float,
    delta: float,
) -> RareCandidate | None:
    lo2 = np.asarray(lo, dtype=np.float64).reshape(lo.shape[0], -1)
    hi2 = np.asarray(hi, dtype=np.float64).reshape(hi.shape[0], -1)
    c = np.asarray(centre, dtype=np.float64).reshape(1, -1)
    if c.shape[1] != lo2.shape[1]:
        return None
    with np.errstate(invalid="ignore"):
        d_lo = np.max(np.abs(lo2 - c), axis=1)
        d_hi = np.sort(np.max(np.abs(hi2 - c), axis=1))
    d_lo = d_lo[np.isfinite(d_lo)]
    if d_lo.size == 0:
        return None
    m = min(_RADII, d_lo.size)
    radii = np.unique(np.partition(d_lo, m - 1)[:m])
    lower = np.searchsorted(np.sort(d_lo), radii, side="right")
    upper = np.searchsorted(d_hi, radii, side="right")
    dim = lo2.shape[1]
    # declared count within r of f on the lower side: n·(F(r) − F(−r))^d
    mass = np.clip(np.asarray(law.cdf(radii)) - np.asarray(law.cdf(-radii)), 0.0, 1.0) ** dim
    expected = n_s * mass
    evidence = _poisson_tail(lower, expected) * radii.size
    # the other side's count in the ball: at least what its declared law puts there (a
    # search count of 0 or 1 would understate the background of wide balls)
    shift = np.abs(np.asarray(other, dtype=np.float64).reshape(1, -1) - c).ravel()
    other_mass = np.ones_like(radii)
    for s_j in shift:
        other_mass = other_mass * np.clip(
            np.asarray(law.cdf(s_j + radii)) - np.asarray(law.cdf(s_j - radii)), 0.0, 1.0
        )
    upper = np.maximum(upper, n_s * other_mass)
    z = _z_margin(lower, upper, n_s, epsilon, delta)
    z = np.where(
        (evidence < EVIDENCE) & (_plugin_margin(lower, upper, n_s, epsilon, delta) > 0), z, -np.inf
    )
    best = int(np.argmax(z))
    if not np.isfinite(z[best]):
        return None
    r = float(radii[best])
    where = ", ".join(f"{v:.10g}" for v in c.ravel()[:3]) + (", …" if dim > 3 else "")
    return RareCandidate(
        event=Neighbourhood(
            c.ravel().copy(), r, f"neighbourhood: |output - f| <= {r:.3g} around f = ({where})"
        ),
        direction=direction,
        family="neighbourhood",
        search_lower=int(lower[best]),
        search_upper=int(math.ceil(upper[best])),
        declared_expected=float(expected[best]),
    )


def _excess(
    lo: np.ndarray, hi: np.ndarray, law: Any, direction: str, n_s: int, epsilon: float, delta: float
) -> RareCandidate | None:
    s = np.sort(np.asarray(lo, dtype=np.float64))
    s = s[np.isfinite(s)]
    if s.size < 3:
        return None
    t = np.sort(np.asarray(hi, dtype=np.float64))
    pmax = _max_density(law)
    scale = float(law.std) if math.isfinite(law.std) and law.std > 0 else 1.0 / pmax
    best: tuple[float, RareCandidate] | None = None
    for frac in _WIDTHS:
        w = frac * scale
        ends = np.searchsorted(s, s + w, side="right")
        counts = ends - np.arange(s.size)
        i = int(np.argmax(counts))
        c = int(counts[i])
        expected = n_s * w * pmax
        # Bonferroni over the windows scanned (one per search output and width)
        evidence = float(_poisson_tail(c, expected)) * s.size * len(_WIDTHS)
        if c < 3 or evidence >= EVIDENCE:
            continue
        low, high = s[i] - w, s[i] + 2.0 * w
        upper = int(np.searchsorted(t, high, side="right") - np.searchsorted(t, low, side="left"))
        lower = int(np.searchsorted(s, high, side="right") - np.searchsorted(s, low, side="left"))
        # rank with the other side's count at least the declared maximum density allows
        # in the window (its search count understates the background of wide windows)
        upper = max(upper, int(math.ceil(n_s * 3.0 * w * pmax)))
        z = float(_z_margin(lower, upper, n_s, epsilon, delta))
        if _plugin_margin(lower, upper, n_s, epsilon, delta) <= 0:
            continue
        if best is None or z > best[0]:
            cand = RareCandidate(
                event=Intervals(
                    np.array([low]),
                    np.array([high]),
                    f"excess: output in [{low:.10g}, {high:.10g}]",
                ),
                direction=direction,
                family="excess",
                search_lower=lower,
                search_upper=upper,
                declared_expected=3.0 * w * pmax * n_s,
            )
            best = (z, cand)
    return None if best is None else best[1]


def _support(
    lo: np.ndarray,
    hi: np.ndarray,
    log_p_other: Any,
    other: str,
    direction: str,
    n_s: int,
    epsilon: float,
    delta: float,
) -> RareCandidate | None:
    try:
        with np.errstate(all="ignore"):
            in_lo = int(
                np.count_nonzero(np.isneginf(np.asarray(log_p_other(lo), dtype=np.float64)))
            )
            in_hi = int(
                np.count_nonzero(np.isneginf(np.asarray(log_p_other(hi), dtype=np.float64)))
            )
    except (ValueError, TypeError, IndexError, ArithmeticError):
        return None
    if in_lo == 0 or _plugin_margin(in_lo, in_hi, n_s, epsilon, delta) <= 0:
        return None
    return RareCandidate(
        event=ImpossibleUnder(
            log_p_other, f"support: outputs impossible under M({other})'s declared law"
        ),
        direction=direction,
        family="support",
        search_lower=in_lo,
        search_upper=in_hi,
    )


def find_rare_events(
    mechanism: Any,
    pair: Any,
    search_x: np.ndarray,
    search_y: np.ndarray,
    *,
    epsilon: float,
    delta: float,
    densities: DensityPair | None = None,
    max_events: int = MAX_EVENTS,
) -> tuple[RareCandidate, ...]:
    """Rare-event candidates in both directions, chosen on the search split only.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism under audit (its spec and, when provided, its ``statistic`` hook).
    pair : CandidatePair
        The neighbours (x, y).
    search_x, search_y : numpy.ndarray
        Search-split outputs of M(x) and M(y) (the same size).
    epsilon, delta : float
        The claimed point (ε, δ) the plug-in margin is computed at.
    densities : DensityPair, optional
        The declared log densities (for the support family).
    max_events : int
        Candidates returned (default :data:`MAX_EVENTS` = 2): at most one per family and
        direction is found, and the best of each direction by the standardised plug-in
        margin (count_lo − e^ε count_hi − δn)/√(count_lo + e^{2ε} count_hi + 1) is kept.

    Returns
    -------
    tuple of RareCandidate
        At most one per direction, best first (empty when the search split shows none).
    """
    spec = mechanism.spec
    n_s = int(min(len(search_x), len(search_y)))
    law = _continuous_law(spec)
    scalar = _scalar(search_x).ndim == 1 and _scalar(search_y).ndim == 1
    floats = np.asarray(search_x).dtype.kind == "f"
    centres: dict[str, Any] = {}
    if isinstance(getattr(spec, "noise", None), AdditiveNoise) and mechanism.provides("statistic"):
        try:
            centres = {
                "x": np.asarray(mechanism.statistic(pair.x), dtype=np.float64),
                "y": np.asarray(mechanism.statistic(pair.y), dtype=np.float64),
            }
        except (ValueError, TypeError, ArithmeticError):
            centres = {}
    outputs = {"x": np.asarray(search_x), "y": np.asarray(search_y)}
    found: list[RareCandidate] = []
    for direction, lo_side, hi_side in (("x_vs_y", "x", "y"), ("y_vs_x", "y", "x")):
        lo, hi = outputs[lo_side], outputs[hi_side]
        if law is not None and scalar and floats:
            atom = _atoms(_scalar(lo), _scalar(hi), direction, n_s, epsilon, delta)
            if atom is not None:
                found.append(atom)
        if law is not None and centres:
            near = _neighbourhood(
                lo, hi, centres[lo_side], centres[hi_side], law, direction, n_s, epsilon, delta
            )
            if near is not None:
                found.append(near)
        if law is not None and scalar and floats:
            excess = _excess(_scalar(lo), _scalar(hi), law, direction, n_s, epsilon, delta)
            if excess is not None:
                found.append(excess)
        if densities is not None:
            log_other = densities.log_p_y if hi_side == "y" else densities.log_p_x
            gap = _support(lo, hi, log_other, hi_side, direction, n_s, epsilon, delta)
            if gap is not None:
                found.append(gap)
    # the best candidates by the search split's standardised margin: an atom at f(x), its
    # neighbourhood and the excess window around it are usually the same outputs, and
    # the atoms at f(x) and at f(y) mirror each other, so testing them all would only
    # split α
    score = [float(_z_margin(c.search_lower, c.search_upper, n_s, epsilon, delta)) for c in found]
    order = sorted(range(len(found)), key=lambda i: -score[i])
    best: list[RareCandidate] = []
    for i in order:  # the best of each direction, best first
        if all(b.direction != found[i].direction for b in best):
            best.append(found[i])
    return tuple(best[:max_events])


def disjoint(a: Any, b: Any) -> bool:
    """Whether two rare events are provably disjoint (``False`` when undecided)."""
    if isinstance(a, ExactValues) and isinstance(b, ExactValues):
        return np.intersect1d(a.values, b.values).size == 0
    if isinstance(a, Neighbourhood) and isinstance(b, Neighbourhood):
        if a.centre.shape != b.centre.shape:
            return False
        return float(np.max(np.abs(a.centre - b.centre))) > a.radius + b.radius
    if isinstance(a, Intervals) and isinstance(b, Intervals):
        return all(
            hi1 < lo2 or hi2 < lo1
            for lo1, hi1 in zip(a.low, a.high, strict=True)
            for lo2, hi2 in zip(b.low, b.high, strict=True)
        )
    return False
