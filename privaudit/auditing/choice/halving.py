"""Choosing the neighbouring pairs that get the full distinguishing test.

Pairs are ranked by the cheapest objective that reflects the mechanism's privacy on them:
the statistic shift, the declared bound (:mod:`~privaudit.auditing.distinguish.declared_plan`),
or for black boxes a pilot search and successive halving on fresh samples.  With
``pair_tolerance`` τ > 0, the near ties of the last round are tested too and the prior pair
takes a slot, at no cost in validity (``docs/derivations.md`` §9).  The pairs are chosen
without looking at the final test's samples, so the test stays exact.

References: Karnin, Koren & Somekh, ICML 2013; Jamieson & Talwalkar, AISTATS 2016.
Details: ``docs/engine_notes.md``, "privaudit.auditing.choice.halving".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from privaudit.auditing.choice.scores import SUPPORT_MISMATCH, pair_score, pair_score_task
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.distinguish import DECLARED_SHARE, rate_ratio_applies
from privaudit.auditing.distinguish.declared_plan import declared_loss_law, plan_declared_events
from privaudit.auditing.distinguish.densities import declared_llr, declared_log_densities
from privaudit.auditing.distinguish.events import LogLikelihoodRatio
from privaudit.auditing.pairs import CandidatePair, pair_key, verified_pair
from privaudit.auditing.search import maximise_pair_objective
from privaudit.execution.forked import fork_available, map_forked
from privaudit.mechanisms import Mechanism
from privaudit.spec import AdditiveNoise, SmoothSensitivityNoise

__all__ = [
    "PRIOR_ORIGIN",
    "PairChoice",
    "choose_pairs",
    "declared_bound",
    "gray_box_shift",
    "halving_first_round",
    "halving_pool_size",
    "pair_score",
    "successive_halving",
]

#: Origin of the generated split pairs.  The prior pair is the relation's first split
#: pair, the most balanced one of a query distance, ``(1⁵0⁵, 0⁵1⁵)`` for ten queries
#: (:meth:`spec.relations.QueryDistance.split_pairs`), else the first candidate of this
#: origin (:func:`_prior_pair`).  When at least two pairs are tested
#: and the halving keeps neither it nor its swap, it takes the last of the kept slots:
#: on sparse-vector outputs the halving's first rounds (4·10⁴ outputs per side at
#: N = 2·10⁶) score the rare events of the strongest pairs 0 and keep pairs of dense,
#: weak differences instead (``scripts/halving_visibility.py``; the measurement is in
#: ``docs/engine_notes.md``, "privaudit.auditing.choice.halving").
PRIOR_ORIGIN = "split"
#: Share of the distinguishing test's α that the near ties of the halving split between
#: them (weighted Bonferroni; the pairs the halving kept share the rest).  A near tie is
#: insurance against a lottery of the last round, not the halving's choice, so it gets
#: less of α: with one pair and one tie, α·3/4 and α/4 instead of α/2 each.
NEAR_TIE_SHARE = 0.25
#: Patience of the climbs over the deterministic objectives (shift, declared bound).
PATIENCE = 8
#: Relative tolerance within which two objective values tie.
TIE_TOLERANCE = 1e-9
#: Successive halving starts from at most this many pairs per tested pair (more
#: candidates are first ranked by a pilot search), and from at least
#: ``HALVING_POOL_MIN`` pairs: with one pair tested, a pool of 8 (4 of them the best
#: generated candidates by a 4·10⁴-output pilot) often missed the best generated pair of
#: a sparse vector, which a pool of 16 kept (``docs/engine_notes.md``,
#: "privaudit.auditing.choice.halving").
HALVING_POOL, HALVING_POOL_MIN = 8, 16


def halving_pool_size(pairs_tested: int) -> int:
    """How many pairs enter the successive halving when ``pairs_tested`` are kept:
    max(``HALVING_POOL_MIN``, ``HALVING_POOL`` · ``pairs_tested``)."""
    return max(HALVING_POOL_MIN, HALVING_POOL * pairs_tested)


#: Its first round uses max(2·pilot_samples, min(samples / HALVING_START,
#: HALVING_FIRST_ROUND_MAX)) outputs per side (:func:`halving_first_round`).  The cap keeps
#: the halving of a cheap mechanism tested at 10⁸ outputs from costing as much as its
#: test: 2¹⁹ outputs per side already rank a noisy maximum's pairs of true ε 0.2 and 0.25
#: (the plateau event's log-ratio has a standard error of about 0.005 there).
HALVING_START, HALVING_FIRST_ROUND_MAX = 64, 1 << 19


def halving_first_round(pilot_samples: int, samples: int) -> int:
    """Outputs per side of each pair in the halving's first round (doubled each round)."""
    return max(2 * pilot_samples, min(samples // HALVING_START, HALVING_FIRST_ROUND_MAX))


@dataclass(frozen=True)
class PairChoice:
    """The pairs to test, best first, and how they were chosen."""

    pairs: tuple[CandidatePair, ...]
    objective: str
    ties: bool
    halving_rounds: int = 0
    #: For each pair, whether it is a near tie of the halving (none when empty).
    near_tie: tuple[bool, ...] = ()
    #: Whether the prior pair (:func:`_prior_pair`) took a slot the halving had given to
    #: another pair, and is tested.
    prior_pair: bool = False
    #: Every pair ranked by the declared law (statistic shift or declared bound), best
    #: first; empty for a black box.  The pairs not tested were skipped on the law's word,
    #: which :mod:`~privaudit.auditing.choice.ranked_law` checks at their inputs.
    declared_ranking: tuple[CandidatePair, ...] = ()

    @property
    def near_ties(self) -> int:
        """How many of the pairs are near ties of the halving."""
        return sum(self.near_tie)

    def shares(self) -> tuple[float, ...]:
        """Share of the distinguishing test's α for each pair (they sum to 1): even,
        except that near ties, when there are some beside other pairs, share
        :data:`NEAR_TIE_SHARE` and the other pairs the rest."""
        m, t = len(self.pairs), self.near_ties
        if not 0 < t < m:
            return (1.0 / m,) * m
        kept = (1.0 - NEAR_TIE_SHARE) / (m - t)
        return tuple(NEAR_TIE_SHARE / t if near else kept for near in self.near_tie)


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
            return SUPPORT_MISMATCH if _point_mass(mechanism, x, y) else 0.0
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
    workers: int = 1,
) -> tuple[list[CandidatePair], int]:
    """Keep the better half of ``pairs`` on fresh samples, doubling them, until ``keep``
    remain.

    Each round draws ``samples`` new outputs per side for every remaining pair (doubled
    after every round) and scores the pair by
    :func:`~privaudit.auditing.choice.scores.pair_score`; ties keep the earlier pair.

    With ``workers`` > 1 (the ``processes`` executor, Linux) the scores that need a pilot
    distinguishing test run in up to ``workers`` forked processes: every pair's draws
    are made here, in turn (:func:`~privaudit.auditing.choice.scores.pair_score_task`),
    so the survivors are those of ``workers`` = 1, to the bit.

    With ``tolerance`` > 0 (the robust choice, ``docs/derivations.md`` §9) the pairs of the
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
        scores = _round_scores(
            mechanism,
            survivors,
            workers,
            samples=size,
            final_samples=final_samples,
            level=level,
            delta=delta,
            rng=rng,
            events_per_direction=events_per_direction,
        )
        scored = [p.with_score(score) for p, score in zip(survivors, scores, strict=True)]
        order = sorted(range(len(scored)), key=lambda i: (-scored[i].score, i))
        cut = max(keep, math.ceil(len(scored) / 2))
        survivors = [scored[i] for i in order[:cut]]
        if tolerance > 0 and cut == keep:
            floor = (1.0 - tolerance) * survivors[-1].score
            near = [scored[i] for i in order[cut:] if scored[i].score >= floor][:keep]
        size *= 2
        rounds += 1
    return survivors + near, rounds


def _round_scores(
    mechanism: Mechanism, pairs: list[CandidatePair], workers: int, **score: Any
) -> list[float]:
    """:func:`~privaudit.auditing.choice.scores.pair_score` of every pair, in order, on
    ``score``'s stream; with ``workers`` > 1 the pilot tests run in forked processes
    (:func:`~privaudit.execution.forked.map_forked`), their draws made here, in turn."""
    if workers <= 1 or len(pairs) < 2 or not fork_available():
        return [pair_score(mechanism, p, **score) for p in pairs]
    known: dict[int, float] = {}
    forked: list[int] = []

    def tasks() -> Iterator[Callable[[], float]]:
        for i, pair in enumerate(pairs):
            task = pair_score_task(mechanism, pair, **score)
            if isinstance(task, float):  # a counting score: computed already
                known[i] = task
            else:
                forked.append(i)
                yield task

    known.update(zip(forked, map_forked(tasks(), workers), strict=True))
    return [known[i] for i in range(len(pairs))]


def _key(pair: CandidatePair) -> str:
    return pair_key(pair.x, pair.y)


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
            seen.add(pair_key(p.y, p.x))
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
    workers: int = 1,
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
    workers : int
        Forked processes for the pilot tests of the local search's start pairs and of
        the successive halving (:func:`successive_halving`; the ``processes``
        executor's ``pair_workers``): the same choice as with 1, to the bit.
    """
    spec = mechanism.spec
    k = cfg.pairs_tested
    forced = explicit if len(explicit) <= k else []
    shift = gray_box_shift(mechanism)
    first = candidates[0] if candidates else None
    declared = first is not None and declared_log_densities(mechanism, first.x, first.y) is not None
    rounds = 0
    near_keys: set[str] = set()
    prior_key: str | None = None
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
        pilot_options: dict[str, Any] = {
            "samples": 2 * cfg.pilot_samples,
            "final_samples": cfg.samples,
            "level": alpha / k,
            "delta": delta,
            "rng": rng,
            "events_per_direction": cfg.events_per_direction,
            "projected": False,
        }

        def pilots(pairs: list[CandidatePair]) -> list[float]:
            # pilot scores in turn on the pilot stream; several at once (the start pairs)
            # run forked with workers > 1, with the same values and draws
            return [min(s, 1e6) for s in _round_scores(mechanism, pairs, workers, **pilot_options)]

        def pilot(x: Any, y: Any) -> float:
            return pilots([verified_pair(spec, x, y, "pilot")])[0]

        # a pilot search from the candidates (a swapped pair is the same test) finds
        # pairs beyond them — e.g. inputs whose extreme coordinates make supports
        # differ — then successive halving of the best on fresh samples
        pool = _dedupe(candidates, swaps=True)
        ranked = maximise_pair_objective(
            spec,
            pilot,
            rng,
            start=pool,
            budget=len(pool) + cfg.pair_budget + 2 * k,
            restarts=2,
            start_scores=pilots,
        )
        pool = _dedupe(ranked, swaps=True)
        if cfg.pair_tolerance > 0:
            # half the halving's pool for the best of the candidates themselves: the
            # climbs move on plateaus of the noisy pilot score and can fill the pool
            # with drifted variants (e.g. a query pushed to ±10⁶, which then never
            # matters: a pair of smaller true ε that a small pilot cannot tell apart)
            given = {_key(p) for p in candidates}
            originals = [p for p in pool if _key(p) in given or _key(_swap(p)) in given]
            pool = _dedupe(originals[: halving_pool_size(k) // 2] + pool, swaps=True)
        pool = pool[: halving_pool_size(k)]
        if len(pool) > k:
            level = alpha / k
            pool, rounds = successive_halving(
                mechanism,
                pool,
                keep=k,
                samples=halving_first_round(cfg.pilot_samples, cfg.samples),
                final_samples=cfg.samples,
                level=level,
                delta=delta,
                rng=rng,
                events_per_direction=cfg.events_per_direction,
                tolerance=cfg.pair_tolerance,
                workers=workers,
            )
            if cfg.pair_tolerance > 0 and k >= 2:
                pool, prior_key = _with_prior(pool, _prior_pair(spec, candidates), k)
            near_keys = {_key(p) for p in pool[k:]}
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
    return PairChoice(
        pairs=tuple(chosen),
        objective=kind,
        ties=ties,
        halving_rounds=rounds,
        near_tie=tuple(_key(p) in near_keys for p in chosen),
        prior_pair=prior_key is not None and any(_key(p) == prior_key for p in chosen),
        declared_ranking=tuple(ranked) if shift is not None or declared else (),
    )


def _prior_pair(spec: Any, candidates: list[CandidatePair]) -> CandidatePair | None:
    """The candidate that is the relation's first split pair
    (:meth:`spec.relations.QueryDistance.split_pairs`, in either order, whatever its
    origin: a caller may have given it explicitly, and the generated copy is then
    dropped), else the first candidate of origin :data:`PRIOR_ORIGIN`, else ``None``."""
    split = getattr(spec.relation, "split_pairs", None)
    first = split(spec.input_domain) if callable(split) else ()
    if first:
        x, y = first[0]
        keys = {pair_key(x, y), pair_key(y, x)}
        found = next((p for p in candidates if _key(p) in keys), None)
        if found is not None:
            return found
    return next((p for p in candidates if p.origin == PRIOR_ORIGIN), None)


def _with_prior(
    pool: list[CandidatePair], prior: CandidatePair | None, keep: int
) -> tuple[list[CandidatePair], str | None]:
    """The halving's survivors (``keep`` kept pairs, then near ties) with the ``prior``
    pair (:func:`_prior_pair`) in the last kept slot, unless a kept pair already is it
    (or its swap); a near tie equal to it is dropped.  Returns the pairs and the prior
    pair's key when it took a slot (else ``None``).  The prior depends on the relation
    and the candidates only, so the pairs tested remain a function of the generators and
    the pilot stream."""
    if prior is None:
        return pool, None
    same = {_key(prior), _key(_swap(prior))}
    if any(_key(p) in same for p in pool[:keep]):
        return pool, None
    kept = pool[: keep - 1] + [prior]
    return kept + [p for p in pool[keep:] if _key(p) not in same], _key(prior)
