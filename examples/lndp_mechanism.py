"""Declare your own local-node (LNDP) mechanism, with its message layout and public randomness.

Run it with ``python examples/lndp_mechanism.py``.  In local node differential privacy
(Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential Privacy",
arXiv:2602.15802) each node sees only its own adjacency list and the public randomness ρ,
and sends one message; the claim covers the joint vector of the n messages for every ρ.

The mechanism here ("probe a partner"): ρ gives every node u a public partner ρ(u); node u
sends 1[ρ(u) ∈ N(u)] + Lap(b).  Rewiring node v changes v's own bit and the bit of every
node that probes v, so for THIS ρ the ℓ1 sensitivity is 1 + max_v #{u : ρ(u) = v}, and
b = that / ε.  What the declaration shows:

1. ``layout=[1] * n``: node u sends coordinate u (any block lengths are allowed, e.g.
   ``[n - 1 - i for i in range(n)]`` for "each edge reported by its lower endpoint");
2. ``public_randomness=PublicRandomness(...)``: how ρ is drawn and what it reveals, with
   ``rho=`` the realised partners and ``exposure=`` a function ρ → how many messages read
   each node's list; the auditor rewires the most exposed node first;
3. ``build_averaged_scale`` calibrates b to the sensitivity *averaged over ρ* (2) instead
   of this ρ's: the audit finds the hot node and refutes the claim.

       privaudit audit examples/lndp_mechanism.py:build_probe_partner    # exit 0
       privaudit audit examples/lndp_mechanism.py:build_averaged_scale   # exit 1
"""

from __future__ import annotations

import numpy as np

from privaudit import AuditConfig, audit
from privaudit.mechanisms import FunctionMechanism, declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    GlobalSensitivity,
    GraphDomain,
    Laplace,
    LocalNodeRelation,
    MechanismSpec,
    PublicRandomness,
    PureDP,
)

NODES = 9
EPSILON = 1.0
RHO_SEED = 3


def draw_partners(seed: int = RHO_SEED) -> np.ndarray:
    """ρ: node u's partner; here a skewed draw — every node probes one hot node (the worst
    case the claim must hold for), whose own partner is uniform."""
    rng = np.random.default_rng(seed)
    hot = int(rng.integers(NODES))
    partners = np.full(NODES, hot)
    partners[hot] = (hot + 1 + int(rng.integers(NODES - 1))) % NODES
    return partners


def exposure(partners: np.ndarray) -> np.ndarray:
    """How many messages read each node's list: its own, plus one per node probing it."""
    return 1.0 + np.bincount(partners, minlength=NODES)


def probe_bits(graph, partners: np.ndarray) -> np.ndarray:
    """Node u's bit 1[ρ(u) ∈ N(u)], read from u's own list only."""
    return np.array([float(graph.has_edge(u, int(partners[u]))) for u in range(NODES)])


def _build(sensitivity: float, scale: float, name: str) -> FunctionMechanism:
    partners = draw_partners()
    spec = MechanismSpec(
        name=name,
        input_domain=GraphDomain(n_nodes=NODES),
        relation=LocalNodeRelation(),
        statistic="each node's bit: is its public partner in its list",
        output_dimension=NODES,
        sensitivity=(GlobalSensitivity(value=sensitivity, norm="l1"),),
        noise=AdditiveNoise(law=Laplace(scale=sensitivity / EPSILON)),
        guarantee=PureDP(epsilon=EPSILON),
    )
    rho = PublicRandomness(
        drawn=f"a hot node probed by all others, seed {RHO_SEED}",
        reveals="the partner each node probes",
        seed=RHO_SEED,
    )
    return declare_mechanism(
        spec,
        lambda g, size, rng: probe_bits(g, partners) + rng.laplace(0, scale, (size, NODES)),
        statistic=lambda g: probe_bits(g, partners),
        layout=[1] * NODES,
        public_randomness=rho,
        rho=partners,
        exposure=exposure,
    )


def build_probe_partner() -> FunctionMechanism:
    """Correct: b = (1 + the most probes any node receives under this ρ) / ε."""
    sensitivity = float(exposure(draw_partners()).max())
    return _build(sensitivity, sensitivity / EPSILON, "probe_partner")


def build_averaged_scale() -> FunctionMechanism:
    """Broken: claims and draws b = 2/ε, the sensitivity averaged over uniform ρ."""
    return _build(2.0, 2.0 / EPSILON, "probe_partner_averaged")


def main() -> None:
    config = AuditConfig(
        samples=20_000, pilot_samples=1_000, pair_budget=12, pairs_tested=2, claim_budget=60, seed=0
    )
    for build in (build_probe_partner, build_averaged_scale):
        report = audit(build(), config=config)
        print(f"{report.mechanism}: {report.verdict}; {report.check('lndp.exposure').summary}")
        print(f"  {report.check('lndp.structure').summary[:150]}")
        for check in report.violations:
            print(f"  violated {check.name}: {check.summary[:120]}")


if __name__ == "__main__":
    main()
