"""Soundness runs: how often does the auditor flag mechanisms that meet their claims?

Used by the quality tests (a fast subset) and by ``scripts/soundness_run.py`` (≥ 200
audits).  Each audit of a correct mechanism reports a violation with probability at most
α = 1 − confidence; the run reports the observed rate with its exact Clopper–Pearson
upper bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from privaudit.auditing.auditor import audit
from privaudit.auditing.config import AuditConfig
from privaudit.mechanisms import (
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponseMechanism,
)
from privaudit.statistics import clopper_pearson

__all__ = [
    "CORRECT_BLACK_BOX_MECHANISMS",
    "CORRECT_DELTA_MECHANISMS",
    "CORRECT_FINITE_MECHANISMS",
    "CORRECT_MECHANISMS",
    "SoundnessResult",
    "soundness_run",
]

#: Correct mechanisms of the soundness run (name, factory).
CORRECT_MECHANISMS: tuple[tuple[str, Callable[[], Mechanism]], ...] = (
    ("laplace(eps=1)", lambda: LaplaceMechanism(1.0, 1.0)),
    ("analytic_gaussian(eps=1, delta=1e-5)", lambda: GaussianMechanism(1.0, 1e-5, 1.0)),
    ("randomized_response(eps=1, k=4)", lambda: RandomizedResponseMechanism(1.0, categories=4)),
    ("discrete_laplace(eps=1)", lambda: DiscreteLaplaceMechanism(1.0, 1)),
)


def _rare_raw_mean() -> Mechanism:
    from privaudit.suites.broken import RareRawMean

    return RareRawMean(delta=1e-5, p=5e-6)


def _fallback_mean() -> Mechanism:
    from privaudit.suites.broken import NoiselessFallbackMean

    return NoiselessFallbackMean(delta=1e-5, cutoff=math.log(1e6))


def _clamp_mean() -> Mechanism:
    from privaudit.suites.broken import LeakyClampMean

    return LeakyClampMean(delta=1e-5, cutoff=math.log(1e6))


#: Correct (ε, δ) mechanisms for the rare-event detection's false alarms: Gaussian laws
#: and three leaks *within* the claimed δ = 10⁻⁵ (a raw branch of probability 5·10⁻⁶;
#: a noiseless fallback and a noise clamp that fire with probability 10⁻⁶, each
#: (1, ≤ 2·10⁻⁶)-DP: the atom plus the Laplace mass in the Δ-wide strip one neighbour
#: clamps and the other does not).
CORRECT_DELTA_MECHANISMS: tuple[tuple[str, Callable[[], Mechanism]], ...] = (
    ("analytic_gaussian(eps=1, delta=1e-5)", lambda: GaussianMechanism(1.0, 1e-5, 1.0)),
    (
        "classical_gaussian(eps=0.5, delta=1e-5)",
        lambda: GaussianMechanism(0.5, 1e-5, 1.0, calibration="classical"),
    ),
    ("discrete_gaussian(eps=1, delta=1e-5)", lambda: DiscreteGaussianMechanism(1.0, 1e-5, 1)),
    ("raw branch p=5e-6 (delta=1e-5)", _rare_raw_mean),
    ("noiseless fallback p=1e-6 (delta=1e-5)", _fallback_mean),
    ("noise clamp p=1e-6 (delta=1e-5)", _clamp_mean),
)


def _dpsniper(name: str, **parameters: float) -> Callable[[], Mechanism]:
    def make() -> Mechanism:
        from privaudit.suites import _dpsniper_mechanisms, _dpsniper_svt

        module = _dpsniper_svt if hasattr(_dpsniper_svt, name) else _dpsniper_mechanisms
        mechanism: Mechanism = getattr(module, name)(**parameters)
        return mechanism

    return make


#: Correct black boxes (no declared output law, no statistic hook), so that the audit
#: chooses its pairs by the pilot search and successive halving, near ties included
#: (``AuditConfig.pair_tolerance``): DP-Sniper's mechanisms whose true ε equals the claim,
#: at ε = 1 so that a test at 2·10⁴ outputs per side comes close to the claim (at DP-Sniper's
#: ε = 0.1 it could not, and no false violation would be possible): two noisy maxima
#: (Laplace and exponential noise) and two sparse vectors (finite and numerical outputs).
CORRECT_BLACK_BOX_MECHANISMS: tuple[tuple[str, Callable[[], Mechanism]], ...] = (
    ("dpsniper.ReportNoisyMax1 (eps=1)", _dpsniper("ReportNoisyMax1", epsilon=1.0)),
    (
        "dpsniper.SparseVectorTechnique1 (eps=1)",
        _dpsniper("SparseVectorTechnique1", epsilon=1.0),
    ),
    ("dpsniper.NumericalSVT (eps=1)", _dpsniper("NumericalSVT", epsilon=1.0)),
    ("dpsniper.ReportNoisyMax2 (eps=1)", _dpsniper("ReportNoisyMax2", epsilon=1.0)),
)


def _registered(name: str) -> Mechanism:
    from privaudit.trust.registry import entry

    return entry(name).create()


def _hadamard_c(alpha: int, epsilon: float) -> Mechanism:
    from privaudit.estimators.local_ustatistics import HadamardRandomizerMechanism

    return HadamardRandomizerMechanism(alpha, epsilon, "C")


#: Correct finite randomizers whose declared output law is a product of several
#: coordinates: the sampling audit plans their Neyman–Pearson events from the exact
#: convolved loss law (:mod:`~privaudit.auditing.distinguish.product_loss`).
CORRECT_FINITE_MECHANISMS: tuple[tuple[str, Callable[[], Mechanism]], ...] = (
    ("local_ustat.hr.C (alpha=5, eps=1)", lambda: _registered("local_ustat.hr.C")),
    ("hadamard variant C (alpha=3, eps=2)", lambda: _hadamard_c(3, 2.0)),
    ("local_ustat.2pc.discrete (P=2, eps=1)", lambda: _registered("local_ustat.2pc.discrete")),
)


@dataclass(frozen=True)
class SoundnessResult:
    """Outcome of a soundness run."""

    audits: int
    false_violations: int
    per_mechanism: dict[str, int]
    confidence: float
    #: Audits whose distinguishing test tested more pairs than ``pairs_tested`` (near ties
    #: of the robust pair choice), per mechanism.
    near_ties: dict[str, int] | None = None
    #: Audits whose distinguishing test gave a kept slot to the generator's prior pair
    #: (:data:`~privaudit.auditing.choice.halving.PRIOR_ORIGIN`), per mechanism.
    prior_pairs: dict[str, int] | None = None

    @property
    def rate(self) -> float:
        """Observed false-violation rate."""
        return self.false_violations / self.audits

    @property
    def rate_upper_bound(self) -> float:
        """One-sided 95 % Clopper–Pearson upper bound on the false-violation rate."""
        return clopper_pearson(self.false_violations, self.audits, 0.90).high

    def summary(self) -> str:
        """One line per mechanism plus the total."""
        ties, priors = self.near_ties or {}, self.prior_pairs or {}
        lines = [
            f"{name:40s} {count} false violations"
            + (f"; {ties[name]} audits tested near ties" if name in ties else "")
            + (f"; {priors[name]} tested the prior pair" if priors.get(name) else "")
            for name, count in self.per_mechanism.items()
        ]
        lines.append(
            f"total: {self.false_violations}/{self.audits} = {self.rate:.3%} "
            f"(95% CP upper bound {self.rate_upper_bound:.3%}; nominal "
            f"{1 - self.confidence:.0%})"
        )
        return "\n".join(lines)


def soundness_run(
    audits_per_mechanism: int,
    *,
    config: AuditConfig,
    first_seed: int = 0,
    mechanisms: Sequence[tuple[str, Callable[[], Mechanism]]] = CORRECT_MECHANISMS,
) -> SoundnessResult:
    """Audit each correct mechanism ``audits_per_mechanism`` times with consecutive seeds.

    ``mechanisms`` defaults to :data:`CORRECT_MECHANISMS`; :data:`CORRECT_DELTA_MECHANISMS`
    holds (ε, δ) mechanisms, some with rare atoms within their claimed δ, and
    :data:`CORRECT_FINITE_MECHANISMS` finite product randomizers (exact audit mode).
    """
    per: dict[str, int] = {}
    ties: dict[str, int] = {}
    priors: dict[str, int] = {}
    total = 0
    for name, factory in mechanisms:
        count = tied = prior = 0
        for i in range(audits_per_mechanism):
            report = audit(factory(), config=config, seed=first_seed + i)
            count += int(report.violated)
            tested = _distinguishing_detail(report, "pairs_tested")
            tied += int(tested is not None and int(tested) > config.pairs_tested)
            prior += int(bool(_distinguishing_detail(report, "prior_pair")))
            total += 1
        per[name] = count
        ties[name] = tied
        priors[name] = prior
    return SoundnessResult(
        audits=total,
        false_violations=sum(per.values()),
        per_mechanism=per,
        confidence=config.confidence,
        near_ties=ties,
        prior_pairs=priors,
    )


def _distinguishing_detail(report: object, key: str) -> Any:
    """A detail of the report's distinguishability check (None without that check or key)."""
    for check in getattr(report, "checks", ()):
        if check.name == "distinguishability":
            return check.details.get(key)
    return None
