"""A privacy budget for analysts: every audited estimator charges it before it draws noise.

>>> from privaudit.mechanisms.accounting import PrivacyBudget
>>> from privaudit.mechanisms import LaplaceMechanism
>>> budget = PrivacyBudget(epsilon=1.0, delta=1e-6)
>>> mech = LaplaceMechanism(epsilon=0.4, sensitivity=1.0)
>>> _ = mech.release(0.0, rng=0, budget=budget)
>>> _ = mech.release(0.0, rng=1, budget=budget)
>>> budget.can_afford(mech.spec)
False

A :class:`PrivacyBudget` holds a target (ε, δ) and an accountant
(:mod:`~mechanisms.accounting.accountants`).  :meth:`PrivacyBudget.charge` composes the
release with everything charged so far and refuses it, with
:class:`~spec.errors.BudgetExceededError` naming what is left, if the composition would
exceed ε at δ.  Every registry mechanism (``Mechanism.sample``/``release``) and every
``private_*`` estimator takes ``budget=`` and charges it before the first random draw, so
a refused call draws nothing and changes nothing.  The ledger records, for each accepted
charge, the estimator, the spec hash, its own cost (ε at the budget's δ) and the total.

What is proven for adaptive use (the budget as a *privacy filter*, the analyst choosing
the next estimator after seeing earlier outputs): with ``accountant="basic"`` (Rogers,
Roth, Ullman & Vadhan, "Privacy odometers and filters", NeurIPS 2016),
``"zcdp"`` (a Rényi filter at every order: Feldman & Zrnic, "Individual privacy
accounting via a Rényi filter", NeurIPS 2021; Whitehouse, Ramdas, Rogers & Wu, "Fully
adaptive composition in differential privacy", ICML 2023) and ``"gdp"`` (Smith &
Thakurta, "Fully adaptive composition for Gaussian differential privacy", arXiv:2210.17520,
2022).  The
``"pld"`` (default, tightest) and ``"rdp"`` budgets are proven when the sequence of
mechanisms is fixed in advance (their outputs may still be used adaptively); their
:attr:`PrivacyBudget.adaptive` is False.  The module's documentation page,
``docs/accounting.md``, states the same.

A budget is stated under one neighbouring relation (``relation="substitute_one"`` by
default, or ``"add_remove_one"``).  Each charge is converted to it by
:func:`~mechanisms.accounting.relations.decide_conversion` (an add/remove-one release
costs its group-2 guarantee under substitute-one; a substitute-one release is refused by
an add/remove-one budget unless the mechanism also declares an add/remove-one claim), and
the ledger records the rule applied.  :meth:`PrivacyBudget.remaining` is what one more
release may still use, and :meth:`PrivacyBudget.report` renders the ledger as a table.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from privaudit.spec import ApproxDP, PureDP, check_delta, check_epsilon, check_sample_size
from privaudit.spec.errors import BudgetExceededError, InvalidParameterError, PrivauditError
from privaudit.spec.stable_values import round_down

from .accountants import Accountant, PLDAccountant, make_accountant
from .relations import (
    RelationConversion,
    check_budget_relation,
    check_one_unit,
    convert_charge,
    expand_charge,
    graph_units,
    group_charges,
)

__all__ = ["BudgetReport", "LedgerEntry", "PrivacyBudget", "RemainingBudget", "charge"]


def _spec_hash(item: Any) -> str:
    target = getattr(item, "spec", item)
    return str(getattr(target, "content_hash", ""))


@dataclass(frozen=True)
class LedgerEntry:
    """One accepted charge.

    Attributes
    ----------
    estimator : str
        Who charged (the estimator or mechanism name).
    spec_hash : str
        The content hash of the charged spec (empty for a bare guarantee).
    count : int
        How many independent releases were charged.
    epsilon : float
        The cost of this charge alone: its ε at the budget's δ under the budget's accountant
        and relation (after conversion).  The rows do not add up to the total: composition
        is not additive.
    total_epsilon : float
        The composed ε at the budget's δ of everything charged up to and including this one.
    relation : str
        The relation the charge's guarantee is stated under (``"query_level"`` for a
        query-distance spec or a bare guarantee; several, comma-separated, for a composition).
    conversion : str
        How it was charged under the budget's relation (``"as stated"``, ``"query level"``,
        ``"add_remove_one → substitute_one: group of 2"`` …; see
        :mod:`mechanisms.accounting.relations`).
    """

    estimator: str
    spec_hash: str
    count: int
    epsilon: float
    total_epsilon: float
    relation: str = ""
    conversion: str = ""


@dataclass(frozen=True)
class RemainingBudget:
    """What one more release may still use.

    Attributes
    ----------
    epsilon : float
        The largest ε such that every (ε, ``delta``)-DP release (whatever its mechanism)
        still fits: charged after everything so far, the composition stays within the
        budget's (ε, δ).  0 when nothing fits.
    delta : float
        The δ of that release (0: a pure-DP release).
    spent_epsilon : float
        The composed ε at the budget's δ of everything charged so far.
    budget_epsilon, budget_delta : float
        The budget's total.
    """

    epsilon: float
    delta: float
    spent_epsilon: float
    budget_epsilon: float
    budget_delta: float

    def __str__(self) -> str:
        kind = "pure" if self.delta == 0 else f"delta = {self.delta:g}"
        return (
            f"one more release may use epsilon = {self.epsilon:.6g} ({kind}); spent "
            f"{self.spent_epsilon:.6g} of ({self.budget_epsilon:g}, {self.budget_delta:g})"
        )


class BudgetReport(str):
    """The ledger of a budget as a table: each charge's own cost and the running total.

    A string (the rendered table, so ``print(budget.report())`` shows it) that also keeps
    the data it was rendered from.

    Attributes
    ----------
    rows : tuple of LedgerEntry
        The charges, in order.
    epsilon, delta : float
        The budget's total.
    relation, accountant : str
        What the budget is stated under and how it composes.
    """

    rows: tuple[LedgerEntry, ...]
    epsilon: float
    delta: float
    relation: str
    accountant: str

    def __new__(
        cls,
        rows: tuple[LedgerEntry, ...],
        epsilon: float,
        delta: float,
        relation: str,
        accountant: str,
    ) -> BudgetReport:
        head = ("#", "charge", "count", "stated under", "charged as", "own eps", "total eps")
        lines = [
            (
                str(i + 1),
                e.estimator,
                str(e.count),
                e.relation or "-",
                e.conversion or "-",
                f"{e.epsilon:.6g}",
                f"{e.total_epsilon:.6g}",
            )
            for i, e in enumerate(rows)
        ]
        widths = [max(len(r[k]) for r in [head, *lines]) for k in range(len(head))]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        title = (
            f"privacy budget (epsilon = {epsilon:g}, delta = {delta:g}) under "
            f"{relation}, {accountant} accounting; own eps is each charge alone "
            "at this delta, total eps the composition so far (rows do not add up)"
        )
        out = [title, fmt.format(*head), fmt.format(*("-" * w for w in widths))]
        out += [fmt.format(*r).rstrip() for r in lines]
        if not lines:
            out.append("(no charges)")
        obj = super().__new__(cls, "\n".join(out))
        obj.rows, obj.epsilon, obj.delta = tuple(rows), float(epsilon), float(delta)
        obj.relation, obj.accountant = relation, accountant
        return obj

    def to_text(self) -> str:
        """The table as a plain string."""
        return str.__str__(self)


class PrivacyBudget:
    """A total (ε, δ) that releases are charged against, with an inspectable ledger.

    Parameters
    ----------
    epsilon : float
        The total ε > 0.
    delta : float, default 0
        The total δ ∈ [0, 1).
    accountant : {"pld", "rdp", "zcdp", "gdp", "basic"} or Accountant, default "pld"
        How charges compose (see :mod:`mechanisms.accounting.accountants`).
    relation : {"substitute_one", "add_remove_one", "edge", "node"}, default "substitute_one"
        The neighbouring relation the budget protects; charges are converted to it
        (:mod:`mechanisms.accounting.relations`).  For graph releases, ``"node"`` charges
        node-level (and local-node) releases as stated and edge-level ones by group privacy
        over a declared degree bound; ``"edge"`` charges node-level releases as edge-level
        ones; a ``"substitute_one"`` budget refuses to add the two kinds.
    accuracy : float, optional
        The PLD accountant's privacy-loss grid step (dp_accounting's
        ``value_discretization_interval``, default 1e-4): ε answers are pessimistic by
        about this much per charge; smaller is tighter and slower.  Only with ``"pld"``.

    Examples
    --------
    >>> budget = PrivacyBudget(epsilon=2.0, delta=1e-6, accountant="zcdp")
    >>> budget.remaining_epsilon
    2.0
    """

    def __init__(
        self,
        epsilon: float,
        delta: float = 0.0,
        accountant: str | Accountant = "pld",
        *,
        relation: Any = "substitute_one",
        accuracy: float | None = None,
    ) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.relation = check_budget_relation(relation)
        if accuracy is not None:
            if accountant != "pld":
                raise InvalidParameterError(
                    f"accuracy is the PLD accountant's grid step; accountant={accountant!r} "
                    "has none"
                )
            if (
                isinstance(accuracy, bool)
                or not isinstance(accuracy, (int, float))
                or not (0.0 < float(accuracy) <= 0.1)
            ):
                raise InvalidParameterError(
                    f"accuracy must be a real number in (0, 0.1], got {accuracy!r}"
                )
            accountant = PLDAccountant(value_discretization_interval=float(accuracy))
        self._empty = make_accountant(accountant)
        self._account: Accountant = self._empty
        self._ledger: list[LedgerEntry] = []
        self._units: set[str] = set()  # graph units charged (edge, node)
        self._lock = threading.Lock()

    # -- inspection -----------------------------------------------------------------------
    @property
    def accountant(self) -> Accountant:
        """The accountant holding every accepted charge."""
        return self._account

    @property
    def accuracy(self) -> float | None:
        """The PLD grid step (None for the other accountants)."""
        return getattr(self._empty, "value_discretization_interval", None)

    @property
    def adaptive(self) -> bool:
        """Whether this budget is proven valid as a filter for adaptively chosen releases."""
        return type(self._account).adaptive

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """The accepted charges, in order."""
        return tuple(self._ledger)

    @property
    def spent_epsilon(self) -> float:
        """The composed ε at the budget's δ of everything charged so far."""
        return self._account.epsilon(self.delta)

    @property
    def remaining_epsilon(self) -> float:
        """ε − spent ε.  Not what one more release may use (see :meth:`remaining`)."""
        return max(0.0, self.epsilon - self.spent_epsilon)

    def __repr__(self) -> str:
        return (
            f"PrivacyBudget(epsilon={self.epsilon:g}, delta={self.delta:g}, accountant="
            f"{self._account.name!r}, relation={self.relation!r}; spent "
            f"{self.spent_epsilon:.6g} in {len(self._ledger)} charges)"
        )

    def report(self) -> BudgetReport:
        """The ledger as a table (``str(budget.report())``): own cost, relation, running total."""
        return BudgetReport(
            rows=self.ledger,
            epsilon=self.epsilon,
            delta=self.delta,
            relation=self.relation,
            accountant=self._account.name,
        )

    def remaining(self, delta: float = 0.0) -> RemainingBudget:
        """The largest ε that one more (ε, ``delta``)-DP release may still use.

        Found by bisection on the worst case of an (ε, ``delta``)-DP release (binary
        randomized response with a δ atom: Kairouz, Oh & Viswanath, ICML 2015), composed
        with everything charged so far by the budget's accountant; every release meeting
        the returned (ε, δ) can therefore be charged.

        Parameters
        ----------
        delta : float, default 0
            The δ the release would use (below the budget's δ; 0 for a pure release).
        """
        d = check_delta(delta)
        spent = self.spent_epsilon
        if d > 0 and d >= self.delta:
            raise InvalidParameterError(
                f"the next release's delta must be below the budget's delta = {self.delta:g}, "
                f"got {delta!r}"
            )

        def fits(eps: float) -> bool:
            g = PureDP(epsilon=eps) if d == 0 else ApproxDP(epsilon=eps, delta=d)
            try:
                return self._account.compose(g).epsilon(self.delta) <= self.epsilon
            except PrivauditError:  # an accountant that cannot take the release: no fit
                return False

        lo, hi = 0.0, self.epsilon
        if not fits(1e-9):
            return RemainingBudget(0.0, d, spent, self.epsilon, self.delta)
        lo = 1e-9
        if fits(hi):
            lo = hi
        else:
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if fits(mid) else (lo, mid)
                if hi - lo <= 1e-7 * hi:
                    break
            # a bisection on the accountant's answers: down to the stable grid (a smaller
            # release still fits), so that a mechanism built with it has a stable spec
            lo = max(round_down(lo), 1e-9)
        return RemainingBudget(lo, d, spent, self.epsilon, self.delta)

    # -- charging -------------------------------------------------------------------------
    def _converted(self, items: Sequence[Any]) -> list[tuple[Any, Any, RelationConversion, int]]:
        parts = [p for item in items for p in expand_charge(item)]
        converted = group_charges([convert_charge(p, self.relation) for p in parts])
        check_one_unit(self._units | graph_units(c.conversion for c, _ in converted), self.relation)
        return [(c.item, c.curves, c.conversion, k) for c, k in converted]

    def _composed(
        self, parts: Sequence[tuple[Any, Any, RelationConversion, int]], count: int
    ) -> tuple[Accountant, float, float]:
        acc = self._account
        alone = self._empty
        for _, curves, _, k in parts:
            acc = acc.compose(curves, count * k)
            alone = alone.compose(curves, count * k)
        return acc, alone.epsilon(self.delta), acc.epsilon(self.delta)

    def can_afford(self, item: Any, count: int = 1) -> bool:
        """Whether charging ``count`` releases of ``item`` would stay within the budget.

        Raises :class:`~spec.errors.RelationConversionError` for a release that cannot be
        charged under the budget's relation at all.
        """
        count = check_sample_size(count, 1, "count")
        items = list(item) if isinstance(item, (list, tuple)) else [item]
        return self._composed(self._converted(items), count)[2] <= self.epsilon

    def charge(self, item: Any, *, estimator: str | None = None, count: int = 1) -> LedgerEntry:
        """Charge ``count`` releases of ``item`` (a spec, guarantee, or a list charged together).

        A composition (:class:`~mechanisms.accounting.ComposedMechanism`, or a list) is
        charged as its parts.  Each part is converted to the budget's relation first.

        Raises
        ------
        BudgetExceededError
            If the composition would exceed ε at δ; nothing is charged then.
        RelationConversionError
            If a part cannot be charged under the budget's relation; nothing is charged.
        """
        count = check_sample_size(count, 1, "count")  # a bool is no count (True * k = k)
        items = list(item) if isinstance(item, (list, tuple)) else [item]
        if not items:
            raise InvalidParameterError("charge needs at least one release, got none")
        name = estimator or str(getattr(getattr(items[0], "spec", items[0]), "name", "release"))
        with self._lock:
            parts = self._converted(items)
            acc, alone, total = self._composed(parts, count)
            if not total <= self.epsilon:
                spent = self.spent_epsilon
                raise BudgetExceededError(
                    f"{name} would bring the budget (epsilon = {self.epsilon:g}, delta = "
                    f"{self.delta:g}, {self._account.name} accounting, {self.relation}) to "
                    f"epsilon = {total:.6g}; spent so far epsilon = {spent:.6g}, left epsilon = "
                    f"{max(0.0, self.epsilon - spent):.6g}; this release alone costs epsilon = "
                    f"{alone:.6g}"
                    + ("" if math.isfinite(alone) else " (it has no finite epsilon at this delta)")
                )
            hashes = ",".join(h for h in (_spec_hash(p) for p, _, _, _ in parts) if h)
            relations = ",".join(dict.fromkeys(c.stated for _, _, c, _ in parts))
            rules = "; ".join(dict.fromkeys(c.describe() for _, _, c, _ in parts))
            entry = LedgerEntry(
                estimator=name,
                spec_hash=hashes,
                count=count,
                epsilon=alone,
                total_epsilon=total,
                relation=relations,
                conversion=rules,
            )
            self._account = acc
            self._units |= graph_units(c for _, _, c, _ in parts)
            self._ledger.append(entry)
            return entry


def charge(budget: PrivacyBudget | None, item: Any, *, estimator: str, count: int = 1) -> None:
    """Charge ``budget`` (if given) for ``item``; the one call estimators make before sampling."""
    if budget is None:
        return
    if not isinstance(budget, PrivacyBudget):
        raise InvalidParameterError(f"budget must be a PrivacyBudget or None, got {budget!r}")
    budget.charge(item, estimator=estimator, count=count)
