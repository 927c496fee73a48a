"""Composition as functions over guarantees: basic, advanced, parallel, and budget splits.

Estimators split a budget with :func:`split_budget` and state the total with
:func:`basic_composition`; the two are inverse to each other, so a split always composes
back to the total it came from.

====================  ==============================================  ==============================
function              rule                                            reference
====================  ==============================================  ==============================
basic_composition     Σε (pure); (Σε, Σδ) (approx); Σρ (zCDP);        Dwork & Roth 2014 Thm. 3.16;
                      √Σμ² (GDP); Σε(α) at a common α (RDP)           Bun & Steinke 2016 Lemma 2.3;
                                                                      Dong, Roth & Su 2022 Cor. 3.3;
                                                                      Mironov 2017 Prop. 1
advanced_composition  k-fold (ε, δ): ε′ = √(2k ln(1/δ′)) ε            Dwork, Rothblum & Vadhan 2010;
                      + k ε (e^ε − 1), δ_total = kδ + δ′ (never       Dwork & Roth 2014 Thm. 3.20
                      worse than basic: the min is returned)
parallel_composition  mechanisms on disjoint parts of the data: the   McSherry 2009; Chaudhuri
                      worst part                                      et al. 2024, Lemma A.5
====================  ==============================================  ==============================
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import overload

from privaudit.spec import check_delta, check_positive
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError
from privaudit.spec.guarantees import (
    ApproxDP,
    GaussianDP,
    PrivacyGuarantee,
    PureDP,
    RenyiDP,
    ZeroConcentratedDP,
)
from privaudit.spec.stable_values import round_up

__all__ = [
    "advanced_composition",
    "basic_composition",
    "parallel_composition",
    "split_budget",
]


def _as_list(guarantees: Iterable[PrivacyGuarantee]) -> list[PrivacyGuarantee]:
    items = list(guarantees)
    if not items:
        raise InvalidParameterError("composition needs at least one guarantee, got none")
    known = (PureDP, ApproxDP, ZeroConcentratedDP, GaussianDP, RenyiDP)
    for g in items:
        if not isinstance(g, known):
            raise InvalidParameterError(f"not a privacy guarantee: {g!r}")
    return items


def _epsilons(items: list[PrivacyGuarantee]) -> list[float]:
    """ε of each pure, approximate or Rényi guarantee (after :func:`_common_family`)."""
    epsilons = []
    for g in items:
        if not isinstance(g, (PureDP, ApproxDP, RenyiDP)):  # pragma: no cover - family checked
            raise UnsupportedCombinationError(f"{g!r} has no epsilon")
        epsilons.append(g.epsilon)
    return epsilons


def _mus(items: list[PrivacyGuarantee]) -> list[float]:
    """μ of each Gaussian-DP guarantee (after :func:`_common_family`)."""
    mus = []
    for g in items:
        if not isinstance(g, GaussianDP):  # pragma: no cover - family checked
            raise UnsupportedCombinationError(f"{g!r} is not a Gaussian-DP guarantee")
        mus.append(g.mu)
    return mus


def _alphas(items: list[PrivacyGuarantee]) -> list[float]:
    """The order α of each Rényi guarantee (the caller checked that all are Rényi)."""
    alphas = []
    for g in items:
        if not isinstance(g, RenyiDP):  # pragma: no cover - family checked
            raise UnsupportedCombinationError(f"{g!r} is not a Renyi guarantee")
        alphas.append(g.alpha)
    return alphas


def _common_family(items: list[PrivacyGuarantee], what: str) -> str:
    kinds = {g.kind for g in items}
    if kinds <= {"pure_dp", "approx_dp"}:
        return "approx" if "approx_dp" in kinds else "pure"
    if kinds == {"zcdp"} or kinds <= {"zcdp", "gdp", "pure_dp"} and "zcdp" in kinds:
        return "zcdp"
    if kinds == {"gdp"}:
        return "gdp"
    if kinds == {"renyi_dp"}:
        alphas = set(_alphas(items))
        if len(alphas) == 1:
            return "renyi"
        raise UnsupportedCombinationError(
            f"{what} of Renyi guarantees at different orders {sorted(alphas)} is not defined; "
            "state each at a common alpha"
        )
    raise UnsupportedCombinationError(
        f"{what} of {sorted(kinds)} has no lossless rule; convert explicitly first (for "
        "example with .to_approx_dp(delta) or pure_to_zcdp)"
    )


def _to_zcdp_rho(g: PrivacyGuarantee) -> float:
    if isinstance(g, ZeroConcentratedDP):
        return g.rho
    if isinstance(g, GaussianDP):
        return g.mu**2 / 2.0
    if isinstance(g, PureDP):
        return g.epsilon**2 / 2.0
    raise UnsupportedCombinationError(f"{g!r} has no zCDP form")  # pragma: no cover


@overload
def basic_composition(guarantees: Iterable[PureDP]) -> PureDP: ...
@overload
def basic_composition(guarantees: Iterable[PrivacyGuarantee]) -> PrivacyGuarantee: ...
def basic_composition(guarantees: Iterable[PrivacyGuarantee]) -> PrivacyGuarantee:
    """The guarantee of running every mechanism on the same data (adaptively is fine).

    Parameters
    ----------
    guarantees : iterable of PrivacyGuarantee
        Pure and approximate DP mix (the result is approximate unless all δ are 0); zCDP
        mixes with GDP and pure DP (through μ²/2 and ε²/2); GDP composes with GDP and RDP
        with RDP at the same order.  Other mixtures raise, rather than guess a δ.

    Returns
    -------
    PrivacyGuarantee

    Raises
    ------
    UnsupportedCombinationError
        For mixtures without a lossless rule.

    Examples
    --------
    >>> from privaudit.spec import PureDP
    >>> basic_composition([PureDP(epsilon=0.5), PureDP(epsilon=0.25)])
    PureDP(kind='pure_dp', epsilon=0.75)
    """
    items = _as_list(guarantees)
    family = _common_family(items, "basic composition")
    if family == "pure":
        return PureDP(epsilon=math.fsum(_epsilons(items)))
    if family == "approx":
        delta = math.fsum(getattr(g, "delta", 0.0) for g in items)
        return ApproxDP(epsilon=math.fsum(_epsilons(items)), delta=delta)
    if family == "zcdp":
        return ZeroConcentratedDP(rho=math.fsum(_to_zcdp_rho(g) for g in items))
    if family == "gdp":
        return GaussianDP(mu=math.sqrt(math.fsum(mu**2 for mu in _mus(items))))
    alpha = _alphas(items)[0]
    return RenyiDP(alpha=alpha, epsilon=math.fsum(_epsilons(items)))


def advanced_composition(guarantee: PureDP | ApproxDP, k: int, delta_slack: float) -> ApproxDP:
    """k-fold adaptive composition of one (ε, δ) guarantee (the advanced composition theorem).

    Parameters
    ----------
    guarantee : PureDP or ApproxDP
        The per-step guarantee.
    k : int
        Number of steps, k ≥ 1.
    delta_slack : float
        δ′ ∈ (0, 1) spent by the theorem.

    Returns
    -------
    ApproxDP
        (min(kε, √(2k ln(1/δ′))ε + kε(e^ε − 1)), kδ + δ′), the second term rounded up to
        the stable grid (:func:`spec.stable_values.round_up`).

    References
    ----------
    Dwork, Rothblum & Vadhan, "Boosting and differential privacy", FOCS 2010;
    Dwork & Roth 2014, Theorem 3.20.
    """
    if not isinstance(guarantee, (PureDP, ApproxDP)):
        raise UnsupportedCombinationError(
            f"advanced composition applies to pure or approximate DP, got {guarantee!r}"
        )
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidParameterError(f"k must be an integer >= 1, got {k!r}")
    slack = check_delta(delta_slack, "delta_slack")
    if slack <= 0:
        raise InvalidParameterError(f"delta_slack must be > 0, got {delta_slack!r}")
    eps = guarantee.epsilon
    delta = getattr(guarantee, "delta", 0.0)
    # libm's log and expm1 differ in the last bits between platforms: the stable grid
    advanced = round_up(
        math.sqrt(2.0 * k * math.log(1.0 / slack)) * eps + k * eps * math.expm1(eps)
    )
    total_delta = k * delta + slack
    if total_delta >= 1.0:
        raise InvalidParameterError(
            f"k*delta + delta_slack = {total_delta:g} >= 1: no meaningful guarantee"
        )
    return ApproxDP(epsilon=min(k * eps, advanced), delta=total_delta)


def parallel_composition(guarantees: Iterable[PrivacyGuarantee]) -> PrivacyGuarantee:
    """The guarantee of mechanisms run on disjoint parts of the data: the worst part.

    Valid when every neighbouring pair changes the input of at most one part (records
    under substitute-one or add/remove; the data-independent partition of Wrapper 1 in
    Chaudhuri et al. 2024, Lemma A.5).
    """
    items = _as_list(guarantees)
    family = _common_family(items, "parallel composition")
    if family == "pure":
        return PureDP(epsilon=max(_epsilons(items)))
    if family == "approx":
        return ApproxDP(
            epsilon=max(_epsilons(items)),
            delta=max(getattr(g, "delta", 0.0) for g in items),
        )
    if family == "zcdp":
        return ZeroConcentratedDP(rho=max(_to_zcdp_rho(g) for g in items))
    if family == "gdp":
        return GaussianDP(mu=max(_mus(items)))
    return RenyiDP(alpha=_alphas(items)[0], epsilon=max(_epsilons(items)))


@overload
def split_budget(total: PureDP, weights: Sequence[float]) -> tuple[PureDP, ...]: ...
@overload
def split_budget(
    total: PrivacyGuarantee, weights: Sequence[float]
) -> tuple[PrivacyGuarantee, ...]: ...
def split_budget(total: PrivacyGuarantee, weights: Sequence[float]) -> tuple[PrivacyGuarantee, ...]:
    """Split a total budget into parts in proportion to ``weights``.

    The parts compose back (:func:`basic_composition`) to ``total``: ε and δ are split
    linearly for pure and approximate DP, ρ for zCDP, μ² for GDP and ε(α) for RDP.

    Examples
    --------
    >>> from privaudit.spec import PureDP
    >>> [g.epsilon for g in split_budget(PureDP(epsilon=1.0), [1, 1])]
    [0.5, 0.5]
    """
    ws = [check_positive(w, "weight") for w in weights]
    if not ws:
        raise InvalidParameterError("split_budget needs at least one weight, got none")
    s = math.fsum(ws)
    fr = [w / s for w in ws]
    if isinstance(total, PureDP):
        return tuple(PureDP(epsilon=total.epsilon * f) for f in fr)
    if isinstance(total, ApproxDP):
        return tuple(ApproxDP(epsilon=total.epsilon * f, delta=total.delta * f) for f in fr)
    if isinstance(total, ZeroConcentratedDP):
        return tuple(ZeroConcentratedDP(rho=total.rho * f) for f in fr)
    if isinstance(total, GaussianDP):
        return tuple(GaussianDP(mu=total.mu * math.sqrt(f)) for f in fr)
    if isinstance(total, RenyiDP):
        return tuple(RenyiDP(alpha=total.alpha, epsilon=total.epsilon * f) for f in fr)
    raise InvalidParameterError(f"not a privacy guarantee: {total!r}")
