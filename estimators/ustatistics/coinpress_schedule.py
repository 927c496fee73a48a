"""The public schedule of Algorithms A.2/A.3 (U-Stat Mean / U-Stat One Step, CoinPress).

Algorithm A.2 of Chaudhuri, Loh, Pandey & Sarkar (2024) refines a public interval
[−R, R] ∋ θ in t steps and then releases the centre of a last interval.  Each step
(Algorithm A.3) clips the family's kernel values Y_j = h(X_{S_j}) to the current interval
widened by Q(β), adds Laplace noise to their mean and re-centres a narrower interval on
the noisy mean.  Every interval *length* is a function of public quantities only (by
induction), so each step's sensitivity is public:

    Δ_i = dep(𝔽)·(r_{i−1} − l_{i−1} + 2Q(β_i)),   half-length_i = Q_avg(β_i) + (Δ_i/ε_i) ln(1/β_i),

with (ε_i, β_i) = (ε/(2t), γ/t) for i = 1..t and (ε/2, γ) for the final step i = t + 1, so
the release is ε-DP by basic composition (Theorem A.1).  This module computes that
schedule; :mod:`.coinpress` runs it on data.

Choices (``docs/derivations.md`` §5, choice 3):

* t = max(1, ⌈log₂(R/Q(γ))⌉) (each refinement halves the interval while it is longer
  than 28Q(γ));
* dep(𝔽) = max_i f_i is computed exactly from the family (not from its w.h.p. bound);
* Q and Q_avg are the sub-Gaussian confidence bounds of Propositions A.1, 1 and A.2 (Chaudhuri et
  al. 2024) for the family kind, with the public variance proxy τ:

  ============  ==============================  ==========================================
  family        Q(β)                            Q_avg(β)
  ============  ==============================  ==========================================
  naive         √(2τ ln(2m/β)), m = ⌊n/k⌋       √(2τ ln(2/β)/m)
  all-tuples    √(2τ ln(2C(n,k)/β))             √(2τ ln(2/β)/⌊n/k⌋) (Lemma A.3)
  subsampled    √(2τ ln(4C(n,k)/β))             4√(τk ln(4n/β)/min(M, n)) (rebuilt)
  ============  ==============================  ==========================================

  Q and Q_avg only affect accuracy: privacy holds for any public values.
* The two conditions of Theorem A.1 — dep(𝔽) ≤ Q(γ)ε/(10 t Q(γ/t) ln(t/γ)) and
  Q_avg(γ/t) < Q(γ) — are data-independent; :func:`coinpress_schedule` reports them and
  warns (:class:`~spec.errors.UtilityConditionWarning`) when one fails.

References
----------
.. [1] Chaudhuri et al., NeurIPS 2024, Algorithms A.2–A.3, Theorem A.1, Propositions 1,
   A.1, A.2, Lemmas A.3 and A.8.
.. [2] Biswas, Dong, Kamath & Ullman, "CoinPress: practical private mean and covariance
   estimation", NeurIPS 2020.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
import numpy.typing as npt

from privaudit.mechanisms.composition import basic_composition
from privaudit.spec import PrivacyGuarantee, PureDP
from privaudit.spec.errors import InvalidParameterError, SampleSizeError, UtilityConditionWarning
from privaudit.spec.stable_values import round_up

from ._parameters import (
    check_count,
    check_epsilon,
    check_failure_probability,
    check_positive,
    log_binomial,
)

__all__ = [
    "CoinPressSchedule",
    "FamilyKind",
    "coinpress_schedule",
    "concentration_bound",
    "mean_concentration_bound",
]

FamilyKind = Literal["naive", "all", "subsampled"]
"""The three families of Propositions A.1, 1 and A.2 (Chaudhuri et al. 2024)."""


def _kind(value: str) -> FamilyKind:
    if value not in ("naive", "all", "subsampled"):
        raise InvalidParameterError(
            f"family kind must be 'naive', 'all' or 'subsampled', got {value!r}"
        )
    return cast(FamilyKind, value)  # one of the three, checked just above


def concentration_bound(
    beta: float, *, kind: FamilyKind, n: int, degree: int, tau: float, family_size: int
) -> float:
    """Q(β): P(max_j |Y_j − θ| > Q(β)) < β for a subG(τ) kernel (Propositions A.1, 1, A.2).

    Parameters
    ----------
    beta : float
        Confidence level β ∈ (0, 1).
    kind : {"naive", "all", "subsampled"}
        The family.
    n, degree : int
        Records and kernel degree k.
    tau : float
        The public variance proxy τ > 0.
    family_size : int
        M = |𝔽| (used by the subsampled Q_avg only; kept here for a uniform signature).

    Returns
    -------
    float
    """
    b = check_failure_probability(beta, "beta")
    t = check_positive(tau, "tau")
    k_ = _kind(kind)
    if k_ == "naive":
        log_count = math.log(2.0 * (n // degree))
    elif k_ == "all":
        log_count = math.log(2.0) + log_binomial(n, degree)
    else:
        log_count = math.log(4.0) + log_binomial(n, degree)
    return math.sqrt(2.0 * t * (log_count - math.log(b)))


def mean_concentration_bound(
    beta: float, *, kind: FamilyKind, n: int, degree: int, tau: float, family_size: int
) -> float:
    """Q_avg(β): P(|(1/m)Σ_j Y_j − θ| > Q_avg(β)) < β (Propositions A.1, 1, A.2)."""
    b = check_failure_probability(beta, "beta")
    t = check_positive(tau, "tau")
    k_ = _kind(kind)
    blocks = n // degree
    if k_ in ("naive", "all"):
        return math.sqrt(2.0 * t * math.log(2.0 / b) / blocks)
    return 4.0 * math.sqrt(t * degree * math.log(4.0 * n / b) / min(family_size, n))


@dataclass(frozen=True, slots=True)
class CoinPressSchedule:
    """Every public number of one run of Algorithm A.2.

    Attributes
    ----------
    kind : {"naive", "all", "subsampled"}
        The family.
    radius : float
        R, with |θ| < R (public).
    steps : int
        t, the number of refinement steps (the release has t + 1 Laplace steps).
    dependence : float
        dep(𝔽) = max_i f_i, computed exactly.
    epsilons : tuple of float
        ε_i: t times ε/(2t), then ε/2.
    confidences : tuple of float
        β_i: t times γ/t, then γ.
    margins : tuple of float
        Q(β_i), the widening of the clipping interval at step i.
    sensitivities : tuple of float
        Δ_i = dep(𝔽)·(length of the interval before step i + 2Q(β_i)).
    laplace_scales : tuple of float
        Δ_i/ε_i.
    half_lengths : tuple of float
        Half-length of the interval before each step: R, then Q_avg(β_i) + (Δ_i/ε_i) ln(1/β_i).
    final_half_length : float
        Half-length of the final interval around the release, Q_avg(γ) + (Δ_{t+1}/ε_{t+1})
        ln(1/γ): with probability ≥ 1 − 6γ it contains θ (Theorem A.1), so it bounds the
        error of the release.
    dependence_condition, mean_condition : bool
        The two conditions of Theorem A.1 (accuracy only).
    guarantee : PureDP
        basic_composition of the t + 1 steps' ε_i-DP guarantees (= ε).
    """

    kind: FamilyKind
    radius: float
    steps: int
    dependence: float
    epsilons: tuple[float, ...]
    confidences: tuple[float, ...]
    margins: tuple[float, ...]
    sensitivities: tuple[float, ...]
    laplace_scales: tuple[float, ...]
    half_lengths: tuple[float, ...]
    final_half_length: float
    dependence_condition: bool
    mean_condition: bool
    guarantee: PrivacyGuarantee

    def clip_bounds(self, step: int, centres: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """The clipping interval [l − Q(β_i), r + Q(β_i)] of step ``step`` (0-based)."""
        c = np.asarray(centres, dtype=np.float64)
        reach = self.half_lengths[step] + self.margins[step]
        return c - reach, c + reach


def coinpress_schedule(
    *,
    epsilon: float,
    radius: float,
    tau: float,
    kind: FamilyKind,
    n: int,
    degree: int,
    dependence: float,
    family_size: int,
    gamma: float = 0.01,
    warn: bool = True,
) -> CoinPressSchedule:
    """The public schedule of Algorithm A.2 (see the module docstring).

    Parameters
    ----------
    epsilon : float
        The total privacy parameter ε > 0 (the release is ε-DP).
    radius : float
        R > 0 with |θ| < R, public.
    tau : float
        The public variance proxy τ > 0 of the kernel (h(X_S) ~ subG(τ)).
    kind : {"naive", "all", "subsampled"}
        The family kind (selects Q and Q_avg).
    n, degree : int
        Records and kernel degree k ≤ n/2 (Setting 1).
    dependence : float
        dep(𝔽) ∈ (0, 1], computed exactly from the family.
    family_size : int
        M = |𝔽|.
    gamma : float
        The failure probability γ ∈ (0, 1) of the accuracy statement (default 0.01, as
        inside Wrapper 1).
    warn : bool
        Warn when a condition of Theorem A.1 fails.

    Returns
    -------
    CoinPressSchedule

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range, or k > n/2.
    """
    eps = check_epsilon(epsilon)
    r = check_positive(radius, "radius R")
    tau_ = check_positive(tau, "tau")
    kind_ = _kind(kind)
    size, k = check_count(n, "n"), check_count(degree, "degree k")
    if 2 * k > size:
        raise SampleSizeError(f"Algorithm A.2 needs k <= n/2, got n={size}, k={k}")
    dep = check_positive(dependence, "dependence dep(F)")
    if dep > 1.0:
        raise InvalidParameterError(f"dependence dep(F) must be <= 1, got {dependence!r}")
    m = check_count(family_size, "family size M")
    g = check_failure_probability(gamma, "gamma")

    def bound(beta: float) -> float:
        return concentration_bound(beta, kind=kind_, n=size, degree=k, tau=tau_, family_size=m)

    def mean_bound(beta: float) -> float:
        return mean_concentration_bound(beta, kind=kind_, n=size, degree=k, tau=tau_, family_size=m)

    q_gamma = bound(g)
    steps = max(1, math.ceil(math.log2(r / q_gamma)))
    epsilons = (eps / (2.0 * steps),) * steps + (eps / 2.0,)
    confidences = (g / steps,) * steps + (g,)
    margins, sens, scales, halves = [], [], [], [r]
    for e_i, b_i in zip(epsilons, confidences, strict=True):
        q_i = bound(b_i)
        # the declared sensitivity (libm's log and sqrt in Q): up to the stable grid, so
        # that the spec is the same on every CPU; the clip interval stays 2(h + q_i) wide
        delta_i = round_up(dep * (2.0 * halves[-1] + 2.0 * q_i))
        margins.append(q_i)
        sens.append(delta_i)
        scales.append(delta_i / e_i)
        # a public half-length (a larger one keeps the coverage), printed in specs' notes
        halves.append(round_up(mean_bound(b_i) + (delta_i / e_i) * math.log(1.0 / b_i)))
    q_step = bound(g / steps)
    dep_ok = dep <= q_gamma * eps / (10.0 * steps * q_step * math.log(steps / g))
    mean_ok = mean_bound(g / steps) < q_gamma
    guarantee = basic_composition([PureDP(epsilon=e) for e in epsilons])
    if warn and not (dep_ok and mean_ok):
        failed = []
        if not dep_ok:
            failed.append(f"dep(F) = {dep:.4g} > Q(gamma) eps/(10 t Q(gamma/t) ln(t/gamma))")
        if not mean_ok:
            failed.append("Q_avg(gamma/t) >= Q(gamma)")
        warnings.warn(
            UtilityConditionWarning(
                f"Theorem A.1's conditions fail for the {kind_} family (n={size}, k={k}, "
                f"epsilon={eps:g}, tau={tau_:g}, R={r:g}): {'; '.join(failed)}; the accuracy "
                "bound does not apply (privacy is unaffected)"
            ),
            stacklevel=2,
        )
    return CoinPressSchedule(
        kind=kind_,
        radius=r,
        steps=steps,
        dependence=dep,
        epsilons=epsilons,
        confidences=confidences,
        margins=tuple(margins),
        sensitivities=tuple(sens),
        laplace_scales=tuple(scales),
        half_lengths=tuple(halves[:-1]),
        final_half_length=halves[-1],
        dependence_condition=bool(dep_ok),
        mean_condition=bool(mean_ok),
        guarantee=guarantee,
    )
