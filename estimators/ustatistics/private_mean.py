"""The analyst's entry point to Algorithm 1: :func:`private_mean_local_hajek`.

One call validates the data, builds the audited mechanism of
:func:`.private_mean_local_hajek_mechanism` for the data's n (so the release is made by the
very spec it reports) and returns a :class:`LocalHajekEstimate`: the private estimate
together with the non-private A_n and Ã_n, S(X), L, the noise scale, the claim and the
mode.  The non-private fields are for analysis and testing only — publishing them breaks
the privacy guarantee.

Graph estimators call it with ``adjacency_edge_kernel()`` on an adjacency matrix (records
are nodes, node-neighbouring), the uniformity test with ``collision_kernel()``.

References
----------
.. [1] Chaudhuri, Loh, Pandey & Sarkar, NeurIPS 2024, Algorithm 1, Theorems 2 and 4.
"""

from __future__ import annotations

from typing import Any, ClassVar

import networkx as nx

from privaudit.spec import RandomLike
from privaudit.spec.errors import InvalidParameterError

from .._result import PrivateEstimate, non_private_field, result_dataclass
from ._parameters import SensitivityMode, claimed_epsilon
from .kernels import Kernel
from .local_hajek_mechanism import private_mean_local_hajek_mechanism

__all__ = ["LocalHajekEstimate", "private_mean_local_hajek"]


@result_dataclass(frozen=True, slots=True, repr=False)
class LocalHajekEstimate(PrivateEstimate):
    """A release of Algorithm 1 and the quantities behind it.

    Attributes
    ----------
    estimate : float
        The private release Ã_n + (S/β)·Z.
    spec : MechanismSpec
        The spec it was released under (claim, relation, noise, proof status).
    noise_std : float
        S/β, the standard deviation of the noise (Var Z = 1).  **Not private** (S depends
        on the data); hidden from ``repr``.
    u_statistic : float
        A_n, the non-private family mean (U_n for all k-subsets).  **Not private**; hidden
        from ``repr``.
    weighted_statistic : float
        Ã_n, the non-private statistic that was privatised.  **Not private**; hidden from
        ``repr``.
    smooth_sensitivity : float
        S(X).  **Not private** (it depends on the data through L); hidden from ``repr``.
    level : int
        L, the band level.  **Not private**; hidden from ``repr``.
    beta : float
        Algorithm 1's ε.
    sensitivity_mode : {"rigorous", "paper"}
        Which smooth bound; paper-mode claims are unproven.
    """

    NON_PRIVATE_INHERITED: ClassVar[tuple[str, ...]] = ("noise_std",)

    u_statistic: float = non_private_field()
    weighted_statistic: float = non_private_field()
    smooth_sensitivity: float = non_private_field()
    level: int = non_private_field()
    beta: float
    sensitivity_mode: SensitivityMode

    @property
    def noise_scale(self) -> float:
        """S/β (equal to :attr:`noise_std`)."""
        return self.noise_std

    @property
    def epsilon(self) -> float:
        """The claimed ε."""
        return claimed_epsilon(self.spec)


def private_mean_local_hajek(
    data: Any,
    kernel: Kernel,
    epsilon: float,
    *,
    xi: float,
    family: Any = None,
    sensitivity_mode: SensitivityMode = "rigorous",
    rng: RandomLike = None,
    budget: Any = None,
    **space: Any,
) -> LocalHajekEstimate:
    """An ε-DP estimate of θ = E h(X_1, …, X_k) by Algorithm 1.

    Parameters
    ----------
    data : array_like or graph
        n records of the kernel's domain (n is public); for graph kernels an adjacency
        matrix or ``networkx.Graph`` on n nodes.
    kernel : Kernel
        A bounded kernel; its declared range C is public.
    epsilon : float
        The total privacy claim ε > 0.  Rigorous mode: Algorithm 1's β = ε/(3 + 3^{3/4});
        paper mode: β = ε/10 (unproven claim).
    xi : float
        Public concentration parameter ξ ≥ 0 (e.g. from :func:`.degenerate_xi` or
        :func:`.subgaussian_xi`); accuracy only.
    family : None, SubsetFamily, TupleFamily or (M, k) array
        None for all k-subsets; an explicit public family must pass the checks.
    sensitivity_mode : {"rigorous", "paper"}
        The smooth bound (default rigorous).
    rng : numpy.random.Generator, int or None
        Source of the noise.
    budget : PrivacyBudget, optional
        Charged for this release before any noise is drawn
        (:class:`~spec.errors.BudgetExceededError` if it would be exceeded).
    **space
        ``record_domain``, ``input_domain``, ``relation`` or ``to_kernel_data`` for
        :func:`.kernel_input_space`.

    Returns
    -------
    LocalHajekEstimate

    Raises
    ------
    InvalidParameterError
        ε ≤ 0, ξ < 0, n < k, an unbounded kernel, a family failing the checks.
    InvalidInputError, KernelRangeError
        Bad data (NaN/inf, shape, empty, outside the domain) or a kernel value outside its
        declared range.

    Examples
    --------
    >>> import numpy as np
    >>> from privaudit.estimators.ustatistics import variance_kernel
    >>> x = np.random.default_rng(0).uniform(0.0, 1.0, 500)
    >>> r = private_mean_local_hajek(x, variance_kernel(0.0, 1.0), 1.0, xi=0.1, rng=1)
    >>> abs(r.estimate - 1 / 12) < 0.05, r.spec.proof_status
    (True, 'proven')
    """
    n = _record_count(data, kernel)
    mech = private_mean_local_hajek_mechanism(
        n, kernel, epsilon, xi=xi, family=family, sensitivity_mode=sensitivity_mode, **space
    )
    validated = mech.validate_input(data)
    stat = mech.evaluate(validated)
    value = mech.release(validated, rng=rng, budget=budget)
    return LocalHajekEstimate(
        estimate=float(value),
        spec=mech.spec,
        noise_std=stat.noise_scale,
        u_statistic=stat.mean,
        weighted_statistic=stat.weighted_mean,
        smooth_sensitivity=stat.smooth_sensitivity,
        level=stat.level,
        beta=stat.beta,
        sensitivity_mode=stat.sensitivity_mode,
    )


def _record_count(data: Any, kernel: Kernel) -> int:
    """n of a data set (or the node count of a graph), validated by the kernel."""
    if isinstance(data, nx.Graph):
        return int(data.number_of_nodes())
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    return int(kernel.validate_data(data).shape[0])
