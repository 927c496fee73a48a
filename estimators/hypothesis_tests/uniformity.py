"""Private uniformity testing: Algorithm A.4 of Chaudhuri, Loh, Pandey & Sarkar (2024).

Samples X_1, …, X_n are i.i.d. on the alphabet [m] (coded 0, …, m − 1) with probabilities
p; the collision probability θ = Σ_v p_v² = (1 + ‖a‖²/m)/m (Lemma A.19, p_v = (1 + a_v)/m)
separates

* H0 (approximately uniform, the tolerant null): ℓ2(p, U) ≤ δ/√(2m), θ ≤ (1 + δ²/2)/m;
* H1 (far): ℓ2(p, U) ≥ δ/√m, θ ≥ (1 + δ²)/m.

Algorithm A.4 (its box is lost; rebuilt in ``docs/derivations.md`` §4) estimates θ
privately with Algorithm 1 on the collision kernel h(x, y) = 1(x = y) (k = 2, C = 1) under
Wrapper 1 (f = all, failure α), with ξ the sum of the three explicit terms of Lemma A.21
(:func:`.uniformity_xi`, at the chunk size n_α), and rejects uniformity when the private
estimate exceeds the threshold:

* ``calibration="monte_carlo"`` (default): the exact null p = U(m) is fully specified, so
  the threshold is the Monte Carlo critical value of the private statistic's own null law
  at the data's n (:mod:`.monte_carlo`: B null data sets pushed through the same
  mechanism with fresh noise, p = (1 + #{T_b ≥ T})/(B + 1), reject when p ≤ α).  This
  test has level α at every n and every B;
* ``calibration="threshold"``, ``null="tolerant"``: (1 + 3δ²/4)/m, the midpoint of the
  tolerant null and H1;
* ``calibration="threshold"``, ``null="exact"``: (1 + δ²/2)/m, the midpoint of the exact
  null θ = 1/m and H1;
* or any public ``threshold`` (with ``calibration="threshold"``).

The fixed thresholds are Theorem 5's: they hold level α only once n_α is large enough
(the private noise and ξ then fall below the gap), and reject uniform data far more often
than α at small n (33–40 % at n = 100–300 for m = 10, α = 0.1, ε = 4, δ = 1; see
``docs/uniformity_power_study.md``).  The tolerant null is composite (θ ≤ (1 + δ²/2)/m
with p otherwise free), so it has no single null law to simulate; it keeps the threshold
rule.

``method="all_tuples"`` runs the baseline instead: Algorithm A.2 (CoinPress) on the
all-tuples family under the same Wrapper 1 (Proposition 1), whose private error O(1/(nε))
needs n = Ω(m/(δ²ε)) — quadratically worse in m than Theorem 5's Õ(m^{1/2}/min(δ², δε)).

Privacy: the private estimate is ε-DP under substitute-one (Algorithm 1 with the rigorous
smooth bound, (3 + 3^{3/4})β = ε, and parallel composition over the chunks); the decision
is post-processing.  The collision kernel's projections are computed from label counts,
O(n) per chunk (ĥ(i) = (c_{X_i} − 1)/(n_α − 1)).

References
----------
.. [1] Chaudhuri et al., NeurIPS 2024, Section 5.1, Algorithm A.4, Theorem 5, Lemmas A.19
   and A.21, Proposition 1; ``docs/derivations.md`` §4.
.. [2] Diakonikolas, Gouleakis, Peebles & Price, "Collision-based testers are optimal for
   uniformity and closeness", 2016 (the non-private collision tester).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Literal

import numpy as np

from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    Categorical,
    DatasetDomain,
    MechanismSpec,
    RandomLike,
    Reference,
    SubstituteOne,
    as_generator,
    check_epsilon,
)
from privaudit.spec.errors import (
    InvalidParameterError,
    ParameterTypeError,
    SampleSizeError,
    UnsupportedCombinationError,
)

from .._privacy_account import PrivacyAccount
from ..ustatistics import collision_kernel
from ..ustatistics.binary_coinpress import (
    BinaryCoinPressMechanism,
    binary_coinpress_chunks,
    sensitivity_claim,
)
from ..ustatistics.coinpress import COINPRESS
from ..ustatistics.concentration import INNER_FAILURE_PROBABILITY, check_failure_probability
from ..ustatistics.median_of_means import MedianOfMeansMechanism, median_of_means_mechanism
from ..ustatistics.partition import median_of_means_chunk_count, median_of_means_partition
from ._result import UniformityTestResult
from .concentration import check_alphabet_size, uniformity_xi
from .monte_carlo import DEFAULT_SIMULATIONS, MonteCarloNull, monte_carlo_null

__all__ = [
    "DEFAULT_ALPHA",
    "UNIFORMITY_TEST",
    "check_separation",
    "collision_u_statistic",
    "private_uniformity_test",
    "private_uniformity_test_mechanism",
    "uniformity_threshold",
]

#: Default failure probability α of the test (Wrapper 1 with q = 19 chunks).
DEFAULT_ALPHA = 0.1

UNIFORMITY_TEST = Reference(
    citation="Chaudhuri, Loh, Pandey & Sarkar, 'On differentially private U statistics', "
    "NeurIPS 2024 (arXiv 2407.04945)",
    locator="Section 5.1, Algorithm A.4 (rebuilt in privaudit docs/derivations.md section 4), "
    "Theorem 5, "
    "Lemmas A.19 and A.21",
    url="https://arxiv.org/abs/2407.04945",
)

Null = Literal["tolerant", "exact"]
Method = Literal["local_hajek", "all_tuples"]
Calibration = Literal["monte_carlo", "threshold"]


def _check_calibration(calibration: Any, null: Any, threshold: Any) -> Calibration:
    if calibration not in ("monte_carlo", "threshold"):
        raise InvalidParameterError(
            f"calibration must be 'monte_carlo' or 'threshold', got {calibration!r}"
        )
    if calibration == "monte_carlo":
        if null not in (None, "exact"):
            raise InvalidParameterError(
                f"null={null!r} with calibration='monte_carlo': only the exact null (uniform "
                "on [m]) is fully specified and can be simulated; the tolerant null is "
                "composite, use calibration='threshold' for its threshold rule"
            )
        if threshold is not None:
            raise InvalidParameterError(
                f"threshold={threshold!r} with calibration='monte_carlo': the threshold is the "
                "Monte Carlo critical value; pass calibration='threshold' to set it"
            )
    return calibration


def uniform_null_simulator(mech: Mechanism, n: int, m: int) -> Any:
    """``simulate(rng, size)``: private statistics of ``size`` uniform data sets of size n.

    Each draw is a fresh data set X ~ U([m])^n pushed through ``mech`` with fresh noise,
    i.e. one draw of the private statistic's exact null law (:mod:`.monte_carlo`).
    """

    def simulate(rng: np.random.Generator, size: int) -> np.ndarray:
        data = rng.integers(0, m, size=(size, n))
        return np.fromiter(
            (float(mech.sample(row, 1, rng)[0]) for row in data), dtype=np.float64, count=size
        )

    return simulate


def check_separation(delta: Any) -> float:
    """Return δ as a float in (0, 1]; H1's ℓ2 distance δ/√m is reachable only for δ ≤ 1."""
    if (
        isinstance(delta, bool)
        or not isinstance(delta, numbers.Real)
        or not 0.0 < float(delta) <= 1.0
    ):
        raise InvalidParameterError(f"delta must lie in (0, 1], got delta={delta!r}")
    return float(delta)


def uniformity_threshold(m: int, delta: float, null: Null = "tolerant") -> float:
    """The rejection threshold on θ: (1 + 3δ²/4)/m (tolerant null) or (1 + δ²/2)/m (exact).

    Examples
    --------
    >>> uniformity_threshold(100, 0.5)
    0.011875
    >>> uniformity_threshold(100, 0.5, "exact")
    0.01125
    """
    size, d = check_alphabet_size(m), check_separation(delta)
    if null == "tolerant":
        return (1.0 + 0.75 * d * d) / size
    if null == "exact":
        return (1.0 + 0.5 * d * d) / size
    raise InvalidParameterError(f"null must be 'tolerant' or 'exact', got {null!r}")


def collision_u_statistic(labels: np.ndarray, m: int) -> float:
    """U_n = Σ_v c_v(c_v − 1)/(n(n − 1)) from the label counts (n ≥ 2).

    Examples
    --------
    >>> collision_u_statistic(np.array([0, 0, 1, 2]), 3)
    0.16666666666666666
    """
    n = labels.size
    counts = np.bincount(labels, minlength=m).astype(np.float64)
    return float(np.sum(counts * (counts - 1.0)) / (n * (n - 1.0)))


def _check_method(method: Any) -> Method:
    if method not in ("local_hajek", "all_tuples"):
        raise InvalidParameterError(f"method must be 'local_hajek' or 'all_tuples', got {method!r}")
    return method


def _check_size(n: Any, minimum: int, method: str) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise ParameterTypeError(
            f"the uniformity test ({method}) needs an integer n >= {minimum}, got n={n!r}"
        )
    if int(n) < minimum:
        raise SampleSizeError(
            f"the uniformity test ({method}) needs n >= {minimum} samples, got n={n!r}"
        )
    return int(n)


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise InvalidParameterError(f"partition_seed must be an integer >= 0, got {seed!r}")
    return int(seed)


def private_uniformity_test_mechanism(
    n: int,
    m: int,
    epsilon: float,
    *,
    alpha: float = DEFAULT_ALPHA,
    method: Method = "local_hajek",
    partition_seed: int = 0,
    gamma: float = INNER_FAILURE_PROBABILITY,
    name: str | None = None,
    warn: bool = True,
) -> Mechanism:
    """The test's private statistic Ũ (an estimate of θ = Σ p_v²) as an audited mechanism.

    The decision compares Ũ with a public threshold (post-processing), so auditing Ũ
    audits the test.

    Parameters
    ----------
    n : int
        The public number of samples (n ≥ 2; n ≥ 4 for the baseline).
    m : int
        The alphabet size m ≥ 2 (labels 0, …, m − 1).
    epsilon : float
        The claim ε > 0 (pure DP under substitute-one).
    alpha : float
        The test's failure probability α ∈ (0, 1): Wrapper 1 uses q = ⌈8 ln(1/α)⌉ (odd)
        chunks; α ≥ e^{−1/8} gives q = 1.
    method : {"local_hajek", "all_tuples"}
        Algorithm A.4 (Algorithm 1 under Wrapper 1) or the all-tuples CoinPress baseline.
    partition_seed : int
        Public seed of the partition.
    gamma : float
        γ of ξ (0.01) and of A.2's accuracy statement.
    name : str, optional
        The spec's name.
    warn : bool
        Warn when q must be clamped (too few samples per chunk).

    Returns
    -------
    Mechanism
        On ``DatasetDomain(Categorical(m), n)`` under ``SubstituteOne()``.  Algorithm A.4:
        :class:`~estimators.ustatistics.median_of_means.MedianOfMeansMechanism` (statistic
        hook: the chunks' Ã, smooth claim max_c S_c); baseline: the chunks' first-step
        clipped means with their global sensitivity.

    Raises
    ------
    InvalidParameterError
        ε ≤ 0, m < 2, n too small, α or γ ∉ (0, 1), an unknown method.

    Examples
    --------
    >>> mech = private_uniformity_test_mechanism(200, 10, 1.0, alpha=0.9)
    >>> mech.spec.relation.kind, mech.spec.guarantee.epsilon
    ('substitute_one', 1.0)
    """
    kind = _check_method(method)
    size = _check_size(n, 2 if kind == "local_hajek" else 4, kind)
    alphabet = check_alphabet_size(m)
    eps = check_epsilon(epsilon)
    a = check_failure_probability(alpha, "alpha")
    g = check_failure_probability(gamma, "gamma")
    seed = _check_seed(partition_seed)
    record = Categorical(size=alphabet)
    if kind == "local_hajek":
        return median_of_means_mechanism(
            size,
            collision_kernel(),
            eps,
            alpha=a,
            xi=lambda chunk: uniformity_xi(chunk, alphabet, gamma=g).value,
            record_domain=record,
            partition_seed=seed,
            warn=warn,
            name=name or "hypothesis_tests.uniformity.local_hajek",
        )
    count = median_of_means_chunk_count(a, size, 4, warn=warn)
    blocks = median_of_means_partition(size, count.chunks, seed)

    def chunk_collisions(labels: np.ndarray, block: np.ndarray) -> float:
        return collision_u_statistic(labels[block], alphabet)

    engine = binary_coinpress_chunks(
        blocks, 2, eps, u_statistic=chunk_collisions, radius=1.0, gamma=g
    )
    spec = MechanismSpec(
        name=name or "hypothesis_tests.uniformity.all_tuples",
        summary=(
            f"all-tuples baseline for uniformity testing: median over {count.chunks} "
            "chunks of Algorithm A.2 (CoinPress) on the collision kernel"
        ),
        references=(UNIFORMITY_TEST, COINPRESS),
        input_domain=DatasetDomain(record=record, size=size),
        relation=SubstituteOne(),
        statistic=(
            f"the chunks' first-step clipped means of the collision kernel 1(x = y) "
            f"over all pairs of each chunk (q = {count.chunks}); the release is the "
            "median of the chunks' A.2 releases"
        ),
        sensitivity=(sensitivity_claim(engine),),
        guarantee=engine.guarantee,
        notes=(
            f"Proposition 1 baseline: Wrapper 1 with q = {count.chunks} chunks (alpha = "
            f"{a:g}, public seed {seed}); each chunk runs Algorithm A.2 with all pairs, "
            f"R = 1, tau = 1/4, gamma = {g:g}, dep = 2/n_c; a substitution changes one "
            "chunk (parallel composition, Lemma A.5)."
        ),
    )
    domain = spec.input_domain
    return BinaryCoinPressMechanism(spec, engine, lambda x: domain.validate(x))


def _null_and_threshold(
    how: Calibration, null: Any, threshold: Any, alphabet: int, d: float
) -> tuple[float, Literal["tolerant", "exact", "custom"]]:
    """The fixed threshold on θ and the null it tests (NaN and ``"exact"`` under Monte
    Carlo calibration, whose critical value comes from the simulation)."""
    which: Literal["tolerant", "exact", "custom"]
    if how == "monte_carlo":
        cut, which = math.nan, "exact"  # set from the simulation below
    elif threshold is None:
        which = null if null is not None else "tolerant"
        cut = uniformity_threshold(alphabet, d, which)
    else:
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, numbers.Real)
            or not math.isfinite(float(threshold))
        ):
            raise InvalidParameterError(f"threshold must be a finite number, got {threshold!r}")
        uniformity_threshold(alphabet, d, null or "tolerant")  # validates null
        cut, which = float(threshold), "custom"
    return cut, which


def _calibrated_decision(
    mech: Mechanism,
    statistic: float,
    gen: np.random.Generator,
    cut: float,
    which: Literal["tolerant", "exact", "custom"],
    how: Calibration,
    kind: Method,
    *,
    n: int,
    alphabet: int,
    d: float,
    alpha: float,
    gamma: float,
    simulations: int,
) -> UniformityTestResult:
    """Calibrate the threshold (Monte Carlo: the simulated null law of the statistic at
    this n, drawn from ``gen`` after the statistic) and decide; the result carries the
    statistic, threshold, privacy spent and chunk sizes."""
    calibrated: MonteCarloNull | None = None
    if how == "monte_carlo":
        calibrated = monte_carlo_null(
            statistic,
            uniform_null_simulator(mech, n, alphabet),
            alpha=check_failure_probability(alpha, "alpha"),
            simulations=simulations,
            rng=gen,
        )
        cut = calibrated.critical_value
    sizes = _chunk_sizes(mech)
    xi = (
        {size: uniformity_xi(size, alphabet, gamma=gamma) for size in sorted(set(sizes))}
        if kind == "local_hajek"
        else None
    )
    stage = (
        "Algorithm 1 under Wrapper 1 (Algorithm A.4)"
        if kind == "local_hajek"
        else "CoinPress all-tuples baseline under Wrapper 1 (Proposition 1)"
    )
    return UniformityTestResult(
        reject=bool(calibrated.reject if calibrated is not None else statistic > cut),
        statistic=statistic,
        threshold=cut,
        null=which,
        calibration=how,
        p_value=calibrated.p_value if calibrated is not None else None,
        simulations=calibrated.simulations if calibrated is not None else None,
        privacy=PrivacyAccount.of([(stage, mech.spec.guarantee)]),
        method=kind,
        xi=xi,
        n=n,
        n_alpha=min(sizes),
        chunks=len(sizes),
        m=alphabet,
        delta=d,
        alpha=float(alpha),
    )


def private_uniformity_test(
    samples: Any,
    m: int,
    delta: float,
    epsilon: float,
    *,
    alpha: float = DEFAULT_ALPHA,
    null: Null | None = None,
    threshold: float | None = None,
    method: Method = "local_hajek",
    calibration: Calibration = "monte_carlo",
    simulations: int = DEFAULT_SIMULATIONS,
    partition_seed: int = 0,
    gamma: float = INNER_FAILURE_PROBABILITY,
    rng: RandomLike = None,
    budget: Any = None,
) -> UniformityTestResult:
    """An ε-DP test of uniformity on [m]: Algorithm A.4, calibrated at the data's n.

    Parameters
    ----------
    samples : array_like of int, shape (n,)
        Labels in {0, …, m − 1}; n is public.
    m : int
        The alphabet size m ≥ 2.
    delta : float
        The separation δ ∈ (0, 1]: H1 is ℓ2(p, U) ≥ δ/√m.
    epsilon : float
        The privacy claim ε > 0 (pure DP, substitute-one).
    alpha : float
        The level α ∈ (0, 1) of the test, also the failure probability of Wrapper 1
        (its number of chunks).  With Monte Carlo calibration the false-rejection
        probability under uniformity is ≤ α at every n; with the threshold rule only once
        n_α is large enough (Theorem 5).
    null : {"exact", "tolerant"}, optional
        ``"exact"`` (p uniform; the only null Monte Carlo calibration accepts, and its
        default) or ``"tolerant"`` (threshold rule only; its default).
    threshold : float, optional
        A public threshold on θ overriding the default (``calibration="threshold"`` only;
        ``null`` is then ``"custom"``).
    method : {"local_hajek", "all_tuples"}
        Algorithm A.4, or the all-tuples baseline (Proposition 1).
    calibration : {"monte_carlo", "threshold"}
        ``"monte_carlo"`` (default): reject when the Monte Carlo p-value of the private
        statistic against its simulated null law at this n is ≤ α
        (:func:`~estimators.hypothesis_tests.monte_carlo.monte_carlo_null`);
        ``"threshold"``: compare with the fixed threshold of Theorem 5.
    simulations : int
        B, the number of null simulations of the Monte Carlo calibration (default 199;
        the test is valid for every B, larger B adds power and time: each simulation runs
        the mechanism once on a fresh uniform data set).
    partition_seed : int
        Public seed of the partition.
    gamma : float
        γ of ξ (0.01).
    rng : numpy.random.Generator, int or None
        Source of the noise and of the null simulations (the statistic is drawn first,
        so it does not depend on ``calibration``).
    budget : PrivacyBudget, optional
        Charged for this release before any noise is drawn
        (:class:`~spec.errors.BudgetExceededError` if it would be exceeded).

    Returns
    -------
    UniformityTestResult
        Decision, private statistic, threshold, p-value (Monte Carlo), privacy spent,
        ξ per chunk size, n_α.

    Raises
    ------
    InvalidParameterError
        ε ≤ 0, m < 2, δ ∉ (0, 1], α ∉ (0, 1), a bad null, method, threshold,
        calibration or number of simulations; the tolerant null or a threshold with
        Monte Carlo calibration.
    InvalidInputError
        Samples that are not a non-empty 1-d array of integer labels in {0, …, m − 1}
        (NaN, floats, labels outside [m]); fewer than 2 samples.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).integers(0, 20, 4000)
    >>> result = private_uniformity_test(x, 20, 1.0, 2.0, alpha=0.25, rng=1)
    >>> result.decision, result.chunks, result.calibration, result.p_value > 0.25
    ('accept', 13, 'monte_carlo', True)
    >>> fixed = private_uniformity_test(x, 20, 1.0, 2.0, alpha=0.25, rng=1,
    ...                                 calibration="threshold")
    >>> fixed.threshold, fixed.null, fixed.statistic == result.statistic
    (0.0875, 'tolerant', True)
    """
    kind = _check_method(method)
    alphabet = check_alphabet_size(m)
    d = check_separation(delta)
    how = _check_calibration(calibration, null, threshold)
    cut, which = _null_and_threshold(how, null, threshold, alphabet, d)
    labels = DatasetDomain(record=Categorical(size=alphabet)).validate(samples)
    n = _check_size(int(labels.shape[0]), 2 if kind == "local_hajek" else 4, kind)
    mech = private_uniformity_test_mechanism(
        n, alphabet, epsilon, alpha=alpha, method=kind, partition_seed=partition_seed, gamma=gamma
    )
    gen = as_generator(rng)
    statistic = float(mech.sample(labels, 1, gen, budget=budget)[0])
    return _calibrated_decision(
        mech,
        statistic,
        gen,
        cut,
        which,
        how,
        kind,
        n=n,
        alphabet=alphabet,
        d=d,
        alpha=alpha,
        gamma=gamma,
        simulations=simulations,
    )


def _chunk_sizes(mech: Mechanism) -> tuple[int, ...]:
    if isinstance(mech, BinaryCoinPressMechanism):
        return tuple(int(b.size) for b in mech.engine.blocks)
    if not isinstance(mech, MedianOfMeansMechanism):  # pragma: no cover - the two methods
        raise UnsupportedCombinationError(f"no chunks in {type(mech).__name__}")
    return tuple(int(c.records.size) for c in mech.chunks)
