"""The logistic score: L2-regularised logistic regression on a non-collinear feature map.

A distinguishing score for multi-dimensional continuous outputs whose densities are not
declared (DP-Sniper's idea, with a linear model on fixed features), fitted on the search
split only: :func:`fit_logistic` (Newton/IRLS, in numpy) and :class:`LogisticScore`
(:func:`fit_logistic_score`, s(o) = b + w·ψ(o)).

References: Bichsel, Steffen, Bogunovic & Vechev, IEEE S&P 2021; Hastie, Tibshirani &
Friedman, Springer 2009, §4.4.1.  Details (the feature map): ``docs/engine_notes.md``,
"privaudit.auditing.distinguish.logistic".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import special

from privaudit.auditing.distinguish.columns import CATEGORICAL_VALUES, PROBE_ROWS
from privaudit.auditing.distinguish.rows import output_rows
from privaudit.spec.errors import InvalidParameterError

__all__ = ["LogisticScore", "fit_logistic", "fit_logistic_score"]

#: Rows per block when scoring (a block of every column stays in cache).
_BLOCK = 1 << 13


def fit_logistic(
    features: np.ndarray,
    labels: np.ndarray,
    *,
    l2: float = 1.0,
    max_iter: int = 50,
    tol: float = 1e-8,
) -> tuple[np.ndarray, float]:
    """Maximise Σ log-likelihood − (l2/2)‖w‖² over (w, b) by damped Newton steps.

    Parameters
    ----------
    features : array, shape (n, p)
        The design matrix (standardise it first; the intercept is added here and not
        penalised).
    labels : array, shape (n,)
        0/1 labels.
    l2 : float
        Ridge penalty > 0 (keeps the fit finite on separable data).
    max_iter : int
        Newton iterations at most.
    tol : float
        Stop when the largest |step| is below ``tol``.

    Returns
    -------
    weights : numpy.ndarray, shape (p,)
    bias : float

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> z = np.r_[rng.normal(1, 1, 500), rng.normal(-1, 1, 500)][:, None]
    >>> w, b = fit_logistic(z, np.r_[np.ones(500), np.zeros(500)])
    >>> bool(w[0] > 1.0)
    True
    """
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise InvalidParameterError(
            f"need features (n, p) and labels (n,), got {x.shape}, {y.shape}"
        )
    if not l2 > 0:
        raise InvalidParameterError(f"l2 must be > 0, got {l2!r}")
    n, p = x.shape
    design = np.hstack([np.ones((n, 1)), x])
    penalty = np.full(p + 1, float(l2))
    penalty[0] = 1e-8 * n  # intercept: (almost) free
    theta = np.zeros(p + 1)

    def objective(t: np.ndarray) -> float:
        z = design @ t
        return float(np.sum(y * z - np.logaddexp(0.0, z)) - 0.5 * np.sum(penalty * t * t))

    current = objective(theta)
    for _ in range(max_iter):
        z = design @ theta
        prob = special.expit(z)
        grad = design.T @ (y - prob) - penalty * theta
        weight = prob * (1.0 - prob)
        hess = (design * weight[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        scale = 1.0
        while scale > 1e-6:  # damping keeps ascent monotone
            candidate = objective(theta + scale * step)
            if candidate >= current - 1e-12:
                break
            scale *= 0.5
        theta = theta + scale * step
        current = objective(theta)
        if np.max(np.abs(scale * step)) < tol:
            break
    return theta[1:], float(theta[0])


# ----------------------------------------------------------------------------------------
# logistic regression on a non-collinear feature map
# ----------------------------------------------------------------------------------------
#: Largest number of continuous columns for which pairwise products are added.
_PAIRWISE_COLUMNS = 4


@dataclass(frozen=True, eq=False)
class _FeatureMap:
    """ψ(o): indicators, one-hot codes, (z, z², |z|), atom indicators, products."""

    indicator: tuple[tuple[int, float], ...]  # (column, value): 1[o_j == value]
    continuous: tuple[int, ...]
    centre: np.ndarray = field(repr=False)
    scale: np.ndarray = field(repr=False)
    pairs: tuple[tuple[int, int], ...]
    keep: np.ndarray = field(repr=False)  # indices of non-duplicate features

    @property
    def raw_size(self) -> int:
        """Number of features before duplicates are dropped."""
        return len(self.indicator) + 3 * len(self.continuous) + len(self.pairs)

    def raw(self, outputs: np.ndarray) -> np.ndarray:
        o = output_rows(outputs)
        cols: list[np.ndarray] = []
        for j, v in self.indicator:
            cols.append((o[:, j] == v).astype(np.float64))
        zs = []
        for k, j in enumerate(self.continuous):
            z = (np.asarray(o[:, j], dtype=np.float64) - self.centre[k]) / self.scale[k]
            z = np.where(np.isfinite(z), z, 0.0)
            zs.append(z)
            cols.extend([z, z * z, np.abs(z)])
        for a, b in self.pairs:
            cols.append(zs[a] * zs[b])
        if not cols:
            return np.zeros((o.shape[0], 0))
        return np.stack(cols, axis=1)

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return self.raw(outputs)[:, self.keep]


@dataclass(frozen=True, eq=False)
class LogisticScore:
    """s(o) = b + w·ψ(o) for the feature map ψ of :func:`fit_logistic_score`.

    Evaluated as a running weighted sum, column by column, without materialising ψ.
    """

    features: _FeatureMap = field(repr=False)
    weights: np.ndarray = field(repr=False)
    bias: float = 0.0
    name: str = "logistic score"

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        fm = self.features
        o = output_rows(outputs)
        full = np.zeros(fm.raw_size)
        full[fm.keep] = self.weights
        total = np.full(o.shape[0], self.bias, dtype=np.float64)
        # the columns read, once per block of rows and transposed (contiguous columns)
        columns = list(dict.fromkeys([j for j, _ in fm.indicator] + list(fm.continuous)))
        where = {j: i for i, j in enumerate(columns)}
        for start in range(0, o.shape[0], _BLOCK):  # blocks that stay in cache
            read = np.take(o[start : start + _BLOCK], columns, axis=1).T.copy()
            self._add(total[start : start + _BLOCK], read, where, full)
        return total

    def _add(
        self, total: np.ndarray, read: np.ndarray, where: dict[int, int], full: np.ndarray
    ) -> None:
        """Add w·ψ(o) to ``total`` for one block (``read[where[j]]``: column j), term by
        term in the fixed order of the features (the same float operations per row)."""
        fm = self.features
        i = 0
        for j, v in fm.indicator:
            if full[i] != 0.0:
                total += full[i] * (read[where[j]] == v)
            i += 1
        zs = []
        for k, j in enumerate(fm.continuous):
            z = (np.asarray(read[where[j]], dtype=np.float64) - fm.centre[k]) / fm.scale[k]
            z[~np.isfinite(z)] = 0.0
            zs.append(z)
            w1, w2, w3 = full[i : i + 3]
            total += z * (w1 + w2 * z) + w3 * np.abs(z)
            i += 3
        for a, b in fm.pairs:
            if full[i] != 0.0:
                total += full[i] * zs[a] * zs[b]
            i += 1


def fit_logistic_score(
    fit_x: np.ndarray, fit_y: np.ndarray, *, l2: float = 1.0, max_rows: int = 24_000
) -> LogisticScore | None:
    """L2-regularised logistic regression of "came from x" on a non-collinear ψ(o).

    Binary columns give one indicator, other categorical columns (≤ 16 values) a one-hot
    code without its first value, continuous columns (z, z², |z|) plus an indicator per
    atom; with at most four continuous columns the products z_i z_j are added.  Features
    constant or identical to an earlier one on the fitting rows are dropped.
    """
    ox, oy = output_rows(fit_x)[: max_rows // 2], output_rows(fit_y)[: max_rows // 2]
    if ox.shape[0] == 0 or oy.shape[0] == 0:
        return None
    pooled = np.concatenate([ox, oy])
    d = pooled.shape[1]
    indicator: list[tuple[int, float]] = []
    continuous: list[int] = []
    for j in range(d):
        col = np.asarray(pooled[:, j], dtype=np.float64)
        probe = col[:PROBE_ROWS]
        values, counts = np.unique(probe[~np.isnan(probe)], return_counts=True)
        if values.size <= 1:
            continue
        if values.size <= CATEGORICAL_VALUES:
            indicator.extend((j, float(v)) for v in values[1:])
            continue
        continuous.append(j)
        atoms = values[counts >= max(2.0, 0.05 * probe.size)]
        indicator.extend((j, float(v)) for v in atoms)
    if not indicator and not continuous:
        return None
    cont = (
        np.asarray(pooled[:, continuous], dtype=np.float64)
        if continuous
        else np.zeros((pooled.shape[0], 0))
    )
    cont = np.where(np.isfinite(cont), cont, np.nan)
    centre = np.nan_to_num(np.nanmedian(cont, axis=0)) if continuous else np.zeros(0)
    scale = np.nan_to_num(np.nanstd(cont, axis=0), nan=1.0) if continuous else np.zeros(0)
    scale = np.where(scale > 0, scale, 1.0)
    pairs = (
        tuple((a, b) for a in range(len(continuous)) for b in range(a + 1, len(continuous)))
        if 1 < len(continuous) <= _PAIRWISE_COLUMNS
        else ()
    )
    fmap = _FeatureMap(
        indicator=tuple(indicator),
        continuous=tuple(continuous),
        centre=centre,
        scale=scale,
        pairs=pairs,
        keep=np.zeros(0, dtype=int),
    )
    feats = fmap.raw(pooled)
    spread = feats.std(axis=0)
    keep: list[int] = []
    seen: set[bytes] = set()
    for i in range(feats.shape[1]):
        if not spread[i] > 0:
            continue
        digest = np.round(feats[:2048, i], 12).tobytes()
        if digest in seen:
            continue
        seen.add(digest)
        keep.append(i)
    if not keep:
        return None
    keep_arr = np.asarray(keep, dtype=int)
    fmap = _FeatureMap(
        indicator=fmap.indicator,
        continuous=fmap.continuous,
        centre=centre,
        scale=scale,
        pairs=pairs,
        keep=keep_arr,
    )
    feats = feats[:, keep_arr]
    spread = spread[keep_arr]
    labels = np.concatenate([np.ones(ox.shape[0]), np.zeros(oy.shape[0])])
    w, bias = fit_logistic(feats / spread, labels, l2=l2, max_iter=15, tol=1e-6)
    return LogisticScore(features=fmap, weights=w / spread, bias=bias)
