"""Wrapper 1 (median of means) around Algorithm 1, as an audited mechanism.

Wrapper 1 of Chaudhuri, Loh, Pandey & Sarkar (2024) cuts [n] into q disjoint chunks
(:mod:`.partition`: q = ⌈8 ln(1/α)⌉ made odd, a data-independent partition from a public
seed), runs Algorithm 1 with the **same** ε on each chunk — every "n" inside it being the
chunk size — and releases the median of the q private values.

Privacy: a substitution changes the records of exactly one chunk, so by parallel
composition (Lemma A.5, :func:`mechanisms.composition.parallel_composition`) the wrapper
has the per-chunk claim ε (proven in rigorous mode; unproven in paper mode).

Spec: the statistic is the vector f(X) = (Ã_n(X_{I_1}), …, Ã_n(X_{I_q})); since only one
coordinate moves between neighbours, max_c S_c(X_{I_c}) is a β-smooth upper bound on its
ℓ∞ local sensitivity (each S_c is one for its chunk), which is the smooth claim the spec
states and the auditor checks.  The release itself is median_c(Ã_c + (S_c/β)·Z_c).

⊥ is avoided: a subsampled chunk family is redrawn (data-independently, so for free) until
it passes the checks of Algorithm 1.

References
----------
.. [1] Chaudhuri et al., NeurIPS 2024, Wrapper 1, Lemmas A.5–A.6, Theorems 2 and 4.
.. [2] ``docs/derivations.md`` §5, choice 1 (q odd, data-independent partition).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import networkx as nx
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from privaudit.mechanisms import Mechanism
from privaudit.mechanisms.accounting import charge
from privaudit.mechanisms.composition import parallel_composition
from privaudit.spec import (
    InverseQuartic,
    MechanismSpec,
    RandomLike,
    SmoothSensitivityBound,
    as_generator,
)
from privaudit.spec.errors import InvalidParameterError

from .._result import PrivateEstimate, non_private_field, result_dataclass
from ._parameters import (
    SensitivityMode,
    check_count,
    check_failure_probability,
    check_mode,
    claimed_epsilon,
)
from .families import SubsetFamily, default_subsample_size
from .kernel_domains import KernelInputSpace, kernel_input_space
from .kernels import Kernel
from .local_hajek import (
    LocalHajekAlgorithm,
    LocalHajekStatistic,
    internal_epsilon,
    local_hajek_algorithm,
)
from .local_hajek_mechanism import (
    ALGORITHM_1,
    USTAT_SPEC_RIGOROUS,
    EvaluationCache,
    local_hajek_spec,
)
from .partition import median_of_means_chunk_count, median_of_means_partition

__all__ = [
    "MedianOfMeansEstimate",
    "MedianOfMeansMechanism",
    "median_of_means_mechanism",
    "median_of_noisy_chunks",
    "noisy_chunk_statistics",
    "private_median_of_means",
]

#: Failure probability of the default subsampled family size (γ of Wrapper 1's proofs).
FAMILY_GAMMA = 0.01

XiRule = float | Callable[[int], float]


def restrict_records(data: Any, records: npt.NDArray[np.int64], records_are_nodes: bool) -> Any:
    """The data of the records ``records``: rows of an array, or an induced subgraph."""
    if records_are_nodes:
        if sp.issparse(data):
            return sp.csr_array(data)[records][:, records]
        return np.asarray(data)[np.ix_(records, records)]
    return np.asarray(data)[records]


def _chunk_xi(xi: XiRule, size: int) -> float:
    value = xi(size) if callable(xi) else xi
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
        raise InvalidParameterError(
            f"xi must be a number or a function of the chunk size returning one, got {value!r}"
        )
    return float(value)


def _chunk_family(
    kind: str, size: int, k: int, family_size: int | None, gen: np.random.Generator
) -> SubsetFamily | None:
    if kind == "all":
        return None
    m = family_size if family_size is not None else default_subsample_size(size, k, FAMILY_GAMMA)
    return SubsetFamily.draw_valid_subsampled(size, k, check_count(m, "family_size"), gen)


def noisy_chunk_statistics(
    centres: npt.ArrayLike, scales: npt.ArrayLike, noise: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """The chunk releases Ã_c + (S_c/β)·Z_c of Wrapper 1, shape (q, size).

    Parameters
    ----------
    centres : array_like, shape (q,)
        Ã_c, Algorithm 1's weighted statistic of every chunk.
    scales : array_like, shape (q,)
        S_c/β, the noise scale of every chunk.
    noise : ndarray, shape (q, size)
        Standard draws Z_c of the 1/(1 + z⁴) law, one row per chunk.

    References
    ----------
    .. [1] Chaudhuri et al., NeurIPS 2024, Algorithm 1 (line 21) and Wrapper 1.
    """
    return (
        np.asarray(centres, dtype=float)[:, None] + np.asarray(scales, dtype=float)[:, None] * noise
    )


def median_of_noisy_chunks(
    centres: npt.ArrayLike, scales: npt.ArrayLike, noise: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Wrapper 1's release median_c(Ã_c + (S_c/β)·Z_c), one per column of ``noise``.

    Shared by :class:`MedianOfMeansMechanism` (records) and
    :class:`estimators.graphs.ChunkedLocalHajek` (node chunks); arguments as in
    :func:`noisy_chunk_statistics`.

    References
    ----------
    .. [1] Chaudhuri et al., NeurIPS 2024, Wrapper 1 and Lemma A.6.
    """
    return np.median(noisy_chunk_statistics(centres, scales, noise), axis=0)


@dataclass(frozen=True, slots=True)
class WrapperChunk:
    """One chunk of Wrapper 1: its records and its configured Algorithm 1."""

    records: npt.NDArray[np.int64]
    algorithm: LocalHajekAlgorithm


class MedianOfMeansMechanism(Mechanism):
    """Wrapper 1 ∘ Algorithm 1: the median of q chunk releases (see the module docstring).

    Build it with :func:`median_of_means_mechanism`.
    """

    def __init__(
        self,
        spec: MechanismSpec,
        chunks: tuple[WrapperChunk, ...],
        space: KernelInputSpace,
        beta: float,
        failure_bound: float,
    ) -> None:
        super().__init__(spec)
        self._chunks = chunks
        self._space = space
        self._beta = float(beta)
        self._failure_bound = float(failure_bound)
        self._law = InverseQuartic(scale=1.0)
        self._cached = EvaluationCache(self._evaluate_kernel_data)

    @property
    def chunks(self) -> tuple[WrapperChunk, ...]:
        """The q chunks (records and configured algorithm)."""
        return self._chunks

    @property
    def beta(self) -> float:
        """Algorithm 1's ε in every chunk (the smoothness of the claim)."""
        return self._beta

    @property
    def epsilon(self) -> float:
        """ε of the claim."""
        return claimed_epsilon(self.spec)

    @property
    def failure_bound(self) -> float:
        """e^{−q/8}: Lemma A.6's bound on the median's failure probability."""
        return self._failure_bound

    def _evaluate_kernel_data(self, data: Any) -> tuple[LocalHajekStatistic, ...]:
        nodes = self._space.records_are_nodes
        return tuple(
            c.algorithm.evaluate(restrict_records(data, c.records, nodes)) for c in self._chunks
        )

    def _evaluations(self, validated: Any) -> tuple[LocalHajekStatistic, ...]:
        return self._cached(self._space.to_kernel_data(validated))

    def evaluate(self, data: Any) -> tuple[LocalHajekStatistic, ...]:
        """Algorithm 1 on every chunk, before the noise."""
        return self._evaluations(self.validate_input(data))

    def statistic(self, data: Any) -> npt.NDArray[np.float64]:
        """(Ã_n of chunk 1, …, Ã_n of chunk q) (gray-box hook)."""
        return np.array([s.weighted_mean for s in self.evaluate(data)])

    def smooth_sensitivity(self, data: Any) -> float:
        """max_c S_c: a β-smooth bound on the ℓ∞ local sensitivity of :meth:`statistic`."""
        return float(max(s.smooth_sensitivity for s in self.evaluate(data)))

    def chunk_releases(
        self, data: Any, size: int, rng: RandomLike = None
    ) -> npt.NDArray[np.float64]:
        """``size`` independent private releases of every chunk, shape (q, size)."""
        return self._chunk_draws(
            self._evaluations(self.validate_input(data)), size, as_generator(rng)
        )

    def _chunk_draws(
        self, stats: tuple[LocalHajekStatistic, ...], size: int, gen: np.random.Generator
    ) -> npt.NDArray[np.float64]:
        return noisy_chunk_statistics(
            [s.weighted_mean for s in stats],
            [s.noise_scale for s in stats],
            self._law.sample(gen, (len(stats), size)),
        )

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.median(self._chunk_draws(self._evaluations(data), size, rng), axis=0)


def median_of_means_mechanism(
    n: int,
    kernel: Kernel,
    epsilon: float,
    *,
    alpha: float,
    xi: XiRule,
    family: str = "all",
    family_size: int | None = None,
    partition_seed: int = 0,
    family_seed: int = 0,
    sensitivity_mode: SensitivityMode = "rigorous",
    record_domain: Any = None,
    input_domain: Any = None,
    relation: Any = None,
    to_kernel_data: Callable[[Any], Any] | None = None,
    name: str | None = None,
    warn: bool = True,
) -> MedianOfMeansMechanism:
    """Wrapper 1 ∘ Algorithm 1 on n records as an ε-DP mechanism with its spec.

    Parameters
    ----------
    n : int
        The public number of records (nodes for graph kernels).
    kernel : Kernel
        A bounded kernel (C public).
    epsilon : float
        The claim ε > 0, used unchanged in every chunk (parallel composition).
    alpha : float
        Failure probability α ∈ (0, 1): q = ⌈8 ln(1/α)⌉ made odd (clamped to ⌊n/k⌋, with a
        :class:`~spec.errors.UtilityConditionWarning`).
    xi : float or callable
        Public ξ, or a public function of the chunk size returning it (e.g.
        :func:`.degenerate_xi` style rules); accuracy only.
    family : {"all", "subsampled"}
        All k-subsets of each chunk, or ``family_size`` i.i.d. k-subsets per chunk (default
        size ⌈8 (n_c/k)² ln(n_c/0.01)⌉), redrawn until they pass the checks.
    family_size : int, optional
        M per chunk for ``family="subsampled"``.
    partition_seed, family_seed : int
        Public seeds of the partition and of the chunk families (parameters of the
        mechanism, never data-dependent).
    sensitivity_mode : {"rigorous", "paper"}
        Algorithm 1's smooth bound (paper mode: unproven claim).
    record_domain, input_domain, relation, to_kernel_data
        See :func:`.kernel_input_space`.
    name : str, optional
        The spec's name (default ``"ustat.median_of_means.<kernel>"``).
    warn : bool
        Warn when q has to be clamped.

    Returns
    -------
    MedianOfMeansMechanism

    Raises
    ------
    InvalidParameterError
        Bad ε, α, ξ, n < k, an unknown family, or a family that never passes the checks.

    Examples
    --------
    >>> from privaudit.estimators.ustatistics import variance_kernel
    >>> mech = median_of_means_mechanism(300, variance_kernel(0.0, 1.0), 1.0, alpha=0.3,
    ...                                  xi=0.1)
    >>> len(mech.chunks), mech.spec.guarantee.epsilon
    (11, 1.0)
    """
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    mode = check_mode(sensitivity_mode)
    beta = internal_epsilon(epsilon, mode)
    a = check_failure_probability(alpha)
    if family not in ("all", "subsampled"):
        raise InvalidParameterError(f"family must be 'all' or 'subsampled', got {family!r}")
    size = check_count(n, "n")
    k = kernel.degree
    count = median_of_means_chunk_count(a, size, k, warn=warn)
    blocks = median_of_means_partition(
        size, count.chunks, check_count(partition_seed, "partition_seed", 0)
    )
    gen = np.random.default_rng(check_count(family_seed, "family_seed", 0))
    chunks = []
    for records in blocks:
        chunk_family = _chunk_family(family, records.size, k, family_size, gen)
        algorithm = local_hajek_algorithm(
            records.size,
            kernel,
            xi=_chunk_xi(xi, records.size),
            beta=beta,
            family=chunk_family,
            sensitivity_mode=mode,
        )
        chunks.append(WrapperChunk(records=records, algorithm=algorithm))
    space = kernel_input_space(
        kernel,
        size,
        record_domain=record_domain,
        input_domain=input_domain,
        relation=relation,
        to_kernel_data=to_kernel_data,
    )
    spec = _wrapper_spec(
        tuple(chunks),
        epsilon,
        space,
        mode,
        kernel,
        count.chunks,
        a,
        partition_seed,
        family,
        name or f"ustat.median_of_means.{kernel.name}" + (".paper" if mode == "paper" else ""),
    )
    return MedianOfMeansMechanism(spec, tuple(chunks), space, beta, count.failure_bound)


def _wrapper_spec(
    chunks: tuple[WrapperChunk, ...],
    epsilon: float,
    space: KernelInputSpace,
    mode: SensitivityMode,
    kernel: Kernel,
    q: int,
    alpha: float,
    partition_seed: int,
    family: str,
    name: str,
) -> MechanismSpec:
    chunk_specs = [
        local_hajek_spec(
            c.algorithm,
            epsilon,
            input_domain=space.input_domain,
            relation=space.relation,
            name=f"{name}.chunk{i}",
        )
        for i, c in enumerate(chunks)
    ]
    guarantee = parallel_composition([s.guarantee for s in chunk_specs])
    beta = chunks[0].algorithm.beta
    sizes = [int(c.records.size) for c in chunks]
    xis = sorted({c.algorithm.xi for c in chunks})
    notes = (
        f"Wrapper 1 with q = {q} chunks (alpha = {alpha:g}; q = ceil(8 ln(1/alpha)) made "
        f"odd, clamped to floor(n/k)) of sizes {sizes}, cut from a permutation of the n "
        f"records drawn from the public seed {partition_seed} (data-independent); "
        f"Algorithm 1 ({mode} smooth sensitivity, beta = {beta!r}, xi per chunk {xis}, "
        f"{family} family per chunk, resampled until the checks pass) with the same "
        "epsilon in every chunk; the claim is their parallel composition (Lemma A.5). "
        "The smooth claim is max_c S_c, a beta-smooth bound on the l_inf local "
        "sensitivity of the chunk vector (a substitution moves one chunk). "
        + (
            "PAPER MODE: each chunk's smooth bound is the unproven prefactor-1 formula "
            "(docs/derivations.md section 3), so the claim is unproven."
            if mode == "paper"
            else ""
        )
    )
    return MechanismSpec(
        name=name,
        summary=(
            f"Wrapper 1 (median of {q} chunk means) of Algorithm 1, {mode} smooth "
            f"sensitivity, {kernel.name} kernel of degree {kernel.degree}"
        ),
        references=(ALGORITHM_1, USTAT_SPEC_RIGOROUS),
        input_domain=space.input_domain,
        relation=space.relation,
        statistic=(
            f"the vector of the q = {q} chunk statistics A~_n(X_I_c) of Algorithm 1; "
            "the release is the median of their independent private releases "
            "A~_n + (S_c/beta) Z_c, Z_c ~ 1/(1+z^4)"
        ),
        sensitivity=(
            SmoothSensitivityBound(
                beta=beta,
                norm="linf",
                description="max over chunks of Algorithm 1's smooth sensitivity S_c(X_I_c)",
            ),
        ),
        noise=None,
        guarantee=guarantee,
        proof_status="proven" if mode == "rigorous" else "unproven",
        notes=notes.strip(),
    )


@result_dataclass(frozen=True, slots=True, repr=False)
class MedianOfMeansEstimate(PrivateEstimate):
    """A release of Wrapper 1 ∘ Algorithm 1.

    Attributes
    ----------
    estimate : float
        The median of the chunk releases.
    spec : MechanismSpec
        The wrapper's spec.
    noise_std : float
        The largest per-chunk noise standard deviation S_c/β (the median's error is not
        additive; this is a scale, not its standard deviation).  **Not private** (S_c
        depends on the data); hidden from ``repr``.
    chunk_releases : numpy.ndarray, shape (q,)
        The private chunk releases (private: each is an Algorithm 1 release).
    chunk_statistics : tuple of LocalHajekStatistic
        Per-chunk quantities (Ã_n, A_n, L, S).  **Not private**; hidden from ``repr``.
    chunk_sizes : tuple of int
        The sizes of the chunks.
    failure_bound : float
        e^{−q/8} (Lemma A.6).
    """

    NON_PRIVATE_INHERITED: ClassVar[tuple[str, ...]] = ("noise_std",)

    chunk_releases: npt.NDArray[np.float64]
    chunk_statistics: tuple[LocalHajekStatistic, ...] = non_private_field()
    chunk_sizes: tuple[int, ...]
    failure_bound: float

    @property
    def chunks(self) -> int:
        """q."""
        return len(self.chunk_sizes)


def private_median_of_means(
    data: Any,
    kernel: Kernel,
    epsilon: float,
    *,
    alpha: float,
    xi: XiRule,
    family: str = "all",
    family_size: int | None = None,
    partition_seed: int = 0,
    family_seed: int = 0,
    sensitivity_mode: SensitivityMode = "rigorous",
    rng: RandomLike = None,
    budget: Any = None,
    **space: Any,
) -> MedianOfMeansEstimate:
    """An ε-DP estimate of θ by Wrapper 1 ∘ Algorithm 1 (accuracy 1 − α, Lemma A.6).

    Parameters are those of :func:`median_of_means_mechanism` (n is read from the data);
    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`) is charged before any
    noise is drawn.

    Examples
    --------
    >>> import numpy as np
    >>> from privaudit.estimators.ustatistics import variance_kernel
    >>> x = np.random.default_rng(0).uniform(0.0, 1.0, 20_000)
    >>> r = private_median_of_means(x, variance_kernel(0.0, 1.0), 1.0, alpha=0.1, xi=0.05,
    ...                             rng=1)
    >>> r.chunks, abs(r.estimate - 1 / 12) < 0.02
    (19, True)
    """
    n = (
        int(data.number_of_nodes())
        if isinstance(data, nx.Graph)
        else int(kernel.validate_data(data).shape[0])
    )
    mech = median_of_means_mechanism(
        n,
        kernel,
        epsilon,
        alpha=alpha,
        xi=xi,
        family=family,
        family_size=family_size,
        partition_seed=partition_seed,
        family_seed=family_seed,
        sensitivity_mode=sensitivity_mode,
        **space,
    )
    stats = mech.evaluate(data)
    charge(budget, mech.spec, estimator="private_median_of_means")
    releases = mech.chunk_releases(data, 1, rng)[:, 0]
    return MedianOfMeansEstimate(
        estimate=float(np.median(releases)),
        spec=mech.spec,
        noise_std=float(max(s.noise_scale for s in stats)),
        chunk_releases=releases,
        chunk_statistics=stats,
        chunk_sizes=tuple(int(c.records.size) for c in mech.chunks),
        failure_bound=mech.failure_bound,
    )
