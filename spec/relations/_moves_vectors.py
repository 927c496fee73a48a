"""Local-search moves on scalar and vector inputs, shared by the query-distance and local relations.

Helpers of :class:`~spec.relations.QueryDistance` (:mod:`spec.relations.vectors`) and
:class:`~spec.relations.LocalRelation` (:mod:`spec.relations.local`).  A scalar input is
treated as a vector of length 1 and given back as a scalar.  Every random choice is drawn
from the ``gen`` argument, in a fixed order, so a seeded search is reproducible.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..domains import ScalarDomainBase, VectorDomain

__all__ = ["as_domain_value", "as_vector", "element_of", "mutated_vectors", "nudged_vector"]


def element_of(domain: Any) -> ScalarDomainBase:
    """The coordinate domain: ``domain.element`` for vectors, the domain itself for scalars."""
    return domain.element if isinstance(domain, VectorDomain) else domain


def as_vector(value: Any) -> npt.NDArray[Any]:
    """A fresh 1-d copy of a scalar or vector value."""
    return np.atleast_1d(np.array(value, copy=True))


def as_domain_value(vector: npt.NDArray[Any], domain: Any) -> Any:
    """``vector`` for a vector domain, its only coordinate for a scalar domain."""
    return vector if isinstance(domain, VectorDomain) else vector[0]


def mutated_vectors(
    domain: Any, x: Any, y: Any, gen: np.random.Generator, *, carry: bool
) -> tuple[Any, Any]:
    """One random coordinate of ``x`` perturbed; with ``carry``, ``y`` translated alike.

    The coordinate's new value is :meth:`~spec.domains.ScalarDomainBase.perturbed`; ``y``
    moves by the same difference, clamped into the domain (which only shrinks the
    difference between ``x`` and ``y``).  Without ``carry``, ``y`` is kept.
    """
    element = element_of(domain)
    vx = as_vector(x)
    j = int(gen.integers(vx.size))
    new_x = vx.copy()
    new_x[j] = element.perturbed(vx[j], gen)
    if not carry:
        return as_domain_value(new_x, domain), y
    vy = as_vector(y)
    lo, hi = element.value_bounds()
    if element.is_integer_valued:
        moved = int(vy[j]) + int(new_x[j]) - int(vx[j])
        vy[j] = int(min(max(moved, lo), hi))
    else:
        vy[j] = float(np.clip(float(vy[j]) + float(new_x[j]) - float(vx[j]), lo, hi))
    return as_domain_value(new_x, domain), as_domain_value(vy, domain)


def nudged_vector(domain: Any, y: Any, gen: np.random.Generator) -> Any:
    """``y`` with one random coordinate :meth:`~spec.domains.ScalarDomainBase.perturbed`."""
    vy = as_vector(y)
    j = int(gen.integers(vy.size))
    vy[j] = element_of(domain).perturbed(vy[j], gen)
    return as_domain_value(vy, domain)
