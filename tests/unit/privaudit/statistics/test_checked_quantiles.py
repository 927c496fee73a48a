"""Clopper–Pearson bounds where ``scipy.special.betaincinv`` is wrong.

scipy's ``betaincinv`` (Boost ``ibeta_inv``) returns a lower bound far above k/n for k =
1000 successes in n ≥ 2·10⁸ trials, and an upper bound up to 4 % low for k = 999 at
n ≥ 3·10⁸; an ε lower bound built on them certified ε ≥ 0.40 from 1000 against 952 outputs
of 4·10⁸.  The bounds are now checked through the forward incomplete beta function.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from privaudit.statistics import epsilon_lower_bound
from privaudit.statistics.clopper_pearson import TAIL_RTOL, cp_lower, cp_upper


def _lower_tail(k, n, bound):
    return special.betainc(float(k), float(n - k + 1), float(bound))


def _upper_tail(k, n, bound):
    return special.betaincc(float(k + 1), float(n - k), float(bound))


@pytest.mark.parametrize("n", [2 * 10**8, 4 * 10**8, 10**9])
@pytest.mark.parametrize("alpha", [0.025, 1e-4])
def test_the_lower_bound_at_1000_successes_solves_its_equation(n, alpha):
    bound = float(cp_lower(1000, n, alpha))
    assert bound < 1000 / n
    assert abs(_lower_tail(1000, n, bound) / alpha - 1) < 1e-9
    # the Poisson limit of the binomial bound: gammaincinv(k, α) / n, to 10⁻⁵ here
    assert bound * n == pytest.approx(special.gammaincinv(1000, alpha), rel=1e-5)


@pytest.mark.parametrize("n", [10**7, 4 * 10**8])
def test_the_upper_bound_at_999_successes_solves_its_equation(n):
    bound = float(cp_upper(999, n, 0.025))
    assert abs(_upper_tail(999, n, bound) / 0.025 - 1) < 1e-9
    assert bound * n == pytest.approx(special.gammaincinv(1000, 0.975), rel=1e-5)


def test_the_bounds_are_monotone_in_the_count_across_the_bad_points():
    ks = np.arange(990, 1011)
    for n in (10**7, 4 * 10**8):
        assert np.all(np.diff(cp_lower(ks, n, 0.025)) > 0)
        assert np.all(np.diff(cp_upper(ks, n, 0.025)) > 0)


def test_a_near_even_event_at_4e8_outputs_is_no_evidence():
    # 1000 against 952 of 4·10⁸ each: a ratio of 1.05, far inside the noise
    assert float(epsilon_lower_bound(1000, 4 * 10**8, 952, 4 * 10**8, alpha=0.05)) == 0.0


def test_small_counts_at_tiny_levels_and_huge_n():
    for k in (2, 3):
        bound = float(cp_lower(k, 10**9, 1e-6))
        assert abs(_lower_tail(k, 10**9, bound) / 1e-6 - 1) < 1e-9


def test_edges_keep_their_exact_values():
    assert float(cp_lower(0, 10, 0.05)) == 0.0
    assert float(cp_upper(10, 10, 0.05)) == 1.0
    lo = cp_lower(np.array([0, 5, 10]), 10, 0.05)
    up = cp_upper(np.array([0, 5, 10]), 10, 0.05)
    assert lo[0] == 0.0 and up[2] == 1.0
    assert lo[1] < 0.5 < up[1]


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=10**10),
    fraction=st.floats(min_value=0.0, max_value=1.0),
    alpha=st.floats(min_value=1e-9, max_value=0.2),
)
def test_the_bounds_solve_their_equations_or_err_conservatively(n, fraction, alpha):
    k = int(round(fraction * n))
    lo, up = float(cp_lower(k, n, alpha)), float(cp_upper(k, n, alpha))
    assert lo <= k / n <= up
    if k > 0:
        assert _lower_tail(k, n, lo) <= alpha * (1 + TAIL_RTOL)
    if k < n:
        assert _upper_tail(k, n, up) <= alpha * (1 + TAIL_RTOL)
