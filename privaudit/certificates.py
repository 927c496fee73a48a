"""Certificates: what an audit found, bound to the exact spec and code it audited.

A :class:`Certificate` is a frozen pydantic model that round-trips through JSON.  It
records

* the mechanism's spec and its content hash (:attr:`spec.MechanismSpec.content_hash`);
* an *implementation hash*: the SHA-256 of the source of every module that defines the
  mechanism's code (see :func:`implementation_hash`), so that editing that code makes
  the certificate stale;
* the audit configuration (samples, confidence, seed, pair-search budgets) and the
  number of explicit pairs; the neighbouring relation is part of the spec;
* the results: each check with its outcome, the ε lower bound, the privacy profile and
  the power statement (optionally the whole :class:`~privaudit.report.AuditReport`);
* the versions of Python, privaudit and its dependencies, and the UTC date-time.

What a certificate says is fixed (:data:`STATEMENT`): the claims are consistent with the
spec and no violation was found at the stated confidence and power.  It is not a proof
of privacy.

A certificate is *current* for a mechanism when both hashes match, and *stale*
otherwise (:meth:`Certificate.status_for` names the hash that changed).

Examples
--------
>>> from mechanisms import LaplaceMechanism
>>> from privaudit import CI_STRENGTH
>>> mech = LaplaceMechanism(1.0, 1.0)
>>> cert = certify(mech, config=CI_STRENGTH, samples=20_000)
>>> cert.status_for(mech).state
'current'
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import math
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, Field, model_validator

from mechanisms import Mechanism
from spec import MechanismSpec
from spec._base import SpecModel
from spec._types import ExtendedEpsilon
from spec.errors import CertificateError, PrivauditError
from spec.noise import NoiseLaw

from ._environment import library_versions
from .config import CERTIFICATE_STRENGTH, AuditConfig
from .report import AuditReport
from .results import CheckStatus, PowerStatement, ProfilePoint

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
    "guarantee_text",
    "implementation_hash",
    "implementation_of",
    "load_certificate",
    "relation_text",
]

#: Bumped whenever a field of the certificate changes meaning or disappears.
CERTIFICATE_SCHEMA_VERSION = 1

#: Names the way :func:`implementation_hash` is computed; part of the hashed text.
IMPLEMENTATION_HASH_SCHEME = "privaudit-impl-v1"

#: What every certificate certifies, and what it does not.
STATEMENT = ("The claims are consistent with the spec and no violation was found at the "
             "stated confidence and power. This is not a proof of privacy.")

#: Our own top-level packages: always hashed, wherever they are installed.
_OWN_PACKAGES = frozenset({"spec", "mechanisms", "estimators", "privaudit"})

#: Dependencies never hashed even when :func:`importlib.metadata` cannot resolve them.
_KNOWN_DEPENDENCIES = frozenset({
    "numpy", "scipy", "pydantic", "pydantic_core", "networkx", "hypothesis",
    "typing_extensions", "annotated_types", "attr", "attrs", "sortedcontainers",
    "matplotlib", "pytest", "_pytest", "pluggy",
})

#: A model in the spec's noise description with one of these methods draws noise.
_SAMPLER_METHODS = ("sample", "sample_given")

CertificateState = Literal["current", "stale", "missing"]


# ----------------------------------------------------------------------------------------
# the implementation hash
# ----------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _dependency_packages() -> frozenset[str]:
    """Top-level import names of privaudit's dependencies (transitively) and the stdlib."""
    wanted: set[str] = set()
    todo = ["privaudit"]
    while todo:
        dist = todo.pop()
        key = dist.lower().replace("_", "-")
        if key in wanted:
            continue
        wanted.add(key)
        try:
            requires = metadata.requires(dist) or []
        except metadata.PackageNotFoundError:
            continue
        for req in requires:
            if "extra ==" in req:
                continue
            name = req.split(";")[0].strip()
            for stop in "<>=!~[ (":
                name = name.split(stop)[0]
            if name:
                todo.append(name)
    wanted.discard("privaudit")
    tops = set(_KNOWN_DEPENDENCIES) | set(sys.stdlib_module_names) | {"builtins", "__future__"}
    try:
        mapping = metadata.packages_distributions()
    except (OSError, ValueError, TypeError):  # pragma: no cover - broken unrelated metadata
        mapping = {}  # the static list above still applies
    for top, dists in mapping.items():
        if any(d.lower().replace("_", "-") in wanted for d in dists):
            tops.add(top)
    return frozenset(tops - _OWN_PACKAGES)


def _hashed_module(name: str | None) -> bool:
    if not name:
        return False
    top = name.partition(".")[0]
    return top in _OWN_PACKAGES or top not in _dependency_packages()


class _Collector:
    """Walks a mechanism to the modules whose source defines its behaviour."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.code: set[str] = set()
        self._seen: set[int] = set()
        self._seen_classes: set[int] = set()

    # -- modules ---------------------------------------------------------------------------
    def module(self, name: str | None, file: str | None = None) -> None:
        if not _hashed_module(name) or name in self.files:
            return
        assert name is not None
        if file is None:
            mod = sys.modules.get(name)
            if mod is None:
                raise CertificateError(
                    f"cannot hash the implementation: module {name!r} is not imported")
            try:
                file = inspect.getsourcefile(mod)
            except TypeError:  # a built-in module
                file = None
        if file is None or not Path(file).is_file():
            raise CertificateError(
                f"cannot hash the implementation: the source of module {name!r} is not "
                f"available (got {file!r}); define mechanisms in a .py file to certify them")
        self.files[name] = file

    def cls(self, klass: type) -> None:
        if _hashed_module(getattr(klass, "__module__", None)):
            self.code.add(f"{klass.__module__}:{klass.__qualname__}")
        # classes have their own "seen" set: a class reached first as a callable value
        # (marked in ``_seen`` by :meth:`callable`) must still have its modules hashed
        for base in klass.__mro__:
            if id(base) in self._seen_classes:
                continue
            self._seen_classes.add(id(base))
            self.module(getattr(base, "__module__", None))

    # -- objects ---------------------------------------------------------------------------
    def mechanism(self, mech: Mechanism) -> None:
        if id(mech) in self._seen:
            return
        self._seen.add(id(mech))
        self.cls(type(mech))
        self.noise_laws(mech.spec.noise)
        for value in vars(mech).values():
            self.value(value, depth=0)

    def noise_laws(self, node: Any) -> None:
        """The classes of the noise laws the spec names (their samplers draw the noise)."""
        if isinstance(node, NoiseLaw) or (isinstance(node, BaseModel) and any(
                callable(getattr(node, m, None)) for m in _SAMPLER_METHODS)):
            self.cls(type(node))
        if isinstance(node, BaseModel):
            for field in type(node).model_fields:
                self.noise_laws(getattr(node, field))
        elif isinstance(node, (tuple, list)):
            for item in node:
                self.noise_laws(item)

    def value(self, value: Any, depth: int) -> None:
        if depth > 4 or value is None or isinstance(value, (str, bytes, int, float, bool)):
            return
        if isinstance(value, Mechanism):
            self.mechanism(value)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                self.value(item, depth + 1)
        elif isinstance(value, Mapping):
            for item in value.values():
                self.value(item, depth + 1)
        elif callable(value):
            self.callable(value, depth)

    def callable(self, fn: Callable[..., Any], depth: int) -> None:
        if id(fn) in self._seen:
            return
        self._seen.add(id(fn))
        if isinstance(fn, functools.partial):
            self.value(fn.func, depth + 1)
            self.value(fn.args, depth + 1)
            self.value(dict(fn.keywords), depth + 1)
        elif inspect.ismethod(fn):
            self.value(fn.__func__, depth + 1)
            owner = fn.__self__
            self.cls(owner if isinstance(owner, type) else type(owner))
        elif inspect.isfunction(fn):
            try:
                file = inspect.getsourcefile(fn)
            except TypeError:  # pragma: no cover
                file = None
            name = fn.__module__ or (Path(file).stem if file else None)
            if _hashed_module(name):
                self.module(name, file)
                self.code.add(f"{name}:{fn.__qualname__}:{fn.__code__.co_firstlineno}")
            for cell in fn.__closure__ or ():
                try:
                    content = cell.cell_contents
                except ValueError:  # an empty cell
                    continue
                self.value(content, depth + 1)
        elif inspect.isbuiltin(fn) or inspect.ismethoddescriptor(fn):
            return  # compiled code has no source to hash
        elif isinstance(fn, type):
            self.cls(fn)
        else:  # a callable object: its class holds the code
            self.cls(type(fn))


def _source_digest(file: str) -> str:
    try:
        text = Path(file).read_bytes()
    except OSError as err:
        raise CertificateError(f"cannot read the source file {file!r}: {err}") from None
    # line endings are normalised so a checkout with CRLF endings hashes the same
    return hashlib.sha256(text.replace(b"\r\n", b"\n")).hexdigest()


class Implementation(SpecModel):
    """What :func:`implementation_of` found: the modules and code objects of a mechanism.

    Attributes
    ----------
    modules : dict
        Module name → ``sha256:<hex>`` of its source file (line endings normalised).
    code : tuple of str
        The code objects the mechanism is built from, ``module:qualname`` for classes and
        ``module:qualname:first_line`` for functions (two mechanisms in one module that
        differ only in which function they hold get different hashes).
    """

    modules: dict[str, str]
    code: tuple[str, ...]

    @property
    def hash(self) -> str:
        """``sha256:<hex>`` of the scheme, every module's name and digest, and the code objects."""
        return _combine(self.modules, self.code)


def implementation_of(mechanism: Mechanism) -> Implementation:
    """The source modules and code objects that implement ``mechanism``.

    The modules are those that define the mechanism's class and its base classes, the
    classes of the noise laws its spec names (their ``sample`` / ``sample_given`` methods
    draw the noise of every built-in mechanism), every callable the instance holds
    (``vars(mechanism)``: the functions of a :class:`~mechanisms.FunctionMechanism`, a
    statistic, closures and the callables they capture, bound methods,
    ``functools.partial``) and every mechanism it holds.  The standard library and
    privaudit's dependencies (numpy, scipy, pydantic, …) are not hashed; our own packages
    and every other module (user code, plugins) are.  Functions that this code calls by
    name but that live in other modules are not followed: keep a mechanism's helpers in
    its own module, or hold them on the instance.

    Raises
    ------
    CertificateError
        If a module's source is not available (e.g. a mechanism defined interactively).
    """
    if not isinstance(mechanism, Mechanism):
        raise CertificateError(
            f"can only hash a Mechanism, got {type(mechanism).__name__}: {mechanism!r}")
    collector = _Collector()
    collector.mechanism(mechanism)
    modules = {name: f"sha256:{_source_digest(collector.files[name])}"
               for name in sorted(collector.files)}
    return Implementation(modules=modules, code=tuple(sorted(collector.code)))


def _combine(modules: Mapping[str, str], code: Sequence[str]) -> str:
    lines = [IMPLEMENTATION_HASH_SCHEME,
             *(f"module {name} {modules[name]}" for name in sorted(modules)),
             *(f"code {item}" for item in sorted(code))]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return f"sha256:{digest}"


def implementation_hash(mechanism: Mechanism) -> tuple[str, tuple[str, ...]]:
    """The hash of the source code that implements ``mechanism``, and the hashed modules.

    The hash is the SHA-256 of :data:`IMPLEMENTATION_HASH_SCHEME`, the name and source
    digest of every module of :func:`implementation_of` and the names of the code objects
    the mechanism is built from.  It reads the source files on disk, so an edited file
    changes the hash even before the process re-imports it.

    Returns
    -------
    (str, tuple of str)
        ``"sha256:<hex>"`` and the sorted names of the hashed modules.
    """
    found = implementation_of(mechanism)
    return found.hash, tuple(found.modules)


# ----------------------------------------------------------------------------------------
# the certificate
# ----------------------------------------------------------------------------------------
def _value_text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    return str(value)


def _model_text(model: BaseModel) -> str:
    data = model.model_dump()
    kind = data.pop("kind", type(model).__name__)
    inner = ", ".join(f"{k}={_value_text(v)}" for k, v in data.items() if v is not None)
    return f"{kind}({inner})" if inner else str(kind)


def guarantee_text(spec: MechanismSpec) -> str:
    """The guarantee of ``spec`` in one line, e.g. ``approx_dp(epsilon=1, delta=1e-05)``."""
    return _model_text(spec.guarantee)


def relation_text(spec: MechanismSpec) -> str:
    """The relation of ``spec`` in one line, e.g. ``query_distance(norm=l1, radius=1)``."""
    return _model_text(spec.relation)


def claim_text(spec: MechanismSpec) -> str:
    """The guarantee and relation of ``spec`` in one line.

    Examples
    --------
    >>> from mechanisms import LaplaceMechanism
    >>> claim_text(LaplaceMechanism(1.0, 1.0).spec)
    'pure_dp(epsilon=1) under query_distance(norm=l1, radius=1)'
    """
    return f"{guarantee_text(spec)} under {relation_text(spec)}"


class CertifiedCheck(SpecModel):
    """One check of the certifying audit: its name, outcome and one-sentence summary."""

    name: str
    status: CheckStatus
    summary: str


class CertificateStatus(SpecModel):
    """Whether a certificate is current for a mechanism, and why not.

    Attributes
    ----------
    state : {"current", "stale", "missing"}
        ``current``: spec hash and implementation hash match; ``stale``: one of them (or
        the certificate itself) does not; ``missing``: there is no certificate.
    reason : str
        One readable sentence (which hash changed, which modules, which file is missing).
    """

    state: CertificateState
    reason: str

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
        The modules that hash covers; ``module_hashes`` has one digest per module so a
        stale certificate can say which module changed, and ``code_objects`` names the
        classes and functions the mechanism is built from.
    config : AuditConfig
        How the audit was run (samples, confidence, seed, pair-search budgets).
    explicit_pairs : int
        Number of explicit neighbouring pairs given to the audit.
    verdict : "no_violation"
        A violating mechanism is never certified.
    epsilon_lower_bound, epsilon_claimed, delta_claimed : the audit's ε bound and the claim.
    checks : tuple of CertifiedCheck
        Each claim check with its outcome.
    privacy_profile, power : the profile points and the power statement of the audit.
    versions : dict
        Python, privaudit, numpy, scipy, pydantic and networkx versions.
    created : datetime
        When the certificate was made (UTC).
    statement : str
        What the certificate certifies (:data:`STATEMENT`).
    notes : tuple of str
        Anything a reader must know about how this certificate was obtained.
    report : AuditReport, optional
        The full report of the certifying audit.
    """

    schema_version: int = CERTIFICATE_SCHEMA_VERSION
    mechanism: str
    spec: MechanismSpec
    spec_hash: str
    implementation_hash: str
    implementation_modules: tuple[str, ...]
    module_hashes: dict[str, str] = Field(default_factory=dict)
    code_objects: tuple[str, ...] = ()
    config: AuditConfig
    explicit_pairs: int = 0
    verdict: Literal["no_violation"] = "no_violation"
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

    @model_validator(mode="after")
    def _integrity(self) -> Certificate:
        if self.schema_version > CERTIFICATE_SCHEMA_VERSION:
            raise CertificateError(
                f"certificate schema_version {self.schema_version} is newer than this "
                f"privaudit understands ({CERTIFICATE_SCHEMA_VERSION}); upgrade privaudit")
        if self.spec.content_hash != self.spec_hash:
            raise CertificateError(
                f"certificate of {self.mechanism!r} is corrupt: its spec hashes to "
                f"{self.spec.content_hash}, but it records spec_hash = {self.spec_hash}")
        if _combine(self.module_hashes, self.code_objects) != self.implementation_hash:
            raise CertificateError(
                f"certificate of {self.mechanism!r} is corrupt: its module hashes and code "
                f"objects do not combine to implementation_hash = {self.implementation_hash}")
        if tuple(sorted(self.module_hashes)) != tuple(self.implementation_modules):
            raise CertificateError(
                f"certificate of {self.mechanism!r} is corrupt: implementation_modules "
                f"{list(self.implementation_modules)} do not match its module hashes")
        return self

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def from_report(cls, mechanism: Mechanism, report: AuditReport, *, explicit_pairs: int = 0,
                    notes: Sequence[str] = (), include_report: bool = True,
                    implementation: Implementation | None = None) -> Certificate:
        """The certificate of ``mechanism`` from the report of its (passed) audit.

        ``implementation`` is :func:`implementation_of` the mechanism taken before the
        audit (computed now when omitted).

        Raises
        ------
        CertificateError
            If the report found a violation or is inconclusive (it could not have
            detected a violation at its target ε), or belongs to another spec.
        """
        if report.spec_hash != mechanism.spec.content_hash:
            raise CertificateError(
                f"the report audited spec {report.spec_hash}, but {mechanism.name!r} has "
                f"spec {mechanism.spec.content_hash}")
        if report.violated:
            names = ", ".join(c.name for c in report.violations) or "verdict"
            raise CertificateError(
                f"refusing to certify {mechanism.name!r}: the audit found a violation "
                f"({names})\n{report.summary()}")
        if report.inconclusive:
            raise CertificateError(
                f"refusing to certify {mechanism.name!r}: the audit is inconclusive\n"
                f"{report.summary()}")
        found = implementation if implementation is not None else implementation_of(mechanism)
        return cls(
            mechanism=mechanism.name, spec=mechanism.spec, spec_hash=mechanism.spec.content_hash,
            implementation_hash=found.hash, implementation_modules=tuple(found.modules),
            module_hashes=dict(found.modules), code_objects=found.code, config=report.config,
            explicit_pairs=explicit_pairs, epsilon_lower_bound=report.epsilon_lower_bound,
            epsilon_claimed=report.epsilon_claimed, delta_claimed=report.delta_claimed,
            checks=tuple(CertifiedCheck(name=c.name, status=c.status, summary=c.summary)
                         for c in report.checks),
            privacy_profile=report.privacy_profile, power=report.power,
            versions=dict(report.versions) or library_versions(),
            created=datetime.now(UTC).replace(microsecond=0),
            runtime_seconds=round(report.runtime_seconds, 3), notes=tuple(notes),
            report=report if include_report else None)

    # -- status ----------------------------------------------------------------------------
    def status_for(self, mechanism: Mechanism) -> CertificateStatus:
        """``current`` if ``mechanism`` has this spec and this implementation, else ``stale``.

        The reason names the hash that changed and, for the implementation, the modules
        that were edited, added or removed.
        """
        reasons = []
        spec_hash = mechanism.spec.content_hash
        if spec_hash != self.spec_hash:
            reasons.append(f"spec hash changed (certificate {self.spec_hash[:19]}…, "
                           f"mechanism {spec_hash[:19]}…)")
        found = implementation_of(mechanism)
        if found.hash != self.implementation_hash:
            reasons.append(f"implementation hash changed (certificate "
                           f"{self.implementation_hash[:19]}…, code {found.hash[:19]}…: "
                           f"{_code_changes(self, found)})")
        if reasons:
            return CertificateStatus(state="stale", reason="; ".join(reasons))
        return CertificateStatus(
            state="current",
            reason=f"spec and implementation hashes match; certified {self.created:%Y-%m-%d}")

    # -- presentation ----------------------------------------------------------------------
    def summary(self) -> str:
        """A readable multi-line account of the certificate."""
        cfg = self.config
        eps = "inf" if math.isinf(self.epsilon_lower_bound) else f"{self.epsilon_lower_bound:.4g}"
        rows = [("statement", self.statement),
                ("claim", claim_text(self.spec)),
                ("summary", self.spec.summary),
                ("spec hash", self.spec_hash),
                ("implementation", (f"{self.implementation_hash} over "
                                    f"{len(self.implementation_modules)} modules: "
                                    f"{', '.join(self.implementation_modules)}")),
                ("audit", (f"{cfg.samples} samples per side, confidence "
                           f"{100 * cfg.confidence:g}%, seed {cfg.seed}, {cfg.pair_budget} "
                           f"candidate pairs, {cfg.pairs_tested} tested, claim budget "
                           f"{cfg.claim_budget}")
                 + (f", {self.explicit_pairs} explicit pairs" if self.explicit_pairs else "")),
                ("result", (f"no violation found; ε lower bound {eps} at δ = "
                            f"{self.delta_claimed:g} (claimed ε = {self.epsilon_claimed:.6g})"))]
        if self.power is not None:
            rows.append(("power", self.power.statement))
        if self.privacy_profile:
            worst = max(self.privacy_profile, key=lambda p: p.delta_lower_bound - p.delta_claimed)
            rows.append(("privacy profile", (
                f"{len(self.privacy_profile)} points within the claim (closest: "
                f"δ(ε={worst.epsilon:.3g}) ≥ {worst.delta_lower_bound:.3g} vs claimed "
                f"{worst.delta_claimed:.3g})")))
        lines = [f"privaudit certificate of {self.mechanism!r}"]
        lines.extend(_field(label, text) for label, text in rows if text)
        lines.append("  checks:")
        width = max((len(c.name) for c in self.checks), default=10)
        lines.extend(f"    [{c.status:^8}] {c.name:<{width}}  {c.summary}" for c in self.checks)
        lines.append(_field("versions", ", ".join(f"{k} {v}"
                                                  for k, v in sorted(self.versions.items()))))
        lines.append(_field("created", f"{self.created.isoformat()} (audit took "
                                       f"{self.runtime_seconds:.1f} s)"))
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


def _field(label: str, text: str, width: int = 92) -> str:
    """``  label          : text``, wrapped under its own start."""
    head = f"  {label:<15}: "
    return textwrap.fill(text, width=width, initial_indent=head,
                         subsequent_indent=" " * len(head), break_on_hyphens=False)


def _code_changes(cert: Certificate, found: Implementation) -> str:
    old, new = cert.module_hashes, found.modules
    edited = sorted(k for k in old.keys() & new.keys() if old[k] != new[k])
    added = sorted(new.keys() - old.keys())
    removed = sorted(old.keys() - new.keys())
    parts = []
    if edited:
        parts.append("edited " + ", ".join(edited))
    if added:
        parts.append("now also uses " + ", ".join(added))
    if removed:
        parts.append("no longer uses " + ", ".join(removed))
    if set(cert.code_objects) != set(found.code):
        gone = sorted(set(cert.code_objects) - set(found.code))
        came = sorted(set(found.code) - set(cert.code_objects))
        parts.append("built from other code: " + ", ".join(came)
                     + (f" instead of {', '.join(gone)}" if gone else ""))
    return "; ".join(parts) or "hashing scheme changed"


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


def certify(mechanism: Mechanism, *, config: AuditConfig | None = None,
            pairs: Sequence[tuple[Any, Any]] = (), progress: Callable[[str], None] | None = None,
            include_report: bool = True, notes: Sequence[str] = (),
            **overrides: Any) -> Certificate:
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

    Returns
    -------
    Certificate

    Raises
    ------
    CertificateError
        If the audit found a violation (the message holds the report's summary), or the
        implementation cannot be hashed.
    """
    from .auditor import audit

    if not isinstance(mechanism, Mechanism):
        raise CertificateError(
            f"can only certify a Mechanism, got {type(mechanism).__name__}: {mechanism!r}")
    found = implementation_of(mechanism)  # the code as it is when audited
    report = audit(mechanism, config=config if config is not None else CERTIFICATE_STRENGTH,
                   pairs=pairs, progress=progress, **overrides)
    return Certificate.from_report(mechanism, report, explicit_pairs=len(pairs), notes=notes,
                                   include_report=include_report, implementation=found)
