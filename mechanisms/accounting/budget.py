"""A privacy budget for analysts: every audited estimator charges it before it draws noise.

>>> from mechanisms.accounting import PrivacyBudget
>>> from mechanisms import LaplaceMechanism
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
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spec import check_delta, check_epsilon
from spec.errors import BudgetExceededError, InvalidParameterError

from .accountants import Accountant, make_accountant
from .curves import privacy_curves

__all__ = ["LedgerEntry", "PrivacyBudget", "charge"]


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
        The cost of this charge alone: its ε at the budget's δ under the budget's accountant.
    total_epsilon : float
        The composed ε at the budget's δ of everything charged up to and including this one.
    """

    estimator: str
    spec_hash: str
    count: int
    epsilon: float
    total_epsilon: float


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

    Examples
    --------
    >>> budget = PrivacyBudget(epsilon=2.0, delta=1e-6, accountant="zcdp")
    >>> budget.remaining_epsilon
    2.0
    """

    def __init__(self, epsilon: float, delta: float = 0.0,
                 accountant: str | Accountant = "pld") -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self._empty = make_accountant(accountant)
        self._account: Accountant = self._empty
        self._ledger: list[LedgerEntry] = []
        self._lock = threading.Lock()

    # -- inspection -----------------------------------------------------------------------
    @property
    def accountant(self) -> Accountant:
        """The accountant holding every accepted charge."""
        return self._account

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
        """ε − spent ε (composition is not additive: a release costing this may not fit)."""
        return max(0.0, self.epsilon - self.spent_epsilon)

    def __repr__(self) -> str:
        return (f"PrivacyBudget(epsilon={self.epsilon:g}, delta={self.delta:g}, accountant="
                f"{self._account.name!r}; spent {self.spent_epsilon:.6g} in {len(self._ledger)} "
                "charges)")

    # -- charging -------------------------------------------------------------------------
    def _composed(self, items: Sequence[Any], count: int) -> tuple[Accountant, float, float]:
        acc = self._account
        alone = self._empty
        for item in items:
            curves = privacy_curves(item)
            acc = acc.compose(curves, count)
            alone = alone.compose(curves, count)
        return acc, alone.epsilon(self.delta), acc.epsilon(self.delta)

    def can_afford(self, item: Any, count: int = 1) -> bool:
        """Whether charging ``count`` releases of ``item`` would stay within the budget."""
        items = list(item) if isinstance(item, (list, tuple)) else [item]
        return self._composed(items, count)[2] <= self.epsilon

    def charge(self, item: Any, *, estimator: str | None = None, count: int = 1) -> LedgerEntry:
        """Charge ``count`` releases of ``item`` (a spec, guarantee, or a list charged together).

        Raises
        ------
        BudgetExceededError
            If the composition would exceed ε at δ; nothing is charged then.
        """
        items = list(item) if isinstance(item, (list, tuple)) else [item]
        if not items:
            raise InvalidParameterError("charge needs at least one release, got none")
        name = estimator or str(getattr(getattr(items[0], "spec", items[0]), "name", "release"))
        with self._lock:
            acc, alone, total = self._composed(items, count)
            if not total <= self.epsilon:
                spent = self.spent_epsilon
                raise BudgetExceededError(
                    f"{name} would bring the budget (epsilon = {self.epsilon:g}, delta = "
                    f"{self.delta:g}, {self._account.name} accounting) to epsilon = {total:.6g}; "
                    f"spent so far epsilon = {spent:.6g}, left epsilon = "
                    f"{max(0.0, self.epsilon - spent):.6g}; this release alone costs epsilon = "
                    f"{alone:.6g}" + ("" if math.isfinite(alone) else
                                      " (it has no finite epsilon at this delta)"))
            hashes = ",".join(h for h in (_spec_hash(i) for i in items) if h)
            entry = LedgerEntry(estimator=name, spec_hash=hashes, count=count, epsilon=alone,
                                total_epsilon=total)
            self._account = acc
            self._ledger.append(entry)
            return entry


def charge(budget: PrivacyBudget | None, item: Any, *, estimator: str, count: int = 1) -> None:
    """Charge ``budget`` (if given) for ``item``; the one call estimators make before sampling."""
    if budget is None:
        return
    if not isinstance(budget, PrivacyBudget):
        raise InvalidParameterError(f"budget must be a PrivacyBudget or None, got {budget!r}")
    budget.charge(item, estimator=estimator, count=count)
