"""The examples in examples/, the README and the getting-started pages run and show what they
say they show."""

from __future__ import annotations

import pathlib
import runpy

import pytest

pytest_plugins = ["pytester"]

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_custom_mechanism_example(capsys):
    runpy.run_path(str(ROOT / "examples" / "custom_mechanism.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "noisy_histogram" in out
    assert "refused at construction" in out
    assert "underscaled_histogram" in out


def test_custom_mechanism_spec_matches_its_sampler():
    ns = runpy.run_path(str(ROOT / "examples" / "custom_mechanism.py"))
    import numpy as np

    mech = ns["build_noisy_histogram"]()
    records = np.random.default_rng(0).integers(0, ns["CATEGORIES"], size=ns["N_RECORDS"])
    resid = mech.sample(records, size=40_000, rng=1) - ns["histogram"](records)
    # Laplace(b) has standard deviation b√2; 40 000 × 5 draws pin it to within 1 %.
    assert abs(resid.std() / mech.spec.noise.law.std - 1) < 0.01
    broken = ns["build_underscaled_histogram"]()
    resid = broken.sample(records, size=40_000, rng=1) - ns["histogram"](records)
    assert abs(resid.std() / broken.spec.noise.law.std - 0.5) < 0.01


def test_the_audit_rejects_the_broken_example_and_passes_the_correct_one():
    from privaudit import AuditConfig, audit

    ns = runpy.run_path(str(ROOT / "examples" / "custom_mechanism.py"))
    config = AuditConfig(
        samples=30_000, pilot_samples=1_000, pair_budget=12, pairs_tested=2, claim_budget=40, seed=5
    )
    good = audit(ns["build_noisy_histogram"](), config=config)
    assert not good.violated, good.summary()
    bad = audit(ns["build_underscaled_histogram"](), config=config)
    assert bad.violated and bad.check("noise_law").violated
    assert bad.epsilon_lower_bound > 1.0


#: Pages whose ```python blocks are runnable examples: the README's three short examples
#: and the getting-started pages of the documentation site (docs/getting-started/).
EXAMPLE_PAGES = [
    "README.md",
    "docs/getting-started/ci.md",
    "docs/getting-started/researchers.md",
    "docs/getting-started/analysts.md",
]


def _run_python_blocks(page: str) -> dict[str, object]:
    """Run every ```python block of ``page``, in order, in one namespace (a block written as
    a doctest runs its statements; tests/docs/test_snippets.py compares their output)."""
    import doctest
    import re

    text = (ROOT / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, f"{page} has no python example"
    namespace: dict[str, object] = {}
    for number, block in enumerate(blocks):
        if block.lstrip().startswith(">>>"):
            examples = doctest.DocTestParser().get_examples(block)
            block = "".join(example.source for example in examples)
        exec(compile(block, f"{page} python block {number}", "exec"), namespace)
    return namespace


def test_the_readme_shows_three_short_examples():
    """The README's examples: the pytest fixture, a declared mechanism, an analyst's call."""
    namespace = _run_python_blocks("README.md")
    assert namespace["noisy_mean"].spec.name == "noisy_mean"
    assert callable(namespace["test_my_mechanism_is_private"])
    budget = namespace["budget"]
    assert len(budget.ledger) == 2, "the analyst's calls charged no budget"
    assert "group of 2" in budget.ledger[1].conversion  # add/remove-one under substitute-one
    assert namespace["mean"].spec.name == "bounded_mean"


def test_the_researchers_page_declares_and_samples_a_mechanism():
    namespace = _run_python_blocks("docs/getting-started/researchers.md")
    assert namespace["outputs"].shape == (100_000,)


def test_the_ci_page_python_blocks_run():
    assert callable(
        _run_python_blocks("docs/getting-started/ci.md")["test_my_mechanism_is_private"]
    )


def test_the_analysts_page_python_blocks_run_in_order():
    namespace = _run_python_blocks("docs/getting-started/analysts.md")
    # the estimator example shows what its comment says
    assert abs(namespace["est"].u_statistic - namespace["x"].var(ddof=1)) < 1e-12
    # the budget example: three charges, the add/remove-one one converted, one refused
    budget = namespace["budget"]
    assert len(budget.ledger) == 3 and "group of 2" in budget.ledger[1].conversion
    assert abs(budget.remaining().epsilon - 1.918) < 1e-3


def test_third_party_example_audits_opendp_through_the_adapter(capsys):
    """OpenDP (test extra) draws its own randomness: detected, versioned, costed, audited.

    Its draws cannot be seeded, so this audit is not reproducible: it runs at confidence
    1 − 10⁻⁴, the probability that it flags the correct OpenDP Laplace by chance."""
    pytest.importorskip("opendp")
    from importlib import metadata

    ns = runpy.run_path(str(ROOT / "examples" / "third_party_opendp.py"))
    report = ns["main"](2_000, confidence=0.9999)
    out = capsys.readouterr().out
    assert f"wraps opendp {metadata.version('opendp')}" in out
    assert "reproducible from the seed: False" in out
    assert "µs per sample" in out
    assert not report.violated, report.summary()
    image = report.check("floating_point.image")
    assert image.status == "passed" and "user-supplied float_image" in image.summary
    mech = ns["build_opendp_laplace"]()
    assert mech.wrapped_distributions == {"opendp": metadata.version("opendp")}


def test_pytest_suite_example_runs_under_the_plugin(pytester):
    """The example suite, copied into a fresh project, passes under the plugin: four
    correct mechanisms keep their claims and the broken one is caught."""
    source = ROOT / "examples" / "pytest_suite" / "test_my_mechanisms.py"
    pytester.makepyfile(test_my_mechanisms=source.read_text(encoding="utf-8"))
    result = pytester.runpytest("-p", "no:cacheprovider", "-m", "privacy", "-v")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["*test_half_the_noise_is_caught PASSED*"])


def test_every_example_page_is_tested():
    """A new getting-started page gets its examples run (extend EXAMPLE_PAGES)."""
    folder = ROOT / "docs" / "getting-started"
    pages = {p.relative_to(ROOT).as_posix() for p in folder.glob("*.md")}
    assert pages <= set(EXAMPLE_PAGES)


def test_finite_randomizer_example(capsys):
    """A user-written finite randomizer: exact ε = 1; the shared-coin sampler's exact
    figure is refuted by the audit's own samples."""
    runpy.run_path(str(ROOT / "examples" / "finite_randomizer.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "unary_encoding: no_violation; exact ε = 1.0000 (all_pairs)" in out
    assert "unary_encoding_shared_coin: violation; exact figure refuted: True" in out
    assert "REFUTED by sampling" in out


def test_lndp_mechanism_example(capsys):
    """An LNDP mechanism with its layout and public randomness: the hot node is rewired
    first; the per-rho calibration passes and the averaged one is refuted."""
    runpy.run_path(str(ROOT / "examples" / "lndp_mechanism.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "probe_partner: no_violation" in out
    assert "probe_partner_averaged: violation" in out
    assert "(node_exposure hook)" in out and "declared layout" in out


def test_group_privacy_example(capsys):
    runpy.run_path(str(ROOT / "examples" / "group_privacy.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "k = 2, group bound ε = 2: no_violation" in out
    assert "k = 2, stated ε = 1.2: violation" in out
