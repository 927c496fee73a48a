"""The spike check (privaudit.auditing.checks.spike): windows around f against the declared law."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit import audit
from privaudit.auditing.checks import check_spike, spike_applies
from privaudit.auditing.checks.spike import (
    CDF_SLACK,
    LARGEST_EXPECTED,
    SMALLEST_EXPECTED,
    WindowGrid,
    _window_counts,
)
from privaudit.mechanisms import DiscreteLaplaceMechanism, GaussianMechanism, LaplaceMechanism
from privaudit.spec import Laplace
from privaudit.spec.errors import AuditError, InvalidParameterError
from privaudit.suites.broken import RareRawMean

X, Y = np.zeros(100), np.concatenate([[1.0], np.zeros(99)])


def test_grid_probabilities_are_the_exact_laplace_windows_plus_slack():
    law = Laplace(scale=0.01)
    grid = WindowGrid.build(law, [np.array([0.0]), np.array([0.01])], 2_000_000)
    s = law.std
    k = np.log2(s / grid.radii)
    assert np.allclose(k, np.round(k)) and np.allclose(np.diff(k), 1.0)
    # the grid starts at the first radius s·2^-k with at most 10^4 expected outputs
    assert 2_000_000 * grid.null[0] <= LARGEST_EXPECTED < 2_000_000 * 2 * grid.null[0]
    exact = -np.expm1(-grid.radii / 0.01)  # P[|Laplace(b)| <= r] = 1 - e^{-r/b}
    assert np.all(grid.null >= exact)  # never understated
    assert np.allclose(grid.null, exact, rtol=1e-6, atol=2 * CDF_SLACK)
    # and stops at the first window where the law expects fewer than one output
    assert 2_000_000 * grid.null[-1] < SMALLEST_EXPECTED <= 2_000_000 * grid.null[-2]


def test_window_counts_use_the_linf_distance_to_the_centre():
    out = np.array([[0.0, 0.0], [0.1, -0.1], [0.3, 0.0], [np.nan, 0.0]])
    counts = _window_counts(out, np.array([0.0, 0.0]), np.array([0.4, 0.2, 0.05]))
    assert counts.tolist() == [3, 2, 1]


def test_the_corner_spike_is_flagged_and_the_honest_law_passes():
    # p = 10 delta, N p = 30 at N = 10^5: the spike of width 1e-7 on Laplace(0.01)
    leaky = RareRawMean(delta=3e-5, p=3e-4, spike=1e-7)
    honest = RareRawMean(delta=3e-5, p=0.0, spike=1e-7)
    flagged = check_spike(leaky, (X, Y), 0, samples=100_000, alpha=0.0025)
    assert flagged.violated and flagged.name == "noise_law.spike"
    worst = flagged.details["worst_count"]
    assert worst > 10 * flagged.details["worst_expected"]
    assert flagged.statistic < 0.0025
    passed = check_spike(honest, (X, Y), 0, samples=100_000, alpha=0.0025)
    assert passed.status == "passed"
    assert passed.details["outputs"] == 200_000
    assert len(passed.details["p_values"]) == passed.details["bonferroni_k"]


def test_atoms_and_gaussian_laws():
    atom = check_spike(RareRawMean(delta=3e-5, p=3e-4), (X, Y), 1, samples=100_000, alpha=0.0025)
    assert atom.violated
    gauss = GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    outcome = check_spike(gauss, (0.0, 1.0), 2, samples=50_000, alpha=0.0025)
    assert outcome.status == "passed" and outcome.details["law"] == "Gaussian"


def test_counts_do_not_depend_on_the_chunk_size():
    mech = RareRawMean(delta=3e-5, p=3e-4, spike=1e-7)

    class Tiny:
        blocks_per_chunk = 1

        def map(self, fn, items):
            return map(fn, items)

    a = check_spike(mech, (X, Y), 3, samples=300_000, alpha=0.0025)
    b = check_spike(mech, (X, Y), 3, samples=300_000, alpha=0.0025, executor=Tiny())
    assert a.details["counts"] == b.details["counts"]


def test_skipped_with_a_reason_and_bad_parameters():
    assert spike_applies(LaplaceMechanism(epsilon=1.0, sensitivity=1.0)) is None
    reason = spike_applies(DiscreteLaplaceMechanism(epsilon=1.0, sensitivity=1))
    assert reason is not None and "discrete" in reason
    blind = RareRawMean(hook=False)
    assert "statistic" in spike_applies(blind)
    assert check_spike(blind, (X, Y), 0, samples=10).status == "skipped"
    mech = RareRawMean()
    with pytest.raises(InvalidParameterError, match="alpha"):
        check_spike(mech, (X, Y), 0, samples=10, alpha=1.5)
    with pytest.raises(InvalidParameterError, match="samples"):
        check_spike(mech, (X, Y), 0, samples=0)


def test_the_audit_runs_it_on_half_the_noise_law_share():
    report = audit(RareRawMean(delta=3e-5, p=3e-4, spike=1e-7), samples=100_000, seed=0)
    by_name = {c.name: c for c in report.checks}
    spike, law = by_name["noise_law.spike"], by_name["noise_law"]
    assert spike.violated and report.violated
    assert math.isclose(spike.error_rate, law.error_rate)
    assert math.isclose(spike.error_rate + law.error_rate, 0.1 * 0.05)


def test_leaks_within_the_allowance_pass_and_larger_ones_do_not():
    # an atom of probability delta/2: a departure from the declared law that the claimed
    # delta covers (N p = 5 per side at 10^6)
    small = RareRawMean(delta=1e-5, p=5e-6)
    strict = check_spike(small, (X, Y), 4, samples=1_000_000, alpha=0.0025)
    assert strict.violated
    allowed = check_spike(small, (X, Y), 4, samples=1_000_000, alpha=0.0025, allowance=1e-5)
    assert allowed.status == "passed" and allowed.details["allowance"] == 1e-5
    big = check_spike(
        RareRawMean(delta=3e-6, p=3e-5, spike=1e-7),
        (X, Y),
        4,
        samples=1_000_000,
        alpha=0.0025,
        allowance=3e-6,
    )
    assert big.violated and "plus delta" in big.summary
    with pytest.raises(InvalidParameterError, match="allowance"):
        check_spike(small, (X, Y), 0, samples=10, allowance=-0.1)


def test_outputs_of_the_wrong_width_are_an_audit_error():
    with pytest.raises(AuditError, match="coordinate"):
        _window_counts(np.zeros((10, 2)), np.array([0.0]), np.array([1.0]))


def test_pure_claims_keep_the_noise_law_share_and_run_no_spike_check():
    report = audit(LaplaceMechanism(1.0, 1.0), samples=20_000, pilot_samples=1_000, seed=1)
    names = {c.name for c in report.checks}
    assert "noise_law.spike" not in names
    assert math.isclose(report.check("noise_law").error_rate, 0.1 * 0.05)
