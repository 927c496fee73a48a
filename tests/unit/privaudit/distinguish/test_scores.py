"""Learned scores (privaudit.auditing.distinguish.cell_score, .columns, .logistic): column coding, naive Bayes, joint cells,
dependence groups, whitening, isotonic fits, the logistic feature map.

Every audit here is seeded.  Where an assertion is statistical, its docstring or comment
states the error rate: for "a correct mechanism is not flagged" it is the family-wise
α of the call (the probability of a false violation is at most α whatever the seed);
for "a broken mechanism is flagged" it is the power at the stated sample size.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privaudit.auditing.distinguish.cell_score import (
    CellFit,
    dependence_groups,
    fit_cell_score,
    isotonic,
    whitening,
)
from privaudit.auditing.distinguish.columns import ColumnCoder, fit_column_coder
from privaudit.auditing.distinguish.logistic import fit_logistic_score

# ----------------------------------------------------------------------------------------
# learned scores (privaudit.auditing.distinguish.cell_score, .columns, .logistic)
# ----------------------------------------------------------------------------------------


def _bits(p: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    return (rng.random((n, p.size)) < p).astype(np.int64)


def test_column_coder_cells():
    """Exact columns code their values (unseen → one extra cell); continuous columns keep
    atoms exactly and bin the rest by quantiles refined in both tails."""
    exact = fit_column_coder(np.array([-1.0, 0.0, 1.0, 0.0, 1.0]))
    assert exact.exact and exact.size == 4
    assert exact(np.array([1.0, -1.0, 0.5, np.nan])).tolist() == [2, 0, 3, 3]
    rng = np.random.default_rng(3)
    col = np.where(rng.random(50_000) < 0.6, 0.0, rng.laplace(0, 1, 50_000))
    coder = fit_column_coder(col, bins=16)
    assert coder.atoms.tolist() == [0.0] and not coder.exact
    codes = coder(col)
    assert np.all(codes[col == 0.0] == 0) and np.all(codes[col != 0.0] >= 1)
    assert coder.edges.size > 16                      # tail refinement adds edges
    counts = np.bincount(codes[col != 0.0] - 1)
    assert counts.max() < 0.1 * (col != 0.0).sum()    # no bin holds more than ~1/16 + slack
    many = ColumnCoder(atoms=np.arange(20.0), edges=np.zeros(0))     # > 8 atoms: searchsorted
    assert many(np.array([3.0, 19.0, 2.5])).tolist() == [3, 19, 20]


def test_naive_bayes_score_is_the_llr_of_a_product_law():
    """Six independent bits (a RAPPOR-like product law), 2·10⁵ fitting rows per side: the
    naive-Bayes score equals Σ_j log(P_x(b_j)/P_y(b_j)) up to estimation error.  Each
    per-bit cell has ≥ 9·10⁴ rows, so its LLR has sd ≤ 0.005 and six of them ≤ 0.012;
    the tolerance 0.06 is 5 sd: a seed failing it has probability < 10⁻⁶."""
    px = np.array([0.525, 0.525, 0.525, 0.475, 0.475, 0.5])
    py = np.array([0.475, 0.475, 0.475, 0.525, 0.525, 0.5])
    rng = np.random.default_rng(5)
    fx, fy = _bits(px, 200_000, rng), _bits(py, 200_000, rng)
    score = fit_cell_score(fx, fy, groups="columns")
    assert score is not None and score.name == "naive-Bayes LLR"
    rows = np.array(list(itertools.product([0, 1], repeat=6)))
    true = np.sum(np.where(rows == 1, np.log(px / py), np.log((1 - px) / (1 - py))), axis=1)
    np.testing.assert_allclose(score(rows), true, atol=0.06)


def test_joint_cells_capture_what_naive_bayes_cannot():
    """Two fair bits whose XOR is 1 w.p. 0.6 under x and 0.4 under y: each bit alone is
    uninformative (naive Bayes ≈ 0), the joint-cell score is ±log 1.5 on the XOR."""
    rng = np.random.default_rng(7)

    def xor_rows(p: float, n: int) -> np.ndarray:
        a = rng.integers(0, 2, n)
        return np.stack([a, a ^ (rng.random(n) < p)], axis=1).astype(np.int64)

    fx, fy = xor_rows(0.6, 100_000), xor_rows(0.4, 100_000)
    ctx = CellFit(fx, fy)
    nb = fit_cell_score(None, None, groups="columns", context=ctx)
    joint = fit_cell_score(None, None, groups="joint", context=ctx)
    rows = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    assert np.max(np.abs(nb(rows))) < 0.05          # sd ≈ 0.009 per bit: > 5 sd margin
    np.testing.assert_allclose(joint(rows), [-math.log(1.5), math.log(1.5),
                                             math.log(1.5), -math.log(1.5)], atol=0.05)


def test_dependence_groups_split_independent_blocks():
    """Columns 0–1 copy one bit (with 10 % flips), columns 2–3 another, column 4 is
    noise: three groups.  The G-test at level 10⁻⁶ per pair makes a false join of
    independent columns a < 10⁻⁵ event over the ten pairs."""
    rng = np.random.default_rng(2)
    n = 50_000
    u, v = rng.integers(0, 2, n), rng.integers(0, 2, n)
    cols = [u, u ^ (rng.random(n) < 0.1), v, v ^ (rng.random(n) < 0.1), rng.integers(0, 2, n)]
    groups = dependence_groups([c.astype(np.int64) for c in cols], [2] * 5, max_cells=100)
    assert groups == [(0, 1), (2, 3), (4,)]
    assert dependence_groups([c.astype(np.int64) for c in cols], [2] * 5, max_cells=1) == \
        [(0,), (1,), (2,), (3,), (4,)]


def test_whitening_recovers_the_increments_of_prefix_sums():
    """Prefix sums of i.i.d. Laplace noise: (o − μ)W must be uncorrelated and W is, up
    to scale and sampling error, the differencing matrix (|off-band| < 0.05 relative)."""
    rng = np.random.default_rng(4)
    o = np.cumsum(rng.laplace(0, 1, (100_000, 5)), axis=1)
    mu, w = whitening(o)
    z = (o - mu) @ w
    corr = np.corrcoef(z, rowvar=False)
    assert np.max(np.abs(corr - np.eye(5))) < 0.02
    scaled = w / np.max(np.abs(w))
    band = np.eye(5) - np.eye(5, k=1)                # z_j ∝ o_j − o_{j−1}
    assert np.max(np.abs(np.abs(scaled) - np.abs(band))) < 0.05
    assert whitening(rng.laplace(0, 1, (10_000, 3))) is None      # already uncorrelated


@given(st.lists(st.floats(-5, 5), min_size=1, max_size=30),
       st.lists(st.floats(0.1, 10), min_size=30, max_size=30))
def test_isotonic_is_monotone_and_least_squares(values, weights):
    v = np.asarray(values)
    w = np.asarray(weights[: v.size])
    fit = isotonic(v, w)
    assert np.all(np.diff(fit) >= -1e-12)
    # optimality: no monotone vector of the pooled form does better than PAV's fit,
    # checked against the constant fit and against the data itself when it is monotone
    sse = float(np.sum(w * (fit - v) ** 2))
    const = float(np.sum(w * (np.average(v, weights=w) - v) ** 2))
    assert sse <= const + 1e-9
    if np.all(np.diff(v) >= 0):
        assert sse == pytest.approx(0.0, abs=1e-9)
    down = isotonic(v, w, increasing=False)
    assert np.all(np.diff(down) <= 1e-12)


def test_monotone_naive_bayes_pools_a_weak_shift():
    """Laplace(60) shifted by 1 (LLR ±1/60): 32 free bins give LLRs with sd ≈ 0.02 per
    bin — more than the signal — while the monotone fit is monotone and its largest
    |LLR| stays within 0.02 of 1/60 (the pooled halves have ~10⁵ rows: sd < 0.005)."""
    rng = np.random.default_rng(8)
    fx = rng.laplace(0.0, 60.0, (200_000, 1))
    fy = rng.laplace(1.0, 60.0, (200_000, 1))
    ctx = CellFit(fx, fy)
    mono = fit_cell_score(None, None, groups="columns", monotone=True, context=ctx)
    grid = np.linspace(-300, 300, 601)[:, None]
    values = mono(grid)
    assert np.all(np.diff(values) <= 1e-12)            # x = shift down: LLR decreasing
    assert np.max(np.abs(values)) < 1 / 60 + 0.02
    assert mono.name == "monotone naive-Bayes LLR"


def test_logistic_feature_map_has_no_collinear_features():
    """A binary column gives one feature, a 3-valued categorical two (one-hot without its
    first value), a continuous column three plus its atom; a duplicated column adds
    nothing."""
    rng = np.random.default_rng(1)
    n = 4_000

    def rows(shift: float) -> np.ndarray:
        b = rng.integers(0, 2, n).astype(float)
        c = rng.integers(-1, 2, n).astype(float)
        v = np.where(rng.random(n) < 0.3, 0.0, rng.normal(shift, 1, n))
        return np.stack([b, c, v, b], axis=1)

    score = fit_logistic_score(rows(0.5), rows(0.0))
    assert score is not None
    fm = score.features
    assert fm.raw_size == 1 + 2 + 1 + 3 + 1            # b, c (2), atom of v, (z, z², |z|), b again
    assert fm.keep.size == fm.raw_size - 1              # the copy of b is dropped
    out = score(rows(0.0))
    assert out.shape == (n,) and np.all(np.isfinite(out))
