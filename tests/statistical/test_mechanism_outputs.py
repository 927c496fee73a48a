"""The outputs of the built-in mechanisms follow the laws their specs declare.

Every test is seeded, so it is deterministic; each states its significance level α and
fails when the goodness-of-fit p-value falls below it.  A correct sampler fails a given
test with probability α over seeds; a mis-scaled one fails with high probability.

* additive mechanisms: the residuals ``output − statistic`` against the spec's noise law
  (Kolmogorov–Smirnov for continuous laws, χ² for discrete ones, both samplers);
* smooth-sensitivity mechanisms: ``(output − f(D)) / (S(D)/a)`` against the standardised
  law;
* randomized response: output frequencies against ``pmf_given``;
* the exponential mechanism: frequencies against softmax(ε q / (2Δ));
* report noisy max: frequencies against the exact selection probabilities
  ∫ f(z) Π_{j≠i} F(q_i − q_j + z) dz (numerical integration), which for exponential noise
  are the permute-and-flip probabilities.

The runs marked ``slow`` repeat the continuous checks with 10⁶ samples.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from privaudit.mechanisms import (
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponseMechanism,
    ReportNoisyMax,
    smooth_median_mechanism,
)

ALPHA = 1e-4


# ---- helpers --------------------------------------------------------------------------------
def ks_pvalue(sample: np.ndarray, law) -> float:
    """Kolmogorov–Smirnov p-value of ``sample`` against the law's exact CDF."""
    return float(stats.kstest(np.ravel(sample), lambda x: law.cdf(x)).pvalue)


def chi2_integer_pvalue(sample: np.ndarray, law, min_expected: float = 5.0) -> float:
    """χ² p-value of an integer ``sample`` against a discrete law (sparse cells pooled)."""
    values = np.ravel(sample).astype(np.int64)
    n = values.size
    lo = int(law.ppf(1e-3))
    hi = int(law.ppf(1 - 1e-3))
    ks = np.arange(lo, hi + 1)
    probs = np.concatenate(
        [[float(law.cdf(lo - 1))], np.asarray(law.density(ks)), [float(law.sf(hi))]]
    )
    inside = values[(values >= lo) & (values <= hi)]
    counts = np.concatenate(
        [
            [np.sum(values < lo)],
            np.bincount(inside - lo, minlength=hi - lo + 1),
            [np.sum(values > hi)],
        ]
    )
    return _chi2(counts, probs * n, min_expected)


def _chi2(counts: np.ndarray, expected: np.ndarray, min_expected: float = 5.0) -> float:
    """χ² p-value after merging adjacent cells until each expects ≥ ``min_expected``."""
    merged_c, merged_e, acc_c, acc_e = [], [], 0.0, 0.0
    for c, e in zip(counts, expected, strict=True):
        acc_c += c
        acc_e += e
        if acc_e >= min_expected:
            merged_c.append(acc_c)
            merged_e.append(acc_e)
            acc_c = acc_e = 0.0
    if acc_e > 0:
        merged_c[-1] += acc_c
        merged_e[-1] += acc_e
    c, e = np.array(merged_c), np.array(merged_e)
    return float(stats.chisquare(c, e * c.sum() / e.sum()).pvalue)


def frequency_pvalue(indices: np.ndarray, probs: np.ndarray) -> float:
    """χ² p-value of categorical outcomes against their exact probabilities."""
    counts = np.bincount(indices, minlength=probs.size)
    assert counts.size == probs.size
    return _chi2(counts, probs * indices.size)


# ---- additive mechanisms ---------------------------------------------------------------------
CONTINUOUS = {
    "laplace": (lambda: LaplaceMechanism(0.7, 1.5), 2.0),
    "laplace_vector": (lambda: LaplaceMechanism(1.0, 2.0, output_dimension=3), [1.0, -2.0, 5.0]),
    "gaussian_analytic": (lambda: GaussianMechanism(1.0, 1e-5, 1.0), -3.0),
    "gaussian_classical_vector": (
        lambda: GaussianMechanism(0.5, 1e-6, 2.0, calibration="classical", output_dimension=2),
        [0.5, 0.25],
    ),
}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_residuals_follow_the_declared_law(name):
    """KS at α = 1e-4, 20 000 outputs (× d coordinates)."""
    build, x = CONTINUOUS[name]
    mech = build()
    out = mech.sample(x, 20_000, rng=11)
    resid = out - mech.statistic(x)
    assert ks_pvalue(resid, mech.spec.noise.law) > ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_residuals_follow_the_declared_law_large(name):
    """KS at α = 1e-4 with 10⁶ outputs."""
    build, x = CONTINUOUS[name]
    mech = build()
    out = mech.sample(x, 1_000_000, rng=12)
    assert ks_pvalue(out - mech.statistic(x), mech.spec.noise.law) > ALPHA


def test_ks_detects_a_wrong_scale():
    """The check has power: Laplace noise 10 % too small is caught at α = 1e-4."""
    mech = LaplaceMechanism(1.0, 1.0)
    resid = mech.sample(0.0, 20_000, rng=3) * 0.9
    assert ks_pvalue(resid, mech.spec.noise.law) < ALPHA


DISCRETE = {
    "discrete_laplace": (lambda n: DiscreteLaplaceMechanism(0.8, 2, numerics=n), 17),
    "discrete_laplace_vector": (
        lambda n: DiscreteLaplaceMechanism(1.5, 1, numerics=n, output_dimension=2),
        [3, -4],
    ),
    "discrete_gaussian": (lambda n: DiscreteGaussianMechanism(1.0, 1e-5, 1, numerics=n), -5),
    "discrete_gaussian_small_sigma": (
        lambda n: DiscreteGaussianMechanism(sensitivity=1, rho=2.0, numerics=n),
        0,
    ),
}


@pytest.mark.parametrize("numerics", ["idealized", "exact"])
@pytest.mark.parametrize("name", sorted(DISCRETE))
def test_discrete_residuals_follow_the_declared_law(name, numerics):
    """χ² at α = 1e-4: 20 000 outputs (vectorised sampler), 4 000 (exact sampler)."""
    build, x = DISCRETE[name]
    mech = build(numerics)
    size = 20_000 if numerics == "idealized" else 4_000
    out = mech.sample(x, size, rng=21)
    assert out.dtype == np.int64
    resid = out - mech.statistic(x)
    assert chi2_integer_pvalue(resid, mech.spec.noise.law) > ALPHA


# ---- smooth-sensitivity mechanisms --------------------------------------------------------------
@pytest.mark.parametrize("noise", ["laplace", "inverse_quartic"])
@pytest.mark.parametrize("size", [5, 101])
def test_smooth_median_standardised_residuals_follow_the_law(noise, size):
    """KS at α = 1e-4 on (output − median)/(S/a), 20 000 outputs."""
    delta = 1e-6 if noise == "laplace" else None
    mech = smooth_median_mechanism(size, -2.0, 3.0, 1.0, delta, noise=noise)
    x = np.random.default_rng(size).uniform(-2.0, 3.0, size)
    out = mech.sample(x, 20_000, rng=31)
    z = (out - mech.statistic(x)) / mech.noise_scale(x)
    assert ks_pvalue(z, mech.spec.noise.law) > ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("noise", ["laplace", "inverse_quartic"])
def test_smooth_median_standardised_residuals_large(noise):
    """KS at α = 1e-4 with 10⁶ outputs."""
    delta = 1e-6 if noise == "laplace" else None
    mech = smooth_median_mechanism(11, 0.0, 1.0, 0.5, delta, noise=noise)
    x = np.random.default_rng(0).uniform(0.0, 1.0, 11)
    out = mech.sample(x, 1_000_000, rng=32)
    z = (out - mech.statistic(x)) / mech.noise_scale(x)
    assert ks_pvalue(z, mech.spec.noise.law) > ALPHA


# ---- randomized response ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("epsilon", "categories", "x"),
    [(1.0, 2, 0), (1.0, 2, 1), (0.5, 3, 2), (2.0, 6, 4), (4.0, 10, 0)],
)
def test_randomized_response_frequencies_match_pmf_given(epsilon, categories, x):
    """χ² at α = 1e-4, 20 000 reports."""
    rr = RandomizedResponseMechanism(epsilon, categories)
    out = rr.sample(x, 20_000, rng=41)
    probs = np.asarray(rr.law.pmf_given(np.arange(categories), x))
    assert probs.sum() == pytest.approx(1.0)
    assert frequency_pvalue(out, probs) > ALPHA


# ---- selection ---------------------------------------------------------------------------------
SCORES = np.array([0.0, 1.0, 2.5, 2.0, -1.0])


@pytest.mark.parametrize("monotone", [False, True])
@pytest.mark.parametrize(("epsilon", "sensitivity"), [(1.0, 1.0), (2.0, 0.5), (0.3, 2.0)])
def test_exponential_mechanism_frequencies_are_the_softmax(epsilon, sensitivity, monotone):
    """χ² at α = 1e-4, 30 000 selections, against softmax(ε q/(2Δ)) (ε q/Δ when monotone)."""
    em = ExponentialMechanism(epsilon, sensitivity, SCORES.size, monotone=monotone)
    factor = 1.0 if monotone else 2.0
    w = np.exp(epsilon * (SCORES - SCORES.max()) / (factor * sensitivity))
    probs = w / w.sum()
    np.testing.assert_allclose(em.probabilities(SCORES), probs, rtol=1e-12)
    out = em.sample(SCORES, 30_000, rng=51)
    assert frequency_pvalue(out, probs) > ALPHA


def noisy_max_probabilities(scores: np.ndarray, law) -> np.ndarray:
    """P(argmax_i (q_i + Z_i) = i) = ∫ f(z) Π_{j≠i} F(q_i − q_j + z) dz, by quadrature."""
    probs = []
    lo, hi = float(law.ppf(1e-15)), float(law.ppf(1 - 1e-15))
    for i in range(scores.size):
        others = np.delete(scores, i)

        def integrand(z: float, i: int = i, others: np.ndarray = others) -> float:
            return float(law.density(z)) * float(np.prod(law.cdf(scores[i] - others + z)))

        kinks = sorted({float(s) for s in (others - scores[i]) if lo < s < hi} | {0.0})
        kinks = [k for k in kinks if lo < k < hi]
        value, _ = integrate.quad(
            integrand, lo, hi, points=kinks or None, limit=200, epsabs=1e-13, epsrel=1e-11
        )
        probs.append(value)
    return np.array(probs)


@pytest.mark.parametrize("monotone", [False, True])
@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_report_noisy_max_matches_the_exact_selection_probabilities(noise, monotone):
    """χ² at α = 1e-4, 30 000 selections; exponential noise gives permute-and-flip."""
    rnm = ReportNoisyMax(1.0, 1.0, SCORES.size, noise=noise, monotone=monotone)
    probs = noisy_max_probabilities(SCORES, rnm.noise_law)
    assert probs.sum() == pytest.approx(1.0, abs=1e-8)
    out = rnm.sample(SCORES, 30_000, rng=61)
    assert frequency_pvalue(out, probs / probs.sum()) > ALPHA


def permute_and_flip_probabilities(
    scores: np.ndarray,
    epsilon: float,
    sensitivity: float,
) -> np.ndarray:
    """Exact permute-and-flip (McKenna & Sheldon 2020) by enumerating all permutations.

    Candidates are visited in a uniformly random order; candidate r is accepted with
    probability exp(ε (q_r − q*)/(2Δ)) (the best one always is).
    """
    import itertools

    m = scores.size
    accept = np.exp(epsilon * (scores - scores.max()) / (2.0 * sensitivity))
    probs = np.zeros(m)
    perms = list(itertools.permutations(range(m)))
    for perm in perms:
        reach = 1.0
        for r in perm:
            probs[r] += reach * accept[r]
            reach *= 1.0 - accept[r]
    return probs / len(perms)


def test_exponential_noise_is_permute_and_flip():
    """Quadrature of report-noisy-max with Exp(2Δ/ε) equals enumerated permute-and-flip."""
    scores = np.array([0.0, 1.0, 2.5, 2.0])
    rnm = ReportNoisyMax(1.0, 1.0, scores.size, noise="exponential")
    np.testing.assert_allclose(
        noisy_max_probabilities(scores, rnm.noise_law),
        permute_and_flip_probabilities(scores, 1.0, 1.0),
        atol=1e-9,
    )
