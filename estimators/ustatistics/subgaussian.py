"""Corollary 1: sub-Gaussian kernels — a coarse CoinPress estimate, then Wrapper 1 ∘ Algorithm 1.

Section 4.3 of Chaudhuri, Loh, Pandey & Sarkar (2024) extends Algorithm 1 to a kernel with
h(X_S) ~ subG(τ), τ public (Corollary 1; our choices in ``docs/derivations.md`` §4):

1. split [n] into two halves I₁, I₂ (a data-independent split from a public seed);
2. **coarse**: the naive CoinPress estimator (Algorithm A.2, disjoint blocks) on I₁ with
   budget ε/2 gives θ_c, within e_c of θ with high probability, where e_c is the public
   half-length of its final interval;
3. **projection**: h̄ = proj_{[θ_c − w, θ_c + w]}(h) with the public half-width
   w = √(2τ ln(4·C(|I₂|, k)/α)) + e_c (a union bound over every k-subset of I₂ at level α/2,
   plus the coarse error);
4. **main**: Wrapper 1 (failure α/2) ∘ Algorithm 1 on I₂ with kernel h̄, budget ε/2 and
   **C := 2w**, the exact width of the projection interval — critical for privacy: the
   corollary's printed C = √(2kτ log(n/2α)) is only valid if it covers the interval
   (docs/derivations.md §4); ξ(n_c) = √(2τ ln(4n_c/γ)) + √(2τ ln(4/γ)/⌊n_c/k⌋) per chunk of n_c
   records (Lemma 3 for the projections around θ plus Lemma A.3(i) for |A_n − θ|, γ = 0.01; ξ
   affects accuracy only).

The budget is split with :func:`mechanisms.composition.split_budget` and stated with
:func:`mechanisms.composition.basic_composition`: ε/2 + ε/2 = ε (the paper's accounting;
in rigorous mode the main stage's ε/2 is its proven (3 + 3^{3/4})β, in paper mode the
paper's 10β = 10·ε/20).  Everything that could come from data — R, τ, w, C, ξ, the split
and the partition — is a public input or a public function of public inputs and of the
coarse *private* output θ_c.

Two mechanisms are provided: :func:`subgaussian_mean_mechanism` (the whole pipeline; its
sampler runs the main stage for a batch of coarse outputs at once on explicit tuples) and
:func:`subgaussian_main_stage_mechanism` (the main stage at a public centre, with its full
smooth-sensitivity claim, so the auditor's gray-box checks reach it).

References
----------
.. [1] Chaudhuri et al., NeurIPS 2024, Section 4.3, Corollary 1, Lemma 3, Lemma A.3,
   Proposition A.1, Theorem A.1.
.. [2] ``docs/derivations.md`` §4 (budget ε/20 and C ≥ 2w).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import networkx as nx
import numpy as np
import numpy.typing as npt

from privaudit.mechanisms import Mechanism
from privaudit.mechanisms.accounting import charge
from privaudit.mechanisms.composition import basic_composition, split_budget
from privaudit.spec import (
    GlobalSensitivity,
    InverseQuartic,
    MechanismSpec,
    PureDP,
    RandomLike,
    SubstituteOne,
    as_generator,
)
from privaudit.spec.errors import (
    InvalidParameterError,
    SampleSizeError,
    UnsupportedCombinationError,
)
from privaudit.spec.stable_values import round_up
from privaudit.spec.validation import check_epsilon

from .._result import PrivateEstimate
from ._parameters import (
    SensitivityMode,
    check_count,
    check_failure_probability,
    check_mode,
    check_positive,
    claimed_epsilon,
    log_binomial,
)
from .batched_local_hajek import TupleFamily, all_index_tuples, batched_local_hajek, tuple_family
from .coinpress import COINPRESS, CoinPressMechanism, coinpress_mechanism, public_subgaussian_proxy
from .kernel_domains import kernel_input_space
from .kernels import Kernel
from .local_hajek import LocalHajekAlgorithm, internal_epsilon, local_hajek_algorithm
from .local_hajek_mechanism import ALGORITHM_1, USTAT_SPEC_RIGOROUS, EvaluationCache
from .median_of_means import (
    MedianOfMeansEstimate,
    MedianOfMeansMechanism,
    median_of_means_mechanism,
    private_median_of_means,
)
from .partition import median_of_means_chunk_count, median_of_means_partition

__all__ = [
    "SubGaussianEstimate",
    "SubGaussianMeanMechanism",
    "clipped_kernel",
    "private_subgaussian_mean",
    "projection_half_width",
    "subgaussian_main_stage_mechanism",
    "subgaussian_mean_mechanism",
    "subgaussian_xi",
]

#: Inner failure probability of Algorithm 1 inside Wrapper 1.
INNER_GAMMA = 0.01
#: Largest batch of draws × tuples processed at once by the pipeline's sampler.
_BATCH_ELEMENTS = 1 << 21


def subgaussian_xi(n: int, degree: int, tau: float, gamma: float = INNER_GAMMA) -> float:
    """ξ(n) = √(2τ ln(4n/γ)) + √(2τ ln(4/γ)/⌊n/k⌋) for a chunk of n records.

    The first term bounds max_i |ĥ(i) − θ| with probability ≥ 1 − γ/2 (Lemma 3: each ĥ(i)
    is subG(τ)); the second bounds |A_n − θ| with probability ≥ 1 − γ/2 (Lemma A.3(i)), the
    margin the corollary needs because Algorithm 1 compares ĥ(i) with A_n.  Rounded up to
    the stable grid of :mod:`spec.stable_values` (a public parameter in the spec's notes).

    Examples
    --------
    >>> round(subgaussian_xi(500, 2, 1.0), 4)
    5.1598
    """
    size, k = check_count(n, "n"), check_count(degree, "degree k")
    if size < k:
        raise SampleSizeError(f"need n >= k, got n={size}, k={k}")
    t = check_positive(tau, "tau")
    g = check_failure_probability(gamma, "gamma")
    return round_up(
        math.sqrt(2.0 * t * math.log(4.0 * size / g))
        + math.sqrt(2.0 * t * math.log(4.0 / g) / (size // k))
    )


def projection_half_width(
    n: int, degree: int, tau: float, alpha: float, coarse_error: float
) -> float:
    """w = √(2τ ln(4·C(n, k)/α)) + e_c: every |h(X_S) − θ_c| ≤ w w.p. ≥ 1 − α/2 − P(coarse fails).

    Parameters
    ----------
    n, degree : int
        Records of the main half and k.
    tau : float
        Public τ.
    alpha : float
        The corollary's failure probability α.
    coarse_error : float
        Public bound e_c ≥ 0 on |θ_c − θ| (the coarse run's final half-length).
    """
    size, k = check_count(n, "n"), check_count(degree, "degree k")
    t = check_positive(tau, "tau")
    a = check_failure_probability(alpha)
    if not (math.isfinite(coarse_error) and coarse_error >= 0):
        raise InvalidParameterError(f"coarse_error must be finite and >= 0, got {coarse_error!r}")
    # public, and the main stage's C = 2w: on the stable grid so that the spec is too
    return round_up(math.sqrt(2.0 * t * (math.log(4.0 / a) + log_binomial(size, k))) + coarse_error)


def _clip_values(
    data: Any, index_tuples: np.ndarray, *, inner: Any, lower: float, upper: float
) -> np.ndarray:
    return np.clip(np.asarray(inner(data, index_tuples), dtype=np.float64), lower, upper)


def clipped_kernel(kernel: Kernel, centre: float, half_width: float) -> Kernel:
    """h̄ = proj_{[centre − w, centre + w]}(h): a bounded kernel of additive range exactly 2w.

    Raises
    ------
    InvalidParameterError
        If the centre is not finite or w ≤ 0.
    """
    w = check_positive(half_width, "half width w")
    c = float(centre)
    if not math.isfinite(c):
        raise InvalidParameterError(f"the projection centre must be finite, got {centre!r}")
    return Kernel(
        f"{kernel.name}_clipped",
        kernel.degree,
        functools.partial(_clip_values, inner=kernel.function, lower=c - w, upper=c + w),
        c - w,
        c + w,
        domain=kernel.domain,
        parameters={"inner": kernel.name, "centre": c, "half_width": w},
    )


@dataclass(frozen=True)
class SubGaussianPlan:
    """Every public choice of the Corollary 1 pipeline for n records.

    Attributes
    ----------
    coarse_records, main_records : numpy.ndarray of int
        I₁ and I₂.
    coarse : CoinPressMechanism
        The naive CoinPress mechanism on |I₁| records (budget ε/2).
    half_width : float
        w; the main stage's kernel has additive range C = 2w.
    tau : float
        The public τ.
    main_epsilon : float
        The main stage's claim (ε/2).
    alpha : float
        The corollary's α (the wrapper uses α/2).
    """

    coarse_records: npt.NDArray[np.int64]
    main_records: npt.NDArray[np.int64]
    coarse: CoinPressMechanism
    half_width: float
    tau: float
    main_epsilon: float
    alpha: float

    @property
    def additive_range(self) -> float:
        """C = 2w."""
        return 2.0 * self.half_width


def _plan(
    n: int,
    kernel: Kernel,
    epsilon: float,
    radius: float,
    alpha: float,
    tau: float | None,
    split_seed: int,
    record_domain: Any,
) -> SubGaussianPlan:
    if kernel.domain.kind == "adjacency":
        raise InvalidParameterError(
            "the sub-Gaussian pipeline is for record data; graph "
            "kernels are bounded: use Wrapper 1 directly"
        )
    size = check_count(n, "n")
    a = check_failure_probability(alpha)
    proxy = public_subgaussian_proxy(kernel, tau)
    halves = median_of_means_partition(size, 2, check_count(split_seed, "split_seed", 0))
    coarse_budget, main_budget = split_budget(PureDP(epsilon=check_epsilon(epsilon)), [1.0, 1.0])
    coarse = coinpress_mechanism(
        int(halves[0].size),
        kernel,
        coarse_budget.epsilon,
        radius=radius,
        tau=proxy,
        family="naive",
        gamma=a / 12.0,
        record_domain=record_domain,
        warn=False,
        name=f"ustat.subgaussian.{kernel.name}.coarse",
    )
    w = projection_half_width(
        int(halves[1].size), kernel.degree, proxy, a, coarse.schedule.final_half_length
    )
    return SubGaussianPlan(
        coarse_records=halves[0],
        main_records=halves[1],
        coarse=coarse,
        half_width=w,
        tau=proxy,
        main_epsilon=main_budget.epsilon,
        alpha=a,
    )


def _xi_rule(degree: int, tau: float) -> Any:
    def xi(chunk: int) -> float:
        return subgaussian_xi(chunk, degree, tau)

    return xi


def subgaussian_main_stage_mechanism(
    n: int,
    kernel: Kernel,
    epsilon: float,
    *,
    centre: float,
    half_width: float,
    tau: float,
    alpha: float,
    partition_seed: int = 0,
    sensitivity_mode: SensitivityMode = "rigorous",
    name: str | None = None,
    **space: Any,
) -> MedianOfMeansMechanism:
    """The main stage of Corollary 1 at a public centre: Wrapper 1 ∘ Algorithm 1 on h̄.

    h̄ = proj_{[centre − w, centre + w]}(h) has C = 2w; ξ is :func:`subgaussian_xi` per chunk and
    the wrapper's failure probability is ``alpha`` (α/2 of the corollary).  This is the
    mechanism the pipeline runs once θ_c is released; as its own mechanism it carries the
    full smooth-sensitivity claim.
    """
    clipped = clipped_kernel(kernel, centre, half_width)
    return median_of_means_mechanism(
        n,
        clipped,
        epsilon,
        alpha=alpha,
        xi=_xi_rule(kernel.degree, tau),
        partition_seed=partition_seed,
        sensitivity_mode=sensitivity_mode,
        name=name or f"ustat.subgaussian.{kernel.name}.main",
        **space,
    )


@dataclass(frozen=True, eq=False)
class _MainChunk:
    records: npt.NDArray[np.int64]
    family: TupleFamily
    algorithm: LocalHajekAlgorithm


class SubGaussianMeanMechanism(Mechanism):
    """The Corollary 1 pipeline (see the module docstring).

    The gray-box hook ``statistic`` is the coarse stage's first clipped mean on I₁ (with
    its global sensitivity); the main stage's smooth claim is audited through
    :func:`subgaussian_main_stage_mechanism`.
    """

    def __init__(
        self,
        spec: MechanismSpec,
        plan: SubGaussianPlan,
        chunks: tuple[_MainChunk, ...],
        kernel: Kernel,
        beta: float,
    ) -> None:
        super().__init__(spec)
        self._plan = plan
        self._chunks = chunks
        self._kernel = kernel
        self._beta = float(beta)
        self._law = InverseQuartic(scale=1.0)
        self._cached = EvaluationCache(self._kernel_values)

    @property
    def plan(self) -> SubGaussianPlan:
        """The public choices (split, coarse mechanism, w, τ, budgets)."""
        return self._plan

    @property
    def epsilon(self) -> float:
        """ε of the claim."""
        return claimed_epsilon(self.spec)

    def _kernel_values(self, data: Any) -> tuple[npt.NDArray[np.float64], ...]:
        x = self._kernel.validate_data(data)
        main = x[self._plan.main_records]
        return tuple(
            self._kernel.evaluate(main[c.records], c.family.tuples, validate=False)
            for c in self._chunks
        )

    def statistic(self, data: Any) -> float:
        """The coarse stage's first clipped mean on the records I₁ (gray-box hook)."""
        x = self.validate_input(data)
        return self._plan.coarse.statistic(x[self._plan.coarse_records])

    def main_stage_statistics(
        self, data: Any, centres: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Ã_n and the noise scale S/β of every chunk for each centre θ_c, shapes (q, B)."""
        values = self._cached(self.validate_input(data))
        return self._main_stage(values, np.atleast_1d(np.asarray(centres, dtype=np.float64)))

    def _main_stage(
        self, values: tuple[npt.NDArray[np.float64], ...], centres: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        w = self._plan.half_width
        q, b = len(self._chunks), centres.size
        means = np.empty((q, b))
        scales = np.empty((q, b))
        for ci, (chunk, vals) in enumerate(zip(self._chunks, values, strict=True)):
            rows = max(1, _BATCH_ELEMENTS // (vals.size * chunk.family.degree))
            for start in range(0, b, rows):
                c = centres[start : start + rows, None]
                clipped = np.clip(vals[None, :], c - w, c + w)
                batch = batched_local_hajek(
                    clipped,
                    chunk.family,
                    additive_range=2.0 * w,
                    xi=chunk.algorithm.xi,
                    beta=self._beta,
                )
                means[ci, start : start + rows] = batch.weighted_means
                scales[ci, start : start + rows] = (
                    chunk.algorithm.smooth_table[batch.levels - 1] / self._beta
                )
        return means, scales

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        centres = self._plan.coarse.sample(data[self._plan.coarse_records], size, rng)
        means, scales = self._main_stage(self._cached(data), centres)
        noise = self._law.sample(rng, means.shape)
        return np.median(means + scales * noise, axis=0)


def subgaussian_mean_mechanism(
    n: int,
    kernel: Kernel,
    epsilon: float,
    *,
    radius: float,
    alpha: float,
    tau: float | None = None,
    split_seed: int = 0,
    partition_seed: int = 0,
    sensitivity_mode: SensitivityMode = "rigorous",
    record_domain: Any = None,
    name: str | None = None,
) -> SubGaussianMeanMechanism:
    """The Corollary 1 pipeline on n records as an ε-DP mechanism with its spec.

    Parameters
    ----------
    n : int
        The public number of records (each half needs ≥ 2k; all k-subsets of every main
        chunk are enumerated explicitly, so the chunks must be moderate).
    kernel : Kernel
        The kernel h (bounded or declaring a sub-Gaussian proxy).
    epsilon : float
        The total claim ε > 0 (ε/2 coarse + ε/2 main).
    radius : float
        Public R with |θ| < R.
    alpha : float
        Failure probability α ∈ (0, 1).
    tau : float, optional
        Public τ (see :func:`.public_subgaussian_proxy`).
    split_seed, partition_seed : int
        Public seeds of the halving and of Wrapper 1's partition.
    sensitivity_mode : {"rigorous", "paper"}
        Algorithm 1's smooth bound in the main stage.
    record_domain : RecordDomain, optional
        The domain of one record (default from the kernel).
    name : str, optional
        The spec's name (default ``"ustat.subgaussian.<kernel>"``).

    Returns
    -------
    SubGaussianMeanMechanism
    """
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    mode = check_mode(sensitivity_mode)
    plan = _plan(n, kernel, check_epsilon(epsilon), radius, alpha, tau, split_seed, record_domain)
    beta = internal_epsilon(plan.main_epsilon, mode)
    k = kernel.degree
    n_main = int(plan.main_records.size)
    count = median_of_means_chunk_count(plan.alpha / 2.0, n_main, k)
    blocks = median_of_means_partition(
        n_main, count.chunks, check_count(partition_seed, "partition_seed", 0)
    )
    reference = clipped_kernel(kernel, 0.0, plan.half_width)
    xi = _xi_rule(k, plan.tau)
    chunks = []
    for records in blocks:
        family = tuple_family(all_index_tuples(int(records.size), k), int(records.size))
        algorithm = local_hajek_algorithm(
            int(records.size), reference, xi=xi(records.size), beta=beta, sensitivity_mode=mode
        )
        chunks.append(_MainChunk(records=records, family=family, algorithm=algorithm))
    spec = _pipeline_spec(
        plan, kernel, n, radius, split_seed, count.chunks, mode, beta, record_domain, name
    )
    return SubGaussianMeanMechanism(spec, plan, tuple(chunks), kernel, beta)


def _pipeline_spec(
    plan: SubGaussianPlan,
    kernel: Kernel,
    n: int,
    radius: float,
    split_seed: int,
    chunks: int,
    mode: SensitivityMode,
    beta: float,
    record_domain: Any,
    name: str | None,
) -> MechanismSpec:
    n_main = int(plan.main_records.size)
    space = kernel_input_space(kernel, check_count(n, "n"), record_domain=record_domain)
    coarse_g, main_g = PureDP(epsilon=plan.coarse.epsilon), PureDP(epsilon=plan.main_epsilon)
    guarantee = basic_composition([coarse_g, main_g])
    coarse_spec = plan.coarse.spec
    coarse_claim = coarse_spec.global_sensitivity
    if coarse_claim is None:  # pragma: no cover - CoinPress declares its global sensitivity
        raise UnsupportedCombinationError(f"{coarse_spec.name!r} declares no global sensitivity")
    notes = (
        f"Corollary 1 pipeline. Public: R = {radius!r}, tau = {plan.tau!r}, alpha = "
        f"{plan.alpha!r}; halves I1 ({plan.coarse_records.size} records) and I2 "
        f"({n_main}) from the public seed {split_seed}. Coarse: naive CoinPress on I1 "
        f"with epsilon/2 = {coarse_g.epsilon!r} (gamma = alpha/12), final half-length "
        f"e_c = {plan.coarse.schedule.final_half_length:.6g}. Projection half-width w = "
        f"sqrt(2 tau ln(4 C(|I2|, k)/alpha)) + e_c = {plan.half_width:.6g}; the main "
        f"stage uses C = 2w = {plan.additive_range:.6g}, exactly the width of the "
        "projection interval (critical for privacy). Main: Wrapper 1 (alpha/2, q = "
        f"{chunks}) of Algorithm 1 ({mode}, beta = {beta!r}) with epsilon/2 = "
        f"{main_g.epsilon!r}; xi per chunk = sqrt(2 tau ln(4 n_c/0.01)) + sqrt(2 tau "
        "ln(400)/floor(n_c/k)). Budget split by split_budget, total by basic "
        "composition. The gray-box statistic is the coarse stage's first clipped mean; "
        "the main stage's smooth claim is audited via subgaussian_main_stage_mechanism."
        + (
            " PAPER MODE main stage: unproven claim (docs/derivations.md section 3)."
            if mode == "paper"
            else ""
        )
    )
    spec = MechanismSpec(
        name=name or f"ustat.subgaussian.{kernel.name}" + (".paper" if mode == "paper" else ""),
        summary=(
            f"Corollary 1: coarse naive CoinPress then Wrapper 1 of Algorithm 1 on the "
            f"projected {kernel.name} kernel"
        ),
        references=(ALGORITHM_1, COINPRESS, USTAT_SPEC_RIGOROUS),
        input_domain=space.input_domain,
        relation=SubstituteOne(),
        statistic=(f"coarse stage: {coarse_spec.statistic} on the records of I1"),
        sensitivity=(GlobalSensitivity(value=coarse_claim.value),),
        noise=None,
        guarantee=guarantee,
        proof_status="proven" if mode == "rigorous" else "unproven",
        notes=notes,
    )
    return spec


@dataclass(frozen=True, slots=True, repr=False)
class SubGaussianEstimate(PrivateEstimate):
    """A release of the Corollary 1 pipeline.

    Attributes
    ----------
    estimate : float
        The main stage's release (median of the chunk releases).
    spec : MechanismSpec
        The pipeline's spec.
    noise_std : float
        The largest per-chunk noise scale of the main stage.  **Not private** (it depends
        on the data through S_c); hidden from ``repr``.
    coarse_estimate : float
        θ_c, the coarse private release (private).
    half_width : float
        w (C = 2w).
    main : MedianOfMeansEstimate
        The main stage's result (its non-private fields are attributes, hidden from its
        ``repr``).
    """

    NON_PRIVATE_INHERITED: ClassVar[tuple[str, ...]] = ("noise_std",)

    coarse_estimate: float
    half_width: float
    main: MedianOfMeansEstimate


def private_subgaussian_mean(
    data: Any,
    kernel: Kernel,
    epsilon: float,
    *,
    radius: float,
    alpha: float,
    tau: float | None = None,
    split_seed: int = 0,
    partition_seed: int = 0,
    sensitivity_mode: SensitivityMode = "rigorous",
    rng: RandomLike = None,
    record_domain: Any = None,
    budget: Any = None,
) -> SubGaussianEstimate:
    """An ε-DP estimate of θ for a sub-Gaussian kernel (Corollary 1).

    The main stage runs the production Algorithm 1 (exact all-tuples sums) on the projected
    kernel, so large n are fine; parameters as in :func:`subgaussian_mean_mechanism`;
    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`) is charged for the whole
    pipeline before any noise is drawn.

    Examples
    --------
    >>> import numpy as np
    >>> from privaudit.estimators.ustatistics import mean_kernel
    >>> x = np.random.default_rng(0).normal(0.3, 1.0, 4000)
    >>> r = private_subgaussian_mean(x, mean_kernel(subgaussian_proxy=1.0), 2.0, radius=10.0,
    ...                              alpha=0.1, rng=1)
    >>> abs(r.estimate - 0.3) < 0.2
    True
    """
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    x = data if isinstance(data, nx.Graph) else kernel.validate_data(data)
    n = int(x.shape[0]) if not isinstance(x, nx.Graph) else x.number_of_nodes()
    plan = _plan(n, kernel, epsilon, radius, alpha, tau, split_seed, record_domain)
    mode = check_mode(sensitivity_mode)
    chunks = median_of_means_chunk_count(
        plan.alpha / 2.0, int(plan.main_records.size), kernel.degree
    ).chunks
    spec = _pipeline_spec(
        plan,
        kernel,
        n,
        radius,
        split_seed,
        chunks,
        mode,
        internal_epsilon(plan.main_epsilon, mode),
        record_domain,
        None,
    )
    charge(budget, spec, estimator="private_subgaussian_mean")
    gen = as_generator(rng)
    centre = plan.coarse.release(x[plan.coarse_records], rng=gen)
    main = private_median_of_means(
        x[plan.main_records],
        clipped_kernel(kernel, centre, plan.half_width),
        plan.main_epsilon,
        alpha=plan.alpha / 2.0,
        xi=_xi_rule(kernel.degree, plan.tau),
        partition_seed=partition_seed,
        sensitivity_mode=sensitivity_mode,
        rng=gen,
    )
    return SubGaussianEstimate(
        estimate=main.estimate,
        spec=spec,
        noise_std=main.noise_std,
        coarse_estimate=float(centre),
        half_width=plan.half_width,
        main=main,
    )
