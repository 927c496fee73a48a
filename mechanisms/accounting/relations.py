"""Which neighbouring relation a charge is stated under, and its conversion to another.

One function, :func:`decide_conversion`, decides whether the guarantee of a release stated
under one neighbouring relation may be charged under another, and by which rule;
:func:`convert_charge` returns the privacy curves of the converted guarantee.  Budgets
(:class:`~mechanisms.accounting.PrivacyBudget`), compositions
(:class:`~mechanisms.accounting.ComposedMechanism`, hence ``privaudit.audit([...])``) and
subsampling (:func:`~mechanisms.accounting.poisson_subsample`,
:func:`~mechanisms.accounting.subsample_without_replacement`) all call it, so the rule is
stated once.

The rules (sources in ``docs/accounting.md``, section "Neighbouring relations"):

===================================  ===================================  ==========================
stated under                         charged under                        rule
===================================  ===================================  ==========================
the same relation                    —                                    as stated
query level (a query-distance spec,  either dataset relation              the sensitivity is the
a bare guarantee, privacy curves)                                         analyst's, under the
                                                                          target relation
add/remove-one                       substitute-one                       group privacy of size 2
                                                                          (a substitution is a
                                                                          removal plus an addition)
substitute-one, or a bounded         add/remove-one                       refused
relation (local, local-node, edge,                                        (:class:`~spec.errors.
node: the size is public)                                                 RelationConversionError`)
                                                                          unless the mechanism also
                                                                          declares an add/remove-one
                                                                          claim (``relation_specs``)
any                                  a relation the mechanism also        declared claim
                                     declares a claim under               (preferred to a
                                                                          conversion)
a bounded relation                   substitute-one                       as stated: one unit
                                                                          changes its data, none
                                                                          is added
===================================  ===================================  ==========================

Group privacy of size 2, soundly (each is a theorem, never an approximation):

* additive noise with global sensitivity Δ under add/remove-one has sensitivity ≤ 2Δ
  under substitute-one (triangle inequality through D ∪ {r′}, which is in every variable-size
  domain even when D − {r} would be empty); the same law's exact PLD at
  2Δ is used (dp_accounting's ``REPLACE`` adjacency for the Gaussian, which is this);
* the Poisson-subsampled Gaussian: dp_accounting's ``REPLACE_ONE`` PLD (the pair
  (1 − q)N(0, σ²) + qN(Δ, σ²) against (1 − q)N(0, σ²) + qN(−Δ, σ²); Zhu, Dong & Wang,
  AISTATS 2022, Table 1);
* otherwise, from the guarantee: μ-GDP ⇒ 2μ-GDP (Dong, Roth & Su, JRSS-B 2022,
  Thm. 2.14); ε-DP ⇒ 2ε-DP and (ε, δ)-DP ⇒ (2ε, (1 + e^ε)δ)-DP (Dwork & Roth 2014,
  Thm. 2.2 and its (ε, δ) form: P₀(S) ≤ e^ε(e^ε P₂(S) + δ) + δ); ρ-zCDP ⇒ 4ρ-zCDP
  (Bun & Steinke, TCC 2016, Prop. 1.9).  The PLD used is then the worst case of the
  doubled guarantee, never a transformation of a discretised PLD.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from privaudit.spec import (
    AdditiveNoise,
    DiscreteGaussian,
    DiscreteLaplace,
    Gaussian,
    Laplace,
    MechanismSpec,
)
from privaudit.spec.errors import InvalidParameterError, RelationConversionError

from .curves import (
    CurvesProvider,
    PrivacyCurves,
    _gaussian,
    _pld_from_parameters,
    _pure,
    privacy_curves,
    randomized_response_rdp,
)

__all__ = [
    "ADD_REMOVE_ONE",
    "BOUNDED_RELATIONS",
    "BUDGET_RELATIONS",
    "QUERY_LEVEL",
    "SUBSTITUTE_ONE",
    "ConvertedCharge",
    "RelationConversion",
    "accounting_item",
    "check_budget_relation",
    "convert_charge",
    "decide_conversion",
    "declared_claim",
    "expand_charge",
    "group_charges",
    "group_of_two_curves",
    "stated_relation",
]

SUBSTITUTE_ONE = "substitute_one"
ADD_REMOVE_ONE = "add_remove_one"
#: The dataset relations a budget or a composition may be stated under.
DATASET_RELATIONS = (SUBSTITUTE_ONE, ADD_REMOVE_ONE)
#: Graph units a budget may be stated under: an edge, or a node with all its edges.
EDGE, NODE = "edge", "node"
#: The relations a budget may be stated under.
BUDGET_RELATIONS = (*DATASET_RELATIONS, EDGE, NODE)
#: The unit each graph relation protects (a local-node claim protects a node's list).
GRAPH_UNITS = {"edge": EDGE, "node": NODE, "local_node": NODE}
#: What a query-level statement (query-distance spec, bare guarantee, curves) is stated under.
QUERY_LEVEL = "query_level"
#: Relations on inputs of public size: one unit changes its data, none is added or removed.
BOUNDED_RELATIONS = ("local", "local_node", "edge", "node")

_GROUP_SOURCE = (
    "group privacy of size 2: a substitution is a removal plus an addition "
    "(docs/accounting.md, 'Neighbouring relations')"
)


def check_budget_relation(relation: Any, allowed: tuple[str, ...] = BUDGET_RELATIONS) -> str:
    """The name of a budget relation given as a string or a relation object."""
    kind = getattr(relation, "kind", relation)
    if kind not in allowed:
        objects = "SubstituteOne() / AddRemoveOne()"
        if EDGE in allowed:
            objects += " / EdgeNeighbouring() / NodeNeighbouring()"
        raise InvalidParameterError(
            f"relation must be one of {list(allowed)} (or {objects}), got {relation!r}"
        )
    return str(kind)


def graph_units(conversions: Any) -> set[str]:
    """The graph units (``"edge"``, ``"node"``) that releases stated under these relations
    protect; a local-node claim protects a node."""
    return {GRAPH_UNITS[c.stated] for c in conversions if c.stated in GRAPH_UNITS}


def check_one_unit(units: set[str], target: str) -> None:
    """Refuse a substitute-one account that would add node-level and edge-level ε's: they
    protect different units, and their sum protects neither (a node of degree d is an
    ε-edge-DP release's d-fold group, not one unit)."""
    if target == SUBSTITUTE_ONE and {EDGE, NODE} <= units:
        raise RelationConversionError(
            "node-level and edge-level releases cannot be added under one substitute-one "
            "budget: their epsilons protect different units; state the budget under "
            "relation='node' (edge-level releases are then converted by group privacy over a "
            "declared degree bound) or relation='edge' (a node-level release is also "
            "edge-level)"
        )


@dataclass(frozen=True)
class RelationConversion:
    """How a release stated under one relation is charged under another.

    Attributes
    ----------
    stated : str
        The relation the release's guarantee is stated under (``"query_level"`` for a
        query-distance spec, a bare guarantee or privacy curves).
    target : str
        The relation it is charged under.
    rule : str
        ``"as stated"``, ``"query level"``, ``"bounded relation"``, ``"group of 2"`` or
        ``"declared claim"`` (the mechanism's own claim under the target, ``relation_specs``).
    source : str
        Why the rule is sound (a citation or the docs section).
    """

    stated: str
    target: str
    rule: str
    source: str

    @property
    def converted(self) -> bool:
        """True when the guarantee charged is not the one stated (group privacy)."""
        return self.rule.startswith("group of ")

    def describe(self) -> str:
        """One line for ledgers and reports."""
        if self.rule in ("as stated", "query level"):
            return self.rule
        return f"{self.stated} → {self.target}: {self.rule}"


@dataclass(frozen=True)
class ConvertedCharge:
    """A release's privacy curves under the target relation, and how they were obtained."""

    item: Any
    curves: PrivacyCurves
    conversion: RelationConversion


def _spec_of(item: Any) -> MechanismSpec | None:
    if isinstance(item, MechanismSpec):
        return item
    spec = getattr(item, "spec", None)
    return spec if isinstance(spec, MechanismSpec) else None


def stated_relation(item: Any) -> str:
    """The relation ``item``'s guarantee is stated under (see the module docstring)."""
    item = accounting_item(item)
    if isinstance(item, CurvesProvider):
        return item.stated_relation()
    spec = _spec_of(item)
    if spec is None:
        return QUERY_LEVEL
    kind = spec.relation.kind
    return QUERY_LEVEL if kind == "query_distance" else str(kind)


def accounting_item(item: Any) -> Any:
    """What accountants read for ``item``: its ``accounting_item`` if it has one (a
    subsampled mechanism's :class:`~mechanisms.accounting.SubsampledSpec`), else itself."""
    inner = getattr(item, "accounting_item", None)
    return item if inner is None else inner


def group_charges(parts: list[ConvertedCharge]) -> list[tuple[ConvertedCharge, int]]:
    """Consecutive charges of the same release joined with a count (k repetitions compose
    as one k-fold self-composition, not k convolutions)."""
    out: list[tuple[ConvertedCharge, int]] = []
    for part in parts:
        if out and out[-1][0].item is part.item:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((part, 1))
    return out


def declared_claim(item: Any, relation: str) -> Any:
    """The mechanism's own additional claim under ``relation`` (``relation_specs``), or None."""
    for extra in getattr(item, "relation_specs", ()) or ():
        if stated_relation(extra) == relation:
            return extra
    return None


def _refusal(item: Any, stated: str, target: str, purpose: str) -> RelationConversionError:
    name = getattr(_spec_of(item), "name", None) or repr(item)[:80]
    return RelationConversionError(
        f"{name!r} is stated under {stated!r} and cannot be {purpose} under {target!r}: a "
        f"{stated} guarantee says nothing when a record is added or removed; declare an "
        "add/remove-one claim (relation_specs) or use a substitute-one budget "
        "(docs/accounting.md, 'Neighbouring relations')"
    )


def decide_conversion(item: Any, target: str, *, purpose: str = "charged") -> RelationConversion:
    """The rule by which ``item`` is charged under ``target`` (the one place it is decided).

    Parameters
    ----------
    item : MechanismSpec, Mechanism, SubsampledSpec, PrivacyGuarantee or PrivacyCurves
        The release.
    target : {"substitute_one", "add_remove_one"}
        The relation of the budget, composition or subsampling scheme.
    purpose : str
        Used in the error message ("charged", "composed", "subsampled").

    Raises
    ------
    RelationConversionError
        When no sound conversion exists (substitute-one or a bounded relation → add/remove-one
        without a declared add/remove-one claim).
    """
    target = check_budget_relation(target)
    stated = stated_relation(item)
    if stated == target:
        return RelationConversion(stated, target, "as stated", "the guarantee as declared")
    if stated == QUERY_LEVEL:
        return RelationConversion(
            stated,
            target,
            "query level",
            f"a query-level claim: its sensitivity is taken under {target}",
        )
    if declared_claim(item, target) is not None:
        return RelationConversion(
            stated, target, "declared claim", f"the mechanism's own {target} claim (relation_specs)"
        )
    if target in (EDGE, NODE):
        return _graph_conversion(item, stated, target, purpose)
    if target == SUBSTITUTE_ONE:
        if stated == ADD_REMOVE_ONE:
            return RelationConversion(stated, target, "group of 2", _GROUP_SOURCE)
        if stated in BOUNDED_RELATIONS:
            return RelationConversion(
                stated,
                target,
                "bounded relation",
                f"{stated} neighbours change one unit's data on an input of public size",
            )
    raise _refusal(item, stated, target, purpose)


def node_group_size(item: Any) -> int | None:
    """Edge flips in one node-neighbouring change of ``item``'s input: min(2D, n − 1) for a
    declared degree bound D (the node's old and new edges; removing before adding keeps
    every intermediate graph within the bound), or ``None`` without a declared bound."""
    spec = _spec_of(item)
    if spec is None:
        return None
    domain = spec.input_domain
    declared = [getattr(domain, "max_degree", None), getattr(spec.relation, "max_degree", None)]
    bounds = [int(d) for d in declared if d is not None]
    n = getattr(domain, "n_nodes", None)
    if not bounds or n is None:
        return None
    return max(1, min(2 * min(bounds), int(n) - 1))


def _graph_conversion(item: Any, stated: str, target: str, purpose: str) -> RelationConversion:
    unit = GRAPH_UNITS.get(stated)
    if target == EDGE and unit == NODE:
        return RelationConversion(
            stated,
            target,
            "node implies edge",
            "an edge change is a node-neighbouring change (the rewiring of one endpoint)",
        )
    if target == NODE and unit == NODE:
        return RelationConversion(stated, target, "as stated", "the guarantee as declared")
    if target == NODE and unit == EDGE:
        k = node_group_size(item)
        if k is not None:
            return RelationConversion(
                stated,
                target,
                f"group of {k}",
                f"group privacy of size {k}: one node's rewiring flips at most {k} edges under "
                "the declared degree bound (Dwork & Roth 2014, Thm. 2.2)",
            )
        name = getattr(_spec_of(item), "name", None) or "the release"
        raise RelationConversionError(
            f"{name!r} is edge-level and cannot be {purpose} under a node-level budget "
            "without a degree bound: declare GraphDomain(max_degree=D) (or max_degree on the "
            "relation) and it is converted by group privacy of size min(2D, n - 1)"
        )
    raise _refusal(item, stated, target, purpose)


def group_curves(item: Any, k: int) -> PrivacyCurves:
    """``item``'s guarantee for groups of ``k`` units (Dwork & Roth 2014, Thm. 2.2; its
    (ε, δ) form δ Σ_{i<k} e^{iε}; Dong, Roth & Su 2022, Thm. 2.14, for μ-GDP; Bun &
    Steinke 2016, Prop. 1.9, for ρ-zCDP)."""
    curves = privacy_curves(item)
    src = f"{curves.source} (group of {k})"
    found: PrivacyCurves | None = None
    if curves.mu is not None:
        found = _gaussian(1.0, k * curves.mu, src, exact=False)
    elif math.isfinite(curves.pure_epsilon):
        found = _pure(k * curves.pure_epsilon, src)
    elif curves.approx is not None:
        eps, delta = curves.approx
        delta_k = delta * math.fsum(math.exp(i * eps) for i in range(k))
        if delta_k < 1.0:
            found = PrivacyCurves(
                source=src, approx=(k * eps, delta_k), pld=_pld_from_parameters(k * eps, delta_k)
            )
    elif curves.rho is not None:
        rho = k * k * curves.rho
        found = PrivacyCurves(source=src, rho=rho, rdp=lambda a: a * rho)
    if found is None:
        raise RelationConversionError(
            f"no group-privacy bound of size {k} is known for {curves.source}"
        )
    return found


def expand_charge(item: Any) -> list[Any]:
    """The releases a charge consists of: a list's items, a composition's parts, recursively.

    A :class:`~mechanisms.accounting.ComposedMechanism` is charged as its parts, never as
    its claim at one δ, so charging it costs exactly what charging the parts costs.
    """
    if isinstance(item, (list, tuple)):
        return [x for part in item for x in expand_charge(part)]
    parts = getattr(item, "composition_parts", None)
    if parts is not None:
        return [x for part in parts for x in expand_charge(part)]
    return [item]


def convert_charge(item: Any, target: str, *, purpose: str = "charged") -> ConvertedCharge:
    """The privacy curves of ``item`` charged under ``target`` (see :func:`decide_conversion`)."""
    item, target = accounting_item(item), check_budget_relation(target)
    conversion = decide_conversion(item, target, purpose=purpose)
    if conversion.rule == "declared claim":
        claim = declared_claim(item, target)
        return ConvertedCharge(claim, privacy_curves(claim), conversion)
    if conversion.rule == "group of 2":
        return ConvertedCharge(item, group_of_two_curves(item), conversion)
    if conversion.rule.startswith("group of "):
        k = int(conversion.rule.removeprefix("group of "))
        return ConvertedCharge(item, group_curves(item, k), conversion)
    return ConvertedCharge(item, privacy_curves(item), conversion)


# ----------------------------------------------------------------------------------------
# group privacy of size 2
# ----------------------------------------------------------------------------------------
def _doubled_additive(spec: MechanismSpec) -> PrivacyCurves | None:
    """The same additive law at sensitivity 2Δ: exact where the law's PLD is known."""
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    noise, claim = spec.noise, spec.global_sensitivity
    if not isinstance(noise, AdditiveNoise) or claim is None or spec.proof_status != "proven":
        return None
    law, dim, two = noise.law, spec.output_dimension, 2.0 * claim.value
    src = f"{type(law).__name__} noise, sensitivity {two:g} (group of 2)"
    if isinstance(law, Gaussian):
        return _gaussian(law.sigma, two, src)
    if dim != 1:
        return None
    if isinstance(law, Laplace):
        eps = two / law.scale
        base = _pure(eps, src)
        return PrivacyCurves(
            source=src,
            pure_epsilon=eps,
            exact_pld=True,
            rdp=base.rdp,
            rho=base.rho,
            pld=lambda h: pld_mod.from_laplace_mechanism(
                law.scale, sensitivity=two, value_discretization_interval=h
            ),
        )
    if isinstance(law, DiscreteLaplace) and float(two).is_integer():
        eps = two / law.scale
        return PrivacyCurves(
            source=src,
            pure_epsilon=eps,
            exact_pld=True,
            rdp=randomized_response_rdp(eps),
            rho=eps * eps / 2.0,
            pld=lambda h: pld_mod.from_discrete_laplace_mechanism(
                1.0 / law.scale,
                sensitivity=int(two),
                value_discretization_interval=h,
                use_connect_dots=True,
            ),
        )
    if isinstance(law, DiscreteGaussian) and float(two).is_integer():
        rho = two**2 / (2.0 * law.sigma**2)
        return PrivacyCurves(
            source=src,
            rdp=lambda a: a * rho,
            rho=rho,
            exact_pld=True,
            pld=lambda h: pld_mod.from_discrete_gaussian_mechanism(
                law.sigma,
                sensitivity=int(two),
                value_discretization_interval=h,
                use_connect_dots=True,
            ),
        )
    return None


def _group_of_two_guarantee(curves: PrivacyCurves, source: str) -> PrivacyCurves | None:
    """Group privacy of size 2 from the guarantee the curves carry (module docstring)."""
    src = f"{curves.source} (group of 2)"
    if curves.mu is not None:
        return _gaussian(1.0, 2.0 * curves.mu, src, exact=False)
    if math.isfinite(curves.pure_epsilon):
        return _pure(2.0 * curves.pure_epsilon, src)
    if curves.approx is not None:
        eps, delta = curves.approx
        eps2, delta2 = 2.0 * eps, (1.0 + math.exp(eps)) * delta
        if delta2 >= 1.0:
            return None
        return PrivacyCurves(
            source=src, approx=(eps2, delta2), pld=_pld_from_parameters(eps2, delta2)
        )
    if curves.rho is not None:
        rho = 4.0 * curves.rho
        return PrivacyCurves(source=src, rho=rho, rdp=lambda a: a * rho)
    return None


def group_of_two_curves(item: Any) -> PrivacyCurves:
    """The curves of ``item``'s add/remove-one guarantee restated under substitute-one."""
    spec = _spec_of(item)
    found = _doubled_additive(spec) if spec is not None else None
    provider = accounting_item(item)
    if found is None and isinstance(provider, CurvesProvider):
        found = provider.substitute_one_curves()
    if found is None:
        found = _group_of_two_guarantee(privacy_curves(item), "")
    if found is None:
        raise RelationConversionError(
            f"no group-privacy bound is known for {privacy_curves(item).source}; it cannot be "
            "charged under substitute-one"
        )
    return found
