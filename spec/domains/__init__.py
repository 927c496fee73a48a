"""Input domains: the sets that a mechanism's inputs are drawn from.

Every domain is a spec model (frozen, hashable by content, JSON round-trip) that also
knows how to check, sample, enumerate and stress its elements:

* :meth:`DomainBase.validate` returns the canonical form of an element (``float64`` or
  ``int64`` numpy values of the right shape; a fresh :class:`networkx.Graph` for graphs)
  or raises :class:`~spec.errors.InvalidInputError` (:class:`~spec.errors.InvalidGraphError`
  for graphs) naming the offending value;
* :meth:`DomainBase.contains` is the non-raising twin of ``validate``;
* :attr:`DomainBase.is_finite` and :attr:`DomainBase.cardinality` (exact Python ints);
* :meth:`DomainBase.sample`, :meth:`DomainBase.sample_other` draw random elements from an
  injected generator;
* :meth:`DomainBase.extremes` lists a few adversarially interesting elements;
* :meth:`DomainBase.enumerate` iterates over every element of a finite domain.

Canonical values
----------------
Scalar domains return numpy scalars (``np.float64`` for :class:`RealInterval`, ``np.int64``
for :class:`IntegerRange` and :class:`Categorical`); ``-0.0`` is canonicalised to ``0.0``.
A :class:`VectorDomain` element is a 1-d array of shape ``(length,)``; a
:class:`DatasetDomain` element an array of shape ``(n,)`` (scalar records) or ``(n, d)``
(vector records).  Booleans are never read as numbers (only graph adjacency matrices may
be boolean).

Modules
-------
:mod:`spec.domains._common`
    The tuning constants (:data:`UNBOUNDED_REACH`, :data:`SAMPLE_OTHER_TRIES`, …) and the
    private parameter checks and array helpers shared by the domains.
:mod:`spec.domains._base`
    The abstract bases :class:`DomainBase` and :class:`ScalarDomainBase`.
:mod:`spec.domains.scalars`
    :class:`RealInterval`, :class:`IntegerRange`, :class:`Categorical` and their union
    :data:`ScalarDomain`.
:mod:`spec.domains.vectors`
    :class:`VectorDomain`: fixed-length vectors over a scalar domain.
:mod:`spec.domains.datasets`
    :class:`DatasetDomain` and :data:`RecordDomain`, the union of the record domains.
:mod:`spec.domains.graphs`
    :class:`GraphDomain`: simple undirected graphs on a public node set.
:mod:`spec.domains.graph_inputs`
    :func:`adjacency_matrix` (a graph input converted once into a validated sparse
    ``int8`` CSR adjacency, for estimators) and :func:`relabel_graph` (a declared
    relabelling of node labels onto ``0 … n − 1``, applied once).

:data:`InputDomain` is the discriminated union of all six concrete domains (on ``kind``),
for fields that hold any domain and for parsing with ``pydantic.TypeAdapter``.
"""

from __future__ import annotations

from typing import Annotated as _Annotated

from pydantic import Field as _Field

from ._base import NUDGE_FRACTION, PERTURB_EXTREME, PERTURB_FRESH, DomainBase, ScalarDomainBase
from ._common import (
    MAX_GRAPH_COUNT_STATES,
    SAMPLE_OTHER_TRIES,
    UNBOUNDED_INTEGER_GEOMETRIC_P,
    UNBOUNDED_REACH,
    UNBOUNDED_REAL_SCALE,
    VARIABLE_SIZE_SPREAD,
)
from .datasets import DatasetDomain, RecordDomain
from .graph_inputs import adjacency_matrix, relabel_graph
from .graphs import GraphDomain, is_edge_array
from .scalars import Categorical, IntegerRange, RealInterval, ScalarDomain
from .vectors import VectorDomain

__all__ = [
    "Categorical",
    "DatasetDomain",
    "DomainBase",
    "GraphDomain",
    "InputDomain",
    "IntegerRange",
    "MAX_GRAPH_COUNT_STATES",
    "NUDGE_FRACTION",
    "PERTURB_EXTREME",
    "PERTURB_FRESH",
    "RealInterval",
    "RecordDomain",
    "SAMPLE_OTHER_TRIES",
    "ScalarDomain",
    "ScalarDomainBase",
    "UNBOUNDED_INTEGER_GEOMETRIC_P",
    "UNBOUNDED_REACH",
    "UNBOUNDED_REAL_SCALE",
    "VARIABLE_SIZE_SPREAD",
    "VectorDomain",
    "adjacency_matrix",
    "is_edge_array",
    "relabel_graph",
]

InputDomain = _Annotated[
    RealInterval | IntegerRange | Categorical | VectorDomain | DatasetDomain | GraphDomain,
    _Field(discriminator="kind"),
]
