"""The halving's coarse cells of a mixed discrete/continuous output (:func:`coarse_codes`)."""

from __future__ import annotations

import numpy as np

from privaudit.auditing.choice.scores import COARSE_BINS, coarse_codes


def _outputs(n, seed):
    """A sparse-vector-like output: a code column (three values), a released value that
    is 0 (the atom) unless its code is 1, and a Laplace column."""
    rng = np.random.default_rng(seed)
    code = rng.integers(0, 3, n).astype(np.float64)
    value = np.where(code == 1, rng.normal(5.0, 1.0, n), 0.0)
    return np.column_stack([code, value, rng.laplace(size=n)])


def test_codes_continuous_columns_in_quartile_cells_and_keeps_discrete_ones():
    ox, oy = _outputs(6_000, 0), _outputs(5_000, 1)
    cx, cy = coarse_codes(ox, oy)
    assert cx.shape == ox.shape and cy.shape == oy.shape
    assert cx.flags.c_contiguous and cy.flags.c_contiguous
    # the code column is categorical: kept as it is
    np.testing.assert_array_equal(cx[:, 0], ox[:, 0])
    np.testing.assert_array_equal(cy[:, 0], oy[:, 0])
    # the released value: its atom 0 has a cell of its own, the rest quartile cells
    np.testing.assert_array_equal(cx[:, 1] == -1.0, ox[:, 1] == 0.0)
    released = np.concatenate([cx[ox[:, 1] != 0.0, 1], cy[oy[:, 1] != 0.0, 1]])
    assert set(np.unique(released)) == set(range(COARSE_BINS))
    # the Laplace column: no atom, four cells of about a quarter of the pooled outputs each
    pooled = np.concatenate([cx[:, 2], cy[:, 2]])
    shares = np.bincount(pooled.astype(np.intp), minlength=COARSE_BINS) / pooled.size
    np.testing.assert_allclose(shares, 1.0 / COARSE_BINS, atol=2e-3)


def test_the_callers_outputs_are_not_changed():
    ox, oy = _outputs(3_000, 2), _outputs(3_000, 3)
    before = ox.copy(), oy.copy()
    coarse_codes(ox, oy)
    np.testing.assert_array_equal(ox, before[0])
    np.testing.assert_array_equal(oy, before[1])


def test_cells_follow_the_values_not_the_memory_layout():
    # a Fortran-ordered or strided input gets the same cells as its C-ordered copy
    ox, oy = _outputs(4_000, 4), _outputs(4_000, 5)
    reference = coarse_codes(ox, oy)
    strided = np.repeat(ox, 2, axis=1)[:, ::2], np.repeat(oy, 2, axis=1)[:, ::2]
    for a, b in ((np.asfortranarray(ox), np.asfortranarray(oy)), strided):
        for got, want in zip(coarse_codes(a, b), reference, strict=True):
            assert got.flags.c_contiguous
            np.testing.assert_array_equal(got, want)
