"""Smoke tests of the two studies in ``--quick`` mode, and their pure helpers.

Structural checks only (every cell present, errors finite and non-negative, reproducible
from the seed); no assertion on a statistical outcome.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]


def _load(name: str):
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_study_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def network():
    return _load("network_statistics_study")


@pytest.fixture(scope="module")
def power():
    return _load("uniformity_power_study")


def test_network_study_quick_run_writes_its_outputs(network, tmp_path):
    assert network.main(["--quick", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "network_statistics_study.md").read_text(encoding="utf-8")
    for heading in (
        "## Edge density",
        "## Triangle density",
        "## Where the private error falls below the non-private error",
        "## Log-log slopes in n next to the rates",
    ):
        assert heading in text
    for statistic in network.STATISTICS:
        assert (tmp_path / f"network_statistics_study_{statistic}.png").stat().st_size > 0


def test_network_study_cells_are_complete_finite_and_reproducible(network):
    import warnings

    kwargs = {
        "ns": (40, 60),
        "epsilons": (1.0, 4.0),
        "reps": 2,
        "seed": 3,
        "methods": ("alg1", "coinpress"),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = network.run_study(**kwargs)
        again = network.run_study(**kwargs)
    keys = {(c.statistic, c.rule, c.n, c.epsilon, c.method) for c in first}
    expected = {
        (s, r, n, e, m)
        for s in network.STATISTICS
        for r in network.RULES
        for n in (40, 60)
        for e in (1.0, 4.0)
        for m in ("alg1", "coinpress")
    }
    expected |= {
        (s, r, n, 0.0, "non_private")
        for s in network.STATISTICS
        for r in network.RULES
        for n in (40, 60)
    }
    assert keys == expected
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a.total, b.total) and np.array_equal(a.private, b.private)
        assert a.reps == 2 and np.all(np.isfinite(a.total)) and np.all(a.total >= 0)


def test_slope_fit_recovers_a_power_law(network):
    ns = [100, 200, 400, 800]
    assert network.fit_slope(ns, [3.0 * n**-1.5 for n in ns]) == pytest.approx(-1.5)
    assert math.isnan(network.fit_slope(ns, [0.0, 0.0, 0.0, 1.0]))


def test_theory_rates(network):
    assert network.theory_rate("edge_density", "non_private", 100, 0.2, 1.0) == pytest.approx(0.002)
    assert network.theory_rate("triangle_density", "coinpress", 100, 0.2, 2.0, 4) == pytest.approx(
        1 / 50
    )
    edge = network.theory_rate("edge_density", "alg1", 400, 0.1, 1.0)
    assert edge == pytest.approx(0.1 / 400**1.5 + 1 / 400**2 + 1 / 400**3)


def test_power_study_quick_run_writes_its_outputs(power, tmp_path):
    assert power.main(["--quick", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "uniformity_power_study.md").read_text(encoding="utf-8")
    assert "## Rejection rates" in text and "## Summary" in text


def test_power_study_cells_are_complete_and_reproducible(power):
    import warnings

    kwargs = {"ms": (10,), "ns": (200,), "deltas": (1.0,), "epsilons": (2.0,), "reps": 3, "seed": 5}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = power.run_study(**kwargs)
        again = power.run_study(**kwargs)
    assert first == again
    assert {(c.hypothesis, c.method) for c in first} == {
        (h, m) for h in power.HYPOTHESES for m in power.METHODS
    }
    for cell in first:
        low, high = cell.interval()
        assert 0 <= low <= cell.rate <= high <= 1 and cell.reps == 3


def test_power_study_laws_sit_on_the_boundaries(power):
    laws = power.distributions(50, 0.6)
    assert laws["H0 uniform"].l2_distance == 0.0
    assert laws["H0 tolerant boundary"].l2_distance == pytest.approx(0.6 / math.sqrt(100))
    assert laws["H1 boundary"].l2_distance == pytest.approx(0.6 / math.sqrt(50))


def test_sample_complexities(power):
    m, d, e = 100, 0.5, 1.0
    expected = (
        10 / 0.25
        + 10 / 0.5
        + 10 * math.sqrt(math.log(200)) / 0.5
        + 100 ** (1 / 3) / 0.5 ** (2 / 3)
        + 1 / 0.25
    )
    assert power.theorem5_sample_complexity(m, d, e) == pytest.approx(expected)
    assert power.baseline_sample_complexity(m, d, e) == pytest.approx(400)
