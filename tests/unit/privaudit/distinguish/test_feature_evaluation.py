"""Fast feature evaluation gives the scores of a straightforward evaluation, to the bit.

The learned scores read small-integer code columns as packed digits
(:func:`~privaudit.auditing.distinguish.columns.small_integer_digits`) and look whole blocks of
columns up in precomputed tables; they read the other columns once per block of rows.
Each test here compares them with a plain evaluation — every column coded on its own,
over all rows at once, as the scores were evaluated before — on seeded sparse-vector-like
outputs that hold the awkward values too: codes never seen when fitting (inside and
outside the tabulated range), non-integer codes, NaN, ±∞ and −0.0, empty input, and
slices that cut the evaluation blocks anywhere.  Every comparison is exact (``same``).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from privaudit.auditing.distinguish import cell_score, columns, logistic, patterns
from privaudit.auditing.distinguish.cell_score import CellFit, CellScore, fit_cell_score
from privaudit.auditing.distinguish.columns import (
    AtomClass,
    ColumnCoder,
    PackedSum,
    digit_range,
    small_integer_digits,
)
from privaudit.auditing.distinguish.events import (
    Coordinate,
    ThresholdEvent,
    event_mask,
    fill_feature_cache,
)
from privaudit.auditing.distinguish.logistic import fit_logistic_score
from privaudit.auditing.distinguish.patterns import (
    PatternAndValue,
    PatternLLR,
    PatternValueEvent,
    ReleasedValue,
    fit_pattern_llr,
)
from privaudit.spec.errors import InvalidParameterError

QUERIES = 6


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shape, dtype and bits (NaN equal to NaN, −0.0 distinct from 0.0)."""
    a, b = np.asarray(a), np.asarray(b)
    return (
        a.shape == b.shape
        and a.dtype == b.dtype
        and np.array_equal(a, b, equal_nan=True)
        and np.array_equal(np.signbit(a), np.signbit(b))
    )


# ----------------------------------------------------------------------------------------
# outputs: QUERIES codes (1 ⊤, 0 ⊥, −1 aborted after two ⊤), then the released values
# ----------------------------------------------------------------------------------------
def _svt_rows(n: int, side: str, rng: np.random.Generator) -> np.ndarray:
    """Sparse-vector-like outputs.  Query 0 is never aborted (its fitted values are
    {0, 1}: a −1 there is unseen but inside the digits' range); values are released
    where the code is ⊤ (atom 0.0 elsewhere), lower on x for the first three queries."""
    p_top = np.linspace(0.2, 0.5, QUERIES) + (0.1 if side == "x" else 0.0)
    top = rng.random((n, QUERIES)) < p_top
    seen = np.cumsum(top, axis=1)
    aborted = np.concatenate([np.zeros((n, 1), bool), seen[:, :-1] >= 2], axis=1)
    codes = np.where(aborted, -1.0, top.astype(np.float64))
    shift = np.where(np.arange(QUERIES) < 3, -0.5 if side == "x" else 0.0, 0.0)
    values = np.where(codes == 1.0, rng.normal(size=(n, QUERIES)) + 3.0 + shift, 0.0)
    return np.concatenate([codes, values], axis=1)


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(20_240_611)
    fx, fy = _svt_rows(30_000, "x", rng), _svt_rows(30_000, "y", rng)
    return fx, fy, rng


def _awkward(rng: np.random.Generator) -> np.ndarray:
    """Rows crossing several evaluation blocks (of 2¹³ and 2¹⁴ rows), with one awkward
    code per block of 2¹⁴ rows from the second on, so that packed and column-by-column
    blocks alternate (the first block is packed: its codes are all small integers)."""
    o = _svt_rows(6 * (1 << 14) + 123, "x", rng)
    cv, vc = slice(0, QUERIES), QUERIES
    o[5, 0] = -1.0  # unseen code, inside the digits' range
    o[9, 1] = -0.0  # a signed zero code
    o[20_000, 2] = 2.0  # an integer code outside the range
    o[36_000, 3] = 0.5  # a non-integer code
    o[52_000, 4] = np.nan  # NaN code
    o[68_000, 5] = np.inf
    o[84_000, 1] = 1e-300  # a code that rounds to an integer when shifted
    o[11, vc] = np.nan  # NaN value (released: not the atom)
    o[12, vc + 1] = -np.inf
    o[13, vc + 2] = -0.0  # equal to the atom 0.0
    o[100:110, cv] = 1.0  # every query ⊤ (a pattern never fitted)
    return o


# ----------------------------------------------------------------------------------------
# plain evaluations: each column on its own, every row at once
# ----------------------------------------------------------------------------------------
def _plain_pattern(score: PatternLLR, o: np.ndarray) -> np.ndarray:
    total = np.zeros(o.shape[0])
    for b in score.blocks:
        total += b.table[b.key(o)]
    return total


def _plain_cell(score: CellScore, o: np.ndarray) -> np.ndarray:
    codes = {
        (j, id(c)): c(o[:, j])
        for g in score.groups
        for j, c in zip(g.columns, g.coders, strict=True)
    }
    total = np.zeros(o.shape[0])
    for g in score.groups:
        total += g.value(codes)
    return total


def _plain_released(value: ReleasedValue, o: np.ndarray) -> np.ndarray:
    vals = np.asarray(o[:, list(value.columns)], dtype=np.float64)
    released = vals != np.asarray(value.atoms)[None, :]
    if value.how == "score":
        out = np.asarray(value.score(o), dtype=np.float64).copy()
    else:
        fill = np.inf if value.how == "min" else -np.inf
        picked = np.where(released, vals, fill)
        out = picked.min(axis=1) if value.how == "min" else picked.max(axis=1)
    out[~released.any(axis=1)] = np.nan
    return out


def _plain_logistic(score, o: np.ndarray) -> np.ndarray:
    fm = score.features
    full = np.zeros(fm.raw_size)
    full[fm.keep] = score.weights
    total = np.full(o.shape[0], score.bias)
    i = 0
    for j, v in fm.indicator:
        if full[i] != 0.0:
            total += full[i] * (o[:, j] == v)
        i += 1
    zs = []
    for k, j in enumerate(fm.continuous):
        z = (np.asarray(o[:, j], dtype=np.float64) - fm.centre[k]) / fm.scale[k]
        z[~np.isfinite(z)] = 0.0
        zs.append(z)
        w1, w2, w3 = full[i : i + 3]
        total += z * (w1 + w2 * z) + w3 * np.abs(z)
        i += 3
    for a, b in fm.pairs:
        if full[i] != 0.0:
            total += full[i] * zs[a] * zs[b]
        i += 1
    return total


def _check_slices(feature, o: np.ndarray, whole: np.ndarray) -> None:
    """Any slice of the rows scores as its part of the whole (blocks cut anywhere)."""
    for start, stop in (
        (0, 0),
        (0, 1),
        (7, 8_200),
        (8_191, 8_193),
        (16_383, 70_002),
        (84_000, 84_001),
        (o.shape[0] - 5, o.shape[0]),
    ):
        assert same(feature(o[start:stop]), whole[start:stop])


# ----------------------------------------------------------------------------------------
# the pieces
# ----------------------------------------------------------------------------------------
def test_digits_are_read_only_from_small_integers():
    block = np.array([[-1.0, 0.0, 1.0], [1.0, -0.0, 0.0]])
    digits = small_integer_digits(block, [0, 2], -1, 1)
    assert same(digits, np.array([[0.0, 2.0], [2.0, 1.0]]))
    assert same(
        small_integer_digits(block.astype(np.int16), [0, 1], -1, 1),
        np.array([[0.0, 1.0], [2.0, 1.0]]),
    )
    for bad in (0.5, 1e-300, np.nan, np.inf, 2.0, -2.0):
        spoiled = block.copy()
        spoiled[1, 2] = bad
        assert small_integer_digits(spoiled, [0, 2], -1, 1) is None
        assert small_integer_digits(spoiled, [0, 1], -1, 1) is not None  # column 2 unread
    assert small_integer_digits(np.zeros((0, 3)), [0, 1], -1, 1).shape == (0, 2)
    assert digit_range([-1.0, 0.0], [1.0, 1.0]) == (-1, 1)
    assert digit_range([0.0], [16.0]) is None  # 17 digits
    assert digit_range([120.0], [130.0]) is None  # beyond int8


@pytest.mark.parametrize("lo, hi", [(-1, 1), (0, 15), (-128, -113)])
def test_compiled_digits_equal_the_numpy_path(lo, hi, monkeypatch):
    """The compiled reading of digits gives the NumPy path's digits (−0.0 kept) and its
    verdict on every awkward entry, in any column order, on strided rows too."""
    rng = np.random.default_rng(37)
    block = rng.integers(lo, hi + 1, size=(5_000, 7)).astype(np.float64)
    block[3, 1] = -0.0
    cases = [(block, [0, 2, 5]), (block, [6, 1, 1, 3]), (block[::2], [4, 0])]
    for bad in (0.5, 1e-300, np.nan, np.inf, -np.inf, hi + 1.0, lo - 1.0, lo - 0.5):
        spoiled = block.copy()
        spoiled[4_321, 2] = bad
        cases += [(spoiled, [0, 2]), (spoiled, [0, 1])]  # column 2 read, then not
    for rows, wanted in cases:
        monkeypatch.setattr(columns, "KERNEL_VALUES", 1 << 62)
        expected = small_integer_digits(rows, wanted, lo, hi)
        monkeypatch.setattr(columns, "KERNEL_VALUES", 0)
        got = small_integer_digits(rows, wanted, lo, hi)
        assert (got is None) == (expected is None)
        if expected is not None:
            assert same(got, expected)


def test_packed_sums_equal_column_sums_modulo_two_to_the_64():
    """Terms near 2⁶³ (sums wrap, as hash keys do) over 23 base-3 columns: three parts."""
    rng = np.random.default_rng(3)
    width, base = 25, 3
    positions = tuple(int(p) for p in rng.permutation(width)[:23])
    terms = [rng.integers(-(2**62), 2**62, base, dtype=np.int64) * 2 for _ in positions]
    packed = PackedSum.of(positions, terms, base, width)
    assert len(packed.tables) == 3
    digits = rng.integers(0, base, (1_000, width)).astype(np.float64)
    expected = np.zeros(1_000, dtype=np.int64)
    for pos, term in zip(positions, terms, strict=True):
        expected += term[digits[:, pos].astype(np.intp)]
    assert same(packed(digits), expected)


def test_single_atom_coder_matches_its_definition():
    """One atom: the atom's cell, else 1 + the bin by the edges (NaN in the last bin)."""
    coder = ColumnCoder(atoms=np.array([0.0]), edges=np.array([-1.0, 0.5, 2.0]))
    col = np.array([0.0, -0.0, -3.0, -1.0, 0.2, 0.5, 1.0, 2.0, 9.0, np.inf, -np.inf, np.nan])
    expected = [
        0 if v == 0.0 else 1 + int(np.searchsorted(coder.edges, v, side="right")) for v in col
    ]
    assert coder(col).tolist() == expected
    assert AtomClass(coder)(col).tolist() == [0 if v == 0.0 else 1 for v in col]


@pytest.mark.parametrize("kind", ["quantiles", "wide", "subnormal", "few"])
def test_bin_grid_equals_a_binary_search(kind):
    """The grid locating values among the edges gives the binary search's bins, for
    values at, next to and between the edges, ±∞, NaN and −0.0; edges too close or too
    few for a grid are searched."""
    rng = np.random.default_rng(29)
    sample = np.concatenate([rng.normal(size=20_000), rng.laplace(5.0, 0.01, 500)])
    edges = {
        "quantiles": np.unique(np.quantile(sample, np.linspace(0.001, 0.999, 60))),
        "wide": np.linspace(-1e300, 1e300, 21),
        "subnormal": np.arange(1, 21) * 5e-324,
        "few": np.array([-1.0, 0.0, 2.0]),
    }[kind]
    coder = ColumnCoder(atoms=np.array([0.0]), edges=edges)
    values = np.concatenate(
        [
            sample,
            edges,
            np.nextafter(edges, np.inf),
            np.nextafter(edges, -np.inf),
            edges * (1 + 1e-12),
            [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e308, -1e308, 5e-324],
        ]
    )
    assert (coder._grid() is not None) == (kind in ("quantiles", "wide"))
    assert same(coder.bins(values), np.searchsorted(edges, values, side="right"))
    m = np.searchsorted(edges, values, side="right") + 1
    assert same(coder(values), np.where(values == 0.0, 0, m))


@pytest.mark.parametrize("atoms", ["none", "one", "three", "eight", "many", "infinite"])
@pytest.mark.parametrize("edges", ["none", "few", "quantiles", "wide", "subnormal"])
def test_compiled_coder_equals_the_numpy_path(atoms, edges, monkeypatch):
    """The compiled kernel codes float64 columns as the NumPy path does, to the bit:
    every number of atoms (one, two to eight by midpoints, more by binary search),
    every kind of edges (none, too few for a grid, a grid, a grid over huge values, too
    close for one), at, next to and between atoms and edges, ±∞, NaN, ±0.0 and
    subnormals; atom classes too."""
    rng = np.random.default_rng(31)
    sample = np.concatenate([rng.normal(size=20_000), rng.laplace(5.0, 0.01, 500)])
    a = {
        "none": np.zeros(0),
        "one": np.array([0.0]),
        "three": np.array([-1.0, 0.0, 2.5]),
        "eight": np.arange(8.0) - 3.0,
        "many": np.arange(20.0) / 7.0 - 1.0,
        "infinite": np.array([-np.inf, 0.0, np.inf]),
    }[atoms]
    e = {
        "none": np.zeros(0),
        "few": np.array([-1.0, 0.0, 2.0]),
        "quantiles": np.unique(np.quantile(sample, np.linspace(0.001, 0.999, 60))),
        "wide": np.linspace(-1e300, 1e300, 21),
        "subnormal": np.arange(1, 21) * 5e-324,
    }[edges]
    special = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e308, -1e308, 5e-324, -5e-324]
    near = [x for v in (a, e) for x in (v, np.nextafter(v, np.inf), np.nextafter(v, -np.inf))]
    values = np.concatenate([sample, e * (1 + 1e-12), special, *near])
    values = np.concatenate([values, rng.permutation(values)])
    coder = ColumnCoder(atoms=a, edges=e)
    classes = AtomClass(coder) if a.size else None
    monkeypatch.setattr(columns, "KERNEL_VALUES", 1 << 62)
    expected = coder(values), None if classes is None else classes(values)
    monkeypatch.setattr(columns, "KERNEL_VALUES", 0)
    assert same(coder(values), expected[0])
    if classes is not None:
        assert same(classes(values), expected[1])
    # a slice with a stride (a column of a block of rows) is read as it is
    wide = np.stack([values, values[::-1]], axis=1)
    assert same(coder(wide[:, 0]), expected[0])


# ----------------------------------------------------------------------------------------
# the scores
# ----------------------------------------------------------------------------------------
def test_pattern_llr_equals_column_by_column_keys(fitted):
    fx, fy, rng = fitted
    score = fit_pattern_llr(fx, fy, tuple(range(QUERIES)))
    assert score._packed() is not None
    o = _awkward(rng)
    whole = score(o)
    assert same(whole, _plain_pattern(score, o))
    _check_slices(score, o, whole)
    # the unseen code −1 of query 0 takes its block's extra cell, as column by column
    assert whole[5] == _plain_pattern(score, o[5:6])[0]
    assert same(pickle.loads(pickle.dumps(score))(o), whole)


def test_released_values_equal_their_definition(fitted):
    fx, fy, rng = fitted
    o = _awkward(rng)
    grouped = fit_cell_score(fx, fy, groups="grouped")
    value_llr = grouped.restricted(range(QUERIES, 2 * QUERIES))
    columns, atoms = tuple(range(QUERIES, 2 * QUERIES)), (0.0,) * QUERIES
    values = [ReleasedValue(columns, atoms, how) for how in ("min", "max")] + [
        ReleasedValue(columns, atoms, "score", score=value_llr)
    ]
    for value in values:
        whole = value(o)
        assert same(whole, _plain_released(value, o))
        _check_slices(value, o, whole)
    # NaN is released (it is not the atom) and wins the minimum; −∞ is released too
    assert np.isnan(values[0](o)[11]) and not np.isnan(values[1](o)[12])
    pattern = fit_pattern_llr(fx, fy, tuple(range(QUERIES)))
    feature = PatternAndValue(pattern, tuple(values))
    rows = feature(o)
    assert same(rows[:, 0], _plain_pattern(pattern, o))
    for i, value in enumerate(values):
        assert same(rows[:, 1 + i], _plain_released(value, o))


def test_pattern_llr_fitted_from_the_cell_fits_columns_is_the_same(fitted):
    """Read from :class:`CellFit`'s columns (the fitting rows column by column), the
    pattern score is the one fitted from the rows: the same blocks, values and tables."""
    fx, fy, rng = fitted
    pattern_columns = tuple(range(QUERIES))
    from_rows = fit_pattern_llr(fx, fy, pattern_columns)
    from_columns = fit_pattern_llr(fx, fy, pattern_columns, pooled_columns=CellFit(fx, fy).columns)
    assert len(from_rows.blocks) == len(from_columns.blocks) >= 1
    for a, b in zip(from_rows.blocks, from_columns.blocks, strict=True):
        assert a.columns == b.columns
        assert all(same(u, v) for u, v in zip(a.values, b.values, strict=True))
        assert same(a.table, b.table)
    o = _awkward(rng)
    assert same(from_columns(o), from_rows(o))
    with pytest.raises(InvalidParameterError, match="fitting rows column by column"):
        fit_pattern_llr(fx, fy, pattern_columns, pooled_columns=CellFit(fx, fx[:10]).columns)


def test_features_sharing_a_pattern_evaluate_jointly_to_their_own_bits(fitted):
    """Events whose features share one pattern score get, from one joint pass
    (``fill_feature_cache``), the values and masks of each feature's own evaluation."""
    fx, fy, rng = fitted
    o = _awkward(rng)
    columns, atoms = tuple(range(QUERIES, 2 * QUERIES)), (0.0,) * QUERIES
    value_llr = fit_cell_score(fx, fy, groups="grouped").restricted(columns)
    values = [ReleasedValue(columns, atoms, how) for how in ("min", "max", "min")] + [
        ReleasedValue(columns, atoms, "score", score=value_llr)
    ]
    pattern = fit_pattern_llr(fx, fy, tuple(range(QUERIES)))
    # one value feature each (as the selection builds them), one with two, and a copy
    features = [PatternAndValue(pattern, (v,)) for v in values]
    features.append(PatternAndValue(pattern, (values[1], values[3])))
    features.append(features[0])
    joint = PatternAndValue.evaluate_jointly(features, o)
    for feature, rows in zip(features, joint, strict=True):
        assert same(rows, feature(o))
    other = PatternAndValue(fit_pattern_llr(fy, fx, tuple(range(QUERIES))), (values[0],))
    with pytest.raises(InvalidParameterError, match="share their pattern"):
        PatternAndValue.evaluate_jointly([features[0], other], o)
    level = float(np.median(features[0](o)[:, 0]))
    events = [
        PatternValueEvent(f, level, "ge", 0, 3.0, side)
        for f in [*features, other]
        for side in ("le", "ge")
    ] + [ThresholdEvent(Coordinate(index=0), 0.5, "ge")]
    cache: dict[int, np.ndarray] = {}
    fill_feature_cache(events, o, cache)
    # the shared features are in the cache; a lone feature is left to event_mask
    assert {id(f) for f in features} <= set(cache) and id(other) not in cache
    for event in events:
        assert same(event_mask(event, o, cache), event_mask(event, o, {}))


@pytest.mark.parametrize(
    "groups,monotone",
    [
        ("columns", False),
        ("columns", True),
        ("grouped", False),
        ("grouped", True),
        ("joint", False),
    ],
)
def test_cell_scores_equal_column_by_column_codes(fitted, groups, monotone):
    fx, fy, rng = fitted
    # the joint score: the codes and one value column in four bins (a mixed group)
    width = QUERIES + 1 if groups == "joint" else 2 * QUERIES
    context = CellFit(fx[:, :width], fy[:, :width])
    score = fit_cell_score(
        None,
        None,
        groups=groups,
        monotone=monotone,
        context=context,
        bins=4 if groups == "joint" else 32,
    )
    assert score is not None and score._packed() is not None
    o = _awkward(rng)[:, :width]
    whole = score(o)
    assert same(whole, _plain_cell(score, o))
    _check_slices(score, o, whole)
    assert same(pickle.loads(pickle.dumps(score))(o), whole)


def test_grouped_score_packs_codes_next_to_atom_classes(fitted):
    """The grouped score joins codes with the value columns' atom classes: their packed
    share of the key is added to the atom classes' (a mixed group)."""
    fx, fy, _ = fitted
    score = fit_cell_score(fx, fy, groups="grouped")
    mixed = [
        g
        for g in score.groups
        if any(isinstance(c, AtomClass) for c in g.coders)
        and any(isinstance(c, ColumnCoder) for c in g.coders)
    ]
    assert mixed
    plans = score._packed().plans
    assert any(p is not None and p.key is not None for p in plans)


def test_hash_keyed_groups_wrap_as_their_combination():
    """Forty code columns joined in one group: 3⁴⁰ cells overflow the mixed radix, the
    key is a 64-bit hash (wrapping sums), packed in four parts."""
    rng = np.random.default_rng(17)

    def rows(n: int, p: float) -> np.ndarray:
        base = np.where(rng.random((n, 4)) < p, 1.0, np.where(rng.random((n, 4)) < 0.5, 0.0, -1.0))
        return np.repeat(base, 10, axis=1)  # dependent: few joint cells

    fx, fy = rows(20_000, 0.3), rows(20_000, 0.4)
    score = fit_cell_score(fx, fy, groups="joint")
    assert score is not None and score.groups[0].radix is None
    assert len(score._packed().plans[0].key.tables) == 4
    o = rows(20_000, 0.35)
    o[:50, 7] = 0.0  # cells never seen when fitting
    assert same(score(o), _plain_cell(score, o))


def test_whitened_and_integer_outputs_are_coded_column_by_column(fitted):
    fx, fy, rng = fitted
    o = _awkward(rng)
    ints = np.nan_to_num(o[:, :QUERIES], posinf=0.0).astype(np.int64)
    score = fit_cell_score(
        fx[:, :QUERIES].astype(np.int64), fy[:, :QUERIES].astype(np.int64), groups="columns"
    )
    assert same(score(ints), _plain_cell(score, ints))
    cont = rng.normal(size=(20_000, 3)) @ np.array([[1.0, 0.9, 0.0], [0, 0.4, 0.5], [0, 0, 1]])
    whitened = fit_cell_score(cont[:10_000], cont[10_000:] + 0.1, whiten=True)
    assert whitened is not None and whitened._packed() is None


def test_logistic_score_equals_its_running_sum(fitted):
    fx, fy, rng = fitted
    score = fit_logistic_score(fx, fy)
    o = _awkward(rng)
    whole = score(o)
    assert same(whole, _plain_logistic(score, o))
    _check_slices(score, o, whole)


def test_block_sizes_do_not_change_scores(fitted, monkeypatch):
    """Scores are row by row: evaluation blocks of any size give the same bits."""
    fx, fy, rng = fitted
    o = _awkward(rng)
    features = [
        fit_pattern_llr(fx, fy, tuple(range(QUERIES))),
        fit_cell_score(fx, fy, groups="grouped", monotone=True),
        fit_logistic_score(fx, fy),
    ]
    before = [f(o) for f in features]
    monkeypatch.setattr(cell_score, "_BLOCK", 1000)
    monkeypatch.setattr(logistic, "_BLOCK", 1000)
    monkeypatch.setattr(patterns, "_BLOCK_ROWS", 777)
    for f, b in zip(features, before, strict=True):
        assert same(f(o), b)
