"""The standalone HTML report: complete, self-contained, escaped and well-formed."""

from __future__ import annotations

import html
import math
import re
import sys
from html.parser import HTMLParser

import pytest

from privaudit import AuditConfig, AuditReport, audit
from privaudit.interfaces.html_report import _pair_html, render_html_report, write_html_report
from privaudit.mechanisms import LaplaceMechanism, declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    AuditError,
    DatasetDomain,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    Reference,
    SubstituteOne,
)

FAST = AuditConfig(
    samples=20_000, pilot_samples=1_000, pair_budget=12, pairs_tested=2, claim_budget=40, seed=11
)
N = 8
_VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


def _broken_sum():
    """Declares sensitivity 1 although one record in [0, 2] moves the sum by 2."""
    spec = MechanismSpec(
        name="broken_sum",
        summary="a sum whose sensitivity is under-declared",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=2.0), size=N),
        relation=SubstituteOne(),
        statistic="sum",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)),
        guarantee=PureDP(epsilon=1.0),
        references=(
            Reference(
                citation="A. Author, 'On sums', 2020",
                locator="Lemma 1",
                url="https://doi.org/10.0000/example",
            ),
        ),
    )
    return declare_mechanism(
        spec,
        sampler=lambda x, size, rng: x.sum() + rng.laplace(0, 1.0, size),
        statistic=lambda x: float(x.sum()),
    )


@pytest.fixture(scope="module")
def violation() -> AuditReport:
    report = audit(_broken_sum(), config=FAST)
    assert report.violated
    return report


@pytest.fixture(scope="module")
def passing() -> AuditReport:
    report = audit(LaplaceMechanism(1.0, 1.0), config=FAST)
    assert not report.violated
    return report


class _StrictParser(HTMLParser):
    """An HTMLParser that records every mismatched or unclosed tag."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, tuple[int, int]]] = []
        self.errors: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.doctype = ""

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in _VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in _VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            top = self.stack[-1] if self.stack else None
            self.errors.append(f"</{tag}> at {self.getpos()} closes {top}")
            return
        self.stack.pop()


def _parse(text: str) -> _StrictParser:
    parser = _StrictParser()
    parser.feed(text)
    parser.close()
    return parser


def _assert_standalone(text: str, parser: _StrictParser) -> None:
    lowered = text.lower()
    assert "<script" not in lowered
    assert "<link" not in lowered and "@import" not in lowered
    for target in re.findall(r"url\(\s*['\"]?([^)'\"]*)", text):
        assert target.startswith("#"), f"url({target}) is not an in-document reference"
    assert "<iframe" not in lowered and "<img" not in lowered and "<object" not in lowered
    for tag, attrs in parser.tags:
        assert "src" not in attrs, (tag, attrs)
        href = attrs.get("href") or attrs.get("xlink:href") or ""
        if re.match(r"\s*(https?:)?//", href):
            assert tag == "a", f"<{tag}> loads {href}"  # only plain links, never assets
        elif href:
            assert href.startswith("#"), (tag, href)


@pytest.mark.parametrize("which", ["violation", "passing"])
def test_report_is_standalone_and_well_formed(which, request):
    report = request.getfixturevalue(which)
    text = render_html_report(report)
    parser = _parse(text)
    assert parser.errors == [] and parser.stack == []
    assert parser.doctype.lower() == "doctype html"
    _assert_standalone(text, parser)
    assert "<style>" in text and "<svg" in text


def test_passing_report_shows_verdict_claims_checks_and_metadata(passing):
    text = render_html_report(passing)
    assert "No violation found" in text and 'class="badge pass"' in text
    assert html.escape(passing.disclaimer) in text
    assert "http" not in text  # not even an XML namespace: nothing can be fetched
    for check in passing.checks:
        assert html.escape(check.name) in text
        assert html.escape(check.summary) in text
    for term in (
        "guarantee",
        "relation",
        "domain",
        "statistic",
        "sensitivity claims",
        "noise law",
        "numerics",
        "proof status",
        "references",
        "spec hash",
    ):
        assert f"<dt>{term}</dt>" in text, term
    assert passing.spec.content_hash in text
    assert html.escape(passing.power.statement[1:]) in text
    assert f"{passing.samples:,}" in text and f"<code>{passing.seed}</code>" in text
    for pkg, version in passing.versions.items():
        assert f"{pkg} {version}" in text
    assert "Worst pair tested" in text and "Counterexamples" not in text
    # every tested event has a row, the worst one highlighted
    assert text.count('<tr class="worst">') == 2  # worst-event table and all-events table
    for ev in passing.events:
        assert html.escape(ev.description) in text


def test_violation_report_shows_counterexamples_and_the_bound(violation):
    text = render_html_report(violation)
    assert "Violation found" in text and 'class="badge violation"' in text
    assert "refuted" in text
    assert f"{violation.epsilon_lower_bound:.4g}" in text
    assert f"claimed ε = {violation.epsilon_claimed:.4g}" in text
    section = text[text.index('id="counterexamples"') : text.index('id="evidence"')]
    bad = [c for c in violation.violations if c.counterexample is not None]
    assert bad
    for check in bad:
        ce = check.counterexample
        assert f"<h3>{html.escape(check.name)}</h3>" in section
        assert html.escape(ce.origin) in section and html.escape(ce.relation_reason) in section
        for value in (*ce.x, *ce.y):
            assert f"{value:.6g}" in section
        for key in ce.values:
            assert f"<td>{html.escape(key)}</td>" in section
    assert "<mark>" in section  # the entries where x and y differ
    assert 'href="https://doi.org/10.0000/example"' in text  # a reference link, not an asset
    ev = violation.worst_event
    assert f"{ev.count_x:,} / {ev.samples_x:,}" in text and f"{ev.p_y_upper:.4g}" in text


def test_figures_come_from_matplotlib_when_installed(passing):
    pytest.importorskip("matplotlib")
    text = render_html_report(passing, figures="matplotlib")
    assert 'id="figure_1"' in text and "<?xml" not in text and "<metadata" not in text
    assert "Drawn without matplotlib" not in text
    assert render_html_report(passing) == text  # deterministic


def test_figures_fall_back_to_builtin_svg_without_matplotlib(violation, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    text = render_html_report(violation)
    assert "Drawn without matplotlib" in text
    figure = text[text.index('id="figures"') : text.index('id="events"')]
    assert "<svg" in figure and "<polyline" in figure and "<circle" in figure
    parser = _parse(text)
    assert parser.errors == [] and parser.stack == []
    with pytest.raises(AuditError, match="matplotlib"):
        render_html_report(violation, figures="matplotlib")


@pytest.mark.parametrize("which", ["violation", "passing"])
def test_builtin_figures_are_well_formed(which, request):
    report = request.getfixturevalue(which)
    text = render_html_report(report, figures="builtin")
    parser = _parse(text)
    assert parser.errors == [] and parser.stack == []
    assert 'id="figure_1"' not in text and text.count("<svg") == 2  # ε scale and figure


def test_all_text_is_escaped(passing):
    hostile = "<script>alert('x')</script> & <b>"
    report = passing.model_copy(
        update={
            "mechanism": hostile,
            "infinite_evidence": hostile,
            "checks": tuple(c.model_copy(update={"summary": hostile}) for c in passing.checks),
        }
    )
    text = render_html_report(report, figures="builtin")
    assert "<script>" not in text and "<b>" not in text
    assert html.escape(hostile) in text
    parser = _parse(text)
    assert parser.errors == [] and parser.stack == []


def test_an_infinite_bound_renders(violation):
    report = violation.model_copy(
        update={
            "epsilon_lower_bound": math.inf,
            "infinite_evidence": "an output only M(x) produces",
        }
    )
    text = render_html_report(report, figures="builtin")
    assert "∞" in text and "an output only M(x) produces" in text
    assert _parse(text).errors == []


def test_write_html_report_writes_the_rendered_page(passing, tmp_path):
    path = write_html_report(passing, tmp_path / "sub" / "report.html", figures="builtin")
    assert path == tmp_path / "sub" / "report.html"
    assert path.read_text(encoding="utf-8") == render_html_report(passing, figures="builtin")


def test_bad_arguments_raise_audit_error(passing):
    with pytest.raises(AuditError, match="AuditReport"):
        render_html_report({"verdict": "violation"})
    with pytest.raises(AuditError, match="figures"):
        render_html_report(passing, figures="png")


def test_long_inputs_are_shown_compactly_with_the_difference_marked():
    x = [0.0] * 1000
    y = list(x)
    y[500] = 2.0
    shown_x, shown_y = _pair_html(x, y)
    assert len(shown_x) < 400 and "…" in shown_x
    assert "<mark>0</mark>" in shown_x and "<mark>2</mark>" in shown_y
    short_x, _ = _pair_html([1.23456789, 2], [1.23456789, 3])
    assert short_x == "[1.23457, <mark>2</mark>]"
    edges_x, edges_y = _pair_html([[0, 1], [1, 2]], [[0, 1]])
    assert edges_x == "[[0, 1], [1, 2]]" and edges_y == "[[0, 1]]"


@pytest.mark.parametrize("figures", ["auto", "builtin"])
def test_a_report_without_events_profile_or_power_still_renders(passing, figures):
    bare = passing.model_copy(
        update={
            "events": (),
            "worst_event": None,
            "privacy_profile": (),
            "power": None,
            "worst_pair": None,
            "versions": {},
        }
    )
    text = render_html_report(bare, figures=figures)
    parser = _parse(text)
    assert parser.errors == [] and parser.stack == []
    assert "No rejection region was tested" in text and "no power statement" in text
    assert 'id="events"' not in text and 'id="profile"' not in text and "<svg" in text


def _section(text: str, ident: str) -> str:
    start = text.index(f'<section class="card" id="{ident}">')
    return text[start : text.index("</section>", start)]


@pytest.mark.parametrize("figures", ["auto", "builtin"])
def test_exact_audit_has_its_own_section_stated_as_exact(figures):
    from privaudit.suites.local import LocalKaryRR

    # three independent eps-reports of one cell: exact eps = 3 (claimed 1), a product law
    report = audit(LocalKaryRR(1.0, 4, copies=3, name="rr_three_reports"), config=FAST)
    assert report.audit_mode == "exact"
    text = render_html_report(report, figures=figures)
    parser = _parse(text)
    assert parser.errors == [] and parser.stack == []
    _assert_standalone(text, parser)
    section = _section(text, "exact")
    plain = html.unescape(re.sub(r"<[^>]+>", " ", section))
    assert "Exact audit (no sampling)" in plain
    assert "exact" in plain and "no sampling and no confidence level" in plain
    assert "exact ε" in plain and "3" in plain.split("exact ε", 1)[1].split()[0]
    assert report.exact.statement in plain
    assert "every neighbouring pair" in plain  # coverage = all_pairs
    assert "Worst pair" in plain and 'class="pair"' in section
    # the exact δ(ε) profile: one row per point, with the claimed δ and a status
    assert section.count('<td class="num">') >= 3 * len(report.exact.profile)
    assert len(report.exact.profile) > 0
    assert 'aria-label="exact privacy profile"' in section
    assert 'class="status violated"' in section  # δ(1) > 0 = claimed δ
    for p in report.exact.profile:
        assert _e6(p.delta_exact) in plain


def test_statistical_report_has_no_exact_section(passing):
    assert passing.audit_mode == "statistical"
    assert 'id="exact"' not in render_html_report(passing)


def _e6(value: float) -> str:
    from privaudit.interfaces.html_report import _num

    return _num(value, 6)
