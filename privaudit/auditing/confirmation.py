"""Two-stage audits for test suites: a CI-strength screen, then an independent confirmation.

A violation found only by statistical checks is re-tested by a second audit on an
independent stream (:func:`confirmation_seed`), with more samples, at level
``session_alpha / suite_size``; the test fails only when both stages find it.  A session of
at most ``suite_size`` audits of correct mechanisms then fails with probability at most
``session_alpha``.  A violation found by a deterministic check is not re-tested.

Details: ``docs/engine_notes.md``, "privaudit.auditing.confirmation";
``docs/ci_false_alarms.md``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from privaudit.spec.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from privaudit.auditing.config import AuditConfig
    from privaudit.auditing.outcome.report import AuditReport

__all__ = [
    "ConfirmationPolicy",
    "TwoStageAudit",
    "confirmation_seed",
    "screened_audit",
]

_SEED_BITS = 32


def confirmation_seed(seed: int) -> int:
    """The seed of the confirmation stage of an audit seeded with ``seed``.

    The first 32 bits of the SHA-256 of ``"privaudit confirmation:<seed>"``: a different
    root of :class:`numpy.random.SeedSequence`, hence a stream independent of the
    screen's, and the same on every machine (``--privaudit-seed S`` reproduces both).

    Examples
    --------
    >>> confirmation_seed(0) != 0 and confirmation_seed(0) == confirmation_seed(0)
    True
    """
    digest = hashlib.sha256(f"privaudit confirmation:{int(seed)}".encode()).digest()
    return int.from_bytes(digest[: _SEED_BITS // 8], "big")


@dataclass(frozen=True)
class ConfirmationPolicy:
    """How a screened violation is confirmed before a test fails.

    Parameters
    ----------
    session_alpha : float
        Probability, in (0, 1), that a session of ``suite_size`` audits of correct
        mechanisms fails at all (default 0.01).
    suite_size : int
        Number of audits the bound covers (default 50).  The plugin uses the larger of
        this and the number of collected tests that audit.
    sample_factor : int
        The confirmation draws this many times the screen's samples per side (default 4).
    enabled : bool
        False: the screen's verdict is final (per-test control only).

    Raises
    ------
    InvalidParameterError
        If a value is out of range.
    """

    session_alpha: float = 0.01
    suite_size: int = 50
    sample_factor: int = 4
    enabled: bool = True

    def __post_init__(self) -> None:
        if not (0.0 < self.session_alpha < 1.0) or not math.isfinite(self.session_alpha):
            raise InvalidParameterError(
                f"session_alpha must be in (0, 1), got {self.session_alpha!r}"
            )
        for name in ("suite_size", "sample_factor"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidParameterError(f"{name} must be an integer >= 1, got {value!r}")

    @property
    def alpha(self) -> float:
        """Family-wise level of one confirmation: ``session_alpha / suite_size``."""
        return self.session_alpha / self.suite_size

    @property
    def confidence(self) -> float:
        """Confidence of one confirmation: ``1 − session_alpha / suite_size``."""
        return 1.0 - self.alpha


@dataclass(frozen=True)
class TwoStageAudit:
    """The screen and (when it ran) the confirmation of one audit.

    Attributes
    ----------
    screening : AuditReport
        The audit as configured (CI strength).
    confirmation : AuditReport or None
        The independent re-test of a statistical violation; ``None`` when the screen
        found none, when a deterministic check refuted the claim, or when confirmation is
        disabled.
    policy : ConfirmationPolicy
    reason : str
        Why the confirmation ran or did not.
    """

    screening: AuditReport
    confirmation: AuditReport | None
    policy: ConfirmationPolicy
    reason: str

    @property
    def final(self) -> AuditReport:
        """The report whose verdict stands: the confirmation's when it ran."""
        return self.confirmation if self.confirmation is not None else self.screening

    @property
    def confirmed(self) -> bool:
        """True when the final verdict is a violation."""
        return self.final.violated

    def stage_lines(self) -> list[str]:
        """One line per stage: seed, samples, confidence, verdict and ε lower bound."""
        lines = [f"  stage 1 (screen): {_stage(self.screening)}"]
        if self.confirmation is None:
            lines.append(f"  stage 2 (confirmation): not run ({self.reason})")
        else:
            lines.append(
                f"  stage 2 (confirmation, independent stream, level "
                f"{self.policy.session_alpha:g}/{self.policy.suite_size} = "
                f"{self.policy.alpha:.3g}): {_stage(self.confirmation)}"
            )
        return lines


def _stage(report: AuditReport) -> str:
    eps = report.epsilon_lower_bound
    shown = "inf" if math.isinf(eps) else f"{eps:.4g}"
    return (
        f"{report.verdict_text}, ε lower bound {shown} (seed {report.seed}, "
        f"{report.samples} samples per side, confidence {report.confidence:.6g})"
    )


def _statistical_only(report: AuditReport) -> bool:
    return all(c.error_rate > 0.0 for c in report.violations)


def _counterexample_pairs(report: AuditReport, mechanism: Any) -> list[tuple[Any, Any]]:
    """The screen's counterexample pairs that the relation accepts, without repeats."""
    spec = mechanism.spec
    found: list[tuple[Any, Any]] = []
    seen: set[str] = set()
    for check in report.violations:
        ce = check.counterexample
        if ce is None or ce.x is None or ce.y is None:
            continue
        key = repr((ce.x, ce.y))
        if key in seen:
            continue
        try:
            related = spec.relation.decide(ce.x, ce.y, spec.input_domain).is_neighbour
        except Exception:  # noqa: BLE001 - a stored form the relation cannot read is skipped
            related = False
        if related:
            seen.add(key)
            found.append((ce.x, ce.y))
    return found


def screened_audit(
    mechanism: Any,
    *,
    config: AuditConfig,
    pairs: Sequence[tuple[Any, Any]] = (),
    policy: ConfirmationPolicy | None = None,
    executor: Any = None,
    **overrides: Any,
) -> TwoStageAudit:
    """Audit ``mechanism``; confirm a statistical violation on an independent stream.

    Parameters
    ----------
    mechanism : Mechanism
    config : AuditConfig
        The screen's configuration (``overrides`` replace single fields, as in
        :func:`privaudit.audit`).
    pairs : sequence of (x, y)
        Explicit neighbouring pairs, tested first by both stages.
    policy : ConfirmationPolicy, optional
        Default :class:`ConfirmationPolicy()` (1 % for a session of 50 audits).
    executor : optional
        Passed to :func:`privaudit.audit`.

    Returns
    -------
    TwoStageAudit
    """
    from privaudit.auditing.auditor import audit

    policy = policy if policy is not None else ConfirmationPolicy()
    screen_config = config.merged(overrides)
    screening = audit(mechanism, config=screen_config, pairs=pairs, executor=executor)
    if not screening.violated:
        return TwoStageAudit(screening, None, policy, "the screen found no violation")
    if not policy.enabled:
        return TwoStageAudit(screening, None, policy, "confirmation disabled")
    if not _statistical_only(screening):
        return TwoStageAudit(
            screening, None, policy, "a deterministic check (error rate 0) refuted the claim"
        )
    confirm_config = screen_config.merged(
        {
            "seed": confirmation_seed(screening.seed),
            "samples": screen_config.samples * policy.sample_factor,
            "confidence": max(policy.confidence, screen_config.confidence),
        }
    )
    confirm_pairs = [*pairs, *_counterexample_pairs(screening, mechanism)]
    confirmation = audit(mechanism, config=confirm_config, pairs=confirm_pairs, executor=executor)
    return TwoStageAudit(
        screening, confirmation, policy, "the screen's violation came from statistical checks only"
    )
