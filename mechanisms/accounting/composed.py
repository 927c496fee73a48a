"""k releases of mechanisms on the same input, as one mechanism whose claim is the accountant's.

A :class:`ComposedMechanism` runs each of its mechanisms once on the same input, with
independent noise, and outputs the releases side by side.  Its spec claims the
(ε, δ) that an accountant proves for the composition, so an audit of it
(``privaudit.audit(composed)``) measures an empirical ε lower bound *beside* the
accountant's upper bound: the tightness of accounting.  The spec declares no noise law
(the joint law of the releases is not one of the spec's laws), so the auditor treats it
as a black box and chooses its events from data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from spec import ApproxDP, MechanismSpec, PureDP, Reference
from spec.errors import InvalidParameterError, UnsupportedCombinationError

from .._base import Mechanism
from .accountants import Accountant, BasicAccountant, make_accountant

__all__ = ["ComposedMechanism", "DEFAULT_COMPOSITION_DELTA"]

#: δ at which a composition is claimed when none is given.
DEFAULT_COMPOSITION_DELTA = 1e-6


class ComposedMechanism(Mechanism):
    """The k releases of ``mechanisms`` on one input, claimed at the accountant's (ε, δ).

    Parameters
    ----------
    mechanisms : sequence of Mechanism
        The releases, all on the same input domain under the same neighbouring relation.
    delta : float, default 1e-6
        δ of the claim (0 is allowed when every release is pure DP).
    accountant : str or Accountant, default "pld"
        The accountant whose bound is claimed.
    name : str, optional
        The spec's name (default ``"composed(a, b, …)"``).

    Examples
    --------
    >>> from mechanisms import LaplaceMechanism
    >>> mech = ComposedMechanism([LaplaceMechanism(0.1, 1.0)] * 50)
    >>> round(mech.accounting["epsilon"], 3), mech.accounting["basic_epsilon"]
    (3.121, 5.0)
    """

    def __init__(self, mechanisms: Sequence[Mechanism], *, delta: float = DEFAULT_COMPOSITION_DELTA,
                 accountant: str | Accountant = "pld", name: str | None = None) -> None:
        mechs = tuple(mechanisms)
        if not mechs:
            raise InvalidParameterError("a composition needs at least one mechanism, got none")
        for m in mechs:
            if not isinstance(m, Mechanism):
                raise InvalidParameterError(f"not a Mechanism: {m!r}")
        first = mechs[0].spec
        for m in mechs[1:]:
            if m.spec.input_domain != first.input_domain or m.spec.relation != first.relation:
                raise UnsupportedCombinationError(
                    f"{m.name!r} and {first.name!r} do not share an input domain and a "
                    "neighbouring relation; a composition releases on one input")
        acc = make_accountant(accountant).compose_all([m.spec for m in mechs])
        epsilon = acc.epsilon(delta)
        if not np.isfinite(epsilon):
            raise UnsupportedCombinationError(
                f"the {acc.name} accountant proves no finite epsilon at delta = {delta!r} for "
                f"{[m.name for m in mechs]}")
        try:
            basic = BasicAccountant().compose_all([m.spec for m in mechs]).epsilon(delta)
        except UnsupportedCombinationError:
            basic = float("inf")
        names = [m.name for m in mechs]
        guarantee = (PureDP(epsilon=epsilon) if delta == 0
                     else ApproxDP(epsilon=epsilon, delta=delta))
        spec = MechanismSpec(
            name=name or f"composed({', '.join(names)})"[:200],
            summary=f"{len(mechs)} releases on the same input, side by side",
            references=(Reference(citation=f"composition by the {acc.name} accountant "
                                           "(privaudit docs/accounting.md)"),),
            input_domain=first.input_domain, relation=first.relation,
            statistic="; ".join(f"{m.name}: {m.spec.statistic or 'release'}" for m in mechs)[:2000],
            output_dimension=sum(m.spec.output_dimension for m in mechs),
            guarantee=guarantee,
            notes=(f"claim = the {acc.name} accountant's epsilon at delta = {delta:g} for the "
                   f"composition of {len(mechs)} releases ({', '.join(sorted(set(names)))}); "
                   f"basic composition gives epsilon = {basic:.6g}"))
        super().__init__(spec)
        self._mechanisms = mechs
        self._accounting = {"accountant": acc.name, "epsilon": float(epsilon),
                            "delta": float(delta), "basic_epsilon": float(basic),
                            "releases": len(mechs),
                            "components": tuple(m.spec.content_hash for m in mechs)}

    @property
    def mechanisms(self) -> tuple[Mechanism, ...]:
        """The composed mechanisms, in output order."""
        return self._mechanisms

    @property
    def accounting(self) -> dict[str, Any]:
        """The accountant, its (ε, δ), basic composition's ε and the component spec hashes."""
        return dict(self._accounting)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        columns = [np.asarray(m._sample(data, size, rng), dtype=float).reshape(size, -1)
                   for m in self._mechanisms]
        return np.hstack(columns)
