"""Ranking the candidate events of :func:`~privaudit.auditing.distinguish.event_candidates.
select_events` on the search split: conservative Wilson estimates (Wilson, JASA 1927) of
each candidate's two probabilities, the bound each predicts at the test size
(:func:`~privaudit.statistics.allocation.predicted_epsilon`), a pool diverse in feature and
in probability scale (one candidate per feature and octave of mass, so that the luckiest of
many small-mass thresholds does not win by chance), and candidates that hold the same
distinct rows tested once.  Nothing here looks at the test split.
"""

from __future__ import annotations

import itertools

import numpy as np

from privaudit.auditing.distinguish.event_families import _Candidates
from privaudit.auditing.distinguish.events import Event, event_mask
from privaudit.statistics.allocation import predicted_epsilon, wilson_lower, wilson_upper
from privaudit.statistics.epsilon_bounds import epsilon_lower_bound

__all__: list[str] = []

#: Candidates per direction that reach the exact ranking / the plan.
_PRESELECT = 32
#: At most this many kept candidates per feature and direction.
_PER_FEATURE = 3
#: At most this many kept candidates per direction from one group of features (the
#: per-coordinate half-lines of a multi-dimensional output).
_PER_GROUP = 4
#: Level of the conservative search estimates used for ranking (one-sided).
_SEARCH_LEVEL = 0.16
#: Level of the second ranking of a multi-dimensional output's pool (two standard
#: errors).  Its dozens of features each bring thousands of tail thresholds, and at one
#: standard error the luckiest tiny ones (8 outputs against 0 of 312,500 on part B) can
#: fill the whole pool; up to K candidates ranked at this level join its 2K.
_SECOND_LEVEL = 0.02275
#: Level of the strict (three-standard-error) estimates that nominate each feature's
#: steadiest candidate.
_STRICT_LEVEL = 0.00135


def _conservative(
    a: np.ndarray, n_a: np.ndarray, b: np.ndarray, n_b: np.ndarray, level: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    lv = _SEARCH_LEVEL if level is None else level
    return (wilson_lower(a, n_a, lv), wilson_upper(b, n_b, lv))


def _pool(
    families: list[_Candidates],
    *,
    delta: float,
    alpha: float,
    k: int,
    test_samples: int | None,
    exact: bool,
    rate_ratio: bool = False,
    steady: bool = False,
) -> list[tuple[_Candidates, int, float]]:
    """The kept candidates of one direction, best first: (family, index, score)."""
    families = [f for f in families if f.a.size]
    if not families:
        return []
    a = np.concatenate([f.a for f in families])
    b = np.concatenate([f.b for f in families])
    na = np.concatenate([np.full(f.a.size, f.n_a, dtype=np.float64) for f in families])
    nb = np.concatenate([np.full(f.a.size, f.n_b, dtype=np.float64) for f in families])
    prio = np.concatenate([np.full(f.a.size, f.priority) for f in families])
    owner = np.concatenate([np.full(f.a.size, i) for i, f in enumerate(families)])
    local = np.concatenate([np.arange(f.a.size) for f in families])
    with np.errstate(divide="ignore", invalid="ignore"):
        plug = np.log(np.maximum(a / na - delta, 0.0)) - np.log((b + 0.5) / nb)
    plug = np.where((a > 0) & np.isfinite(plug), plug, -np.inf)
    if test_samples is None:
        # classical ranking: the CP bound on the search split at the test level
        approx = _wilson_search(a, na, b, nb, alpha, delta)
        pool = np.lexsort((prio, -plug, -approx))[: _PRESELECT * k]
        pool = pool[a[pool] > 0]
        if pool.size == 0:
            return []
        score = np.atleast_1d(
            epsilon_lower_bound(
                a[pool].astype(np.int64),
                na[pool].astype(np.int64),
                b[pool].astype(np.int64),
                nb[pool].astype(np.int64),
                alpha=alpha,
                delta=delta,
            )
        )
    else:
        return _stratified_pool(
            families,
            a,
            b,
            na,
            nb,
            prio,
            owner,
            local,
            plug,
            delta=delta,
            alpha=alpha,
            k=k,
            test_samples=test_samples,
            rate_ratio=rate_ratio,
            steady=steady,
        )
    order = pool[np.lexsort((prio[pool], -plug[pool], -score))]
    scored = dict(zip(pool.tolist(), score.tolist(), strict=True))
    chosen: list[tuple[_Candidates, int, float]] = []
    seen: set[tuple[int, int, int, int]] = set()
    per_feature: dict[int, int] = {}
    for i in order:
        fam = families[int(owner[i])]
        key = (int(a[i]), int(b[i]), int(na[i]), int(nb[i]))
        if key in seen or (not exact and per_feature.get(fam.feature, 0) >= _PER_FEATURE):
            continue
        seen.add(key)
        per_feature[fam.feature] = per_feature.get(fam.feature, 0) + 1
        chosen.append((fam, int(local[i]), float(scored[int(i)])))
        if len(chosen) == k:
            break
    return chosen


def _stratified_pool(
    families: list[_Candidates],
    a: np.ndarray,
    b: np.ndarray,
    na: np.ndarray,
    nb: np.ndarray,
    prio: np.ndarray,
    owner: np.ndarray,
    local: np.ndarray,
    plug: np.ndarray,
    *,
    delta: float,
    alpha: float,
    k: int,
    test_samples: int,
    rate_ratio: bool = False,
    steady: bool = False,
) -> list[tuple[_Candidates, int, float]]:
    """Up to 2K candidates (3K for a multi-dimensional output), diverse in feature and in
    probability scale.

    Thresholds of one feature differ mostly in how much mass they hold; among many
    small-mass thresholds the luckiest looks best.  So each feature contributes its best
    candidate per octave of P[M(·) ∈ S] (ranked by the bound they predict at the test
    size, from conservative estimates) — its best three octaves and its best octave
    above 1/8 — and part C of the search split, which played no part in this, judges.
    Per-coordinate half-lines of a multi-dimensional output are many features of one
    kind; together they get at most :data:`_PER_GROUP` places, so that their luckiest
    tails cannot crowd out the scores that use every coordinate.  With ``steady`` (scalar
    outputs) each feature also keeps its best candidate by strict estimates at
    :data:`_STRICT_LEVEL`: the widest threshold of a plateau of equal ratio, which the
    one-standard-error ranking loses to the luckiest small thresholds.

    A multi-dimensional output is ranked twice: its 2K best at one standard error, then
    up to K more at two (:data:`_SECOND_LEVEL`), the two taking turns in the pool's
    order: at one standard error alone, a pool can hold only tails of a few outputs,
    which part C rejects (``docs/derivations.md`` §9, "Two rankings";
    ``docs/engine_notes.md``, "privaudit.auditing.distinguish.event_ranking").
    """

    def predicted(level: float) -> np.ndarray:
        lo, hi = _conservative(a, na, b, nb, level)
        return predicted_epsilon(
            lo, hi, test_samples, test_samples, alpha=alpha, delta=delta, rate_ratio=rate_ratio
        )

    levels = (_SEARCH_LEVEL,) if steady else (_SEARCH_LEVEL, _SECOND_LEVEL)
    preds = [predicted(level) for level in levels]
    strict = predicted(_STRICT_LEVEL) if steady else None
    octave = np.clip(np.floor(np.log2(np.maximum(a, 0.5) / na)), -30, 0).astype(np.int64)
    rankings = [_kept(pred, a, prio, plug, owner, octave, strict) for pred in preds]
    seen: set[tuple[int, int, int, int]] = set()
    per_group: dict[str, int] = {}
    picks: list[list[int]] = []
    for ranking, room in zip(rankings, (2 * k, k), strict=False):
        mine: list[int] = []
        for i in ranking:
            key = (int(a[i]), int(b[i]), int(na[i]), int(nb[i]))
            group = families[int(owner[i])].group
            if key in seen or (group and per_group.get(group, 0) >= _PER_GROUP):
                continue
            seen.add(key)
            if group:
                per_group[group] = per_group.get(group, 0) + 1
            mine.append(int(i))
            if len(mine) == room:
                break
        picks.append(mine)
    # the rankings take turns in the pool's order: 1st of the first, 1st of the second, …
    turns = [i for pair in itertools.zip_longest(*picks) for i in pair if i is not None]
    return [(families[int(owner[i])], int(local[i]), float(preds[0][i])) for i in turns]


def _kept(
    pred: np.ndarray,
    a: np.ndarray,
    prio: np.ndarray,
    plug: np.ndarray,
    owner: np.ndarray,
    octave: np.ndarray,
    strict: np.ndarray | None,
) -> np.ndarray:
    """One ranking of the pool: each feature's best candidate per octave of mass by
    ``pred`` (its best three octaves and its best above 1/8), with ``strict`` its
    steadiest too, all ordered by ``pred`` (ties: plug-in ratio, then family)."""
    order = np.lexsort((prio, -plug, -pred))
    order = order[a[order] > 0]
    if order.size == 0:
        return order
    cell = owner[order] * 64 - octave[order]
    _, first = np.unique(cell, return_index=True)
    best = order[np.sort(first)]  # best per (feature, octave), best first
    kept: list[int] = []
    for fam_i in np.unique(owner[best]):
        mine = best[owner[best] == fam_i]  # still best first
        take = [int(i) for i in mine[:3]]
        wide = mine[octave[mine] >= -3]
        if wide.size and int(wide[0]) not in take:
            take.append(int(wide[0]))
        if strict is not None:  # steady
            own = np.flatnonzero((owner == fam_i) & (a > 0))
            steadiest = int(own[np.argmax(strict[own])])
            if steadiest not in take:
                take.append(steadiest)
        kept.extend(take)
    kept_arr = np.asarray(kept, dtype=np.int64)
    return kept_arr[np.lexsort((prio[kept_arr], -plug[kept_arr], -pred[kept_arr]))]


def _wilson_search(
    a: np.ndarray, na: np.ndarray, b: np.ndarray, nb: np.ndarray, alpha: float, delta: float
) -> np.ndarray:
    """Wilson stand-in for the CP ε bound on the search split itself (pre-selection)."""
    lo = wilson_lower(a, na, alpha / 2.0) - delta
    hi = np.maximum(wilson_upper(b, nb, alpha / 2.0), 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(np.where(lo > 0, lo, 1.0)) - np.log(hi)
    return np.where(lo > 0, np.maximum(eps, 0.0), 0.0)


def _drop_copies(
    flat: list[tuple[str, Event, int]], rows: np.ndarray, cache: dict[int, np.ndarray]
) -> list[tuple[str, Event, int]]:
    """The candidates without later copies: two candidates of one direction that hold the
    same distinct rows (say a learned-score threshold and a set of values) are one event,
    and testing both would split the budget over copies.  The first (best-ranked) stays.
    """
    seen: set[tuple[str, bytes]] = set()
    kept = []
    for d, e, f in flat:
        key = (d, np.packbits(event_mask(e, rows, cache)).tobytes())
        if key not in seen:
            seen.add(key)
            kept.append((d, e, f))
    return kept
