"""Corollary 2: degenerate bounded kernels — Wrapper 1 ∘ Algorithm 1 with an explicit ξ.

For a bounded kernel with additive range C and ζ_1 = 0 (E[h | X_i] = θ for every x_i), Lemma
4 of Chaudhuri, Loh, Pandey & Sarkar (2024) bounds every local Hájek projection around θ,
and Lemma A.3(ii) bounds |U_n − θ|; their sum is a valid ξ for |ĥ(i) − U_n| (docs/derivations.md
§4).  With γ = 0.01 (the inner failure probability of Wrapper 1's proofs), on a chunk of n records:

* Lemma 4 at β = γ/2 with σ_i ≤ C/2 (Popoviciu) and m′ = ⌊(n − 1)/(k − 1)⌋, for all i at
  once with probability ≥ 1 − γ/2:
  2σ√(ln(2n/β)/m′) + (4C/3)·ln(2n/β)/m′ (Bernstein; the second term is rebuilt);
* Lemma A.3(ii) with ζ_k ≤ C²/4 and m = ⌊n/k⌋, with probability ≥ 1 − γ/2: the root t of
  m t² = (2ζ_k + 2Ct/3)·ln(4/γ), i.e. t = [(2CΛ/3) + √((2CΛ/3)² + 8mζ_kΛ)]/(2m), Λ = ln(4/γ).

ξ(n) is a public function of the public chunk size, so it keeps Algorithm 1's privacy for
any data; if the kernel is not degenerate the estimate stays private, only less accurate.

References
----------
.. [1] Chaudhuri et al., NeurIPS 2024, Corollary 2, Lemma 4, Lemma A.3(ii), Theorem 3.
.. [2] ``docs/derivations.md`` §4 (explicit ξ for degenerate kernels).
"""

from __future__ import annotations

import math
from typing import Any

from privaudit.spec import RandomLike
from privaudit.spec.errors import InvalidParameterError, SampleSizeError
from privaudit.spec.stable_values import round_up

from ._parameters import SensitivityMode, check_count, check_failure_probability, check_positive
from .kernels import Kernel
from .median_of_means import (
    MedianOfMeansEstimate,
    MedianOfMeansMechanism,
    median_of_means_mechanism,
    private_median_of_means,
)

__all__ = ["degenerate_mean_mechanism", "degenerate_xi", "private_degenerate_mean"]

#: The inner failure probability of Algorithm 1 inside Wrapper 1 (Chaudhuri et al. 2024).
INNER_GAMMA = 0.01


def degenerate_xi(n: int, degree: int, additive_range: float, gamma: float = INNER_GAMMA) -> float:
    """The explicit ξ of Corollary 2 for a chunk of n records (see the module docstring).

    Parameters
    ----------
    n : int
        Records in the chunk (n > k).
    degree : int
        Kernel degree k ≥ 2 (a degenerate kernel of degree 1 is constant).
    additive_range : float
        C > 0.
    gamma : float
        Failure probability γ ∈ (0, 1) of the bound (0.01 inside Wrapper 1).

    Returns
    -------
    float
        ξ with P(max_i |ĥ(i) − U_n| > ξ) ≤ γ when ζ_1 = 0, rounded up to the stable grid
        of :mod:`spec.stable_values` (a public parameter that the spec's notes record).

    Raises
    ------
    InvalidParameterError
        If k < 2, n ≤ k, C ≤ 0 or γ ∉ (0, 1).

    Examples
    --------
    >>> degenerate_xi(1000, 2, 1.0)  # 0.212349… rounded up to the stable grid
    0.21235
    """
    size, k = check_count(n, "n"), check_count(degree, "degree k")
    if k < 2:
        raise InvalidParameterError(
            f"a degenerate kernel needs k >= 2 (k = 1 with zeta_1 = 0 is constant), got k={k}"
        )
    if size <= k:
        raise SampleSizeError(f"need n > k, got n={size}, k={k}")
    c = check_positive(additive_range, "additive range C")
    g = check_failure_probability(gamma, "gamma")
    beta = g / 2.0
    blocks_given_i = (size - 1) // (k - 1)
    log_term = math.log(2.0 * size / beta)
    sigma = c / 2.0
    projection = (
        2.0 * sigma * math.sqrt(log_term / blocks_given_i)
        + (4.0 * c / 3.0) * log_term / blocks_given_i
    )
    blocks = size // k
    zeta_k = c * c / 4.0
    lam = math.log(4.0 / g)
    linear = 2.0 * c * lam / 3.0
    u_deviation = (linear + math.sqrt(linear**2 + 8.0 * blocks * zeta_k * lam)) / (2.0 * blocks)
    return round_up(projection + u_deviation)


def _xi_rule(kernel: Kernel, gamma: float) -> Any:
    c = kernel.additive_range

    def xi(chunk: int) -> float:
        return degenerate_xi(chunk, kernel.degree, c, gamma)

    return xi


def degenerate_mean_mechanism(
    n: int,
    kernel: Kernel,
    epsilon: float,
    *,
    alpha: float,
    gamma: float = INNER_GAMMA,
    family: str = "all",
    partition_seed: int = 0,
    family_seed: int = 0,
    sensitivity_mode: SensitivityMode = "rigorous",
    name: str | None = None,
    **space: Any,
) -> MedianOfMeansMechanism:
    """Corollary 2 as an ε-DP mechanism: Wrapper 1 ∘ Algorithm 1 with ξ = :func:`degenerate_xi`.

    Parameters are those of :func:`.median_of_means_mechanism`; ξ is the public function
    ``degenerate_xi(chunk size, k, C, gamma)``.

    Examples
    --------
    >>> from privaudit.estimators.ustatistics import collision_kernel
    >>> from privaudit.spec import Categorical
    >>> mech = degenerate_mean_mechanism(200, collision_kernel(), 1.0, alpha=0.5,
    ...                                  record_domain=Categorical(size=8))
    >>> len(mech.chunks), mech.spec.guarantee.epsilon
    (7, 1.0)
    """
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    return median_of_means_mechanism(
        n,
        kernel,
        epsilon,
        alpha=alpha,
        xi=_xi_rule(kernel, gamma),
        family=family,
        partition_seed=partition_seed,
        family_seed=family_seed,
        sensitivity_mode=sensitivity_mode,
        name=name or f"ustat.degenerate.{kernel.name}",
        **space,
    )


def private_degenerate_mean(
    data: Any,
    kernel: Kernel,
    epsilon: float,
    *,
    alpha: float,
    gamma: float = INNER_GAMMA,
    family: str = "all",
    partition_seed: int = 0,
    family_seed: int = 0,
    sensitivity_mode: SensitivityMode = "rigorous",
    rng: RandomLike = None,
    budget: Any = None,
    **space: Any,
) -> MedianOfMeansEstimate:
    """An ε-DP estimate of θ for a degenerate bounded kernel (Corollary 2).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`) is charged before any
    noise is drawn.

    The accuracy statement assumes ζ_1 = 0 (e.g. the collision kernel at the uniform law);
    privacy does not depend on it.

    Examples
    --------
    >>> import numpy as np
    >>> from privaudit.estimators.ustatistics import collision_kernel
    >>> x = np.random.default_rng(0).integers(0, 10, 3000)
    >>> r = private_degenerate_mean(x, collision_kernel(), 1.0, alpha=0.3, rng=1)
    >>> abs(r.estimate - 0.1) < 0.01
    True
    """
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    return private_median_of_means(
        data,
        kernel,
        epsilon,
        alpha=alpha,
        xi=_xi_rule(kernel, gamma),
        family=family,
        partition_seed=partition_seed,
        family_seed=family_seed,
        sensitivity_mode=sensitivity_mode,
        rng=rng,
        budget=budget,
        **space,
    )
