"""The U-statistics study harness (``scripts/ustat_study.py``): structure, not statistics.

Nothing here asserts a statistical outcome: the checks are exact (slope fitting on exact
power laws, identical releases, reproducibility from the seed, completeness of the
tables), so none can flake.  The quick run takes a few seconds.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))

import _study_tools as tools
import ustat_study as study
from _ustat_scenarios import SCENARIOS, bernstein_radius, clipped_normal_moments

from privaudit.estimators.ustatistics import (
    local_hajek_projections,
    private_coinpress_mean,
)
from privaudit.spec.errors import InvalidInputError, InvalidParameterError

TINY = dataclasses.replace(
    study.QUICK, sizes=(24, 48), epsilons=(1.0, 2.0), repetitions={24: 3, 48: 3}, bootstrap=20
)


# ------------------------------------------------------------------ slope fitting
@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    slope=st.floats(-3.0, 3.0),
    log_c=st.floats(-5.0, 5.0),
    xs=st.lists(st.floats(1.0, 1e6), min_size=2, max_size=8, unique=True),
)
def test_slope_fit_recovers_an_exact_power_law(slope, log_c, xs):
    x = np.asarray(xs)
    if np.ptp(np.log(x)) < 1e-3:  # (nearly) one point: no slope to recover
        return
    y = np.exp(log_c) * x**slope
    fitted, intercept = tools.fit_loglog_slope(x, y)
    assert fitted == pytest.approx(slope, abs=1e-7)
    assert intercept == pytest.approx(log_c, abs=1e-5)


def test_bootstrap_slope_is_exact_and_degenerate_on_constant_cells():
    sizes = [100, 200, 400, 800, 1600]
    cells = [np.full(7, 2.0 * n**-1.5) for n in sizes]
    fit = tools.bootstrap_loglog_slope(sizes, cells, n_boot=50, rng=np.random.default_rng(0))
    assert fit.slope == pytest.approx(-1.5, abs=1e-12)
    assert fit.ci_low == pytest.approx(-1.5, abs=1e-12)
    assert fit.ci_high == pytest.approx(-1.5, abs=1e-12)
    assert fit.points == 5 and fit.contains(-1.5)


def test_bootstrap_interval_is_ordered_and_reproducible():
    rng = np.random.default_rng(1)
    sizes = [10.0, 20.0, 40.0]
    cells = [np.abs(rng.standard_normal(30)) / n for n in sizes]
    a = tools.bootstrap_loglog_slope(sizes, cells, n_boot=200, rng=np.random.default_rng(5))
    b = tools.bootstrap_loglog_slope(sizes, cells, n_boot=200, rng=np.random.default_rng(5))
    assert a == b
    assert a.ci_low <= a.ci_high


@pytest.mark.parametrize(
    "x, y",
    [
        ([1.0], [1.0]),
        ([1.0, 1.0], [1.0, 2.0]),
        ([1.0, 2.0], [0.0, 1.0]),
        ([-1.0, 2.0], [1.0, 1.0]),
        ([1.0, 2.0], [np.nan, 1.0]),
        ([1.0, 2.0, 3.0], [1.0, 2.0]),
    ],
)
def test_slope_fit_refuses_bad_input(x, y):
    with pytest.raises(InvalidInputError):
        tools.fit_loglog_slope(x, y)


def test_error_summaries_refuse_bad_errors():
    with pytest.raises(InvalidInputError, match="-1"):
        tools.summarise_errors([1.0, -1.0])
    with pytest.raises(InvalidInputError):
        tools.summarise_errors([])
    with pytest.raises(InvalidInputError, match="non-finite"):
        tools.summarise_errors([1.0, np.inf])
    with pytest.raises(InvalidParameterError, match="n_boot"):
        tools.bootstrap_loglog_slope(
            [1, 2], [np.ones(2), np.ones(2)], n_boot=0, rng=np.random.default_rng(0)
        )
    summary = tools.summarise_errors([1.0, 3.0])
    assert (summary.mean, summary.repetitions) == (2.0, 2)
    assert summary.standard_error == pytest.approx(math.sqrt(2.0) / math.sqrt(2.0))


def test_streams_are_named_reproducible_and_distinct():
    a = tools.stream(3, "collision", 100, 7, "data").random(4)
    assert np.array_equal(a, tools.stream(3, "collision", 100, 7, "data").random(4))
    assert not np.array_equal(a, tools.stream(3, "collision", 100, 8, "data").random(4))
    assert not np.array_equal(a, tools.stream(4, "collision", 100, 7, "data").random(4))
    assert np.array_equal(tools.stream(0, "x", 0.5).random(2), tools.stream(0, "x", 0.50).random(2))
    with pytest.raises(InvalidParameterError, match="-1"):
        tools.stream(-1, "x")


# --------------------------------------------------------------- scenario pieces
def test_bernstein_radius_solves_its_equation():
    t = bernstein_radius(0.3, 2.0, 50, 4.0)
    assert 50 * t * t == pytest.approx(4.0 * (2 * 0.3 + 2 * 2.0 * t / 3))


def test_clipped_normal_moments_match_quadrature():
    from scipy import integrate
    from scipy.stats import norm

    r = 3.0
    second, fourth = clipped_normal_moments(r)
    tail = 2 * norm.sf(r)
    assert second == pytest.approx(
        integrate.quad(lambda x: x**2 * norm.pdf(x), -r, r)[0] + r**2 * tail, rel=1e-10
    )
    assert fourth == pytest.approx(
        integrate.quad(lambda x: x**4 * norm.pdf(x), -r, r)[0] + r**4 * tail, rel=1e-10
    )


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_data_fit_their_kernel(name):
    scenario = SCENARIOS[name]
    data = scenario.sample(50, np.random.default_rng(0))
    projections = local_hajek_projections(data, scenario.kernel_for(50))
    assert np.isfinite(projections.u_statistic)
    assert scenario.xi(50) > 0 and scenario.theta(50) > 0


# ------------------------------------------- the all-tuples release equals the library
@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_all_tuples_release_is_the_library_release(name, epsilon):
    scenario = SCENARIOS[name]
    n = 31
    kernel = scenario.kernel_for(n)
    data = scenario.sample(n, np.random.default_rng(11))
    values = study.sorted_pair_values(data, kernel)
    ours = study.all_tuples_release(
        values, study.all_tuples_schedule(scenario, n, epsilon), np.random.default_rng(4)
    )
    library = private_coinpress_mean(
        data,
        kernel,
        epsilon,
        radius=scenario.mean_bound(n),
        tau=scenario.subgaussian_proxy(n),
        family="all",
        rng=np.random.default_rng(4),
        warn=False,
    )
    assert ours == library.estimate


# ------------------------------------------------------------------ the quick run
@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("ustat_study")
    result = study.main(["--quick", "--out", str(out), "--no-plots"])
    return result, out


def test_quick_run_fills_every_cell_with_finite_nonnegative_errors(quick_run):
    result, _ = quick_run
    config = result.config
    expected = {
        (s, m, n, float(e))
        for s in config.scenarios
        for m in config.methods
        for n in config.sizes
        for e in config.epsilons
    }
    assert set(result.private) == expected == set(result.total) == set(result.noise_std)
    assert len(config.methods) == 5 and len(config.scenarios) == 4
    for key, errors in result.private.items():
        assert errors.shape == (config.reps(key[2]),)
        for store in (result.private, result.total, result.noise_std):
            assert np.all(np.isfinite(store[key])) and np.all(store[key] >= 0)
        if key[1] == "u_n":
            assert np.all(errors == 0)
        else:
            assert np.all(result.noise_std[key] > 0)


def test_quick_run_writes_the_report_and_tables(quick_run):
    result, out = quick_run
    report = (out / "ustat_study.md").read_text(encoding="utf-8")
    assert "## The slope table" in report and "## Full error table" in report
    for name in result.config.scenarios:
        assert f"| {name} |" in report
    errors = (out / "ustat_study_errors.csv").read_text(encoding="utf-8").strip().splitlines()
    assert len(errors) == 1 + len(result.private)
    slopes = (out / "ustat_study_slopes.csv").read_text(encoding="utf-8").strip().splitlines()
    rows = study.slope_table(result)
    assert len(slopes) == 1 + len(rows)
    n_eps = len(result.config.epsilons)
    per_private_method = 2 * n_eps + 2 * 2  # (private, total) × every ε; in ε at 2 sizes
    assert len(rows) == len(result.config.scenarios) * (n_eps + 4 * per_private_method)


def test_algorithm_1_noise_is_its_public_formula(quick_run):
    result, _ = quick_run
    for (name, method, n, eps), std in result.noise_std.items():
        if not method.startswith("alg1") and method != "all_tuples":
            continue
        if np.all(result.level[(name, method, n, eps)] == 1):
            expected = study.expected_private_error(SCENARIOS[name], method, n, eps) * math.sqrt(
                2.0
            )
            assert std == pytest.approx(np.full(std.shape, expected), rel=1e-12)


def test_runs_are_reproducible_from_the_seed():
    first = study.run_study(TINY)
    second = study.run_study(TINY)
    for key in first.private:
        assert np.array_equal(first.private[key], second.private[key])
        assert np.array_equal(first.total[key], second.total[key])
    other = study.run_study(dataclasses.replace(TINY, seed=TINY.seed + 1))
    assert any(
        not np.array_equal(first.total[k], other.total[k]) for k in first.total if k[1] != "u_n"
    )


def test_a_cell_does_not_depend_on_which_other_cells_ran():
    full = study.run_study(TINY)
    part = study.run_study(
        dataclasses.replace(
            TINY, scenarios=("collision",), methods=("alg1_paper",), epsilons=(2.0,)
        )
    )
    for key in part.private:
        assert np.array_equal(part.private[key], full.private[key])


def test_the_plot_is_written(quick_run, tmp_path):
    result, _ = quick_run
    rows = study.slope_table(result)
    path = study.plot_scenario(result, rows, "collision", tmp_path)
    assert path.exists() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
