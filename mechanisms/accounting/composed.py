"""k releases of mechanisms on the same input, as one mechanism whose claim is the accountant's.

A :class:`ComposedMechanism` runs each of its mechanisms once on the same input, with
independent noise, and outputs the releases side by side.  Its spec claims the
(ε, δ) that an accountant proves for the composition, so an audit of it
(``privaudit.audit(composed)``) measures an empirical ε lower bound *beside* the
accountant's upper bound: the tightness of accounting.  The spec declares no noise law
(the joint law of the releases is not one of the spec's laws), so the auditor treats it
as a black box and chooses its events from data.

Pure stays pure: when every part is pure ε-DP the claim is pure ε (the accountant's ε at
δ = 0).  Otherwise the claim is the accountant's ε at the given ``delta`` (pass the
budget's δ; :data:`DEFAULT_COMPOSITION_DELTA` only when none is given).  A budget never
charges the claim: it charges the parts (``composition_parts``), so charging a
composition costs what charging its parts costs.  Parts stated under different dataset
relations are converted to one by
:func:`~mechanisms.accounting.relations.decide_conversion` (the rule budgets use).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from privaudit.spec import AddRemoveOne, ApproxDP, MechanismSpec, PureDP, Reference, SubstituteOne
from privaudit.spec.errors import (
    InvalidParameterError,
    RelationConversionError,
    UnsupportedCombinationError,
)

from .._base import Mechanism, check_sample_size
from .accountants import Accountant, BasicAccountant, make_accountant
from .curves import privacy_curves
from .relations import (
    DATASET_RELATIONS,
    QUERY_LEVEL,
    SUBSTITUTE_ONE,
    ConvertedCharge,
    RelationConversion,
    accounting_item,
    check_budget_relation,
    convert_charge,
    group_charges,
    stated_relation,
)

__all__ = ["ComposedMechanism", "DEFAULT_COMPOSITION_DELTA"]

#: δ at which a composition is claimed when none is given.
DEFAULT_COMPOSITION_DELTA = 1e-6


class ComposedMechanism(Mechanism):
    """The k releases of ``mechanisms`` on one input, claimed at the accountant's (ε, δ).

    Parameters
    ----------
    mechanisms : sequence of Mechanism
        The releases, all on the same input domain under the same neighbouring relation.
    delta : float, optional
        δ of the claim.  Default: 0 (a pure claim) when every release is pure DP, else
        :data:`DEFAULT_COMPOSITION_DELTA`; pass the budget's δ to claim what it would be
        charged.
    accountant : str or Accountant, default "pld"
        The accountant whose bound is claimed.
    name : str, optional
        The spec's name (default ``"composed(a, b, …)"``).
    relation : {"substitute_one", "add_remove_one"}, optional
        The dataset relation the claim is stated under.  Default: the parts' own when they
        agree, substitute-one when they mix the two (add/remove-one parts then count as
        their group-2 guarantee).

    Examples
    --------
    >>> from privaudit.mechanisms import LaplaceMechanism
    >>> mech = ComposedMechanism([LaplaceMechanism(0.1, 1.0)] * 50, delta=1e-6)
    >>> round(mech.accounting["epsilon"], 3), mech.accounting["basic_epsilon"]
    (3.121, 5.0)
    >>> ComposedMechanism([LaplaceMechanism(0.1, 1.0)] * 3).spec.guarantee   # pure stays pure
    PureDP(kind='pure_dp', epsilon=0.30000...)
    """

    def __init__(
        self,
        mechanisms: Sequence[Mechanism],
        *,
        delta: float | None = None,
        accountant: str | Accountant = "pld",
        name: str | None = None,
        relation: str | None = None,
    ) -> None:
        mechs = tuple(mechanisms)
        if not mechs:
            raise InvalidParameterError("a composition needs at least one mechanism, got none")
        for m in mechs:
            if not isinstance(m, Mechanism):
                raise InvalidParameterError(f"not a Mechanism: {m!r}")
        first = mechs[0].spec
        for m in mechs[1:]:
            if m.spec.input_domain != first.input_domain:
                raise UnsupportedCombinationError(
                    f"{m.name!r} and {first.name!r} do not share an input domain and a "
                    "neighbouring relation; a composition releases on one input"
                )
        target, spec_relation = _common_relation(mechs, relation)
        if target is None:
            converted = [
                ConvertedCharge(
                    accounting_item(m),
                    privacy_curves(m),
                    RelationConversion("query_level", "query_level", "as stated", ""),
                )
                for m in mechs
            ]
        else:
            converted = [convert_charge(m, target, purpose="composed") for m in mechs]
        conversions = tuple(dict.fromkeys(c.conversion.describe() for c in converted))
        parts = [(c.curves, k) for c, k in group_charges(converted)]
        acc = make_accountant(accountant)
        for curves, k in parts:
            acc = acc.compose(curves, k)
        all_pure = all(np.isfinite(acc_item.pure_epsilon) for acc_item, _ in acc.items)
        if delta is None:
            delta = 0.0 if all_pure else DEFAULT_COMPOSITION_DELTA
        epsilon = acc.claimed_epsilon(delta)  # on the stable grid unless exact
        if not np.isfinite(epsilon):
            raise UnsupportedCombinationError(
                f"the {acc.name} accountant proves no finite epsilon at delta = {delta!r} for "
                f"{[m.name for m in mechs]}"
            )
        try:
            basic_acc: Accountant = BasicAccountant()
            for curves, k in parts:
                basic_acc = basic_acc.compose(curves, k)
            basic = basic_acc.epsilon(delta)
        except UnsupportedCombinationError:
            basic = float("inf")
        names = [m.name for m in mechs]
        guarantee = (
            PureDP(epsilon=epsilon) if delta == 0 else ApproxDP(epsilon=epsilon, delta=delta)
        )
        spec = MechanismSpec(
            name=name or f"composed({', '.join(names)})"[:200],
            summary=f"{len(mechs)} releases on the same input, side by side",
            references=(
                Reference(
                    citation=f"composition by the {acc.name} accountant "
                    "(privaudit docs/accounting.md)"
                ),
            ),
            input_domain=first.input_domain,
            relation=spec_relation,
            statistic="; ".join(f"{m.name}: {m.spec.statistic or 'release'}" for m in mechs)[:2000],
            output_dimension=sum(m.spec.output_dimension for m in mechs),
            guarantee=guarantee,
            notes=(
                f"claim = the {acc.name} accountant's epsilon at delta = {delta:g} for the "
                f"composition of {len(mechs)} releases ({', '.join(sorted(set(names)))}); "
                f"basic composition gives epsilon = {basic:.6g}; relations: "
                f"{'; '.join(conversions)}"
            ),
        )
        super().__init__(spec)
        self._mechanisms = mechs
        self._accounting = {
            "accountant": acc.name,
            "epsilon": float(epsilon),
            "delta": float(delta),
            "basic_epsilon": float(basic),
            "releases": len(mechs),
            "conversions": conversions,
            "components": tuple(m.spec.content_hash for m in mechs),
        }

    @property
    def mechanisms(self) -> tuple[Mechanism, ...]:
        """The composed mechanisms, in output order."""
        return self._mechanisms

    def sample(self, data: Any, size: int, rng: Any = None, *, budget: Any = None) -> np.ndarray:
        """As :meth:`Mechanism.sample`, but a budget is charged for the parts, not the claim."""
        n = check_sample_size(size)
        if budget is not None:
            from .budget import charge

            self.validate_input(data)
            charge(budget, self, estimator=self.name, count=n)
        return super().sample(data, n, rng)

    @property
    def composition_parts(self) -> tuple[Mechanism, ...]:
        """What a budget charges for this composition: its parts (never its claim)."""
        return self._mechanisms

    @property
    def accounting(self) -> dict[str, Any]:
        """The accountant, its (ε, δ), basic composition's ε and the component spec hashes."""
        return dict(self._accounting)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        columns = [
            np.asarray(m._sample(data, size, rng), dtype=float).reshape(size, -1)
            for m in self._mechanisms
        ]
        return np.hstack(columns)


def _common_relation(mechs: Sequence[Mechanism], relation: str | None) -> tuple[str | None, Any]:
    """(target dataset relation or None, the spec's relation object) of a composition."""
    kinds = {stated_relation(m) for m in mechs}
    first = mechs[0].spec.relation
    if kinds == {QUERY_LEVEL}:  # query-level parts: their sensitivity is the analyst's
        if any(m.spec.relation != first for m in mechs[1:]):
            raise RelationConversionError(
                f"{mechs[0].name!r} and the other parts state different query distances"
            )
        return None, first
    if relation is not None:
        target = check_budget_relation(relation, DATASET_RELATIONS)
        return target, SubstituteOne() if target == SUBSTITUTE_ONE else AddRemoveOne()
    if kinds <= set(DATASET_RELATIONS):
        target = SUBSTITUTE_ONE if len(kinds) > 1 else kinds.pop()
        return target, SubstituteOne() if target == SUBSTITUTE_ONE else AddRemoveOne()
    if any(m.spec.relation != first for m in mechs[1:]):
        raise RelationConversionError(
            f"the parts are stated under {sorted(kinds)}: only substitute-one and add/remove-one "
            "are converted into each other (pass relation= to state the composition under one "
            "of them)"
        )
    return None, first
