"""Is a certificate consistent with itself?  The checks ``privaudit verify`` starts with.

Anyone can edit a JSON file, so before a certificate is trusted :func:`check_consistency`
requires that the verdict agrees with the checks, the ε lower bound (and the profile) stay
within the claim, the embedded report agrees with the top-level fields, and the
configuration meets :data:`privaudit.auditing.config.CERTIFICATE_MINIMUMS`.  These checks
need no code; re-running the audit is :func:`privaudit.trust.verify.verify_certificate`'s.
This module imports nothing of :mod:`privaudit.trust.certificates` (which imports it).

Details: ``docs/engine_notes.md``, "privaudit.trust.consistency".
"""

from __future__ import annotations

import math
from typing import Any

from privaudit.auditing.config import below_certificate_minimums
from privaudit.spec import SpecModel
from privaudit.statistics import claimed_point

__all__ = ["ConsistencyResult", "check_consistency"]


class ConsistencyResult(SpecModel):
    """The outcome of :func:`check_consistency`.

    Attributes
    ----------
    problems : tuple of str
        One sentence per contradiction found, naming the fields and values (empty when
        the certificate is consistent).
    report_checked : bool
        Whether an embedded report was there to compare with the top-level fields.
    """

    problems: tuple[str, ...] = ()
    report_checked: bool = False

    @property
    def consistent(self) -> bool:
        """True when no contradiction was found."""
        return not self.problems

    @property
    def reason(self) -> str:
        """One readable line: the problems, or what was checked."""
        if self.problems:
            return "inconsistent certificate: " + "; ".join(self.problems)
        return (
            "verdict, checks, ε bound, claim, configuration"
            + (" and embedded report" if self.report_checked else "")
            + " agree"
        )

    def __str__(self) -> str:
        return self.reason


def _same(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0)


def _verdict_problems(cert: Any) -> list[str]:
    problems = []
    violated = [c.name for c in cert.checks if c.status == "violated"]
    if cert.verdict == "violation":
        problems.append("the verdict is 'violation', and a violation is never certified")
        if not violated:
            problems.append("the verdict is 'violation' but no check is violated")
    elif violated:
        problems.append(
            f"the verdict is {cert.verdict!r} but check(s) {', '.join(violated)} are violated"
        )
    return problems


def _bound_problems(cert: Any) -> list[str]:
    problems = []
    if cert.verdict != "violation" and not cert.epsilon_lower_bound <= cert.epsilon_claimed:
        problems.append(
            f"epsilon_lower_bound = {cert.epsilon_lower_bound:g} exceeds "
            f"epsilon_claimed = {cert.epsilon_claimed:g} under verdict "
            f"{cert.verdict!r}"
        )
    eps, delta = claimed_point(cert.spec.guarantee)
    if not (_same(cert.epsilon_claimed, eps) and _same(cert.delta_claimed, delta)):
        problems.append(
            f"the recorded claim (epsilon_claimed = {cert.epsilon_claimed:g}, "
            f"delta_claimed = {cert.delta_claimed:g}) is not the spec's "
            f"(epsilon = {eps:g}, delta = {delta:g})"
        )
    if cert.verdict != "violation":
        over = [p for p in cert.privacy_profile if p.delta_lower_bound > p.delta_claimed]
        if over:
            p = over[0]
            problems.append(
                f"{len(over)} privacy-profile point(s) exceed the claim (at "
                f"epsilon = {p.epsilon:g}: delta lower bound "
                f"{p.delta_lower_bound:g} > claimed {p.delta_claimed:g})"
            )
    return problems


def _report_problems(cert: Any) -> list[str]:
    report = cert.report
    if report is None:
        return []
    problems = []
    pairs: list[tuple[str, Any, Any]] = [
        ("mechanism", cert.mechanism, report.mechanism),
        ("spec_hash", cert.spec_hash, report.spec_hash),
        ("spec", cert.spec.content_hash, report.spec.content_hash),
        ("config", cert.config, report.config),
        ("verdict", cert.verdict, report.verdict),
        (
            "checks",
            tuple((c.name, c.status, c.summary) for c in cert.checks),
            tuple((c.name, c.status, c.summary) for c in report.checks),
        ),
        ("privacy_profile", cert.privacy_profile, report.privacy_profile),
        ("power", cert.power, report.power),
    ]
    if report.versions:
        pairs.append(("versions", cert.versions, report.versions))
    for field, top, embedded in pairs:
        if top != embedded:
            problems.append(f"{field} differs from the embedded report's")
    for field in ("epsilon_lower_bound", "epsilon_claimed", "delta_claimed"):
        top, embedded = getattr(cert, field), getattr(report, field)
        if not _same(top, embedded):
            problems.append(f"{field} = {top:g} but the embedded report has {embedded:g}")
    if report.samples != cert.config.samples or report.seed != cert.config.seed:
        problems.append(
            f"the embedded report ran {report.samples} samples with seed "
            f"{report.seed}, its configuration says {cert.config.samples} with "
            f"seed {cert.config.seed}"
        )
    return problems


def check_consistency(cert: Any) -> ConsistencyResult:
    """Check that ``cert``'s recorded results agree with each other (see module docs).

    Returns
    -------
    ConsistencyResult
        ``consistent`` is True when nothing contradicts; ``problems`` names each
        contradiction otherwise.
    """
    problems = _verdict_problems(cert) + _bound_problems(cert) + _report_problems(cert)
    weak = below_certificate_minimums(cert.config)
    if weak:
        problems.append(
            "the configuration is below the certificate minimums (" + "; ".join(weak) + ")"
        )
    if cert.explicit_pairs < 0:
        problems.append(f"explicit_pairs = {cert.explicit_pairs} is negative")
    return ConsistencyResult(problems=tuple(problems), report_checked=cert.report is not None)
