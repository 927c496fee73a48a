"""A standalone HTML page for an :class:`~privaudit.auditing.outcome.report.AuditReport`.

:func:`render_html_report` returns one self-contained document (inline CSS and SVG, no
JavaScript, no external assets) and :func:`write_html_report` writes it, so a report opens
years later without network access.  This module lays out the page; the figures are drawn in
:mod:`privaudit.interfaces.html_figures` (with a built-in SVG fallback without matplotlib),
the evidence sections in :mod:`privaudit.interfaces.html_evidence` and the text helpers in
:mod:`privaudit.interfaces.html_text`.  All text is escaped.

Details (the page's sections): ``docs/engine_notes.md``, "privaudit.interfaces.html_report".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from privaudit.interfaces.html_evidence import (
    _counterexamples_section,
    _events_section,
    _evidence_section,
    _pair_block,
    _profile_section,
)
from privaudit.interfaces.html_figures import (
    _BLUE,
    _GREEN,
    _INK,
    _RED,
    FigureMode,
    _exact_svg,
    _figures_section,
)
from privaudit.interfaces.html_text import _e, _num, _pct
from privaudit.interfaces.html_text import (
    _pair_html as _pair_html,  # re-exported: tests import it from here
)
from privaudit.spec.errors import AuditError

if TYPE_CHECKING:  # pragma: no cover
    from privaudit.auditing.outcome.report import AuditReport

__all__ = ["FigureMode", "render_html_report", "write_html_report"]


_CSS = """
*{box-sizing:border-box}
body{margin:0;background:#f3f4f6;color:#1f2933;font:15px/1.5 system-ui,-apple-system,"Segoe UI",
Roboto,"Helvetica Neue",Arial,"Noto Sans","DejaVu Sans",sans-serif}
main{max-width:1180px;margin:0 auto;padding:28px 32px 40px}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;
font-size:.86em}
h1{margin:0;font-size:1.75rem;line-height:1.25;word-break:break-word}
h2{margin:0 0 14px;font-size:1.08rem;letter-spacing:.01em}
h3{margin:18px 0 8px;font-size:.98rem}
p{margin:.4em 0}
a{color:#1f5fa8}
.banner{display:flex;justify-content:space-between;align-items:center;gap:24px;
background:#fff;border:1px solid #dfe3e8;border-top:6px solid #1f5fa8;border-radius:10px;
padding:20px 26px}
.banner.violation{border-top-color:#c62828}
.banner.pass{border-top-color:#2e7d32}
.eyebrow{margin:0 0 2px;color:#6b7785;font-size:.78rem;text-transform:uppercase;
letter-spacing:.09em;font-weight:600}
.subtitle{margin:6px 0 0;color:#4a5563}
.badge{flex:none;display:inline-block;padding:9px 18px;border-radius:999px;color:#fff;
font-weight:700;font-size:.95rem;letter-spacing:.04em;text-transform:uppercase;white-space:nowrap}
.badge.violation{background:#c62828}
.badge.pass{background:#2e7d32}
.badge.inconclusive{background:#b26a00}
.banner.inconclusive{border-top-color:#b26a00}
.inconclusive-note{margin:14px 0 0;padding:11px 16px;background:#fff3e0;border:1px solid #f5c98a;
border-left:5px solid #b26a00;border-radius:6px;color:#4d2a00;font-size:.92rem}
.disclaimer{margin:14px 0 0;padding:11px 16px;background:#fff8e1;border:1px solid #f3e1a6;
border-left:5px solid #f2b705;border-radius:6px;color:#4d3d00;font-size:.92rem}
section.card{margin-top:18px;background:#fff;border:1px solid #dfe3e8;border-radius:10px;
padding:20px 26px}
.kpis{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:14px;margin-bottom:14px}
.kpi{border:1px solid #e4e7eb;border-radius:8px;padding:12px 16px;background:#fafbfc}
.kpi .label{color:#4a5563;font-size:.86rem;font-weight:600}
.kpi .value{font-size:1.6rem;font-weight:650;line-height:1.3;font-variant-numeric:tabular-nums}
.kpi .note{color:#6b7785;font-size:.82rem}
.kpi.bad .value{color:#c62828}
.kpi.good .value{color:#2e7d32}
.gauge{margin:6px 0 4px}
.gauge svg{width:100%;height:auto;display:block}
.lead{font-size:1rem}
dl.defs{display:grid;grid-template-columns:190px minmax(0,1fr);gap:7px 18px;margin:0}
dl.defs dt{color:#4a5563;font-weight:600}
dl.defs dd{margin:0;word-break:break-word}
dl.defs ul{margin:0;padding-left:18px}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{padding:7px 10px;border-bottom:1px solid #eceff2;text-align:left;vertical-align:top}
th{background:#f6f7f9;color:#4a5563;font-weight:600;font-size:.84rem;
border-bottom:1px solid #dfe3e8;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.worst td{background:#f1f6fd}
tr.worst td:first-child{box-shadow:inset 3px 0 0 #1f5fa8}
.violation tr.worst td{background:#fff4f4}
.violation tr.worst td:first-child{box-shadow:inset 3px 0 0 #c62828}
.status{display:inline-block;min-width:74px;text-align:center;padding:2px 10px;
border-radius:999px;font-size:.76rem;font-weight:700;text-transform:uppercase;
letter-spacing:.04em}
.status.passed{background:#e6f4ea;color:#1e6b2c}
.status.violated{background:#fde7e7;color:#b3261e}
.status.skipped{background:#eceff1;color:#455a64}
.cx{border:1px solid #f0c9c9;border-radius:8px;padding:14px 18px;margin:12px 0 0;
background:#fffafa}
.cx h3{margin:0 0 6px;color:#b3261e}
.cx .meta{color:#4a5563;font-size:.88rem;margin-bottom:8px}
.pair{display:grid;grid-template-columns:28px minmax(0,1fr);gap:4px 10px;margin:8px 0 10px;
align-items:baseline}
.pair .k{font-weight:700;color:#4a5563;font-family:ui-monospace,Menlo,Consolas,monospace}
.pair .v{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;
font-size:.85rem;background:#f6f7f9;border:1px solid #eceff2;border-radius:5px;padding:5px 9px;
word-break:break-all}
mark{background:#ffe8a3;color:#5c3c00;border-radius:3px;padding:0 2px}
table.values{width:auto;margin-top:4px}
table.values td{padding:4px 28px 4px 10px;border-bottom:1px solid #f3dede}
table.values td:first-child{font-family:ui-monospace,Menlo,Consolas,monospace;color:#4a5563}
.power{margin-top:12px;padding:10px 14px;background:#f1f6fd;border:1px solid #d6e4f5;
border-radius:6px;font-size:.92rem}
figure{margin:0}
figure svg{width:100%;height:auto;display:block}
figcaption{color:#4a5563;font-size:.86rem;margin-top:8px}
details summary{cursor:pointer;color:#1f5fa8;font-size:.9rem;margin:6px 0}
.muted{color:#6b7785}
.small{font-size:.85rem}
footer{margin-top:22px;color:#6b7785;font-size:.82rem;text-align:center}
@media print{body{background:#fff}section.card,.banner{break-inside:avoid}}
"""


# -- the claims ------------------------------------------------------------------------------
_CLAIM_ORDER = (
    "guarantee",
    "relation",
    "domain",
    "statistic",
    "sensitivity claims",
    "noise law",
    "numerics",
    "proof status",
    "references",
    "notes",
    "spec hash",
)


def _claims(report: AuditReport) -> list[tuple[str, list[str]]]:
    """The spec's :meth:`describe` lines as (term, [values]) pairs, in a fixed order."""
    spec = report.spec
    found: dict[str, list[str]] = {}
    last: str | None = None
    rename = {"sensitivity": "sensitivity claims", "noise": "noise law", "reference": "references"}
    for raw in spec.describe().splitlines()[1:]:
        key, sep, value = raw.partition(":")
        if not sep or not raw.startswith("  ") or raw.startswith("    "):
            if last is not None:  # a continuation line (e.g. multi-line notes)
                found[last][-1] += " " + raw.strip()
            continue
        key, value = key.strip(), value.strip()
        if key == "relation" and " on " in value:
            value, _, domain = value.partition(" on ")
            found.setdefault("domain", []).append(domain.strip())
        if key == "numerics" and "; proof:" in value:
            value, _, proof = value.partition("; proof:")
            found.setdefault("proof status", []).append(proof.strip())
        key = rename.get(key, key)
        if key == "references":
            continue  # shown from spec.references below, with their links
        found.setdefault(key, []).append(value)
        last = key
    refs = []
    for r in spec.references:
        text = _e(r.citation) + (f", {_e(r.locator)}" if r.locator else "")
        if r.url:
            text += f' — <a href="{_e(r.url)}">{_e(r.url)}</a>'
        refs.append(text)
    out: list[tuple[str, list[str]]] = []
    for key in _CLAIM_ORDER:
        if key == "references":
            out.append((key, refs or ['<span class="muted">none declared</span>']))
        elif key in found:
            out.append(
                (
                    key,
                    [
                        f"<code>{_e(v)}</code>" if key not in {"statistic", "notes"} else _e(v)
                        for v in found.pop(key)
                    ],
                )
            )
        elif key not in {"notes"}:
            out.append((key, ['<span class="muted">none declared</span>']))
    for key, values in found.items():  # anything describe() gains later
        out.append((key, [_e(v) for v in values]))
    return out


def _dl(rows: Iterable[tuple[str, Sequence[str]]]) -> str:
    parts = ['<dl class="defs">']
    for term, values in rows:
        body = (
            values[0]
            if len(values) == 1
            else "<ul>" + "".join(f"<li>{v}</li>" for v in values) + "</ul>"
        )
        parts.append(f"<dt>{_e(term)}</dt><dd>{body}</dd>")
    parts.append("</dl>")
    return "".join(parts)


# -- sections --------------------------------------------------------------------------------
def _header(report: AuditReport) -> str:
    cls = {"violation": "violation", "inconclusive": "inconclusive"}.get(report.verdict, "pass")
    verdict = {"violation": "Violation found", "inconclusive": "Inconclusive"}.get(
        report.verdict, "No violation found"
    )
    note = ""
    if report.inconclusive:
        from privaudit.auditing.outcome.verdicts import inconclusive_text

        reasons = [f"required check skipped: {r}" for r in report.unmet_requirements]
        if not reasons or not (report.power and report.power.conclusive):
            reasons.append(inconclusive_text(report.power).removeprefix("inconclusive: "))
        note = "".join(
            f'<p class="inconclusive-note" id="inconclusive"><strong>Inconclusive.'
            f"</strong> {_e(r)}.</p>"
            for r in reasons
        )
    spec = report.spec
    subtitle = spec.summary or spec.statistic
    sub = f'<p class="subtitle">{_e(subtitle)}</p>' if subtitle else ""
    return (
        f'<header class="banner {cls}"><div><p class="eyebrow">privaudit audit report · '
        f"spec v{_e(spec.version)}</p><h1>{_e(report.mechanism)}</h1>{sub}</div>"
        f'<span class="badge {cls}" role="status">{verdict}</span></header>'
        f'{note}<p class="disclaimer"><strong>Read this first.</strong> '
        f"{_e(report.disclaimer)}</p>"
    )


def _gauge(report: AuditReport) -> str:
    """A one-line SVG scale: ε lower bound (bar), claimed ε (line), detectable ε (tick)."""
    lb, claim = report.epsilon_lower_bound, report.epsilon_claimed
    det = report.power.detectable_epsilon if report.power is not None else None
    finite = [v for v in (lb, claim, det) if v is not None and math.isfinite(v)]
    top = max(finite + [1e-9]) * 1.15
    width, x0, x1 = 1000.0, 10.0, 990.0

    def at(v: float) -> float:
        return x1 if not math.isfinite(v) else x0 + (x1 - x0) * min(v, top) / top

    color = _RED if report.violated else _GREEN
    parts = [
        f'<svg viewBox="0 0 {width:g} 64" role="img" aria-label="epsilon scale">',
        f'<rect x="{x0}" y="18" width="{x1 - x0}" height="14" rx="7" fill="#eef0f3"/>',
        (
            f'<rect x="{x0}" y="18" width="{max(at(lb) - x0, 0):.1f}" height="14" rx="7" '
            f'fill="{color}" opacity="0.85"/>'
        ),
        (
            f'<line x1="{at(claim):.1f}" x2="{at(claim):.1f}" y1="8" y2="42" stroke="{_INK}" '
            f'stroke-width="3"/>'
        ),
        (
            f'<text x="{at(claim):.1f}" y="58" font-size="13" text-anchor="middle" '
            f'fill="{_INK}">claimed ε = {_e(_num(claim))}</text>'
        ),
    ]
    if det is not None and math.isfinite(det) and abs(at(det) - at(claim)) > 60:
        parts.append(
            f'<line x1="{at(det):.1f}" x2="{at(det):.1f}" y1="12" y2="38" '
            f'stroke="{_BLUE}" stroke-width="2" stroke-dasharray="4 3"/>'
        )
        parts.append(
            f'<text x="{at(det):.1f}" y="58" font-size="12" text-anchor="middle" '
            f'fill="{_BLUE}">detectable ε = {_e(_num(det))}</text>'
        )
    lb_x = at(lb)
    anchor = "end" if lb_x > 0.5 * width else "start"
    lb_text_x = lb_x - 4 if anchor == "end" else lb_x + 6
    parts.append(
        f'<text x="{lb_text_x:.1f}" y="12" font-size="12" text-anchor="{anchor}" '
        f'fill="{color}">ε lower bound = {_e(_num(lb))}</text>'
    )
    parts.append("</svg>")
    return f'<div class="gauge">{"".join(parts)}</div>'


def _summary(report: AuditReport) -> str:
    lb, claim = report.epsilon_lower_bound, report.epsilon_claimed
    over = lb > claim
    conf = _pct(report.confidence)
    det = report.power.detectable_epsilon if report.power is not None else None
    kpis = [
        (
            "ε lower bound",
            _num(lb),
            f"at δ = {_num(report.delta_claimed)}, {conf} confidence",
            "bad" if over else "",
        ),
        (
            "claimed ε",
            _num(claim),
            (f"δ = {_num(report.delta_claimed)} · {report.spec.guarantee.kind}"),
            "",
        ),
        (
            "detectable ε",
            _num(det),
            (
                f"detected w.p. ≥ {_num(report.power.probability, 3)}"
                + (
                    f"; target {_num(report.power.target_epsilon)}"
                    if report.power.target_epsilon is not None
                    else ""
                )
            )
            if report.power is not None
            else "no power statement",
            "bad"
            if report.inconclusive
            else ("good" if report.power is not None and report.power.conclusive else ""),
        ),
        (
            "violated checks",
            f"{len(report.violations)} of {len(report.checks)}",
            ", ".join(c.name for c in report.violations) or "every check passed",
            "bad" if report.violations else "good",
        ),
    ]
    cards = "".join(
        f'<div class="kpi {cls}"><div class="label">{_e(label)}</div>'
        f'<div class="value">{_e(value)}</div><div class="note">{_e(note)}</div></div>'
        for label, value, note, cls in kpis
    )
    if over:
        factor = "" if not (math.isfinite(lb) and claim > 0) else f" (a factor {lb / claim:.3g})"
        sentence = (
            f"With {conf} family-wise confidence the claim ε = {_e(_num(claim))} at "
            f"δ = {_e(_num(report.delta_claimed))} is <strong>refuted</strong>: the "
            f"audit certifies ε ≥ {_e(_num(lb))}, above the claim{_e(factor)}."
        )
    else:
        sentence = (
            f"The certified lower bound ε ≥ {_e(_num(lb))} stays at or below the "
            f"claimed ε = {_e(_num(claim))} (δ = {_e(_num(report.delta_claimed))}); "
            "no test at the stated confidence rejected the claim."
        )
    extra = (
        f'<p class="small"><strong>Support evidence:</strong> {_e(report.infinite_evidence)}</p>'
        if report.infinite_evidence
        else ""
    )
    return (
        f'<section class="card" id="summary"><h2>ε lower bound against the claim</h2>'
        f'<div class="kpis">{cards}</div>{_gauge(report)}<p class="lead">{sentence}</p>'
        f"{extra}</section>"
    )


def _budget_section(report: AuditReport) -> str:
    """A time-budgeted audit: what the budget can and cannot detect, and its stages."""
    plan = report.budget
    if plan is None:
        return ""
    rows = "".join(
        f'<tr><td>{_e(c.stage)}</td><td class="num">{c.releases}</td>'
        f'<td class="num">{_e(_num(c.seconds))}</td></tr>'
        for c in plan.stages
    )
    return _table_card(
        "budget", "Time budget", plan.statement, ("stage", "releases", "seconds (estimated)"), rows
    )


def _table_card(section: str, title: str, lead: str, headers: Sequence[str], rows: str) -> str:
    """A card with a title, a one-sentence lead and a table (``rows``: ``<tr>`` HTML)."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    return (
        f'<section class="card" id="{section}"><h2>{_e(title)}</h2>'
        f'<p class="lead">{_e(lead)}.</p>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></section>"
    )


def _sequential_section(report: AuditReport) -> str:
    """A sequential audit: its looks, what each found, and why it stopped."""
    record = report.sequential
    if record is None:
        return ""
    rows = "".join(
        f'<tr><td class="num">{look.look + 1}</td><td class="num">{look.samples:,}</td>'
        f'<td class="num">{look.alpha:.3g}</td><td>{_e(look.verdict.replace("_", " "))}</td>'
        f'<td class="num">{_e(_num(look.epsilon_lower_bound))}</td>'
        f'<td class="num">{_e(_num(look.seconds))}</td></tr>'
        for look in record.looks
    )
    headers = ("look", "samples per side", "α", "verdict", "ε lower bound", "seconds")
    return _table_card("sequential", "Sequential audit", record.text(), headers, rows)


def _exact_section(report: AuditReport) -> str:
    """The exact audit of a finite randomizer: ε, worst pair and δ(ε), computed, not sampled."""
    exact = report.exact
    if report.audit_mode != "exact" or exact is None:
        return ""
    eps = exact.epsilon_exact
    over = exact.violated
    coverage = (
        "every neighbouring pair of the input domain: this is the mechanism's ε"
        if exact.coverage == "all_pairs"
        else "the searched pairs only: exact on them, a lower bound on the mechanism's ε"
    )
    kpis = [
        (
            "exact ε",
            _num(eps, 6),
            (f"over {exact.pairs_examined} pairs of {exact.inputs_examined} inputs"),
            "bad" if over else "good",
        ),
        ("claimed ε", _num(exact.epsilon_claimed, 6), f"δ = {_num(exact.delta_claimed)}", ""),
        (
            "exact δ at the claimed ε",
            _num(exact.delta_at_claimed_epsilon),
            f"claimed δ = {_num(exact.delta_claimed)}",
            "bad" if over else "good",
        ),
    ]
    cards = "".join(
        f'<div class="kpi {cls}"><div class="label">{_e(label)}</div>'
        f'<div class="value">{_e(value)}</div><div class="note">{_e(note)}</div></div>'
        for label, value, note, cls in kpis
    )
    rows = []
    for p in exact.profile:
        status = "violated" if p.violated else "passed"
        rows.append(
            f'<tr><td class="num">{_e(_num(p.epsilon, 6))}</td>'
            f'<td class="num">{_e(_num(p.delta_exact, 6))}</td>'
            f'<td class="num">{_e(_num(p.delta_claimed, 6))}</td>'
            f'<td><span class="status {status}">{status}</span></td></tr>'
        )
    if rows:
        table = (
            "<h3>Exact privacy profile δ(ε)</h3>"
            f'<p class="small muted">The largest hockey-stick divergence over '
            f"{exact.profile_pairs} ordered pairs at each ε"
            + (
                " (those of largest ε only: a lower bound on δ(ε), not exact)"
                if exact.profile_coverage == "largest_epsilon_pairs"
                else ""
            )
            + ".</p>"
            f"<figure>{_exact_svg(exact, report)}</figure><table><thead><tr>"
            '<th class="num">ε</th><th class="num">exact δ(ε)</th>'
            '<th class="num">claimed δ(ε)</th><th>status</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
    else:
        note = exact.details.get("note", "")
        reason = f": {note}" if note else ""
        table = f'<p class="small">No exact profile was computed{_e(reason)}.</p>'
    verdict = "exceeds the claim" if over else "stays within the claim"
    if exact.refuted:
        lead = (
            f'<p class="lead" id="exact-refuted"><strong>Refuted by the audit\'s own '
            f"samples.</strong> The figures below were computed from the declared "
            f"<code>output_probabilities</code>, but the sampling test certified a larger "
            f"ε than that law allows: the hook does not describe the sampler, and these "
            f"figures do not hold for the mechanism.</p>"
            f'<p class="small">{_e(exact.refutation)}</p>'
        )
        title = "Exact audit (no sampling) — REFUTED by sampling"
    else:
        lead = (
            f'<p class="lead">The output law is finite and declared, so the privacy of the '
            f"randomizer is computed from the probability of every output under every "
            f"input: these numbers are <strong>exact</strong>, with no sampling and no "
            f"confidence level. The exact privacy {_e(verdict)}.</p>"
            f'<p class="small">{_e(exact.statement)}</p>'
        )
        title = "Exact audit (no sampling)"
    return (
        f'<section class="card" id="exact"><h2>{_e(title)}</h2>'
        f'<div class="kpis">{cards}</div>{lead}'
        f'<p class="small">Pairs examined: {_e(coverage)}.</p>'
        f'<h3>Worst pair</h3><div class="meta">found by <code>{_e(exact.worst_pair.origin)}'
        f"</code></div>{_pair_block(exact.worst_pair)}{table}</section>"
    )


def _claims_section(report: AuditReport) -> str:
    return (
        f'<section class="card" id="claims"><h2>Claims (the mechanism\'s spec)</h2>'
        f"{_dl(_claims(report))}</section>"
    )


def _checks_section(report: AuditReport) -> str:
    rows = []
    for c in report.checks:
        rate = "0 (deterministic)" if c.error_rate == 0 else _num(c.error_rate, 3)
        rows.append(
            f'<tr><td><span class="status {_e(c.status)}">{_e(c.status)}</span></td>'
            f"<td><code>{_e(c.name)}</code></td><td>{_e(c.summary)}</td>"
            f'<td class="num">{_e(rate)}</td></tr>'
        )
    return (
        '<section class="card" id="checks"><h2>Checks</h2><table><thead><tr>'
        '<th style="width:100px">status</th><th style="width:190px">check</th>'
        '<th>summary</th><th class="num" style="width:140px">error rate</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
        '<p class="small muted">Error rate: the probability that the check reports a '
        "violation of a true claim (its share of the family-wise budget "
        f"{_e(_num(1 - report.confidence, 3))}).</p></section>"
    )


def _metadata_section(report: AuditReport) -> str:
    cfg = report.config
    # the search split actually used (smaller when the densities are declared)
    search = next(
        (c.details.get("search_samples") for c in report.checks if c.name == "distinguishability"),
        None,
    )
    search = int(search) if isinstance(search, (int, float)) else cfg.effective_search_samples
    rows: list[tuple[str, Sequence[str]]] = [
        (
            "samples per side",
            [
                (
                    f"{report.samples:,} (search split "
                    f"{search:,}, pilot {cfg.pilot_samples:,}, "
                    f"noise-law {cfg.effective_conformance_samples:,})"
                )
            ],
        ),
        ("seed", [f"<code>{report.seed}</code> — rerun with the same seed to reproduce"]),
        (
            "confidence",
            [
                (
                    f"{_pct(report.confidence)} family-wise "
                    f"(α = {_num(cfg.alpha, 3)}, Bonferroni over components)"
                )
            ],
        ),
        (
            "search budgets",
            [
                (
                    f"{cfg.pair_budget} candidate pairs, {cfg.pairs_tested} tested, "
                    f"{cfg.claim_budget} claim evaluations, "
                    f"{cfg.events_per_direction} events per direction"
                )
            ],
        ),
        ("runtime", [f"{report.runtime_seconds:.2f} s"]),
        ("spec hash", [f"<code>{_e(report.spec_hash)}</code>"]),
        ("report schema", [f"version {report.schema_version}"]),
        (
            "versions",
            [
                ", ".join(f"{_e(k)} {_e(v)}" for k, v in report.versions.items())
                or '<span class="muted">not recorded</span>'
            ],
        ),
    ]
    return f'<section class="card" id="metadata"><h2>Run metadata</h2>{_dl(rows)}</section>'


# -- public API ------------------------------------------------------------------------------
def render_html_report(report: AuditReport, *, figures: FigureMode = "auto") -> str:
    """Render ``report`` as one standalone HTML document.

    Parameters
    ----------
    report : AuditReport
        The audit to show.
    figures : {"auto", "matplotlib", "builtin"}
        How to draw the trade-off and privacy-profile figures: with matplotlib when it is
        installed (``"auto"``, the default), always with matplotlib (``"matplotlib"``:
        raise without it) or with the small built-in SVG drawing (``"builtin"``).

    Returns
    -------
    str
        The HTML text: inline CSS and SVG, no scripts, no external assets, all text
        escaped.

    Raises
    ------
    AuditError
        If ``report`` is not an :class:`AuditReport`, ``figures`` is unknown, or
        ``figures="matplotlib"`` and matplotlib is missing.
    """
    from privaudit.auditing.outcome.report import AuditReport

    if not isinstance(report, AuditReport):
        raise AuditError(f"render_html_report needs an AuditReport, got {type(report).__name__}")
    if figures not in ("auto", "matplotlib", "builtin"):
        raise AuditError(f"figures must be 'auto', 'matplotlib' or 'builtin', got {figures!r}")
    verdict = report.verdict_text.lower()
    title = f"privaudit · {report.mechanism} · {verdict}"
    version = report.versions.get("privaudit", "")
    body = "".join(
        [
            _header(report),
            _summary(report),
            _exact_section(report),
            _budget_section(report),
            _sequential_section(report),
            _claims_section(report),
            _checks_section(report),
            _counterexamples_section(report),
            _evidence_section(report),
            _figures_section(report, figures),
            _events_section(report),
            _profile_section(report),
            _metadata_section(report),
        ]
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="privaudit {_e(version)}">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>"
        f'<body class="{"violation" if report.violated else "pass"}"><main>{body}'
        f"<footer>Generated by privaudit {_e(version)} · spec {_e(report.spec_hash)}"
        "</footer></main></body></html>\n"
    )


def write_html_report(
    report: AuditReport, path: str | Path, *, figures: FigureMode = "auto"
) -> Path:
    """Write ``report`` as a standalone HTML file.

    Parameters
    ----------
    report : AuditReport
        The audit to show.
    path : str or Path
        Where to write (parent folders are created).
    figures : {"auto", "matplotlib", "builtin"}
        See :func:`render_html_report`.

    Returns
    -------
    Path
        The path written.
    """
    out = Path(path)
    text = render_html_report(report, figures=figures)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out
