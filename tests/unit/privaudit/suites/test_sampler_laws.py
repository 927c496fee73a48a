"""The fast benchmark samplers draw exactly the laws of straightforward implementations.

The DP-Sniper and StatDP samplers draw Laplace noise as b·S·E (random sign times an
exponential), lay the noise out query-major in blocks, read sparse vector codes from
tables of answer patterns and skip draws that never reach the output.  None of that may
change an output law, only the random stream.  Checked here:

* exactly (hypothesis): the pattern-table codes and ⊤ cells equal those of
  :func:`~privaudit.suites._kernels.svt_codes` on the same comparisons, on the table,
  combined-table and fallback paths; StatDP's pattern summaries equal the direct ones;
* statistically, against reference samplers kept in this file (DP-Sniper's own
  vectorised code ported to a ``Generator`` with ``Generator.laplace``; straightforward
  loops over the queries for the others): χ² homogeneity on the output rows (code
  patterns, indices, counts; categories with fewer than 20 draws in both samples pooled)
  and two-sample KS on value columns, 2·10⁵ draws per side;
* against the exact laws of ``scripts/power_limits.py`` (numerical integration) where
  they exist: RNM1, RNM3, SVT1, SVT2, SVT4, SVT6, Rappor and OneTimeRappor (χ²
  goodness of fit, 2·10⁵ draws).

Error rates: every test function rejects a correct sampler with probability at most
``ALPHA`` = 10⁻⁴ (several comparisons inside one test share it by Bonferroni); seeds are
fixed, so each outcome is deterministic and the suite is not flaky.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from privaudit.spec.errors import InvalidParameterError
from privaudit.suites import dpsniper_cases, statdp_cases
from privaudit.suites._dpsniper_mechanisms import Rappor
from privaudit.suites._dpsniper_svt import (
    BLOCK,
    NumericalSVT,
    SparseVectorTechnique1,
    SparseVectorTechnique2,
    SparseVectorTechnique3,
    SparseVectorTechnique4,
    SparseVectorTechnique6,
)
from privaudit.suites._families import NoisyHistogram, NoisyMax
from privaudit.suites._kernels import ABORTED, ABOVE, BELOW, svt_codes
from privaudit.suites._laplace import laplace_noise, laplace_noisy_max
from privaudit.suites._svt_patterns import (
    MAX_COMBINED_ROWS,
    MAX_TABLE_LENGTH,
    answer_patterns,
    sparse_vector_run,
    sparse_vector_runs,
)
from privaudit.suites.statdp import (
    StatDPSparseVector,
    _pattern_summaries,
    _transcript_summary,
)

ALPHA = 1e-4
DRAWS = 200_000
ROOT = Path(__file__).resolve().parents[4]
DPS = {c.name.split(".", 1)[1]: c for c in dpsniper_cases()}


def _power_limits():
    spec = importlib.util.spec_from_file_location(
        "_power_limits", ROOT / "scripts" / "power_limits.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def limits():
    return _power_limits()


# ----------------------------------------------------------------------------------------
# statistical helpers
# ----------------------------------------------------------------------------------------
def _row_ids(*samples: np.ndarray) -> list[np.ndarray]:
    """Category ids of the rows of each sample, shared across the samples.

    Rows of a few distinct values are read as integers in that radix (fast, exact).
    """
    rows = np.concatenate([np.asarray(s).reshape(len(s), -1) for s in samples])
    values, digits = np.unique(rows, return_inverse=True)
    digits = digits.reshape(rows.shape).astype(np.int64)
    assert values.size ** rows.shape[1] < 2**62, "too many categories to encode"
    keys = digits @ (values.size ** np.arange(rows.shape[1], dtype=np.int64))
    _, ids = np.unique(keys, return_inverse=True)
    cuts = np.cumsum([len(s) for s in samples])[:-1]
    return np.split(ids.reshape(-1), cuts)


def same_rows_pvalue(a: np.ndarray, b: np.ndarray, pool_below: int = 20) -> float:
    """χ² homogeneity p-value of the row categories of two samples (rare ones pooled)."""
    ids_a, ids_b = _row_ids(a, b)
    k = max(ids_a.max(initial=0), ids_b.max(initial=0)) + 1
    table = np.vstack([np.bincount(ids_a, minlength=k), np.bincount(ids_b, minlength=k)])
    rare = table.sum(axis=0) < pool_below
    table = np.column_stack([table[:, ~rare], table[:, rare].sum(axis=1)])
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2:
        return 1.0
    return float(stats.chi2_contingency(table, correction=False)[1])


def fits_pvalue(counts: np.ndarray, probabilities: np.ndarray, pool_below: float = 5.0) -> float:
    """χ² goodness-of-fit p-value of category counts to exact probabilities.

    Categories expected fewer than ``pool_below`` times are pooled; the probabilities are
    renormalised (numerical integration leaves a ~1e-6 deficit).
    """
    probabilities = np.asarray(probabilities, dtype=float)
    assert abs(probabilities.sum() - 1.0) < 1e-5
    expected = probabilities / probabilities.sum() * counts.sum()
    rare = expected < pool_below
    obs = np.append(counts[~rare], counts[rare].sum())
    exp = np.append(expected[~rare], expected[rare].sum())
    keep = exp > 0
    return float(stats.chisquare(obs[keep], exp[keep]).pvalue)


def value_columns_pvalues(ref: np.ndarray, ours: np.ndarray, n: int) -> list[float]:
    """KS p-values of each released value column (where the code column is ⊤)."""
    out = []
    for j in range(n):
        a = ref[ref[:, j] == ABOVE, n + j]
        b = ours[ours[:, j] == ABOVE, n + j]
        if min(a.size, b.size) >= 20:
            out.append(stats.ks_2samp(a, b).pvalue)
    return out


def _assert_same_law(ref: np.ndarray, ours: np.ndarray, codes: int | None, values: bool) -> None:
    """Codes: χ² on whole code rows; values: KS per value column; Bonferroni over them."""
    assert ref.shape == ours.shape and ref.dtype == ours.dtype
    if codes is None:  # continuous columns: KS on each column and on the row sums
        columns = ref.reshape(len(ref), -1).shape[1]
        tests = [
            stats.ks_2samp(
                ref.reshape(len(ref), -1)[:, j], ours.reshape(len(ours), -1)[:, j]
            ).pvalue
            for j in range(columns)
        ]
        if columns > 1:
            tests.append(stats.ks_2samp(ref.sum(axis=1), ours.sum(axis=1)).pvalue)
    else:
        tests = [same_rows_pvalue(ref[:, :codes], ours[:, :codes])]
        if values:
            tests += value_columns_pvalues(ref, ours, codes)
    assert min(tests) > ALPHA / len(tests), tests


# ----------------------------------------------------------------------------------------
# reference samplers: DP-Sniper's own code ported to a Generator (Generator.laplace)
# ----------------------------------------------------------------------------------------
def _svt_flags(cmp: np.ndarray, c: int) -> np.ndarray:
    count, aborted = np.zeros(cmp.shape[0]), np.full(cmp.shape[0], False)
    res = cmp.astype(float)
    for j in range(cmp.shape[1]):
        res[aborted, j] = -1
        count = count + cmp[:, j]
        aborted = aborted | (count == c)
    return res


def _dps_svt1(rng, a, n, eps=0.1, c=1, t=0.5):
    rho = rng.laplace(scale=1 / (eps / 2), size=(n, 1))
    nu = rng.laplace(scale=2 * c / (eps / 2), size=(n, a.shape[0]))
    return _svt_flags(nu + a >= rho + t, c)


def _dps_svt2(rng, a, n, eps=0.1, c=1, t=1.0):
    rho = rng.laplace(scale=c / (eps / 2), size=(n,))
    m = rng.laplace(scale=2 * c / (eps / 2), size=(n, a.shape[0])) + a
    count, aborted = np.zeros(n), np.full(n, False)
    res = np.empty(m.shape)
    for j in range(a.shape[0]):
        cmp = m[:, j] >= rho + t
        res[:, j] = cmp
        res[aborted, j] = -1
        count = count + cmp
        new = rng.laplace(scale=c / (eps / 2), size=(n,))
        rho[cmp] = new[cmp]
        aborted = aborted | (count == c)
    return res


def _dps_svt3(rng, a, n, eps=0.1, c=1, t=1.0):
    rho = rng.laplace(scale=1 / (eps / 2), size=(n, 1))
    m = rng.laplace(scale=c / (eps / 2), size=(n, a.shape[0])) + a
    flags = _svt_flags(m >= rho + t, c)
    return np.hstack([flags, np.where(flags == 1, m, 0.0)])


def _dps_svt4(rng, a, n, eps=0.1, c=1, t=1.0):
    rho = rng.laplace(scale=1 / (eps / 4), size=(n, 1))
    nu = rng.laplace(scale=1 / (eps * 3 / 4), size=(n, a.shape[0]))
    return _svt_flags(nu + a >= rho + t, c)


def _dps_svt5(rng, a, n, eps=0.1, t=1.0):
    rho = rng.laplace(scale=1 / (eps / 2), size=(n, 1))
    return (a >= rho + t).astype(float)


def _dps_svt6(rng, a, n, eps=0.1, t=1.0):
    rho = rng.laplace(scale=1 / (eps / 2), size=(n, 1))
    nu = rng.laplace(scale=1 / (eps / 2), size=(n, a.shape[0]))
    return (nu + a >= rho + t).astype(float)


def _dps_numerical(rng, a, n, eps=0.1, c=2, t=1.0):
    rho1 = rng.laplace(scale=3 / eps, size=(n, 1))
    rho2 = rng.laplace(scale=6 * c / eps, size=(n, a.shape[0]))
    rho3 = rng.laplace(scale=3 * c / eps, size=(n, a.shape[0]))
    flags = _svt_flags(rho2 + a >= t + rho1, c)
    return np.hstack([flags, np.where(flags == 1, rho3 + a, 0.0)])


def _dps_svt34(rng, a, n):
    return np.hstack([_dps_svt3(rng, a, n, c=2), _dps_svt4(rng, a, n, c=2)])


def _dps_rnm(noise, report):
    def run(rng, a, n):
        draw = rng.laplace if noise == "laplace" else rng.exponential
        m = a + draw(scale=20.0, size=(n, a.shape[0]))
        return np.argmax(m, axis=1) if report == "index" else np.amax(m, axis=1)

    return run


def _dps_prefix(rng, a, n):
    return np.cumsum(a + rng.laplace(scale=10.0, size=(n, a.shape[0])), axis=1)


def _dps_hist(scale):
    return lambda rng, a, n: a + rng.laplace(scale=scale, size=(n, a.shape[0]))


def _laplace_parallel(rng, a, n):
    return float(a) + rng.laplace(scale=200.0, size=(n, 20))


def _rappor_two_steps(mech: Rappor):
    """RAPPOR as the paper runs it: permanent, then instantaneous randomized response."""

    def run(rng, a, n):
        bits = mech.bloom_bits(int(a))
        u = rng.random((n, mech.filter_size))
        permanent = np.where(u < mech.f / 2, True, np.where(u < mech.f, False, bits))
        if not mech._instantaneous:
            return permanent.astype(np.int64)
        v = rng.random((n, mech.filter_size))
        return np.where(permanent, v < mech.q, v < mech.p).astype(np.int64)

    return run


# name: (reference, number of code columns or None for continuous, has value columns)
REFERENCES = {
    "SparseVectorTechnique1": (_dps_svt1, 10, False),
    "SparseVectorTechnique2": (_dps_svt2, 10, False),
    "SparseVectorTechnique3": (_dps_svt3, 10, True),
    "SparseVectorTechnique4": (_dps_svt4, 10, False),
    "SparseVectorTechnique5": (_dps_svt5, 10, False),
    "SparseVectorTechnique6": (_dps_svt6, 10, False),
    "NumericalSVT": (_dps_numerical, 10, True),
    "ReportNoisyMax1": (_dps_rnm("laplace", "index"), 1, False),
    "ReportNoisyMax2": (_dps_rnm("exponential", "index"), 1, False),
    "ReportNoisyMax3": (_dps_rnm("laplace", "value"), None, False),
    "ReportNoisyMax4": (_dps_rnm("exponential", "value"), None, False),
    "PrefixSum": (_dps_prefix, None, False),
    "NoisyHist1": (_dps_hist(10.0), None, False),
    "NoisyHist2": (_dps_hist(0.1), None, False),
    "LaplaceParallel": (_laplace_parallel, None, False),
    "Rappor": (_rappor_two_steps(DPS["Rappor"].mechanism), 20, False),
    "OneTimeRappor": (_rappor_two_steps(DPS["OneTimeRappor"].mechanism), 20, False),
}


def _inputs(name: str) -> list:
    """Two different inputs of the case: the second of its first pair and the first of
    its second-to-last pair (for the SVTs (0, 1⁹) and the X-shape (1⁵, 0⁵))."""
    pairs = DPS[name].input_pairs
    return [pairs[0][1], pairs[-2][0]]


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_dpsniper_samplers_match_reference_laws(name):
    reference, codes, values = REFERENCES[name]
    mech = DPS[name].mechanism
    for i, x in enumerate(_inputs(name)):
        ours = mech.sample(x, DRAWS, rng=100 + i)
        ref = np.asarray(
            reference(np.random.default_rng(200 + i), np.asarray(x) if np.ndim(x) else x, DRAWS)
        )
        ref = ref.astype(ours.dtype)
        if codes == 1:  # arg-max indices: one categorical column
            ref, ours = ref[:, np.newaxis], ours[:, np.newaxis]
        _assert_same_law(ref, ours, codes, values)


OTHER_PARAMETERS = [  # (class, keyword arguments, reference with the same parameters)
    (SparseVectorTechnique1, {"c": 3, "t": 0.5}, lambda r, a, n: _dps_svt1(r, a, n, c=3)),
    (SparseVectorTechnique2, {"c": 2, "t": 1.0}, lambda r, a, n: _dps_svt2(r, a, n, c=2)),
    (SparseVectorTechnique3, {"c": 2, "t": 1.0}, lambda r, a, n: _dps_svt3(r, a, n, c=2)),
    (NumericalSVT, {"c": 1, "t": 1.0}, lambda r, a, n: _dps_numerical(r, a, n, c=1)),
    # longer than MAX_TABLE_LENGTH: the fallback path
    (
        SparseVectorTechnique4,
        {"c": 2, "t": 1.0, "length": 14},
        lambda r, a, n: _dps_svt4(r, a, n, c=2),
    ),
    (SparseVectorTechnique6, {"c": 1, "t": 1.0, "length": 14}, _dps_svt6),
]


@pytest.mark.parametrize(
    "cls, kwargs, reference",
    OTHER_PARAMETERS,
    ids=[f"{c.__name__}-{k}" for c, k, _ in OTHER_PARAMETERS],
)
def test_sparse_vectors_with_other_parameters_match_reference_laws(cls, kwargs, reference):
    """Cut-offs above 1 (Algorithm 2's threshold redraws matter only then) and long vectors."""
    mech = cls(**kwargs)
    n = mech.length
    x = np.r_[np.full(n // 2, 1.0), np.zeros(n - n // 2)]
    ours = mech.sample(x, DRAWS, rng=21)
    ref = reference(np.random.default_rng(22), x, DRAWS)
    if n > 12:  # 3ⁿ code rows: too many categories; test each code column and the tops
        tests = [same_rows_pvalue(ref[:, j], ours[:, j]) for j in range(n)]
        tests.append(same_rows_pvalue((ref == ABOVE).sum(axis=1), (ours == ABOVE).sum(axis=1)))
        tests.append(same_rows_pvalue(_first_top(ref), _first_top(ours)))
        assert min(tests) > ALPHA / len(tests), tests
    else:
        _assert_same_law(ref, ours, n, mech.spec.output_dimension > n)


def test_svt34_parallel_matches_reference_law():
    """Both halves (Algorithm 3's codes and values, Algorithm 4's codes) and their joint law."""
    mech = DPS["SVT34Parallel"].mechanism
    for i, x in enumerate(_inputs("SVT34Parallel")):
        ours = mech.sample(x, DRAWS, rng=300 + i)
        ref = _dps_svt34(np.random.default_rng(400 + i), np.asarray(x), DRAWS)
        codes = np.r_[0:10, 20:30]
        tests = [
            same_rows_pvalue(ref[:, codes], ours[:, codes]),
            same_rows_pvalue(ref[:, 20:30], ours[:, 20:30]),
            *value_columns_pvalues(ref[:, :20], ours[:, :20], 10),
        ]
        assert min(tests) > ALPHA / len(tests), tests


def test_output_encoding_is_kept():
    """Code values, zeros (never −0.0) off the ⊤ cells, dtype, shape, C order."""
    for name in (
        "SparseVectorTechnique3",
        "NumericalSVT",
        "SVT34Parallel",
        "SparseVectorTechnique1",
        "SparseVectorTechnique6",
    ):
        mech = DPS[name].mechanism
        size = BLOCK + 7  # one full block and a short one
        out = mech.sample(np.ones(10), size, rng=1)
        assert out.shape == (size, mech.spec.output_dimension)
        assert out.dtype == np.float64 and out.flags.c_contiguous
        code_columns = np.r_[0:10, 20:30] if name == "SVT34Parallel" else np.r_[0:10]
        assert set(np.unique(out[:, code_columns])) <= {ABOVE, BELOW, ABORTED}
        if out.shape[1] >= 20:
            codes, vals = out[:, :10], out[:, 10:20]
            assert np.all(vals[codes != ABOVE] == 0.0)
            assert not np.signbit(vals[codes != ABOVE]).any()
            assert np.all(vals[codes == ABOVE] != 0.0)


# ----------------------------------------------------------------------------------------
# exact laws (scripts/power_limits.py)
# ----------------------------------------------------------------------------------------
def _first_top(codes: np.ndarray) -> np.ndarray:
    """Position of the first ⊤ (n when there is none): the whole code row when c = 1."""
    tops = codes == ABOVE
    return np.where(tops.any(axis=1), tops.argmax(axis=1), codes.shape[1])


@pytest.mark.parametrize(
    "name, b_rho, b_nu, t",
    [
        ("SparseVectorTechnique1", 20.0, 40.0, 0.5),
        ("SparseVectorTechnique2", 20.0, 40.0, 1.0),
        ("SparseVectorTechnique4", 40.0, 1 / 0.075, 1.0),
    ],
)
def test_cutoff_one_svts_match_exact_law(limits, name, b_rho, b_nu, t):
    """With c = 1 the code row is the position of the first ⊤ (or none)."""
    mech = DPS[name].mechanism
    pvalues = []
    for i, x in enumerate(DPS[name].input_pairs[8]):  # (1¹⁰, (2⁵, 0⁵)), both sides
        law = limits.svt_first_top(np.asarray(x, float), b_rho, b_nu, t)
        out = mech.sample(x, DRAWS, rng=500 + i)
        pvalues.append(fits_pvalue(np.bincount(_first_top(out), minlength=11), law))
    assert min(pvalues) > ALPHA / len(pvalues), pvalues


def test_svt6_matches_exact_pattern_law(limits):
    mech = DPS["SparseVectorTechnique6"].mechanism
    x = DPS["SparseVectorTechnique6"].input_pairs[8][1]  # (2⁵, 0⁵)
    law = limits.svt_no_cutoff(np.asarray(x, float), 20.0, 20.0, 1.0)
    out = mech.sample(x, DRAWS, rng=600)
    # power_limits enumerates itertools.product([0, 1], repeat=n): query 0 is the top bit
    patterns = (out == ABOVE).astype(np.int64) @ (1 << np.arange(9, -1, -1))
    assert fits_pvalue(np.bincount(patterns, minlength=1024), law) > ALPHA


def test_noisy_max_match_exact_laws(limits):
    rnm1, rnm3 = DPS["ReportNoisyMax1"], DPS["ReportNoisyMax3"]
    pvalues = []
    for i, x in enumerate(rnm1.input_pairs[6]):  # (1⁵, (0, 2, 2, 2, 2))
        out = rnm1.mechanism.sample(x, DRAWS, rng=700 + i)
        pvalues.append(
            fits_pvalue(np.bincount(out, minlength=5), limits.noisy_max_index(np.asarray(x, float)))
        )
    grid = np.linspace(-600.0, 600.0, 24_001)  # power_limits.noisy_max_value's
    for i, x in enumerate(rnm3.input_pairs[10]):  # (1⁵, 2⁵)
        cells = limits.noisy_max_value(np.asarray(x, float))
        out = rnm3.mechanism.sample(x, DRAWS, rng=800 + i)
        cell = np.searchsorted(grid, out, side="left")  # cell k: grid[k-1] < max <= grid[k]
        coarse = np.minimum(cell // 400, 60)  # 61 bins of 400 cells
        law = np.bincount(np.arange(cells.size) // 400, weights=cells, minlength=61)
        pvalues.append(fits_pvalue(np.bincount(coarse, minlength=61), law))
    assert min(pvalues) > ALPHA / len(pvalues), pvalues


@pytest.mark.parametrize("name", ["Rappor", "OneTimeRappor"])
def test_rappor_matches_exact_binomial_laws(limits, name):
    """Ones among the Bloom-filter bits ~ Bin(h, P(1|1)), among the others ~ Bin(m−h, P(1|0))."""
    mech = DPS[name].mechanism
    p0, p1 = mech.report_probabilities()
    pvalues = []
    for i, value in enumerate((0, 1)):
        bits = mech.bloom_bits(value)
        out = mech.sample(value, DRAWS, rng=900 + i)
        set_law = limits.rappor_bits(p1, p0, int(bits.sum()))[0]
        unset_law = limits.rappor_bits(p1, p0, int((~bits).sum()))[1]
        pvalues.append(
            fits_pvalue(np.bincount(out[:, bits].sum(axis=1), minlength=set_law.size), set_law)
        )
        pvalues.append(
            fits_pvalue(np.bincount(out[:, ~bits].sum(axis=1), minlength=unset_law.size), unset_law)
        )
    assert min(pvalues) > ALPHA / len(pvalues), pvalues


# ----------------------------------------------------------------------------------------
# StatDP: the vectorised variants against a straightforward loop over the queries
# ----------------------------------------------------------------------------------------
def _statdp_reference(
    mech: StatDPSparseVector, q: np.ndarray, size: int, rng: np.random.Generator
) -> np.ndarray:
    n = q.size
    threshold = mech.T + rng.laplace(scale=mech.threshold_scale, size=size)
    noise = 0.0 if mech.query_scale is None else rng.laplace(scale=mech.query_scale, size=(size, n))
    noisy = q + noise * np.ones((size, n))
    running = np.ones(size, dtype=bool)
    count = np.zeros(size, dtype=np.int64)
    bottoms = np.zeros(size, dtype=np.int64)
    mismatches = np.zeros(size, dtype=np.int64)
    last = np.zeros(size)
    for j in range(n):
        top = noisy[:, j] > threshold if mech.strict else noisy[:, j] >= threshold
        bottoms += running & ~top
        mismatches += running & (top != (j < n // 2))
        mismatches += ~running  # unanswered: a mismatch
        last = np.where(running, np.where(top, noisy[:, j], 0.0), last)
        count += running & top
        if mech.cutoff is not None:
            running &= count < mech.cutoff
    if mech.variant == "SVT":
        return bottoms
    if mech.variant == "iSVT4":
        return np.column_stack([bottoms.astype(float), last])
    return mismatches


@pytest.mark.parametrize("variant", ["SVT", "iSVT1", "iSVT2", "iSVT3", "iSVT4"])
def test_statdp_svt_matches_reference_law(variant):
    case = {c.name: c for c in statdp_cases(0.7)}[f"statdp.{variant}"]
    mech = case.mechanism
    pvalues = []
    for i, (x, _) in enumerate(case.input_pairs[::3]):
        ours = mech.sample(x, DRAWS, rng=1000 + i)
        ref = _statdp_reference(mech, np.asarray(x, float), DRAWS, np.random.default_rng(i))
        assert ref.dtype == ours.dtype and ref.shape == ours.shape
        if variant == "iSVT4":
            pvalues.append(same_rows_pvalue(ref[:, 0], ours[:, 0]))
            a, b = ref[ref[:, 1] != 0, 1], ours[ours[:, 1] != 0, 1]
            pvalues.append(stats.ks_2samp(a, b).pvalue)
        else:
            pvalues.append(same_rows_pvalue(ref, ours))
    assert min(pvalues) > ALPHA / len(pvalues), pvalues


def test_statdp_histogram_first_matches_reference_law():
    mech = NoisyHistogram(0.7, length=5, report="first")
    x = np.array([3.0, 1.0, 4.0, 1.0, 5.0])
    ours = mech.sample(x, DRAWS, rng=11)
    ref = 3.0 + np.random.default_rng(12).laplace(scale=1 / 0.7, size=DRAWS)
    assert stats.ks_2samp(ref, ours).pvalue > ALPHA


# ----------------------------------------------------------------------------------------
# the Laplace draws
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [DRAWS, (10, DRAWS // 10)])
def test_laplace_noise_law(shape):
    draws = laplace_noise(np.random.default_rng(13), 2.5, shape)
    assert draws.shape == (shape if isinstance(shape, tuple) else (shape,))
    assert draws.dtype == np.float64 and draws.flags.c_contiguous
    flat = draws.ravel()
    # two tests at α/2 each: the law, and the sign independent of the magnitude
    pvalue_law = stats.kstest(flat, stats.laplace(scale=2.5).cdf).pvalue
    big = np.abs(flat) > 2.5 * np.log(2.0)  # the median of |L|
    table = np.array(
        [
            [np.sum(big & (flat > 0)), np.sum(big & (flat < 0))],
            [np.sum(~big & (flat > 0)), np.sum(~big & (flat < 0))],
        ]
    )
    pvalue_independent = stats.chi2_contingency(table, correction=False)[1]
    assert min(pvalue_law, pvalue_independent) > ALPHA / 2


def test_laplace_noise_inputs():
    rng = np.random.default_rng(0)
    assert laplace_noise(rng, 1.0, 0).shape == (0,)
    assert laplace_noise(rng, 1.0, (3, 0)).shape == (3, 0)
    assert np.array_equal(
        laplace_noise(np.random.default_rng(5), 3.0, 17),
        laplace_noise(np.random.default_rng(5), 3.0, 17),
    )
    for bad in (0.0, -1.0, np.nan, np.inf):
        with pytest.raises(InvalidParameterError, match="scale"):
            laplace_noise(rng, bad, 3)


def _laplace_noise_reduced(rng, answers, size, report):
    """Report noisy max as ``laplace_noise`` and NumPy's reductions give it."""
    n = answers.size
    if report == "index":
        noisy = laplace_noise(rng, 2.5, (size, n)) + answers[np.newaxis, :]
        return noisy.argmax(axis=1).astype(np.int64)
    return (laplace_noise(rng, 2.5, (n, size)) + answers[:, np.newaxis]).max(axis=0)


@pytest.mark.parametrize("report", ["value", "index"])
@pytest.mark.parametrize("size", [0, 1, 7, 819, 820, 50_001])
def test_compiled_noisy_max_equals_laplace_noise_reduced(report, size):
    """The compiled report-noisy-max draws what ``laplace_noise`` draws, in its order, and
    reduces it as NumPy does (the first index on ties): the same values to the bit, and
    the generator left in the same state.  ``NoisyMax`` calls it from
    ``KERNEL_DRAWS`` draws on (5 answers: 820 samples, not 819), with the same values."""
    for answers in (np.zeros(5), np.array([3.0, 1.0, 4.0, 1.0, 5.0]), np.array([0.0, -0.0])):
        mine, theirs = np.random.default_rng(size), np.random.default_rng(size)
        got = laplace_noisy_max(mine, 2.5, answers, size, report=report)
        expected = _laplace_noise_reduced(theirs, answers, size, report)
        assert got.dtype == expected.dtype and got.shape == (size,)
        assert np.array_equal(got, expected)
        assert np.array_equal(np.signbit(got), np.signbit(expected))
        assert mine.integers(1 << 62) == theirs.integers(1 << 62)
    mechanism = NoisyMax(0.8, noise="laplace", report=report, length=5)  # scale 2.5
    answers = np.array([3.0, 1.0, 4.0, 1.0, 5.0])
    sampled = mechanism._sample(answers, size, np.random.default_rng(size))
    assert np.array_equal(
        sampled, _laplace_noise_reduced(np.random.default_rng(size), answers, size, report)
    )
    with pytest.raises(InvalidParameterError, match="scale"):
        laplace_noisy_max(np.random.default_rng(0), 0.0, np.zeros(3), 5_000, report="value")


# ----------------------------------------------------------------------------------------
# the pattern tables: exactly svt_codes
# ----------------------------------------------------------------------------------------
@st.composite
def _comparisons(draw, max_length=MAX_TABLE_LENGTH + 2):
    n = draw(st.integers(1, max_length))
    size = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.sampled_from([0.1, 0.5, 0.9]))
    above = np.random.default_rng(seed).random((n, size)) < density
    cutoff = draw(st.sampled_from([None, 1, 2, 3, n, n + 1]))
    return above, cutoff


def _expected_tops(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.nonzero(codes == ABOVE)


@given(_comparisons())
def test_sparse_vector_run_equals_svt_codes(case):
    above, cutoff = case
    n, size = above.shape
    expected = svt_codes(above.T.copy(), cutoff)
    run = sparse_vector_run(above, cutoff)
    assert np.array_equal(run.output, expected)
    assert (run.code_rows is None) == (n > MAX_TABLE_LENGTH)
    samples, queries = run.top_cells()
    want_samples, want_queries = _expected_tops(expected)
    assert np.array_equal(samples, want_samples) and np.array_equal(queries, want_queries)
    wide = np.full((size, 2 * n + 1), np.nan)
    run = sparse_vector_run(above, cutoff, out=wide)
    assert np.array_equal(wide[:, :n], expected) and np.all(wide[:, n:] == 0.0)


@given(_comparisons(), _comparisons(max_length=8), st.integers(0, 3))
def test_side_by_side_runs_equal_svt_codes(first, second, gap):
    (a, ca), (b, cb) = first, second
    size = min(a.shape[1], b.shape[1])
    a, b = a[:, :size], b[:, :size]
    na, nb = a.shape[0], b.shape[0]
    out = np.full((size, na + gap + nb + 1), np.nan)
    runs = sparse_vector_runs([(a, ca, 0), (b, cb, na + gap)], out)
    want_a, want_b = svt_codes(a.T.copy(), ca), svt_codes(b.T.copy(), cb)
    assert np.array_equal(out[:, :na], want_a)
    assert np.array_equal(out[:, na + gap : na + gap + nb], want_b)
    assert np.all(out[:, na : na + gap] == 0.0) and np.all(out[:, -1] == 0.0)
    for run, want in zip(runs, (want_a, want_b), strict=True):
        samples, queries = run.top_cells()
        expect = _expected_tops(want)
        assert np.array_equal(samples, expect[0]) and np.array_equal(queries, expect[1])


def test_side_by_side_runs_take_both_paths():
    """Combined table when small; column-by-column writes when the product is too big."""
    rng = np.random.default_rng(3)
    small = rng.random((10, 500)) < 0.3  # c = 2: 56 code rows each
    big = rng.random((8, 500)) < 0.5  # no cut-off: 256 code rows each
    for parts, width in (
        (((small, 2, 0), (small[::-1], 2, 10)), 20),
        (((big, None, 0), (big[::-1], None, 8)), 16),
    ):
        out = np.empty((500, width))
        runs = sparse_vector_runs(parts, out)
        for _run, (above, cutoff, first) in zip(runs, parts, strict=True):
            n = above.shape[0]
            assert np.array_equal(out[:, first : first + n], svt_codes(above.T.copy(), cutoff))
    assert 256 * 256 > MAX_COMBINED_ROWS >= 56 * 56


def test_pattern_inputs_are_checked():
    with pytest.raises(InvalidParameterError, match="at most"):
        answer_patterns(np.zeros((MAX_TABLE_LENGTH + 1, 3), dtype=bool))
    above = np.zeros((4, 5), dtype=bool)
    with pytest.raises(InvalidParameterError, match="C-contiguous"):
        sparse_vector_runs([(above, 1, 0)], np.zeros((5, 8))[:, ::2])
    with pytest.raises(InvalidParameterError, match="do not fit"):
        sparse_vector_runs([(above, 1, 2)], np.zeros((5, 5)))
    with pytest.raises(InvalidParameterError, match="do not fit"):
        sparse_vector_runs([(above, 1, 0)], np.zeros((6, 4)))


@given(_comparisons(max_length=MAX_TABLE_LENGTH))
def test_statdp_pattern_summaries_equal_direct_summaries(case):
    above, cutoff = case
    direct = _transcript_summary(above.T.copy(), cutoff)
    patterns = answer_patterns(above)
    for table, want in zip(_pattern_summaries(above.shape[0], cutoff), direct, strict=True):
        assert np.array_equal(np.take(table, patterns), want)
