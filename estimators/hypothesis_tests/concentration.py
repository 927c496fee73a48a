"""The concentration radius ξ of the private uniformity test (``docs/derivations.md`` §4).

Samples X_1, …, X_n are i.i.d. on the alphabet [m] with probabilities p_v = (1 + a_v)/m,
|a_v| ≤ 1, and the kernel is the collision indicator h(x, y) = 1(x = y) (k = 2, C = 1).
The local Hájek projection of sample i is ĥ(i) = (c_{X_i} − 1)/(n − 1), where c_v counts
the samples equal to v, and A_n = U_n.  Lemma A.21 of the paper bounds max_i |ĥ(i) − U_n|;
its printed constant (ξ = 6/m + 8 log(4n/γ)/n …) is partly garbled, so — as docs/derivations.md §4
recommends — ξ is the sum of the three explicit terms of its proof:

1. **Bernstein given X_i**: ĥ(i) averages n − 1 i.i.d. Bern(p_{X_i}) with variance
   p(1 − p) ≤ 2/m, so with L = ln(4n/γ) and a union bound over the n samples (γ/2),
   |ĥ(i) − p_{X_i}| ≤ 2√(L/(m(n − 1))) + (2/3)·L/(n − 1);
2. **spread of the conditional means**: |p_{X_i} − θ| ≤ 2/m, because p_v ∈ [0, 2/m] and
   θ = Σ_v p_v² ∈ [1/m, 2/m];
3. **Chebyshev on U_n** (γ/2): |U_n − θ| ≤ √((2/γ)(8/(m²n) + 8/(mn²))), with the
   variance bound (A.63) Var(U_n) ≤ 8/(m²n) + 8/(mn²) for |a_v| ≤ 1.

References
----------
.. [1] Chaudhuri, Loh, Pandey & Sarkar, "On differentially private U statistics",
   NeurIPS 2024, Section 5.1, Lemma A.21 and eq. (A.63); ``docs/derivations.md`` §4.
"""

from __future__ import annotations

import math

from ..ustatistics.concentration import (
    INNER_FAILURE_PROBABILITY,
    ConcentrationRadius,
    bernstein_range_term,
    chebyshev_mean_term,
    check_failure_probability,
    check_integer_at_least,
    union_bound_log_term,
)

__all__ = ["check_alphabet_size", "uniformity_xi"]


def check_alphabet_size(m: object) -> int:
    """Return ``m`` as an int ≥ 2, or raise :class:`InvalidParameterError` naming it."""
    return check_integer_at_least(m, 2, f"the alphabet size m must be an integer >= 2, got m={m!r}")


def uniformity_xi(
    n: int, m: int, *, gamma: float = INNER_FAILURE_PROBABILITY
) -> ConcentrationRadius:
    """ξ for the collision kernel on ``n`` samples over an alphabet of size ``m``.

    Parameters
    ----------
    n : int
        The number of samples Algorithm 1 runs on (the chunk size n_α inside Wrapper 1),
        n ≥ 2.
    m : int
        The alphabet size, m ≥ 2.
    gamma : float
        γ ∈ (0, 1): ξ bounds max_i |ĥ(i) − U_n| with probability ≥ 1 − γ whenever every
        p_v ≤ 2/m.

    Returns
    -------
    ConcentrationRadius
        Terms ``bernstein_variance``, ``bernstein_range``, ``projection_spread`` (= 2/m)
        and ``chebyshev_mean`` (see the module docstring).

    Raises
    ------
    InvalidParameterError
        If n < 2, m < 2 or γ ∉ (0, 1).

    References
    ----------
    .. [1] Chaudhuri et al. 2024, Lemma A.21 and (A.63); ``docs/derivations.md`` §4.

    Examples
    --------
    >>> xi = uniformity_xi(1000, 100)
    >>> xi.terms["projection_spread"]
    0.02
    >>> round(xi.value, 4)
    0.0646
    """
    size = check_integer_at_least(n, 2, f"the uniformity test needs n >= 2 samples, got n={n!r}")
    alphabet = check_alphabet_size(m)
    g = check_failure_probability(gamma, "gamma")
    log_term = union_bound_log_term(size, g)
    variance_un = 8.0 / (alphabet**2 * size) + 8.0 / (alphabet * size**2)
    terms = {
        "bernstein_variance": 2.0 * math.sqrt(log_term / (alphabet * (size - 1))),
        "bernstein_range": bernstein_range_term(log_term, size - 1),
        "projection_spread": 2.0 / alphabet,
        "chebyshev_mean": chebyshev_mean_term(variance_un, g),
    }
    return ConcentrationRadius.from_terms(
        terms,
        n=size,
        failure_probability=g,
        source="Lemma A.21 of Chaudhuri et al. 2024 as three explicit terms: Bernstein on "
        "(c_{X_i}-1)/(n-1) given X_i (union bound, gamma/2), |p_{X_i} - theta| <= 2/m, "
        "Chebyshev with (A.63) (gamma/2); docs/derivations.md section 4",
    )
