"""The claim checks: sensitivity (deterministic), noise-law conformance (statistical), spec
consistency (deterministic).

Error rates.  The deterministic checks never flag a true claim (up to the round-off slack
1e-9), so their "passes" assertions cannot fail by chance.  Every statistical assertion
below runs the noise-law check with a fixed seed at the stated α: with a fresh seed an
assertion that a *correct* mechanism passes would fail with probability ≤ α (the
Bonferroni-bounded family-wise error of the check); assertions that a *broken* mechanism is
flagged have power ≈ 1 at the stated sample sizes (the p-values are below 1e-30).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from privaudit.auditing import checks
from privaudit.auditing.checks import (
    check_global_sensitivity,
    check_local_sensitivity_bound,
    check_noise_law,
    check_smooth_sensitivity,
    check_spec_consistency,
)
from privaudit.auditing.checks._gof import (
    ad_pvalue,
    chi_square_test,
    exact_multinomial_test,
    merge_bins,
    tail_tests,
)
from privaudit.auditing.checks._selection import selection_probabilities
from privaudit.auditing.outcome.results import CheckOutcome
from privaudit.auditing.pairs import verified_pair
from privaudit.mechanisms import (
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponseMechanism,
    ReportNoisyMax,
    declare_mechanism,
    median_smooth_sensitivity,
    smooth_inverse_quartic_mechanism,
    smooth_median_mechanism,
)
from privaudit.spec import (
    AdditiveNoise,
    DatasetDomain,
    Exponential,
    Gaussian,
    GlobalSensitivity,
    Gumbel,
    Laplace,
    LocalSensitivityBound,
    MechanismSpec,
    PureDP,
    RealInterval,
    SubstituteOne,
)
from privaudit.spec.errors import InvalidParameterError

N_RECORDS = 7
DOMAIN = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N_RECORDS)
DATA = np.array([0.05, 0.2, 0.35, 0.5, 0.62, 0.8, 0.97])
#: β of the inverse-quartic smooth median at ε = 1 (β = ε/(3 + 3^{3/4})).
BETA = smooth_median_mechanism(N_RECORDS, 0.0, 1.0, 1.0).beta


def _median_ls(x: np.ndarray) -> float:
    """Exact local sensitivity of the median of an odd number of records (substitute-one)."""
    xs = np.sort(np.asarray(x, dtype=float))
    m = xs.size // 2
    return float(max(xs[m] - xs[m - 1], xs[m + 1] - xs[m]))


def _laplace_mean(n: int = N_RECORDS, eps: float = 1.0) -> LaplaceMechanism:
    return LaplaceMechanism(
        eps,
        1.0 / n,
        statistic=np.mean,
        input_domain=DOMAIN,
        relation=SubstituteOne(),
        statistic_description="mean",
    )


def _pairs(mech, rng, count: int = 3):
    spec = mech.spec
    out = []
    for _ in range(count):
        x, y = spec.relation.random_pair(spec.input_domain, rng)
        out.append(verified_pair(spec, x, y, "explicit"))
    return out


def test_facade_exports_sorted_all():
    assert checks.__all__ == sorted(checks.__all__)
    assert set(checks.__all__) == {
        "accuracy_check_applies",
        "check_accuracy",
        "check_float_image",
        "check_global_sensitivity",
        "check_local_node",
        "check_local_sensitivity_bound",
        "check_noise_law",
        "check_smooth_sensitivity",
        "check_spec_consistency",
        "check_spike",
        "exposed_nodes",
        "float_image_applies",
        "float_image_unavailable",
        "is_required_skip",
        "local_node_checks_apply",
        "locality_needs_samples",
        "spike_applies",
    }


# ----------------------------------------------------------------------------------------
# spec consistency (deterministic)
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "mech",
    [
        _laplace_mean(),
        GaussianMechanism(1.0, 1e-5, 1.0),
        DiscreteLaplaceMechanism(1.0, 1),
        smooth_median_mechanism(5, 0.0, 1.0, 1.0),
        smooth_median_mechanism(5, 0.0, 1.0, 1.0, 1e-6),
        RandomizedResponseMechanism(1.0, 3),
        ExponentialMechanism(1.0, 1.0, 4),
        ReportNoisyMax(1.0, 1.0, 4, noise="exponential", monotone=True),
    ],
    ids=lambda m: m.name,
)
def test_spec_consistency_passes_for_builtin_mechanisms(mech):
    out = check_spec_consistency(mech)
    assert out.status == "passed", out.summary
    assert out.error_rate == 0.0
    assert "epsilon" in out.details["compared"]


def test_spec_consistency_flags_a_noise_law_attribute_that_differs():
    class Drifted(LaplaceMechanism):
        @property
        def noise_law(self):  # the sampler really uses this one
            return Laplace(scale=0.5)

    out = check_spec_consistency(Drifted(1.0, 1.0))
    assert out.violated
    (mismatch,) = out.details["mismatches"]
    assert mismatch["attribute"] == "noise_law"
    assert "0.5" in mismatch["mechanism"] and "1.0" in mismatch["spec"]
    assert "noise_law" in out.summary


def test_spec_consistency_flags_epsilon_and_alpha_mismatches():
    base = smooth_median_mechanism(5, 0.0, 1.0, 1.0)
    mech = declare_mechanism(base.spec, sampler=lambda x, size, rng: np.zeros(size))
    mech.epsilon = 2.0  # plain attributes are compared too
    mech.alpha = base.alpha * 2
    out = check_spec_consistency(mech)
    assert out.violated
    assert {m["attribute"] for m in out.details["mismatches"]} == {"epsilon", "alpha"}


# ----------------------------------------------------------------------------------------
# global sensitivity (deterministic)
# ----------------------------------------------------------------------------------------
def test_global_sensitivity_passes_for_correct_mechanisms(rng):
    for mech in (
        _laplace_mean(),
        GaussianMechanism(1.0, 1e-5, 2.0),
        DiscreteLaplaceMechanism(1.0, 3),
        ExponentialMechanism(1.0, 1.0, 4),
    ):
        out = check_global_sensitivity(mech, rng, pairs=_pairs(mech, rng), search_budget=150)
        assert out.status == "passed", (mech.name, out.summary)
        assert out.statistic <= out.threshold * (1 + 1e-9)
        assert out.error_rate == 0.0 and out.counterexample is None


def test_global_sensitivity_finds_the_worst_pair_of_the_mean(rng):
    out = check_global_sensitivity(_laplace_mean(), rng, pairs=[], search_budget=200)
    # substitute-one on [0, 1]: the search reaches records at both ends of the interval
    assert out.ratio == pytest.approx(1.0, rel=1e-9)


def test_global_sensitivity_flags_an_understated_claim(rng):
    n = N_RECORDS
    spec = MechanismSpec(
        name="twice_the_sum",
        input_domain=DOMAIN,
        relation=SubstituteOne(),
        statistic="2 * sum (sensitivity 2, declared 1)",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)),
        guarantee=PureDP(epsilon=1.0),
    )
    mech = declare_mechanism(
        spec,
        sampler=lambda x, size, r: 2 * x.sum() + r.laplace(0, 1, size),
        statistic=lambda x: 2.0 * float(np.sum(x)),
    )
    out = check_global_sensitivity(mech, rng, pairs=_pairs(mech, rng), search_budget=200)
    assert out.violated
    cx = out.counterexample
    assert cx is not None and len(cx.x) == n and len(cx.y) == n
    assert cx.relation_reason.startswith("records differ at index")
    assert cx.values["claim"] == 1.0
    assert cx.values["ratio"] == pytest.approx(cx.values["norm_of_difference"])
    assert abs(cx.values["f(x)"] - cx.values["f(y)"]) == pytest.approx(
        cx.values["norm_of_difference"]
    )
    assert 1.5 < out.ratio <= 2.0 + 1e-12


def test_global_sensitivity_skips_without_claim_or_hook(rng):
    out = check_global_sensitivity(RandomizedResponseMechanism(1.0), rng, pairs=[])
    assert out.status == "skipped" and "no global-sensitivity claim" in out.summary
    blind = declare_mechanism(_laplace_mean().spec, sampler=lambda x, size, r: np.zeros(size))
    out = check_global_sensitivity(blind, rng, pairs=[])
    assert out.status == "skipped" and "statistic" in out.summary
    with pytest.raises(InvalidParameterError):
        check_global_sensitivity(_laplace_mean(), rng, pairs=[], search_budget=-1)


# ----------------------------------------------------------------------------------------
# local sensitivity bound (deterministic)
# ----------------------------------------------------------------------------------------
def _median_with_local_bound(factor: float):
    spec = MechanismSpec(
        name="median_with_local_bound",
        input_domain=DOMAIN,
        relation=SubstituteOne(),
        statistic="median",
        sensitivity=(
            GlobalSensitivity(value=1.0),
            LocalSensitivityBound(description="LS of the median"),
        ),
        noise=AdditiveNoise(law=Laplace(scale=1.0)),
        guarantee=PureDP(epsilon=1.0),
    )
    return declare_mechanism(
        spec,
        sampler=lambda x, size, r: np.median(x) + r.laplace(0, 1, size),
        statistic=lambda x: float(np.median(x)),
        local_sensitivity_bound=lambda x: factor * _median_ls(x),
    )


def test_local_bound_passes_for_the_exact_local_sensitivity(rng):
    out = check_local_sensitivity_bound(
        _median_with_local_bound(1.0), rng, inputs=[DATA], budget=300
    )
    assert out.status == "passed", out.summary
    assert out.ratio == pytest.approx(1.0)  # the bound is attained on some input
    assert out.details["inputs_tested"] >= 9
    assert out.details["exhaustive"] is False  # real records: infinitely many neighbours


def test_local_bound_flags_half_the_local_sensitivity(rng):
    out = check_local_sensitivity_bound(
        _median_with_local_bound(0.5), rng, inputs=[DATA], budget=300
    )
    assert out.violated
    assert out.ratio == pytest.approx(2.0)
    cx = out.counterexample
    assert cx.values["LS(x)"] > cx.values["B(x)"]
    assert abs(cx.values["f(x)"] - cx.values["f(y)"]) == pytest.approx(cx.values["LS(x)"])


def test_local_bound_is_exhaustive_on_small_finite_neighbourhoods(rng):
    from privaudit.spec import IntegerRange

    domain = DatasetDomain(record=IntegerRange(lo=0, hi=3), size=5)
    spec = MechanismSpec(
        name="int_median",
        input_domain=domain,
        relation=SubstituteOne(),
        statistic="median",
        sensitivity=(GlobalSensitivity(value=3.0), LocalSensitivityBound()),
        noise=AdditiveNoise(law=Laplace(scale=3.0)),
        guarantee=PureDP(epsilon=1.0),
    )
    mech = declare_mechanism(
        spec,
        sampler=lambda x, size, r: np.zeros(size),
        statistic=lambda x: float(np.median(x)),
        local_sensitivity_bound=lambda x: _median_ls(x),
    )
    out = check_local_sensitivity_bound(mech, rng, inputs=[[0, 1, 2, 3, 3]], budget=400)
    assert out.status == "passed", out.summary
    assert out.details["exhaustive"] is True and out.details["neighbourhood_size"] == 15
    assert "exact" in out.details["local_sensitivity"]


def test_local_bound_skips_without_claim(rng):
    out = check_local_sensitivity_bound(_laplace_mean(), rng, inputs=[DATA])
    assert out.status == "skipped" and "local-sensitivity-bound" in out.summary


# ----------------------------------------------------------------------------------------
# smooth sensitivity (deterministic)
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("delta", [None, 1e-6], ids=["inverse_quartic", "laplace"])
def test_smooth_median_passes_both_conditions(rng, delta):
    mech = smooth_median_mechanism(N_RECORDS, 0.0, 1.0, 1.0, delta)
    upper, smooth = check_smooth_sensitivity(
        mech, rng, inputs=[DATA], pairs=_pairs(mech, rng), budget=300
    )
    assert (upper.name, smooth.name) == (
        "sensitivity.smooth.upper_bound",
        "sensitivity.smooth.smoothness",
    )
    assert upper.status == "passed", upper.summary
    assert smooth.status == "passed", smooth.summary
    assert upper.ratio <= 1.0 + 1e-9 and smooth.ratio <= 1.0 + 1e-9
    assert smooth.ratio == pytest.approx(1.0)  # the exact smooth sensitivity is tight
    assert upper.details["statistic_evaluations"] <= 300 + 50  # the given input is free
    assert upper.details["inputs_by_origin"]["local_search"] >= 1


def _median_with_smooth(smooth_fn):
    base = smooth_median_mechanism(N_RECORDS, 0.0, 1.0, 1.0)
    return smooth_inverse_quartic_mechanism(
        base.statistic,
        smooth_fn,
        1.0,
        input_domain=DOMAIN,
        relation=SubstituteOne(),
        name="broken_smooth_median",
    ), base.beta


def test_smooth_upper_bound_flags_a_bound_four_times_too_small(rng):
    mech, _ = _median_with_smooth(lambda x: median_smooth_sensitivity(x, BETA, 0, 1) / 4)
    upper, smooth = check_smooth_sensitivity(mech, rng, inputs=[DATA], pairs=[], budget=300)
    assert upper.violated and upper.ratio == pytest.approx(4.0)
    cx = upper.counterexample
    assert cx.values["LS(x)"] == pytest.approx(4 * cx.values["S(x)"])
    assert cx.values["claim"] == "S(x) >= LS(x)"
    assert smooth.status == "passed"  # S/4 is still beta-smooth


def test_smoothness_flags_the_raw_local_sensitivity(rng):
    mech, beta = _median_with_smooth(_median_ls)
    upper, smooth = check_smooth_sensitivity(mech, rng, inputs=[DATA], pairs=[], budget=300)
    assert upper.status == "passed"  # LS is an upper bound on itself
    assert smooth.violated
    cx = smooth.counterexample
    assert cx.values["S(x)"] > math.exp(beta) * cx.values["S(y)"]
    assert smooth.ratio > 1.0 and cx.relation_reason.startswith("records differ")


def test_smooth_check_skips_without_claim(rng):
    up, sm = check_smooth_sensitivity(_laplace_mean(), rng, inputs=[], pairs=[])
    assert up.status == sm.status == "skipped"


# ----------------------------------------------------------------------------------------
# goodness-of-fit primitives
# ----------------------------------------------------------------------------------------
def test_anderson_darling_pvalue_matches_known_critical_values():
    # asymptotic upper quantiles of A²: 10 % 1.933, 5 % 2.492, 1 % 3.857 (Anderson & Darling)
    assert ad_pvalue(1.933, 10**6) == pytest.approx(0.10, abs=2e-4)
    assert ad_pvalue(2.492, 10**6) == pytest.approx(0.05, abs=2e-4)
    assert ad_pvalue(3.857, 10**6) == pytest.approx(0.01, abs=3e-4)
    assert ad_pvalue(math.inf, 10) == 0.0
    grid = [ad_pvalue(z, 50) for z in np.linspace(0.1, 30, 400)]
    assert all(a >= b for a, b in itertools.pairwise(grid))


def test_selection_probabilities_match_closed_forms():
    b, d = 2.0, 1.3
    p, err = selection_probabilities(Laplace(scale=b), [d, 0.0])
    assert p[0] == pytest.approx(1 - 0.5 * math.exp(-d / b) * (1 + d / (2 * b)), abs=1e-12)
    p, _ = selection_probabilities(Exponential(scale=b), [d, 0.0])
    assert p[0] == pytest.approx(1 - 0.5 * math.exp(-d / b), abs=1e-12)
    q = np.array([0.0, 1.0, 2.5, -3.0, 0.7])
    soft = np.exp(q / 1.3) / np.exp(q / 1.3).sum()
    np.testing.assert_allclose(selection_probabilities(Gumbel(scale=1.3), q)[0], soft)
    assert err < 1e-12


def test_merge_bins_and_chi_square():
    assert merge_bins(np.array([1.0, 2.0, 3.0, 10.0, 1.0, 1.0])).tolist() == [0, 0, 0, 1, 1, 1]
    out = chi_square_test(np.array([5, 5]), np.array([0.5, 0.5]))
    assert out.p_value == pytest.approx(1.0)
    out = chi_square_test(np.array([5, 1]), np.array([1.0, 0.0]))
    assert out.p_value == 0.0  # an outcome of probability zero


def test_exact_multinomial_small_sample():
    # two fair categories, 10 draws, all in one: p = 2 * 2^-10
    out = exact_multinomial_test(np.array([10, 0]), np.array([0.5, 0.5]))
    assert out.p_value == pytest.approx(2 / 1024)
    assert exact_multinomial_test(np.array([5000, 5000, 0]), np.ones(3) / 3) is None


def test_tail_tests_use_exact_tail_probabilities():
    law = Laplace(scale=1.0)
    z = np.sort(np.random.default_rng(5).laplace(size=50_000))
    tests = tail_tests(z, law, discrete=False)
    assert len(tests) == 6  # q = 1e-2, 1e-3 (50 000 · 1e-4 < 20), three events each
    both = tests[0]
    assert both.info["probability"] == pytest.approx(1e-2)
    assert both.info["expected"] == pytest.approx(500.0)


# ----------------------------------------------------------------------------------------
# noise-law conformance (statistical; α stated per test)
# ----------------------------------------------------------------------------------------
CORRECT = [
    (_laplace_mean(), DATA),
    (GaussianMechanism(1.0, 1e-5, 1.0), 3.0),
    (LaplaceMechanism(0.5, 2.0, output_dimension=3), [1.0, 2.0, 3.0]),
    (DiscreteLaplaceMechanism(1.0, 2), 5),
    (smooth_median_mechanism(N_RECORDS, 0.0, 1.0, 1.0), DATA),
    (smooth_median_mechanism(N_RECORDS, 0.0, 1.0, 1.0, 1e-6), DATA),
    (RandomizedResponseMechanism(1.0, 4), 2),
    (ExponentialMechanism(1.0, 1.0, 5), [0.0, 1.0, 2.0, 3.5, 3.0]),
    (ReportNoisyMax(1.0, 1.0, 5), [0.0, 1.0, 2.0, 3.5, 3.0]),
    (ReportNoisyMax(1.0, 1.0, 5, noise="exponential"), [0.0, 1.0, 2.0, 3.5, 3.0]),
]


@pytest.mark.parametrize(
    "mech,x", CORRECT, ids=[f"{m.name}-{i}" for i, (m, _) in enumerate(CORRECT)]
)
def test_noise_law_passes_for_correct_mechanisms(mech, x):
    """α = 0.01: with a fresh seed each case fails with probability ≤ 0.01."""
    out = check_noise_law(mech, x, np.random.default_rng(101), samples=100_000, alpha=0.01)
    assert out.status == "passed", out.summary
    assert out.error_rate == 0.01 and out.threshold == 0.01
    assert out.details["bonferroni_k"] == len(out.details["subtests"])


def test_noise_law_battery_for_continuous_laws():
    out = check_noise_law(_laplace_mean(), DATA, np.random.default_rng(7), samples=100_000)
    names = set(out.details["subtests"])
    assert {
        "ks",
        "anderson_darling",
        "tail_both_q=0.01",
        "tail_lower_q=0.001",
        "tail_upper_q=0.001",
    } <= names
    assert not any("0.0001" in n for n in names)  # 1e5 · 1e-4 = 10 < 20
    assert out.details["bonferroni_k"] == 8
    assert out.statistic == pytest.approx(
        min(t["adjusted_p_value"] for t in out.details["subtests"].values())
    )


def _laplace_like(sampler):
    spec = LaplaceMechanism(1.0, 1.0).spec
    return declare_mechanism(spec, sampler=sampler, statistic=lambda x: float(x))


def test_noise_law_flags_a_laplace_scale_of_0_8():
    """Power: the KS distance is 0.041, the critical value at 1e5 draws ≈ 0.006."""
    mech = _laplace_like(lambda x, size, r: x + r.laplace(0.0, 0.8, size))
    out = check_noise_law(mech, 0.0, np.random.default_rng(11), samples=100_000, alpha=0.01)
    assert out.violated
    assert out.details["subtests"]["ks"]["rejected"]
    assert out.statistic < 1e-30


def _truncated_laplace(cut: float):
    """Laplace(1) conditioned on |Z| ≤ cut, by the inverse CDF (a Curator-style sampler)."""
    law = Laplace(scale=1.0)
    lo, hi = float(law.cdf(-cut)), float(law.cdf(cut))

    def sample(x, size, r):
        return x + law.ppf(r.uniform(lo, hi, size))

    return _laplace_like(sample)


def test_noise_law_flags_tails_cut_at_4b():
    """1e6 draws: P(|Z| > 4.6b) = 0.01 is expected 10 000 times, observed 0."""
    out = check_noise_law(
        _truncated_laplace(4.0), 0.0, np.random.default_rng(12), samples=1_000_000, alpha=0.01
    )
    assert out.violated
    sub = out.details["subtests"]
    assert sub["tail_both_q=0.01"]["rejected"] and sub["tail_both_q=0.01"]["observed"] == 0
    assert sub["tail_upper_q=0.0001"]["rejected"]


def test_noise_law_tail_tests_catch_what_ks_misses():
    """Tails cut at the 1 − 5e-4 quantile (6.9b): the CDFs differ by at most 5e-4, below
    what KS resolves with 1e6 draws, but 1 000 draws are expected beyond ±6.9b."""
    out = check_noise_law(
        _truncated_laplace(math.log(1000.0)),
        0.0,
        np.random.default_rng(13),
        samples=1_000_000,
        alpha=0.01,
    )
    sub = out.details["subtests"]
    assert out.violated
    assert not sub["ks"]["rejected"]
    assert sub["tail_both_q=0.001"]["rejected"] and sub["tail_both_q=0.001"]["observed"] == 0


def test_noise_law_flags_flattened_tails_and_samples_once():
    """Curator-style flat tails: the mass beyond ±3b is spread uniformly on 3b..8b.  At
    1e5 draws, 100 are expected beyond 6.9b (q = 1e-3) and about 1 100 are observed."""
    calls = []

    def flat(x, size, r):
        calls.append(size)
        z = r.laplace(0.0, 1.0, size)
        far = np.abs(z) > 3.0
        z[far] = np.sign(z[far]) * r.uniform(3.0, 8.0, int(far.sum()))
        return x + z

    out = check_noise_law(_laplace_like(flat), 0.0, np.random.default_rng(18), samples=100_000)
    assert calls == [100_000]  # one batched call
    assert out.violated and out.details["subtests"]["tail_both_q=0.001"]["rejected"]


def test_noise_law_flags_wrong_selection_and_randomized_response():
    em = ExponentialMechanism(1.0, 1.0, 4)
    wrong = declare_mechanism(
        em.spec,
        statistic=em.statistic,
        sampler=lambda x, size, r: np.argmax(x + r.gumbel(0.0, 1.5, (size, x.size)), axis=1),
    )  # scale 1.5 instead of 2
    out = check_noise_law(wrong, [0.0, 1.0, 2.0, 3.0], np.random.default_rng(14), samples=50_000)
    assert out.violated and "chi_square" in out.details["rejected"]
    rr = RandomizedResponseMechanism(1.0, 3)
    biased = declare_mechanism(
        rr.spec, sampler=lambda x, size, r: rr.law.sample_given((x + 1) % 3, r, size)
    )  # reports a shifted category
    out = check_noise_law(biased, 0, np.random.default_rng(15), samples=20_000)
    assert out.violated


def test_noise_law_tiny_categorical_samples_use_the_exact_test():
    out = check_noise_law(
        RandomizedResponseMechanism(1.0, 2), 1, np.random.default_rng(16), samples=30
    )
    assert set(out.details["subtests"]) == {"exact_multinomial"}
    assert out.details["bonferroni_k"] == 1


def test_noise_law_flags_integer_laws_with_the_wrong_scale():
    mech = DiscreteLaplaceMechanism(1.0, 2)  # scale 2
    wrong = declare_mechanism(
        mech.spec,
        statistic=mech.statistic,
        sampler=lambda x, size, r: x + r.geometric(0.5, size) - r.geometric(0.5, size),
    )
    out = check_noise_law(wrong, 0, np.random.default_rng(17), samples=100_000)
    assert out.violated and out.details["subtests"]["chi_square"]["rejected"]


def test_noise_law_skips_without_noise_hooks_or_smooth_noise():
    blind = declare_mechanism(_laplace_mean().spec, sampler=lambda x, size, r: np.zeros(size))
    out = check_noise_law(blind, DATA, np.random.default_rng(0), samples=100)
    assert out.status == "skipped" and "statistic" in out.summary
    mech = smooth_median_mechanism(3, 0.0, 1.0, 1.0)
    # three equal records far from the bounds still have S > 0; S = 0 needs a zero bound
    zero = smooth_inverse_quartic_mechanism(
        mech.statistic,
        lambda x: 0.0,
        1.0,
        input_domain=mech.spec.input_domain,
        relation=SubstituteOne(),
    )
    out = check_noise_law(zero, [0.5, 0.5, 0.5], np.random.default_rng(0), samples=100)
    assert out.status == "skipped" and "S(x) = 0" in out.summary
    with pytest.raises(InvalidParameterError):
        check_noise_law(_laplace_mean(), DATA, 0, samples=0)
    with pytest.raises(InvalidParameterError):
        check_noise_law(_laplace_mean(), DATA, 0, alpha=1.5)


#: Seeds verified once; for independent seeds P(Binomial(20, 0.01) ≥ 3) = 1.0e-3 bounds the
#: chance that a correct mechanism is flagged 3 or more times.
FALSE_ALARM_SEEDS = list(range(1000, 1020))


def test_noise_law_false_alarm_rate_on_a_correct_laplace():
    """20 seeds at α = 0.01: at most 2 flags (P[≥ 3 flags] ≤ 1.0e-3 for fresh seeds)."""
    mech = LaplaceMechanism(1.0, 1.0)
    flags = sum(
        check_noise_law(mech, 0.0, np.random.default_rng(s), samples=100_000, alpha=0.01).violated
        for s in FALSE_ALARM_SEEDS
    )
    assert flags <= 2


def test_outcomes_round_trip_through_json(rng):
    outs: list[CheckOutcome] = [
        check_noise_law(_truncated_laplace(4.0), 0.0, np.random.default_rng(1), samples=20_000),
        check_spec_consistency(_laplace_mean()),
        *check_smooth_sensitivity(
            _median_with_smooth(_median_ls)[0], rng, inputs=[DATA], pairs=[], budget=100
        ),
    ]
    for out in outs:
        assert CheckOutcome.from_json(out.to_json()) == out


# ----------------------------------------------------------------------------------------
# large samples: the binned probability-integral transform (no full sort)
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "law", [Laplace(scale=1.0), Gaussian(sigma=3.7)], ids=["laplace", "gaussian"]
)
def test_binned_statistics_are_lower_bounds_close_to_the_exact_ones(law):
    """D_lb ≤ D and A²_lb ≤ A² (so the binned p-values are conservative), within 1 % of D
    and 0.2 of A² on 3·10⁵ draws; tail counts are exact.  Deterministic (seeded)."""
    from privaudit.auditing.checks._gof import (
        BinnedSample,
        SortedCounter,
        anderson_darling_test,
        ks_test,
    )

    for seed, stretch in ((0, 1.0), (1, 1.01)):
        z = np.asarray(law.sample(np.random.default_rng(seed), 300_000)) * stretch
        binned = BinnedSample(z, law)
        zs = np.sort(z)
        cdf, sf = law.cdf(zs), law.sf(zs)
        exact_ks, exact_ad = ks_test(cdf), anderson_darling_test(np.log(cdf), np.log(sf))
        ks, ad = binned.ks(), binned.ad()
        assert ks.statistic <= exact_ks.statistic + 1e-12
        assert ks.statistic >= 0.99 * exact_ks.statistic
        assert ad.statistic <= exact_ad.statistic + 1e-9
        assert ad.statistic >= exact_ad.statistic - 0.2
        assert ks.p_value >= exact_ks.p_value and ad.p_value >= exact_ad.p_value
        counter = SortedCounter(zs)
        for t in (float(law.ppf(0.001)), float(law.ppf(0.3)), float(law.ppf(0.9999))):
            assert binned.count_le(t) == counter.count_le(t)
            assert binned.count_gt(t) == counter.count_gt(t)
    assert not binned.support_failure()


def test_binned_path_flags_a_scale_error_and_impossible_draws():
    """10⁶ draws of Laplace(0.99) against Laplace(1): the binned KS rejects at 10⁻³ (D ≈
    3.7·10⁻³ against a critical 1.9·10⁻³); a draw of probability zero under a one-sided
    law gives A² = inf and p = 0."""
    from privaudit.auditing.checks._gof import BinnedSample

    z = np.random.default_rng(2).laplace(0.0, 0.99, 1_000_000)
    assert BinnedSample(z, Laplace(scale=1.0)).ks().p_value < 1e-3
    expo = Exponential(scale=1.0)
    z = np.abs(np.random.default_rng(3).exponential(1.0, 300_000))
    z[5] = -1.0
    binned = BinnedSample(z, expo)
    assert binned.support_failure()
    ad = binned.ad()
    assert ad.statistic == math.inf and ad.p_value == 0.0


def test_two_sided_binomial_doubles_the_smaller_tail():
    from scipy import stats

    from privaudit.auditing.checks._gof import binomial_two_sided

    assert binomial_two_sided(50, 100, 0.5) == 1.0
    p = binomial_two_sided(30, 100, 0.5)
    assert p == pytest.approx(2 * stats.binom.cdf(30, 100, 0.5))
    # valid: its exact rejection probability at level 0.05 (all outcomes enumerated) is
    # at most 0.05
    k = np.arange(201)
    rejected = np.array([binomial_two_sided(int(i), 200, 0.1) <= 0.05 for i in k])
    assert float(stats.binom.pmf(k, 200, 0.1)[rejected].sum()) <= 0.05


def test_noise_law_on_a_million_draws_uses_the_binned_transform():
    """Above 2¹⁷ draws the continuous battery runs on the binned PIT (same sub-tests).
    Correct Laplace at α = 0.01: a false rejection has probability ≤ 0.01 (seed fixed)."""
    out = check_noise_law(
        LaplaceMechanism(1.0, 1.0), 0.0, np.random.default_rng(21), samples=1_000_000, alpha=0.01
    )
    assert out.status == "passed", out.summary
    sub = out.details["subtests"]
    assert sub["ks"]["method"].startswith("binned") and sub["anderson_darling"][
        "method"
    ].startswith("binned")
    assert "tail_both_q=0.0001" in sub


# ----------------------------------------------------------------------------------------
# every guarantee kind declared through declare_mechanism (a wrapper's unset attribute)
# ----------------------------------------------------------------------------------------
def _declared(guarantee, law, rho=None):
    from privaudit.spec import AdditiveNoise, GlobalSensitivity, MechanismSpec, RealInterval
    from privaudit.spec.domains import VectorDomain
    from privaudit.spec.relations import QueryDistance

    spec = MechanismSpec(
        name=f"declared_{guarantee.kind}",
        input_domain=VectorDomain(element=RealInterval(lo=-10.0, hi=10.0), length=1),
        relation=QueryDistance(radius=1.0, norm="l2"),
        statistic="the query value",
        sensitivity=(GlobalSensitivity(value=1.0, norm="l2"),),
        noise=AdditiveNoise(law=law),
        guarantee=guarantee,
    )
    scale = law.scale if isinstance(law, Laplace) else law.sigma
    draw = rng_laplace if isinstance(law, Laplace) else rng_normal
    return declare_mechanism(
        spec,
        sampler=lambda x, size, rng: float(x[0]) + draw(rng, scale, size),
        statistic=lambda x: float(x[0]),
        rho=rho,
    )


def rng_laplace(rng, scale, size):
    return rng.laplace(0.0, scale, size)


def rng_normal(rng, scale, size):
    return rng.normal(0.0, scale, size)


def _every_guarantee_kind():
    from privaudit.spec import ApproxDP, Gaussian, GaussianDP, PureDP, RenyiDP, ZeroConcentratedDP

    gaussian = Gaussian(sigma=1.0)  # sensitivity 1 in l2
    return [
        (PureDP(epsilon=1.0), Laplace(scale=1.0)),
        (ApproxDP(epsilon=1.0, delta=1e-6), Laplace(scale=1.0)),
        (ZeroConcentratedDP(rho=0.5), gaussian),  # ρ = Δ²/(2σ²)
        (GaussianDP(mu=1.0), gaussian),  # μ = Δ/σ
        (RenyiDP(alpha=2.0, epsilon=1.0), gaussian),  # ε(α) = αΔ²/(2σ²)
    ]


@pytest.mark.parametrize(
    "guarantee, law", _every_guarantee_kind(), ids=lambda g: getattr(g, "kind", "")
)
def test_spec_consistency_ignores_a_declared_wrappers_unset_attributes(guarantee, law):
    """A ``declare_mechanism`` wrapper has ``rho`` (its public randomness, ``None`` here): not
    the ρ of a zCDP claim, and an unset attribute is no claim at all."""
    out = check_spec_consistency(_declared(guarantee, law))
    assert out.status == "passed", out.summary
    assert "rho" not in out.details["compared"]


def test_public_randomness_named_rho_is_never_compared_with_a_zcdp_rho():
    from privaudit.spec import Gaussian, ZeroConcentratedDP

    mech = _declared(ZeroConcentratedDP(rho=0.5), Gaussian(sigma=1.0), rho=np.arange(4.0))
    out = check_spec_consistency(mech)
    assert out.status == "passed", out.summary


@pytest.mark.parametrize(
    "guarantee, law", _every_guarantee_kind(), ids=lambda g: getattr(g, "kind", "")
)
def test_a_correct_declared_mechanism_of_every_guarantee_kind_passes_its_audit(guarantee, law):
    from privaudit import audit

    report = audit(_declared(guarantee, law), samples=20_000, seed=3)
    assert report.check("spec.consistency").status == "passed"
    assert report.verdict != "violation", report.summary()


# ----------------------------------------------------------------------------------------
# monotone scores of noisy argmax: declared under add/remove-one, checked on neighbours
# ----------------------------------------------------------------------------------------
def _histogram_argmax(categories, relation, statistic):
    from privaudit.spec import (
        DatasetDomain,
        GlobalSensitivity,
        Gumbel,
        MechanismSpec,
        NoisyArgmax,
        PureDP,
    )
    from privaudit.spec.domains import Categorical

    spec = MechanismSpec(
        name="argmax_of_counts",
        input_domain=DatasetDomain(record=Categorical(size=categories), min_size=1),
        relation=relation,
        statistic="count of each category",
        sensitivity=(GlobalSensitivity(value=1.0, norm="linf"),),
        noise=NoisyArgmax(law=Gumbel(scale=1.0), monotone=True),
        guarantee=PureDP(epsilon=1.0),
    )

    def sampler(x, size, rng):
        scores = statistic(x)
        noisy = scores[None, :] + rng.gumbel(0.0, 1.0, (size, scores.size))
        return noisy.argmax(axis=1)

    return declare_mechanism(spec, sampler=sampler, statistic=statistic)


@pytest.mark.parametrize("categories", [3, 7])
def test_counting_scores_are_monotone_under_add_remove_one(categories, rng):
    from privaudit.spec.relations import AddRemoveOne

    def counts(x):
        return np.bincount(np.asarray(x, dtype=np.int64), minlength=categories).astype(float)

    mech = _histogram_argmax(categories, AddRemoveOne(), counts)  # accepted: counts rise together
    out = check_global_sensitivity(mech, rng, pairs=[], search_budget=60)
    assert out.status == "passed", out.summary


@pytest.mark.parametrize("categories, up, down", [(3, 0, 2), (6, 4, 1)])
def test_scores_moving_both_ways_refute_a_monotone_claim(categories, up, down, rng):
    """Scores that are not counts (one category's count is subtracted from another's)
    move both ways when a record is added: the check finds the pair."""
    from privaudit.spec.relations import AddRemoveOne

    def scores(x):
        c = np.bincount(np.asarray(x, dtype=np.int64), minlength=categories).astype(float)
        c[up] -= c[down] / 2.0
        return c

    mech = _histogram_argmax(categories, AddRemoveOne(), scores)
    out = check_global_sensitivity(mech, rng, pairs=[], search_budget=60)
    assert out.violated
    assert "move the same way" in out.summary
    assert out.counterexample is not None


def test_a_monotone_claim_under_substitute_one_is_refused_with_the_reason():
    from privaudit.spec.errors import NonMonotoneRelationError
    from privaudit.spec.relations import SubstituteOne

    with pytest.raises(NonMonotoneRelationError, match="substituting a record"):
        _histogram_argmax(3, SubstituteOne(), lambda x: np.zeros(3))
