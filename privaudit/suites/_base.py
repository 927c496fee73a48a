"""The benchmark case: a mechanism, its claim, its true privacy and the inputs to test it on.

A :class:`BenchmarkCase` is what the auditor's quality tier consumes: a
:class:`~mechanisms.Mechanism` (carrying its :class:`~spec.MechanismSpec`), the ε its spec
claims, the ε the mechanism really has (derived by hand, ``math.inf`` for a mechanism
that is not ε-DP for any finite ε), the neighbouring input pairs the original benchmark
tests it on, and the published lower bounds other auditors reached on it.

Everything is checked when a case is built: the claim must be the spec's own, every
input pair must be a pair of neighbours under the spec's relation
(:meth:`~spec.relations.NeighbouringRelationBase.decide` on ``spec.input_domain``), and
``is_private`` is derived from the two ε, never typed in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import networkx as nx
import numpy as np

from privaudit.mechanisms import Mechanism
from privaudit.spec import ApproxDP, PureDP
from privaudit.spec.errors import InconsistentSpecError, InvalidParameterError, NotNeighboursError

__all__ = ["CI_MUST_DETECT", "BenchmarkCase", "PRIVACY_REL_TOL"]

#: Relative slack in ``true_epsilon <= claimed_epsilon`` (root-finding round-off only).
PRIVACY_REL_TOL = 1e-9


def _epsilon(value: Any, label: str, *, allow_inf: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidParameterError(f"{label} must be a number, got {value!r}")
    eps = float(value)
    if math.isnan(eps) or eps < 0.0 or (eps == 0.0 and not allow_inf):
        raise InvalidParameterError(f"{label} must be > 0 (not NaN), got {value!r}")
    if math.isinf(eps) and not allow_inf:
        raise InvalidParameterError(f"{label} must be finite, got {value!r}")
    return eps


def _freeze(value: Any) -> Any:
    """A read-only copy of an array or graph input (scalars are returned as they are)."""
    if isinstance(value, np.ndarray):
        frozen = value.copy()
        frozen.setflags(write=False)
        return frozen
    if isinstance(value, nx.Graph):
        return nx.freeze(value.copy())
    return value


def _same_input(x: Any, y: Any) -> bool:
    """Equal inputs: graphs by their edge sets, everything else by ``np.array_equal``."""
    if isinstance(x, nx.Graph) or isinstance(y, nx.Graph):
        if not (isinstance(x, nx.Graph) and isinstance(y, nx.Graph)):
            return False
        edges = [{frozenset(e) for e in g.edges()} for g in (x, y)]
        return set(x.nodes) == set(y.nodes) and edges[0] == edges[1]
    return bool(np.array_equal(x, y))


@dataclass(frozen=True, eq=False)
class BenchmarkCase:
    """One mechanism of a public benchmark, with its claimed and its true privacy.

    Parameters
    ----------
    name : str
        Unique name, ``"<suite>.<mechanism>"`` (e.g. ``"dpsniper.ReportNoisyMax3"``).
    mechanism : mechanisms.Mechanism
        The mechanism under test; ``mechanism.spec`` holds its claims.
    true_epsilon : float
        The smallest ε for which the mechanism is ε-DP under the spec's relation and
        domain (``math.inf`` when no finite ε works).  For a case whose spec claims
        (ε, δ)-DP it is the smallest ε with δ(ε) ≤ ``claimed_delta``.  When
        ``true_epsilon_exact`` is false it is a proven upper bound only.
    claimed_epsilon : float
        The ε of the spec's guarantee (checked against ``mechanism.spec.guarantee``).
    input_pairs : tuple of (input, input) pairs
        The benchmark's own neighbouring inputs; each is validated against
        ``spec.input_domain`` and checked with ``spec.relation.decide`` at construction
        (the stored values are the validated, read-only canonical forms).
    source : str
        Paper and repository file the mechanism comes from.
    notes : str
        The derivation of ``true_epsilon`` and anything a reader must know.
    reference_results : mapping of str to float
        Published ε lower bounds on this case (e.g. ``{"dpsniper_lr": 0.0968}``);
        stored as a read-only mapping.
    claimed_delta : float
        The δ of the spec's guarantee (0 for pure DP).
    true_epsilon_exact : bool
        False when ``true_epsilon`` is a proven upper bound whose tightness is not
        established (only for correct mechanisms).

    Attributes
    ----------
    is_private : bool
        ``true_epsilon <= claimed_epsilon`` (with relative slack
        :data:`PRIVACY_REL_TOL`); derived, not passed.

    Raises
    ------
    InvalidParameterError
        A malformed field (empty name, ε ≤ 0 or NaN, no input pairs, non-numeric
        reference result).
    InconsistentSpecError
        The claimed ε or δ is not the spec's.
    NotNeighboursError
        An input pair that the spec's relation does not relate.
    InvalidInputError
        An input outside the spec's input domain.
    """

    name: str
    mechanism: Mechanism
    true_epsilon: float
    claimed_epsilon: float
    is_private: bool = field(init=False)
    input_pairs: tuple[tuple[Any, Any], ...]
    source: str
    notes: str = ""
    reference_results: Mapping[str, float] = field(default_factory=dict)
    claimed_delta: float = 0.0
    true_epsilon_exact: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise InvalidParameterError(f"name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.mechanism, Mechanism):
            raise InvalidParameterError(
                f"{self.name}: mechanism must be a Mechanism, got {type(self.mechanism).__name__}"
            )
        true_eps = _epsilon(self.true_epsilon, f"{self.name}: true_epsilon", allow_inf=True)
        claimed = _epsilon(self.claimed_epsilon, f"{self.name}: claimed_epsilon", allow_inf=False)
        delta = float(self.claimed_delta)
        self._check_claim(claimed, delta)
        object.__setattr__(self, "true_epsilon", true_eps)
        object.__setattr__(self, "claimed_epsilon", claimed)
        object.__setattr__(self, "claimed_delta", delta)
        object.__setattr__(self, "is_private", bool(true_eps <= claimed * (1.0 + PRIVACY_REL_TOL)))
        object.__setattr__(self, "input_pairs", self._checked_pairs())
        results = {}
        for key, value in dict(self.reference_results).items():
            if (
                not isinstance(key, str)
                or isinstance(value, bool)
                or not isinstance(value, (int, float))
                or math.isnan(float(value))
            ):
                raise InvalidParameterError(
                    f"{self.name}: reference_results must map names to numbers, "
                    f"got {key!r}: {value!r}"
                )
            results[key] = float(value)
        object.__setattr__(self, "reference_results", MappingProxyType(results))
        for label in ("source", "notes"):
            if not isinstance(getattr(self, label), str):
                raise InvalidParameterError(f"{self.name}: {label} must be a string")
        if not self.source.strip():
            raise InvalidParameterError(f"{self.name}: source must name the paper and file")

    # -- checks ---------------------------------------------------------------------------
    def _check_claim(self, claimed: float, delta: float) -> None:
        guarantee = self.mechanism.spec.guarantee
        if isinstance(guarantee, PureDP):
            spec_eps, spec_delta = guarantee.epsilon, 0.0
        elif isinstance(guarantee, ApproxDP):
            spec_eps, spec_delta = guarantee.epsilon, guarantee.delta
        else:
            raise InconsistentSpecError(
                f"{self.name}: benchmark cases need a PureDP or ApproxDP claim, got "
                f"{type(guarantee).__name__}"
            )
        if not math.isclose(spec_eps, claimed, rel_tol=1e-12) or not math.isclose(
            spec_delta, delta, rel_tol=1e-12, abs_tol=0.0
        ):
            raise InconsistentSpecError(
                f"{self.name}: claimed (epsilon={claimed:g}, delta={delta:g}) is not the spec's "
                f"guarantee (epsilon={spec_eps:g}, delta={spec_delta:g})"
            )

    def _checked_pairs(self) -> tuple[tuple[Any, Any], ...]:
        spec = self.mechanism.spec
        pairs = tuple(self.input_pairs)
        if not pairs:
            raise InvalidParameterError(f"{self.name}: at least one input pair is needed")
        checked = []
        for i, pair in enumerate(pairs):
            if len(pair) != 2:
                raise InvalidParameterError(f"{self.name}: input pair {i} is not a pair: {pair!r}")
            x = spec.input_domain.validate(pair[0])
            y = spec.input_domain.validate(pair[1])
            if _same_input(x, y):
                raise InvalidParameterError(
                    f"{self.name}: input pair {i} holds the same input twice: {pair[0]!r}"
                )
            decision = spec.relation.decide(x, y, spec.input_domain)
            if not decision:
                raise NotNeighboursError(
                    f"{self.name}: input pair {i} is not related by {spec.relation.kind!r}: "
                    f"{decision.reason}"
                )
            checked.append((_freeze(x), _freeze(y)))
        return tuple(checked)

    # -- conveniences ---------------------------------------------------------------------
    @property
    def spec(self) -> Any:
        """The mechanism's :class:`~spec.MechanismSpec`."""
        return self.mechanism.spec

    @property
    def violation_ratio(self) -> float:
        """``true_epsilon / claimed_epsilon`` (``inf`` for a mechanism with no finite ε)."""
        return self.true_epsilon / self.claimed_epsilon

    def __repr__(self) -> str:
        verdict = "private" if self.is_private else "NOT private"
        delta = f", delta={self.claimed_delta:g}" if self.claimed_delta else ""
        return (
            f"<BenchmarkCase {self.name!r}: claims epsilon={self.claimed_epsilon:g}{delta}, "
            f"true epsilon={self.true_epsilon:.6g} ({verdict})>"
        )


#: The broken cases (by case id, ``"<suite>.<name>"``) whose violation is large enough to
#: be caught at CI strength: the quality tier must catch every one
#: (``tests/quality/test_benchmark_suites.py``), and the CI false-alarm study measures
#: the confirmation stage's catch rate on them (``scripts/ci_false_alarms.py``).
CI_MUST_DETECT: frozenset[str] = frozenset(
    {
        "statdp.noisy_max_v1b[eps0=0.7]",
        "statdp.noisy_max_v1b[eps0=1.5]",
        "statdp.noisy_max_v2b[eps0=0.7]",
        "statdp.noisy_max_v2b[eps0=1.5]",
        "statdp.histogram_eps[eps0=0.2]",
        "statdp.histogram_eps[eps0=0.7]",
        "statdp.iSVT1[eps0=0.2]",
        "statdp.iSVT1[eps0=0.7]",
        "statdp.iSVT1[eps0=1.5]",
        "dpsniper.NoisyHist2",
        "dpsniper.SparseVectorTechnique5",
        "broken.sum_underdeclared_sensitivity",
        "broken.range_scaled_mean",
        "broken.curator_truncated_laplace",
        "graphs.edge_count_no_projection",
        "graphs.edge_count_naive_truncation",
        "graphs.degree_histogram_edge_sensitivity",
        "graphs.triangle_count_edge_sensitivity",
        "local.rr_rerandomized_per_pair",
        "local.rr_binary_keep_probability",
        "local.rr_data_dependent_bins",
    }
)
