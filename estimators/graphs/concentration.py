"""The concentration radius ξ of Algorithm 1 for edge and triangle density of a graph.

Records are nodes; the local Hájek projection of node i is its normalised degree
ĥ(i) = deg(i)/(n − 1) (edge density, k = 2) or its normalised triangle count
ĥ(i) = t_i / C(n − 1, 2) (triangle density, k = 3).  Under the latent-position model of
Chaudhuri et al. (2024, Section 5.2) (latent points uniform on the sphere S², edges 1(‖X_i − X_j‖ ≤
r)) the conditional mean of ĥ(i) given X_i does not depend on X_i (ζ_1 = 0), so

    max_i |ĥ(i) − A_n| ≤ max_i |ĥ(i) − θ| + |A_n − θ|,

and ξ is the sum of a Bernstein bound on every ĥ(i) (union bound at γ/2) and a Chebyshev
bound on |A_n − θ| (at γ/2).  Both need an upper bound on θ — a public radius bound
(docs/derivations.md §4) or a private coarse estimate (option (b), see
:mod:`estimators.graphs.coarse_estimate`).  Privacy never depends on ξ; utility does.

References
----------
.. [1] Chaudhuri, Loh, Pandey & Sarkar, "On differentially private U statistics",
   NeurIPS 2024, Section 5.2 and Appendix A.6.2; ``docs/derivations.md`` §4, §6.
.. [2] Hoeffding, "Probability inequalities for sums of bounded random variables",
   JASA 1963, eq. (5.7) (Bernstein form for U-statistics; Lemma A.3(ii) of [1]).
"""

from __future__ import annotations

import math

from privaudit.spec import check_probability

from ..ustatistics.concentration import (
    INNER_FAILURE_PROBABILITY,
    ConcentrationRadius,
    bernstein_range_term,
    bernstein_variance_term,
    chebyshev_mean_term,
    check_failure_probability,
    check_integer_at_least,
    union_bound_log_term,
)

__all__ = ["bernoulli_variance_bound", "edge_density_xi", "triangle_density_xi"]


def _check_size(n: object, minimum: int, what: str) -> int:
    return check_integer_at_least(n, minimum, f"{what} needs n >= {minimum} nodes, got n={n!r}")


def bernoulli_variance_bound(mean_upper: float) -> float:
    """An upper bound on μ(1 − μ) for every μ ∈ [0, ``mean_upper``].

    μ(1 − μ) increases on [0, ½], so the bound is u(1 − u) with u = min(mean_upper, ½).

    Examples
    --------
    >>> bernoulli_variance_bound(0.1), bernoulli_variance_bound(0.9)
    (0.09000000000000001, 0.25)
    """
    u = min(check_probability(mean_upper, "mean_upper"), 0.5)
    return u * (1.0 - u)


def edge_density_xi(
    n: int, p_upper: float, *, gamma: float = INNER_FAILURE_PROBABILITY
) -> ConcentrationRadius:
    """ξ for the edge density of a graph on ``n`` nodes whose edge probability is ≤ ``p_upper``.

    With σ² = p(1 − p) ≤ :func:`bernoulli_variance_bound` (p_upper) and L = ln(4n/γ):

    * ``bernstein_variance`` + ``bernstein_range`` = √(2σ²L/(n − 1)) + (2/3)·L/(n − 1):
      given X_i, deg(i) ~ Bin(n − 1, p), so Bernstein's inequality and a union bound over
      the n nodes give max_i |ĥ(i) − p| below it with probability ≥ 1 − γ/2 (docs/derivations.md
      §4);
    * ``chebyshev_mean`` = √(2·Var(U_n)/γ) with Var(U_n) = 2p(1 − p)/(n(n − 1)) (docs/derivations.md
      §6, ζ_1 = 0): |U_n − p| below it with probability ≥ 1 − γ/2.

    Parameters
    ----------
    n : int
        Number of nodes of the (chunk) graph Algorithm 1 runs on, n ≥ 2.
    p_upper : float
        A public (or privately estimated) upper bound on p = P(A_ij = 1), in [0, 1].
    gamma : float
        Failure probability γ ∈ (0, 1); 0.01 inside Wrapper 1.

    Returns
    -------
    ConcentrationRadius
        The radius and its three terms.

    Raises
    ------
    InvalidParameterError
        If n < 2, p_upper ∉ [0, 1] or γ ∉ (0, 1).

    References
    ----------
    .. [1] Chaudhuri et al. 2024, Section 5.2, Algorithm A.5; ``docs/derivations.md`` §4.

    Examples
    --------
    >>> xi = edge_density_xi(1000, 0.01)
    >>> sorted(xi.terms)
    ['bernstein_range', 'bernstein_variance', 'chebyshev_mean']
    >>> round(xi.value, 4)
    0.0266
    """
    size = _check_size(n, 2, "edge density")
    g = check_failure_probability(gamma, "gamma")
    variance = bernoulli_variance_bound(p_upper)
    log_term = union_bound_log_term(size, g)
    terms = {
        "bernstein_variance": bernstein_variance_term(variance, log_term, size - 1),
        "bernstein_range": bernstein_range_term(log_term, size - 1),
        "chebyshev_mean": chebyshev_mean_term(2.0 * variance / (size * (size - 1)), g),
    }
    return ConcentrationRadius.from_terms(
        terms,
        n=size,
        failure_probability=g,
        source="Bernstein on deg(i)/(n-1) given X_i (union bound, gamma/2) + Chebyshev on "
        "U_n with Var(U_n) = 2p(1-p)/(n(n-1)) (gamma/2); docs/derivations.md section 4",
    )


def triangle_density_xi(
    n: int, theta_upper: float, *, gamma: float = INNER_FAILURE_PROBABILITY
) -> ConcentrationRadius:
    """ξ for the triangle density on ``n`` nodes when θ (the triangle density) ≤ ``theta_upper``.

    Given X_i, ĥ(i) = t_i / C(n − 1, 2) is a U-statistic of degree 2 over the other n − 1
    latent points, with kernel g(x_j, x_l) = A_ij·A_il·A_jl ∈ {0, 1}, mean θ (ζ_1 = 0 by
    rotation invariance) and variance σ² ≤ θ(1 − θ).  With m′ = ⌊(n − 1)/2⌋ and
    L = ln(4n/γ):

    * ``bernstein_variance`` + ``bernstein_range`` = √(2σ²L/m′) + (2/3)·L/m′: Hoeffding's
      Bernstein-type bound for U-statistics, P(|U − θ| ≥ t) ≤ 2 exp(−m′t²/(2σ² + 2t/3))
      (Lemma A.3(ii) with |g − θ| ≤ 1), with a union bound over the n nodes (γ/2);
    * ``chebyshev_mean`` = √(2·Var(U_n)/γ), with eq. (3) and ζ_1 = 0, ζ_2 ≤ (2/3)ζ_3
      (Lemma A.2), ζ_3 ≤ σ²: Var(U_n) ≤ (2n − 5)·σ²/C(n, 3).

    This is a rigorous but conservative radius of order r²√(log n/n); the slides' heuristic
    ξ ≈ c·r³√(log n/n) (``docs/derivations.md`` §6) uses the finer Hoeffding decomposition of
    g and has no explicit constant.

    Parameters
    ----------
    n : int
        Number of nodes, n ≥ 3.
    theta_upper : float
        Upper bound on θ = P(A_12 A_23 A_13 = 1), in [0, 1].  Under the RGG model
        θ ≤ p², since given X_1 the edges A_12, A_13 are independent Bern(p).
    gamma : float
        Failure probability γ ∈ (0, 1).

    Returns
    -------
    ConcentrationRadius

    Raises
    ------
    InvalidParameterError
        If n < 3, theta_upper ∉ [0, 1] or γ ∉ (0, 1).

    References
    ----------
    .. [1] Chaudhuri et al. 2024, Lemma A.3(ii) and eq. (3); Sarkar's IMSI 2026 talk on
       triangle density (``docs/derivations.md`` §6).

    Examples
    --------
    >>> xi = triangle_density_xi(1000, 1e-4)
    >>> xi.value > xi.terms["bernstein_variance"] > 0
    True
    """
    size = _check_size(n, 3, "triangle density")
    g = check_failure_probability(gamma, "gamma")
    variance = bernoulli_variance_bound(theta_upper)
    log_term = union_bound_log_term(size, g)
    blocks = (size - 1) // 2
    variance_un = (2.0 * size - 5.0) * variance / math.comb(size, 3)
    terms = {
        "bernstein_variance": bernstein_variance_term(variance, log_term, blocks),
        "bernstein_range": bernstein_range_term(log_term, blocks),
        "chebyshev_mean": chebyshev_mean_term(variance_un, g),
    }
    return ConcentrationRadius.from_terms(
        terms,
        n=size,
        failure_probability=g,
        source="Hoeffding-Bernstein for the degree-2 U-statistic t_i/C(n-1,2) given X_i "
        "(union bound, gamma/2) + Chebyshev on U_n with Var(U_n) <= (2n-5) "
        "sigma^2/C(n,3) (gamma/2); docs/derivations.md section 6",
    )
