"""Outputs with few distinct values or rows (privaudit.auditing.distinguish.rows): exact counts of
reduced integer outputs and rows, row keys, the search split's row table.

Every audit here is seeded.  Where an assertion is statistical, its docstring or comment
states the error rate: for "a correct mechanism is not flagged" it is the family-wise
α of the call (the probability of a false violation is at most α whatever the seed);
for "a broken mechanism is flagged" it is the power at the stated sample size.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privaudit.auditing.distinguish as dist
from privaudit.auditing.pairs import verified_pair

from ._shared import run_pair_test


def test_reduced_integer_outputs_give_exact_counts():
    """Small-range integer outputs are reduced to (value, count) pairs per chunk: the
    counts, the profile and hence the whole result are those of the raw outputs."""
    from privaudit.auditing.distinguish.rows import distinct_values as _distinct_values

    out = np.array([3, 1, 3, 3, 2, 1], dtype=np.int64)
    values, counts = _distinct_values(out)
    assert values.tolist() == [1, 2, 3] and counts.tolist() == [2, 1, 3]
    flags = np.array([True, False, True])
    v, c = _distinct_values(flags)
    assert v.dtype == bool and dict(zip(v.tolist(), c.tolist(), strict=True)) == {False: 1, True: 2}
    wide = np.array([0, 10**9])
    assert _distinct_values(wide)[1] is None
    assert _distinct_values(np.zeros((3, 2), dtype=np.int64))[1] is None


def test_reduced_integer_rows_give_exact_counts():
    """2-D outputs of small integers (sparse-vector codes) are reduced to distinct rows
    with counts; anything else is left alone."""
    from privaudit.auditing.distinguish.rows import distinct_outputs as _distinct_outputs
    from privaudit.auditing.distinguish.rows import distinct_rows as _distinct_rows

    rng = np.random.default_rng(5)
    codes = rng.integers(-1, 2, size=(5000, 6)).astype(np.float64)
    rows, counts = _distinct_rows(codes)
    assert counts.sum() == 5000 and rows.dtype == codes.dtype
    uniq, ref = np.unique(codes, axis=0, return_counts=True)
    got = {tuple(r): c for r, c in zip(rows.tolist(), counts.tolist(), strict=True)}
    assert got == {tuple(r): c for r, c in zip(uniq.tolist(), ref.tolist(), strict=True)}
    shifted_rows, shifted_counts = _distinct_rows(codes + 0.5)  # offsets are kept
    assert np.array_equal(np.sort(shifted_rows, axis=0), np.sort(rows + 0.5, axis=0))
    assert np.array_equal(np.sort(shifted_counts), np.sort(counts))
    bad = codes.copy()
    bad[7, 2] = 0.25  # not integers
    assert _distinct_rows(bad)[1] is None
    assert _distinct_rows(np.tile(np.arange(2.0), (3, 20)))[1] is None  # 2⁴⁰ cells
    assert _distinct_rows(np.array([[0.0, np.nan]]))[1] is None
    values, c = _distinct_outputs(np.array([2, 2, 5]))
    assert values.tolist() == [2, 5] and c.tolist() == [2, 1]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 4),
    st.sampled_from([-300.0, -1.0, 0.0, 0.5, 40.0, 200.0, 1000.0]),
    st.sampled_from(["float64", "int64", "int16"]),
    st.integers(0, 2**31 - 1),
)
def test_row_keys_of_small_integer_rows_count_exactly(width, span, offset, dtype, seed):
    """Keys of small-integer rows count every distinct row exactly as ``np.unique`` does,
    for float and integer outputs, integer and fractional offsets, int8 and int16 ranges."""
    from privaudit.auditing.distinguish.rows import distinct_rows as _distinct_rows
    from privaudit.auditing.distinguish.rows import row_table, small_integer_row_keys

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, span + 1, size=(400, width)) + offset
    if dtype != "float64":
        if not float(offset).is_integer():
            return
        codes = codes.astype(dtype)
    reduced = small_integer_row_keys(codes)
    assert reduced is not None
    (keys,), base, lo = reduced
    assert lo == codes.min() and keys.min() >= 0 and keys.max() < base**width
    rows, counts = _distinct_rows(codes)
    uniq, ref = np.unique(codes, axis=0, return_counts=True)
    got = {tuple(r): c for r, c in zip(rows.tolist(), counts.tolist(), strict=True)}
    assert got == {tuple(r): c for r, c in zip(uniq.tolist(), ref.tolist(), strict=True)}
    half = codes.shape[0] // 2
    table = row_table(codes[:half], codes[half:])
    assert table is not None and table.size == uniq.shape[0]
    for which, part in ((0, codes[:half]), (1, codes[half:])):
        assert np.array_equal(table.rows[table.index[which]], part)  # rows map back
    weights = table.counts(1, 10, 60)
    assert weights.sum() == 50
    sliced, sliced_counts = np.unique(codes[half + 10 : half + 60], axis=0, return_counts=True)
    weighted = {
        tuple(r): c for r, c in zip(table.rows.tolist(), weights.tolist(), strict=True) if c
    }
    assert weighted == {
        tuple(r): c for r, c in zip(sliced.tolist(), sliced_counts.tolist(), strict=True)
    }
    assert row_table(codes, max_rows=uniq.shape[0] - 1) is None
    if dtype == "float64":
        bad = codes.astype(np.float64)
        bad[int(rng.integers(0, 400)), int(rng.integers(0, width))] += 0.5
        assert small_integer_row_keys(bad) is None  # not integers


@pytest.mark.parametrize(
    ("dtype", "low", "span"),
    [
        ("int8", -128, 100),
        ("int64", 2**60 + 3, 3),
        ("int64", -(2**62), 3),
        ("uint64", 2**63 + 5, 3),
        ("bool", 0, 1),
    ],
)
def test_row_keys_are_exact_for_every_integer_dtype_and_magnitude(dtype, low, span):
    """Integer rows are keyed exactly whatever their magnitude (no detour through float
    values beyond 2⁵³, no int8 overflow) and booleans are rows of 0/1."""
    from privaudit.auditing.distinguish.rows import distinct_rows, row_table

    rng = np.random.default_rng(8)
    codes = np.array(
        (rng.integers(0, span + 1, size=(600, 2)).astype(object) + low).tolist(), dtype=dtype
    )
    rows, counts = distinct_rows(codes)
    assert counts is not None and rows.dtype == codes.dtype
    uniq, ref = np.unique(codes, axis=0, return_counts=True)
    got = {tuple(r): c for r, c in zip(rows.tolist(), counts.tolist(), strict=True)}
    assert got == {tuple(r): c for r, c in zip(uniq.tolist(), ref.tolist(), strict=True)}
    table = row_table(codes[:300], codes[300:])
    assert table is not None
    assert np.array_equal(table.rows[table.index[0]], codes[:300])
    assert np.array_equal(table.rows[table.index[1]], codes[300:])


@pytest.mark.parametrize(
    "name", ["SparseVectorTechnique1", "SparseVectorTechnique4", "ReportNoisyMax2"]
)
def test_search_split_row_table_changes_nothing(monkeypatch, name):
    """Counting the search split once per distinct row (features, value sets, learned
    fits, the judge) chooses exactly the events, levels and expected bound of a pass over
    every row."""
    import privaudit.auditing.distinguish.event_candidates as cand
    from privaudit.suites import dpsniper_cases

    case = next(c for c in dpsniper_cases() if c.name.endswith(name))
    x, y = case.input_pairs[0]
    rng = np.random.default_rng(11)
    ox = case.mechanism.sample(x, 60_000, rng=rng)
    oy = case.mechanism.sample(y, 60_000, rng=rng)

    def select():
        return cand.select_events(
            ox, oy, delta=0.0, alpha=0.05, budget=0.05, test_samples=10**7, rate_ratio=True
        )

    with monkeypatch.context() as patch:
        patch.setattr(cand, "_drop_copies", lambda flat, rows, cache: flat)
        with_table = select()
    monkeypatch.setattr(cand, "row_table", lambda *a, **k: None)
    without = select()
    for d in dist.DIRECTIONS:
        assert [e.description for e in with_table.for_direction(d)] == [
            e.description for e in without.for_direction(d)
        ]
        assert with_table.levels_for(d) == without.levels_for(d)
    assert with_table.families == without.families
    assert with_table.expected_epsilon == without.expected_epsilon


def test_selected_events_of_few_distinct_rows_are_not_copies():
    """On sparse-vector codes no two tested events of one direction hold the same rows
    (a learned-score threshold equal to a value set is tested once)."""
    from privaudit.auditing.distinguish.rows import row_table
    from privaudit.suites import dpsniper_cases

    case = next(c for c in dpsniper_cases() if c.name.endswith("SparseVectorTechnique1"))
    x, y = case.input_pairs[0]
    rng = np.random.default_rng(12)
    ox = case.mechanism.sample(x, 200_000, rng=rng)
    oy = case.mechanism.sample(y, 200_000, rng=rng)
    chosen = dist.select_events(
        ox, oy, delta=0.0, alpha=0.05, budget=0.05, test_samples=10**8, rate_ratio=True
    )
    table = row_table(ox, oy)
    assert table is not None
    for d in dist.DIRECTIONS:
        masks = [
            dist.events.event_mask(e, table.rows, {}).tobytes() for e in chosen.for_direction(d)
        ]
        assert len(masks) == len(set(masks))
    assert sum(
        chosen.levels_for(d)[i]
        for d in dist.DIRECTIONS
        for i in range(len(chosen.for_direction(d)))
    ) <= 0.05 * (1 + 1e-12)


def test_sparse_vector_counts_are_the_same_with_and_without_row_reduction(monkeypatch):
    """The whole pair test gives identical counts when the row reduction is disabled."""
    import privaudit.auditing.distinguish.counting as pair_counts
    from privaudit.suites import dpsniper_cases

    case = next(
        c for c in dpsniper_cases() if c.mechanism.spec.name.endswith("SparseVectorTechnique1")
    )
    mech, (x, y) = case.mechanism, case.input_pairs[4]
    pair = verified_pair(mech.spec, x, y, "explicit")
    reduced = run_pair_test(mech, pair, samples=20_000, search_samples=5000, rng=1, alpha=0.05)
    monkeypatch.setattr(pair_counts, "_distinct_outputs", lambda out: (out, None))
    raw = run_pair_test(mech, pair, samples=20_000, search_samples=5000, rng=1, alpha=0.05)
    assert [(e.count_x, e.count_y) for e in reduced.events] == [
        (e.count_x, e.count_y) for e in raw.events
    ]
    assert reduced.epsilon_lower_bound == raw.epsilon_lower_bound
