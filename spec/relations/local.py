"""Relations of local differential privacy: any two single inputs, or one node's view.

* :class:`LocalRelation`: in the local model each user randomises one value, and *any*
  two valid values are neighbours.
* :class:`LocalNodeRelation`: node-level local privacy on graphs; each node ``i`` holds
  its adjacency list ``N_G(i)``, and the graphs are node-neighbours (as in
  :class:`~spec.relations.graphs.NodeNeighbouring`).

Both own their adversarial neighbours and local-search moves (the interface of
:class:`~spec.relations.NeighbouringRelationBase`).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator
from functools import partial
from typing import Any, Literal

import networkx as nx
import numpy as np
from pydantic import Field, NonNegativeInt, model_serializer, model_validator

from .._base import SpecModel
from .._random import RandomLike, as_generator
from ..domains import Categorical, GraphDomain, IntegerRange, RealInterval, VectorDomain
from ..errors import InvalidGraphError, InvalidParameterError, UnsupportedCombinationError
from ._base import AdversarialPair, LocalMoves, NeighbourDecision, NeighbouringRelationBase
from ._moves_vectors import mutated_vectors, nudged_vector
from .graphs import _edge_set, _graph, _NodeRewiringBase

#: Most (old, new) neighbourhood sizes the degree-space enumeration realises per background.
DEGREE_SPACE_PATTERNS = 24

__all__ = [
    "LocalNodeRelation",
    "LocalRelation",
    "MessageLayout",
    "PublicRandomness",
    "public_randomness_digest",
]


class MessageLayout(SpecModel):
    """Which coordinates of a local-node release each node sends (its message block).

    The release of a local-node mechanism is the joint vector of the n node messages
    (Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential Privacy",
    arXiv:2602.15802, Definition 2.3).  The blocks are consecutive in node order: node 0
    sends the first coordinates, node 1 the next, and so on.  Give exactly one of

    * ``block``: every node sends ``block`` coordinates (the n·k layout of stacked
      per-node vectors; stored in O(1), whatever n);
    * ``sizes``: node i sends ``sizes[i]`` coordinates, any lengths (0 included: a node
      that sends nothing).

    The blocks must cover the release exactly (checked against ``output_dimension``
    when the :class:`~spec.MechanismSpec` is built).

    Examples
    --------
    Each edge {i, j} (i < j) reported by its lower endpoint, upper triangle row-major:
    ``MessageLayout.consecutive([n - 1 - i for i in range(n)])``.
    """

    kind: Literal["message_layout"] = "message_layout"
    block: NonNegativeInt | None = None
    sizes: tuple[NonNegativeInt, ...] | None = None

    @model_serializer(mode="wrap")
    def _omit_other_form(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key in ("block", "sizes"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data

    @model_validator(mode="after")
    def _one_form(self) -> MessageLayout:
        if (self.block is None) == (self.sizes is None):
            raise ValueError(
                "give exactly one of block= (equal blocks) and sizes= (one "
                f"size per node), got block={self.block!r}, sizes="
                f"{'None' if self.sizes is None else list(self.sizes[:8])}"
            )
        if self.sizes is not None and not self.sizes:
            raise ValueError("sizes= needs one block size per node, got none")
        return self

    @classmethod
    def consecutive(cls, sizes: Any) -> MessageLayout:
        """Node i owns the next ``sizes[i]`` coordinates, in node order."""
        return cls(sizes=tuple(int(s) for s in sizes))

    @classmethod
    def equal(cls, size: int) -> MessageLayout:
        """Every node owns ``size`` consecutive coordinates, in node order."""
        return cls(block=int(size))

    def block_sizes(self, n_nodes: int) -> np.ndarray:
        """The n block sizes (int64)."""
        if self.sizes is not None:
            return np.asarray(self.sizes, dtype=np.int64)
        return np.full(int(n_nodes), int(self.block or 0), dtype=np.int64)

    def covers(self, n_nodes: int, dimension: int) -> bool:
        """True when the layout has ``n_nodes`` blocks covering ``0 … dimension − 1``."""
        if self.sizes is not None and len(self.sizes) != int(n_nodes):
            return False
        return int(self.block_sizes(n_nodes).sum()) == int(dimension)

    def arrays(self, n_nodes: int) -> list[np.ndarray]:
        """The blocks as int64 index arrays (for slicing a release)."""
        edges = np.concatenate([[0], np.cumsum(self.block_sizes(n_nodes))])
        return [np.arange(a, b, dtype=np.int64) for a, b in itertools.pairwise(edges)]


class PublicRandomness(SpecModel):
    """The public randomness ρ of a local-node protocol: how it is drawn, what it reveals.

    In the local model the server may send every node public random bits ρ before the
    nodes answer; the privacy claim holds for *every* fixed ρ (Raskhodnikova, Smith,
    Wagaman & Zavyalov, arXiv:2602.15802, Definition 2.3), so the auditor tests the
    release with the mechanism's realised ρ fixed, and asks the mechanism which nodes that
    ρ exposes most (the ``node_exposure`` hook) to rewire them first.

    Attributes
    ----------
    drawn : str
        How ρ is drawn (e.g. ``"each node's partner uniform among the others"``).
    reveals : str
        What ρ makes public (e.g. ``"which node each node probes"``).
    seed : int, optional
        The seed ρ was drawn from, when it was drawn from one.
    digest : str, optional
        A digest of the realised ρ (e.g. ``sha256`` of its bytes), so that the spec — and
        its certificate — pin the ρ that was audited.
    """

    kind: Literal["public_randomness"] = "public_randomness"
    drawn: str = Field(min_length=1)
    reveals: str = Field(min_length=1)
    seed: NonNegativeInt | None = None
    digest: str | None = None


def public_randomness_digest(rho: Any) -> str:
    """``"sha256:<hex>"`` of a realised public randomness ρ: the one digest that
    :attr:`PublicRandomness.digest` is checked against.

    Parameters
    ----------
    rho : object with ``public_bytes()``, or array_like of numbers
        An object's own canonical bytes when it defines ``public_bytes()``; otherwise the
        C-contiguous int64 bytes of an integer (or boolean) array, or the float64 bytes of
        a real one.

    Returns
    -------
    str

    Raises
    ------
    InvalidParameterError
        If ρ is neither (strings, objects, complex numbers): it then has no canonical bytes.
    """
    public_bytes = getattr(rho, "public_bytes", None)
    if callable(public_bytes):
        data = public_bytes()
        if not isinstance(data, bytes):
            raise InvalidParameterError(
                f"{type(rho).__name__}.public_bytes() must return bytes, got {type(data).__name__}"
            )
        return "sha256:" + hashlib.sha256(data).hexdigest()
    array = np.asarray(rho)
    if array.dtype.kind in "biu":
        data = np.ascontiguousarray(array, dtype=np.int64).tobytes()
    elif array.dtype.kind == "f":
        data = np.ascontiguousarray(array, dtype=np.float64).tobytes()
    else:
        raise InvalidParameterError(
            f"public randomness of type {type(rho).__name__} (dtype {array.dtype}) has no "
            "canonical bytes to digest: pass an array of numbers, or give it a "
            "public_bytes() method"
        )
    return "sha256:" + hashlib.sha256(data).hexdigest()


class LocalRelation(NeighbouringRelationBase):
    """Any two valid single elements of a scalar or vector domain are neighbours.

    The distance is 0 for equal elements and 1 otherwise.
    """

    kind: Literal["local"] = "local"

    def supports_domain(self, domain: Any) -> bool:
        """True for scalar domains and :class:`~spec.domains.VectorDomain`."""
        return isinstance(domain, (RealInterval, IntegerRange, Categorical, VectorDomain))

    def _require_domain(self, domain: Any) -> Any:
        if not self.supports_domain(domain):
            shown = domain.label() if hasattr(domain, "label") else repr(domain)
            raise UnsupportedCombinationError(f"LocalRelation is not defined on {shown}")
        return domain

    def decide(self, x: Any, y: Any, domain: Any, *, validated: bool = False) -> NeighbourDecision:
        """Always related once both inputs are valid elements of ``domain``.

        ``validated``: see :meth:`NeighbouringRelationBase.decide`.
        """
        checked = self._require_domain(domain)
        a, b = self._validated_inputs(checked, x, y, validated)
        if np.array_equal(a, b):
            return NeighbourDecision(True, "inputs are identical", 0.0)
        return NeighbourDecision(True, "any two valid inputs are neighbours (local model)", 1.0)

    def random_neighbour(self, x: Any, domain: Any, rng: RandomLike) -> Any:
        """A random element different from ``x`` (``x`` when the domain has one element)."""
        checked = self._require_domain(domain)
        return checked.sample_other(checked.validate(x), as_generator(rng))

    def neighbours(self, x: Any, domain: Any) -> Iterator[Any]:
        """Every other element of a finite domain.

        Raises
        ------
        UnsupportedCombinationError
            If the domain is infinite.
        """
        checked = self._require_domain(domain)
        value = checked.validate(x)
        if not checked.is_finite:
            raise UnsupportedCombinationError(
                f"LocalRelation neighbours over {checked.label()} are infinitely many"
            )
        return (element for element in checked.enumerate() if not np.array_equal(element, value))

    # -- adversarial neighbours and moves (see NeighbouringRelationBase) --------------------
    def adversarial_pairs(
        self,
        domain: Any,
        rng: RandomLike = None,
        budget: int | None = None,
        *,
        claimed_sensitivity: float | None = None,
    ) -> Iterator[AdversarialPair]:
        """Every pair of distinct domain extremes (origin ``"extreme"``); deterministic."""
        checked = self._require_domain(domain)
        return ((x, y, "extreme") for x, y in itertools.combinations(checked.extremes(), 2))

    def extreme_neighbours(self, x: Any, domain: Any) -> Iterator[Any]:
        """The domain's extremes (any two valid inputs are neighbours)."""
        return iter(self._require_domain(domain).extremes())

    def local_moves(self, x: Any, y: Any, domain: Any, rng: RandomLike) -> LocalMoves:
        """Moves of the local model (see :mod:`spec.relations._moves_vectors`).

        ``mutate``: one coordinate of ``x`` moves and ``y`` is kept.  ``target``: a random
        extreme of the domain.  ``nudge``: one coordinate of ``y`` moves.
        """
        checked, gen = self._require_domain(domain), as_generator(rng)
        return LocalMoves(
            mutate=partial(mutated_vectors, checked, x, y, gen, carry=False),
            target=partial(checked.random_extreme, gen),
            nudge=partial(nudged_vector, checked, y, gen),
        )


class LocalNodeRelation(_NodeRewiringBase):
    """Node-neighbouring graphs seen through the nodes' own adjacency lists.

    Decides and generates exactly like
    :class:`~spec.relations.graphs.NodeNeighbouring` (optional ``max_degree``); adds
    the local views :meth:`adjacency_lists` and :meth:`changed_nodes`, and the adversarial
    node-neighbour generators of local node differential privacy (Raskhodnikova, Smith,
    Wagaman & Zavyalov, "Local Node Differential Privacy", arXiv:2602.15802; see
    ``docs/lndp_study.md``): :meth:`local_node_pairs`, which :meth:`adversarial_pairs`
    offers the auditor before the generic node-neighbouring generators.

    Parameters
    ----------
    max_degree : int, optional
        Public degree bound of both graphs.
    focus_nodes : tuple of int
        Nodes the adversary should rewire first: public-randomness-aware pairs (e.g. the
        node v maximising X_v(ρ) = #{t : v ∈ S_t} in the paper's Algorithm 7).  Hints
        only; they do not change which pairs are neighbours.
    bucket_width : int, optional
        λ of a blurry-degree mechanism (paper, Definition 4.5): bucket-extreme pairs put the
        other nodes at multiples of λ.  A hint only.
    layout : MessageLayout, optional
        Which output coordinates each node sends.  Without it the auditor cannot tell the
        messages apart: the ``lndp.structure`` check cannot run and an audit with no
        violation is ``inconclusive`` (``privaudit.auditing.checks.local_node``).
    public_randomness : PublicRandomness, optional
        How the public randomness ρ is drawn and what it reveals (the audit holds the
        mechanism's realised ρ fixed).
    """

    kind: Literal["local_node"] = "local_node"
    focus_nodes: tuple[int, ...] = ()
    bucket_width: int | None = Field(default=None, ge=1)
    layout: MessageLayout | None = None
    public_randomness: PublicRandomness | None = None

    @model_serializer(mode="wrap")
    def _omit_undeclared(self, handler: Any) -> Any:
        # the fields added by issue 27 are left out when undeclared, so that a relation
        # declared before them keeps its content hash (and its certificates)
        data = handler(self)
        if isinstance(data, dict):
            for key in ("layout", "public_randomness"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data

    def focused(self, nodes: Any) -> LocalNodeRelation:
        """This relation with ``nodes`` rewired first (then the existing :attr:`focus_nodes`).

        The auditor calls it with the nodes the mechanism's public randomness exposes most
        (``privaudit.auditing.checks.local_node.exposed_nodes``); the pairs that are neighbours do
        not change.
        """
        order: list[int] = []
        for v in list(nodes) + list(self.focus_nodes):
            if int(v) not in order:
                order.append(int(v))
        return self.model_copy(update={"focus_nodes": tuple(order)})

    @staticmethod
    def _as_graph(graph: Any) -> nx.Graph:
        if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
            raise InvalidGraphError(
                f"expected a simple undirected networkx.Graph, got {type(graph).__name__}"
            )
        return graph

    def adjacency_lists(self, graph: Any) -> list[frozenset[int]]:
        """Node ``i``'s view ``N_G(i)`` for ``i = 0 … n − 1``.

        Raises
        ------
        InvalidGraphError
            If ``graph`` is not an undirected simple ``networkx.Graph`` on ``0 … n − 1``.
        """
        checked = self._as_graph(graph)
        n = checked.number_of_nodes()
        if set(checked.nodes) != set(range(n)):
            raise InvalidGraphError(f"the node set must be exactly 0..{n - 1}")
        return [frozenset(int(u) for u in checked[i]) for i in range(n)]

    def changed_nodes(self, graph: Any, other: Any) -> list[int]:
        """Sorted nodes whose adjacency lists differ between ``graph`` and ``other``.

        These are the endpoints of the differing edges.

        Raises
        ------
        InvalidGraphError
            If either input is not an undirected simple graph, or the node sets differ.
        """
        first, second = self._as_graph(graph), self._as_graph(other)
        if set(first.nodes) != set(second.nodes):
            raise InvalidGraphError(
                f"changed_nodes: the graphs have different node sets "
                f"({first.number_of_nodes()} vs {second.number_of_nodes()} nodes)"
            )
        difference = _edge_set(first) ^ _edge_set(second)
        return sorted({node for edge in difference for node in edge})

    # -- adversarial generators of local node privacy -------------------------------------------
    def _checked_domain(self, domain: Any) -> GraphDomain:
        if not isinstance(domain, GraphDomain):
            raise UnsupportedCombinationError(
                f"LocalNodeRelation generators need a GraphDomain, got {type(domain).__name__}"
            )
        return self.effective_domain(domain)

    def _check_node(self, v: Any, n: int, what: str) -> int:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v < n:
            raise InvalidParameterError(f"{what}: v must be a node in 0..{n - 1}, got {v!r}")
        return int(v)

    def bucket_extremes(self, domain: Any, lam: int, v: int = 0) -> list[tuple[nx.Graph, nx.Graph]]:
        """Bucket-extreme pairs for a blurry mechanism of bucket width λ.

        ``v`` moves from isolated (bucket 0) to adjacent to every node with room (the top
        bucket), over backgrounds in which every other node sits at degree jλ (a multiple
        of λ, the corner of a tent of the blur matrix) for j = 0, 1, 2 as the bound allows.
        """
        bounded = self._checked_domain(domain)
        n, bound = bounded.n_nodes, bounded.degree_bound
        v = self._check_node(v, n, "bucket_extremes")
        if isinstance(lam, bool) or not isinstance(lam, (int, np.integer)) or lam < 1:
            raise InvalidParameterError(
                f"bucket_extremes: lambda must be an integer >= 1, got {lam!r}"
            )
        pairs = [self.star_toggle(n, v)]
        for j in (1, 2):
            t = j * int(lam)
            if t < bound and t <= n - 2:
                pairs.append(self.threshold_star_toggle(n, t, v, bounded))
        return pairs

    def degree_space_pairs(
        self, domain: Any, v: int = 0, limit: int = DEGREE_SPACE_PATTERNS
    ) -> list[tuple[nx.Graph, nx.Graph]]:
        """Realisable pairs over the degree-space view of a rewiring of ``v``.

        A rewiring is described by v's old and new degrees a, b and the set U of other
        nodes that gain or lose v.  This enumerates (a, b) with disjoint old and new
        neighbourhoods (|U| = a + b, the largest possible), at most ``limit`` patterns
        spread over 0 ≤ a, b, a + b ≤ n − 1, on the empty background: every pattern is
        realised as an actual pair of graphs, so no unrealisable degree sequence is
        audited.
        """
        bounded = self._checked_domain(domain)
        n, bound = bounded.n_nodes, bounded.degree_bound
        v = self._check_node(v, n, "degree_space_pairs")
        others = [u for u in range(n) if u != v]
        sizes = [
            (a, b)
            for a in range(min(bound, n - 1) + 1)
            for b in range(min(bound, n - 1) + 1)
            if 0 < a + b <= n - 1
        ]
        if len(sizes) > limit:
            picks = np.unique(np.linspace(0, len(sizes) - 1, limit).round().astype(int))
            sizes = [sizes[i] for i in picks]
        pairs = []
        for a, b in sizes:
            old, new = others[:a], others[a : a + b]
            pairs.append(
                (
                    _graph(n, [(min(v, u), max(v, u)) for u in old]),
                    _graph(n, [(min(v, u), max(v, u)) for u in new]),
                )
            )
        return pairs

    def same_view_graphs(self, domain: Any, graph: Any, v: int) -> list[nx.Graph]:
        """Graphs in which node ``v``'s adjacency list is that of ``graph`` and others' differ.

        For the locality check of local node privacy (each randomizer reads its own list
        only; Raskhodnikova, Smith, Wagaman & Zavyalov, arXiv:2602.15802, Definition 2.3):
        (a) ``graph`` keeping only ``v``'s edges, and (b) ``v``'s edges plus every edge among
        the other nodes that the degree bound allows (added in lexicographic order).  Only
        graphs different from ``graph`` are returned.
        """
        bounded = self._checked_domain(domain)
        n, bound = bounded.n_nodes, bounded.degree_bound
        v = self._check_node(v, n, "same_view_graphs")
        base = bounded.validate(graph)
        own = [(min(v, u), max(v, u)) for u in base[v]]
        sparse = _graph(n, own)
        dense = _graph(n, own)
        for a in range(n):
            for b in range(a + 1, n):
                if v not in (a, b) and dense.degree(a) < bound and dense.degree(b) < bound:
                    dense.add_edge(a, b)
        old = _edge_set(base)
        out: list[nx.Graph] = []
        for other in (sparse, dense):
            if _edge_set(other) != old and all(_edge_set(other) != _edge_set(g) for g in out):
                out.append(other)
        return out

    def regular_graphs(
        self, domain: Any, degree: int, count: int, rng: RandomLike
    ) -> list[nx.Graph]:
        """``count`` uniformly random ``degree``-regular graphs on the domain's n nodes.

        The distribution R_{n,D} of Lemma 5.4 (Raskhodnikova, Smith, Wagaman & Zavyalov,
        arXiv:2602.15802); drawn with ``networkx.random_regular_graph`` seeded from ``rng``.

        Raises
        ------
        InvalidParameterError
            If no such graph fits the domain (n·D odd, D ≥ n or D above the degree bound).
        """
        bounded = self._checked_domain(domain)
        n = bounded.n_nodes
        if (
            isinstance(degree, bool)
            or not isinstance(degree, (int, np.integer))
            or not 1 <= degree <= bounded.degree_bound
            or (n * degree) % 2
        ):
            raise InvalidParameterError(
                f"regular_graphs: degree must be an integer in [1, {bounded.degree_bound}] with "
                f"n*degree even (n = {n}), got {degree!r}"
            )
        gen = as_generator(rng)
        seeds = gen.integers(0, 2**31 - 1, size=int(count))
        return [
            _graph(n, nx.random_regular_graph(int(degree), n, seed=int(s)).edges()) for s in seeds
        ]

    def group_pairs(self, domain: Any, k: int) -> list[tuple[nx.Graph, nx.Graph, str]]:
        """Pairs of graphs at node distance exactly ``k`` (group privacy), as ``(x, y, origin)``.

        * ``"empty_vs_starpartite"``: ∅ against the k-starpartite graph whose centres
          0, …, k − 1 are adjacent to every other node (a vertex cover of size k and no
          smaller);
        * ``"empty_vs_clique"``: ∅ against the clique on nodes 0, …, k (cover k);
        * ``"clique_growth"``: a K-clique on the last K = n − 1 − k nodes against the
          (K + k)-clique on nodes 1, …, n − 1, when K ≥ k + 1 (Raskhodnikova, Smith, Wagaman
          & Zavyalov, arXiv:2602.15802, Section 6: cliques whose sizes differ by k).

        Only pairs that respect the degree bound are returned; every pair's distance is
        confirmed by :meth:`decide`.

        Raises
        ------
        InvalidParameterError
            If ``k`` is not an integer in [1, n − 1].
        """
        bounded = self._checked_domain(domain)
        n, bound = bounded.n_nodes, bounded.degree_bound
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n - 1:
            raise InvalidParameterError(
                f"group_pairs: k must be an integer in [1, {n - 1}], got {k!r}"
            )
        k = int(k)
        empty = _graph(n, [])
        star = _graph(n, [(c, u) for c in range(k) for u in range(c + 1, n)])
        clique = _graph(n, [(a, b) for a in range(k + 1) for b in range(a + 1, k + 1)])
        candidates = [(empty, star, "empty_vs_starpartite"), (empty, clique, "empty_vs_clique")]
        small = n - 1 - k
        if small >= k + 1:
            first = range(n - small, n)
            second = range(1, n)
            candidates.append(
                (
                    _graph(n, [(a, b) for a in first for b in first if a < b]),
                    _graph(n, [(a, b) for a in second for b in second if a < b]),
                    "clique_growth",
                )
            )
        out = []
        for x, y, origin in candidates:
            if (
                max((d for _, d in y.degree()), default=0) > bound
                or max((d for _, d in x.degree()), default=0) > bound
            ):
                continue
            if self.decide(x, y, bounded).distance == k:
                out.append((x, y, origin))
        return out

    def adversarial_pairs(
        self,
        domain: Any,
        rng: RandomLike = None,
        budget: int | None = None,
        *,
        claimed_sensitivity: float | None = None,
    ) -> Iterator[AdversarialPair]:
        """:meth:`local_node_pairs`, then the node-neighbouring generators of
        :meth:`NodeNeighbouring.adversarial_pairs
        <spec.relations.NodeNeighbouring.adversarial_pairs>`."""
        return itertools.chain(
            self.local_node_pairs(domain),
            super().adversarial_pairs(domain, rng, budget, claimed_sensitivity=claimed_sensitivity),
        )

    def local_node_pairs(self, domain: Any) -> Iterator[AdversarialPair]:
        """The pairs only local node privacy needs, as ``(x, y, origin)``, most telling first.

        1. ``"focused_star_toggle"``: ∅ against a star at each of :attr:`focus_nodes`
           (public-randomness-aware, paper §7.1);
        2. ``"bucket_extremes"``: :meth:`bucket_extremes` at :attr:`bucket_width`;
        3. ``"focused_degree_preserving_swap"``: at each focus node, a half star against
           the disjoint half star (v's degree unchanged, its neighbours' lists change);
        4. ``"degree_space"``: :meth:`degree_space_pairs` at the first focus node (or 0).

        The generic generators (star toggle at node 0, complement rewiring, threshold
        backgrounds, degree-preserving swaps) follow in :meth:`adversarial_pairs`; these
        add what only local node privacy needs.
        """
        bounded = self._checked_domain(domain)
        n = bounded.n_nodes
        focus = [self._check_node(v, n, "focus_nodes") for v in self.focus_nodes]
        for v in focus:
            x, y = self.star_toggle(n, v)
            yield x, y, "focused_star_toggle"
        if self.bucket_width is not None:
            for x, y in self.bucket_extremes(bounded, self.bucket_width, focus[0] if focus else 0):
                yield x, y, "bucket_extremes"
        half = min(bounded.degree_bound, (n - 1) // 2)
        for v in focus:
            others = [u for u in range(n) if u != v]
            first = _graph(n, [(min(v, u), max(v, u)) for u in others[:half]])
            yield (
                first,
                _graph(n, [(min(v, u), max(v, u)) for u in others[half : 2 * half]]),
                "focused_degree_preserving_swap",
            )
        for x, y in self.degree_space_pairs(bounded, focus[0] if focus else 0):
            yield x, y, "degree_space"
