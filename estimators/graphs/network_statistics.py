"""Private edge density and triangle density of a graph under node-level privacy.

:func:`private_edge_density` and :func:`private_triangle_density` release ε-DP estimates
under **node neighbouring** (rewire every edge at one node; changing one latent point of a
random geometric graph is exactly that, Section 2.2 of [1]) with

* ``method="local_hajek"`` (default): Algorithm 1 of Chaudhuri, Loh, Pandey & Sarkar
  (2024) with the rigorous smooth sensitivity ([2] §3) on the adjacency kernel (k = 2 for
  edges, k = 3 for triangles; records are nodes), under Wrapper 1 over node chunks —
  induced subgraphs on a data-independent partition (:mod:`.node_chunks`,
  :mod:`.local_hajek_network`).  This is Algorithm A.5 as rebuilt in docs/derivations.md §6 and its
  triangle analogue (docs/derivations.md §6);
* ``method="coinpress"``: the all-tuples CoinPress baseline (Algorithm A.2,
  Proposition 1) under the same Wrapper 1, whose private error is Θ̃(1/(nε)) (Remark 2).

**The ξ choice** (docs/derivations.md §6; Algorithm 1 only).  Privacy holds for any data-independent
ξ; accuracy needs max_i |ĥ(i) − A_n| ≤ ξ with probability ≥ 0.99 on every chunk:

(a) a public bound ``r_max`` on the connection radius of the RGG on S² gives
    p ≤ r_max²/4 and ξ per chunk size from :mod:`.concentration`;
(b) without it (and without an explicit public ``xi``), a fraction ``coarse_fraction`` of
    ε is spent on a private coarse edge density (Laplace(2/(nε₀)), node sensitivity 2/n)
    whose upper confidence bound sets ξ (:mod:`.two_stage`); the account composes
    ε₀ + ε₁ with :func:`mechanisms.basic_composition`;
(c) ``xi=`` gives ξ directly (public; used on every chunk).

``epsilon`` is always the **total** claim of the release.

References
----------
.. [1] Chaudhuri, Loh, Pandey & Sarkar, "On differentially private U statistics",
   NeurIPS 2024: Algorithm 1, Wrapper 1, Section 5.2, Algorithm A.5, Proposition 1.
.. [2] ``docs/derivations.md`` §3 (rigorous smooth bound), §4 (ξ), §6 (the sphere model).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Literal

from privaudit.mechanisms import Mechanism
from privaudit.mechanisms.accounting import charge
from privaudit.spec import PureDP, RandomLike, as_generator, check_epsilon
from privaudit.spec.errors import InvalidParameterError, ParameterTypeError, SampleSizeError

from .._privacy_account import PrivacyAccount
from ..ustatistics.concentration import (
    INNER_FAILURE_PROBABILITY,
    ConcentrationRadius,
    check_failure_probability,
)
from ._adjacency import as_adjacency
from ._result import NetworkStatisticEstimate, XiSource
from .coarse_estimate import CoarseDensityEstimate
from .coinpress_network import NetworkCoinPressMechanism, network_coinpress_mechanism
from .local_hajek_network import (
    NetworkStatisticMechanism,
    chunked_local_hajek,
    network_local_hajek_mechanism,
)
from .node_chunks import node_chunks
from .statistics import (
    EDGE_DENSITY,
    TRIANGLE_DENSITY,
    NetworkStatistic,
    edge_probability_bound_from_radius,
)
from .two_stage import TwoStageNetworkMechanism

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_COARSE_FRACTION",
    "Method",
    "private_edge_density",
    "private_edge_density_mechanism",
    "private_triangle_density",
    "private_triangle_density_mechanism",
]

Method = Literal["local_hajek", "coinpress"]

#: Default failure probability α of Wrapper 1 (q = ⌈8 ln(1/α)⌉ = 19 chunks).
DEFAULT_ALPHA = 0.1
#: Default share of ε spent on the private coarse estimate that sets ξ (option (b)).
DEFAULT_COARSE_FRACTION = 0.1


def _check_xi(xi: Any) -> float:
    if (
        isinstance(xi, bool)
        or not isinstance(xi, numbers.Real)
        or not math.isfinite(float(xi))
        or float(xi) < 0
    ):
        raise InvalidParameterError(f"xi must be a finite number >= 0, got {xi!r}")
    return float(xi)


def _check_method(method: Any) -> Method:
    if method not in ("local_hajek", "coinpress"):
        raise InvalidParameterError(f"method must be 'local_hajek' or 'coinpress', got {method!r}")
    return method


def _check_fraction(fraction: Any) -> float:
    if (
        isinstance(fraction, bool)
        or not isinstance(fraction, numbers.Real)
        or not 0.0 < float(fraction) < 1.0
    ):
        raise InvalidParameterError(f"coarse_fraction must lie in (0, 1), got {fraction!r}")
    return float(fraction)


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise InvalidParameterError(f"partition_seed must be an integer >= 0, got {seed!r}")
    return int(seed)


def _check_nodes(n: Any, statistic: NetworkStatistic) -> int:
    k = statistic.degree
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise ParameterTypeError(
            f"the {statistic.label} needs an integer number of nodes n >= {k}, got n={n!r}"
        )
    if int(n) < k:
        raise SampleSizeError(f"the {statistic.label} needs a graph of n >= {k} nodes, got n={n!r}")
    return int(n)


def _network_mechanism(
    statistic: NetworkStatistic,
    n: int,
    epsilon: float,
    *,
    xi: Any,
    r_max: Any,
    alpha: float,
    method: Any,
    coarse_fraction: float,
    partition_seed: int,
    gamma: float,
    name: str | None,
) -> NetworkCoinPressMechanism | NetworkStatisticMechanism | TwoStageNetworkMechanism:
    size = _check_nodes(n, statistic)
    eps = check_epsilon(epsilon)
    kind = _check_method(method)
    g = check_failure_probability(gamma, "gamma")
    seed = _check_seed(partition_seed)
    a = check_failure_probability(alpha, "alpha")
    if xi is not None and r_max is not None:
        raise InvalidParameterError(f"give at most one of xi (= {xi!r}) and r_max (= {r_max!r})")
    if kind == "coinpress":
        if xi is not None or r_max is not None:
            raise InvalidParameterError(
                "method='coinpress' uses no xi: do not pass xi or r_max "
                f"(got xi={xi!r}, r_max={r_max!r})"
            )
        if size < 2 * statistic.degree:
            raise SampleSizeError(
                f"the CoinPress baseline (Algorithm A.2) needs n >= 2k = {2 * statistic.degree} "
                f"nodes for the {statistic.label}, got n={size}"
            )
        chunks = node_chunks(size, a, 2 * statistic.degree, seed=seed)
        return network_coinpress_mechanism(statistic, chunks, eps, gamma=g, name=name)
    if xi is not None:
        value = _check_xi(xi)
        engine = chunked_local_hajek(
            statistic,
            node_chunks(size, a, statistic.degree, seed=seed),
            eps,
            xi_for_size=lambda _size: value,
        )
        return network_local_hajek_mechanism(
            engine, name=name, notes=f"xi = {value!r} given as a public parameter."
        )
    if r_max is not None:
        p_up = edge_probability_bound_from_radius(r_max)
        theta_up = statistic.mean_bound(p_up)
        engine = chunked_local_hajek(
            statistic,
            node_chunks(size, a, statistic.degree, seed=seed),
            eps,
            xi_for_size=lambda size: statistic.xi(size, theta_up, gamma=g).value,
        )
        return network_local_hajek_mechanism(
            engine,
            name=name,
            notes=(
                f"xi from the public radius bound r_max = {float(r_max)!r} (docs/derivations.md "
                f"section 4): p <= r_max^2/4 = {p_up:.6g}, theta <= "
                f"{theta_up:.6g}, gamma = {g:g}."
            ),
        )
    fraction = _check_fraction(coarse_fraction)
    chunks = node_chunks(size, a, statistic.degree, seed=seed)
    return TwoStageNetworkMechanism(
        statistic, chunks, eps, coarse_fraction=fraction, gamma=g, name=name
    )


def _mechanism_doc(statistic: str, k: int, sensitivity: str) -> str:
    return f"""The {statistic} estimator on graphs of ``n`` nodes as an audited mechanism.

    Parameters
    ----------
    n : int
        The public number of nodes, n ≥ {k}.
    epsilon : float
        The total claim ε > 0 (pure DP under node neighbouring).
    xi : float, optional
        A public ξ ≥ 0 for Algorithm 1 (every chunk).
    r_max : float, optional
        A public bound on the RGG connection radius; ξ per chunk size from it.  With
        neither ``xi`` nor ``r_max`` the mechanism spends ``coarse_fraction``·ε on a private
        coarse edge density (node sensitivity 2/n) and sets ξ from it.
    alpha : float
        Wrapper 1's failure probability α ∈ (0, 1); α ≥ e^(-1/8) gives one chunk (then
        the spec carries the smooth-sensitivity claim and the gray-box hooks).
    method : {{"local_hajek", "coinpress"}}
        Algorithm 1 (default) or the all-tuples CoinPress baseline (no ξ).
    coarse_fraction : float
        ε₀/ε for option (b), in (0, 1).
    partition_seed : int
        Public seed of Wrapper 1's node partition.
    gamma : float
        The inner failure probability γ of ξ and of the coarse upper bound (0.01).
    name : str, optional
        The spec's name.

    Returns
    -------
    Mechanism
        On ``GraphDomain(n)`` under ``NodeNeighbouring()``.  Its input may be a networkx
        graph or an adjacency matrix; ``validate_input`` converts it once into the sparse
        adjacency.

    Raises
    ------
    InvalidParameterError
        ε ≤ 0, n < {k}, α ∉ (0, 1), ξ < 0, r_max ≤ 0, both ξ and r_max, ξ or r_max with
        the baseline, an unknown method, coarse_fraction ∉ (0, 1).

    Notes
    -----
    The node sensitivity of the {statistic} is {sensitivity}.
    """


def private_edge_density_mechanism(
    n: int,
    epsilon: float,
    *,
    xi: float | None = None,
    r_max: float | None = None,
    alpha: float = DEFAULT_ALPHA,
    method: Method = "local_hajek",
    coarse_fraction: float = DEFAULT_COARSE_FRACTION,
    partition_seed: int = 0,
    gamma: float = INNER_FAILURE_PROBABILITY,
    name: str | None = None,
) -> Mechanism:
    return _network_mechanism(
        EDGE_DENSITY,
        n,
        epsilon,
        xi=xi,
        r_max=r_max,
        alpha=alpha,
        method=method,
        coarse_fraction=coarse_fraction,
        partition_seed=partition_seed,
        gamma=gamma,
        name=name,
    )


def private_triangle_density_mechanism(
    n: int,
    epsilon: float,
    *,
    xi: float | None = None,
    r_max: float | None = None,
    alpha: float = DEFAULT_ALPHA,
    method: Method = "local_hajek",
    coarse_fraction: float = DEFAULT_COARSE_FRACTION,
    partition_seed: int = 0,
    gamma: float = INNER_FAILURE_PROBABILITY,
    name: str | None = None,
) -> Mechanism:
    return _network_mechanism(
        TRIANGLE_DENSITY,
        n,
        epsilon,
        xi=xi,
        r_max=r_max,
        alpha=alpha,
        method=method,
        coarse_fraction=coarse_fraction,
        partition_seed=partition_seed,
        gamma=gamma,
        name=name,
    )


private_edge_density_mechanism.__doc__ = _mechanism_doc("edge density", 2, "2/n")
private_triangle_density_mechanism.__doc__ = _mechanism_doc("triangle density", 3, "3/n")


def _release(
    statistic: NetworkStatistic,
    graph: Any,
    epsilon: float,
    *,
    xi: Any,
    r_max: Any,
    alpha: float,
    method: Any,
    coarse_fraction: float,
    partition_seed: int,
    gamma: float,
    rng: RandomLike,
    budget: Any = None,
) -> NetworkStatisticEstimate:
    adjacency = as_adjacency(graph)
    n = adjacency.shape[0]
    mech = _network_mechanism(
        statistic,
        n,
        epsilon,
        xi=xi,
        r_max=r_max,
        alpha=alpha,
        method=method,
        coarse_fraction=coarse_fraction,
        partition_seed=partition_seed,
        gamma=gamma,
        name=None,
    )
    charge(budget, mech.spec, estimator=f"private_{statistic.name}")
    gen = as_generator(rng)
    parameters = {
        "n": n,
        "epsilon": float(epsilon),
        "alpha": float(alpha),
        "xi": xi,
        "r_max": r_max,
        "partition_seed": int(partition_seed),
        "gamma": float(gamma),
    }
    coarse = None
    mean_bound: float | None = None
    source: XiSource
    xi_used: dict[int, ConcentrationRadius | float]
    if isinstance(mech, TwoStageNetworkMechanism):
        eps0, eps1 = mech.stage_guarantees
        released = mech.coarse_releases(adjacency, 1, gen, validated=True)
        p_up = float(mech.edge_probability_bounds(released)[0])
        engine = mech.engine_for(p_up)
        estimate = float(engine.draw(engine.evaluate(adjacency), 1, gen)[0])
        coarse = CoarseDensityEstimate(
            noisy_density=float(released[0]),
            upper_bound=p_up,
            guarantee=eps0,
            noise_scale=mech.coarse_noise_scale,
            failure_probability=float(gamma),
            n=n,
        )
        mean_bound = statistic.mean_bound(p_up)
        chunks = mech.chunks
        xi_used = {
            size: statistic.xi(size, mean_bound, gamma=gamma) for size in sorted(set(chunks.sizes))
        }
        account = PrivacyAccount.of(
            [("coarse edge density for xi", eps0), ("Algorithm 1 under Wrapper 1", eps1)]
        )
        parameters["coarse_fraction"] = float(coarse_fraction)
        source = "private_coarse_estimate"
    else:
        # method == "coinpress" exactly when _network_mechanism built the CoinPress baseline
        if isinstance(mech, NetworkCoinPressMechanism):
            estimate = float(mech.engine.draw(adjacency, 1, gen)[0])
        else:  # Algorithm 1 on the adjacency validated above (cached per input)
            evaluation = mech.evaluate_adjacency(adjacency)
            estimate = float(mech.engine.draw(evaluation, 1, gen)[0])
        chunks = mech.chunks
        if isinstance(mech, NetworkCoinPressMechanism):
            xi_used, source = {}, "none"
            stage = "CoinPress all-tuples baseline under Wrapper 1"
        elif r_max is not None:
            mean_bound = statistic.mean_bound(edge_probability_bound_from_radius(r_max))
            xi_used = {
                size: statistic.xi(size, mean_bound, gamma=gamma)
                for size in sorted(set(chunks.sizes))
            }
            source, stage = "public_radius_bound", "Algorithm 1 under Wrapper 1"
        else:
            xi_used = dict(mech.engine.xi_by_size)
            source, stage = "public_xi", "Algorithm 1 under Wrapper 1"
        guarantee = mech.spec.guarantee
        if not isinstance(guarantee, PureDP):  # pragma: no cover - every spec here is pure
            raise InvalidParameterError(f"unexpected guarantee {guarantee!r}")
        account = PrivacyAccount.of([(stage, guarantee)])
    return NetworkStatisticEstimate(
        statistic=statistic.name,
        estimate=estimate,
        non_private=statistic.exact(adjacency, validated=True),
        privacy=account,
        method=method,
        xi_source=source,
        xi=xi_used,
        mean_bound=mean_bound,
        coarse=coarse,
        chunks=chunks,
        parameters=parameters,
    )


def _estimator_doc(statistic: str, k: int) -> str:
    return f"""An ε-DP estimate of the {statistic} of a graph under node neighbouring.

    Parameters
    ----------
    graph : networkx.Graph, adjacency matrix (dense or scipy.sparse)
        A simple undirected graph on the nodes {{0, …, n − 1}}, n ≥ {k}; validated and
        converted once into a sparse adjacency.
    epsilon : float
        The total privacy claim ε > 0.
    xi, r_max : float, optional
        The ξ choice (see the module docstring): a public ξ, a public radius bound, or
        neither (private coarse estimate with ``coarse_fraction``·ε).
    alpha : float
        Wrapper 1's failure probability α ∈ (0, 1).
    method : {{"local_hajek", "coinpress"}}
        Algorithm 1 (default) or the all-tuples CoinPress baseline.
    coarse_fraction : float
        ε₀/ε when ξ is estimated privately.
    partition_seed : int
        Public seed of the node partition.
    gamma : float
        Inner failure probability γ (0.01).
    rng : numpy.random.Generator, int or None
        Source of the noise.
    budget : PrivacyBudget, optional
        Charged for the whole release (every stage) before any noise is drawn.

    Returns
    -------
    NetworkStatisticEstimate
        The estimate, the exact density (not private), the privacy account and the
        parameters.

    Raises
    ------
    InvalidGraphError
        A directed graph, a multigraph, self-loops, a node set other than
        {{0, …, n − 1}}, a non-0/1 or asymmetric matrix.
    InvalidParameterError
        See :func:`private_{statistic.replace(" ", "_")}_mechanism`.
    """


def private_edge_density(
    graph: Any,
    epsilon: float,
    *,
    xi: float | None = None,
    r_max: float | None = None,
    alpha: float = DEFAULT_ALPHA,
    method: Method = "local_hajek",
    coarse_fraction: float = DEFAULT_COARSE_FRACTION,
    partition_seed: int = 0,
    gamma: float = INNER_FAILURE_PROBABILITY,
    rng: RandomLike = None,
    budget: Any = None,
) -> NetworkStatisticEstimate:
    return _release(
        EDGE_DENSITY,
        graph,
        epsilon,
        xi=xi,
        r_max=r_max,
        alpha=alpha,
        method=method,
        coarse_fraction=coarse_fraction,
        partition_seed=partition_seed,
        gamma=gamma,
        rng=rng,
        budget=budget,
    )


def private_triangle_density(
    graph: Any,
    epsilon: float,
    *,
    xi: float | None = None,
    r_max: float | None = None,
    alpha: float = DEFAULT_ALPHA,
    method: Method = "local_hajek",
    coarse_fraction: float = DEFAULT_COARSE_FRACTION,
    partition_seed: int = 0,
    gamma: float = INNER_FAILURE_PROBABILITY,
    rng: RandomLike = None,
    budget: Any = None,
) -> NetworkStatisticEstimate:
    return _release(
        TRIANGLE_DENSITY,
        graph,
        epsilon,
        xi=xi,
        r_max=r_max,
        alpha=alpha,
        method=method,
        coarse_fraction=coarse_fraction,
        partition_seed=partition_seed,
        gamma=gamma,
        rng=rng,
        budget=budget,
    )


private_edge_density.__doc__ = _estimator_doc("edge density", 2)
private_triangle_density.__doc__ = _estimator_doc("triangle density", 3)
