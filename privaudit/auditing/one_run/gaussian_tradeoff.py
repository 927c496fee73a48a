"""An ε estimate that ASSUMES a Gaussian trade-off curve (μ-GDP), labelled as such.

From a Clopper–Pearson lower bound on a test's TPR and upper bound on its FPR,
μ_lb = Φ⁻¹(TPR_lo) − Φ⁻¹(FPR_hi) bounds μ for any μ-GDP mechanism; its conversion to ε(δ)
holds only if the trade-off curve is Gaussian (not for Laplace noise, subsampling or a
shuffled batch).  The estimate is reported beside the assumption-free bound and never used
for a verdict unless the user asks for it.

References: Nasr et al., USENIX Security 2023, §3; Dong, Roth & Su, JRSS-B 2022, Def. 2.6.
Details: ``docs/engine_notes.md``, "privaudit.auditing.one_run.gaussian_tradeoff".
"""

from __future__ import annotations

import math
from typing import Any

from scipy import stats

from privaudit.spec import GaussianDP, SpecModel
from privaudit.spec.validation import check_confidence, check_delta
from privaudit.statistics.clopper_pearson import cp_lower, cp_upper

__all__ = [
    "GAUSSIAN_TRADEOFF_ASSUMPTION",
    "GaussianTradeoffBound",
    "gaussian_tradeoff_estimate",
    "gdp_from_counts",
]

#: The assumption every estimate of this module carries.
GAUSSIAN_TRADEOFF_ASSUMPTION = (
    "assumes the mechanism's trade-off curve is Gaussian (mu-GDP) "
    "and the counted outcomes independent"
)


class GaussianTradeoffBound(SpecModel):
    """μ lower bound from a test's counts and the ε(δ) it implies under the assumption."""

    mu_lower_bound: float
    epsilon: float | None
    delta: float
    confidence: float
    assumption: str = GAUSSIAN_TRADEOFF_ASSUMPTION

    def label(self) -> str:
        """One line, the assumption included."""
        eps = "n/a at delta = 0" if self.epsilon is None else f"{self.epsilon:.4g}"
        return (
            f"Gaussian trade-off estimate: mu >= {self.mu_lower_bound:.4g}, epsilon "
            f"{eps} at delta = {self.delta:g} [{self.assumption}; not a verdict]"
        )


def gdp_from_counts(
    count_x: int, n_x: int, count_y: int, n_y: int, *, delta: float, confidence: float = 0.95
) -> GaussianTradeoffBound:
    """μ-GDP estimate from ``count_x`` of ``n_x`` (true positives) and ``count_y`` of
    ``n_y`` (false positives) of one test.

    Returns
    -------
    GaussianTradeoffBound
        ``mu_lower_bound`` (0 when the counts show nothing) and, for δ > 0, the ε(δ) of
        μ_lb-GDP (:meth:`spec.GaussianDP.epsilon_for_delta`).
    """
    d = check_delta(delta)
    c = check_confidence(confidence)
    half = (1.0 - c) / 2.0
    tpr = float(cp_lower(count_x, n_x, half)) if n_x > 0 else 0.0
    fpr = float(cp_upper(count_y, n_y, half)) if n_y > 0 else 1.0
    mu = 0.0
    if tpr > 0.0 and fpr < 1.0:
        mu = max(0.0, float(stats.norm.ppf(tpr) - stats.norm.ppf(fpr)))
    if not math.isfinite(mu):
        mu = 0.0
    eps: float | None = None
    if d > 0:
        eps = GaussianDP(mu=mu).epsilon_for_delta(d) if mu > 0 else 0.0
    return GaussianTradeoffBound(mu_lower_bound=mu, epsilon=eps, delta=d, confidence=c)


def gaussian_tradeoff_estimate(report: Any) -> GaussianTradeoffBound | None:
    """The μ-GDP estimate from an :class:`~privaudit.auditing.outcome.report.AuditReport`'s worst
    event.

    ``None`` when the report has no Clopper–Pearson event to read (exact audits, pooled
    or rate-ratio events, no distinguishing test).  The estimate carries
    :data:`GAUSSIAN_TRADEOFF_ASSUMPTION`; the report's verdict never uses it — compare
    ``estimate.epsilon`` with the claim yourself if you accept the assumption.
    """
    event = getattr(report, "worst_event", None)
    if event is None or event.method != "clopper_pearson":
        return None
    return gdp_from_counts(
        event.count_x,
        event.samples_x,
        event.count_y,
        event.samples_y,
        delta=report.delta_claimed,
        confidence=report.confidence,
    )
