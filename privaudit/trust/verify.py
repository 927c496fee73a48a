"""Verifying a certificate: consistent, current, and reproduced by re-running its audit.

:func:`verify_certificate` answers "can I rely on this certificate?" in three steps:

1. **consistency** (:func:`privaudit.trust.consistency.check_consistency`): the verdict agrees
   with the checks, ε_lb ≤ claimed ε unless the verdict is a violation, the embedded
   report agrees with the top-level fields, and the configuration meets the
   certificate minimums;
2. **code identity**: the spec hash and the implementation hash (every file and
   function the certifying release ran, :func:`privaudit.trust.certificates.current_implementation`)
   match the mechanism as it is now — the mechanism is rebuilt from the certificate's
   ``source`` (``registry:NAME`` or a command-line target);
3. **reproduction**: the audit is run again with the recorded configuration, seed and
   explicit pairs, and its results must equal the recorded ones.  With the same
   library versions (Python, numpy, scipy, …) the audit is deterministic, so the
   verdict, every check's status and summary, the ε lower bound, the privacy profile
   and the power statement must be *bit-identical*.  With other versions, floating
   point and samplers may differ in the last bits, so the verdict and every check's
   status must still be equal and the ε lower bound and the detectable ε of the power
   statement must agree within :data:`REPRODUCTION_TOLERANCE` (absolute ``0.02`` plus
   ``5 %`` of the larger value).

A certificate proves reproducibility and code identity, nothing more: it is not a
signature (anyone can write one), and a passed audit is not a proof of privacy.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from mechanisms import Mechanism
from spec import SpecModel
from spec.errors import CertificateError, PrivauditError

from privaudit._environment import library_versions
from .certificates import Certificate, CertificateStatus, load_certificate
from .consistency import ConsistencyResult, check_consistency
from privaudit.auditing.report import AuditReport
from privaudit.auditing.texts import format_epsilon

__all__ = [
    "REPRODUCTION_TOLERANCE",
    "VerificationResult",
    "VerificationState",
    "rebuild",
    "verify_certificate",
    "verify_path",
]

#: (absolute, relative) tolerance on ε bounds when the library versions differ.
REPRODUCTION_TOLERANCE = (0.02, 0.05)

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
    mode : {"bit-identical", "tolerance", "not run"}
        How the re-run was compared: exactly (same library versions) or within
        :data:`REPRODUCTION_TOLERANCE`; ``not run`` when an earlier step failed.
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
    mode: Literal["bit-identical", "tolerance", "not run"] = "not run"
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
        if self.verified:
            return (f"{head} (consistent, current, audit reproduced {self.mode}: ε lower "
                    f"bound {_fmt(self.epsilon_lower_bound_recorded)}; {self.seconds:.1f} s)")
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
        from . import registry

        found = registry.entry(source.partition(":")[2])
        return found.create(), found.pairs
    from .targets import load_target

    return load_target(source), ()


def _close(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    absolute, relative = REPRODUCTION_TOLERANCE
    return abs(a - b) <= absolute + relative * max(abs(a), abs(b))


def _compare(cert: Certificate, rerun: AuditReport, exact: bool) -> list[str]:
    problems = []
    if rerun.verdict != cert.verdict:
        problems.append(f"the re-run's verdict is {rerun.verdict!r}, the certificate's "
                        f"{cert.verdict!r}")
    recorded = [(c.name, c.status) for c in cert.checks]
    now = [(c.name, c.status) for c in rerun.checks]
    if recorded != now:
        problems.append(f"the re-run's checks {now} differ from the recorded {recorded}")
    if exact:
        if rerun.epsilon_lower_bound != cert.epsilon_lower_bound:
            problems.append(f"the re-run's ε lower bound {_fmt(rerun.epsilon_lower_bound)} is "
                            f"not the recorded {_fmt(cert.epsilon_lower_bound)}")
        summaries = [c.summary for c in cert.checks] != [c.summary for c in rerun.checks]
        if summaries and recorded == now:
            problems.append("the re-run's check summaries differ from the recorded ones")
        if rerun.privacy_profile != cert.privacy_profile:
            problems.append("the re-run's privacy profile differs from the recorded one")
        if rerun.power != cert.power:
            problems.append("the re-run's power statement differs from the recorded one")
        return problems
    if not _close(rerun.epsilon_lower_bound, cert.epsilon_lower_bound):
        problems.append(f"the re-run's ε lower bound {_fmt(rerun.epsilon_lower_bound)} is not "
                        f"within tolerance of the recorded {_fmt(cert.epsilon_lower_bound)}")
    if (rerun.power is None) != (cert.power is None) or (
            rerun.power is not None and cert.power is not None
            and not _close(rerun.power.detectable_epsilon, cert.power.detectable_epsilon)):
        problems.append("the re-run's power statement is not within tolerance of the "
                        "recorded one")
    return problems


def _version_differences(cert: Certificate) -> tuple[str, ...]:
    now = library_versions()
    return tuple(f"{pkg} {cert.versions.get(pkg, '?')} → {now.get(pkg, '?')}"
                 for pkg in sorted(set(cert.versions) | set(now))
                 if cert.versions.get(pkg) != now.get(pkg))


def verify_certificate(cert: Certificate, *, name: str | None = None, path: str | Path = "",
                       mechanism: Mechanism | None = None,
                       pairs: Sequence[tuple[Any, Any]] | None = None,
                       progress: Callable[[str], None] | None = None) -> VerificationResult:
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
    label = name or (cert.source.partition(":")[2] if cert.source and
                     cert.source.startswith("registry:") else cert.mechanism)
    base = {"name": label, "path": str(path),
            "epsilon_lower_bound_recorded": cert.epsilon_lower_bound,
            "version_differences": _version_differences(cert)}

    def done(state: VerificationState, problems: Sequence[str], **extra: Any) -> VerificationResult:
        return VerificationResult(**base, state=state, problems=tuple(problems),
                                  seconds=round(time.perf_counter() - started, 3), **extra)

    consistency: ConsistencyResult = check_consistency(cert)
    if not consistency.consistent:
        return done("inconsistent", consistency.problems)
    if mechanism is None:
        if not cert.source:
            return done("not_reproduced", ["the certificate records no source, so its mechanism "
                                           "cannot be rebuilt; verify it with a mechanism"])
        try:
            mechanism, found_pairs = rebuild(cert.source)
        except PrivauditError as err:
            return done("not_reproduced", [f"cannot rebuild the mechanism from source "
                                           f"{cert.source!r}: {str(err).splitlines()[0]}"])
        pairs = found_pairs if pairs is None else pairs
    pairs = tuple(pairs or ())
    status: CertificateStatus = cert.status_for(mechanism)
    if status.state != "current":
        return done("stale" if status.state == "stale" else "inconsistent", [status.reason])
    if len(pairs) != cert.explicit_pairs:
        return done("not_reproduced", [f"the certificate was made with {cert.explicit_pairs} "
                                       f"explicit pairs, the source gives {len(pairs)}"])
    rerun = audit(mechanism, config=cert.config, pairs=pairs, progress=progress)
    exact = not base["version_differences"]
    problems = _compare(cert, rerun, exact)
    mode: Literal["bit-identical", "tolerance"] = "bit-identical" if exact else "tolerance"
    return done("not_reproduced" if problems else "verified", problems, mode=mode,
                epsilon_lower_bound_rerun=rerun.epsilon_lower_bound)


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
        return VerificationResult(name=kwargs.get("name") or Path(path).stem, path=str(path),
                                  state="missing" if missing else "inconsistent",
                                  problems=(str(err).splitlines()[0],),
                                  seconds=round(time.perf_counter() - started, 3))
    return verify_certificate(cert, path=path, **kwargs)
