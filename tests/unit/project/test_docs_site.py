"""The documentation site builds in strict mode and renders in a browser.

The site (``mkdocs.yml``, ``docs/``) is built with ``mkdocs build --strict`` — a broken link
or reference fails the build — unless ``PRIVAUDIT_DOCS_SITE`` names a site already built
that way (CI builds it before the tests).  Its front page and one page of the API reference
are then loaded in headless Chromium (Debian's ``chromium`` package), whose DOM after the
page's scripts ran must hold the page title, the navigation and a rendered code block.

Maths (KaTeX) and the architecture page's diagram (mermaid) must be typeset in the browser
from the site's own copies of their scripts, with every host name unresolvable.

Where mkdocs or the browser is missing, the tests say so in one line and skip.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
#: A headless browser that reaches nothing: no sandbox (CI runs as root), no GPU, no QUIC,
#: no first-run, background, component-update or sync traffic, and a fresh profile.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # nothing resolves: a page that needed a CDN would show its maths or diagram raw
    "--host-resolver-rules=MAP * ~NOTFOUND",
    # let the page's scripts (KaTeX, mermaid) finish before the DOM is dumped
    "--virtual-time-budget=20000",
)
#: Generous bounds for a loaded machine; a healthy build takes well under a minute.
BUILD_TIMEOUT = 900
BROWSER_TIMEOUT = 120


class _Page(HTMLParser):
    """The title, navigation links and code blocks of a rendered page."""

    def __init__(self) -> None:
        super().__init__()
        #: how many elements carry each class, and each tag.class pair
        self.classes: dict[str, int] = {}
        self.tags: dict[str, int] = {}
        self.title = ""
        self.nav_links: list[str] = []
        self.code_blocks: list[str] = []
        self.ids: set[str] = set()
        self._in_title = False
        self._nav_depth = 0
        self._pre_depth = 0
        self._code = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name in (found.get("class") or "").split():
            self.classes[name] = self.classes.get(name, 0) + 1
            self.tags[f"{tag}.{name}"] = self.tags.get(f"{tag}.{name}", 0) + 1
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag == "title":
            self._in_title = True
        elif tag == "nav" and "md-nav" in (found.get("class") or "").split():
            self._nav_depth += 1
        elif tag == "nav":
            self._nav_depth += 1 if self._nav_depth else 0
        elif tag == "a" and self._nav_depth and found.get("href"):
            self.nav_links.append(str(found["href"]))
        elif tag == "pre":
            self._pre_depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag == "nav" and self._nav_depth:
            self._nav_depth -= 1
        elif tag == "pre" and self._pre_depth:
            self._pre_depth -= 1
            if not self._pre_depth:
                self.code_blocks.append(self._code)
                self._code = ""

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._pre_depth:
            self._code += data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The built site: ``PRIVAUDIT_DOCS_SITE``, or a strict build into a scratch folder."""
    given = os.environ.get("PRIVAUDIT_DOCS_SITE")
    if given:
        path = pathlib.Path(given)
        assert (path / "index.html").is_file(), f"PRIVAUDIT_DOCS_SITE={given} holds no built site"
        return path
    try:
        import mkdocs  # noqa: F401  # imported only to see that it is installed
        import mkdocstrings  # noqa: F401  # imported only to see that it is installed
    except ImportError:
        pytest.skip(
            "mkdocs is not installed (pip install -e '.[docs]'): the docs site is "
            "not built or checked"
        )
    out = tmp_path_factory.mktemp("site")
    env = dict(
        os.environ,
        NO_MKDOCS_2_WARNING="1",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",  # no --quiet: it would hide the warnings that strict mode counts
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return out


@pytest.fixture(scope="module")
def browser() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(
        "no chromium browser (apt-get install chromium): the built site is not checked in a browser"
    )


def _render(browser: str, page: pathlib.Path, profile: pathlib.Path) -> _Page:
    """The DOM of ``page`` after its scripts ran, parsed."""
    done = subprocess.run(
        [
            browser,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=BROWSER_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0 and done.stdout, f"chromium failed on {page}: {done.stderr[-2000:]}"
    parsed = _Page()
    parsed.feed(done.stdout)
    return parsed


def test_the_front_page_renders(site, browser, tmp_path):
    page = _render(browser, site / "index.html", tmp_path / "profile")
    assert page.title.strip() == "privaudit"
    for target in (
        "getting-started/ci.html",
        "getting-started/researchers.html",
        "getting-started/analysts.html",
        "reference/index.html",
        "architecture.html",
    ):
        assert any(link.endswith(target) for link in page.nav_links), (target, page.nav_links)
    assert any(
        "privaudit audit --registry" in " ".join(code.split()) for code in page.code_blocks
    ), page.code_blocks


def test_an_api_page_renders_the_docstrings(site, browser, tmp_path):
    page = _render(browser, site / "reference" / "privaudit.html", tmp_path / "profile")
    assert page.title.strip().startswith("privaudit: the auditor"), page.title
    assert any(link.endswith("index.html") for link in page.nav_links), page.nav_links
    # the audit function, its numpydoc sections and its signature as a code block
    assert {"privaudit.audit", "privaudit.AuditReport", "privaudit.trust.registry"} <= page.ids
    assert any("audit(" in code for code in page.code_blocks), page.code_blocks[:5]


def test_maths_is_typeset_offline(site, browser, tmp_path):
    """The derivations' formulas become KaTeX markup, from the site's own KaTeX."""
    assert (site / "assets" / "vendor" / "katex" / "katex.min.js").is_file()
    page = _render(browser, site / "derivations.html", tmp_path / "profile")
    assert page.classes.get("arithmatex", 0) >= 20, page.classes.get("arithmatex")
    assert page.classes.get("katex", 0) >= 20, sorted(page.classes)[:50]
    assert not page.classes.get("katex-error"), "a formula KaTeX cannot parse"


def test_the_diagram_is_drawn_offline(site, browser, tmp_path):
    """The architecture page's mermaid source becomes an SVG, from the site's own mermaid."""
    assert (site / "assets" / "vendor" / "mermaid" / "mermaid.min.js").is_file()
    source = (site / "architecture.html").read_text(encoding="utf-8")
    assert '<pre class="mermaid">' in source  # the source, as built
    page = _render(browser, site / "architecture.html", tmp_path / "profile")
    # Material replaces the source by a div that holds the drawn SVG in a closed shadow
    # root (which a DOM dump does not show); without mermaid the source would stay
    assert page.tags.get("div.mermaid", 0) == 1, page.tags
    assert not page.tags.get("pre.mermaid"), "the diagram's source is shown, not drawn"


def test_the_site_loads_nothing_from_the_network(site):
    """No web fonts, CDN scripts or style sheets: the site works offline."""
    for html in (
        site / "index.html",
        site / "reference" / "privaudit.html",
        site / "derivations.html",
        site / "architecture.html",
    ):
        text = html.read_text(encoding="utf-8")
        for host in (
            "fonts.googleapis.com",
            "fonts.gstatic.com",
            "unpkg.com",
            "cdn.jsdelivr",
            "cdnjs.cloudflare.com",
            "polyfill.io",
        ):
            assert host not in text, f"{html.name} loads {host}"


def test_sphinx_roles_become_the_code_spans_sphinx_shows():
    """The API reference's griffe extension (docs/_ext/rst_roles.py), without mkdocs."""
    import importlib.util

    pytest.importorskip("griffe", reason="griffe (the docs extra) is not installed")
    path = ROOT / "docs" / "_ext" / "rst_roles.py"
    spec = importlib.util.spec_from_file_location("rst_roles", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = (
        ":mod:`spec` models; :func:`~privaudit.audit` returns :class:`~a.b.AuditReport`, "
        ":py:meth:`x.y`, :data:`the level <a.LEVEL>`; ``literal`` stays"
    )
    assert module.rewrite(text) == (
        "`spec` models; `audit` returns `AuditReport`, `x.y`, `the level`; ``literal`` stays"
    )


def test_ci_builds_the_site_as_the_docs_say():
    """.ci/docs runs the documented strict build: no --quiet, which hides the warnings that
    strict mode counts (a page missing from the nav passed that way)."""
    script = (ROOT / ".ci" / "docs").read_text(encoding="utf-8")
    builds = [
        line
        for line in script.splitlines()
        if "mkdocs build" in line and not line.lstrip().startswith("#")
    ]
    assert builds and all("--strict" in line and "--quiet" not in line for line in builds)
