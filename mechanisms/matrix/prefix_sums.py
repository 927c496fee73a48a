"""Continual counting mechanisms: the binary tree and the square-root factorization.

Each factory returns a :class:`~mechanisms.matrix.FactorizationMechanism` releasing
y = R x + N(0, σ² I) for the prefix-sum workload A = L R, whose spec claims the Gaussian
mechanism at the factorization's exact sensitivity (largest column norm, rounded up):

* ``relation="substitute_one"``: the input is the stream x ∈ [0, 1]^T and neighbouring
  streams differ at one time step (event-level privacy of Dwork et al. 2010);
* ``relation="add_remove_one"``: the input is a multiset of event times in {0, …, T−1}
  and x its histogram; one event is added or removed (x changes by ±e_t).

Both give neighbours x' − x = c e_t with |c| ≤ 1, so Δ₂ = max_t ‖R e_t‖.
"""

from __future__ import annotations

import math

from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.stable_values import round_up

from .binary_tree import (
    CHAN_SHI_SONG_2011,
    DWORK_ET_AL_2010,
    HONAKER_2015,
    tree_column_counts,
    tree_level_sizes,
    tree_node_sums,
)
from .factorization import FactorizationMechanism
from .sqrt_toeplitz import FHU_2023, HUU_2023, landau_constants, sqrt_toeplitz_apply

__all__ = [
    "PREFIX_RELATIONS",
    "binary_tree_mechanism",
    "binary_tree_sensitivity",
    "sqrt_toeplitz_mechanism",
    "sqrt_toeplitz_sensitivity",
]

#: The relations of the prefix-sum factories (both give ±e_t-type neighbours).
PREFIX_RELATIONS: tuple[str, ...] = ("substitute_one", "add_remove_one")


def _check_relation(relation: str) -> str:
    if relation not in PREFIX_RELATIONS:
        raise InvalidParameterError(f"relation must be one of {PREFIX_RELATIONS}, got {relation!r}")
    return relation


def _name(kind: str, T: int, relation: str) -> str:
    suffix = "" if relation == "substitute_one" else f",{relation}"
    return f"matrix.{kind}[T={int(T)}{suffix}]"


def binary_tree_sensitivity(T: int) -> float:
    """√(⌊log₂ T⌋ + 1): the largest column norm of the binary-tree strategy (exact).

    Examples
    --------
    >>> binary_tree_sensitivity(16) ** 2, binary_tree_sensitivity(17) ** 2
    (5.000000000000001, 5.000000000000001)
    """
    return math.sqrt(float(tree_column_counts(T).max()))


def sqrt_toeplitz_sensitivity(T: int) -> float:
    """√G(T − 1) = √(Σ_{k<T} c_k²): the largest (first) column norm of A^{1/2}."""
    return math.sqrt(float(landau_constants(T)[-1]))


def binary_tree_mechanism(
    T: int,
    epsilon: float | None = None,
    delta: float | None = None,
    *,
    rho: float | None = None,
    mu: float | None = None,
    relation: str = "substitute_one",
) -> FactorizationMechanism:
    """The binary-tree mechanism: the sums of all dyadic intervals in [0, T) plus N(0, σ² I).

    Parameters
    ----------
    T : int
        Stream length T ≥ 1.
    epsilon, delta, rho, mu : float, optional
        Exactly one target: (ε, δ), ρ-zCDP or μ-GDP.
    relation : {"substitute_one", "add_remove_one"}
        See the module docstring.

    Returns
    -------
    FactorizationMechanism
        Output: the Σ_ℓ ⌊T/2^ℓ⌋ noisy node sums (leaves first); estimate the prefix sums
        with :func:`~mechanisms.matrix.tree_plain_prefix_sums` or
        :func:`~mechanisms.matrix.tree_honaker_prefix_sums`.

    References
    ----------
    Dwork, Naor, Pitassi & Rothblum, STOC 2010; Chan, Shi & Song, TISSEC 2011;
    Honaker, TPDP 2015.

    Examples
    --------
    >>> mech = binary_tree_mechanism(8, 1.0, 1e-5)
    >>> mech.spec.output_dimension, mech.spec.global_sensitivity.value
    (15, 2.00001)
    """
    rel = _check_relation(relation)
    m = sum(tree_level_sizes(T))
    exact = binary_tree_sensitivity(T)
    return FactorizationMechanism(
        tree_node_sums,
        (m, int(T)),
        round_up(exact),
        epsilon=epsilon,
        delta=delta,
        rho=rho,
        mu=mu,
        relation=rel,
        name=_name("binary_tree", T, rel),
        statistic_description="sums of every dyadic interval [j 2^l, (j+1) 2^l) inside [0, T)",
        summary="binary-tree mechanism for continual counting: noisy dyadic-interval sums",
        references=(DWORK_ET_AL_2010, CHAN_SHI_SONG_2011, HONAKER_2015),
        notes="sensitivity sqrt(floor(log2 T) + 1) (position 0 lies in one interval per "
        "level), rounded up onto the 6-significant-digit grid",
    )


def sqrt_toeplitz_mechanism(
    T: int,
    epsilon: float | None = None,
    delta: float | None = None,
    *,
    rho: float | None = None,
    mu: float | None = None,
    relation: str = "substitute_one",
) -> FactorizationMechanism:
    """The square-root factorization: A^{1/2} x + N(0, σ² I); estimate A^{1/2} y.

    Parameters
    ----------
    T : int
        Stream length T ≥ 1.
    epsilon, delta, rho, mu : float, optional
        Exactly one target: (ε, δ), ρ-zCDP or μ-GDP.
    relation : {"substitute_one", "add_remove_one"}
        See the module docstring.

    Returns
    -------
    FactorizationMechanism
        Output: the T noisy coordinates of A^{1/2} x.

    References
    ----------
    Fichtenberger, Henzinger & Upadhyay, ICML 2023; Henzinger, Upadhyay & Upadhyay,
    SODA 2023.

    Examples
    --------
    >>> mech = sqrt_toeplitz_mechanism(16, 1.0, 1e-5)
    >>> mech.spec.global_sensitivity.value
    1.39424
    """
    rel = _check_relation(relation)
    exact = sqrt_toeplitz_sensitivity(T)
    return FactorizationMechanism(
        sqrt_toeplitz_apply,
        (int(T), int(T)),
        round_up(exact),
        epsilon=epsilon,
        delta=delta,
        rho=rho,
        mu=mu,
        relation=rel,
        name=_name("sqrt_toeplitz", T, rel),
        statistic_description="A^(1/2) x, A^(1/2) lower-triangular Toeplitz with entries "
        "binom(2k,k)/4^k",
        summary="square-root factorization for continual counting: noisy A^(1/2) x",
        references=(FHU_2023, HUU_2023),
        notes="sensitivity sqrt(sum_(k<T) c_k^2) (the first column), rounded up onto the "
        "6-significant-digit grid",
    )
