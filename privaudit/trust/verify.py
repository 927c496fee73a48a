"""Verifying a certificate: consistent, current, and reproduced by re-running its audit.

:func:`verify_certificate` checks **consistency**
(:func:`privaudit.trust.consistency.check_consistency`), **code identity** (the spec and
implementation hashes match the mechanism rebuilt from the certificate's ``source``) and
**reproduction**: the audit is run again with the recorded configuration and seed, and must
give bit-identical results with the same versions, or agree by the tolerance rule
(:func:`statistical_tolerance`) with other versions or a mechanism that is not reproducible.
A certificate is not a signature, and a passed audit is not a proof of privacy.

Details (the tolerance rule): ``docs/engine_notes.md``, "privaudit.trust.verify";
``docs/trust.md``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from privaudit.auditing.outcome.report import AuditReport
from privaudit.auditing.outcome.texts import format_epsilon
from privaudit.mechanisms import Mechanism
from privaudit.spec import SpecModel
from privaudit.spec.errors import CertificateError, PrivauditError
from privaudit.trust.certificates import Certificate, CertificateStatus, load_certificate
from privaudit.trust.consistency import ConsistencyResult, check_consistency

__all__ = [
    "REPRODUCTION_TOLERANCE",
    "REPRODUCTION_Z",
    "VerificationResult",
    "VerificationState",
    "rebuild",
    "statistical_tolerance",
    "verify_certificate",
    "verify_path",
]

#: (absolute, relative) floor of the tolerance on ε bounds when versions differ.
REPRODUCTION_TOLERANCE = (0.02, 0.05)
#: z of the statistical part of the tolerance: two independent replicates of the same
#: event's log-ratio estimate differ by more than z·√2·se with probability 0.1 %
#: (normal approximation, two-sided).
REPRODUCTION_Z = 3.29

VerificationState = Literal["verified", "inconsistent", "stale", "missing", "not_reproduced"]


class VerificationResult(SpecModel):
    """The outcome of :func:`verify_certificate` for one certificate.

    Attributes
    ----------
    name : str
        The registry entry or the certificate's mechanism name.
    path : str
        The certificate file ("" when verified from memory).
    state : {"verified", "inconsistent", "stale", "missing", "not_reproduced"}
        ``verified`` only when all three steps hold.
    problems : tuple of str
        What failed, one sentence each (empty when verified).
    mode : {"bit-identical", "tolerance", "independent", "not run"}
        How the re-run was compared: exactly (same library versions), within the
        tolerance rule (other versions), by the same rule as an independent replicate (a
        mechanism that ignores the seed); ``not run`` when an earlier step failed.
    version_differences : tuple of str
        ``package recorded → now`` for every library version that differs.
    epsilon_lower_bound_recorded, epsilon_lower_bound_rerun : float, optional
        The recorded ε lower bound and the re-run's.
    seconds : float
        Wall time of the verification (the re-run dominates).
    """

    name: str
    path: str = ""
    state: VerificationState
    problems: tuple[str, ...] = ()
    mode: Literal["bit-identical", "tolerance", "independent", "not run"] = "not run"
    version_differences: tuple[str, ...] = ()
    epsilon_lower_bound_recorded: float | None = None
    epsilon_lower_bound_rerun: float | None = None
    seconds: float = 0.0

    @property
    def verified(self) -> bool:
        """True when the certificate is consistent, current and reproduced."""
        return self.state == "verified"

    def summary(self) -> str:
        """One paragraph: the state, how the re-run compared, and every problem."""
        head = f"{self.name}: {self.state.upper().replace('_', ' ')}"
        if self.verified and self.mode == "independent":
            return (
                f"{head} (consistent, current; the sampler ignores the seed, so the audit "
                f"was re-run independently: same verdict and checks, ε lower bound "
                f"{_fmt(self.epsilon_lower_bound_rerun)} against the recorded "
                f"{_fmt(self.epsilon_lower_bound_recorded)}; {self.seconds:.1f} s)"
            )
        if self.verified:
            return (
                f"{head} (consistent, current, audit reproduced {self.mode}: ε lower "
                f"bound {_fmt(self.epsilon_lower_bound_recorded)}; {self.seconds:.1f} s)"
            )
        return f"{head} — " + "; ".join(self.problems) + f" ({self.seconds:.1f} s)"

    def __str__(self) -> str:
        return self.summary()


def _fmt(value: float | None) -> str:
    return "?" if value is None else format_epsilon(value, 6)


def rebuild(source: str) -> tuple[Mechanism, tuple[tuple[Any, Any], ...]]:
    """The mechanism and explicit pairs a certificate's ``source`` names.

    ``registry:NAME`` builds registry entry NAME (with its pairs); anything else is a
    command-line target (:func:`privaudit.trust.targets.load_target`), **executed as Python
    code**, with no explicit pairs.

    Raises
    ------
    RegistryError, AuditError
        If the entry is unknown or the target cannot be loaded.
    """
    if source.startswith("registry:"):
        from privaudit.trust import registry

        found = registry.entry(source.partition(":")[2])
        return found.create(), found.pairs
    from privaudit.trust.targets import load_target

    return load_target(source), ()


def _close(a: float, b: float, statistical: float = 0.0) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    absolute, relative = REPRODUCTION_TOLERANCE
    return abs(a - b) <= max(absolute + relative * max(abs(a), abs(b)), statistical)


def statistical_tolerance(cert: Certificate) -> float:
    """The sampling part of the ε tolerance: ``z·√2·se`` of the certified worst event.

    With other library versions a re-run may draw other outputs, so it is an independent
    replicate of the audit.  The ε bound is the log-ratio of the worst event's
    probabilities; by the delta method ``se² = (1 − p̂x)/count_x + (1 − p̂y)/count_y``
    for one run, and two independent runs differ by more than ``z·√2·se`` with
    probability 2·(1 − Φ(z)) = 0.1 % at :data:`REPRODUCTION_Z`.  Zero when the
    certificate has no embedded report or the event has a zero count (the fixed floor
    :data:`REPRODUCTION_TOLERANCE` then applies alone).
    """
    event = cert.report.worst_event if cert.report is not None else None
    if event is None or min(event.count_x, event.count_y) <= 0:
        return 0.0
    px = event.count_x / max(event.samples_x, 1)
    py = event.count_y / max(event.samples_y, 1)
    variance = max(0.0, 1 - px) / event.count_x + max(0.0, 1 - py) / event.count_y
    return REPRODUCTION_Z * math.sqrt(2 * variance)


def _compare(cert: Certificate, rerun: AuditReport, exact: bool) -> list[str]:
    problems = []
    if rerun.verdict != cert.verdict:
        problems.append(
            f"the re-run's verdict is {rerun.verdict!r}, the certificate's {cert.verdict!r}"
        )
    recorded = [(c.name, c.status) for c in cert.checks]
    now = [(c.name, c.status) for c in rerun.checks]
    if recorded != now:
        problems.append(f"the re-run's checks {now} differ from the recorded {recorded}")
    if exact:
        if rerun.epsilon_lower_bound != cert.epsilon_lower_bound:
            problems.append(
                f"the re-run's ε lower bound {_fmt(rerun.epsilon_lower_bound)} is "
                f"not the recorded {_fmt(cert.epsilon_lower_bound)}"
            )
        summaries = [c.summary for c in cert.checks] != [c.summary for c in rerun.checks]
        if summaries and recorded == now:
            problems.append("the re-run's check summaries differ from the recorded ones")
        if rerun.privacy_profile != cert.privacy_profile:
            problems.append("the re-run's privacy profile differs from the recorded one")
        if rerun.power != cert.power:
            problems.append("the re-run's power statement differs from the recorded one")
        return problems
    spread = statistical_tolerance(cert)
    if not _close(rerun.epsilon_lower_bound, cert.epsilon_lower_bound, spread):
        problems.append(
            f"the re-run's ε lower bound {_fmt(rerun.epsilon_lower_bound)} is not "
            f"within tolerance of the recorded {_fmt(cert.epsilon_lower_bound)}"
        )
    if (rerun.power is None) != (cert.power is None) or (
        rerun.power is not None
        and cert.power is not None
        and not _close(rerun.power.detectable_epsilon, cert.power.detectable_epsilon)
    ):
        problems.append("the re-run's power statement is not within tolerance of the recorded one")
    return problems


def verify_certificate(
    cert: Certificate,
    *,
    name: str | None = None,
    path: str | Path = "",
    mechanism: Mechanism | None = None,
    pairs: Sequence[tuple[Any, Any]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> VerificationResult:
    """Check ``cert`` for consistency and code identity, then re-run its audit.

    Parameters
    ----------
    cert : Certificate
    name : str, optional
        How to call it in the result (default: the registry entry or mechanism name).
    path : path, optional
        The file it was read from (reported only).
    mechanism : Mechanism, optional
        The mechanism to verify against; default: rebuilt from ``cert.source``.
    pairs : sequence of (x, y), optional
        Explicit pairs of the re-run; default: those of the source (registry entry).
    progress : callable, optional
        Passed to :func:`~privaudit.audit`.

    Returns
    -------
    VerificationResult
    """
    from privaudit.auditing.auditor import audit

    started = time.perf_counter()
    label = name or (
        cert.source.partition(":")[2]
        if cert.source and cert.source.startswith("registry:")
        else cert.mechanism
    )
    version_differences = cert.version_differences()

    def done(state: VerificationState, problems: Sequence[str], **extra: Any) -> VerificationResult:
        return VerificationResult(
            name=label,
            path=str(path),
            epsilon_lower_bound_recorded=cert.epsilon_lower_bound,
            version_differences=version_differences,
            state=state,
            problems=tuple(problems),
            seconds=round(time.perf_counter() - started, 3),
            **extra,
        )

    consistency: ConsistencyResult = check_consistency(cert)
    if not consistency.consistent:
        return done("inconsistent", consistency.problems)
    if mechanism is None:
        if not cert.source:
            return done(
                "not_reproduced",
                [
                    "the certificate records no source, so its mechanism "
                    "cannot be rebuilt; verify it with a mechanism"
                ],
            )
        try:
            mechanism, found_pairs = rebuild(cert.source)
        except PrivauditError as err:
            return done(
                "not_reproduced",
                [
                    f"cannot rebuild the mechanism from source "
                    f"{cert.source!r}: {str(err).splitlines()[0]}"
                ],
            )
        pairs = found_pairs if pairs is None else pairs
    pairs = tuple(pairs or ())
    status: CertificateStatus = cert.status_for(mechanism)
    if status.state != "current":
        return done("stale" if status.state == "stale" else "inconsistent", [status.reason])
    if len(pairs) != cert.explicit_pairs:
        return done(
            "not_reproduced",
            [
                f"the certificate was made with {cert.explicit_pairs} "
                f"explicit pairs, the source gives {len(pairs)}"
            ],
        )
    rerun = audit(mechanism, config=cert.config, pairs=pairs, progress=progress)
    exact = not version_differences
    exact = exact and cert.reproducible
    problems = _compare(cert, rerun, exact)
    mode: Literal["bit-identical", "tolerance", "independent"] = (
        "bit-identical" if exact else "tolerance" if cert.reproducible else "independent"
    )
    return done(
        "not_reproduced" if problems else "verified",
        problems,
        mode=mode,
        epsilon_lower_bound_rerun=rerun.epsilon_lower_bound,
    )


def verify_path(path: str | Path, **kwargs: Any) -> VerificationResult:
    """:func:`verify_certificate` of the certificate file at ``path``.

    A file that cannot be read or is not a valid certificate (corrupt hashes, an old
    schema) is ``inconsistent``, with the reason.
    """
    started = time.perf_counter()
    try:
        cert = load_certificate(path)
    except CertificateError as err:
        missing = not Path(path).is_file()
        return VerificationResult(
            name=kwargs.get("name") or Path(path).stem,
            path=str(path),
            state="missing" if missing else "inconsistent",
            problems=(str(err).splitlines()[0],),
            seconds=round(time.perf_counter() - started, 3),
        )
    return verify_certificate(cert, path=path, **kwargs)
