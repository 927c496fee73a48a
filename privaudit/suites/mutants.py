"""Mutant families: correct mechanisms and broken variants at random positions.

Each family pairs a correct base mechanism with a broken variant whose defect sits at a
position, dimension, node, weight or magnitude drawn from the family's parameter space.
:data:`MUTANT_FAMILIES` maps each family's name (``coupled_coins``, ``non_local_read``,
``scale_error``, ``heavy_records``, ``tail_leak``, ``rho_exposure``,
``one_input_departure``) to a :class:`MutantFamily` (correct builder, broken builder,
parameter sampler); a builder takes the parameter dict and returns ``(mechanism,
audit_kwargs)`` for ``privaudit.audit(mechanism, samples=..., seed=..., **audit_kwargs)``.
The quality tier (``tests/quality/test_mutants.py``) checks that the auditor catches every
broken variant at CI size; ``scripts/mutant_table.py`` measures catch and false-alarm
rates.  No hypothesis import here: scripts use the samplers.

Details (each family): ``docs/engine_notes.md``, "privaudit.suites.mutants".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from privaudit.mechanisms import Mechanism, declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    Categorical,
    FiniteOutputLaw,
    FiniteRandomizer,
    GlobalSensitivity,
    GraphDomain,
    Laplace,
    LocalNodeRelation,
    LocalRelation,
    MechanismSpec,
    PublicRandomness,
    PureDP,
    QueryDistance,
    RealInterval,
    SubstituteOne,
    VectorDomain,
)
from privaudit.spec.domains import DatasetDomain

__all__ = [
    "MUTANT_AUDIT",
    "MUTANT_FAMILIES",
    "Builder",
    "MutantFamily",
    "coupled_coins_broken",
    "coupled_coins_correct",
    "coupled_coins_params",
    "heavy_records_broken",
    "heavy_records_correct",
    "heavy_records_params",
    "heavy_records_true_group_epsilon",
    "non_local_read_broken",
    "non_local_read_correct",
    "non_local_read_params",
    "rho_exposure_broken",
    "rho_exposure_correct",
    "rho_exposure_params",
    "rho_exposure_true_epsilon",
    "scale_error_broken",
    "scale_error_correct",
    "scale_error_params",
    "tail_leak_broken",
    "tail_leak_correct",
    "tail_leak_params",
]

Params = dict[str, Any]

#: The audit configuration of the mutant tier (with ``samples=`` and ``seed=``): a small
#: pilot and pair budget, the two best-ranked pairs tested.
MUTANT_AUDIT: dict[str, Any] = {
    "pilot_samples": 1_000,
    "pair_budget": 12,
    "pairs_tested": 2,
    "claim_budget": 50,
}
#: A builder: parameters -> (mechanism, keyword arguments of ``privaudit.audit``).
Builder = Callable[[Params], tuple[Mechanism, dict[str, Any]]]


@dataclass(frozen=True)
class MutantFamily:
    """One family: its correct builder, broken builder and parameter sampler."""

    name: str
    correct: Builder
    broken: Builder
    sample_params: Callable[[np.random.Generator], Params]
    defect: str


def _two_distinct(rng: np.random.Generator, n: int) -> tuple[int, int]:
    a, b = rng.choice(n, size=2, replace=False)
    return int(a), int(b)


# -- 1. coins coupled between random coordinates ----------------------------------------
def _unary_law(categories: int, epsilon: float) -> Callable[[Any], np.ndarray]:
    p = math.exp(epsilon / 2) / (1 + math.exp(epsilon / 2))
    q = 1 - p

    def law(x: Any) -> np.ndarray:
        rows = np.tile([1 - q, q], (categories, 1))
        rows[int(x)] = [1 - p, p]
        return rows

    return law


def _unary_spec(categories: int, epsilon: float, name: str) -> MechanismSpec:
    return MechanismSpec(
        name=name,
        input_domain=Categorical(size=categories),
        relation=LocalRelation(),
        noise=FiniteRandomizer(law=FiniteOutputLaw(alphabet=2, length=categories, epsilon=epsilon)),
        guarantee=PureDP(epsilon=epsilon),
    )


def coupled_coins_correct(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """Unary encoding (Wang et al., USENIX Security 2017) over ``d`` categories: bit x is
    1 w.p. p = e^{ε/2}/(1 + e^{ε/2}), every other bit w.p. 1 − p, independently.

    True ε = ε (two bits differ between any two inputs, each by ε/2): the claim holds.
    """
    d, eps = int(params["d"]), float(params.get("epsilon", 1.0))
    law = _unary_law(d, eps)

    def sample(x: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return (rng.random((size, d)) < law(x)[:, 1]).astype(np.int64)

    spec = _unary_spec(d, eps, "mutant.unary_encoding")
    return declare_mechanism(spec, sample, output_probabilities=law), {}


def coupled_coins_broken(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """Unary encoding whose bit ``b`` reuses bit ``a``'s uniform coin (a ≠ b).

    Every marginal is right, the joint law is not: with one coin, bits a and b are
    ordered (the smaller threshold's bit implies the other), so an output pair is
    impossible under one input and possible under another — true ε = ∞.
    """
    d, eps = int(params["d"]), float(params.get("epsilon", 1.0))
    a, b = int(params["a"]), int(params["b"])
    law = _unary_law(d, eps)

    def sample(x: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        probs = law(x)[:, 1]
        coins = rng.random((size, d))
        out = (coins < probs).astype(np.int64)
        out[:, b] = (coins[:, a] < probs[b]).astype(np.int64)
        return out

    spec = _unary_spec(d, eps, "mutant.coupled_unary_encoding")
    return declare_mechanism(spec, sample, output_probabilities=law), {}


def coupled_coins_params(rng: np.random.Generator) -> Params:
    """d ∈ [4, 40], a ≠ b uniform among the coordinates."""
    d = int(rng.integers(4, 41))
    a, b = _two_distinct(rng, d)
    return {"d": d, "a": a, "b": b}


# -- 2. non-local reads at random nodes ------------------------------------------------
def _degree_messages(n: int, reader: int | None, read: int | None) -> Mechanism:
    scale = 2.0 * (n - 1)

    def degrees(graph: Any) -> np.ndarray:
        d = np.array([graph.degree(v) for v in range(n)], dtype=float)
        if reader is not None and read is not None:
            d[reader] = d[read]
        return d

    spec = MechanismSpec(
        name="mutant.degrees" if reader is None else "mutant.degrees_one_reader",
        input_domain=GraphDomain(n_nodes=n),
        relation=LocalNodeRelation(),
        statistic="each node's degree",
        output_dimension=n,
        sensitivity=(GlobalSensitivity(value=scale, norm="l1"),),
        noise=AdditiveNoise(law=Laplace(scale=scale)),
        guarantee=PureDP(epsilon=1.0),
    )
    return declare_mechanism(
        spec,
        lambda g, size, rng: degrees(g) + rng.laplace(0.0, scale, (size, n)),
        statistic=degrees,
        layout=1,
    )


def non_local_read_correct(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """Each node sends its own degree plus Laplace(2(n − 1)) noise (one coordinate each).

    Local: node v's message is a function of its own list.  Changing one node's list moves
    its degree by ≤ n − 1 and each other degree by ≤ 1: ℓ1 sensitivity 2(n − 1), true
    ε = 1 = the claim.
    """
    return _degree_messages(int(params["n"]), None, None), {}


def non_local_read_broken(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """As the correct variant, but node ``r`` sends node ``s``'s degree (r ≠ s).

    Node r's message depends on another node's adjacency list: the mechanism is not a
    local-node protocol at all, whatever its ε (rewiring s's list alone moves two
    coordinates by n − 1: ℓ1 shift up to 3(n − 1), ε = 1.5 > 1 as a central release).
    """
    n = int(params["n"])
    return _degree_messages(n, int(params["r"]), int(params["s"])), {}


def non_local_read_params(rng: np.random.Generator) -> Params:
    """n ∈ [6, 20], reader r ≠ read node s uniform."""
    n = int(rng.integers(6, 21))
    r, s = _two_distinct(rng, n)
    return {"n": n, "r": r, "s": s}


# -- 3. scale errors on random coordinates ---------------------------------------------
def _laplace_vector(d: int, eps: float, coordinate: int | None, factor: float) -> Mechanism:
    scale = 1.0 / eps
    scales = np.full(d, scale)
    if coordinate is not None:
        scales[coordinate] *= factor
    spec = MechanismSpec(
        name="mutant.laplace_vector" if coordinate is None else "mutant.laplace_vector_scaled",
        input_domain=VectorDomain(element=RealInterval(), length=d),
        relation=QueryDistance(norm="l1", radius=1.0),
        statistic=f"identity: the vector of {d} query answers",
        output_dimension=d,
        sensitivity=(GlobalSensitivity(value=1.0, norm="l1"),),
        noise=AdditiveNoise(law=Laplace(scale=scale)),
        guarantee=PureDP(epsilon=eps),
    )

    def sample(x: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(x, dtype=float) + rng.laplace(0.0, 1.0, (size, d)) * scales

    return declare_mechanism(spec, sample, statistic=lambda x: np.asarray(x, dtype=float))


def scale_error_correct(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """x + Laplace(1/ε)^d on a vector of d answers at ℓ1 distance ≤ 1: true ε = ε."""
    return _laplace_vector(int(params["d"]), float(params.get("epsilon", 1.0)), None, 1.0), {}


def scale_error_broken(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """As the correct variant, but coordinate ``c``'s noise is f·(1/ε), f ∈ [0.2, 0.5],
    while the spec still declares Laplace(1/ε) everywhere.

    A unit shift along coordinate c costs ε/f: true ε = ε/f ∈ [2ε, 5ε].
    """
    d, eps = int(params["d"]), float(params.get("epsilon", 1.0))
    return _laplace_vector(d, eps, int(params["c"]), float(params["factor"])), {}


def scale_error_params(rng: np.random.Generator) -> Params:
    """d ∈ [2, 12], c uniform, factor f ∈ [0.2, 0.5]."""
    d = int(rng.integers(2, 13))
    return {"d": d, "c": int(rng.integers(d)), "factor": float(rng.uniform(0.2, 0.5))}


# -- 4. heavy records at random positions ------------------------------------------------
def _weights(params: Params) -> np.ndarray:
    return np.asarray(params["weights"], dtype=float)


def heavy_records_true_group_epsilon(params: Params) -> float:
    """The true ε at distance 2 of the weighted sum: (w_max + w_second)/w_max (ε = 1)."""
    w = np.sort(_weights(params))
    return float((w[-1] + w[-2]) / w[-1])


def _weighted_sum(weights: np.ndarray) -> Mechanism:
    n, scale = weights.size, float(weights.max())  # ε = 1 at distance 1
    spec = MechanismSpec(
        name="mutant.weighted_sum",
        input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1), size=n),
        relation=SubstituteOne(),
        statistic="weighted sum of the records",
        sensitivity=(GlobalSensitivity(value=scale),),
        noise=AdditiveNoise(law=Laplace(scale=scale)),
        guarantee=PureDP(epsilon=1.0),
    )
    return declare_mechanism(
        spec,
        lambda x, size, rng: (
            float(weights @ np.asarray(x, dtype=float)) + rng.laplace(0.0, scale, size)
        ),
        statistic=lambda x: float(weights @ np.asarray(x, dtype=float)),
    )


def heavy_records_correct(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """Σ w_i x_i + Laplace(w_max), records in [0, 1], weights a permutation of 1..n.

    Distance 1: ε = 1 (one record moves the sum by ≤ w_max).  Audited at group k = 2
    with the exact group claim (w_max + w_second)/w_max = (2n − 1)/n, which holds.
    """
    claim = PureDP(epsilon=heavy_records_true_group_epsilon(params))
    return _weighted_sum(_weights(params)), {"group": 2, "claim": claim}


def heavy_records_broken(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """The same mechanism with a false group claim at k = 2: ε_k = 1 + s·(ε_true − 1),
    s = ``shortfall`` ∈ [0.1, 0.5], ε_true = (w_max + w_second)/w_max.  The heaviest two
    records, wherever they sit, move the sum by w_max + w_second: the claim is false by
    (1 − s)(ε_true − 1) ≥ 0.4.  (The claim stays above the distance-1 ε = 1: the report
    rebuilds the spec with the group claim, and a claim below what the declared Laplace
    delivers at distance 1 is refused as an inconsistent spec.)
    """
    true = heavy_records_true_group_epsilon(params)
    eps = 1.0 + float(params["shortfall"]) * (true - 1.0)
    return _weighted_sum(_weights(params)), {"group": 2, "claim": PureDP(epsilon=eps)}


def heavy_records_params(rng: np.random.Generator) -> Params:
    """n ∈ [5, 20], weights a uniform permutation of 1..n, shortfall s ∈ [0.1, 0.5]."""
    n = int(rng.integers(5, 21))
    return {
        "weights": [float(w) for w in rng.permutation(np.arange(1, n + 1))],
        "shortfall": float(rng.uniform(0.1, 0.5)),
    }


# -- 5. leaks confined to the tails ------------------------------------------------------
def _scalar_laplace(eps: float, quantile: float | None) -> Mechanism:
    scale = 1.0 / eps
    law = Laplace(scale=scale)
    cut = None if quantile is None else -scale * math.log(1.0 - quantile)  # P(|Z| > t) = 1 − q
    spec = MechanismSpec(
        name="mutant.laplace" if cut is None else "mutant.laplace_tail_clamp",
        input_domain=RealInterval(),
        relation=QueryDistance(norm="l1", radius=1.0),
        statistic="identity: the query answer (sensitivity 1)",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=law),
        guarantee=PureDP(epsilon=eps),
    )

    def sample(x: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        noise = rng.laplace(0.0, scale, size)
        if cut is not None:
            noise = np.clip(noise, -cut, cut)  # beyond x ± t: the output is x ± t
        return float(x) + noise

    return declare_mechanism(spec, sample, statistic=lambda x: float(x))


def tail_leak_correct(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """x + Laplace(1/ε) for a sensitivity-1 answer: true ε = ε."""
    return _scalar_laplace(float(params.get("epsilon", 1.0)), None), {}


def tail_leak_broken(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """x + Laplace(1/ε) clamped to [x − t, x + t], t the q-quantile of |Z|.

    The bulk (probability q) is the honest law; the tail mass 1 − q sits on the atoms
    x ± t, which depend on the input: the output x + t has probability (1 − q)/2 under x
    and 0 under any x′ ≠ x — true ε = ∞.
    """
    return _scalar_laplace(float(params.get("epsilon", 1.0)), float(params["q"])), {}


def tail_leak_params(rng: np.random.Generator) -> Params:
    """q ∈ [0.99, 0.999] (the clamped tail carries 0.1 % … 1 % of the mass)."""
    return {"q": float(rng.uniform(0.99, 0.999))}


# -- 6. an exposure that depends on rho --------------------------------------------------
def _rho_probs(params: Params) -> tuple[float, float]:
    return float(params.get("p_cold", 0.3)), float(params.get("p_hot", 0.4))


def _rho_message_epsilon(params: Params) -> float:
    p0, p1 = _rho_probs(params)
    return max(abs(math.log(p1 / p0)), abs(math.log((1 - p1) / (1 - p0))))


def rho_exposure_true_epsilon(params: Params) -> float:
    """(n − 1)·ε₀, ε₀ = max(|ln(p_hot/p_cold)|, |ln((1 − p_hot)/(1 − p_cold))|)."""
    return (int(params["n"]) - 1) * _rho_message_epsilon(params)


def _spread_messages(params: Params, claimed: float) -> Mechanism:
    n, hot = int(params["n"]), int(params["hot"])
    p0, p1 = _rho_probs(params)
    spec = MechanismSpec(
        name="mutant.rho_spread",
        input_domain=GraphDomain(n_nodes=n),
        relation=LocalNodeRelation(),
        statistic="messages in {-1, 0, 1} whose spread says whether the node sees the hot node",
        output_dimension=n,
        guarantee=PureDP(epsilon=claimed),
    )

    def sample(graph: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        near = np.array([graph.has_edge(u, hot) for u in range(n)], dtype=bool)
        p = np.where(near, p1, p0)  # the hot node never sees itself: it sends p_cold
        nonzero = rng.random((size, n)) < p
        signs = np.where(rng.random((size, n)) < 0.5, -1, 1)
        return (nonzero * signs).astype(np.float64)

    return declare_mechanism(
        spec,
        sample,
        layout=1,
        public_randomness=PublicRandomness(
            drawn="one node uniform among the n", reveals="which node is hot"
        ),
        rho=np.array([hot]),
    )


def rho_exposure_correct(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """ρ makes node h hot.  Node u sends 0 w.p. 1 − p and ±1 (a fair sign) w.p. p, with
    p = p_hot when u is adjacent to h and p_cold otherwise (h itself: p_cold).  Each
    message is a function of the node's own list and ρ: local, mean zero either way, the
    signal is in the spread.

    Rewiring a node v ≠ h changes one message (v's, through its edge to h): ε₀.  Rewiring
    h changes up to n − 1 messages: true ε = (n − 1)·ε₀ (reached at ∅ against the star at
    h), which the correct variant claims.
    """
    return _spread_messages(params, rho_exposure_true_epsilon(params)), {}


def rho_exposure_broken(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """As the correct variant, claiming ``ignored`` × ε₀ (ignored ∈ [1, 2]): the budget of
    a node whose list feeds one or two messages, ignoring that ρ makes h's list feed
    n − 1 of them.  The true ε is (n − 1)·ε₀.
    """
    return _spread_messages(params, float(params["ignored"]) * _rho_message_epsilon(params)), {}


def rho_exposure_params(rng: np.random.Generator) -> Params:
    """n ∈ [6, 12], hot node uniform, ignored ∈ [1, 2] (p_cold = 0.3, p_hot = 0.4 by
    default: ε₀ = ln(4/3) = 0.288, true ε = (n − 1)·ε₀ ∈ [1.44, 3.16])."""
    n = int(rng.integers(6, 13))
    return {"n": n, "hot": int(rng.integers(n)), "ignored": float(rng.uniform(1.0, 2.0))}


# -- 7. the declared law broken at one input of the tied pairs ---------------------------
def _k_ary_rr(categories: int, epsilon: float, at: int | None, truth: float) -> Mechanism:
    keep = math.exp(epsilon) / (math.exp(epsilon) + categories - 1)

    def law(x: Any) -> np.ndarray:
        row = np.full(categories, (1.0 - keep) / (categories - 1))
        row[int(x)] = keep
        return row[None, :]

    spec = MechanismSpec(
        name="mutant.k_ary_rr" if at is None else "mutant.k_ary_rr_truthful_at_one_input",
        input_domain=Categorical(size=categories),
        relation=LocalRelation(),
        noise=FiniteRandomizer(law=FiniteOutputLaw(alphabet=categories, length=1, epsilon=epsilon)),
        guarantee=PureDP(epsilon=epsilon),
    )

    def sample(x: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        u = rng.random(size)
        out = (np.cumsum(law(x)[0])[None, :] < u[:, None]).sum(axis=1)
        out = np.minimum(out, categories - 1)
        if at is not None and int(x) == at:
            out = np.where(rng.random(size) < truth, at, out)
        return out.astype(np.int64).reshape(size, 1)

    return declare_mechanism(spec, sample, output_probabilities=law)


def one_input_departure_correct(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """k-ary randomized response (Kairouz, Oh & Viswanath 2016): true ε = ε.  Every pair
    of categories ties under the declared law, so one pair is tested for all."""
    m, eps = int(params["categories"]), float(params.get("epsilon", 1.0))
    return _k_ary_rr(m, eps, None, 0.0), {}


def one_input_departure_broken(params: Params) -> tuple[Mechanism, dict[str, Any]]:
    """k-ary randomized response that, at one category c only, reports c outright with
    probability t before randomizing: P(c | c) = t + (1 − t)·keep, so the pairs holding c
    have true ε = ln((t + (1 − t)·keep)/((1 − t)(1 − keep)/(m − 1))) > ε, while every pair
    without c is the declared law's."""
    m, eps = int(params["categories"]), float(params.get("epsilon", 1.0))
    return _k_ary_rr(m, eps, int(params["at"]), float(params["truth"])), {}


def one_input_departure_params(rng: np.random.Generator) -> Params:
    """m ∈ [4, 12] categories, c uniform among them, t ∈ [0.3, 0.7]."""
    m = int(rng.integers(4, 13))
    return {"categories": m, "at": int(rng.integers(m)), "truth": float(rng.uniform(0.3, 0.7))}


MUTANT_FAMILIES: dict[str, MutantFamily] = {
    "coupled_coins": MutantFamily(
        "coupled_coins",
        coupled_coins_correct,
        coupled_coins_broken,
        coupled_coins_params,
        "coins coupled between random coordinates",
    ),
    "non_local_read": MutantFamily(
        "non_local_read",
        non_local_read_correct,
        non_local_read_broken,
        non_local_read_params,
        "non-local reads at random nodes",
    ),
    "scale_error": MutantFamily(
        "scale_error",
        scale_error_correct,
        scale_error_broken,
        scale_error_params,
        "scale errors on random coordinates",
    ),
    "heavy_records": MutantFamily(
        "heavy_records",
        heavy_records_correct,
        heavy_records_broken,
        heavy_records_params,
        "heavy records at random positions (false group claim at k = 2)",
    ),
    "tail_leak": MutantFamily(
        "tail_leak",
        tail_leak_correct,
        tail_leak_broken,
        tail_leak_params,
        "leaks confined to the tails",
    ),
    "rho_exposure": MutantFamily(
        "rho_exposure",
        rho_exposure_correct,
        rho_exposure_broken,
        rho_exposure_params,
        "an exposure that depends on rho",
    ),
    "one_input_departure": MutantFamily(
        "one_input_departure",
        one_input_departure_correct,
        one_input_departure_broken,
        one_input_departure_params,
        "the declared law broken at one random input of the tied pairs",
    ),
}
