"""Cost of coding output columns into cells: the NumPy path against the compiled kernel.

Run with ``python -m pytest benchmarks/test_bench_column_coding.py -q --benchmark-only``.
A continuous column with one atom (a sparse vector's released values: 0.0 where the
query was not answered ⊤, 60 % of the rows) and tail-refined quantile bins, as the cell
scores fit them, coded on 2.5·10⁶ values; and the digits of 20 small-integer code
columns read from 2¹⁵ rows of 30, as the packed scores read them.  Each is timed on
the NumPy path (``columns.KERNEL_VALUES`` above the size) and on the compiled kernel
(:mod:`privaudit.auditing.distinguish._column_kernel`); the cells and digits are the
same to the bit (``tests/unit/privaudit/distinguish/test_feature_evaluation.py``).
Measured on the machine of ``docs/power_table.md`` (x86_64, 2 cores; medians): the
column 32.7 → 15.5 ms (13.1 → 6.2 ns per value), the digits 1.83 → 0.83 ms.  Nothing
here asserts on time.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.auditing.distinguish import columns
from privaudit.auditing.distinguish.columns import fit_column_coder, small_integer_digits

PATHS = {"numpy": 1 << 62, "compiled": 0}


@pytest.fixture(scope="module")
def released_values():
    rng = np.random.default_rng(0)
    n = 2_500_000
    col = np.where(rng.random(n) < 0.6, 0.0, rng.laplace(0.0, 1.0, n))
    return fit_column_coder(col, bins=32), col


@pytest.fixture(scope="module")
def code_rows():
    rng = np.random.default_rng(1)
    rows = np.zeros((1 << 15, 30))
    rows[:, :20] = rng.integers(-1, 2, size=(1 << 15, 20))
    rows[:, 20:] = rng.normal(size=(1 << 15, 10))
    return rows


@pytest.mark.parametrize("path", list(PATHS))
def test_column_coding(benchmark, released_values, path, monkeypatch):
    coder, col = released_values
    monkeypatch.setattr(columns, "KERNEL_VALUES", PATHS[path])
    coder(col[:10_000])  # the kernel loaded (numba's cache or compilation) before timing
    cells = benchmark(coder, col)
    benchmark.extra_info["ns_per_value"] = benchmark.stats["median"] / col.size * 1e9
    assert cells.shape == col.shape and cells.max() < coder.size


@pytest.mark.parametrize("path", list(PATHS))
def test_small_integer_digits(benchmark, code_rows, path, monkeypatch):
    monkeypatch.setattr(columns, "KERNEL_VALUES", PATHS[path])
    wanted = list(range(20))
    small_integer_digits(code_rows, wanted, -1, 1)
    digits = benchmark(small_integer_digits, code_rows, wanted, -1, 1)
    benchmark.extra_info["ns_per_row"] = benchmark.stats["median"] / code_rows.shape[0] * 1e9
    assert digits is not None and digits.shape == (code_rows.shape[0], 20)
