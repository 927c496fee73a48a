"""Certificates: what an audit found, bound to the exact spec and code it audited.

A :class:`Certificate` is a frozen pydantic model that round-trips through JSON.  It
records

* the mechanism's spec and its content hash (:attr:`spec.MechanismSpec.content_hash`);
* an *implementation hash* over every source file and function that runs when the
  mechanism is built, computes its statistic and samples outputs — found by tracing a
  seeded release (:mod:`privaudit.trust.tracing`) and by a static walk of the mechanism object
  — with one digest per file and per function, so that editing that code makes the
  certificate stale and the stale status names what changed (see :func:`implementation_of`);
* the audit configuration (samples, confidence, seed, pair-search budgets) and the
  number of explicit pairs; the neighbouring relation is part of the spec;
* the results: each check with its outcome, the ε lower bound, the privacy profile and
  the power statement (optionally the whole :class:`~privaudit.auditing.report.AuditReport`);
* the versions of Python, privaudit and its dependencies, and the UTC date-time.

What a certificate says is fixed (:data:`STATEMENT`): the claims are consistent with the
spec and no violation was found at the stated confidence and power.  It is not a proof
of privacy.

A certificate is *current* for a mechanism when both hashes match and it is consistent
(:meth:`Certificate.consistency`), *stale* when a hash does not match
(:meth:`Certificate.status_for` names the hash, the files and the functions that
changed), and *inconsistent* when its recorded results contradict each other.

What a certificate proves is reproducibility and code identity: that this spec and
this code, audited with the recorded configuration and seed, gave the recorded results
(``privaudit verify`` re-runs the audit and checks it).  It is not a signature: anyone
can write one, so it says nothing about who made it.

Examples
--------
>>> from mechanisms import LaplaceMechanism
>>> from privaudit import CI_STRENGTH
>>> mech = LaplaceMechanism(1.0, 1.0)
>>> cert = certify(mech, config=CI_STRENGTH, samples=100_000)  # the certificate minimum
>>> cert.status_for(mech).state
'current'
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import math
import os
import sys
import sysconfig
import textwrap
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, Field, model_validator

from mechanisms import Mechanism
from spec import ExtendedEpsilon, MechanismSpec, SpecModel
from spec.errors import CertificateError, PrivauditError
from spec.noise import NoiseLaw

from privaudit._environment import library_versions
from privaudit.auditing.config import CERTIFICATE_STRENGTH, AuditConfig, below_certificate_minimums
from privaudit.auditing.report import AuditReport
from privaudit.auditing.results import CheckStatus, PowerStatement, ProfilePoint
from .source_units import enclosing_function, module_file, read_source
from privaudit.auditing.texts import claim_text, guarantee_text, relation_text
from .tracing import trace_release

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
]

#: Bumped whenever a field of the certificate changes meaning or disappears.  Version 2:
#: the implementation hash covers the traced release and per-function digests.
CERTIFICATE_SCHEMA_VERSION = 2

#: Names the way :func:`implementation_hash` is computed; part of the hashed text.
IMPLEMENTATION_HASH_SCHEME = "privaudit-impl-v2"

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

CertificateState = Literal["current", "stale", "missing", "inconsistent"]

#: The verdicts an audit report can carry; a certificate is never made of a violation.
_VERDICTS = ("no_violation", "inconclusive", "violation")


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


@functools.lru_cache(maxsize=1)
def _install_directories() -> tuple[str, ...]:
    """The interpreter's library directories (stdlib and site-packages), as real paths."""
    paths = sysconfig.get_paths()
    found = {os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib", "purelib",
                                                       "platlib") if paths.get(key)}
    return tuple(sorted(found))


def _installed_elsewhere(name: str) -> bool:
    """Whether module ``name`` is installation machinery, not code a user wrote.

    Setuptools' editable-install finders (``__editable___<dist>_finder``, which run while a
    release imports something lazily) and every other module whose file lies in the
    interpreter's stdlib or site-packages directories: their text depends on where and how
    the package was installed (the finder embeds the checkout's path), so hashing them
    would make a certificate stale on every other machine.
    """
    if name.startswith("__editable__"):
        return True
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None)
    if not file:
        return False
    real = os.path.realpath(file)
    return any(real.startswith(directory + os.sep) for directory in _install_directories())


def _hashed_module(name: str | None) -> bool:
    if not name:
        return False
    top = name.partition(".")[0]
    if top in _OWN_PACKAGES:
        return True
    return top not in _dependency_packages() and not _installed_elsewhere(name)


class _Collector:
    """Walks a mechanism to the modules whose source defines its behaviour."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.code: set[str] = set()
        self.functions: set[tuple[str, str]] = set()
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
                self.functions.add((name, fn.__qualname__))
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


class Implementation(SpecModel):
    """The source a mechanism's certificate covers: files, functions and code objects.

    Attributes
    ----------
    modules : dict
        Module name → ``sha256:<hex>`` of its source file (line endings normalised), for
        every module whose code ran in the traced release or that the static walk found.
    functions : dict
        ``module:qualname`` → ``sha256:<hex>`` of that function's source, for every
        function that ran in the traced release or that the mechanism holds (so that a
        stale certificate names the function that changed; ``"missing"`` when a recorded
        function is no longer defined).
    code : tuple of str
        The code objects the mechanism is built from, ``module:qualname`` for classes and
        ``module:qualname:first_line`` for held functions (two mechanisms in one module
        that differ only in which function they hold get different hashes).
    """

    modules: dict[str, str]
    functions: dict[str, str] = Field(default_factory=dict)
    code: tuple[str, ...]

    @property
    def hash(self) -> str:
        """``sha256:<hex>`` of the scheme and every module, function and code object."""
        return _combine(self.modules, self.functions, self.code)


#: The digest recorded for a module or function whose source is gone.
_MISSING = "missing"


def _static(mechanism: Mechanism) -> _Collector:
    if not isinstance(mechanism, Mechanism):
        raise CertificateError(
            f"can only hash a Mechanism, got {type(mechanism).__name__}: {mechanism!r}")
    collector = _Collector()
    collector.mechanism(mechanism)
    return collector


def _function_digests(wanted: set[tuple[str, str]], files: Mapping[str, str]) -> dict[str, str]:
    """``module:qualname`` → digest of each wanted function (lambdas and comprehensions
    count as the function around them; module and class bodies as no function)."""
    out: dict[str, str] = {}
    for module, qualname in wanted:
        source = read_source(files[module])
        name = enclosing_function(qualname, source.functions)
        if name is not None:
            out[f"{module}:{name}"] = source.functions[name]
    return out


def implementation_of(mechanism: Mechanism | None = None, *,
                      factory: Callable[[], Any] | None = None) -> Implementation:
    """The source files and functions that implement a mechanism, found by running it.

    Two sources are united:

    * **the traced release** (:func:`privaudit.trust.tracing.trace_release`): every function
      of our packages and of user modules that runs when the mechanism is built (if
      ``factory`` is given), computes its statistic and gray-box hooks and samples
      outputs on seeded inputs from its domain — helpers called by name included;
    * **the static closure**: the modules that define the mechanism's class and its
      bases, the noise laws its spec names, every callable the instance holds
      (functions, closures and what they capture, bound methods, ``functools.partial``)
      and every mechanism it holds.

    The standard library and privaudit's dependencies (numpy, scipy, pydantic, …) are
    not hashed.  Give ``factory`` whenever the mechanism can be rebuilt (the registry
    and the command line do): code that runs only while it is built — budget splits,
    calibrations, family draws — is then covered too.

    Parameters
    ----------
    mechanism : Mechanism, optional
        The mechanism; needed unless ``factory`` is given.
    factory : callable, optional
        Zero-argument callable that builds it (traced as part of the release).

    Raises
    ------
    CertificateError
        If a module's source is not available (e.g. a mechanism defined interactively),
        or the traced release fails.
    """
    if mechanism is not None and not isinstance(mechanism, Mechanism):
        raise CertificateError(
            f"can only hash a Mechanism, got {type(mechanism).__name__}: {mechanism!r}")
    traced = trace_release(mechanism, factory=factory, include=_hashed_module)
    collector = _static(mechanism if mechanism is not None else traced.mechanism)
    files = {**traced.files, **collector.files}
    modules = {name: read_source(files[name]).digest for name in sorted(files)}
    functions = _function_digests(set(traced.functions) | collector.functions, files)
    return Implementation(modules=modules, functions=dict(sorted(functions.items())),
                          code=tuple(sorted(collector.code)))


def current_implementation(recorded: Certificate | Implementation,
                           mechanism: Mechanism) -> Implementation:
    """What a certificate's implementation hash covers, re-read from disk now.

    Every file and function ``recorded`` (a certificate or an :class:`Implementation`)
    names is hashed again as it is now (a file or function that no longer exists hashes
    as ``"missing"``), and the static closure of ``mechanism`` is added (a module the
    mechanism now holds but the certificate does not record makes the hash differ).  The
    traced release is not re-run: any change to what runs must be an edit of code that
    ran, which is covered.
    """
    if isinstance(recorded, Certificate):
        recorded = recorded.implementation
    collector = _static(mechanism)
    files: dict[str, str | None] = {name: module_file(name) for name in recorded.modules}
    files.update(collector.files)
    modules = {name: (read_source(file).digest if file is not None else _MISSING)
               for name, file in sorted(files.items())}
    functions: dict[str, str] = {}
    for key in recorded.functions:
        module, _, qualname = key.partition(":")
        file = files.get(module)
        found = read_source(file).functions.get(qualname) if file is not None else None
        functions[key] = found if found is not None else _MISSING
    present = {m: f for m, f in files.items() if f is not None}
    functions.update(_function_digests(
        {(m, q) for m, q in collector.functions if m in present}, present))
    return Implementation(modules=modules, functions=dict(sorted(functions.items())),
                          code=tuple(sorted(collector.code)))


def _combine(modules: Mapping[str, str], functions: Mapping[str, str],
             code: Sequence[str]) -> str:
    lines = [IMPLEMENTATION_HASH_SCHEME,
             *(f"module {name} {modules[name]}" for name in sorted(modules)),
             *(f"function {name} {functions[name]}" for name in sorted(functions)),
             *(f"code {item}" for item in sorted(code))]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return f"sha256:{digest}"


def implementation_hash(mechanism: Mechanism, *,
                        factory: Callable[[], Any] | None = None) -> tuple[str, tuple[str, ...]]:
    """The hash of the source code that implements ``mechanism``, and the hashed modules.

    The hash is the SHA-256 of :data:`IMPLEMENTATION_HASH_SCHEME` and the name and
    digest of every module, function and code object of :func:`implementation_of`.  It
    reads the source files on disk, so an edited file changes the hash even before the
    process re-imports it.

    Returns
    -------
    (str, tuple of str)
        ``"sha256:<hex>"`` and the sorted names of the hashed modules.
    """
    found = implementation_of(mechanism, factory=factory)
    return found.hash, tuple(found.modules)


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
    function_hashes: dict[str, str] = Field(default_factory=dict)
    code_objects: tuple[str, ...] = ()
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

    @model_validator(mode="before")
    @classmethod
    def _schema(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            version = data.get("schema_version", CERTIFICATE_SCHEMA_VERSION)
            if isinstance(version, int) and version < CERTIFICATE_SCHEMA_VERSION:
                raise CertificateError(
                    f"certificate schema_version {version} is older than this privaudit "
                    f"reads ({CERTIFICATE_SCHEMA_VERSION}): its implementation hash does not "
                    "cover the traced release; re-certify (privaudit certify --registry NAME, "
                    "or privaudit certify TARGET)")
        return data

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
        if (_combine(self.module_hashes, self.function_hashes, self.code_objects)
                != self.implementation_hash):
            raise CertificateError(
                f"certificate of {self.mechanism!r} is corrupt: its module and function "
                f"hashes and code objects do not combine to implementation_hash = "
                f"{self.implementation_hash}")
        if tuple(sorted(self.module_hashes)) != tuple(self.implementation_modules):
            raise CertificateError(
                f"certificate of {self.mechanism!r} is corrupt: implementation_modules "
                f"{list(self.implementation_modules)} do not match its module hashes")
        return self

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def from_report(cls, mechanism: Mechanism, report: AuditReport, *, explicit_pairs: int = 0,
                    notes: Sequence[str] = (), include_report: bool = True,
                    implementation: Implementation | None = None,
                    source: str | None = None) -> Certificate:
        """The certificate of ``mechanism`` from the report of its (passed) audit.

        ``implementation`` is :func:`implementation_of` the mechanism taken before the
        audit (computed now, without a factory, when omitted); ``source`` says how to
        rebuild the mechanism (``registry:NAME`` or a target).

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
        weak = below_certificate_minimums(report.config)
        if weak:
            raise CertificateError(
                f"refusing to certify {mechanism.name!r}: the audit configuration is below "
                f"the certificate minimums ({'; '.join(weak)})")
        found = implementation if implementation is not None else implementation_of(mechanism)
        return cls(
            mechanism=mechanism.name, spec=mechanism.spec, spec_hash=mechanism.spec.content_hash,
            implementation_hash=found.hash, implementation_modules=tuple(found.modules),
            module_hashes=dict(found.modules), function_hashes=dict(found.functions),
            code_objects=found.code, source=source, config=report.config,
            explicit_pairs=explicit_pairs, verdict=report.verdict,
            epsilon_lower_bound=report.epsilon_lower_bound,
            epsilon_claimed=report.epsilon_claimed, delta_claimed=report.delta_claimed,
            checks=tuple(CertifiedCheck(name=c.name, status=c.status, summary=c.summary)
                         for c in report.checks),
            privacy_profile=report.privacy_profile, power=report.power,
            versions=dict(report.versions) or library_versions(),
            created=datetime.now(UTC).replace(microsecond=0),
            runtime_seconds=round(report.runtime_seconds, 3), notes=tuple(notes),
            report=report if include_report else None)

    # -- status ----------------------------------------------------------------------------
    @property
    def implementation(self) -> Implementation:
        """The recorded :class:`Implementation` (module and function digests, code objects)."""
        return Implementation(modules=dict(self.module_hashes),
                              functions=dict(self.function_hashes), code=self.code_objects)

    def consistency(self) -> Any:
        """Whether the recorded results agree with each other
        (:func:`privaudit.trust.consistency.check_consistency`)."""
        from .consistency import check_consistency

        return check_consistency(self)

    def status_for(self, mechanism: Mechanism) -> CertificateStatus:
        """``current`` if ``mechanism`` has this spec and this implementation, else ``stale``.

        The reason names the hash that changed and, for the implementation, the modules
        and functions that were edited, added or removed.  A certificate whose recorded
        results contradict each other is ``inconsistent`` (checked first).
        """
        consistency = self.consistency()
        if not consistency.consistent:
            return CertificateStatus(state="inconsistent", reason=consistency.reason)
        reasons = []
        spec_hash = mechanism.spec.content_hash
        if spec_hash != self.spec_hash:
            reasons.append(f"spec hash changed (certificate {self.spec_hash[:19]}…, "
                           f"mechanism {spec_hash[:19]}…)")
        found = current_implementation(self, mechanism)
        if found.hash != self.implementation_hash:
            reasons.append(f"implementation hash changed (certificate "
                           f"{self.implementation_hash[:19]}…, code {found.hash[:19]}…: "
                           f"{code_changes(self.implementation, found)})")
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
                                    f"{len(self.implementation_modules)} modules and "
                                    f"{len(self.function_hashes)} functions (traced release "
                                    f"and static closure): "
                                    f"{', '.join(self.implementation_modules)}")),
                ("source", self.source or ""),
                ("audit", (f"{cfg.samples} samples per side, confidence "
                           f"{100 * cfg.confidence:g}%, seed {cfg.seed}, {cfg.pair_budget} "
                           f"candidate pairs, {cfg.pairs_tested} tested, claim budget "
                           f"{cfg.claim_budget}")
                 + (f", {self.explicit_pairs} explicit pairs" if self.explicit_pairs else "")),
                ("result", (f"{self.verdict.replace('_', ' ')}; ε lower bound {eps} at δ = "
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


def code_changes(recorded: Implementation, found: Implementation) -> str:
    """What differs between two implementations, in one line: the edited modules with
    the functions whose source changed, and the modules used or no longer used."""
    old, new = recorded.modules, found.modules
    old_fn, new_fn = recorded.functions, found.functions
    edited = sorted(k for k in old.keys() & new.keys() if old[k] != new[k])
    added = sorted(new.keys() - old.keys())
    removed = sorted(old.keys() - new.keys())
    parts = []
    for module in edited:
        if new[module] == _MISSING:
            parts.append(f"module {module} is gone")
            continue
        changed = sorted(key.partition(":")[2] for key in old_fn.keys() & new_fn.keys()
                         if key.partition(":")[0] == module and old_fn[key] != new_fn[key])
        gone = sorted(key.partition(":")[2] for key in old_fn
                      if key.partition(":")[0] == module and new_fn.get(key) == _MISSING)
        changed = [name for name in changed if name not in gone]
        what = []
        if changed:
            what.append("function" + ("s " if len(changed) > 1 else " ") + ", ".join(changed))
        if gone:
            what.append("no longer defines " + ", ".join(gone))
        parts.append(f"edited {module} ("
                     + ("; ".join(what) if what else "outside the functions that ran") + ")")
    if added:
        parts.append("now also uses " + ", ".join(added))
    if removed:
        parts.append("no longer uses " + ", ".join(removed))
    if set(recorded.code) != set(found.code):
        gone = sorted(set(recorded.code) - set(found.code))
        came = sorted(set(found.code) - set(recorded.code))
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
            factory: Callable[[], Any] | None = None, source: str | None = None,
            executor: Any = None, **overrides: Any) -> Certificate:
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

    if not isinstance(mechanism, Mechanism):
        raise CertificateError(
            f"can only certify a Mechanism, got {type(mechanism).__name__}: {mechanism!r}")
    cfg = (config if config is not None else CERTIFICATE_STRENGTH).merged(overrides)
    weak = below_certificate_minimums(cfg)
    if weak:
        raise CertificateError(
            f"refusing to certify {mechanism.name!r}: the audit configuration is below the "
            f"certificate minimums ({'; '.join(weak)})")
    found = implementation_of(mechanism, factory=factory)  # the code as it is when audited
    report = audit(mechanism, config=cfg, pairs=pairs, progress=progress, executor=executor)
    return Certificate.from_report(mechanism, report, explicit_pairs=len(pairs), notes=notes,
                                   include_report=include_report, implementation=found,
                                   source=source)
