"""The baselines of Appendix D: Algorithm 8 (Laplace edge count) and Algorithm 9
(randomized-response edge count).

Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential Privacy",
arXiv:2602.15802, Appendix D (Algorithms 8–9).

Algorithm 8 (ε-LNDP, degrees-only): node i sends d_i + Lap(b), b = 2(n − 1)/ε, since one
rewiring moves the degree vector by 2(n − 1) in ℓ1 (the rewired node by ≤ n − 1 and ≤ n − 1
others by 1); m̂ = (1/2) Σ y_i, s.d. b√(n/2).

Algorithm 9 ((ε, δ)-LNDP, unrestricted): node i reports RR_{ε0}(1[j ∈ N(i)]) for each j > i
(each pair once, the upper triangle), ε0 = ε/(2√(2(n − 1) ln(1/δ))).  One rewiring changes
at most n − 1 reported bits; advanced composition (Lemma A.6, δ′ = δ) gives
√(2(n − 1) ln(1/δ)) ε0 + (n − 1) ε0 (e^{ε0} − 1) ≤ ε when ε ≤ 2 ln(1/δ) (e^x − 1 ≤ 2x for
x ≤ 1).  The server debiases: ã = (y(e^{ε0} + 1) − 1)/(e^{ε0} − 1), m̂ = Σ ã,
Var = C(n, 2) e^{ε0}/(e^{ε0} − 1)².  :func:`rr_edge_count_mechanism` is the joint message
vector of all C(n, 2) bits as a finite randomizer: a product of independent binary RR
coins whose output law is exposed exactly (so the auditor's exact audit computes the joint
privacy-loss distribution at every pair it examines).  Node i's message enters the
server's estimate only through its number of reported ones, so
:func:`private_rr_edge_count` draws that count per node (two binomials, exactly the same
law) instead of C(n, 2) bits;
:func:`rr_node_messages` draws the full bit vectors for small n (audits).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from privaudit.mechanisms import LaplaceMechanism, Mechanism
from privaudit.mechanisms.accounting import PrivacyBudget, charge
from privaudit.spec import (
    ApproxDP,
    FiniteOutputLaw,
    FiniteRandomizer,
    GraphDomain,
    LocalNodeRelation,
    MechanismSpec,
    MessageLayout,
    RandomLike,
    as_generator,
)
from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.stable_values import round_down
from privaudit.spec.validation import check_delta, check_epsilon

from ._common import check_nodes, local_views, reference
from ._result import LocalNodeEstimate

__all__ = [
    "laplace_edge_count_mechanism",
    "private_laplace_edge_count",
    "private_rr_edge_count",
    "rr_edge_count_mechanism",
    "rr_edge_epsilon0",
    "rr_node_messages",
]


def laplace_edge_count_mechanism(
    n: int, epsilon: float, *, name: str = "lndp.laplace_edge_count"
) -> LaplaceMechanism:
    """Algorithm 8's joint messages (d_i + Lap(2(n − 1)/ε))_i, ε-LNDP.

    Examples
    --------
    >>> laplace_edge_count_mechanism(10, 1.0).noise_law.scale
    18.0
    """
    size = check_nodes(n)
    eps = check_epsilon(epsilon)

    def degrees(graph: Any) -> np.ndarray:
        return local_views(graph, size)[1].astype(np.float64)

    return LaplaceMechanism(
        eps,
        2.0 * (size - 1),
        statistic=degrees,
        input_domain=GraphDomain(n_nodes=size),
        relation=LocalNodeRelation(layout=MessageLayout.equal(1)),
        output_dimension=size,
        name=name,
        statistic_description="stacked degrees d_i (l1 node sensitivity 2(n-1))",
        summary="each node sends its degree + Laplace(2(n-1)/eps): eps-LNDP",
        references=(reference("Appendix D, Algorithm 8"),),
    )


def private_laplace_edge_count(
    graph: Any, epsilon: float, *, rng: RandomLike = None, budget: PrivacyBudget | None = None
) -> LocalNodeEstimate:
    """m̂ = (1/2) Σ_i (d_i + Lap(2(n − 1)/ε)) (Algorithm 8).

    ``budget`` (optional) is charged for the joint messages' spec before any draw.
    """
    _, degrees = local_views(graph)
    n = check_nodes(degrees.shape[0])
    mech = laplace_edge_count_mechanism(n, epsilon)
    b = mech.noise_law.scale
    charge(budget, mech.spec, estimator="private_laplace_edge_count")
    messages = degrees + as_generator(rng).laplace(0.0, b, size=n)
    return LocalNodeEstimate(
        algorithm="algorithm_8_laplace_edge_count",
        estimate=float(messages.sum() / 2.0),
        guarantee=mech.spec.guarantee,
        message_noise=b,
        joint_sensitivity=2.0 * (n - 1),
        standard_error=b * math.sqrt(n / 2.0),
        details={"n": n},
    )


def rr_edge_epsilon0(n: int, epsilon: float, delta: float) -> float:
    """ε0 = ε/(2√(2(n − 1) ln(1/δ))) (Algorithm 9).

    Raises
    ------
    InvalidParameterError
        If ε > 2 ln(1/δ), where the paper's composition step (e^x − 1 ≤ 2x) fails.

    Examples
    --------
    >>> round(rr_edge_epsilon0(10_000, 0.5, 1e-6), 7)
    0.0004756
    """
    size = check_nodes(n)
    eps = check_epsilon(epsilon)
    d0 = check_delta(delta)
    if d0 == 0.0:
        raise InvalidParameterError("delta must lie in (0, 1) for Algorithm 9, got 0")
    if eps > 2.0 * math.log(1.0 / d0):
        raise InvalidParameterError(
            f"Algorithm 9 needs epsilon <= 2 ln(1/delta) = {2 * math.log(1 / d0):.4g}, "
            f"got epsilon={epsilon!r}"
        )
    # libm's log: rounded down to the stable grid (a smaller coin level keeps the claim)
    return round_down(eps / (2.0 * math.sqrt(2.0 * (size - 1) * math.log(1.0 / d0))))


def _upper_edges(adjacency: sp.csr_array) -> np.ndarray:
    """Per node i, the number of neighbours j > i."""
    upper = sp.triu(adjacency, k=1, format="csr")
    return np.diff(upper.indptr).astype(np.int64)


def _upper_bits(graph: Any, n: int | None = None) -> np.ndarray:
    """The true bits 1[j ∈ N(i)], i < j, in row-major order (node i reports row i)."""
    adjacency, degrees = local_views(graph, n)
    size = degrees.shape[0]
    rows, cols = np.triu_indices(size, k=1)
    return np.asarray(adjacency[rows, cols]).astype(bool).ravel()


def _rr_bits(bits: np.ndarray, eps0: float, size: int, rng: np.random.Generator) -> np.ndarray:
    keep = rng.random((size, bits.size)) < math.exp(eps0) / (1.0 + math.exp(eps0))
    return (keep == bits).astype(np.int8)


def rr_node_messages(
    graph: Any, epsilon: float, delta: float, *, size: int = 1, rng: RandomLike = None
) -> np.ndarray:
    """``size`` draws of the joint message: all C(n, 2) RR bits, pairs (i, j), i < j, in
    row-major order (small n only: C(n, 2) bits per draw)."""
    n = check_nodes(local_views(graph)[1].shape[0])
    eps0 = rr_edge_epsilon0(n, epsilon, delta)
    return _rr_bits(_upper_bits(graph, n), eps0, size, as_generator(rng))


class RREdgeCountMechanism(Mechanism):
    """Algorithm 9's joint messages: randomized response on every pair {i, j}, i < j.

    Node i reports RR_{ε0}(1[j ∈ N(i)]) for each j > i, so the joint release is C(n, 2)
    independent binary coins; it is declared as a finite randomizer (a product law over
    C(n, 2) bits, pure ε = (n − 1)ε0 since one rewiring changes at most n − 1 bits) whose
    exact probabilities :meth:`output_probabilities` exposes.  The claim is the paper's
    (ε, δ) of Algorithm 9 (advanced composition, Raskhodnikova, Smith, Wagaman & Zavyalov,
    arXiv:2602.15802, Appendix D, Lemma A.6); the spec checks that the declared law
    delivers it (the pure (n − 1)ε0 implies it whenever (n − 1)ε0 ≤ ε, as at n = 8).

    Parameters
    ----------
    n : int
        Public number of nodes (C(n, 2) bits per release: small n only).
    epsilon, delta : float
        The (ε, δ) claim; ε0 = :func:`rr_edge_epsilon0`.
    name : str
        The spec's name.
    """

    def __init__(
        self, n: int, epsilon: float, delta: float, *, name: str = "lndp.rr_edge_count"
    ) -> None:
        size = check_nodes(n)
        eps0 = rr_edge_epsilon0(size, epsilon, delta)
        pairs = size * (size - 1) // 2
        law = FiniteOutputLaw(
            alphabet=2,
            length=pairs,
            epsilon=(size - 1) * eps0,
            description=f"C(n, 2) = {pairs} independent binary RR coins at eps0 = {eps0:.6g}; "
            f"a rewiring changes at most n - 1 = {size - 1} of them",
        )
        spec = MechanismSpec(
            name=name,
            summary="each node i sends RR_eps0(1[j in N(i)]) for every j > i: "
            "(eps, delta)-LNDP by advanced composition",
            references=(reference("Appendix D, Algorithm 9"),),
            input_domain=GraphDomain(n_nodes=size),
            # node i's message: its bits (i, j), j > i, upper triangle row-major (node n − 1
            # sends nothing)
            relation=LocalNodeRelation(
                layout=MessageLayout.consecutive([size - 1 - i for i in range(size)])
            ),
            statistic="the upper-triangle adjacency bits, node i's row from its own list",
            output_dimension=pairs,
            noise=FiniteRandomizer(law=law),
            guarantee=ApproxDP(epsilon=check_epsilon(epsilon), delta=check_delta(delta)),
        )
        super().__init__(spec)
        self._n, self._eps0 = size, eps0

    @property
    def epsilon0(self) -> float:
        """The per-bit RR level ε0."""
        return self._eps0

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return _rr_bits(_upper_bits(data, self._n), self._eps0, size, rng)

    def output_probabilities(self, data: Any) -> np.ndarray:
        """P(bit = 0), P(bit = 1) for each of the C(n, 2) coins, shape (C(n, 2), 2)."""
        bits = _upper_bits(self.validate_input(data), self._n)
        keep = math.exp(self._eps0) / (1.0 + math.exp(self._eps0))
        p_one = np.where(bits, keep, 1.0 - keep)
        return np.column_stack([1.0 - p_one, p_one])


def rr_edge_count_mechanism(
    n: int, epsilon: float, delta: float, *, name: str = "lndp.rr_edge_count"
) -> RREdgeCountMechanism:
    """Algorithm 9's joint messages as a mechanism (:class:`RREdgeCountMechanism`).

    Examples
    --------
    >>> mech = rr_edge_count_mechanism(8, 1.0, 1e-3)
    >>> mech.spec.output_dimension, round(mech.epsilon0, 4)
    (28, 0.0508)
    """
    return RREdgeCountMechanism(n, epsilon, delta, name=name)


def private_rr_edge_count(
    graph: Any,
    epsilon: float,
    delta: float,
    *,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalNodeEstimate:
    """m̂ = Σ_{i<j} ã_ij from randomized response on the upper triangle (Algorithm 9).

    ``budget`` (optional) is charged for the whole release, the (ε, δ) guarantee of the
    composed joint messages, before any draw.
    """
    adjacency, degrees = local_views(graph)
    n = check_nodes(degrees.shape[0])
    eps0 = rr_edge_epsilon0(n, epsilon, delta)
    guarantee = ApproxDP(epsilon=check_epsilon(epsilon), delta=check_delta(delta))
    charge(budget, guarantee, estimator="private_rr_edge_count")
    gen = as_generator(rng)
    keep = math.exp(eps0) / (1.0 + math.exp(eps0))
    edges_up = _upper_edges(adjacency)
    others_up = (n - 1 - np.arange(n)) - edges_up
    ones = gen.binomial(edges_up, keep) + gen.binomial(others_up, 1.0 - keep)
    pairs = n * (n - 1) // 2
    e = math.exp(eps0)
    estimate = ((e + 1.0) * float(ones.sum()) - pairs) / (e - 1.0)
    return LocalNodeEstimate(
        algorithm="algorithm_9_rr_edge_count",
        estimate=estimate,
        guarantee=guarantee,
        message_noise=1.0 - keep,
        joint_sensitivity=float(n - 1),
        standard_error=math.sqrt(pairs * e) / (e - 1.0),
        details={"n": n, "epsilon0": eps0},
    )
