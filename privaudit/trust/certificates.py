"""Certificates: what an audit found, bound to the exact spec and code it audited.

A :class:`Certificate` (frozen, round-trips through JSON) records the spec and its hash, an
implementation hash over every first-party file and function the mechanism runs (found by
:mod:`privaudit.trust.tracing` and :mod:`privaudit.trust.implementation`), the third-party
versions (:mod:`privaudit.trust.provenance`), the audit configuration and its results.  It is
*current* when both hashes match, *stale* when one does not (:meth:`Certificate.status_for`
names what changed), *inconsistent* when its results contradict each other.  It proves
reproducibility and code identity (:data:`STATEMENT`), not privacy, and is not a signature.

Details (the fields, an example): ``docs/engine_notes.md``, "privaudit.trust.certificates".
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import AwareDatetime, Field, model_validator

from privaudit._environment import library_versions
from privaudit.auditing.config import CERTIFICATE_STRENGTH, AuditConfig, below_certificate_minimums
from privaudit.auditing.outcome.report import AuditReport
from privaudit.auditing.outcome.results import CheckStatus, PowerStatement, ProfilePoint
from privaudit.auditing.outcome.texts import claim_text, guarantee_text, relation_text
from privaudit.mechanisms import Mechanism
from privaudit.spec import ExtendedEpsilon, MechanismSpec, SpecModel
from privaudit.spec.errors import CertificateError, PrivauditError
from privaudit.trust.consistency import ConsistencyResult, check_consistency
from privaudit.trust.implementation import (
    IMPLEMENTATION_HASH_SCHEME,
    Implementation,
    code_changes,
    combine_hashes,
    current_implementation,
    implementation_hash,
    implementation_of,
)
from privaudit.trust.provenance import running_versions
from privaudit.trust.provenance import version_differences as _differences
from privaudit.trust.spec_changes import describe_spec_changes, spec_changes

__all__ = [
    "CERTIFICATE_SCHEMA_VERSION",
    "IMPLEMENTATION_HASH_SCHEME",
    "STATEMENT",
    "Certificate",
    "CertificateState",
    "CertificateStatus",
    "CertifiedCheck",
    "Implementation",
    "certify",
    "claim_text",
    "code_changes",
    "current_implementation",
    "guarantee_text",
    "implementation_hash",
    "implementation_of",
    "load_certificate",
    "relation_text",
    "spec_changes",
]

#: Bumped whenever a field of the certificate changes meaning or disappears.  Version 2:
#: the implementation hash covers the traced release and per-function digests.  Version
#: 3: it covers first-party code only (:mod:`privaudit.first_party`); third-party code
#: is recorded as distribution versions (``third_party``).
CERTIFICATE_SCHEMA_VERSION = 3

#: What every certificate certifies, and what it does not.
STATEMENT = (
    "The claims are consistent with the spec and no violation was found at the "
    "stated confidence and power. This is not a proof of privacy."
)

#: The states :meth:`Certificate.status_for` reports.
CertificateState = Literal["current", "stale", "missing", "inconsistent"]

#: The verdicts an audit report can carry; a certificate is never made of a violation.
_VERDICTS = ("no_violation", "inconclusive", "violation")


# ----------------------------------------------------------------------------------------
# the certificate
# ----------------------------------------------------------------------------------------
class CertifiedCheck(SpecModel):
    """One check of the certifying audit: its name, outcome and one-sentence summary."""

    name: str
    status: CheckStatus
    summary: str


class CertificateStatus(SpecModel):
    """Whether a certificate is current for a mechanism, and why not.

    Attributes
    ----------
    state : {"current", "stale", "missing", "inconsistent"}
        ``current``: spec hash and implementation hash match and the certificate is
        consistent; ``stale``: a hash does not match (or the file is unusable);
        ``missing``: there is no certificate; ``inconsistent``: its recorded results
        contradict each other (:meth:`Certificate.consistency`).
    reason : str
        One readable sentence (which hash changed, which modules, which file is missing).
    version_differences : tuple of str
        For a current certificate, ``"certified with numpy 2.1.3, running 2.2.0"`` for
        each third-party or library version that differs now (informative: never stale).
    """

    state: CertificateState
    reason: str
    version_differences: tuple[str, ...] = ()

    @property
    def current(self) -> bool:
        """True when the certificate is present and current."""
        return self.state == "current"

    def __str__(self) -> str:
        return f"{self.state} ({self.reason})"


class Certificate(SpecModel):
    """The record of a passed audit, bound to the spec and the code it audited.

    Attributes
    ----------
    schema_version : int
        :data:`CERTIFICATE_SCHEMA_VERSION` of the writer; a newer one is refused.
    mechanism : str
        The spec's name.
    spec, spec_hash :
        The audited claims and their content hash (checked against each other on load).
    implementation_hash : str
        :func:`implementation_hash` of the audited mechanism.
    implementation_modules : tuple of str
        The modules that hash covers; ``module_hashes`` has one digest per module and
        ``function_hashes`` one per function that ran in the traced release or that the
        mechanism holds (``module:qualname``), so a stale certificate can say which file
        and which function changed; ``code_objects`` names the classes and functions the
        mechanism is built from.
    source : str, optional
        How to rebuild the mechanism: ``registry:NAME`` or a command-line target
        (``package.module:name``, ``path/file.py:name``); ``privaudit verify`` uses it.
    config : AuditConfig
        How the audit was run (samples, confidence, seed, pair-search budgets).
    explicit_pairs : int
        Number of explicit neighbouring pairs given to the audit.
    verdict : str
        The audit's verdict (a violating mechanism is never certified; a certificate
        that records ``"violation"`` is inconsistent).
    epsilon_lower_bound, epsilon_claimed, delta_claimed : the audit's ε bound and the claim.
    checks : tuple of CertifiedCheck
        Each claim check with its outcome.
    privacy_profile, power : the profile points and the power statement of the audit.
    first_party_distributions : tuple of str
        Installed distributions hashed as the user's own code (the one that defines a
        user's mechanism); privaudit's own code is always hashed.
    third_party : dict
        Distribution → version of the third-party code behind the hashed modules
        (:func:`privaudit.trust.provenance.third_party_versions`): recorded, never hashed; a
        different running version is reported, it never makes the certificate stale.
    versions : dict
        Python, privaudit, numpy, scipy, pydantic and networkx versions of the audit.
    created : datetime
        When the certificate was made (UTC).
    statement : str
        What the certificate certifies (:data:`STATEMENT`).
    notes : tuple of str
        Anything a reader must know about how this certificate was obtained.
    report : AuditReport, optional
        The full report of the certifying audit.
    reproducible : bool
        False when the mechanism ignores the injected generator (same seed, different
        outputs: :func:`privaudit.trust.reproducibility.check_generator_determinism`);
        ``verify`` then compares an independent re-run by its verdict and check statuses,
        not bit for bit.  The libraries such a mechanism wraps are recorded in
        ``third_party`` like any other: another version is reported, never stale.
    """

    schema_version: int = CERTIFICATE_SCHEMA_VERSION
    mechanism: str
    spec: MechanismSpec
    spec_hash: str
    implementation_hash: str
    implementation_modules: tuple[str, ...]
    module_hashes: dict[str, str] = Field(default_factory=dict)
    function_hashes: dict[str, str] = Field(default_factory=dict)
    code_objects: tuple[str, ...] = ()
    first_party_distributions: tuple[str, ...] = ()
    third_party: dict[str, str] = Field(default_factory=dict)
    source: str | None = None
    config: AuditConfig
    explicit_pairs: int = 0
    verdict: Literal["no_violation", "inconclusive", "violation"] = "no_violation"
    epsilon_lower_bound: ExtendedEpsilon
    epsilon_claimed: float
    delta_claimed: float
    checks: tuple[CertifiedCheck, ...]
    privacy_profile: tuple[ProfilePoint, ...] = ()
    power: PowerStatement | None = None
    versions: dict[str, str] = Field(default_factory=dict)
    created: AwareDatetime
    runtime_seconds: float = 0.0
    statement: str = STATEMENT
    notes: tuple[str, ...] = ()
    report: AuditReport | None = None
    reproducible: bool = True

    @model_validator(mode="before")
    @classmethod
    def _schema(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            version = data.get("schema_version", CERTIFICATE_SCHEMA_VERSION)
            if isinstance(version, int) and version < CERTIFICATE_SCHEMA_VERSION:
                raise CertificateError(
                    f"certificate schema_version {version} is older than this privaudit "
                    f"reads ({CERTIFICATE_SCHEMA_VERSION}): its implementation hash covers "
                    "third-party code or misses the traced release; re-certify (privaudit "
                    "certify --registry NAME, or privaudit certify TARGET)"
                )
        return data

    @model_validator(mode="after")
    def _integrity(self) -> Certificate:
        if self.schema_version > CERTIFICATE_SCHEMA_VERSION:
            raise CertificateError(
                f"certificate schema_version {self.schema_version} is newer than this "
                f"privaudit understands ({CERTIFICATE_SCHEMA_VERSION}); upgrade privaudit"
            )
        if self.spec.content_hash != self.spec_hash:
            raise CertificateError(
                f"certificate of {self.mechanism!r} is corrupt: its spec hashes to "
                f"{self.spec.content_hash}, but it records spec_hash = {self.spec_hash}"
            )
        if (
            combine_hashes(self.module_hashes, self.function_hashes, self.code_objects)
            != self.implementation_hash
        ):
            raise CertificateError(
                f"certificate of {self.mechanism!r} is corrupt: its module and function "
                f"hashes and code objects do not combine to implementation_hash = "
                f"{self.implementation_hash}"
            )
        if tuple(sorted(self.module_hashes)) != tuple(self.implementation_modules):
            raise CertificateError(
                f"certificate of {self.mechanism!r} is corrupt: implementation_modules "
                f"{list(self.implementation_modules)} do not match its module hashes"
            )
        return self

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def from_report(
        cls,
        mechanism: Mechanism,
        report: AuditReport,
        *,
        explicit_pairs: int = 0,
        notes: Sequence[str] = (),
        include_report: bool = True,
        implementation: Implementation | None = None,
        source: str | None = None,
        reproducible: bool = True,
    ) -> Certificate:
        """The certificate of ``mechanism`` from the report of its (passed) audit.

        ``implementation`` is :func:`implementation_of` the mechanism taken before the
        audit (computed now, without a factory, when omitted); ``source`` says how to
        rebuild the mechanism (``registry:NAME`` or a target); ``reproducible`` is False
        for a mechanism that ignores the injected generator.

        Raises
        ------
        CertificateError
            If the report found a violation or is inconclusive (it could not have
            detected a violation at its target ε), belongs to another spec, or was run with
            a configuration below :data:`~privaudit.auditing.config.CERTIFICATE_MINIMUMS`.
        """
        if report.spec_hash != mechanism.spec.content_hash:
            raise CertificateError(
                f"the report audited spec {report.spec_hash}, but {mechanism.name!r} has "
                f"spec {mechanism.spec.content_hash}"
            )
        if report.violated:
            names = ", ".join(c.name for c in report.violations) or "verdict"
            raise CertificateError(
                f"refusing to certify {mechanism.name!r}: the audit found a violation "
                f"({names})\n{report.summary()}"
            )
        if report.inconclusive:
            raise CertificateError(
                f"refusing to certify {mechanism.name!r}: the audit is inconclusive\n"
                f"{report.summary()}"
            )
        weak = below_certificate_minimums(report.config)
        if weak:
            raise CertificateError(
                f"refusing to certify {mechanism.name!r}: the audit configuration is below "
                f"the certificate minimums ({'; '.join(weak)})"
            )
        found = implementation if implementation is not None else implementation_of(mechanism)
        return cls(
            mechanism=mechanism.name,
            spec=mechanism.spec,
            spec_hash=mechanism.spec.content_hash,
            implementation_hash=found.hash,
            implementation_modules=tuple(found.modules),
            module_hashes=dict(found.modules),
            function_hashes=dict(found.functions),
            code_objects=found.code,
            first_party_distributions=found.first_party,
            third_party=dict(found.third_party),
            source=source,
            config=report.config,
            explicit_pairs=explicit_pairs,
            verdict=report.verdict,
            epsilon_lower_bound=report.epsilon_lower_bound,
            epsilon_claimed=report.epsilon_claimed,
            delta_claimed=report.delta_claimed,
            checks=tuple(
                CertifiedCheck(name=c.name, status=c.status, summary=c.summary)
                for c in report.checks
            ),
            privacy_profile=report.privacy_profile,
            power=report.power,
            versions=dict(report.versions) or library_versions(),
            created=datetime.now(UTC).replace(microsecond=0),
            runtime_seconds=round(report.runtime_seconds, 3),
            notes=tuple(notes),
            report=report if include_report else None,
            reproducible=reproducible,
        )

    # -- status ----------------------------------------------------------------------------
    @property
    def implementation(self) -> Implementation:
        """The recorded :class:`Implementation` (module and function digests, code objects)."""
        return Implementation(
            modules=dict(self.module_hashes),
            functions=dict(self.function_hashes),
            code=self.code_objects,
            first_party=self.first_party_distributions,
            third_party=dict(self.third_party),
        )

    def consistency(self) -> ConsistencyResult:
        """Whether the recorded results agree with each other
        (:func:`privaudit.trust.consistency.check_consistency`)."""
        return check_consistency(self)

    def version_differences(self) -> tuple[str, ...]:
        """``"certified with numpy 2.1.3, running 2.2.0"`` for every recorded third-party
        distribution, and Python and library version of the audit, that differs from the
        running interpreter's (empty when all agree).  Never a reason for staleness."""
        recorded = {**self.versions, **self.third_party}
        running = {**library_versions(), **running_versions(self.third_party)}
        return _differences(recorded, running)

    def status_for(self, mechanism: Mechanism) -> CertificateStatus:
        """``current`` if ``mechanism`` has this spec and this implementation, else ``stale``.

        The reason names the hash that changed; for the spec, every field that differs
        from the recorded spec by its dotted path with both values at full precision
        (:func:`~privaudit.trust.spec_changes.spec_changes`, e.g. ``guarantee.epsilon:
        0.5653074598452299 → 0.5653074598440593``); for the implementation, the modules and
        functions that were edited, added or removed.  A certificate whose recorded
        results contradict each other is ``inconsistent`` (checked first).
        """
        consistency = self.consistency()
        if not consistency.consistent:
            return CertificateStatus(state="inconsistent", reason=consistency.reason)
        reasons = []
        spec_hash = mechanism.spec.content_hash
        if spec_hash != self.spec_hash:
            reasons.append(
                f"spec hash changed (certificate {self.spec_hash[:19]}…, "
                f"mechanism {spec_hash[:19]}…): "
                f"{describe_spec_changes(self.spec, mechanism.spec)}"
            )
        found = current_implementation(self, mechanism)
        if found.hash != self.implementation_hash:
            reasons.append(
                f"implementation hash changed (certificate "
                f"{self.implementation_hash[:19]}…, code {found.hash[:19]}…: "
                f"{code_changes(self.implementation, found)})"
            )
        if reasons:
            return CertificateStatus(state="stale", reason="; ".join(reasons))
        differences = self.version_differences()
        return CertificateStatus(
            state="current",
            reason=(
                f"spec and implementation hashes match; certified {self.created:%Y-%m-%d}"
                + ("; " + "; ".join(differences) if differences else "")
            ),
            version_differences=differences,
        )

    # -- presentation ----------------------------------------------------------------------
    def summary(self) -> str:
        """A readable multi-line account of the certificate."""
        cfg = self.config
        eps = "inf" if math.isinf(self.epsilon_lower_bound) else f"{self.epsilon_lower_bound:.4g}"
        rows = [
            ("statement", self.statement),
            ("claim", claim_text(self.spec)),
            ("summary", self.spec.summary),
            ("spec hash", self.spec_hash),
            (
                "implementation",
                (
                    f"{self.implementation_hash} over "
                    f"{len(self.implementation_modules)} modules and "
                    f"{len(self.function_hashes)} functions (traced release "
                    f"and static closure): "
                    f"{', '.join(self.implementation_modules)}"
                ),
            ),
            ("source", self.source or ""),
            (
                "audit",
                (
                    f"{cfg.samples} samples per side, confidence "
                    f"{100 * cfg.confidence:g}%, seed {cfg.seed}, {cfg.pair_budget} "
                    f"candidate pairs, {cfg.pairs_tested} tested, claim budget "
                    f"{cfg.claim_budget}"
                )
                + (f", {self.explicit_pairs} explicit pairs" if self.explicit_pairs else ""),
            ),
            (
                "result",
                (
                    f"{self.verdict.replace('_', ' ')}; ε lower bound {eps} at δ = "
                    f"{self.delta_claimed:g} (claimed ε = {_full(self.epsilon_claimed)})"
                ),
            ),
        ]
        if self.power is not None:
            rows.append(("power", self.power.statement))
        if self.privacy_profile:
            worst = max(self.privacy_profile, key=lambda p: p.delta_lower_bound - p.delta_claimed)
            rows.append(
                (
                    "privacy profile",
                    (
                        f"{len(self.privacy_profile)} points within the claim (closest: "
                        f"δ(ε={worst.epsilon:.3g}) ≥ {worst.delta_lower_bound:.3g} vs claimed "
                        f"{worst.delta_claimed:.3g})"
                    ),
                )
            )
        lines = [f"privaudit certificate of {self.mechanism!r}"]
        lines.extend(_field(label, text) for label, text in rows if text)
        lines.append("  checks:")
        width = max((len(c.name) for c in self.checks), default=10)
        lines.extend(f"    [{c.status:^8}] {c.name:<{width}}  {c.summary}" for c in self.checks)
        lines.append(
            _field("versions", ", ".join(f"{k} {v}" for k, v in sorted(self.versions.items())))
        )
        if self.first_party_distributions:
            lines.append(
                _field(
                    "user code", "hashed distributions " + ", ".join(self.first_party_distributions)
                )
            )
        lines.append(
            _field(
                "third-party",
                ", ".join(f"{k} {v}" for k, v in sorted(self.third_party.items()))
                or "none recorded",
            )
        )
        lines.extend(_field("version", d) for d in self.version_differences())
        lines.append(
            _field(
                "created", f"{self.created.isoformat()} (audit took {self.runtime_seconds:.1f} s)"
            )
        )
        if not self.reproducible:
            lines.append(
                _field(
                    "reproducible",
                    (
                        "no: the mechanism draws randomness of its own (same seed, different "
                        "outputs), so verify compares a re-run by its verdict and check statuses, "
                        "not bit for bit"
                    ),
                )
            )
        lines.extend(_field("note", note) for note in self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def write(self, path: str | Path) -> Path:
        """Write the certificate as JSON to ``path`` (parent directories are created)."""
        target = Path(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(self.to_json() + "\n", encoding="utf-8")
        except OSError as err:
            raise CertificateError(f"cannot write certificate to {str(target)!r}: {err}") from None
        return target


def _full(value: float) -> str:
    """``value`` at 6 significant digits when they name it exactly, else its full repr."""
    short = f"{value:.6g}"
    return short if float(short) == value else repr(value)


def _field(label: str, text: str, width: int = 92) -> str:
    """``  label          : text``, wrapped under its own start."""
    head = f"  {label:<15}: "
    return textwrap.fill(
        text,
        width=width,
        initial_indent=head,
        subsequent_indent=" " * len(head),
        break_on_hyphens=False,
    )


def load_certificate(path: str | Path) -> Certificate:
    """Read a certificate written by :meth:`Certificate.write`.

    Raises
    ------
    CertificateError
        If the file is missing or unreadable, or is not a valid certificate (the message
        names the path and the first problem).
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CertificateError(f"no certificate at {str(source)!r}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise CertificateError(f"cannot read certificate {str(source)!r}: {err}") from None
    try:
        return Certificate.from_json(text)
    except PrivauditError as err:
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise CertificateError(f"{str(source)!r} is not a valid certificate: {first}") from None


def certify(
    mechanism: Mechanism,
    *,
    config: AuditConfig | None = None,
    pairs: Sequence[tuple[Any, Any]] = (),
    progress: Callable[[str], None] | None = None,
    include_report: bool = True,
    notes: Sequence[str] = (),
    factory: Callable[[], Any] | None = None,
    source: str | None = None,
    executor: Any = None,
    **overrides: Any,
) -> Certificate:
    """Audit ``mechanism`` and return its certificate.

    Parameters
    ----------
    mechanism : Mechanism
    config : AuditConfig, optional
        Default :data:`~privaudit.CERTIFICATE_STRENGTH`; keyword ``overrides`` replace
        single fields (``samples=``, ``seed=`` …).
    pairs : sequence of (x, y)
        Explicit neighbouring pairs for the audit.
    progress : callable, optional
        Passed to :func:`~privaudit.audit`.
    include_report : bool
        Embed the full audit report (default True).
    notes : sequence of str
        Recorded in the certificate.
    factory : callable, optional
        Zero-argument callable that builds ``mechanism``; its run is traced so that the
        code that builds the mechanism is covered too (:func:`implementation_of`).
    source : str, optional
        How to rebuild the mechanism (``registry:NAME`` or a target), for ``verify``.
    executor : Executor, "serial", "dask" or None
        Where the audit's test splits are drawn and counted, as for
        :func:`~privaudit.audit` (``docs/distributed.md``); the certificate is the same on
        every executor.

    Returns
    -------
    Certificate

    Raises
    ------
    CertificateError
        If the configuration is below the certificate minimums, the audit found a
        violation (the message holds the report's summary), or the implementation
        cannot be hashed.
    """
    from privaudit.auditing.auditor import audit
    from privaudit.trust.reproducibility import check_generator_determinism, non_reproducible_note

    if not isinstance(mechanism, Mechanism):
        raise CertificateError(
            f"can only certify a Mechanism, got {type(mechanism).__name__}: {mechanism!r}"
        )
    cfg = (config if config is not None else CERTIFICATE_STRENGTH).merged(overrides)
    weak = below_certificate_minimums(cfg)
    if weak:
        raise CertificateError(
            f"refusing to certify {mechanism.name!r}: the audit configuration is below the "
            f"certificate minimums ({'; '.join(weak)})"
        )
    found = implementation_of(mechanism, factory=factory)  # the code as it is when audited
    determinism = check_generator_determinism(mechanism, seed=cfg.seed)
    if not determinism.reproducible:
        notes = (*notes, non_reproducible_note(determinism))
    report = audit(mechanism, config=cfg, pairs=pairs, progress=progress, executor=executor)
    return Certificate.from_report(
        mechanism,
        report,
        explicit_pairs=len(pairs),
        notes=notes,
        include_report=include_report,
        implementation=found,
        source=source,
        reproducible=determinism.reproducible,
    )
