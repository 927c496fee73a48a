"""Algorithm 7: distinguishing a random k-regular graph from a random k-starpartite graph.

Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential Privacy",
arXiv:2602.15802, Algorithm 7, Theorem 7.1, Lemmas 7.3–7.4 (Section 7.1).

Public randomness ρ: multisets S_1 … S_T of s i.i.d. uniform nodes each.  Node i sends,
for every t, b_{i,t} = 1[N(i) ∩ S_t ≠ ∅] + N(0, σ²): an *unrestricted* randomizer (it reads
neighbour identities, not only the degree).  Rewiring v changes v's own row (T entries) and,
in every column t with v ∈ S_t, at most n − 1 other entries, so the ℓ2 sensitivity of the
stacked means is √(T + (n − 1) X_v(ρ)) with X_v(ρ) = #{t : v ∈ S_t}.

**Per-ρ privacy.**  The paper bounds X_v by a binomial tail bound M that fails with
probability δ/2 over ρ and spends the other δ/2 on the Gaussian: the guarantee is then
(ε, δ) *averaged over ρ*, weaker than Definition 2.3, which asks for every fixed ρ.  The
default here sets M := max_v X_v(ρ), which is public, so the claim holds for every ρ, and
calibrates σ by the analytic Gaussian mechanism (``calibration="analytic"``; Balle & Wang,
ICML 2018), valid at every ε; ``calibration="classical"`` (alias ``"per_rho"``) uses the
classical σ = Δ₂c_δ/ε for the same M (ε < 1); ``calibration="averaged"`` reproduces the
paper and is refused as a per-ρ mechanism (``regular_vs_star_mechanism``); on an
adversarial ρ (one node in every S_t) its exact δ(ε) exceeds δ (``docs/lndp_study.md``).

Server: ȳ_t = (1/n) Σ_i y_{i,t}; p* = 1 − (1 − k/n)^s (Lemma 7.4);
F = (1/T) #{t : |ȳ_t − p*| ≤ w}; "regular" if F ≥ τ.  Under R_{n,k} ȳ_t ≈ N(p*, σ²/n); under
S_{n,k} ȳ_t ≈ 1 with probability p* (a centre is in S_t) and k/n otherwise.  Defaults:
w = σ/√n and τ the midpoint of the two Gaussian-approximation masses q_R and q_S.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from scipy.stats import norm

from privaudit.mechanisms import GaussianMechanism, analytic_gaussian_sigma
from privaudit.mechanisms.accounting import PrivacyBudget, charge
from privaudit.spec import (
    ApproxDP,
    GraphDomain,
    LocalNodeRelation,
    MessageLayout,
    PublicRandomness,
    RandomLike,
    as_generator,
    public_randomness_digest,
)
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError

from ._common import (
    GaussianCalibration,
    check_calibration,
    check_classical,
    check_nodes,
    check_positive_int,
    classical_multiplier,
    gaussian_message_sum,
    local_views,
    reference,
)
from ._result import LocalNodeEstimate

__all__ = [
    "RegularStarRandomness",
    "draw_regular_star_randomness",
    "private_regular_vs_star",
    "regular_vs_star_mechanism",
    "regular_vs_star_sigma",
]

Calibration = Literal["analytic", "classical", "per_rho", "averaged"]
_PER_RHO = ("analytic", "classical", "per_rho")


def _check_mode(calibration: Any) -> None:
    if calibration not in _PER_RHO + ("averaged",):
        raise InvalidParameterError(
            "calibration must be 'analytic', 'classical' (alias 'per_rho') or 'averaged', got "
            f"{calibration!r}"
        )


@dataclass(frozen=True)
class RegularStarRandomness:
    """The public randomness ρ of Algorithm 7: T multisets of s nodes each.

    Attributes
    ----------
    n : int
        Number of nodes.
    members : numpy.ndarray, shape (T, s)
        ``members[t]`` lists the s draws of S_t (with repetitions).
    """

    n: int
    members: np.ndarray

    def __post_init__(self) -> None:
        m = np.asarray(self.members)
        if (
            m.ndim != 2
            or m.shape[0] < 1
            or m.shape[1] < 1
            or m.dtype.kind not in "iu"
            or m.min() < 0
            or m.max() >= self.n
        ):
            raise InvalidParameterError(
                f"members must be a (T, s) integer array of nodes in [0, {self.n}), got "
                f"shape {m.shape}"
            )
        m = m.astype(np.int64)
        m.setflags(write=False)
        object.__setattr__(self, "members", m)

    @property
    def sets(self) -> int:
        """T."""
        return int(self.members.shape[0])

    @property
    def draws(self) -> int:
        """s."""
        return int(self.members.shape[1])

    def public_bytes(self) -> bytes:
        """The canonical bytes of ρ (its members as C-contiguous int64)."""
        return np.ascontiguousarray(self.members, dtype=np.int64).tobytes()

    def declaration(self) -> PublicRandomness:
        """This ρ as a spec entry: how it is drawn, what it reveals, and its digest."""
        return PublicRandomness(
            drawn=f"T = {self.sets} sets S_t of s = {self.draws} i.i.d. uniform draws from "
            f"the n = {self.n} nodes, independent of the graph",
            reveals="the sets S_t (hence X_v(rho) = #{t : v in S_t}, how many messages read "
            "node v's list)",
            digest=public_randomness_digest(self),
        )

    def indicator(self) -> sp.csr_array:
        """The n × T 0/1 matrix 1[v ∈ S_t] (sparse)."""
        t = np.repeat(np.arange(self.sets), self.draws)
        mat = sp.csr_array((np.ones(t.size), (self.members.ravel(), t)), shape=(self.n, self.sets))
        mat.sum_duplicates()
        mat.data[:] = 1.0
        return mat

    def occurrences(self) -> np.ndarray:
        """X_v(ρ) = #{t : v ∈ S_t} for every node v."""
        return np.diff(self.indicator().indptr).astype(np.int64)


def draw_regular_star_randomness(
    n: int, sets: int, draws: int, rng: RandomLike = None
) -> RegularStarRandomness:
    """ρ: T multisets of s i.i.d. uniform draws from the n nodes (independent of the graph)."""
    size = check_nodes(n)
    t = check_positive_int(sets, "T (number of sets)")
    s = check_positive_int(draws, "s (draws per set)")
    return RegularStarRandomness(size, as_generator(rng).integers(0, size, size=(t, s)))


def _tail_bound(sets: int, draws: int, n: int, delta: float) -> float:
    """M: X_v ~ Bin(Ts, 1/n) exceeds it with probability ≤ δ/2 (paper, Lemma B.3)."""
    mean = sets * draws / n
    log_term = math.log(2.0 / delta)
    return mean + max(math.sqrt(3.0 * mean * log_term), 3.0 * log_term)


def regular_vs_star_sigma(
    rho: RegularStarRandomness, epsilon: float, delta: float, calibration: Calibration = "analytic"
) -> tuple[float, float]:
    """(σ, Δ₂) of the per-node messages.

    ``"analytic"``: Δ₂ = √(T + (n − 1) max_v X_v(ρ)), σ the analytic Gaussian σ for
    (ε, δ, Δ₂) (Balle & Wang 2018; every fixed ρ, every ε);
    ``"classical"`` (``"per_rho"``): the same Δ₂, σ = Δ₂ c_δ/ε (every fixed ρ, ε < 1);
    ``"averaged"``: Δ₂ = √(T + (n − 1) M) with the tail bound M, σ = Δ₂ c_{δ/2}/ε (the
    paper's analysis, private only on average over ρ).
    """
    _check_mode(calibration)
    if calibration == "analytic":
        eps, d0, _ = check_calibration(epsilon, delta, "analytic")
        sensitivity = math.sqrt(rho.sets + (rho.n - 1) * float(rho.occurrences().max()))
        return analytic_gaussian_sigma(eps, d0, sensitivity), sensitivity
    eps, d0 = check_classical(epsilon, delta)
    if calibration == "averaged":
        bound = _tail_bound(rho.sets, rho.draws, rho.n, d0)
        multiplier = classical_multiplier(d0 / 2.0)
    else:
        bound = float(rho.occurrences().max())
        multiplier = classical_multiplier(d0)
    sensitivity = math.sqrt(rho.sets + (rho.n - 1) * bound)
    return sensitivity * multiplier / eps, sensitivity


def _hits(adjacency: sp.csr_array, indicator: sp.csr_array) -> np.ndarray:
    """b_{i,t} = 1[N(i) ∩ S_t ≠ ∅] for all nodes at once (n × T, float)."""
    counts = adjacency.astype(np.float64) @ indicator
    return (counts.toarray() > 0).astype(np.float64)


def regular_vs_star_mechanism(
    rho: RegularStarRandomness,
    epsilon: float,
    delta: float,
    *,
    calibration: Calibration = "analytic",
    name: str = "lndp.regular_vs_star",
) -> GaussianMechanism:
    """Algorithm 7's joint messages for a fixed public ρ, (ε, δ)-LNDP for this ρ.

    Raises
    ------
    UnsupportedCombinationError
        For ``calibration="averaged"``: the paper's tail-bound calibration is private only
        on average over ρ and has no per-ρ spec.
    """
    if calibration == "averaged":
        raise UnsupportedCombinationError(
            "Algorithm 7 with the paper's tail-bound calibration is (eps, delta)-private only "
            "on average over rho; it has no per-rho spec (use calibration='analytic' or "
            "'classical')"
        )
    _check_mode(calibration)
    if not isinstance(rho, RegularStarRandomness):
        raise InvalidParameterError(f"rho must be a RegularStarRandomness, got {rho!r}")
    how: GaussianCalibration = "analytic" if calibration == "analytic" else "classical"
    eps, d0, _ = check_calibration(epsilon, delta, how)
    _, sensitivity = regular_vs_star_sigma(rho, eps, d0, how)
    indicator = rho.indicator()
    n = rho.n

    def messages_mean(graph: Any) -> np.ndarray:
        return _hits(local_views(graph, n)[0], indicator).ravel()

    return GaussianMechanism(
        eps,
        d0,
        sensitivity,
        calibration=how,
        statistic=messages_mean,
        input_domain=GraphDomain(n_nodes=n),
        relation=LocalNodeRelation(
            focus_nodes=(int(np.argmax(rho.occurrences())),),
            layout=MessageLayout.equal(rho.sets),
            public_randomness=rho.declaration(),
        ),
        output_dimension=n * rho.sets,
        name=name,
        statistic_description=f"stacked hit indicators 1[N(i) meets S_t], T={rho.sets}, "
        f"s={rho.draws}, max_v X_v={int(rho.occurrences().max())} "
        f"(l2 node sensitivity {sensitivity:.6g}, per fixed rho)",
        summary="each node sends, per public set S_t, whether it has a neighbour in S_t plus "
        "N(0, sigma^2): (eps, delta)-LNDP on the joint messages for this fixed rho",
        references=(reference("Algorithm 7, Theorem 7.1, Lemma 7.3"),),
    )


def private_regular_vs_star(
    graph: Any,
    epsilon: float,
    delta: float,
    k: int,
    sets: int,
    *,
    draws: int | None = None,
    width: float | None = None,
    calibration: Calibration = "analytic",
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalNodeEstimate:
    """Algorithm 7: is G k-regular or k-starpartite?  ρ is drawn from ``rng`` first.

    Parameters
    ----------
    k : int
        The degree of the regular graph / the number of centres.
    sets : int
        T.
    draws : int, optional
        s (default ⌈n ln 2 / k⌉, so p* ≈ 1/2).
    width : float, optional
        w (default σ/√n).
    calibration : {"analytic", "classical", "per_rho", "averaged"}
        See the module docstring (``"per_rho"`` is ``"classical"``); ``"averaged"`` gives
        only the averaged guarantee, which ``details["guarantee_scope"]`` records.
    budget : PrivacyBudget, optional
        Charged for the (ε, δ) guarantee of the whole release (the joint messages), before
        ρ or any noise is drawn; a call it cannot afford is refused.

    Returns
    -------
    LocalNodeEstimate
        ``estimate`` = F (fraction of sets within w of p*); ``details["decision"]`` is
        ``"regular"`` or ``"starpartite"``; ``standard_error`` = √(q(1 − q)/T) at the
        threshold.
    """
    adjacency, degrees = local_views(graph)
    n = check_nodes(degrees.shape[0])
    centres = check_positive_int(k, "k")
    if centres >= n:
        raise InvalidParameterError(f"k must be < n = {n}, got k={k!r}")
    s = (
        math.ceil(n * math.log(2.0) / centres)
        if draws is None
        else check_positive_int(draws, "s (draws per set)")
    )
    check_positive_int(sets, "T (number of sets)")
    _check_mode(calibration)
    eps, d0, _ = check_calibration(
        epsilon, delta, "analytic" if calibration == "analytic" else "classical"
    )
    charge(budget, ApproxDP(epsilon=eps, delta=d0), estimator="private_regular_vs_star")
    gen = as_generator(rng)
    rho = draw_regular_star_randomness(n, sets, s, gen)
    sigma, sensitivity = regular_vs_star_sigma(rho, eps, d0, calibration)
    indicator = rho.indicator()
    total = gaussian_message_sum(_hits(adjacency, indicator).sum(axis=0), n, sigma, gen)
    mean = total / n
    p_star = 1.0 - (1.0 - centres / n) ** s
    sd = sigma / math.sqrt(n)
    w = sd if width is None else float(width)
    if not (math.isfinite(w) and w > 0):
        raise InvalidParameterError(f"width w must be finite and > 0, got {width!r}")
    inside = float(np.mean(np.abs(mean - p_star) <= w))

    def mass(centre: float) -> float:
        return float(norm.cdf((centre + w) / sd) - norm.cdf((centre - w) / sd))

    q_regular = mass(0.0)
    q_star = p_star * mass(1.0 - p_star) + (1.0 - p_star) * mass(centres / n - p_star)
    tau = (q_regular + q_star) / 2.0
    scope = "every fixed rho" if calibration in _PER_RHO else "averaged over rho only"
    return LocalNodeEstimate(
        algorithm="algorithm_7_regular_vs_star",
        estimate=inside,
        guarantee=ApproxDP(epsilon=eps, delta=d0),
        message_noise=sigma,
        joint_sensitivity=sensitivity,
        standard_error=math.sqrt(tau * (1 - tau) / rho.sets),
        details={
            "decision": "regular" if inside >= tau else "starpartite",
            "tau": tau,
            "q_regular": q_regular,
            "q_starpartite": q_star,
            "p_star": p_star,
            "width": w,
            "sets": rho.sets,
            "draws": s,
            "calibration": calibration,
            "guarantee_scope": scope,
            "max_occurrences": int(rho.occurrences().max()),
            "set_means": mean,
        },
    )
