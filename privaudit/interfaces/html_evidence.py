"""The evidence sections of the HTML audit report (:mod:`privaudit.interfaces.html_report`).

The counterexamples of the violated checks (or the worst pair tested), the worst event
with its Clopper–Pearson bounds and the power statement, every tested event, and the
privacy profile at the worst pair, each as one ``<section class="card">``.  All text is
escaped (:mod:`privaudit.interfaces.html_text`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privaudit.interfaces.html_text import _capitalise, _compact, _e, _num, _pair_html

if TYPE_CHECKING:  # pragma: no cover
    from privaudit.auditing.outcome.report import AuditReport
    from privaudit.auditing.outcome.results import CheckOutcome, Counterexample, EventBound

__all__: list[str] = []


def _pair_block(ce: Counterexample) -> str:
    x_html, y_html = _pair_html(ce.x, ce.y)
    return (
        f'<div class="pair"><span class="k">x</span><span class="v">{x_html}</span>'
        f'<span class="k">y</span><span class="v">{y_html}</span></div>'
    )


def _counterexample(check: CheckOutcome, ce: Counterexample) -> str:
    meta = f"found by <code>{_e(ce.origin)}</code>"
    if ce.relation_reason:
        meta += f" · neighbours: {_e(ce.relation_reason)}"
    values = ""
    if ce.values:
        rows = "".join(
            f'<tr><td>{_e(k)}</td><td class="mono">{_e(_compact(v))}</td></tr>'
            for k, v in ce.values.items()
        )
        values = f'<table class="values"><tbody>{rows}</tbody></table>'
    return (
        f'<div class="cx"><h3>{_e(check.name)}</h3><div class="meta">{meta}</div>'
        f'<p class="small">{_e(check.summary)}</p>{_pair_block(ce)}{values}</div>'
    )


def _counterexamples_section(report: AuditReport) -> str:
    bad = [(c, c.counterexample) for c in report.violations if c.counterexample is not None]
    if bad:
        body = "".join(_counterexample(c, ce) for c, ce in bad)
        return (
            f'<section class="card" id="counterexamples"><h2>Counterexamples</h2>'
            f'<p class="small muted">Neighbouring inputs on which a claim fails; entries '
            f"where x and y differ are marked.</p>{body}</section>"
        )
    if report.worst_pair is not None:
        wp = report.worst_pair
        reason = f" · neighbours: {_e(wp.relation_reason)}" if wp.relation_reason else ""
        return (
            f'<section class="card" id="worst-pair"><h2>Worst pair tested</h2>'
            f'<p class="small muted">The neighbouring inputs behind the ε lower bound '
            f"(found by <code>{_e(wp.origin)}</code>{reason}).</p>{_pair_block(wp)}"
            f"</section>"
        )
    return ""


def _event_cells(ev: EventBound) -> str:
    direction = ev.direction.replace("_", " ")
    return (
        f"<td>{_e(direction)}</td><td><code>{_e(ev.description)}</code></td>"
        f'<td class="num">{ev.count_x:,} / {ev.samples_x:,}</td>'
        f'<td class="num">{ev.count_y:,} / {ev.samples_y:,}</td>'
        f'<td class="num">{_e(_num(ev.p_x_lower))}</td>'
        f'<td class="num">{_e(_num(ev.p_y_upper))}</td>'
        f'<td class="num">{_e(_num(ev.alpha, 3))}</td>'
        f'<td class="num">{_e(_num(ev.epsilon_lower_bound))}</td>'
    )


_EVENT_HEAD = (
    '<thead><tr><th>direction</th><th>event S</th><th class="num">in S under x</th>'
    '<th class="num">in S under y</th><th class="num">P[M(x)∈S] ≥</th>'
    '<th class="num">P[M(y)∈S] ≤</th><th class="num">α share</th>'
    '<th class="num">ε lower bound</th></tr></thead>'
)


def _evidence_section(report: AuditReport) -> str:
    parts = ['<section class="card" id="evidence"><h2>Worst event and power</h2>']
    ev = report.worst_event
    if ev is not None:
        parts.append(
            '<p class="small muted">The rejection region behind the ε lower bound, '
            "tested on fresh samples; bounds are one-sided Clopper–Pearson at level "
            "α/2 each. Direction “x vs y” bounds P[M(x)∈S] below and P[M(y)∈S] above."
            "</p>"
        )
        parts.append(
            f'<table>{_EVENT_HEAD}<tbody><tr class="worst">{_event_cells(ev)}</tr></tbody></table>'
        )
    else:
        parts.append('<p class="muted">No rejection region was tested.</p>')
    if report.power is not None:
        parts.append(
            f'<div class="power"><strong>Power.</strong> '
            f"{_e(_capitalise(report.power.statement))}</div>"
        )
    parts.append("</section>")
    return "".join(parts)


def _events_section(report: AuditReport) -> str:
    if not report.events:
        return ""
    rows = []
    for ev in sorted(report.events, key=lambda e: -float(e.epsilon_lower_bound)):
        worst = report.worst_event is not None and ev == report.worst_event
        cls = ' class="worst"' if worst else ""
        rows.append(f"<tr{cls}>{_event_cells(ev)}</tr>")
    return (
        f'<section class="card" id="events"><h2>All tested events ({len(report.events)})'
        f"</h2><table>{_EVENT_HEAD}<tbody>{''.join(rows)}</tbody></table>"
        '<p class="small muted">Sorted by ε lower bound; the worst event is highlighted.'
        "</p></section>"
    )


def _profile_section(report: AuditReport) -> str:
    if not report.privacy_profile:
        return ""
    rows = []
    for p in report.privacy_profile:
        status = "violated" if p.violated else "passed"
        rows.append(
            f"<tr><td>{_e(p.direction.replace('_', ' '))}</td>"
            f'<td class="num">{_e(_num(p.epsilon))}</td>'
            f'<td class="num">{_e(_num(p.delta_claimed))}</td>'
            f'<td class="num">{_e(_num(p.delta_estimate))}</td>'
            f'<td class="num">{_e(_num(p.delta_lower_bound))}</td>'
            f'<td><span class="status {status}">{status}</span></td></tr>'
        )
    n_bad = sum(p.violated for p in report.privacy_profile)
    head = (
        f"{n_bad} of {len(report.privacy_profile)} points have a lower confidence bound "
        "above the claimed δ(ε)"
        if n_bad
        else f"all {len(report.privacy_profile)} points within the claimed δ(ε)"
    )
    return (
        f'<section class="card" id="profile"><h2>Privacy profile at the worst pair</h2>'
        f"<p>{_e(_capitalise(head))}.</p><details><summary>show the "
        f"{len(report.privacy_profile)} points</summary><table><thead><tr>"
        '<th>direction</th><th class="num">ε</th><th class="num">claimed δ(ε)</th>'
        '<th class="num">estimated δ(ε)</th><th class="num">lower bound</th>'
        "<th>status</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></details></section>"
    )
