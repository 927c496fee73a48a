"""Typed access to a local-node spec, for :mod:`~privaudit.auditing.checks.local_node` and
:mod:`~privaudit.auditing.checks.group_privacy`: its graph domain, its
:class:`~spec.LocalNodeRelation`, its additive noise and a Laplace law's scale.  The checks
run only on such specs (:func:`~privaudit.auditing.checks.local_node.local_node_checks_apply`),
so each accessor raises :class:`~spec.errors.AuditError`, naming what it found, only when
called out of place.
"""

from __future__ import annotations

from privaudit.mechanisms import Mechanism
from privaudit.spec import AdditiveNoise, Laplace, LocalNodeRelation
from privaudit.spec.domains import GraphDomain
from privaudit.spec.errors import AuditError

__all__: list[str] = []


def _graph_domain(mechanism: Mechanism) -> GraphDomain:
    """The spec's graph domain: the local-node checks run only on one
    (:func:`~privaudit.auditing.checks.local_node.local_node_checks_apply`)."""
    domain = mechanism.spec.input_domain
    if not isinstance(domain, GraphDomain):
        raise AuditError(f"the local-node checks need a GraphDomain, got {type(domain).__name__}")
    return domain


def _local_relation(
    mechanism: Mechanism, relation: LocalNodeRelation | None = None
) -> LocalNodeRelation:
    """``relation`` when given (a focused copy), else the spec's
    :class:`~spec.LocalNodeRelation`."""
    if relation is not None:
        return relation
    spec_relation = mechanism.spec.relation
    if not isinstance(spec_relation, LocalNodeRelation):
        raise AuditError(
            f"the local-node checks need a LocalNodeRelation, got {type(spec_relation).__name__}"
        )
    return spec_relation


def _additive_noise(mechanism: Mechanism) -> AdditiveNoise:
    """The spec's additive noise (the "gaussian", "laplace" and "additive" families of
    :func:`~privaudit.auditing.checks.local_node._law_of`)."""
    noise = mechanism.spec.noise
    if not isinstance(noise, AdditiveNoise):
        raise AuditError(f"expected additive noise, got {type(noise).__name__}")
    return noise


def _laplace_scale(mechanism: Mechanism) -> float:
    """The scale of the spec's Laplace law (the "laplace" family of
    :func:`~privaudit.auditing.checks.local_node._law_of`)."""
    law = _additive_noise(mechanism).law
    if not isinstance(law, Laplace):
        raise AuditError(f"laplace messages need a Laplace law, got {type(law).__name__}")
    return float(law.scale)
