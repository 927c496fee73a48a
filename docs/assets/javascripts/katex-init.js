// Typesets the maths of a page with the site's own copy of KaTeX (assets/vendor/katex/,
// vendored at build time by docs/_ext/offline_assets.py; nothing is fetched when a page is
// viewed).  pymdownx.arithmatex (generic mode) leaves each formula as \(...\) in a
// span.arithmatex, or \[...\] in a div.arithmatex for display maths.
document$.subscribe(({ body }) => {
  for (const element of body.querySelectorAll(".arithmatex")) {
    const source = element.textContent.trim();
    const display = source.startsWith("\\[");
    const tex = source.slice(2, -2);
    katex.render(tex, element, { displayMode: display, throwOnError: false });
  }
});
