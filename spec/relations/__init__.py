"""Neighbouring relations: decide whether two inputs are neighbours, and generate them.

Modules
-------
:mod:`spec.relations.datasets`
    :class:`SubstituteOne` (bounded) and :class:`AddRemoveOne` (unbounded) on datasets.
:mod:`spec.relations.vectors`
    :class:`QueryDistance`: query-answer vectors within a radius in ℓ0/ℓ1/ℓ2/ℓ∞.
:mod:`spec.relations.graphs`
    :class:`EdgeNeighbouring` and :class:`NodeNeighbouring` on graphs.
:mod:`spec.relations.local`
    :class:`LocalRelation` and :class:`LocalNodeRelation` for the local model.

:data:`NeighbouringRelation` is the discriminated union of all seven (on ``kind``), for
fields that hold any relation and for parsing with ``pydantic.TypeAdapter``.

Every relation implements :class:`NeighbouringRelationBase`: it decides, generates, and
owns the adversarial neighbours the auditor searches (``adversarial_pairs``,
``extreme_neighbours``, ``local_moves`` returning :class:`LocalMoves`,
``neighbour_strategy``, ``effective_domain``).  The private helper modules
``_moves_datasets``, ``_moves_vectors`` and ``_moves_graphs`` build them.
"""

from __future__ import annotations

from typing import Annotated as _Annotated

from pydantic import Field as _Field

from ._base import AdversarialPair, LocalMoves, NeighbourDecision, NeighbouringRelationBase
from ._graph_backgrounds import independent_neighbourhood_edges, near_regular_edges
from .datasets import AddRemoveOne, SubstituteOne
from .graphs import EdgeNeighbouring, NodeNeighbouring
from .local import (
    LocalNodeRelation,
    LocalRelation,
    MessageLayout,
    PublicRandomness,
    public_randomness_digest,
)
from .vectors import QueryDistance

__all__ = [
    "AddRemoveOne",
    "AdversarialPair",
    "EdgeNeighbouring",
    "LocalMoves",
    "LocalNodeRelation",
    "LocalRelation",
    "MessageLayout",
    "NeighbourDecision",
    "NeighbouringRelation",
    "NeighbouringRelationBase",
    "NodeNeighbouring",
    "PublicRandomness",
    "QueryDistance",
    "SubstituteOne",
    "independent_neighbourhood_edges",
    "near_regular_edges",
    "public_randomness_digest",
]

NeighbouringRelation = _Annotated[
    SubstituteOne
    | AddRemoveOne
    | QueryDistance
    | EdgeNeighbouring
    | NodeNeighbouring
    | LocalRelation
    | LocalNodeRelation,
    _Field(discriminator="kind"),
]
