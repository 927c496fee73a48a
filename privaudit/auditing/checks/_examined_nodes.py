"""Which nodes the local-node checks examine: every node where the declared law makes it
cheap, else the focus (most exposed) nodes, the ends and random ones, counted so that the
report can say what was left out (``docs/trust.md``, "Shortcuts and assumptions")."""

from __future__ import annotations

import numpy as np

from privaudit.auditing.checks._local_node_spec import _graph_domain, _local_relation
from privaudit.mechanisms import Mechanism
from privaudit.spec import LocalNodeRelation

__all__ = ["ALL_LOCALITY_NODES", "CHECK_NODES", "RANDOM_LOCALITY_NODES"]

#: Nodes whose message is examined by the per-node check and by the sampled locality test.
CHECK_NODES = 4
#: Graphs up to this many nodes have every node's message examined by the locality check
#: when the law is declared (a gray-box hook); larger ones get the focus nodes and
#: :data:`RANDOM_LOCALITY_NODES` random ones, and say so.
ALL_LOCALITY_NODES = 512
#: Random nodes added to the locality check's examined nodes (beyond every node's reach).
RANDOM_LOCALITY_NODES = 64


def _nodes(mechanism: Mechanism, relation: LocalNodeRelation | None = None) -> list[int]:
    n = _graph_domain(mechanism).n_nodes
    focus = list(_local_relation(mechanism, relation).focus_nodes)
    picks = focus + [0, n - 1, n // 2, 1]
    out: list[int] = []
    for v in picks:
        if 0 <= v < n and v not in out:
            out.append(int(v))
    return out[:CHECK_NODES]


def _locality_nodes(
    mechanism: Mechanism,
    relation: LocalNodeRelation,
    declared: bool,
    rng: np.random.Generator | None,
) -> list[int]:
    """The nodes whose message the locality check examines: every node when the law is
    declared and n ≤ :data:`ALL_LOCALITY_NODES`; otherwise the focus (most exposed) nodes,
    the ends, and random nodes drawn from ``rng`` (:data:`RANDOM_LOCALITY_NODES` with a
    declared law, up to :data:`CHECK_NODES` + 2 on samples)."""
    n = _graph_domain(mechanism).n_nodes
    if declared and n <= ALL_LOCALITY_NODES:
        focus = [v for v in _local_relation(mechanism, relation).focus_nodes if 0 <= v < n]
        return list(dict.fromkeys([*focus, *range(n)]))
    picked = _nodes(mechanism, relation)
    extra = RANDOM_LOCALITY_NODES if declared else 2
    if rng is not None and n > len(picked):
        rest = np.setdiff1d(np.arange(n), picked)
        picked += [int(v) for v in rng.choice(rest, size=min(extra, rest.size), replace=False)]
    return picked
