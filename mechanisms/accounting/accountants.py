"""Accountants: compose the privacy curves of many releases and answer ε(δ) and δ(ε).

Each accountant is immutable: :meth:`Accountant.compose` returns a new accountant with
the release added, so a budget can ask "what if" before it charges.

* ``PLDAccountant`` — convolution of privacy-loss distributions (dp_accounting,
  pessimistic connect-the-dots discretization; Doroshenko, Ghazi, Kamath, Kumar &
  Manurangsi, PETS 2022), with exact GDP and exact optimal-composition routes.  As a
  filter (mechanisms chosen adaptively): not proven; the sequence of mechanisms must be
  fixed in advance (their outputs may be used adaptively).
* ``RDPAccountant`` — Σ ε_i(α) on a grid of orders (Mironov, CSF 2017, Prop. 1),
  converted by Canonne, Kamath & Steinke (NeurIPS 2020, Prop. 12).  Filter: not proven
  over a grid of orders.
* ``ZCDPAccountant`` — Σ ρ_i (Bun & Steinke, TCC 2016, Lemma 2.3).  Filter: proven (a
  Rényi filter at every order: Feldman & Zrnic, NeurIPS 2021; Whitehouse, Ramdas, Rogers
  & Wu, ICML 2023).
* ``GDPAccountant`` — μ = √Σμ_i² (Dong, Roth & Su, JRSS-B 2022, Cor. 3.3), exact.
  Filter: proven (Smith & Thakurta, arXiv:2210.17520, 2022).
* ``BasicAccountant`` — (Σε_i, Σδ_i).  Filter: proven (Rogers, Roth, Ullman & Vadhan,
  NeurIPS 2016).

Releases whose curves a currency cannot express are composed separately and joined by
basic composition, which is sound for any split δ = δ₁ + δ₂: a declared (ε, δ)-DP claim
with δ > 0 is added to the RDP and zCDP accounts as (Σε_i, Σδ_i); a release with no PLD
(a declared zCDP or RDP claim) is added to the PLD account through its RDP curve, with δ
split between the two parts on a grid.  Every answer is an upper bound: never below the
exact ε(δ) of the composition.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from privaudit.spec import check_delta
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError
from privaudit.spec.guarantees import ApproxDP, GaussianDP, RenyiDP, ZeroConcentratedDP
from privaudit.spec.stable_values import round_up

from .curves import PrivacyCurves, privacy_curves

__all__ = [
    "ACCOUNTANTS",
    "Accountant",
    "BasicAccountant",
    "DEFAULT_ORDERS",
    "GDPAccountant",
    "PLDAccountant",
    "RDPAccountant",
    "ZCDPAccountant",
    "make_accountant",
]

#: Rényi orders (those of dp_accounting's RdpAccountant, plus a few large ones).
DEFAULT_ORDERS: tuple[float, ...] = tuple(
    [1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 4.5]
    + [float(a) for a in range(5, 64)]
    + [128.0, 256.0, 512.0, 1024.0]
)

#: Splits of δ between two parts tried when a composition has to be joined (fractions).
_SPLITS = tuple(
    [0.0, 1.0]
    + list(np.concatenate([np.geomspace(1e-4, 0.5, 24), 1.0 - np.geomspace(1e-4, 0.5, 24)]))
)
#: Relative margin added to dp_accounting's PLD answers.  Its ε(δ) was seen below the exact
#: value by 2e-11 (relative; 100 pure releases, ε₀ = 0.5, δ = 1e-5, floating point) and by
#: 8.7e-9 (``from_gaussian_mechanism(1.0).self_compose(100)`` at δ = 1e-8, μ = 10).
PLD_FLOAT_MARGIN = 1e-6


def _check_eps(epsilon: float) -> float:
    if isinstance(epsilon, bool):
        raise InvalidParameterError(f"epsilon must be a real number >= 0, got {epsilon!r}")
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"epsilon must be a real number >= 0, got {epsilon!r}"
        ) from None
    if eps != eps or eps < 0:
        raise InvalidParameterError(f"epsilon must be >= 0, got {epsilon!r}")
    return eps


def _check_count(count: Any) -> int:
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or int(count) < 1:
        raise InvalidParameterError(f"count must be an integer >= 1, got {count!r}")
    return int(count)


class Accountant(ABC):
    """Base of the accountants: an immutable list of (curves, count) and two questions.

    Subclasses implement :meth:`_epsilon` and :meth:`_delta` for a non-empty account and
    :meth:`_accepts` to refuse curves they cannot express.
    """

    #: Short name used by :class:`~mechanisms.accounting.PrivacyBudget` (``accountant="pld"``).
    name: ClassVar[str] = ""
    #: Whether the rule is proven valid for adaptively chosen mechanisms (a privacy filter).
    adaptive: ClassVar[bool] = False

    def __init__(self, items: Sequence[tuple[PrivacyCurves, int]] = ()) -> None:
        self._items: tuple[tuple[PrivacyCurves, int], ...] = tuple(items)

    # -- building ---------------------------------------------------------------------
    def _with(self, items: tuple[tuple[PrivacyCurves, int], ...]) -> Accountant:
        return type(self)(items)

    def compose(self, item: Any, count: int = 1) -> Accountant:
        """A new accountant with ``count`` more releases of ``item`` added.

        Parameters
        ----------
        item : MechanismSpec, SubsampledSpec, PrivacyGuarantee, PrivacyCurves or Mechanism
            The release (see :func:`~mechanisms.accounting.privacy_curves`).
        count : int, default 1
            How many independent releases of it (on the same data).
        """
        curves = privacy_curves(item)
        self._accepts(curves)
        return self._with(self._items + ((curves, _check_count(count)),))

    def compose_all(self, items: Sequence[Any]) -> Accountant:
        """A new accountant with every item of ``items`` added once."""
        acc: Accountant = self
        for item in items:
            acc = acc.compose(item)
        return acc

    @property
    def releases(self) -> int:
        """How many releases have been composed."""
        return sum(c for _, c in self._items)

    @property
    def items(self) -> tuple[tuple[PrivacyCurves, int], ...]:
        """The composed (curves, count) pairs, in order."""
        return self._items

    def _accepts(self, curves: PrivacyCurves) -> None:  # noqa: B027 - optional hook, default accepts all
        """Raise :class:`UnsupportedCombinationError` if ``curves`` cannot be composed here.

        The default accepts every curve; subclasses override it to refuse.
        """

    # -- questions --------------------------------------------------------------------
    def epsilon(self, delta: float) -> float:
        """The smallest ε this accountant proves at δ (``inf`` if none; 0 when empty).

        Never above basic composition where that applies (the smaller of two sound bounds
        is sound).
        """
        d = check_delta(delta)
        if not self._items:
            return 0.0
        return float(
            min(
                self._epsilon(d),
                _basic_parts(self._items)[0] if _basic_parts(self._items)[1] <= d else math.inf,
            )
        )

    def delta(self, epsilon: float) -> float:
        """The smallest δ this accountant proves at ε (0 when empty)."""
        eps = _check_eps(epsilon)
        if not self._items:
            return 0.0
        basic_eps, basic_delta = _basic_parts(self._items)
        found = min(self._delta(eps), basic_delta if eps >= basic_eps else 1.0)
        return float(min(1.0, max(0.0, found)))

    def claimed_epsilon(self, delta: float) -> float:
        """:meth:`epsilon` as a claim a spec can hold: rounded up to the stable grid
        (:func:`spec.stable_values.round_up`) unless it is basic composition's sum of
        declared ε, which is exact arithmetic and the same on every CPU."""
        eps = self.epsilon(delta)
        basic_eps, basic_delta = _basic_parts(self._items) if self._items else (0.0, 0.0)
        if not math.isfinite(eps) or (eps == basic_eps and basic_delta <= delta):
            return eps
        return round_up(eps)

    def guarantee(self, delta: float) -> ApproxDP:
        """The composition as an (ε, δ)-DP guarantee at ``delta`` (ε from
        :meth:`claimed_epsilon`)."""
        eps = self.claimed_epsilon(delta)
        if not math.isfinite(eps):
            raise UnsupportedCombinationError(
                f"{type(self).__name__} proves no finite epsilon at delta = {delta!r}"
            )
        return ApproxDP(epsilon=max(eps, 1e-300), delta=check_delta(delta))

    @abstractmethod
    def _epsilon(self, delta: float) -> float: ...

    @abstractmethod
    def _delta(self, epsilon: float) -> float: ...

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.releases} releases>"


def _basic_parts(items: Sequence[tuple[PrivacyCurves, int]]) -> tuple[float, float]:
    """(Σε_i, Σδ_i) of basic composition (Dwork & Roth 2014, Thm. 3.16); ε = inf if none."""
    eps: list[float] = []
    delta: list[float] = []
    for c, k in items:
        if math.isfinite(c.pure_epsilon):
            eps.append(c.pure_epsilon * k)
        elif c.approx is not None:
            eps.append(c.approx[0] * k)
            delta.append(c.approx[1] * k)
        else:
            return math.inf, 0.0
    return math.fsum(eps), math.fsum(delta)


# ----------------------------------------------------------------------------------------
# Approximate-DP parts, joined by basic composition
# ----------------------------------------------------------------------------------------
def _approx_total(items: Sequence[tuple[PrivacyCurves, int]]) -> tuple[float, float]:
    eps = math.fsum(c.approx[0] * k for c, k in items if c.approx is not None)
    delta = math.fsum(c.approx[1] * k for c, k in items if c.approx is not None)
    return eps, delta


def _join_epsilon(eps_of_part: Any, approx: tuple[float, float], delta: float) -> float:
    """ε at δ of (a part with ε(δ′)) ∘ (an (ε_a, δ_a)-DP part), by basic composition."""
    eps_a, delta_a = approx
    if delta_a == 0.0:
        return eps_of_part(delta) + eps_a
    if delta <= delta_a:
        return math.inf
    return eps_of_part(delta - delta_a) + eps_a


def _join_delta(delta_of_part: Any, approx: tuple[float, float], epsilon: float) -> float:
    eps_a, delta_a = approx
    if epsilon < eps_a:
        return 1.0
    return min(1.0, delta_of_part(epsilon - eps_a) + delta_a)


# ----------------------------------------------------------------------------------------
# RDP and zCDP
# ----------------------------------------------------------------------------------------
def _rdp_epsilon(orders: Sequence[float], values: np.ndarray, delta: float) -> float:
    if delta <= 0:
        return math.inf
    best = math.inf
    for a, v in zip(orders, values, strict=True):
        if math.isfinite(v):
            one = RenyiDP.model_construct(alpha=a, epsilon=float(v))
            best = min(best, one.epsilon_for_delta(delta))
    return best


def _rdp_delta(orders: Sequence[float], values: np.ndarray, epsilon: float) -> float:
    best = 1.0
    for a, v in zip(orders, values, strict=True):
        if math.isfinite(v):
            one = RenyiDP.model_construct(alpha=a, epsilon=float(v))
            best = min(best, one.delta_for_epsilon(epsilon))
    return best


class RDPAccountant(Accountant):
    """Rényi-DP accountant over a grid of orders (Mironov, CSF 2017).

    Parameters
    ----------
    orders : sequence of float, optional
        Orders α > 1 (default :data:`DEFAULT_ORDERS`).
    """

    name = "rdp"

    def __init__(
        self,
        items: Sequence[tuple[PrivacyCurves, int]] = (),
        *,
        orders: Sequence[float] = DEFAULT_ORDERS,
    ) -> None:
        super().__init__(items)
        orders = tuple(float(a) for a in orders)
        if not orders or any(not (a > 1.0 and math.isfinite(a)) for a in orders):
            raise InvalidParameterError(f"orders must be finite and > 1, got {orders!r}")
        self.orders = orders

    def _with(self, items: tuple[tuple[PrivacyCurves, int], ...]) -> RDPAccountant:
        return RDPAccountant(items, orders=self.orders)

    def _accepts(self, curves: PrivacyCurves) -> None:
        if curves.rdp is None and curves.approx is None:
            raise UnsupportedCombinationError(f"{curves.source} has no Renyi-DP curve")

    def rdp_curve(self) -> np.ndarray:
        """Σ ε_i(α) over :attr:`orders` for the releases with an RDP curve."""
        total = np.zeros(len(self.orders))
        for curves, k in self._items:
            if curves.approx is None and curves.rdp is not None:
                total += k * np.array([curves.rdp(a) for a in self.orders])
        return total

    def _epsilon(self, delta: float) -> float:
        curve, approx = self.rdp_curve(), _approx_total(self._items)
        has_rdp = any(c.approx is None for c, _ in self._items)
        part = (lambda d: _rdp_epsilon(self.orders, curve, d)) if has_rdp else (lambda d: 0.0)
        return _join_epsilon(part, approx, delta)

    def _delta(self, epsilon: float) -> float:
        curve, approx = self.rdp_curve(), _approx_total(self._items)
        has_rdp = any(c.approx is None for c, _ in self._items)
        part = (lambda e: _rdp_delta(self.orders, curve, e)) if has_rdp else (lambda e: 0.0)
        return _join_delta(part, approx, epsilon)


class ZCDPAccountant(Accountant):
    """Zero-concentrated DP accountant: ρ adds up (Bun & Steinke, TCC 2016, Lemma 2.3)."""

    name = "zcdp"
    adaptive = True

    def _accepts(self, curves: PrivacyCurves) -> None:
        if curves.rho is None and curves.approx is None:
            raise UnsupportedCombinationError(f"{curves.source} has no zCDP guarantee")

    @property
    def rho(self) -> float:
        """Σ ρ_i over the releases with a zCDP guarantee."""
        return math.fsum(c.rho * k for c, k in self._items if c.approx is None and c.rho)

    def _epsilon(self, delta: float) -> float:
        rho = self.rho
        part = (
            (lambda d: ZeroConcentratedDP(rho=rho).epsilon_for_delta(d))
            if rho > 0
            else (lambda d: 0.0)
        )
        return _join_epsilon(part, _approx_total(self._items), delta)

    def _delta(self, epsilon: float) -> float:
        rho = self.rho
        part = (
            (lambda e: ZeroConcentratedDP(rho=rho).delta_for_epsilon(e))
            if rho > 0
            else (lambda e: 0.0)
        )
        return _join_delta(part, _approx_total(self._items), epsilon)


class GDPAccountant(Accountant):
    """Gaussian-DP accountant: exact for Gaussian releases (Dong, Roth & Su, JRSS-B 2022)."""

    name = "gdp"
    adaptive = True

    def _accepts(self, curves: PrivacyCurves) -> None:
        if curves.mu is None:
            raise UnsupportedCombinationError(
                f"{curves.source} has no exact GDP guarantee; only Gaussian noise does (use the "
                "PLD or zCDP accountant)"
            )

    @property
    def mu(self) -> float:
        """μ = √Σ k μ_i²."""
        terms = []
        for curves, count in self._items:
            if curves.mu is None:  # pragma: no cover - refused by _accepts
                raise UnsupportedCombinationError(f"{curves.source} has no exact GDP guarantee")
            terms.append(curves.mu**2 * count)
        return math.sqrt(math.fsum(terms))

    def _epsilon(self, delta: float) -> float:
        return GaussianDP(mu=self.mu).epsilon_for_delta(delta)

    def _delta(self, epsilon: float) -> float:
        return GaussianDP(mu=self.mu).delta_for_epsilon(epsilon)


class BasicAccountant(Accountant):
    """Basic composition (Σε_i, Σδ_i) of pure and declared (ε, δ) claims (Dwork & Roth 2014)."""

    name = "basic"
    adaptive = True

    def _accepts(self, curves: PrivacyCurves) -> None:
        if not math.isfinite(curves.pure_epsilon) and curves.approx is None:
            raise UnsupportedCombinationError(
                f"{curves.source} has no pure or declared (epsilon, delta) guarantee for basic "
                "composition"
            )

    def _epsilon(self, delta: float) -> float:
        eps, d0 = _basic_parts(self._items)
        return eps if delta >= d0 else math.inf

    def _delta(self, epsilon: float) -> float:
        eps, d0 = _basic_parts(self._items)
        return d0 if epsilon >= eps else 1.0


# ----------------------------------------------------------------------------------------
# PLD
# ----------------------------------------------------------------------------------------
class _Rest:
    """The releases without a PLD: the better of RDP on the grid and zCDP (if every one has ρ)."""

    def __init__(self, items: list[tuple[PrivacyCurves, int]]) -> None:
        self._parts: list[Accountant] = [RDPAccountant(items)]
        if all(c.rho is not None for c, _ in items):
            self._parts.append(ZCDPAccountant(items))

    def _epsilon(self, delta: float) -> float:
        return min(p._epsilon(delta) for p in self._parts)

    def _delta(self, epsilon: float) -> float:
        return min(p._delta(epsilon) for p in self._parts)


class PLDAccountant(Accountant):
    """Privacy-loss-distribution accountant on dp_accounting's PLD engine.

    Parameters
    ----------
    value_discretization_interval : float, default 1e-4
        Grid of the privacy loss; the discretization is pessimistic (every answer is an
        upper bound on the exact one), finer grids are tighter and slower.

    Notes
    -----
    The PLD of each release comes from :func:`~mechanisms.accounting.privacy_curves`;
    composition is dp_accounting's FFT convolution (Koskela, Jälkö & Honkela, AISTATS
    2020; Doroshenko et al., PETS 2022).  When every release is exactly Gaussian the answer
    is the exact GDP one (Dong, Roth & Su 2022, Cor. 3.3), with no discretization; when
    every release is the worst case of one declared (ε₀, δ₀) claim, the answer is the exact
    optimal composition (:mod:`~mechanisms.accounting.optimal`).  dp_accounting's answers
    are inflated by :data:`PLD_FLOAT_MARGIN` (relative) to cover its floating point.
    Releases without a PLD (declared zCDP/RDP claims) are composed in RDP and joined by
    basic composition with δ split between the parts.
    """

    name = "pld"

    def __init__(
        self,
        items: Sequence[tuple[PrivacyCurves, int]] = (),
        *,
        value_discretization_interval: float = 1e-4,
    ) -> None:
        super().__init__(items)
        h = float(value_discretization_interval)
        if not (h > 0 and math.isfinite(h)):
            raise InvalidParameterError(
                f"value_discretization_interval must be > 0, got {value_discretization_interval!r}"
            )
        self.value_discretization_interval = h
        self._pld_cache: Any = None
        self._pld_done = 0

    def _with(self, items: tuple[tuple[PrivacyCurves, int], ...]) -> PLDAccountant:
        new = PLDAccountant(items, value_discretization_interval=self.value_discretization_interval)
        # composition is incremental: the new account starts from this one's convolution
        new._pld_cache, new._pld_done = self._pld(), len(self._items)
        return new

    def _pld(self) -> Any:
        """The composed PLD of the releases that have one (None if none has)."""
        if self._pld_done == len(self._items) and self._pld_cache is not None:
            return self._pld_cache
        pld, start = self._pld_cache, self._pld_done
        for curves, k in self._items[start:]:
            if curves.pld is None:
                continue
            one = curves.pld(self.value_discretization_interval)
            if k > 1:
                one = one.self_compose(k)
            pld = one if pld is None else pld.compose(one)
        self._pld_cache, self._pld_done = pld, len(self._items)
        return pld

    def _rest(self) -> _Rest | None:
        rest = [(c, k) for c, k in self._items if c.pld is None]
        return _Rest(rest) if rest else None

    def _exact_gdp(self) -> GDPAccountant | None:
        if all(c.mu is not None for c, _ in self._items):
            return GDPAccountant(self._items)
        return None

    def _exact_homogeneous(self) -> Any:
        """KOV's exact optimum when every release has the same declared (ε, δ) worst case."""
        from .optimal import OptimalComposition

        keys = {(c.pure_epsilon, c.approx) for c, _ in self._items if not c.exact_pld}
        if len(keys) != 1 or any(c.exact_pld for c, _ in self._items):
            return None
        pure, approx = keys.pop()
        if approx is None and not math.isfinite(pure):
            return None
        eps0, delta0 = approx if approx is not None else (pure, 0.0)
        return OptimalComposition(epsilon0=eps0, delta0=delta0, k=self.releases)

    def _pld_epsilon(self, pld: Any, delta: float) -> float:
        eps = pld.get_epsilon_for_delta(delta)
        return eps * (1.0 + PLD_FLOAT_MARGIN) + PLD_FLOAT_MARGIN if math.isfinite(eps) else eps

    def _pld_delta(self, pld: Any, epsilon: float) -> float:
        return pld.get_delta_for_epsilon(epsilon) * (1.0 + PLD_FLOAT_MARGIN)

    def _epsilon(self, delta: float) -> float:
        pld, rest = self._pld(), self._rest()
        candidates = []
        gdp, kov = self._exact_gdp(), self._exact_homogeneous()
        if gdp is not None:
            return gdp._epsilon(delta)  # exact: the PLD can only be above it
        if kov is not None:
            return kov.epsilon_for_delta(delta)  # exact: no discretization at all
        if rest is None:
            candidates.append(self._pld_epsilon(pld, delta))
        elif pld is None:
            candidates.append(rest._epsilon(delta))
        elif delta > 0:
            candidates.append(
                min(
                    self._pld_epsilon(pld, f * delta) + rest._epsilon((1 - f) * delta)
                    for f in _SPLITS
                )
            )
        else:
            candidates.append(math.inf)
        return max(0.0, min(candidates))

    def _delta(self, epsilon: float) -> float:
        pld, rest = self._pld(), self._rest()
        candidates = []
        gdp, kov = self._exact_gdp(), self._exact_homogeneous()
        if gdp is not None:
            return gdp._delta(epsilon)
        if kov is not None:
            return kov.delta_for_epsilon(epsilon)
        if rest is None:
            candidates.append(self._pld_delta(pld, epsilon))
        elif pld is None:
            candidates.append(rest._delta(epsilon))
        else:  # split ε between the two parts (basic composition)
            candidates.append(
                min(
                    self._pld_delta(pld, f * epsilon) + rest._delta((1 - f) * epsilon)
                    for f in _SPLITS
                )
            )
        return min(candidates)


#: The accountants by :attr:`Accountant.name`.
ACCOUNTANTS: dict[str, type[Accountant]] = {
    cls.name: cls
    for cls in (PLDAccountant, RDPAccountant, ZCDPAccountant, GDPAccountant, BasicAccountant)
}


def make_accountant(accountant: str | Accountant) -> Accountant:
    """An empty accountant from its name (``pld``, ``rdp``, ``zcdp``, ``gdp`` or ``basic``)."""
    if isinstance(accountant, Accountant):
        if accountant.releases:
            raise InvalidParameterError(
                f"a budget needs an empty accountant, got one with {accountant.releases} releases"
            )
        return accountant
    if isinstance(accountant, str) and accountant in ACCOUNTANTS:
        return ACCOUNTANTS[accountant]()
    raise InvalidParameterError(
        f"unknown accountant {accountant!r}; expected one of {sorted(ACCOUNTANTS)} or an "
        "Accountant instance"
    )
