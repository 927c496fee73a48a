"""The examples in examples/ run and show what the README says they show."""

from __future__ import annotations

import pathlib
import runpy

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
    config = AuditConfig(samples=30_000, pilot_samples=1_000, pair_budget=12, pairs_tested=2,
                         claim_budget=40, seed=5)
    good = audit(ns["build_noisy_histogram"](), config=config)
    assert not good.violated, good.summary()
    bad = audit(ns["build_underscaled_histogram"](), config=config)
    assert bad.violated and bad.check("noise_law").violated
    assert bad.epsilon_lower_bound > 1.0


def test_the_readme_python_blocks_run_in_order():
    """Every ```python block of the README runs, in order, in one namespace."""
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 4
    namespace: dict[str, object] = {}
    for number, block in enumerate(blocks):
        exec(compile(block, f"README.md python block {number}", "exec"), namespace)
    # the estimator example shows what its comment says
    assert abs(namespace["est"].u_statistic - namespace["x"].var(ddof=1)) < 1e-12


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
