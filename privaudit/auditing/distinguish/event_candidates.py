"""Candidate *events* of one pair — and the level of each — chosen on the search split only.

:func:`select_events` builds candidates from the families of
:mod:`~privaudit.auditing.distinguish.event_families` on the search outputs of M(x) and M(y),
ranks them (:mod:`~privaudit.auditing.distinguish.event_ranking`) by the ε bound they predict
on the test split, and returns the events to test per direction with their share of the
error budget (:func:`~privaudit.statistics.allocation.plan_events`).  Nothing here looks at
the test split, so the tests of :mod:`~privaudit.auditing.distinguish.pair` stay exact.
Candidate *pairs* are :mod:`privaudit.auditing.search.pair_sources`' job.

References: Ding et al., CCS 2018 (StatDP); Bichsel et al., IEEE S&P 2021 (DP-Sniper);
Lokna et al., CCS 2023.  Details (split of the search sample, families, ranking, levels):
``docs/engine_notes.md``, "privaudit.auditing.distinguish.event_candidates".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privaudit.auditing.distinguish.cell_score import MI_ROWS, CellFit, fit_cell_score
from privaudit.auditing.distinguish.event_families import (
    DIRECTIONS,
    _Candidates,
    _Coded,
    _discrete_code,
    _few_rows,
    _Ids,
    _pattern_values,
    _Sorted,
    _thresholds,
    _value_sets,
)
from privaudit.auditing.distinguish.event_ranking import _conservative, _drop_copies, _pool
from privaudit.auditing.distinguish.events import (
    AbsDeviation,
    Coordinate,
    Event,
    Feature,
    OrderStatistic,
    event_mask,
    fill_feature_cache,
)
from privaudit.auditing.distinguish.logistic import fit_logistic_score
from privaudit.auditing.distinguish.patterns import pattern_structure
from privaudit.auditing.distinguish.rows import checked_rows, is_discrete, row_table
from privaudit.spec.errors import AuditError
from privaudit.statistics.allocation import equal_rate_prior, plan_events

__all__ = ["DIRECTIONS", "SelectedEvents", "select_events"]

#: Rows per side on which the kind of output (discrete or not, the values of each
#: column for exact-value sets) is decided.
_KIND_ROWS = 1 << 16
#: Largest number of coordinates given half-line events.
_MAX_COORDINATES = 64
#: With a declared LLR, outputs of at most this many columns also get a naive-Bayes score.
_LLR_LEARNED_DIMS = 8
#: Learned scores whose candidates reach the plan (each costs a pass over the test split).
_MAX_LEARNED = 2
#: Largest number of rows per side on which a fixed feature's thresholds are counted.
_RANK_ROWS = 1 << 17
#: The same for the half-lines and intervals of a black-box scalar output (one sort of
#: at most this many values per side).
_SCALAR_RANK_ROWS = 1 << 22
#: The same for learned scores (counted on part B only).
_LEARNED_RANK_ROWS = 1 << 20
#: Share of the search split that fits learned scores (part A).
_FIT_SHARE = 0.5
#: Share of the search split that judges the kept candidates (part C, with a budget).
_JUDGE_SHARE = 0.25
#: Pseudo-count of the joint-cell LLR (joint cells are many and small).
_JOINT_SMOOTHING = 5.0
#: Level of the conservative estimates on part C that centre the plan's posterior.
_JUDGE_LEVEL = 0.025
#: Fewest rows per side in part A for learned scores to be fitted.
_MIN_FIT_ROWS = 200
#: Most distinct rows of a search split counted through a row table (every distinct value
#: of a feature is then a candidate threshold).
_TABLE_ROWS = 4096


@dataclass(frozen=True)
class SelectedEvents:
    """The events chosen on the search split, per direction, their levels, the families.

    ``levels_x_vs_y[i]`` is the error share α_i spent on ``x_vs_y[i]`` (its two CP bounds
    at α_i/2 each), likewise for ``y_vs_x``; empty level tuples mean "the ``alpha``
    passed to :func:`select_events`, for every event".  ``expected_epsilon`` (planned
    selections only) is the plan's objective: the posterior mean, from the judging part
    of the search split, of the best bound the test will report.
    """

    x_vs_y: tuple[Event, ...]
    y_vs_x: tuple[Event, ...]
    families: tuple[str, ...]
    levels_x_vs_y: tuple[float, ...] = ()
    levels_y_vs_x: tuple[float, ...] = ()
    expected_epsilon: float = 0.0

    def for_direction(self, direction: str) -> tuple[Event, ...]:
        """The events of ``direction`` (``"x_vs_y"`` or ``"y_vs_x"``)."""
        return self.x_vs_y if direction == "x_vs_y" else self.y_vs_x

    def levels_for(self, direction: str) -> tuple[float, ...]:
        """The levels of ``direction``'s events (empty: the common ``alpha``)."""
        return self.levels_x_vs_y if direction == "x_vs_y" else self.levels_y_vs_x


# ----------------------------------------------------------------------------------------
# selection
# ----------------------------------------------------------------------------------------
def select_events(
    search_x: np.ndarray,
    search_y: np.ndarray,
    *,
    delta: float,
    alpha: float,
    events_per_direction: int = 8,
    llr: Feature | None = None,
    llr_search: tuple[np.ndarray, np.ndarray] | None = None,
    budget: float | None = None,
    test_samples: int | None = None,
    learned: bool = True,
    llr_thresholds: bool = True,
    rate_ratio: bool = False,
    prior_outputs: float = 0.0,
) -> SelectedEvents:
    """Choose up to K events per direction (and their levels) from the search outputs only.

    Parameters
    ----------
    search_x, search_y : numpy.ndarray
        Search-split outputs of M(x) and M(y), shape (n,) or (n, d).
    delta : float
        The claimed δ at which candidates are ranked.
    alpha : float
        The per-event test level α_e used when no ``budget`` is given (each event's CP
        bounds at α_e/2 per side); with a budget, the reference level of the ranking.
    events_per_direction : int
        K: candidates kept per direction (with a budget: at most 2K are tested).
    llr : Feature, optional
        The declared log-likelihood ratio log p_x − log p_y (family (a)).
    llr_search : pair of arrays, optional
        ``llr`` already evaluated on ``search_x`` and ``search_y``.
    budget : float, optional
        The α shared by all event tests; the levels are then planned from the search
        counts (``docs/engine_notes.md``,
        "privaudit.auditing.distinguish.event_candidates") and returned with the events.
    test_samples : int, optional
        Test outputs per side (default: the search size); candidates are ranked by the
        bound they are expected to give at this size.
    learned : bool
        Fit learned scores (histogram, cell, logistic); off, only fixed features and
        exact values are used.
    llr_thresholds : bool
        Include family (a) when ``llr`` is given.  Off when the caller tests LLR
        thresholds planned from the declared law already: the declared LLR then only
        marks the densities as declared (so the black-box families are not needed).
    rate_ratio : bool
        The test split is Poissonised and the claim pure, so each event may be bounded
        with the rate-ratio bound: candidates are ranked and planned by the larger of
        the two predicted bounds.
    prior_outputs : float
        Pseudo-outputs at equal rates added to the judging counts before the plan
        (:func:`~privaudit.statistics.allocation.equal_rate_prior`; default 0).

    Returns
    -------
    SelectedEvents
    """
    ox, oy = checked_rows(search_x), checked_rows(search_y)
    if ox.ndim != oy.ndim or (ox.ndim == 2 and ox.shape[1] != oy.shape[1]):
        raise AuditError(f"outputs on x and y differ in shape: {ox.shape} vs {oy.shape}")
    found = _Search(ox, oy, planned=budget is not None, learned=learned)
    if found.discrete and _few_rows(found.rank_x):
        found.exact_values()
    if llr is not None and llr_thresholds:
        lx, ly = llr_search if llr_search is not None else (llr(ox), llr(oy))
        found.thresholds(llr, 0, 0, 1, {"x_vs_y": ("ge",), "y_vs_x": ("le",)}, values=(lx, ly))
        found.families.append("LLR thresholds")
    if found.dims == 1:
        found.scalar_families(llr)
    else:
        found.vector_families(llr)
    k = int(events_per_direction)
    if budget is None:
        chosen = {
            d: _pool(found.per_dir[d], delta=delta, alpha=alpha, k=k, test_samples=None, exact=True)
            for d in DIRECTIONS
        }
        return SelectedEvents(
            x_vs_y=tuple(f.build(i) for f, i, _ in chosen["x_vs_y"]),
            y_vs_x=tuple(f.build(i) for f, i, _ in chosen["y_vs_x"]),
            families=tuple(found.families),
        )
    return _planned_selection(
        found,
        delta=delta,
        k=k,
        budget=budget,
        test_samples=test_samples,
        rate_ratio=rate_ratio,
        prior_outputs=prior_outputs,
    )


class _Search:
    """The search split cut into its parts, and the candidates found on them so far.

    Parts: A = [0, h) fits learned scores, B = [h, r) counts their thresholds, fixed
    features are counted on [0, r); with a budget, C = [r, n) judges the kept candidates.
    Outputs of few distinct small-integer rows (sparse-vector codes, bit vectors) are
    held as a :class:`~privaudit.auditing.distinguish.rows.RowTable` (``table``): every feature is
    evaluated once per distinct row and counted with the rows' multiplicities in each
    part — exactly the counts of a pass over the rows.
    """

    def __init__(self, ox: np.ndarray, oy: np.ndarray, *, planned: bool, learned: bool) -> None:
        self.ox, self.oy = ox, oy
        n_x, n_y = ox.shape[0], oy.shape[0]
        self.n_x, self.n_y = n_x, n_y
        # the kind of output is decided on a probe of each side (a full pass over millions
        # of rows for np.unique(axis=0) would cost more than everything else)
        self.pooled = np.concatenate([ox[:_KIND_ROWS], oy[:_KIND_ROWS]])
        self.discrete = is_discrete(self.pooled)
        self.dims = 1 if ox.ndim == 1 else ox.shape[1]
        self.per_dir: dict[str, list[_Candidates]] = {d: [] for d in DIRECTIONS}
        self.families: list[str] = []
        self.ids = _Ids()
        self.hx, self.hy = hx, hy = int(n_x * _FIT_SHARE), int(n_y * _FIT_SHARE)
        self.rx, self.ry = rx, ry = (
            (n_x - int(n_x * _JUDGE_SHARE), n_y - int(n_y * _JUDGE_SHARE))
            if planned
            else (n_x, n_y)
        )
        self.fit_x, self.fit_y = ox[:hx], oy[:hy]
        self.cnt_x, self.cnt_y = ox[hx:rx], oy[hy:ry]
        self.rank_x, self.rank_y = ox[:rx], oy[:ry]
        self.can_learn = learned and min(hx, hy) >= _MIN_FIT_ROWS and min(rx - hx, ry - hy) > 0
        self.table = (
            row_table(ox, oy, max_rows=_TABLE_ROWS) if self.discrete and ox.ndim == 2 else None
        )

    def thresholds(
        self,
        feature: Feature,
        start_x: int,
        start_y: int,
        priority: int,
        sides: dict[str, tuple[str, ...]] | None = None,
        limit: int = _RANK_ROWS,
        group: str = "",
        values: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Threshold candidates of ``feature`` counted on rows [start, start + limit) of
        each side's ranking part (``values``: the feature on the whole search split,
        already computed).  With a row table the feature is evaluated once per distinct
        row and counted with the rows' multiplicities: the same counts."""
        table = self.table
        stop_x, stop_y = min(self.rx, start_x + limit), min(self.ry, start_y + limit)
        if table is not None and values is None:
            on_rows = feature(table.rows)
            wx, wy = table.counts(0, start_x, stop_x), table.counts(1, start_y, stop_y)
            sf = _Sorted.of(feature, on_rows, on_rows, wx, wy)
            nx_, ny_ = int(wx.sum()), int(wy.sum())
        else:
            vx = (
                values[0][start_x:stop_x]
                if values is not None
                else feature(self.ox[start_x:stop_x])
            )
            vy = (
                values[1][start_y:stop_y]
                if values is not None
                else feature(self.oy[start_y:stop_y])
            )
            sf = _Sorted.of(feature, vx, vy)
            nx_, ny_ = len(vx), len(vy)
        for direction in DIRECTIONS:
            for side in (sides or {}).get(direction, ("ge", "le")):
                self.per_dir[direction].append(
                    _thresholds(sf, direction, side, priority, self.ids(), nx_, ny_, group)
                )

    def learned_score(self, score: Feature | None, family: str) -> None:
        """Threshold candidates of a score fitted on part A, counted on part B."""
        if score is None:
            return
        start = {d: len(self.per_dir[d]) for d in DIRECTIONS}
        self.thresholds(score, self.hx, self.hy, 3, limit=_LEARNED_RANK_ROWS)
        for d in DIRECTIONS:
            for fam in self.per_dir[d][start[d] :]:
                fam.learned_id = id(score)
        self.families.append(family)

    def exact_values(self) -> None:
        """Sets of exact values (or rows) of a discrete output: prefixes by ratio, and
        single values (:func:`_value_sets`)."""
        code = _discrete_code(self.pooled)
        if code is None:
            return
        table, hx, hy, rx, ry = self.table, self.hx, self.hy, self.rx, self.ry
        fx: _Coded
        fy: _Coded
        kx: _Coded
        ky: _Coded
        ax: _Coded
        ay: _Coded
        if table is None:
            cx, cy = code(self.rank_x), code(self.rank_y)
            fx, fy = (cx[:hx], None), (cy[:hy], None)
            kx, ky = (cx[hx:], None), (cy[hy:], None)
            ax, ay = (cx, None), (cy, None)
        else:
            on_rows = code(table.rows)
            fx, fy = (on_rows, table.counts(0, 0, hx)), (on_rows, table.counts(1, 0, hy))
            kx = (on_rows, table.counts(0, hx, rx))
            ky = (on_rows, table.counts(1, hy, ry))
            ax, ay = (on_rows, table.counts(0, 0, rx)), (on_rows, table.counts(1, 0, ry))
        if min(hx, hy) < 1 or min(rx - hx, ry - hy) < 1:
            fx, fy, kx, ky = ax, ay, ax, ay
        fam_xy = _value_sets(code, fx, fy, kx, ky, ax, ay, 0, self.ids)
        fam_yx = _value_sets(code, fy, fx, ky, kx, ay, ax, 0, self.ids)
        if fam_xy and fam_yx:
            self.per_dir["x_vs_y"].extend(fam_xy)
            self.per_dir["y_vs_x"].extend(fam_yx)
            self.families.append("exact values")

    def scalar_families(self, llr: Feature | None) -> None:
        """Half-lines of a 1-D output; without a declared LLR also two-sided intervals
        and (continuous outputs) a histogram LLR."""
        feature = Coordinate()
        vx, vy = feature(self.rank_x), feature(self.rank_y)
        hx, hy = self.hx, self.hy
        # with a declared LLR these are a robustness check: fewer rows suffice
        self.thresholds(
            feature,
            0,
            0,
            2,
            values=(vx, vy),
            limit=_RANK_ROWS // 2 if llr is not None else _SCALAR_RANK_ROWS,
        )
        self.families.append("half-lines")
        if not self.discrete and llr is None:
            centre = (
                float(np.median(np.concatenate([vx[:hx], vy[:hy]])))
                if hx and hy
                else float(np.median(np.concatenate([vx, vy])))
            )
            dev = AbsDeviation(centre)
            self.thresholds(dev, 0, 0, 2, limit=_SCALAR_RANK_ROWS)
            self.families.append("two-sided intervals")
        if not self.discrete and llr is None and self.can_learn:
            self.learned_score(
                fit_cell_score(
                    self.fit_x, self.fit_y, groups="columns", bins=64, name="histogram LLR"
                ),
                "histogram LLR",
            )

    def vector_families(self, llr: Feature | None) -> None:
        """Coordinate half-lines of a d-dimensional output and the learned scores."""
        # with a declared LLR, per-coordinate half-lines only guard against a deviating
        # implementation, which the naive-Bayes score below covers: a few coordinates do
        coords = min(self.dims, _MAX_COORDINATES if llr is None else 4)
        for j in range(coords):
            self.thresholds(Coordinate(index=j, name=f"output[{j}]"), 0, 0, 2, group="coordinates")
        self.families.append("coordinate half-lines")
        if llr is None and not self.discrete:
            # one shifted coordinate at an unknown position (shuffled batches)
            for kind in ("max", "min"):
                self.thresholds(OrderStatistic(kind=kind), 0, 0, 2, group="order statistics")
            self.families.append("order statistics")
        # with a declared LLR the naive-Bayes score is a cheap check of the declared law
        # (it would cost a pass over every column of the test split if chosen)
        if self.can_learn and (llr is None or self.dims <= _LLR_LEARNED_DIMS):
            self.learned_families(llr)

    def learned_families(self, llr: Feature | None) -> None:
        """The cell scores (naive Bayes; without a declared LLR also monotone, grouped,
        joint, whitened), the logistic score and pattern-conditional value thresholds."""
        table, hx, hy = self.table, self.hx, self.hy
        fit_x, fit_y, discrete = self.fit_x, self.fit_y, self.discrete
        ctx = None
        if table is not None:
            # the first MI_ROWS pooled fitting rows (x's first) feed the G-test
            ctx = CellFit.from_distinct_rows(
                table.rows,
                table.counts(0, 0, hx),
                table.counts(1, 0, hy),
                table.counts(0, 0, min(hx, MI_ROWS)),
                table.counts(1, 0, min(hy, max(0, MI_ROWS - hx))),
            )
        if ctx is None:
            ctx = CellFit(fit_x, fit_y)
        self.learned_score(
            fit_cell_score(None, None, groups="columns", context=ctx), "naive-Bayes LLR"
        )
        if llr is not None:
            return
        self.learned_score(
            fit_cell_score(None, None, groups="columns", monotone=True, context=ctx),
            "monotone naive-Bayes LLR",
        )
        grouped = fit_cell_score(None, None, groups="grouped", monotone=True, context=ctx)
        self.learned_score(grouped, "grouped LLR")
        self.learned_score(
            fit_cell_score(
                None, None, groups="joint", bins=8, smoothing=_JOINT_SMOOTHING, context=ctx
            ),
            "joint-cell LLR",
        )
        continuous = not any(c.exact for c in ctx.coded(32)[0])
        if not discrete and continuous:
            self.learned_score(
                fit_cell_score(fit_x, fit_y, groups="columns", whiten=True, monotone=True),
                "whitened naive-Bayes LLR",
            )
        if not discrete:
            self.learned_score(fit_logistic_score(fit_x, fit_y), "logistic score")
        structure = pattern_structure(self.pooled) if not discrete else None
        if structure is not None:
            # the cell fit's columns are the fitting rows themselves unless it was built
            # from distinct rows (weights)
            pooled = ctx.columns if ctx.weights is None else None
            for d, fams in _pattern_values(
                structure,
                fit_x,
                fit_y,
                self.cnt_x,
                self.cnt_y,
                self.ids,
                grouped,
                pooled_columns=pooled,
            ).items():
                self.per_dir[d].extend(fams)
            self.families.append("pattern-conditional value thresholds")


def _planned_selection(
    found: _Search,
    *,
    delta: float,
    k: int,
    budget: float,
    test_samples: int | None,
    rate_ratio: bool,
    prior_outputs: float,
) -> SelectedEvents:
    """Rank the candidates, keep at most :data:`_MAX_LEARNED` learned scores, judge the
    kept candidates on part C and plan how many to test and at which levels
    (:func:`~privaudit.statistics.allocation.plan_events`)."""
    ox, oy, table, rx, ry = found.ox, found.oy, found.table, found.rx, found.ry
    per_dir, families = found.per_dir, found.families
    n_test = int(test_samples) if test_samples is not None else max(found.n_x, found.n_y)
    reference = budget / 4.0
    chosen = {
        d: _pool(
            per_dir[d],
            delta=delta,
            alpha=reference,
            k=k,
            test_samples=n_test,
            exact=False,
            rate_ratio=rate_ratio,
            steady=found.dims == 1,
        )
        for d in DIRECTIONS
    }
    # learned scores cost a pass over every test output each: keep the candidates of at
    # most _MAX_LEARNED of them, in pool order (a pool's rankings take turns, so its
    # second ranking's learned score is not crowded out by the first's), fixed features
    # are cheap
    ranked = sorted(
        ((pos, -s_, f) for d in DIRECTIONS for pos, (f, _i, s_) in enumerate(chosen[d])),
        key=lambda t: t[:2],
    )
    allowed: list[int] = []
    for _pos, _s, f in ranked:
        if f.priority == 3 and f.learned_id not in allowed and len(allowed) < _MAX_LEARNED:
            allowed.append(f.learned_id)
    flat = [
        (d, f.build(i), f.feature)
        for d in DIRECTIONS
        for f, i, _ in chosen[d]
        if f.priority != 3 or f.learned_id in allowed
    ]
    if not flat:
        return SelectedEvents((), (), tuple(families))
    # judge the kept candidates on part C, which took no part in choosing them
    judge = {"x": ox[rx:], "y": oy[ry:]}
    caches: dict[str, dict[int, np.ndarray]] = {"x": {}, "y": {}}
    judge_weights = None if table is None else {"x": table.counts(0, rx), "y": table.counts(1, ry)}

    judge_rows = None if table is None else table.rows
    flat_events = [e for _d, e, _f in flat]
    if judge_rows is not None:
        fill_feature_cache(flat_events, judge_rows, caches["x"])
    else:
        for side in "xy":
            fill_feature_cache(flat_events, judge[side], caches[side])

    def count(event: Event, side: str) -> int:
        if judge_weights is not None and judge_rows is not None:
            mask = event_mask(event, judge_rows, caches["x"])  # one cache: same rows
            return int(judge_weights[side][mask].sum())
        return int(np.count_nonzero(event_mask(event, judge[side], caches[side])))

    if table is not None:
        flat = _drop_copies(flat, table.rows, caches["x"])

    count_a = np.array([count(e, "x" if d == "x_vs_y" else "y") for d, e, _ in flat])
    count_b = np.array([count(e, "y" if d == "x_vs_y" else "x") for d, e, _ in flat])
    size_a = np.array([judge["x" if d == "x_vs_y" else "y"].shape[0] for d, _e, _f in flat])
    size_b = np.array([judge["y" if d == "x_vs_y" else "x"].shape[0] for d, _e, _f in flat])
    fid = np.array([f for _d, _e, f in flat])
    # a posterior centred on raw counts rewards wide posteriors (the max of noisy values);
    # centring it on conservative estimates keeps the plan from betting on small counts
    if prior_outputs > 0:
        count_a, count_b = equal_rate_prior(count_a, size_a, count_b, size_b, prior_outputs)
    lo, hi = _conservative(count_a, size_a, count_b, size_b, _JUDGE_LEVEL)
    plan = plan_events(
        lo * size_a,
        size_a,
        hi * size_b,
        size_b,
        feature=fid,
        budget=budget,
        test_a=n_test,
        test_b=n_test,
        delta=delta,
        max_events=2 * k,
        rate_ratio=rate_ratio,
    )
    events: dict[str, list[Event]] = {d: [] for d in DIRECTIONS}
    levels: dict[str, list[float]] = {d: [] for d in DIRECTIONS}
    for j, level in zip(plan.chosen, plan.levels, strict=True):
        d, e, _f = flat[j]
        events[d].append(e)
        levels[d].append(float(level))
    return SelectedEvents(
        x_vs_y=tuple(events["x_vs_y"]),
        y_vs_x=tuple(events["y_vs_x"]),
        families=tuple(families),
        levels_x_vs_y=tuple(levels["x_vs_y"]),
        levels_y_vs_x=tuple(levels["y_vs_x"]),
        expected_epsilon=float(plan.objective),
    )
