"""Plots of an audit: empirical trade-off points against the claimed region, and the
privacy profile against the claim.  Needs matplotlib (``pip install privaudit[plot]``).

The claimed region's boundary is the trade-off function implied by the claimed privacy
profile, f(α₀) = max(0, sup_ε [1 − δ(ε) − e^ε α₀], sup_ε e^{−ε}[1 − δ(ε) − α₀])
(Dong, Roth & Su 2022, Prop. 2.12; Kairouz, Oh & Viswanath 2015): every test between
M(D) and M(D′) must have type-II error α₁ ≥ f(α₀).  A point strictly below the curve,
with its confidence box, refutes the claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from privaudit.auditing.outcome.results import EventBound, ProfilePoint
from privaudit.spec import MechanismSpec
from privaudit.spec.errors import AuditError

__all__ = ["PlottableReport", "claimed_tradeoff_curve", "plot_tradeoff"]


class PlottableReport(Protocol):
    """What :func:`plot_tradeoff` reads of a report (an :class:`AuditReport` has it all).

    A structural type, so that this module does not import the report module that
    imports it back.
    """

    @property
    def mechanism(self) -> str: ...

    @property
    def spec(self) -> MechanismSpec: ...

    @property
    def confidence(self) -> float: ...

    @property
    def epsilon_claimed(self) -> float: ...

    @property
    def events(self) -> Sequence[EventBound]: ...

    @property
    def worst_event(self) -> EventBound | None: ...

    @property
    def privacy_profile(self) -> Sequence[ProfilePoint]: ...


def claimed_tradeoff_curve(spec: MechanismSpec, alpha0: np.ndarray) -> np.ndarray:
    """The smallest type-II error the claim allows at each type-I error ``alpha0``."""
    g = spec.guarantee
    own = [getattr(g, "epsilon", 0.0)] if g.kind in {"pure_dp", "approx_dp"} else []
    eps_grid = np.unique(np.concatenate([[0.0], np.geomspace(1e-4, 60.0, 1500), own]))
    deltas = g.privacy_profile(eps_grid)
    a = np.asarray(alpha0, dtype=float)[:, None]
    first = 1.0 - deltas[None, :] - np.exp(eps_grid)[None, :] * a
    second = np.exp(-eps_grid)[None, :] * (1.0 - deltas[None, :] - a)
    return np.clip(np.maximum(first.max(axis=1), second.max(axis=1)), 0.0, 1.0)


def _require_matplotlib() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise AuditError("plotting needs matplotlib: pip install 'privaudit[plot]'") from None
    return plt


def plot_tradeoff(report: PlottableReport, path: str | Path | None = None) -> Any:
    """Draw the trade-off panel and the privacy-profile panel of ``report``.

    Each tested rejection region S gives a point (α₀, α₁) = (P[M(x) ∉ S], P[M(y) ∈ S])
    with a box from the point estimate to the conservative Clopper–Pearson corner
    (1 − p̲ₓ, p̄ᵧ).  Returns the matplotlib figure; saves it when ``path`` is given.
    """
    plt = _require_matplotlib()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.6))
    grid = np.linspace(0.0, 1.0, 401)
    ax.plot(
        grid,
        claimed_tradeoff_curve(report.spec, grid),
        color="black",
        lw=1.5,
        label=f"claimed boundary ({report.spec.guarantee.kind})",
    )
    ax.fill_between(
        grid,
        0,
        claimed_tradeoff_curve(report.spec, grid),
        color="tab:red",
        alpha=0.08,
        label="forbidden by the claim",
    )
    for ev in report.events:
        a0_hat = 1.0 - ev.count_x / ev.samples_x
        a1_hat = ev.count_y / ev.samples_y
        a0_hi, a1_hi = 1.0 - ev.p_x_lower, ev.p_y_upper
        best = report.worst_event is not None and ev == report.worst_event
        color = "tab:red" if best else "tab:blue"
        ax.add_patch(
            plt.Rectangle(
                (a0_hat, a1_hat),
                a0_hi - a0_hat,
                a1_hi - a1_hat,
                fill=False,
                edgecolor=color,
                lw=0.8,
            )
        )
        ax.plot([a0_hat], [a1_hat], "o", ms=3.5, color=color)
    ax.set_xlabel("type-I error α₀ = P[M(x) ∉ S]")
    ax.set_ylabel("type-II error α₁ = P[M(y) ∈ S]")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(f"{report.mechanism}: trade-off (boxes: {100 * report.confidence:g}% CP)")
    ax.legend(loc="upper right", fontsize=8)

    eps_grid = np.linspace(0.0, max(2.0 * report.epsilon_claimed, 1.0), 200)
    ax2.plot(
        eps_grid,
        report.spec.guarantee.privacy_profile(eps_grid),
        color="black",
        label="claimed δ(ε)",
    )
    if report.privacy_profile:
        e = np.array([p.epsilon for p in report.privacy_profile])
        lo = np.array([p.delta_lower_bound for p in report.privacy_profile])
        est = np.array([p.delta_estimate for p in report.privacy_profile])
        ax2.plot(e, est, ".", color="tab:blue", label="estimated δ(ε) at the worst pair")
        ax2.plot(e, lo, "v", color="tab:red", ms=4, label="lower confidence bound")
    ax2.set_yscale("symlog", linthresh=1e-6)
    ax2.set_xlabel("ε")
    ax2.set_ylabel("δ(ε)")
    ax2.set_title("privacy profile")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
