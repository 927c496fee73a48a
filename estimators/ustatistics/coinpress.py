"""Algorithms A.2/A.3 (CoinPress-style U-statistic mean) as an audited ε-DP mechanism.

The baseline of Chaudhuri, Loh, Pandey & Sarkar (2024), Appendix A.3: with a public
radius R (|θ| < R) and a public sub-Gaussian proxy τ of the kernel, refine [−R, R] in t
steps of clipped-mean-plus-Laplace and release the centre of the last interval.  The
schedule (every interval length, clipping margin, sensitivity and Laplace scale) is public
(:mod:`.coinpress_schedule`); this module runs it on the kernel values Y_j = h(X_{S_j}) of a
family 𝔽 — the naive disjoint blocks, all k-subsets, or M i.i.d. subsets — vectorised over
many releases (the values are sorted once; each clipped mean is two binary searches and a
prefix sum).

Privacy: step i releases a clipped mean of global sensitivity Δ_i = dep(𝔽)·(interval
length + 2Q(β_i)) plus Laplace(Δ_i/ε_i); by basic composition
(:func:`mechanisms.composition.basic_composition`) the release is Σε_i = ε-DP under
substitute-one (Theorem A.1), whatever the data-independent τ, R, Q and family.

Spec: the statistic the auditor checks is the first step's clipped mean
(1/m) Σ_j proj_{[−R−Q(β_1), R+Q(β_1)]}(Y_j) with its global sensitivity Δ_1 (every later step
has the same form with a public interval); the claim is ``PureDP(ε)`` from the composition.

Public parameters: R and τ are inputs (τ defaults to the kernel's declared
``subgaussian_proxy``, else to C²/4 for a kernel of additive range C, by Hoeffding's
lemma); the family is drawn from a public seed.  Nothing is estimated from the data.

References
----------
.. [1] Chaudhuri et al., NeurIPS 2024, Algorithms A.2–A.3, Theorem A.1, Propositions 1,
   A.1 and A.2.
.. [2] Biswas, Dong, Kamath & Ullman, CoinPress, NeurIPS 2020.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import numpy.typing as npt

from privaudit.mechanisms import Mechanism
from privaudit.spec import GlobalSensitivity, Laplace, MechanismSpec, RandomLike, Reference
from privaudit.spec.errors import InvalidParameterError, SampleSizeError

from .._result import PrivateEstimate
from ._parameters import check_count, check_positive, claimed_epsilon
from .batched_local_hajek import all_index_tuples
from .coinpress_schedule import CoinPressSchedule, FamilyKind, coinpress_schedule
from .families import SubsetFamily
from .kernel_domains import KernelInputSpace, kernel_input_space
from .kernels import Kernel
from .local_hajek_mechanism import EvaluationCache

__all__ = [
    "CoinPressEstimate",
    "CoinPressMechanism",
    "coinpress_mechanism",
    "default_coinpress_subsample_size",
    "private_coinpress_mean",
    "public_subgaussian_proxy",
]

COINPRESS = Reference(
    citation="Chaudhuri, Loh, Pandey & Sarkar, 'On differentially private U statistics', "
    "NeurIPS 2024 (arXiv 2407.04945)",
    locator="Algorithms A.2-A.3 (U-StatMean, U-StatOneStep), Theorem A.1, Propositions 1, A.1, A.2",
    url="https://arxiv.org/abs/2407.04945",
)
BISWAS_2020 = Reference(
    citation="Biswas, Dong, Kamath & Ullman, 'CoinPress: practical private mean and "
    "covariance estimation', NeurIPS 2020"
)


def public_subgaussian_proxy(kernel: Kernel, tau: float | None = None) -> float:
    """τ for the schedule: the given value, the kernel's declared proxy, or C²/4.

    A kernel with values in an interval of length C is subG(C²/4) (Hoeffding's lemma).

    Raises
    ------
    InvalidParameterError
        If τ is not given and the kernel declares neither a proxy nor a range.
    """
    if tau is not None:
        return check_positive(tau, "tau")
    if kernel.subgaussian_proxy is not None:
        return float(kernel.subgaussian_proxy)
    if kernel.is_bounded:
        return kernel.additive_range**2 / 4.0
    raise InvalidParameterError(
        f"kernel {kernel.name!r} declares neither a sub-Gaussian proxy nor a range: give the "
        "public tau"
    )


def default_coinpress_subsample_size(n: int, k: int, gamma: float = 0.01) -> int:
    """M = ⌈8 (n/k) ln(n/γ)⌉ subsets (Lemma A.8 asks for Ω((n/k) log(n/γ)); 8 is our choice)."""
    return math.ceil(8.0 * n / k * math.log(n / gamma))


_KIND_OF_FAMILY: dict[str, FamilyKind] = {
    "all_tuples": "all",
    "naive_blocks": "naive",
    "subsampled": "subsampled",
}


def _family(
    family: Any, n: int, k: int, family_size: int | None, seed: int
) -> tuple[FamilyKind, npt.NDArray[np.int64], float]:
    """(kind, index tuples (M, k), dep) of the requested family."""
    kind: FamilyKind
    if isinstance(family, SubsetFamily):
        if (family.n, family.degree) != (n, k):
            raise InvalidParameterError(
                f"the family is on (n, k) = ({family.n}, {family.degree}), expected ({n}, {k})"
            )
        kind = _KIND_OF_FAMILY[family.kind]
        chosen = family
    elif family == "all":
        kind, chosen = "all", SubsetFamily.all_tuples(n, k)
    elif family == "naive":
        kind, chosen = "naive", SubsetFamily.naive_blocks(n, k)
    elif family == "subsampled":
        m = family_size if family_size is not None else default_coinpress_subsample_size(n, k)
        kind, chosen = (
            "subsampled",
            SubsetFamily.subsampled(
                n, k, check_count(m, "family_size"), np.random.default_rng(seed)
            ),
        )
    else:
        raise InvalidParameterError(
            f"family must be 'naive', 'all', 'subsampled' or a SubsetFamily, got {family!r}"
        )
    tuples = all_index_tuples(n, k) if chosen.tuples is None else chosen.tuples
    return kind, tuples, float(chosen.dependence)


def clipped_means(
    sorted_values: npt.NDArray[np.float64],
    prefix: npt.NDArray[np.float64],
    lower: npt.NDArray[np.float64],
    upper: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """(1/m) Σ_j clip(Y_j, lower, upper) for arrays of intervals, by binary search."""
    m = sorted_values.size
    below = np.searchsorted(sorted_values, lower, side="left")
    within = np.searchsorted(sorted_values, upper, side="right")
    total = lower * below + (prefix[within] - prefix[below]) + upper * (m - within)
    return total / m


class CoinPressMechanism(Mechanism):
    """Algorithm A.2 on a fixed public family (see the module docstring).

    Build it with :func:`coinpress_mechanism`.
    """

    def __init__(
        self,
        spec: MechanismSpec,
        kernel: Kernel,
        tuples: npt.NDArray[np.int64],
        schedule: CoinPressSchedule,
        space: KernelInputSpace,
    ) -> None:
        super().__init__(spec)
        self._kernel = kernel
        self._tuples = tuples
        self._schedule = schedule
        self._space = space
        self._cached = EvaluationCache(self._sorted_values)

    @property
    def schedule(self) -> CoinPressSchedule:
        """The public schedule (steps, budgets, sensitivities, scales)."""
        return self._schedule

    @property
    def epsilon(self) -> float:
        """ε of the claim."""
        return claimed_epsilon(self.spec)

    @property
    def family_size(self) -> int:
        """m = |𝔽|."""
        return int(self._tuples.shape[0])

    def _sorted_values(self, data: Any) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        x = self._kernel.validate_data(data)
        values = np.concatenate(
            [
                self._kernel.evaluate(x, self._tuples[s : s + (1 << 20)], validate=False)
                for s in range(0, self._tuples.shape[0], 1 << 20)
            ]
        )
        ordered = np.sort(values)
        return ordered, np.concatenate([[0.0], np.cumsum(ordered)])

    def _values(self, validated: Any) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        return self._cached(self._space.to_kernel_data(validated))

    def statistic(self, data: Any) -> float:
        """The first step's clipped mean (1/m) Σ_j proj_{[−R−Q(β₁), R+Q(β₁)]}(Y_j)."""
        ordered, prefix = self._values(self.validate_input(data))
        lo, hi = self._schedule.clip_bounds(0, np.zeros(1))
        return float(clipped_means(ordered, prefix, lo, hi)[0])

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        ordered, prefix = self._values(data)
        centres = np.zeros(size)
        for step, scale in enumerate(self._schedule.laplace_scales):
            lo, hi = self._schedule.clip_bounds(step, centres)
            centres = clipped_means(ordered, prefix, lo, hi) + Laplace(scale=scale).sample(
                rng, size
            )
        return centres


def coinpress_mechanism(
    n: int,
    kernel: Kernel,
    epsilon: float,
    *,
    radius: float,
    tau: float | None = None,
    family: Any = "all",
    family_size: int | None = None,
    family_seed: int = 0,
    gamma: float = 0.01,
    record_domain: Any = None,
    input_domain: Any = None,
    relation: Any = None,
    to_kernel_data: Callable[[Any], Any] | None = None,
    name: str | None = None,
    warn: bool = True,
) -> CoinPressMechanism:
    """Algorithm A.2 on n records of ``kernel`` as an ε-DP mechanism with its spec.

    Parameters
    ----------
    n : int
        The public number of records, n ≥ 2k (Setting 1).
    kernel : Kernel
        The kernel h (bounded or sub-Gaussian; its values need no declared range).
    epsilon : float
        The total claim ε > 0 (t steps at ε/(2t), one at ε/2).
    radius : float
        Public R > 0 with |θ| < R.
    tau : float, optional
        Public sub-Gaussian proxy τ (default: see :func:`public_subgaussian_proxy`).
    family : {"all", "naive", "subsampled"} or SubsetFamily
        𝔽; a subsampled family has ``family_size`` i.i.d. subsets (default
        :func:`default_coinpress_subsample_size`) drawn from ``family_seed``.
    gamma : float
        Accuracy failure probability γ (public; only affects t and Q).
    record_domain, input_domain, relation, to_kernel_data
        See :func:`.kernel_input_space`.
    name : str, optional
        The spec's name (default ``"ustat.coinpress.<family>.<kernel>"``).
    warn : bool
        Warn (:class:`~spec.errors.UtilityConditionWarning`) when a condition of Theorem
        A.1 fails.

    Returns
    -------
    CoinPressMechanism

    Examples
    --------
    >>> from privaudit.estimators.ustatistics import variance_kernel
    >>> mech = coinpress_mechanism(40, variance_kernel(0.0, 1.0), 1.0, radius=1.0,
    ...                            warn=False)
    >>> round(sum(mech.schedule.epsilons), 12), mech.spec.guarantee.epsilon
    (1.0, 1.0)
    """
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    size = check_count(n, "n")
    k = kernel.degree
    if 2 * k > size:
        raise SampleSizeError(f"Algorithm A.2 needs k <= n/2, got n={size}, k={k}")
    proxy = public_subgaussian_proxy(kernel, tau)
    kind, tuples, dep = _family(
        family, size, k, family_size, check_count(family_seed, "family_seed", 0)
    )
    schedule = coinpress_schedule(
        epsilon=epsilon,
        radius=radius,
        tau=proxy,
        kind=kind,
        n=size,
        degree=k,
        dependence=dep,
        family_size=int(tuples.shape[0]),
        gamma=gamma,
        warn=warn,
    )
    space = kernel_input_space(
        kernel,
        size,
        record_domain=record_domain,
        input_domain=input_domain,
        relation=relation,
        to_kernel_data=to_kernel_data,
    )
    steps = ", ".join(
        f"(eps={e:.6g}, Delta={d:.6g}, b={b:.6g})"
        for e, d, b in zip(
            schedule.epsilons, schedule.sensitivities, schedule.laplace_scales, strict=True
        )
    )
    spec = MechanismSpec(
        name=name or f"ustat.coinpress.{kind}.{kernel.name}",
        summary=(
            f"Algorithm A.2 (CoinPress-style U-statistic mean), {kind} family of "
            f"{tuples.shape[0]} {k}-subsets, {kernel.name} kernel, "
            f"{schedule.steps} + 1 Laplace steps"
        ),
        references=(COINPRESS, BISWAS_2020),
        input_domain=space.input_domain,
        relation=space.relation,
        statistic=(
            f"first step's clipped mean (1/m) sum_j proj_[-R-Q, R+Q](h(X_S_j)) over the "
            f"{kind} family (m = {tuples.shape[0]}, R = {schedule.radius:g}, Q = "
            f"Q(gamma/t) = {schedule.margins[0]:.6g}); every later step clips to a "
            "public interval of the same form"
        ),
        sensitivity=(GlobalSensitivity(value=schedule.sensitivities[0]),),
        noise=None,
        guarantee=schedule.guarantee,
        notes=(
            f"Public parameters: R = {schedule.radius!r}, tau = {proxy!r} "
            f"({'given' if tau is not None else 'declared by the kernel or C^2/4'}), "
            f"gamma = {gamma!r}, family {kind} with exact dep(F) = {dep:.6g}, t = "
            f"{schedule.steps}. Steps (epsilon_i, sensitivity Delta_i = dep(F) (interval "
            f"length + 2Q(beta_i)), Laplace scale b_i): {steps}. The claim is their basic "
            "composition (Theorem A.1). Theorem A.1's accuracy conditions: dep "
            f"{'holds' if schedule.dependence_condition else 'FAILS'}, Q_avg(gamma/t) < "
            f"Q(gamma) {'holds' if schedule.mean_condition else 'FAILS'} (accuracy only)."
        ),
    )
    return CoinPressMechanism(spec, kernel, tuples, schedule, space)


@dataclass(frozen=True, slots=True)
class CoinPressEstimate(PrivateEstimate):
    """A release of Algorithm A.2.

    Attributes
    ----------
    estimate : float
        The centre of the final interval.
    spec : MechanismSpec
        The mechanism's spec.
    noise_std : float
        √2·b_{t+1}, the standard deviation of the last Laplace noise.
    schedule : CoinPressSchedule
        Every public number of the run.
    """

    schedule: CoinPressSchedule

    @property
    def steps(self) -> int:
        """t (the release has t + 1 Laplace steps)."""
        return self.schedule.steps


def private_coinpress_mean(
    data: Any,
    kernel: Kernel,
    epsilon: float,
    *,
    radius: float,
    tau: float | None = None,
    family: Any = "all",
    family_size: int | None = None,
    family_seed: int = 0,
    gamma: float = 0.01,
    rng: RandomLike = None,
    warn: bool = True,
    budget: Any = None,
    **space: Any,
) -> CoinPressEstimate:
    """An ε-DP estimate of θ by Algorithm A.2 (see :func:`coinpress_mechanism`).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`) is charged before any
    noise is drawn.

    Examples
    --------
    >>> import numpy as np
    >>> from privaudit.estimators.ustatistics import variance_kernel
    >>> x = np.random.default_rng(0).uniform(0.0, 1.0, 300)
    >>> r = private_coinpress_mean(x, variance_kernel(0.0, 1.0), 1.0, radius=1.0,
    ...                            family="naive", rng=2, warn=False)
    >>> abs(r.estimate - 1 / 12) < 0.1
    True
    """
    n = (
        int(data.number_of_nodes())
        if isinstance(data, nx.Graph)
        else int(kernel.validate_data(data).shape[0])
    )
    mech = coinpress_mechanism(
        n,
        kernel,
        epsilon,
        radius=radius,
        tau=tau,
        family=family,
        family_size=family_size,
        family_seed=family_seed,
        gamma=gamma,
        warn=warn,
        **space,
    )
    value = mech.release(data, rng=rng, budget=budget)
    return CoinPressEstimate(
        estimate=float(value),
        spec=mech.spec,
        noise_std=math.sqrt(2.0) * mech.schedule.laplace_scales[-1],
        schedule=mech.schedule,
    )
