"""Choosing the neighbouring pairs that get the full distinguishing test.

The distinguishing test's error budget is split evenly over the pairs it tests, so each
pair tested beyond the worst one costs power.  The pairs are ranked by the cheapest
objective that reflects the mechanism's privacy on them, in this order of preference:

1. **statistic shift** (additive noise with the ``statistic`` hook):
   ‖f(x) − f(y)‖, the only thing the declared output law of a pair depends on;
2. **declared bound** (other declared laws: randomized response, noisy argmax with
   Gumbel noise, smooth-sensitivity noise): the ε lower bound the declared-law events
   of :mod:`~privaudit.auditing.distinguish.declared_plan` are expected to give on the pair at
   the audit's size — exact, deterministic, no sampling;
3. **pilot search and successive halving** (black boxes): a local search from the
   candidates ranks pairs on 2·pilot_samples outputs per side (the discrete score below,
   or the ε lower bound of a small distinguishing test for continuous outputs); it finds
   pairs the generators do not, e.g. inputs whose extreme coordinates give the outputs
   different supports;
   the best ``8·pairs_tested`` (a pair and its swap count once) are then scored on fresh
   samples — max(2·pilot_samples, samples/64) per side in the first round —
   keeping the better half each round with twice the samples, until ``pairs_tested``
   remain (Karnin, Koren & Somekh 2013).  Fresh samples each round undo the winner's
   curse of a noisy pilot (the pair that looked best by luck).  The score is the bound
   the pair is expected to give at the final size: a cross-fitted plug-in over
   likelihood-ratio ordered output values for discrete outputs (:func:`discrete_score`),
   also for mixed outputs once their continuous columns are cut into a few cells
   (:func:`coarse_codes`), and a small distinguishing test otherwise.

**Near ties** (``AuditConfig.pair_tolerance`` = τ > 0, the default at certificate
strength).  Which pair survives a halving whose last rounds cannot separate two pairs is
a lottery (issue 31: 4 different choices in 4 seeds on ReportNoisyMax3, SVT2 and SVT6,
and ε_lb spreads up to 5×).  With τ > 0: half of the halving's pool is reserved for the
best candidates as generated (or given), since the pilot climbs move on plateaus of
their noisy score and can fill the pool with drifted variants of smaller true ε; and
every pair of the halving's last round whose score is within the fraction τ of the
``pairs_tested``-th survivor's is tested too (at most
``2 · pairs_tested`` pairs).  Accounting: the set of pairs tested, its size m included,
is a function of the pilot and halving samples only (the ``pilot`` stream); the auditor
splits the distinguishing test's α evenly over the m pairs actually tested (Bonferroni,
α_dist / m each), so the family-wise error stays α_dist whatever the pilot chose — the
near ties cost power (α/m rather than α/k per pair), never validity.  The derivation is
``docs/derivations.md`` §9.

**Ties.**  With a declared law, pairs whose objective ties with the best are equivalent
*as declared*: for additive noise on a one-dimensional output, M(x) and M(y) are the
same two laws up to a translation (and a swap, which the two test directions cover), and
a tie of the declared bound is the same statement for the other laws.  Testing one of
them then gives the whole budget to one pair instead of splitting it between copies.
Explicit pairs passed by the caller are always tested.

Whatever the ranking, the pairs are chosen without looking at the final test's samples,
so the test stays exact.

References
----------
.. [1] Karnin, Koren & Somekh, "Almost optimal exploration in multi-armed bandits",
   ICML 2013 (sequential halving).
.. [2] Jamieson & Talwalkar, "Non-stochastic best arm identification and
   hyperparameter optimization", AISTATS 2016 (successive halving).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mechanisms import Mechanism
from privaudit.statistics.allocation import predicted_epsilon, wilson_lower, wilson_upper
from spec import AdditiveNoise, SmoothSensitivityNoise

from .config import AuditConfig
from .distinguish import distinguish_pair
from .distinguish.declared_plan import declared_loss_law, plan_declared_events
from .distinguish.densities import declared_llr, declared_log_densities
from .distinguish.events import LogLikelihoodRatio
from .distinguish.pair import DECLARED_SHARE, rate_ratio_applies
from .distinguish.patterns import ATOM_SHARE, CATEGORICAL_VALUES
from .distinguish.rows import DISCRETE_ROWS, is_discrete, row_keys, row_table
from .pairs import CandidatePair, to_jsonable, verified_pair
from .search import maximise_pair_objective

__all__ = [
    "PairChoice",
    "choose_pairs",
    "coarse_codes",
    "declared_bound",
    "discrete_score",
    "gray_box_shift",
    "pair_score",
    "successive_halving",
]

#: Patience of the climbs over the deterministic objectives (shift, declared bound).
PATIENCE = 8
#: Relative tolerance within which two objective values tie.
TIE_TOLERANCE = 1e-9
#: Successive halving starts from at most this many pairs per tested pair (more
#: candidates are first ranked by a pilot search).
HALVING_POOL = 8
#: Its first round uses max(2·pilot_samples, samples / HALVING_START) outputs per side.
HALVING_START = 64
#: Level of the conservative pilot estimates behind the halving score (one-sided).
_PILOT_LEVEL = 0.16
#: Objective given to a pair whose declared laws are a point mass against another law
#: (infinitely distinguishable as declared).
_SUPPORT_MISMATCH = 1e6


@dataclass(frozen=True)
class PairChoice:
    """The pairs to test, best first, and how they were chosen."""

    pairs: tuple[CandidatePair, ...]
    objective: str
    ties: bool
    halving_rounds: int = 0


def gray_box_shift(mechanism: Mechanism) -> Callable[[Any, Any], float] | None:
    """‖f(x) − f(y)‖ in the declared norm, for additive noise with the statistic hook."""
    spec = mechanism.spec
    if not mechanism.provides("statistic") or not isinstance(spec.noise, AdditiveNoise):
        return None
    norm = {"l1": 1, "l2": 2, "linf": np.inf}.get(
        spec.global_sensitivity.norm if spec.global_sensitivity else "l1", 1
    )

    def shift(x: Any, y: Any) -> float:
        d = np.ravel(
            np.asarray(mechanism.statistic(x), float) - np.asarray(mechanism.statistic(y), float)
        )
        return float(np.linalg.norm(d, ord=norm))

    return shift


def declared_bound(
    mechanism: Mechanism, *, samples: int, alpha: float, delta: float
) -> Callable[[Any, Any], float]:
    """The pair objective "main declared-law event's predicted ε at ``samples`` and
    level ``DECLARED_SHARE · alpha``" (0 when the declared law gives no such event)."""

    def bound(x: Any, y: Any) -> float:
        densities = declared_log_densities(mechanism, x, y)
        if densities is None:
            return 0.0
        direct = declared_llr(mechanism, x, y)
        llr = LogLikelihoodRatio(
            densities.log_p_x,
            densities.log_p_y,
            direct=direct,
            round_direct=getattr(direct, "has_atoms", True),
        )
        law = declared_loss_law(mechanism, x, y, llr)
        if law is None:
            return _SUPPORT_MISMATCH if _point_mass(mechanism, x, y) else 0.0
        plan = plan_declared_events(
            law,
            llr,
            delta=delta,
            samples=samples,
            alpha=DECLARED_SHARE * alpha,
            rate_ratio=rate_ratio_applies(mechanism.spec.guarantee, samples),
        )
        return plan.predicted_epsilon

    return bound


def _point_mass(mechanism: Mechanism, x: Any, y: Any) -> bool:
    """Smooth-sensitivity noise whose declared law on x or y is a point mass (S = 0) while
    the two declared laws differ."""
    if not isinstance(mechanism.spec.noise, SmoothSensitivityNoise):
        return False
    try:
        sx, sy = float(mechanism.smooth_sensitivity(x)), float(mechanism.smooth_sensitivity(y))
        fx = float(np.asarray(mechanism.statistic(x), float).reshape(()))
        fy = float(np.asarray(mechanism.statistic(y), float).reshape(()))
    except Exception:  # noqa: BLE001 - a hook that fails gives no evidence
        return False
    return min(sx, sy) == 0.0 and (sx != sy or fx != fy)


def _pilot_score(
    result: Any, final_samples: int, level: float, delta: float, rate_ratio: bool = False
) -> float:
    """The best bound the pilot's tested events predict at the final size, from
    conservative (one-standard-error) estimates of their pilot counts."""
    best = 0.0
    for b in result.events:
        lo = wilson_lower(b.count_x, b.samples_x, _PILOT_LEVEL)
        hi = wilson_upper(b.count_y, b.samples_y, _PILOT_LEVEL)
        best = max(
            best,
            float(
                predicted_epsilon(
                    lo,
                    hi,
                    final_samples,
                    final_samples,
                    alpha=level,
                    delta=delta,
                    rate_ratio=rate_ratio,
                )
            ),
        )
    if result.epsilon_lower_bound_infinite:
        return _SUPPORT_MISMATCH
    return best


def _dense_row_codes(
    outputs_x: np.ndarray, outputs_y: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """0, 1, 2, … for the distinct rows of both samples (equal rows, equal codes), or
    ``None`` when the outputs are not discrete: more than
    :data:`~privaudit.auditing.distinguish.rows.DISCRETE_ROWS` distinct rows, or real rows
    that do not repeat (:func:`~privaudit.auditing.distinguish.rows.is_discrete`).

    Small-integer rows get exact integer keys and one ``bincount``; other outputs are
    pooled and sorted by their rows' random projections.
    """
    table = row_table(outputs_x, outputs_y) if outputs_x.ndim == 2 and outputs_y.ndim == 2 else None
    if table is not None:
        # at most DISCRETE_ROWS rows, and real-valued rows must also repeat (is_discrete)
        repeat = (
            outputs_x.dtype.kind != "f"
            or table.size <= (outputs_x.shape[0] + outputs_y.shape[0]) // 4
        )
        few = table.size <= DISCRETE_ROWS and repeat
        return (table.index[0], table.index[1]) if few else None
    pooled = np.concatenate([outputs_x, outputs_y])
    if not is_discrete(pooled[: 1 << 17]):
        return None
    codes = np.unique(row_keys(pooled), return_inverse=True)[1].ravel()
    if int(codes.max()) + 1 > DISCRETE_ROWS:
        return None
    return codes[: outputs_x.shape[0]], codes[outputs_x.shape[0] :]


def discrete_score(
    outputs_x: np.ndarray,
    outputs_y: np.ndarray,
    *,
    final_samples: int,
    level: float,
    delta: float,
    rate_ratio: bool = False,
) -> float | None:
    """Cross-fitted plug-in estimate of the best bound on a pair with discrete outputs.

    The distinct output rows are counted on each half of both samples; on one half the
    rows are ordered by their likelihood ratio (each direction), and on the other half
    every prefix of that order — the likelihood-ratio events, among which the optimal one
    lies — gives plug-in probabilities and the bound they predict at ``final_samples``;
    the two halves swap roles and the scores are averaged.  Using every output for the
    estimate (rather than a test split) and ordering on data that are not scored makes
    it far less noisy than a small distinguishing test.  ``None`` when the outputs are
    not discrete (more than :data:`~privaudit.auditing.distinguish.rows.DISCRETE_ROWS`
    distinct rows).
    """
    ox, oy = np.asarray(outputs_x), np.asarray(outputs_y)
    coded = _dense_row_codes(ox, oy)
    if coded is None:
        return None
    cx, cy = coded
    cells = int(max(cx.max(initial=-1), cy.max(initial=-1))) + 1
    hx, hy = cx.size // 2, cy.size // 2
    halves = ((cx[:hx], cy[:hy], cx[hx:], cy[hy:]), (cx[hx:], cy[hy:], cx[:hx], cy[:hy]))
    scores = []
    for fit_x, fit_y, ev_x, ev_y in halves:
        fx = np.bincount(fit_x, minlength=cells) + 0.5
        fy = np.bincount(fit_y, minlength=cells) + 0.5
        ex = np.bincount(ev_x, minlength=cells) / max(ev_x.size, 1)
        ey = np.bincount(ev_y, minlength=cells) / max(ev_y.size, 1)
        best = 0.0
        for ratio, lower, upper in ((fx / fy, ex, ey), (fy / fx, ey, ex)):
            order = np.argsort(-ratio, kind="stable")
            pred = predicted_epsilon(
                np.cumsum(lower[order]),
                np.cumsum(upper[order]),
                final_samples,
                final_samples,
                alpha=level,
                delta=delta,
                rate_ratio=rate_ratio,
            )
            best = max(best, float(np.max(pred)))
        scores.append(best)
    return float(np.mean(scores))


#: Quantile bins per continuous column in :func:`coarse_codes`.
COARSE_BINS = 4


def coarse_codes(outputs_x: np.ndarray, outputs_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The outputs with every continuous column cut into a few cells, for ranking pairs.

    Columns are classified by the rule of the pattern family
    (:mod:`~privaudit.auditing.distinguish.patterns`): a column with at most
    ``CATEGORICAL_VALUES`` = 16 distinct values is kept as it is; otherwise its atom (the
    most common value, when it carries ≥ ``ATOM_SHARE`` = 5 % of the pooled column —
    the zeros of a sparse-vector output) keeps a code of its own and the other values are
    cut at the pooled quartiles.  Mixed discrete/continuous outputs (sparse-vector patterns with
    released values) then become discrete rows, which :func:`discrete_score` can score
    from every output instead of a small distinguishing test.  The cells are a function
    of the pilot outputs, which are not reused by the final test.
    """
    ox = np.asarray(outputs_x, dtype=np.float64).reshape(np.shape(outputs_x)[0], -1)
    oy = np.asarray(outputs_y, dtype=np.float64).reshape(np.shape(outputs_y)[0], -1)
    pooled = np.concatenate([ox, oy])
    codes = np.empty(pooled.shape, dtype=np.float64)
    for j in range(pooled.shape[1]):
        col = pooled[:, j]
        values, counts = np.unique(col[:4096], return_counts=True)
        if values.size <= CATEGORICAL_VALUES:
            codes[:, j] = col
            continue
        atom = values[np.argmax(counts)]
        is_atom = col == atom
        if np.mean(is_atom) < ATOM_SHARE:
            is_atom = np.zeros(col.size, dtype=bool)
        rest = col[~is_atom]
        edges = (
            np.unique(np.quantile(rest, np.arange(1, COARSE_BINS) / COARSE_BINS))
            if rest.size
            else np.zeros(0)
        )
        codes[:, j] = np.where(is_atom, -1.0, np.searchsorted(edges, col, side="right"))
    return codes[: ox.shape[0]], codes[ox.shape[0] :]


def pair_score(
    mechanism: Mechanism,
    pair: CandidatePair,
    *,
    samples: int,
    final_samples: int,
    level: float,
    delta: float,
    rng: np.random.Generator,
    events_per_direction: int = 8,
    projected: bool = True,
) -> float:
    """How strongly ``samples`` fresh outputs per side suggest the pair will refute the
    claim at ``final_samples``: :func:`discrete_score` for discrete outputs, otherwise a
    pilot :func:`distinguish_pair` (half the outputs to choose events, half to count them)
    scored by :func:`_pilot_score` (or, with ``projected=False``, by its own ε lower
    bound at level 1/2, which favours the certain evidence of events one side never
    reaches — what a short pilot can see — over projections of small counts)."""
    half = max(1, samples // 2)
    sx = np.asarray(mechanism.sample(pair.x, samples, rng))
    sy = np.asarray(mechanism.sample(pair.y, samples, rng))
    usable = sx.ndim in (1, 2) and sx.shape == sy.shape and sx.dtype.kind in "biuf"
    ratio = rate_ratio_applies(mechanism.spec.guarantee, final_samples)
    score = (
        discrete_score(
            sx, sy, final_samples=final_samples, level=level, delta=delta, rate_ratio=ratio
        )
        if usable
        else None
    )
    if score is None and usable:
        cx, cy = coarse_codes(sx, sy)
        score = discrete_score(
            cx, cy, final_samples=final_samples, level=level, delta=delta, rate_ratio=ratio
        )
    if score is not None:
        return score
    replay = _Replay(mechanism, {id(pair.x): sx, id(pair.y): sy})
    result = distinguish_pair(
        replay,
        pair,
        samples=samples - half,
        search_samples=half,
        rng=rng,
        alpha=0.5,
        events_per_direction=events_per_direction,
        poissonize=False,
    )
    if not projected:
        return float(result.epsilon_lower_bound)
    return _pilot_score(result, final_samples, level, delta, ratio)


class _Replay:
    """Serves already drawn outputs, in order, to :func:`distinguish_pair` (one pilot sample
    per side, split between its search and test parts)."""

    def __init__(self, mechanism: Mechanism, drawn: dict[int, np.ndarray]) -> None:
        self.spec = mechanism.spec
        self.name = getattr(mechanism, "name", mechanism.spec.name)
        self._mechanism = mechanism
        self._drawn = drawn
        self._used = {k: 0 for k in drawn}

    def provides(self, hook: str) -> bool:
        return self._mechanism.provides(hook)

    def float_image(self, outputs: Any, centre: float) -> Any:
        return self._mechanism.float_image(outputs, centre)

    def statistic(self, data: Any) -> Any:
        return self._mechanism.statistic(data)

    def smooth_sensitivity(self, data: Any) -> Any:
        return self._mechanism.smooth_sensitivity(data)

    def sample(self, data: Any, size: int, rng: Any) -> np.ndarray:
        key = id(data)
        start = self._used[key]
        self._used[key] = start + size
        return self._drawn[key][start : start + size]


def successive_halving(
    mechanism: Mechanism,
    pairs: list[CandidatePair],
    *,
    keep: int,
    samples: int,
    final_samples: int,
    level: float,
    delta: float,
    rng: np.random.Generator,
    events_per_direction: int = 8,
    tolerance: float = 0.0,
) -> tuple[list[CandidatePair], int]:
    """Keep the better half of ``pairs`` on fresh samples, doubling them, until ``keep``
    remain.

    Each round draws ``samples`` new outputs per side for every remaining pair (doubled
    after every round) and scores the pair by :func:`pair_score`; ties keep the earlier
    pair.

    With ``tolerance`` > 0 (the robust choice, see the module docstring) the pairs of the
    last round whose score is at least (1 − ``tolerance``) times that of the ``keep``-th
    survivor are kept too, up to ``2 · keep`` in all: a near tie the halving cannot
    resolve is tested rather than decided by the luck of one round.  The last round is
    the one that decides: the earlier, smaller rounds' conservative scores are biased
    against pairs whose best event is rare, so they are not averaged in.

    Returns
    -------
    survivors, rounds : list of CandidatePair, int
        The ``keep`` best (best first, scores set to the last round's), then the near
        ties with ``tolerance`` > 0 (best first), and the number of rounds run.
    """
    survivors = list(pairs)
    size = int(samples)
    rounds = 0
    near: list[CandidatePair] = []
    while len(survivors) > keep:
        scored = [
            p.with_score(
                pair_score(
                    mechanism,
                    p,
                    samples=size,
                    final_samples=final_samples,
                    level=level,
                    delta=delta,
                    rng=rng,
                    events_per_direction=events_per_direction,
                )
            )
            for p in survivors
        ]
        order = sorted(range(len(scored)), key=lambda i: (-scored[i].score, i))
        cut = max(keep, math.ceil(len(scored) / 2))
        survivors = [scored[i] for i in order[:cut]]
        if tolerance > 0 and cut == keep:
            floor = (1.0 - tolerance) * survivors[-1].score
            near = [scored[i] for i in order[cut:] if scored[i].score >= floor][:keep]
        size *= 2
        rounds += 1
    return survivors + near, rounds


def _key(pair: CandidatePair) -> str:
    return repr((to_jsonable(pair.x), to_jsonable(pair.y)))


def _swap(pair: CandidatePair) -> CandidatePair:
    return replace(pair, x=pair.y, y=pair.x)


def _dedupe(pairs: list[CandidatePair], *, swaps: bool = False) -> list[CandidatePair]:
    """First occurrences only (with ``swaps``, (x, y) and (y, x) count as one: both test
    directions are always tested)."""
    seen: set[str] = set()
    out = []
    for p in pairs:
        k = _key(p)
        if k in seen:
            continue
        if swaps:
            seen.add(repr((to_jsonable(p.y), to_jsonable(p.x))))
        seen.add(k)
        out.append(p)
    return out


def _rank_by(
    spec: Any,
    objective: Callable[[Any, Any], float],
    candidates: list[CandidatePair],
    rng: np.random.Generator,
    *,
    budget: int,
    shift: bool,
) -> list[CandidatePair]:
    """Candidates by ``objective``, best first; a local search extends them unless a
    candidate already attains the declared sensitivity (shift objective only: that is
    the worst case of the declared law, and larger shifts are the sensitivity check's
    business).  Both objectives are symmetric in the pair (the two test directions are
    always tested), so a pair and its swap are scored once, and the deterministic
    objectives let the climbs stop on a plateau (:data:`PATIENCE`)."""
    candidates = _dedupe(candidates, swaps=True)
    if shift and spec.global_sensitivity is not None:
        scored = sorted(
            (p.with_score(objective(p.x, p.y)) for p in candidates), key=lambda p: -p.score
        )
        if scored and scored[0].score >= spec.global_sensitivity.value * (1 - 1e-12):
            return scored
    return maximise_pair_objective(
        spec, objective, rng, start=candidates, budget=budget, restarts=2, patience=PATIENCE
    )


def _tie_count(ranked: list[CandidatePair]) -> int:
    if not ranked:
        return 0
    top = ranked[0].score
    if not math.isfinite(top):
        return sum(1 for p in ranked if p.score == top)
    return sum(1 for p in ranked if p.score >= top - TIE_TOLERANCE * max(1.0, abs(top)))


def choose_pairs(
    mechanism: Mechanism,
    cfg: AuditConfig,
    candidates: list[CandidatePair],
    explicit: list[CandidatePair],
    rng: np.random.Generator,
    *,
    alpha: float,
    delta: float,
) -> PairChoice:
    """The pairs for the distinguishing test (see the module docstring).

    Parameters
    ----------
    mechanism : Mechanism
    cfg : AuditConfig
        ``pairs_tested``, ``pair_budget``, ``pilot_samples``, ``samples``.
    candidates : list of CandidatePair
        Generated pairs (explicit ones included).
    explicit : list of CandidatePair
        The caller's pairs: all tested when there are at most ``pairs_tested`` of them.
    rng : Generator
        The pilot stream (local search and pilot samples).
    alpha : float
        The distinguishing test's whole budget (for the declared bound's level).
    delta : float
        The claimed δ.
    """
    spec = mechanism.spec
    k = cfg.pairs_tested
    forced = explicit if len(explicit) <= k else []
    shift = gray_box_shift(mechanism)
    first = candidates[0] if candidates else None
    declared = first is not None and declared_log_densities(mechanism, first.x, first.y) is not None
    rounds = 0
    if shift is not None:
        kind = "statistic shift"
        ranked = _rank_by(
            spec, shift, candidates, rng, budget=cfg.pair_budget + 4 * k + len(explicit), shift=True
        )
        equivalent = int(spec.output_dimension) == 1
    elif declared:
        kind = "declared bound"
        objective = declared_bound(mechanism, samples=cfg.samples, alpha=alpha / k, delta=delta)
        ranked = _rank_by(
            spec,
            objective,
            candidates,
            rng,
            budget=cfg.pair_budget + 4 * k + len(explicit),
            shift=False,
        )
        equivalent = True
    else:
        kind = "pilot ε estimates"

        def pilot(x: Any, y: Any) -> float:
            return min(
                pair_score(
                    mechanism,
                    verified_pair(spec, x, y, "pilot"),
                    samples=2 * cfg.pilot_samples,
                    final_samples=cfg.samples,
                    level=alpha / k,
                    delta=delta,
                    rng=rng,
                    events_per_direction=cfg.events_per_direction,
                    projected=False,
                ),
                1e6,
            )

        # a pilot search from the candidates (a swapped pair is the same test) finds
        # pairs beyond them — e.g. inputs whose extreme coordinates make supports
        # differ — then successive halving of the best on fresh samples
        pool = _dedupe(candidates, swaps=True)
        ranked = maximise_pair_objective(
            spec, pilot, rng, start=pool, budget=len(pool) + cfg.pair_budget + 2 * k, restarts=2
        )
        pool = _dedupe(ranked, swaps=True)
        if cfg.pair_tolerance > 0:
            # half the halving's pool for the best of the candidates themselves: the
            # climbs move on plateaus of the noisy pilot score and can fill the pool
            # with drifted variants (e.g. a query pushed to ±10⁶, which then never
            # matters: a pair of smaller true ε that a small pilot cannot tell apart)
            given = {_key(p) for p in candidates}
            originals = [p for p in pool if _key(p) in given or _key(_swap(p)) in given]
            pool = _dedupe(originals[: HALVING_POOL * k // 2] + pool, swaps=True)
        pool = pool[: HALVING_POOL * k]
        if len(pool) > k:
            level = alpha / k
            pool, rounds = successive_halving(
                mechanism,
                pool,
                keep=k,
                samples=max(2 * cfg.pilot_samples, cfg.samples // HALVING_START),
                final_samples=cfg.samples,
                level=level,
                delta=delta,
                rng=rng,
                events_per_direction=cfg.events_per_direction,
                tolerance=cfg.pair_tolerance,
            )
            k = len(pool)
        ranked = pool + ranked
        equivalent = False
    ranked = _dedupe(ranked)
    n_ties = _tie_count(ranked)
    ties = equivalent and n_ties >= min(k, len(ranked)) >= 1
    if ties:
        tied = {_key(p) for p in ranked[:n_ties]}
        if any(_key(p) in tied for p in forced):
            chosen = list(forced)  # a requested pair is already a worst one
        else:
            # the requested pairs, and one worst pair if there is room
            chosen = _dedupe(forced + ranked[:1])[: max(len(forced), min(k, len(forced) + 1))]
    else:
        chosen = _dedupe(forced + ranked)[: max(len(forced), k)]
    return PairChoice(pairs=tuple(chosen), objective=kind, ties=ties, halving_rounds=rounds)
