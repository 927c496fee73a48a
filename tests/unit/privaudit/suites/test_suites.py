"""The public benchmark suites: valid specs, true neighbours, faithful vectorised samplers.

Faithfulness is checked three ways: DP-Sniper's own (already vectorised) sampling code,
ported to a ``numpy.random.Generator``, must give the same output law
(``tests/unit/privaudit/suites/test_sampler_laws.py``: the fast samplers draw Laplace noise
differently, so the streams differ); StatDP's per-sample loops, ported literally, must give the
same output law (χ² homogeneity at α = 1e-4, fixed seeds); and mechanisms with a
closed-form output law are checked against it.
"""

from __future__ import annotations

import math
import pickle
from itertools import zip_longest

import networkx as nx
import numpy as np
import pytest
from scipy import integrate, stats

from privaudit.mechanisms import Mechanism
from privaudit.spec import GlobalSensitivity, MechanismSpec
from privaudit.spec.errors import InconsistentSpecError, InvalidParameterError, NotNeighboursError
from privaudit.suites import (
    BenchmarkCase,
    all_cases,
    broken_cases,
    control_cases,
    dpsniper_cases,
    dpsniper_patterns,
    statdp_cases,
    statdp_patterns,
)
from privaudit.suites._dpsniper_mechanisms import Rappor, TruncatedGeometric
from privaudit.suites._kernels import murmur3_32
from privaudit.suites.statdp import StatDPSparseVector

ALPHA = 1e-4
CASES = all_cases()
BY_NAME = {c.name: c for c in dpsniper_cases() + broken_cases() + control_cases()}
STATDP = {c.name: c for c in statdp_cases(0.7)}
IDS = [f"{c.name}@{c.claimed_epsilon:g}" for c in CASES]


def _case(name: str) -> BenchmarkCase:
    return BY_NAME.get(name) or STATDP[name]


# ----------------------------------------------------------------------------------------
# structure
# ----------------------------------------------------------------------------------------
def test_counts_and_names():
    dps = dpsniper_cases()
    assert len(dps) == 20
    assert len(statdp_cases(0.2)) == 11
    names = [c.name for c in dps + statdp_cases(0.2) + broken_cases() + control_cases()]
    assert len(set(names)) == len(names)
    assert all(c.claimed_epsilon == 0.1 for c in dps)
    assert sum(c.is_private for c in dps) == 8


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_spec_is_valid_and_round_trips(case):
    spec = case.spec
    assert isinstance(case.mechanism, Mechanism)
    again = MechanismSpec.from_json(spec.to_json())
    assert again == spec and again.content_hash == spec.content_hash
    assert spec.name == case.name


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_input_pairs_are_neighbours(case):
    assert case.input_pairs
    for x, y in case.input_pairs:
        decision = case.spec.relation.decide(x, y, case.spec.input_domain)
        assert decision
        if isinstance(x, nx.Graph):  # np.array_equal would compare node lists only
            assert decision.distance > 0
        else:
            assert not np.array_equal(x, y)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_is_private_matches_epsilons(case):
    assert case.is_private == (case.true_epsilon <= case.claimed_epsilon * (1 + 1e-9))
    assert case.true_epsilon >= 0 and not math.isnan(case.true_epsilon)
    assert case.source and case.notes


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_published_lower_bounds_do_not_exceed_true_epsilon(case):
    for auditor, bound in case.reference_results.items():
        assert bound <= case.true_epsilon * 1.001, (auditor, bound)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sampling_shape_dtype_and_reproducibility(case):
    mech = case.mechanism
    d = case.spec.output_dimension
    for x, _ in case.input_pairs[:2]:
        out = mech.sample(x, 1000, rng=7)
        assert out.shape == ((1000,) if d == 1 else (1000, d))
        assert out.dtype in (np.float64, np.int64)
        assert np.all(np.isfinite(out))
        assert np.array_equal(out, mech.sample(x, 1000, rng=7))
        if np.unique(out).size > 1:  # not a point mass (range_scaled_mean on constant data)
            assert not np.array_equal(out, mech.sample(x, 1000, rng=8))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_mechanisms_pickle(case):
    clone = pickle.loads(pickle.dumps(case.mechanism))
    x = case.input_pairs[0][0]
    assert np.array_equal(clone.sample(x, 50, rng=3), case.mechanism.sample(x, 50, rng=3))


def _norm(diff: np.ndarray, norm: str) -> float:
    diff = np.atleast_1d(np.asarray(diff, dtype=float))
    return float(
        {"l1": np.abs(diff).sum(), "l2": np.sqrt((diff**2).sum()), "linf": np.abs(diff).max()}[norm]
    )


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_declared_sensitivity_on_the_pairs(case):
    claim = case.spec.global_sensitivity
    if claim is None or not case.mechanism.provides("statistic"):
        pytest.skip("no global sensitivity claim or no statistic hook")
    assert isinstance(claim, GlobalSensitivity)
    worst = max(
        _norm(np.subtract(case.mechanism.statistic(x), case.mechanism.statistic(y)), claim.norm)
        for x, y in case.input_pairs
    )
    if case.name == "broken.sum_underdeclared_sensitivity":
        assert worst == 2.0 > claim.value
    else:
        assert worst <= claim.value * (1 + 1e-12)


# ----------------------------------------------------------------------------------------
# BenchmarkCase validation
# ----------------------------------------------------------------------------------------
def test_case_checks_its_fields():
    mech = _case("control.laplace").mechanism
    base = {
        "name": "t",
        "mechanism": mech,
        "true_epsilon": 1.0,
        "claimed_epsilon": 1.0,
        "input_pairs": ((0.0, 1.0),),
        "source": "here",
    }
    case = BenchmarkCase(**base)
    assert case.is_private and case.violation_ratio == 1.0
    with pytest.raises(TypeError):
        BenchmarkCase(**base, is_private=False)
    with pytest.raises(InconsistentSpecError):
        BenchmarkCase(**{**base, "claimed_epsilon": 0.5})
    with pytest.raises(NotNeighboursError):
        BenchmarkCase(**{**base, "input_pairs": ((0.0, 3.0),)})
    with pytest.raises(InvalidParameterError):
        BenchmarkCase(**{**base, "input_pairs": ((1.0, 1.0),)})
    with pytest.raises(InvalidParameterError):
        BenchmarkCase(**{**base, "input_pairs": ()})
    with pytest.raises(InvalidParameterError):
        BenchmarkCase(**{**base, "true_epsilon": math.nan})
    with pytest.raises(InvalidParameterError):
        BenchmarkCase(**{**base, "reference_results": {"x": "big"}})
    broken = BenchmarkCase(**{**base, "true_epsilon": math.inf})
    assert not broken.is_private and broken.violation_ratio == math.inf
    with pytest.raises(TypeError):
        broken.reference_results["x"] = 1.0  # type: ignore[index]  # read-only on purpose
    with pytest.raises(InvalidParameterError):
        statdp_cases(0.0)


def test_patterns_follow_the_originals():
    assert len(statdp_patterns(5, True)) == 8 and len(statdp_patterns(5, False)) == 2
    x_shape = statdp_patterns(5, True)[-1]
    assert x_shape[0].tolist() == [1, 1, 0, 0, 0] and x_shape[1].tolist() == [0, 0, 1, 1, 1]
    dps = dpsniper_patterns(10, True)
    assert len(dps) == 16 and np.array_equal(dps[0][0], dps[1][1])
    assert dps[-2][0].tolist() == [1] * 5 + [0] * 5
    assert dpsniper_patterns(1, False) == ((1.0, 0.0), (0.0, 1.0), (1.0, 2.0), (2.0, 1.0))


def test_statdp_true_epsilons_scale_with_the_claim():
    for eps in (0.2, 0.7, 1.5):
        true = {c.name: c.true_epsilon for c in statdp_cases(eps)}
        assert true["statdp.noisy_max_v1b"] == pytest.approx(2.5 * eps)
        assert true["statdp.histogram_eps"] == pytest.approx(1 / eps)
        assert true["statdp.iSVT3"] == pytest.approx(1.75 * eps)
        assert math.isinf(true["statdp.iSVT1"]) and math.isinf(true["statdp.noisy_max_v2b"])
    private = {c.name for c in statdp_cases(1.5) if c.is_private}
    assert "statdp.histogram_eps" in private  # 1/1.5 < 1.5


# ----------------------------------------------------------------------------------------
# StatDP: same output law as its per-sample loops
# ----------------------------------------------------------------------------------------
def _statdp_loop(variant, rng, queries, epsilon, N, T):
    out, c1, n = [], 0, len(queries)
    rho_scale = {"SVT": 2.0, "iSVT1": 2.0, "iSVT2": 2.0, "iSVT3": 4.0, "iSVT4": 2.0}[variant]
    noisy_t = T + rng.laplace(scale=rho_scale / epsilon)
    for q in queries:
        eta2 = {
            "SVT": lambda: rng.laplace(scale=4.0 * N / epsilon),
            "iSVT1": lambda: 0,
            "iSVT2": lambda: rng.laplace(scale=2.0 / epsilon),
            "iSVT3": lambda: rng.laplace(scale=4.0 / (3.0 * epsilon)),
            "iSVT4": lambda: rng.laplace(scale=2.0 * N / epsilon),
        }[variant]()
        above = q + eta2 > noisy_t if variant in ("iSVT3", "iSVT4") else q + eta2 >= noisy_t
        out.append((q + eta2) if (above and variant == "iSVT4") else bool(above))
        if above and variant in ("SVT", "iSVT3", "iSVT4"):
            c1 += 1
            if c1 >= N:
                break
    if variant == "SVT":
        return out.count(False)
    if variant == "iSVT4":
        return out.count(False), (out[-1] if out[-1] is not False else 0.0)
    pattern = (i < n // 2 for i in range(n))
    return sum(r1 != r2 for r1, r2 in zip_longest(pattern, out))


@pytest.mark.parametrize("variant", ["SVT", "iSVT1", "iSVT2", "iSVT3", "iSVT4"])
def test_statdp_svt_matches_statdp_loops(variant):
    mech = STATDP[f"statdp.{variant}"].mechanism
    rng = np.random.default_rng(5)
    size = 4000
    for q, _ in statdp_patterns(5, True)[::3]:
        ref = [_statdp_loop(variant, rng, q.tolist(), 0.7, mech.N, mech.T) for _ in range(size)]
        ours = mech.sample(q, size, rng=6)
        if variant == "iSVT4":
            ref_counts = np.array([r[0] for r in ref])
            ref_values = np.array([r[1] for r in ref])
            counts, values = ours[:, 0], ours[:, 1]
            assert stats.ks_2samp(ref_values[ref_values != 0], values[values != 0]).pvalue > ALPHA
        else:
            ref_counts, counts = np.array(ref), ours
        table = np.array([[np.sum(ref_counts == k), np.sum(counts == k)] for k in range(6)])
        table = table[table.sum(axis=1) > 0]
        if table.shape[0] > 1:
            assert stats.chi2_contingency(table)[1] > ALPHA


# ----------------------------------------------------------------------------------------
# closed-form output laws
# ----------------------------------------------------------------------------------------
def test_noisy_hist_residual_std():
    x = np.array([3, 1, 4, 1, 5])
    for name, scale in (("dpsniper.NoisyHist2", 0.1), ("dpsniper.NoisyHist1", 10.0)):
        resid = BY_NAME[name].mechanism.sample(x, 20_000, rng=1) - x
        assert abs(resid.std() / (math.sqrt(2) * scale) - 1) < 0.02
    for name, scale in (("statdp.histogram", 1 / 0.7), ("statdp.histogram_eps", 0.7)):
        resid = STATDP[name].mechanism.sample(x, 50_000, rng=1) - x[0]
        assert abs(resid.std() / (math.sqrt(2) * scale) - 1) < 0.03


def _chi2(observed: np.ndarray, probs: np.ndarray) -> float:
    assert probs.sum() == pytest.approx(1.0, abs=1e-6)
    return stats.chisquare(observed, probs * observed.sum()).pvalue


def test_rnm1_argmax_frequencies_match_numerical_integration():
    q = np.array([0.0, 5.0, 10.0, 15.0, 20.0])
    b = 20.0
    law = stats.laplace(scale=b)

    def win(i):
        rest = [j for j in range(5) if j != i]

        def density_of_winning(z):
            return law.pdf(z - q[i]) * np.prod([law.cdf(z - q[j]) for j in rest])

        return integrate.quad(density_of_winning, -800, 800, points=list(q), limit=400)[0]

    probs = np.array([win(i) for i in range(5)])
    out = BY_NAME["dpsniper.ReportNoisyMax1"].mechanism.sample(q, 40_000, rng=2)
    assert _chi2(np.bincount(out, minlength=5), probs) > ALPHA


def test_statdp_svt_count_matches_numerical_integration():
    mech = STATDP["statdp.SVT"].mechanism
    q = np.array([2.0, 0.0, 0.0, 0.0, 0.0])
    rho, nu = stats.laplace(scale=mech.threshold_scale), stats.laplace(scale=mech.query_scale)

    def prob(k):
        def f(r):
            below = np.prod([nu.cdf(mech.T + r - q[i]) for i in range(k)])
            return rho.pdf(r) * below * (nu.sf(mech.T + r - q[k]) if k < 5 else 1.0)

        return integrate.quad(f, -200, 200, points=[0.0], limit=400)[0]

    probs = np.array([prob(k) for k in range(6)])
    out = mech.sample(q, 40_000, rng=3)
    assert _chi2(np.bincount(out, minlength=6), probs) > ALPHA


def test_truncated_geometric_pmf_and_epsilon():
    geo = TruncatedGeometric()
    assert geo.k == 3 and geo.d == 111537
    pmfs = np.array([geo.pmf(c) for c in range(6)])
    assert np.allclose(pmfs.sum(axis=1), 1.0)
    worst = max(np.abs(np.log(pmfs[c]) - np.log(pmfs[c + 1])).max() for c in range(5))
    assert worst == pytest.approx(math.log(9 / 8)) == pytest.approx(geo.exact_epsilon)
    out = geo.sample(2, 40_000, rng=4)
    assert _chi2(np.bincount(out, minlength=6), pmfs[2]) > ALPHA


def test_rappor_bits_and_exact_epsilon():
    assert murmur3_32("foo") == -156908512 and murmur3_32("foo", 42) == -1322301282
    assert murmur3_32("The quick brown fox jumps over the lazy dog") == 776992547
    assert murmur3_32("", 1) == 1364076727
    for name in ("dpsniper.Rappor", "dpsniper.OneTimeRappor"):
        case = BY_NAME[name]
        mech: Rappor = case.mechanism  # type: ignore[assignment]  # these two cases are Rappor
        p0, p1 = mech.report_probabilities()
        bits = mech.bloom_bits(1)
        assert bits.nonzero()[0].tolist() == [3, 10, 13]
        out = mech.sample(1, 20_000, rng=5)
        expected = np.where(bits, p1, p0)
        z = (out.mean(axis=0) - expected) / np.sqrt(expected * (1 - expected) / 20_000)
        assert np.abs(z).max() < 4.5
        assert case.true_epsilon == pytest.approx(8 * math.log(p1 / p0))
        assert mech.pair_epsilon(1, 0) == pytest.approx(6 * math.log(p1 / p0))


def test_curator_support_and_prefix_sum():
    curator = BY_NAME["broken.curator_truncated_laplace"].mechanism
    out = curator.sample(0.0, 200_000, rng=6)
    assert np.abs(out).max() <= curator.k * curator.law.scale
    tail = np.mean(np.abs(out) > (curator.k - 1) * curator.law.scale)
    expected = (math.exp(-(curator.k - 1)) - math.exp(-curator.k)) / (1 - math.exp(-curator.k))
    assert abs(tail - expected) < 5 * math.sqrt(expected / 200_000)
    x = np.arange(10.0)
    prefix = BY_NAME["dpsniper.PrefixSum"].mechanism.sample(x, 20_000, rng=7)
    resid = np.diff(np.hstack([np.zeros((20_000, 1)), prefix]), axis=1) - x
    assert abs(resid.std() / (math.sqrt(2) * 10.0) - 1) < 0.02


def test_svt_encodings():
    svt3 = BY_NAME["dpsniper.SparseVectorTechnique3"].mechanism.sample(np.ones(10), 5000, rng=8)
    codes, values = svt3[:, :10], svt3[:, 10:]
    assert set(np.unique(codes)) <= {-1.0, 0.0, 1.0}
    assert np.all((codes == 1).sum(axis=1) <= 1)
    assert np.all(values[codes != 1] == 0.0)
    aborted = codes == -1
    first_top = np.where((codes == 1).any(axis=1), (codes == 1).argmax(axis=1), 10)
    assert np.array_equal(aborted, np.arange(10)[None, :] > first_top[:, None])
    isvt = StatDPSparseVector(0.7, "iSVT3", N=1, T=1.0).sample(np.ones(5), 5000, rng=9)
    assert set(np.unique(isvt)) <= {2, 3, 4, 5}


def test_gaussian_cases_use_the_exact_profile():
    eps2 = BY_NAME["broken.gaussian_classical_eps2"]
    eps10 = BY_NAME["broken.gaussian_classical_eps10"]
    assert eps2.is_private and 1.5 < eps2.true_epsilon < 2.0
    assert not eps10.is_private and eps10.true_epsilon > 10.0
    assert eps2.spec.noise.calibration == "manual" and eps10.spec.noise is None
    gauss = BY_NAME["control.gaussian_analytic"]
    law = gauss.spec.noise.law
    assert law.privacy_profile(gauss.true_epsilon, 1.0) == pytest.approx(1e-5, rel=1e-6)
    # σ is rounded up onto the stable grid: the true ε is just below the claim, never above
    assert 1.0 - 1e-5 <= gauss.true_epsilon <= 1.0 and gauss.is_private
