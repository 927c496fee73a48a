"""Exact output probabilities of report-noisy-max: P(argmax_i (q_i + Z_i) = i).

Gumbel noise gives the softmax of q/β in closed form; any other continuous law is integrated
by vectorised Gauss–Legendre quadrature (:data:`GL_NODES` nodes per piece, the range split at
every q_j), accurate to ~1e-13.  The sum of the probabilities is returned for checking.

References: Durfee & Rogers, NeurIPS 2019; Dwork & Roth 2014, §3.3; Ding, Kifer, Steinke,
Wang, Xiao & Zhang 2021.  Details: ``docs/engine_notes.md``,
"privaudit.auditing.checks._selection".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.spec import Gumbel

__all__ = ["GL_NODES", "selection_probabilities"]

#: Gauss–Legendre nodes per piece of the integration range.
GL_NODES = 24
#: Neglected mass beyond each end of the integration range.
_TAIL_MASS = 1e-18
#: Largest number of (candidate × node) entries held in memory at once.
_BLOCK = 1 << 21

_GL_X, _GL_W = np.polynomial.legendre.leggauss(GL_NODES)


def _scale_of(law: Any) -> float:
    for attr in ("scale", "sigma"):
        value = getattr(law, attr, None)
        if value is not None:
            return float(value)
    return float(math.sqrt(law.variance)) if math.isfinite(law.variance) else 1.0


def _tail_point(law: Any, scale: float, upper: bool) -> float:
    """A t with sf(t) ≤ 1e-18 (upper) or cdf(t) ≤ 1e-18 (lower), found by doubling."""
    t = scale
    for _ in range(2000):
        mass = float(law.sf(t)) if upper else float(law.cdf(-t))
        if mass <= _TAIL_MASS:
            return t if upper else -t
        t *= 2.0
    return t if upper else -t


def _nodes(breaks: np.ndarray, piece: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights on the pieces between sorted ``breaks``."""
    lefts, rights = [], []
    for a, b in zip(breaks[:-1].tolist(), breaks[1:].tolist(), strict=True):
        if b <= a:
            continue
        parts = max(1, math.ceil((b - a) / piece))
        cuts = np.linspace(a, b, parts + 1)
        lefts.append(cuts[:-1])
        rights.append(cuts[1:])
    left, right = np.concatenate(lefts), np.concatenate(rights)
    half = 0.5 * (right - left)
    mid = 0.5 * (right + left)
    z = (mid[:, None] + half[:, None] * _GL_X[None, :]).ravel()
    w = (half[:, None] * _GL_W[None, :]).ravel()
    return z, w


def selection_probabilities(law: Any, scores: Any) -> tuple[np.ndarray, float]:
    """Exact P(argmax_i (q_i + Z_i) = i) for i.i.d. Z_i from ``law``.

    Parameters
    ----------
    law : NoiseLaw
        A continuous law (Gumbel in closed form; others by quadrature).
    scores : array_like
        The score vector q (length m ≥ 1).

    Returns
    -------
    probabilities : numpy.ndarray
        Length m, summing to 1 (renormalised).
    quadrature_error : float
        |Σ P(i) − 1| before renormalisation (0 for the closed form).
    """
    q = np.asarray(scores, dtype=np.float64).ravel()
    m = q.size
    if m == 1:
        return np.ones(1), 0.0
    if isinstance(law, Gumbel):
        u = q / law.scale
        w = np.exp(u - u.max())
        return w / w.sum(), 0.0
    scale = _scale_of(law)
    top = float(q.max())
    z_lo = top + _tail_point(law, scale, upper=False)
    z_hi = top + _tail_point(law, scale, upper=True)
    inside = q[(q > z_lo) & (q < z_hi)]
    breaks = np.unique(np.concatenate([[z_lo, z_hi], inside]))
    z, w = _nodes(breaks, scale)
    total = np.zeros(m)
    block = max(1, _BLOCK // m)
    for start in range(0, z.size, block):
        zz, ww = z[start : start + block], w[start : start + block]
        t = zz[None, :] - q[:, None]  # (m, nodes)
        with np.errstate(divide="ignore"):
            log_cdf = np.log(np.asarray(law.cdf(t), dtype=np.float64))
            log_pdf = np.asarray(law.log_density(t), dtype=np.float64)
        finite_cdf = np.where(np.isfinite(log_cdf), log_cdf, 0.0)
        zero_cdf = np.sum(~np.isfinite(log_cdf), axis=0)  # candidates with F = 0 at z
        log_all = finite_cdf.sum(axis=0)  # log Π_j F(z − q_j) over F > 0
        # Π_{j≠i} F = exp(log_all − log F_i) when F_i > 0 and no other F is 0;
        # when F_i = 0 it is exp(log_all) if i is the only zero, else 0.
        others_zero = zero_cdf[None, :] - (~np.isfinite(log_cdf)).astype(np.int64)
        log_rest = log_all[None, :] - finite_cdf
        with np.errstate(invalid="ignore", over="ignore"):
            integrand = np.where(others_zero == 0, np.exp(log_pdf + log_rest), 0.0)
        integrand = np.where(np.isfinite(log_pdf), integrand, 0.0)
        total += integrand @ ww
    s = float(total.sum())
    return total / s, abs(s - 1.0)
