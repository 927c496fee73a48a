"""Spikes at the statistic: more outputs near f(x) than the declared noise law allows.

With the ``statistic`` hook, f(x) is known before sampling, so :func:`check_spike` counts
the outputs within radii r_k = s·2^{−k} of their own statistic and tests each count with an
exact one-sided binomial test against the declared q(r_k) + δ (Bonferroni over the radii,
conservative in floating point).  It is the gray-box counterpart of
:mod:`privaudit.auditing.distinguish.rare_events`.  Outputs are counted in chunks
(:mod:`privaudit.execution.streaming`).

References: Clopper & Pearson, Biometrika 1934; Lokna, Paradis, Dimitrov & Vechev, ACM CCS
2023.  Details: ``docs/engine_notes.md``, "privaudit.auditing.checks.spike";
``docs/delta_audits.md``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from privaudit.auditing.checks._common import check_count, missing_hooks, skipped
from privaudit.auditing.outcome.results import CheckOutcome, jsonable_details
from privaudit.auditing.pairs import to_jsonable
from privaudit.auditing.sampler_outputs import draw_outputs
from privaudit.execution.streaming import (
    Executor,
    StreamProgress,
    block_rows,
    root_seed,
    stream_chunks,
)
from privaudit.mechanisms import Mechanism
from privaudit.spec import AdditiveNoise, RandomLike, as_generator, check_alpha
from privaudit.spec.errors import AuditError, InvalidParameterError

__all__ = [
    "CDF_SLACK",
    "LARGEST_EXPECTED",
    "MAX_RADII",
    "MIN_ULPS",
    "SMALLEST_EXPECTED",
    "WindowGrid",
    "check_spike",
    "spike_applies",
]

_NAME = "noise_law.spike"

#: Added to every computed window probability F(r) − F(−r) (its float64 rounding error is
#: a few 10⁻¹⁶), so the null probability is never understated.
CDF_SLACK = 1e-15
#: Smallest radius of the grid, in ulps of |f| (the float slack u is then ≤ 1 % of r).
MIN_ULPS = 1024
#: Most radii of the grid (r_k = s·2^{−k}, k = 0 … MAX_RADII − 1).
MAX_RADII = 64
#: The grid stops after the first window in which the declared law expects fewer than
#: this many outputs (of all inputs together): smaller windows add multiplicity but no
#: power (an atom of N·p ≥ 30 outputs per side is far above one expected output).
SMALLEST_EXPECTED = 1.0
#: Windows in which the declared law expects more outputs than this are left out: a
#: departure from the law that wide is the noise-law check's (KS, Anderson–Darling).
LARGEST_EXPECTED = 1e4


def spike_applies(mechanism: Mechanism) -> str | None:
    """``None`` when :func:`check_spike` applies, else the reason it is skipped."""
    noise = mechanism.spec.noise
    if not isinstance(noise, AdditiveNoise):
        kind = "no noise law" if noise is None else f"{type(noise).__name__} noise"
        return (
            f"the spec declares {kind}: window probabilities around f(x) need an additive noise law"
        )
    if noise.law.is_discrete:
        return (
            f"the declared law {type(noise.law).__name__} is discrete: its atoms are "
            "tested by the noise-law check's χ² and tail tests"
        )
    missing = missing_hooks(mechanism, ["statistic"])
    if missing:
        return f"f(x) is unknown without the gray-box hook(s) {missing}"
    return None


def _scale(law: Any) -> float:
    """A scale s of the declared law: its standard deviation, else its interquartile half-range."""
    std = float(law.std)
    if math.isfinite(std) and std > 0:
        return std
    q1, q3 = (float(v) for v in np.asarray(law.ppf([0.25, 0.75]), dtype=np.float64))
    return (q3 - q1) / 2.0


@dataclass(frozen=True)
class WindowGrid:
    """The a-priori radii and their null probabilities for one pair of centres.

    Attributes
    ----------
    radii : numpy.ndarray
        Decreasing radii r_k = s·2^{−k}.
    null : numpy.ndarray
        Upper bounds on q(r_k) = P[max_j |o_j − f_j| ≤ r_k] under the declared law
        (the largest over the centres, float slack included).
    """

    radii: np.ndarray
    null: np.ndarray

    @classmethod
    def build(cls, law: Any, centres: list[np.ndarray], total: int) -> WindowGrid:
        """Radii s·2^{−k} (k < :data:`MAX_RADII`) whose window the declared law expects
        at most :data:`LARGEST_EXPECTED` of the ``total`` outputs in, down to the first
        one where it expects fewer than :data:`SMALLEST_EXPECTED` or to :data:`MIN_ULPS`
        ulps of the largest |f|; at least one radius when any is resolvable."""
        s = _scale(law)
        magnitude = max(float(np.max(np.abs(c), initial=0.0)) for c in centres)
        floor = MIN_ULPS * float(np.spacing(magnitude)) if magnitude > 0 else 0.0
        dim = max(int(c.size) for c in centres)
        radii, null = [], []
        for k in range(MAX_RADII):
            r = s * 2.0**-k
            if r < floor or r <= 0:
                break
            u = 8.0 * float(np.spacing(magnitude + r)) + r * 2.0**-50
            wide = r + u
            mass = float(np.asarray(law.cdf(wide)) - np.asarray(law.cdf(-wide)))
            q = min(1.0, max(mass, 0.0) + CDF_SLACK) ** dim
            if total * q > LARGEST_EXPECTED and k + 1 < MAX_RADII:
                continue
            radii.append(r)
            null.append(q)
            if total * q < SMALLEST_EXPECTED:
                break
        return cls(np.asarray(radii, dtype=np.float64), np.asarray(null, dtype=np.float64))


def _window_counts(out: np.ndarray, centre: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """How many rows of ``out`` lie within each radius of ``centre`` (ℓ∞ distance).

    ``radii`` decrease; one ``searchsorted`` of the distances into the (few) ascending
    radii and a cumulative bincount, no sort of the outputs.
    """
    values = np.asarray(out, dtype=np.float64)
    rows = values.shape[0] if values.ndim else 1
    if values.size != rows * centre.size:
        raise AuditError(
            f"the sampler returned outputs of shape {values.shape} for a "
            f"statistic with {centre.size} coordinate(s)"
        )
    if centre.size == 1:
        dist = np.abs(values.reshape(-1) - centre[0])
    else:
        with np.errstate(invalid="ignore"):
            dist = np.max(np.abs(values.reshape(len(values), -1) - centre.reshape(1, -1)), axis=1)
    ascending = radii[::-1]
    # bin i holds the distances in (a_{i−1}, a_i]; NaN sorts past the last radius
    bins = np.searchsorted(ascending, dist, side="left")
    at_most = np.cumsum(np.bincount(bins, minlength=ascending.size + 1)[: ascending.size])
    return at_most[::-1].astype(np.int64)


def _spike_outcome(
    law: Any,
    xs: list[Any],
    n: int,
    total: int,
    grid: WindowGrid,
    counts: np.ndarray,
    extra: float,
    level: float,
) -> CheckOutcome:
    """The exact one-sided binomial test of each radius's pooled count against the
    declared law (plus the allowance), Bonferroni over the radii."""
    m = grid.radii.size
    null = np.minimum(1.0, grid.null + extra)
    p_values = stats.binom.sf(counts - 1, total, null)
    adjusted = np.minimum(1.0, p_values * m)
    worst = int(np.argmin(p_values))
    per_radius = level / m
    rejected = p_values < per_radius
    violated = bool(rejected.any())
    expected = total * grid.null
    allowed = total * null
    law_name = type(law).__name__
    summary = (
        f"{int(counts[worst])} of {total:,} outputs within {grid.radii[worst]:.3g} of "
        f"their statistic f (declared {law_name} law: {expected[worst]:.3g} expected"
        + (f", {allowed[worst]:.3g} allowed with delta = {extra:g}" if extra > 0 else "")
        + f", p = {p_values[worst]:.3g}; {m} radii at level alpha/{m} = "
        f"{per_radius:.3g})"
        + (
            ": more mass near f than the declared law allows" + (" plus delta" if extra > 0 else "")
            if violated
            else ""
        )
    )
    details = jsonable_details(
        law=law_name,
        inputs=[to_jsonable(x) for x in xs],
        samples_per_input=n,
        outputs=total,
        radii=grid.radii,
        counts=counts,
        expected=expected,
        probability=grid.null,
        allowance=extra,
        allowed=allowed,
        p_values=p_values,
        bonferroni_k=m,
        alpha=level,
        level_per_radius=per_radius,
        worst_radius=float(grid.radii[worst]),
        worst_count=int(counts[worst]),
        worst_expected=float(expected[worst]),
        worst_allowed=float(allowed[worst]),
        rejected_radii=grid.radii[rejected],
    )
    return CheckOutcome(
        name=_NAME,
        status="violated" if violated else "passed",
        summary=summary,
        statistic=float(adjusted[worst]),
        threshold=level,
        error_rate=level,
        details=details,
    )


def check_spike(
    mechanism: Mechanism,
    inputs: Any,
    rng: RandomLike,
    *,
    samples: int,
    alpha: float = 0.005,
    allowance: float = 0.0,
    executor: Executor | None = None,
    progress: StreamProgress | None = None,
) -> CheckOutcome:
    """Test the mass of the outputs near f against the declared additive law.

    For each input (typically both sides x, y of a neighbouring pair), ``samples``
    outputs are drawn in chunks and counted in the windows {o : max_j |o_j − f_j| ≤ r_k}
    around that input's own statistic f, for the a-priori radii r_k = s·2^{−k} of
    :class:`WindowGrid` (s the law's standard deviation; from the first window where the
    law expects at most 10⁴ outputs of all inputs together, down to the first where it
    expects fewer than one).  The counts of all inputs
    are pooled: under the declared law the pooled count K_k is Binomial(n, q_k) with n
    the outputs drawn and q_k = (F(r_k) − F(−r_k))^d (an upper bound of it, see the
    module notes), and each radius is tested by the exact one-sided binomial test
    P[Bin(n, q_k + allowance) ≥ K_k] at level α/m (Bonferroni over the m radii), which
    is valid (conservative) under the declared law for any allowance ≥ 0.

    Parameters
    ----------
    mechanism : Mechanism
        Additive continuous noise (:class:`~spec.AdditiveNoise`) and the ``statistic``
        hook; otherwise the check is skipped with the reason.
    inputs : sequence
        Inputs of the spec's domain (e.g. ``(pair.x, pair.y)``).
    rng : Generator, int or None
        The only source of randomness (one root seed is drawn from it).
    samples : int
        Outputs per input.
    alpha : float
        Family-wise error rate in (0, 1).
    allowance : float
        Extra mass per output allowed in every window (the auditor passes the claimed
        δ, so that leaks within the claimed δ are not flagged); in [0, 1).
    executor : Executor, optional
        Maps the counting over chunks (:mod:`privaudit.execution.streaming`).
    progress : callable, optional
        Called as ``progress(done, total)`` after each chunk.

    Returns
    -------
    CheckOutcome
        Named ``"noise_law.spike"``; ``statistic`` is the smallest Bonferroni-adjusted
        p-value, ``threshold`` α; ``details`` gives, for every radius, the pooled count,
        the expected count n·q_k, q_k and the p-value.

    Raises
    ------
    InvalidParameterError
        If ``samples``, ``alpha`` or ``allowance`` is out of range.
    AuditError
        If the sampler's outputs do not have the statistic's number of coordinates.
    """
    n = check_count(samples, "samples", 1)
    level = check_alpha(alpha)
    if (
        isinstance(allowance, bool)
        or not isinstance(allowance, numbers.Real)
        or not (0.0 <= allowance < 1.0)
    ):
        raise InvalidParameterError(f"allowance must be a number in [0, 1), got {allowance!r}")
    extra = float(allowance)
    reason = spike_applies(mechanism)
    if reason is not None:
        return skipped(_NAME, reason)
    law = mechanism.spec.noise.law
    xs = [mechanism.validate_input(x) for x in inputs]
    centres = [np.asarray(mechanism.statistic(x), dtype=np.float64).ravel() for x in xs]
    total = n * len(xs)
    grid = WindowGrid.build(law, centres, total)
    m = grid.radii.size
    if m == 0:
        return skipped(
            _NAME,
            "no window radius is resolvable in float64 at |f| = "
            f"{max(float(np.max(np.abs(c), initial=0.0)) for c in centres):g}",
        )
    gen = as_generator(rng)
    root = root_seed(gen)
    counts = np.zeros(m, dtype=np.int64)
    for stream, (x, centre) in enumerate(zip(xs, centres, strict=True)):
        tally = stream_chunks(
            lambda size, g, x=x: draw_outputs(mechanism, x, size, g),
            n,
            root=root,
            stream=stream,
            consume=lambda out, c=centre: _window_counts(out, c, grid.radii),
            rows_per_block=block_rows(max(1, centre.size)),
            executor=executor,
            progress=progress,
        )
        for chunk in tally:
            counts += chunk
    return _spike_outcome(law, xs, n, total, grid, counts, extra, level)
