"""Extra quality cases: broken mechanisms the public suites miss, and correct controls.

:func:`broken_cases` holds mechanisms whose spec the validator accepts while the code, or a
claim it cannot see, is wrong: an under-declared sensitivity, a Laplace scale that follows
the data's range, the Curator Attack's truncated Laplace (Wang et al., CCS 2024), and the
classical Gaussian σ outside the theorem's range (in fact private at ε = 2, so an auditor
must not flag it; not at ε = 10).  :func:`control_cases` holds the library's correct
mechanisms, each with true ε equal to its claim (≤ it for the analytic Gaussian).  The
rare-leak cases (:func:`delta_broken_cases`, :func:`delta_control_cases`) live in
:mod:`privaudit.suites._rare_leaks` and are re-exported here.

Details (each case and its true ε): ``docs/engine_notes.md``, "privaudit.suites.broken".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.optimize import brentq

from privaudit.mechanisms import (
    AdditiveNoiseMechanism,
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponseMechanism,
)
from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    DatasetDomain,
    Gaussian,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    QueryDistance,
    RealInterval,
    Reference,
    SubstituteOne,
)
from privaudit.spec.errors import InconsistentSpecError, InvalidParameterError
from privaudit.suites._base import BenchmarkCase
from privaudit.suites._rare_leaks import (
    LeakyClampMean,
    NoiselessFallbackMean,
    RareRawMean,
    delta_broken_cases,
    delta_control_cases,
)

__all__ = [
    "CuratorTruncatedLaplace",
    "LeakyClampMean",
    "NoiselessFallbackMean",
    "RangeScaledLaplaceMean",
    "RareRawMean",
    "UnscaledGaussian",
    "broken_cases",
    "classical_gaussian_sigma_unchecked",
    "control_cases",
    "delta_broken_cases",
    "delta_control_cases",
    "epsilon_at_delta",
]

WANG_2024 = Reference(
    citation="Wang, Xiang, Cheng, Ji, Sun & Wang, 'Curator attack: when blackbox "
    "differential privacy auditing loses its power', ACM CCS 2024",
    url="https://arxiv.org/abs/2411.16516",
)
DWORK_ROTH_2014 = Reference(
    citation="Dwork & Roth, 'The algorithmic foundations of differential privacy', 2014",
    locator="Theorem A.1 (classical Gaussian calibration, valid for epsilon < 1)",
)
BALLE_WANG_2018 = Reference(
    citation="Balle & Wang, 'Improving the Gaussian mechanism for differential privacy: "
    "analytical calibration and optimal denoising', ICML 2018",
    locator="Theorem 8 (exact privacy profile)",
    url="https://arxiv.org/abs/1805.06530",
)

_SOURCE = "privaudit quality suite (privaudit/suites/broken.py)"


def _identity(x: Any) -> float:
    return float(x)


def _total(x: Any) -> float:
    return float(np.sum(x))


def classical_gaussian_sigma_unchecked(epsilon: float, delta: float, sensitivity: float) -> float:
    """Δ√(2 ln(1.25/δ))/ε for any ε > 0, including ε ≥ 1 where the theorem does not hold."""
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def epsilon_at_delta(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest ε with δ(ε) ≤ ``delta`` on the exact Balle–Wang profile of N(0, σ²).

    Parameters
    ----------
    sigma : float
        Noise standard deviation.
    delta : float
        Target δ in (0, 1).
    sensitivity : float
        ℓ2 sensitivity Δ.

    Returns
    -------
    float
        The root of ``Gaussian(sigma).privacy_profile(ε, Δ) = delta`` (0 when δ(0) ≤ δ).

    References
    ----------
    Balle & Wang, ICML 2018, Theorem 8.
    """
    law = Gaussian(sigma=sigma)
    if not 0.0 < delta < 1.0:
        raise InvalidParameterError(f"delta must lie in (0, 1), got {delta!r}")

    def excess(eps: float) -> float:
        return law.privacy_profile(eps, sensitivity) - delta

    if excess(0.0) <= 0.0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0.0:
        hi *= 2.0
    return float(brentq(excess, 0.0, hi, xtol=1e-13, rtol=1e-13))


class RangeScaledLaplaceMean(Mechanism):
    """Mean of n records in [0, 1] plus Laplace noise scaled by the *observed* range.

    Parameters
    ----------
    epsilon : float
        The claimed ε.
    n : int
        The public number of records.

    Notes
    -----
    The spec declares the correct law Laplace(1/(nε)) for a mean of sensitivity 1/n;
    the code draws Laplace((max D − min D)/(nε)), a data-dependent scale ("the records
    only span their range").  True ε = ∞: with a constant dataset the output is the
    mean exactly (a point mass); and whenever neighbours have different ranges the two
    Laplace laws have different decay rates, so the log density ratio grows without
    bound in the tails.  Output ``float64`` of shape ``(N,)``.

    References
    ----------
    Nissim, Raskhodnikova & Smith, "Smooth sensitivity and sampling in private data
    analysis", STOC 2007, Section 1.2 (why noise proportional to local sensitivity
    leaks); ``privaudit/suites/broken.py``.
    """

    def __init__(self, epsilon: float = 1.0, n: int = 5) -> None:
        self.epsilon, self.n = float(epsilon), int(n)
        spec = MechanismSpec(
            name="broken.range_scaled_mean",
            summary="mean of n records in [0, 1] plus Laplace noise of scale 1/(n epsilon)",
            input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=self.n),
            relation=SubstituteOne(),
            statistic="mean of the records",
            sensitivity=(GlobalSensitivity(value=1.0 / self.n),),
            noise=AdditiveNoise(
                law=Laplace(scale=1.0 / (self.n * self.epsilon)), calibration="exact"
            ),
            guarantee=PureDP(epsilon=self.epsilon),
        )
        super().__init__(spec)

    def statistic(self, data: Any) -> float:
        return float(np.mean(self.validate_input(data)))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        scale = float(np.ptp(data)) / (self.n * self.epsilon)
        return float(np.mean(data)) + scale * rng.laplace(0.0, 1.0, size)


class CuratorTruncatedLaplace(Mechanism):
    """One query answer plus Laplace(1/ε) noise cut at ±k·b, its tail mass spread inside.

    Parameters
    ----------
    epsilon : float
        The claimed ε; b = 1/ε.
    k : float
        The cut, in units of b: the noise is Laplace(b) conditioned on |Z| ≤ k·b (the
        removed mass e^{−k} is redistributed proportionally over [−kb, kb]).

    Notes
    -----
    Declared as the honest Laplace(1/ε) mechanism.  Inside the support the density
    ratio is still at most e^ε, but the supports [q − kb, q + kb] and
    [q′ − kb, q′ + kb] differ, so the event (q − kb, q′ − kb) has positive probability
    under q only: true ε = ∞.  Sampled exactly by the inverse CDF on the truncated
    range.  Output ``float64`` of shape ``(N,)``.

    References
    ----------
    Wang, Xiang, Cheng, Ji, Sun & Wang, "Curator attack: when blackbox differential
    privacy auditing loses its power", ACM CCS 2024; ``privaudit/suites/broken.py``.
    """

    def __init__(self, epsilon: float = 1.0, k: float = 6.0) -> None:
        self.epsilon, self.k = float(epsilon), float(k)
        if not self.k > 0:
            raise InvalidParameterError(f"k must be > 0, got {k!r}")
        self.law = Laplace(scale=1.0 / self.epsilon)
        spec = MechanismSpec(
            name="broken.curator_truncated_laplace",
            summary="one query answer plus Laplace noise of scale 1/epsilon",
            references=(WANG_2024,),
            input_domain=RealInterval(),
            relation=QueryDistance(norm="l1", radius=1.0),
            statistic="identity: the query answer (sensitivity 1)",
            sensitivity=(GlobalSensitivity(value=1.0),),
            noise=AdditiveNoise(law=self.law, calibration="exact"),
            guarantee=PureDP(epsilon=self.epsilon),
        )
        super().__init__(spec)
        self._low = float(self.law.cdf(-self.k * self.law.scale))

    @property
    def removed_mass(self) -> float:
        """Probability mass of the declared law beyond ±k·b (e^{−k})."""
        return 2.0 * self._low

    def statistic(self, data: Any) -> float:
        return float(self.validate_input(data))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        u = rng.uniform(self._low, 1.0 - self._low, size)
        return float(data) + np.asarray(self.law.ppf(u), dtype=np.float64)


class UnscaledGaussian(Mechanism):
    """A query answer plus N(0, σ²), declared as a black box (noise not stated).

    Parameters
    ----------
    sigma : float
        The noise standard deviation actually used.
    epsilon, delta : float
        The claimed (ε, δ).
    name : str
        The spec's name.

    Notes
    -----
    Used when the σ behind a claim is one the spec validator would refuse (its exact
    profile exceeds the claimed δ): the claim is then kept without a noise declaration,
    as a buggy library would publish it.  Output ``float64`` of shape ``(N,)``.

    References
    ----------
    Balle & Wang, ICML 2018 (exact profile); Dwork & Roth 2014, Theorem A.1.
    """

    def __init__(self, sigma: float, epsilon: float, delta: float, *, name: str) -> None:
        self.sigma = float(sigma)
        spec = MechanismSpec(
            name=name,
            summary="one query answer plus Gaussian noise",
            references=(DWORK_ROTH_2014, BALLE_WANG_2018),
            input_domain=RealInterval(),
            relation=QueryDistance(norm="l2", radius=1.0),
            statistic="identity: the query answer (sensitivity 1)",
            sensitivity=(GlobalSensitivity(value=1.0, norm="l2"),),
            guarantee=ApproxDP(epsilon=epsilon, delta=delta),
        )
        super().__init__(spec)

    def statistic(self, data: Any) -> float:
        return float(self.validate_input(data))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return float(data) + self.sigma * rng.standard_normal(size)


def _underdeclared_sum(epsilon: float, n: int) -> AdditiveNoiseMechanism:
    spec = MechanismSpec(
        name="broken.sum_underdeclared_sensitivity",
        summary="sum of n records in [0, 2] plus Laplace noise of scale 1/epsilon",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=2.0), size=n),
        relation=SubstituteOne(),
        statistic="sum of the records (each in [0, 2])",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0 / epsilon), calibration="manual"),
        guarantee=PureDP(epsilon=epsilon),
    )
    return AdditiveNoiseMechanism(spec, statistic=_total)


def _classical_gaussian(epsilon: float, delta: float) -> AdditiveNoiseMechanism:
    sigma = classical_gaussian_sigma_unchecked(epsilon, delta, 1.0)
    spec = MechanismSpec(
        name="broken.gaussian_classical_eps2",
        summary="one query answer plus Gaussian noise, sigma from the classical formula",
        references=(DWORK_ROTH_2014, BALLE_WANG_2018),
        input_domain=RealInterval(),
        relation=QueryDistance(norm="l2", radius=1.0),
        statistic="identity: the query answer (sensitivity 1)",
        sensitivity=(GlobalSensitivity(value=1.0, norm="l2"),),
        noise=AdditiveNoise(law=Gaussian(sigma=sigma), calibration="manual"),
        guarantee=ApproxDP(epsilon=epsilon, delta=delta),
        notes=f"sigma = sqrt(2 ln(1.25/delta))/epsilon = {sigma:.6g} at epsilon = {epsilon:g}, "
        "outside the classical theorem's epsilon < 1; declared 'manual'.",
    )
    return AdditiveNoiseMechanism(spec, statistic=_identity)


def broken_cases() -> tuple[BenchmarkCase, ...]:
    """The extra broken cases (and one that only looks broken), each with its true ε.

    Returns
    -------
    tuple of BenchmarkCase
        ``broken.sum_underdeclared_sensitivity``, ``broken.range_scaled_mean``,
        ``broken.curator_truncated_laplace``, ``broken.gaussian_classical_eps2``,
        ``broken.gaussian_classical_eps10``.

    References
    ----------
    Wang et al., "Curator attack", CCS 2024; Dwork & Roth 2014, Theorem A.1; Balle &
    Wang, ICML 2018; ``privaudit/suites/broken.py``.
    """
    eps, n, delta = 1.0, 5, 1e-5
    zeros, twos = np.zeros(n), np.full(n, 2.0)
    sigma2 = classical_gaussian_sigma_unchecked(2.0, delta, 1.0)
    sigma10 = classical_gaussian_sigma_unchecked(10.0, delta, 1.0)
    true2, true10 = epsilon_at_delta(sigma2, delta), epsilon_at_delta(sigma10, delta)
    curator = CuratorTruncatedLaplace(eps, k=6.0)
    return (
        BenchmarkCase(
            name="broken.sum_underdeclared_sensitivity",
            mechanism=_underdeclared_sum(eps, n),
            true_epsilon=2.0 * eps,
            claimed_epsilon=eps,
            input_pairs=(
                (zeros, np.array([2.0, 0, 0, 0, 0])),
                (twos, np.array([0.0, 2, 2, 2, 2])),
                (np.array([0.0, 1, 2, 1, 0]), np.array([2.0, 1, 2, 1, 0])),
            ),
            source=_SOURCE,
            notes="Statistic: sum of 5 records in [0, 2] under substitute-one, true "
            "sensitivity 2; declared 1 and calibrated Laplace(1/eps). The log density "
            "ratio reaches 2/b = 2 eps for a substitution 0 <-> 2: true eps = 2 * claim. "
            "The spec is self-consistent; the gray-box check of the statistic on the "
            "pairs finds |f(D) - f(D')| = 2 > 1.",
        ),
        BenchmarkCase(
            name="broken.range_scaled_mean",
            mechanism=RangeScaledLaplaceMean(eps, n),
            true_epsilon=math.inf,
            claimed_epsilon=eps,
            input_pairs=(
                (np.full(n, 0.5), np.array([1.0, 0.5, 0.5, 0.5, 0.5])),
                (np.array([0.0, 0.25, 0.5, 0.75, 1.0]), np.array([0.5, 0.25, 0.5, 0.75, 1.0])),
            ),
            source=_SOURCE,
            notes="Noise scale (max - min)/(n eps) instead of the declared 1/(n eps). "
            "Constant data (first pair) release the mean exactly: P(out = 0.5) = 1 "
            "under D and 0 under D'. Different ranges (second pair: 1 vs 0.75) give "
            "Laplace laws of different rates, whose log density ratio grows linearly "
            "in |y|. Not DP for any finite eps.",
        ),
        BenchmarkCase(
            name="broken.curator_truncated_laplace",
            mechanism=curator,
            true_epsilon=math.inf,
            claimed_epsilon=eps,
            input_pairs=((0.0, 1.0), (1.0, 0.0)),
            source="Wang, Xiang, Cheng, Ji, Sun & Wang, 'Curator attack: when blackbox "
            "differential privacy auditing loses its power', ACM CCS 2024 "
            "(arXiv 2411.16516); " + _SOURCE,
            notes=f"Laplace(1/eps) truncated at +-{curator.k:g} b, the removed mass e^-k = "
            f"{curator.removed_mass:.3g} spread proportionally inside. The density ratio "
            "inside both supports is still <= e^eps, but for q = 0, q' = 1 the event "
            "(-k b, 1 - k b) has probability > 0 under q and 0 under q': true eps = inf. "
            "Black-box audits rarely see the tail; the noise-law conformance check "
            "(the missing tail beyond +-k b) is meant to catch it.",
        ),
        BenchmarkCase(
            name="broken.gaussian_classical_eps2",
            mechanism=_classical_gaussian(2.0, delta),
            true_epsilon=true2,
            claimed_epsilon=2.0,
            claimed_delta=delta,
            input_pairs=((0.0, 1.0), (1.0, 0.0)),
            source="Dwork & Roth 2014, Theorem A.1; Balle & Wang, ICML 2018, Theorem 8; " + _SOURCE,
            notes=f"sigma = sqrt(2 ln(1.25/delta))/eps = {sigma2:.6g} at eps = 2 (the classical "
            "calibration, proved only for eps < 1). The exact Balle-Wang profile gives "
            f"delta(2) = {Gaussian(sigma=sigma2).privacy_profile(2.0, 1.0):.3g} <= 1e-5, "
            f"and delta(eps) = 1e-5 at eps = {true2:.6f} (root of the profile): the "
            "mechanism IS (2, 1e-5)-DP. A false-alarm control: outside the theorem is "
            "not the same as broken.",
        ),
        BenchmarkCase(
            name="broken.gaussian_classical_eps10",
            mechanism=UnscaledGaussian(
                sigma10, 10.0, delta, name="broken.gaussian_classical_eps10"
            ),
            true_epsilon=true10,
            claimed_epsilon=10.0,
            claimed_delta=delta,
            input_pairs=((0.0, 1.0), (1.0, 0.0)),
            source="Dwork & Roth 2014, Theorem A.1; Balle & Wang, ICML 2018, Theorem 8; " + _SOURCE,
            notes=f"sigma = sqrt(2 ln(1.25/delta))/eps = {sigma10:.6g} at eps = 10. Exact "
            f"profile: delta(10) = {Gaussian(sigma=sigma10).privacy_profile(10.0, 1.0):.3g}"
            f" > 1e-5, and delta(eps) = 1e-5 only at eps = {true10:.6f}. Declared as a "
            "black box because the spec validator refuses the honest sigma.",
        ),
    )


def control_cases() -> tuple[BenchmarkCase, ...]:
    """Correct mechanisms of the library, each with true ε equal to its claim.

    Returns
    -------
    tuple of BenchmarkCase
        ``control.laplace`` (ε = 1, Δ = 1), ``control.gaussian_analytic`` ((1, 1e-5),
        Δ = 1), ``control.randomized_response`` (binary, ε = 1),
        ``control.discrete_laplace`` (ε = 1, Δ = 1).

    References
    ----------
    Dwork, McSherry, Nissim & Smith, TCC 2006; Balle & Wang, ICML 2018; Warner, JASA
    1965; Ghosh, Roughgarden & Sundararajan, STOC 2009 (``mechanisms/additive.py``,
    ``mechanisms/randomized_response.py``).
    """
    gauss = GaussianMechanism(1.0, 1e-5, 1.0, name="control.gaussian_analytic")
    law = gauss.noise_law
    if not isinstance(law, Gaussian):
        raise InconsistentSpecError(f"{gauss.spec.name}: expected Gaussian noise, got {law!r}")
    sigma = law.sigma
    gauss_true = epsilon_at_delta(sigma, 1e-5)
    source = "privaudit mechanisms/{}"
    return (
        BenchmarkCase(
            name="control.laplace",
            mechanism=LaplaceMechanism(1.0, 1.0, name="control.laplace"),
            true_epsilon=1.0,
            claimed_epsilon=1.0,
            input_pairs=((0.0, 1.0), (1.0, 0.0)),
            source=source.format("additive.py (LaplaceMechanism)"),
            notes="Laplace(1/eps), sensitivity 1: eps-DP exactly.",
        ),
        BenchmarkCase(
            name="control.gaussian_analytic",
            mechanism=gauss,
            true_epsilon=gauss_true,
            claimed_epsilon=1.0,
            claimed_delta=1e-5,
            input_pairs=((0.0, 1.0), (1.0, 0.0)),
            source=source.format("additive.py (GaussianMechanism, analytic calibration)"),
            notes=f"Analytic calibration (Balle & Wang): sigma = {sigma:.6g}; the exact profile "
            f"meets delta = 1e-5 at eps = {gauss_true:.9f} (<= 1 up to the calibration's "
            "safe-side rounding).",
        ),
        BenchmarkCase(
            name="control.randomized_response",
            mechanism=RandomizedResponseMechanism(1.0, 2, name="control.randomized_response"),
            true_epsilon=1.0,
            claimed_epsilon=1.0,
            input_pairs=((0, 1), (1, 0)),
            source=source.format("randomized_response.py (RandomizedResponseMechanism)"),
            notes="Warner's binary randomized response with keep probability e/(1 + e): "
            "eps-DP exactly in the local model.",
        ),
        BenchmarkCase(
            name="control.discrete_laplace",
            mechanism=DiscreteLaplaceMechanism(1.0, 1, name="control.discrete_laplace"),
            true_epsilon=1.0,
            claimed_epsilon=1.0,
            input_pairs=((0, 1), (1, 0)),
            source=source.format("additive.py (DiscreteLaplaceMechanism)"),
            notes="Discrete Laplace with P(k) proportional to exp(-eps |k|), sensitivity 1: "
            "eps-DP exactly.",
        ),
    )
