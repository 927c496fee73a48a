"""The figures of the HTML report (:mod:`privaudit.interfaces.html_report`), as inline SVG: the
trade-off and privacy-profile panels drawn by
:func:`privaudit.auditing.outcome.plotting.plot_tradeoff`
(matplotlib) or, without it, by a small built-in SVG drawing, and the exact δ(ε) profile of
a finite randomizer.  The trade-off is that of Wasserman & Zhou (JASA 2010); the boxes are
Clopper–Pearson intervals (Biometrika 1934).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from privaudit.interfaces.html_text import _e, _pct
from privaudit.spec.errors import AuditError

if TYPE_CHECKING:  # pragma: no cover
    from privaudit.auditing.exact.privacy import ExactAuditResult
    from privaudit.auditing.outcome.report import AuditReport

__all__ = ["FigureMode"]

#: How figures are drawn: ``"auto"`` (matplotlib when installed, else the built-in SVG),
#: ``"matplotlib"`` (fail without it) or ``"builtin"`` (never use matplotlib).
FigureMode = Literal["auto", "matplotlib", "builtin"]

_RED = "#c62828"
_BLUE = "#1f5fa8"
_GREEN = "#2e7d32"
_INK = "#1f2933"
_MUTED = "#6b7785"


def _log_delta_ticks(floor: int) -> list[tuple[float, str]]:
    """Ticks of a log₁₀ δ axis from 10^floor (shown as "≤", where smaller δ are drawn) to 1."""
    step = max(1, -floor // 6)
    ticks = [(float(k), "1" if k == 0 else f"1e{k}") for k in range(floor, 1, step)]
    ticks[0] = (float(floor), f"≤ 1e{floor}")
    return ticks


def _exact_svg(exact: ExactAuditResult, report: AuditReport) -> str:
    """A small SVG of the exact δ(ε) against the claimed profile (log δ axis)."""
    pts = [p for p in exact.profile if math.isfinite(p.epsilon)]
    e_max = max([p.epsilon for p in pts] + [1e-9])
    e_grid = np.linspace(0.0, e_max, 200)
    claimed = np.asarray(report.spec.guarantee.privacy_profile(e_grid), dtype=float)
    positive = [v for v in list(claimed) + [p.delta_exact for p in pts] if v > 0]
    floor = max(-12, min(-6, math.floor(math.log10(min(positive))) if positive else -6))
    ax = _Axes(80, 40, 420, 220, (0.0, e_max), (float(floor), 0.0))

    def lg(v: float) -> float:
        return math.log10(v) if v > 0 else float(floor)

    exact_y = [lg(p.delta_exact) for p in pts]
    parts = [
        (
            '<svg viewBox="0 0 560 360" role="img" aria-label="exact privacy profile" '
            'font-family="sans-serif" font-size="12" fill="#1f2933">'
        ),
        '<rect width="560" height="360" fill="#ffffff"/>',
        (
            f'<polyline points="{ax.points(e_grid, [lg(v) for v in claimed])}" fill="none" '
            f'stroke="{_INK}" stroke-width="1.6"/>'
        ),
        (
            f'<polyline points="{ax.points([p.epsilon for p in pts], exact_y)}" '
            f'fill="none" stroke="{_BLUE}" stroke-width="1.2"/>'
        ),
    ]
    for p in pts:
        color = _RED if p.violated else _BLUE
        parts.append(
            f'<circle cx="{ax.x(p.epsilon):.2f}" cy="{ax.y(lg(p.delta_exact)):.2f}" '
            f'r="3" fill="{color}"/>'
        )
    e_ticks = [(float(t), f"{t:.3g}") for t in np.linspace(0.0, e_max, 5)]
    y_ticks = _log_delta_ticks(floor)
    parts.append(ax.frame(e_ticks, y_ticks, "ε", "δ(ε)", "exact privacy profile"))
    parts.append(
        _legend(
            ax.left,
            ax.top + ax.height + 62,
            [
                (
                    f'<line x1="0" x2="16" y1="0" y2="0" stroke="{_INK}" stroke-width="1.6"/>',
                    "claimed δ(ε)",
                ),
                (f'<circle cx="8" cy="0" r="3" fill="{_BLUE}"/>', "exact δ(ε), worst of the pairs"),
                (f'<circle cx="8" cy="0" r="3" fill="{_RED}"/>', "exact δ(ε) above the claim"),
            ],
        )
    )
    parts.append("</svg>")
    return "".join(parts)


def _matplotlib_svg(report: AuditReport) -> str:
    """The two panels of :func:`~privaudit.auditing.outcome.plotting.plot_tradeoff` as an inline
    <svg>."""
    from privaudit.auditing.outcome.plotting import _require_matplotlib, plot_tradeoff

    plt = _require_matplotlib()
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "privaudit", "svg.fonttype": "path"}):
        fig = plot_tradeoff(report)
        try:
            buf = io.StringIO()
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
        finally:
            plt.close(fig)
    return _inline_svg(buf.getvalue())


def _inline_svg(text: str) -> str:
    """Make an SVG document embeddable: no prolog, metadata, namespaces or fixed size."""
    start = text.find("<svg")
    if start < 0:
        raise AuditError("matplotlib produced no <svg> element")
    text = text[start:]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.DOTALL)
    head_end = text.find(">")
    head = text[:head_end]
    head = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", head)
    head = re.sub(r'\s+(width|height)="[^"]*"', "", head)
    head += ' role="img" aria-label="trade-off and privacy profile"'
    return head + text[head_end:]


class _Axes:
    """A linear map from data to SVG coordinates for one panel of the built-in drawing."""

    def __init__(
        self,
        left: float,
        top: float,
        width: float,
        height: float,
        xlim: tuple[float, float],
        ylim: tuple[float, float],
    ) -> None:
        self.left, self.top, self.width, self.height = left, top, width, height
        self.xlim, self.ylim = xlim, ylim

    def x(self, v: float) -> float:
        lo, hi = self.xlim
        return self.left + self.width * (min(max(v, lo), hi) - lo) / (hi - lo)

    def y(self, v: float) -> float:
        lo, hi = self.ylim
        return self.top + self.height * (1 - (min(max(v, lo), hi) - lo) / (hi - lo))

    def points(self, xs: Iterable[float], ys: Iterable[float]) -> str:
        return " ".join(f"{self.x(a):.2f},{self.y(b):.2f}" for a, b in zip(xs, ys, strict=True))

    def frame(
        self,
        xticks: Sequence[tuple[float, str]],
        yticks: Sequence[tuple[float, str]],
        xlabel: str,
        ylabel: str,
        title: str,
    ) -> str:
        out = [
            (
                f'<rect x="{self.left}" y="{self.top}" width="{self.width}" '
                f'height="{self.height}" fill="none" stroke="{_INK}" stroke-width="1"/>'
            )
        ]
        bottom = self.top + self.height
        for v, label in xticks:
            x = self.x(v)
            out.append(
                f'<line x1="{x:.2f}" x2="{x:.2f}" y1="{bottom}" y2="{bottom + 5}" '
                f'stroke="{_INK}"/><text x="{x:.2f}" y="{bottom + 19}" '
                f'text-anchor="middle">{_e(label)}</text>'
            )
        for v, label in yticks:
            y = self.y(v)
            out.append(
                f'<line x1="{self.left - 5}" x2="{self.left}" y1="{y:.2f}" y2="{y:.2f}" '
                f'stroke="{_INK}"/><text x="{self.left - 8}" y="{y + 4:.2f}" '
                f'text-anchor="end">{_e(label)}</text>'
            )
        cx = self.left + self.width / 2
        out.append(f'<text x="{cx:.1f}" y="{bottom + 40}" text-anchor="middle">{_e(xlabel)}</text>')
        cy = self.top + self.height / 2
        out.append(
            f'<text transform="translate({self.left - 52:.1f},{cy:.1f}) rotate(-90)" '
            f'text-anchor="middle">{_e(ylabel)}</text>'
        )
        out.append(
            f'<text x="{cx:.1f}" y="{self.top - 12}" text-anchor="middle" '
            f'font-weight="bold">{_e(title)}</text>'
        )
        return "".join(out)


def _legend(x: float, y: float, items: Sequence[tuple[str, str]]) -> str:
    out = []
    for i, (swatch, label) in enumerate(items):
        yy = y + 17 * i
        out.append(
            f'<g transform="translate({x:.1f},{yy:.1f})">{swatch}'
            f'<text x="22" y="4" font-size="11">{_e(label)}</text></g>'
        )
    return "".join(out)


def _builtin_svg(report: AuditReport) -> str:
    """A pure-SVG drawing of the trade-off and profile panels (no matplotlib needed)."""
    from privaudit.auditing.outcome.plotting import claimed_tradeoff_curve

    parts = [
        (
            '<svg viewBox="0 0 1000 500" role="img" aria-label="trade-off and privacy '
            'profile" font-family="sans-serif" font-size="12" fill="#1f2933">'
        ),
        '<rect width="1000" height="500" fill="#ffffff"/>',
    ]
    ticks = [(t, f"{t:g}") for t in (0.0, 0.25, 0.5, 0.75, 1.0)]

    # trade-off panel
    ax = _Axes(80, 40, 340, 320, (0.0, 1.0), (0.0, 1.0))
    grid = np.linspace(0.0, 1.0, 201)
    curve = claimed_tradeoff_curve(report.spec, grid)
    region = ax.points(np.concatenate([grid, [1.0, 0.0]]), np.concatenate([curve, [0.0, 0.0]]))
    parts.append(f'<polygon points="{region}" fill="{_RED}" fill-opacity="0.08" stroke="none"/>')
    parts.append(
        f'<polyline points="{ax.points(grid, curve)}" fill="none" stroke="{_INK}" '
        'stroke-width="1.6"/>'
    )
    ordered = sorted(report.events, key=lambda e: e == report.worst_event)
    for ev in ordered:
        a0, a1 = 1.0 - ev.count_x / ev.samples_x, ev.count_y / ev.samples_y
        b0, b1 = 1.0 - ev.p_x_lower, ev.p_y_upper
        color = _RED if report.worst_event is not None and ev == report.worst_event else _BLUE
        x, y = ax.x(a0), ax.y(b1)
        parts.append(
            f'<rect x="{x:.2f}" y="{y:.2f}" width="{max(ax.x(b0) - x, 0.8):.2f}" '
            f'height="{max(ax.y(a1) - y, 0.8):.2f}" fill="none" stroke="{color}" '
            'stroke-width="1"/>'
        )
        parts.append(f'<circle cx="{ax.x(a0):.2f}" cy="{ax.y(a1):.2f}" r="3" fill="{color}"/>')
    parts.append(
        ax.frame(
            ticks,
            ticks,
            "type-I error α₀ = P[M(x) ∉ S]",
            "type-II error α₁ = P[M(y) ∈ S]",
            f"trade-off (boxes: {_pct(report.confidence)} CP)",
        )
    )
    parts.append(
        _legend(
            ax.left,
            ax.top + ax.height + 62,
            [
                (
                    f'<line x1="0" x2="16" y1="0" y2="0" stroke="{_INK}" stroke-width="1.6"/>',
                    f"claimed boundary ({report.spec.guarantee.kind})",
                ),
                (
                    f'<rect x="0" y="-5" width="16" height="10" fill="{_RED}" '
                    'fill-opacity="0.15"/>',
                    "forbidden by the claim",
                ),
                (f'<circle cx="8" cy="0" r="3" fill="{_BLUE}"/>', "tested event"),
                (f'<circle cx="8" cy="0" r="3" fill="{_RED}"/>', "worst event"),
            ],
        )
    )

    # privacy-profile panel (log δ axis)
    prof = report.privacy_profile
    claim = report.epsilon_claimed
    e_max = max([2.0 * claim if math.isfinite(claim) else 1.0, 1.0] + [p.epsilon for p in prof])
    e_grid = np.linspace(0.0, e_max, 200)
    claimed = np.asarray(report.spec.guarantee.privacy_profile(e_grid), dtype=float)
    positive = [
        v
        for v in list(claimed)
        + [p.delta_estimate for p in prof]
        + [p.delta_lower_bound for p in prof]
        if v > 0
    ]
    floor = max(-12, min(-6, math.floor(math.log10(min(positive))) if positive else -6))
    ax2 = _Axes(600, 40, 360, 320, (0.0, e_max), (float(floor), 0.0))

    def lg(v: float) -> float:
        return math.log10(v) if v > 0 else float(floor)

    parts.append(
        f'<polyline points="{ax2.points(e_grid, [lg(v) for v in claimed])}" '
        f'fill="none" stroke="{_INK}" stroke-width="1.6"/>'
    )
    for p in prof:
        parts.append(
            f'<circle cx="{ax2.x(p.epsilon):.2f}" cy="{ax2.y(lg(p.delta_estimate)):.2f}" '
            f'r="2.6" fill="{_BLUE}"/>'
        )
        x, y = ax2.x(p.epsilon), ax2.y(lg(p.delta_lower_bound))
        parts.append(
            f'<polygon points="{x - 3.5:.2f},{y - 3:.2f} {x + 3.5:.2f},{y - 3:.2f} '
            f'{x:.2f},{y + 3.5:.2f}" fill="{_RED}"/>'
        )
    e_ticks = [(float(t), f"{t:g}") for t in np.linspace(0.0, e_max, 5)]
    y_ticks = _log_delta_ticks(floor)
    parts.append(ax2.frame(e_ticks, y_ticks, "ε", "δ(ε)", "privacy profile"))
    parts.append(
        _legend(
            ax2.left,
            ax2.top + ax2.height + 62,
            [
                (
                    f'<line x1="0" x2="16" y1="0" y2="0" stroke="{_INK}" stroke-width="1.6"/>',
                    "claimed δ(ε)",
                ),
                (f'<circle cx="8" cy="0" r="2.6" fill="{_BLUE}"/>', "estimated δ(ε), worst pair"),
                (
                    f'<polygon points="4.5,-3 11.5,-3 8,3.5" fill="{_RED}"/>',
                    "lower confidence bound",
                ),
            ],
        )
    )
    parts.append("</svg>")
    return "".join(parts)


def _figures_section(report: AuditReport, mode: FigureMode) -> str:
    note = ""
    svg = None
    if mode != "builtin":
        try:
            svg = _matplotlib_svg(report)
        except (ImportError, AuditError) as exc:
            if mode == "matplotlib":
                raise AuditError(f"cannot draw the report's figures: {exc}") from exc
            note = " Drawn without matplotlib (install privaudit[plot] for the full figures)."
    if svg is None:
        svg = _builtin_svg(report)
    caption = (
        "Left: each tested rejection region S is a point (α₀, α₁) = (P[M(x)∉S], "
        "P[M(y)∈S]) with its Clopper–Pearson box; the claim forbids the shaded region "
        "below its boundary, so a box entirely inside it refutes the claim (worst event "
        "in red). Right: the claimed privacy profile δ(ε) against the estimate and the "
        "lower confidence bound at the worst pair." + note
    )
    return (
        f'<section class="card" id="figures"><h2>Trade-off and privacy profile</h2>'
        f"<figure>{svg}<figcaption>{_e(caption)}</figcaption></figure></section>"
    )
