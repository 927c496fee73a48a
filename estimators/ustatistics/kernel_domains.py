"""The spec-level input domain and neighbouring relation of a kernel's data.

A private U-statistic mechanism states its claims on a :mod:`spec` input domain under a
:mod:`spec` relation; the kernel (:class:`.Kernel`) describes its data with a
:class:`.DataDomain`.  :func:`kernel_input_space` maps one to the other:

=====================================  ==================================================
kernel data                            spec input domain, relation
=====================================  ==================================================
real scalars in [lower, upper]         ``DatasetDomain(RealInterval(lower, upper), n)``,
                                       ``SubstituteOne()``
real points of ℝ^d                     ``DatasetDomain(VectorDomain(RealInterval, d), n)``,
                                       ``SubstituteOne()``
labels 0..d−1 (or any integer)         ``DatasetDomain(Categorical(d) or IntegerRange(), n)``,
                                       ``SubstituteOne()``
adjacency matrix of a graph on n nodes ``GraphDomain(n)``, ``NodeNeighbouring()`` (the
                                       records are the nodes: changing X_i rewires row and
                                       column i, Chaudhuri et al. §2.2)
=====================================  ==================================================

Scored labels have no spec domain; pass ``input_domain`` (and ``relation``) explicitly.
The returned converter turns a validated spec input into the kernel's data (a graph into
its sparse adjacency matrix; arrays are passed through).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from privaudit.spec import (
    Categorical,
    DatasetDomain,
    GraphDomain,
    IntegerRange,
    NodeNeighbouring,
    RealInterval,
    SubstituteOne,
    VectorDomain,
)
from privaudit.spec.errors import InvalidParameterError

from .kernels import Kernel

__all__ = ["KernelInputSpace", "graph_adjacency", "kernel_input_space"]


def graph_adjacency(graph: nx.Graph) -> Any:
    """The sparse adjacency matrix of a validated graph on nodes 0..n−1 (node order)."""
    return nx.to_scipy_sparse_array(
        graph, nodelist=range(graph.number_of_nodes()), dtype=np.int8, format="csr"
    )


def _identity(x: Any) -> Any:
    return x


@dataclass(frozen=True)
class KernelInputSpace:
    """Where a U-statistic mechanism's inputs live.

    Attributes
    ----------
    input_domain : InputDomain
        The spec domain of one input (a data set or a graph).
    relation : NeighbouringRelation
        The neighbouring relation of the claims.
    to_kernel_data : callable
        Validated input → the kernel's data.
    records_are_nodes : bool
        True for graphs (restricting to a subset of records takes an induced subgraph).
    """

    input_domain: Any
    relation: Any
    to_kernel_data: Callable[[Any], Any]
    records_are_nodes: bool = False


def kernel_input_space(
    kernel: Kernel,
    n: int,
    *,
    record_domain: Any = None,
    input_domain: Any = None,
    relation: Any = None,
    to_kernel_data: Callable[[Any], Any] | None = None,
) -> KernelInputSpace:
    """The input domain and relation for n records of ``kernel`` (see the module table).

    Parameters
    ----------
    kernel : Kernel
        The kernel whose :attr:`~.Kernel.domain` is mapped.
    n : int
        The public number of records (nodes).
    record_domain : RecordDomain, optional
        Overrides the domain of one record (e.g. ``Categorical(size=4)`` for the collision
        kernel on a known alphabet); ignored when ``input_domain`` is given.
    input_domain, relation : optional
        Override the whole domain / the relation.
    to_kernel_data : callable, optional
        Override the converter.

    Raises
    ------
    InvalidParameterError
        If the kernel's data kind has no default spec domain and none is given.
    """
    kind = kernel.domain.kind
    is_graph = kind == "adjacency"
    if input_domain is None:
        if is_graph:
            input_domain = GraphDomain(n_nodes=n)
        else:
            record = record_domain if record_domain is not None else _record_domain(kernel)
            input_domain = DatasetDomain(record=record, size=n)
    if relation is None:
        relation = NodeNeighbouring() if is_graph else SubstituteOne()
    if to_kernel_data is None:
        to_kernel_data = graph_adjacency if isinstance(input_domain, GraphDomain) else _identity
    return KernelInputSpace(
        input_domain=input_domain,
        relation=relation,
        to_kernel_data=to_kernel_data,
        records_are_nodes=is_graph,
    )


def _record_domain(kernel: Kernel) -> Any:
    dom = kernel.domain
    if dom.kind == "real":
        element = RealInterval(lo=dom.lower, hi=dom.upper)
        if dom.record_shape == ():
            return element
        if len(dom.record_shape) == 1:
            return VectorDomain(element=element, length=dom.record_shape[0])
    if dom.kind == "labels":
        return Categorical(size=dom.n_labels) if dom.n_labels is not None else IntegerRange()
    raise InvalidParameterError(
        f"kernel {kernel.name!r} has data of kind {dom.kind!r} (record shape "
        f"{dom.record_shape}) with no default spec domain; pass record_domain or input_domain"
    )
