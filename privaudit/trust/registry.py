"""The registry of audited mechanisms and estimators: the one way to get one for use.

An entry holds a name, a zero-argument factory, a description, the audit configurations
for CI and for its certificate (:data:`~privaudit.CI_STRENGTH`,
:data:`~privaudit.CERTIFICATE_STRENGTH`) and optional explicit pairs.  :func:`get` returns
the mechanism only if its certificate is present, current and consistent
(:meth:`~privaudit.trust.certificates.Certificate.status_for`); otherwise it raises a
:class:`~spec.errors.RegistryError` naming the reason and the command that certifies the
entry (``get(name, allow_uncertified=True)``, for research, warns instead).  Third-party
mechanisms join by :func:`register` or the entry-point group ``privaudit.mechanisms``.

Details (where certificates live, entry points, an example): ``docs/engine_notes.md``,
"privaudit.trust.registry".
"""

from __future__ import annotations

import inspect
import os
import re
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from privaudit.auditing.config import CERTIFICATE_STRENGTH, CI_STRENGTH, AuditConfig
from privaudit.auditing.outcome.report import AuditReport
from privaudit.mechanisms import Mechanism
from privaudit.spec.errors import (
    CertificateError,
    InconsistentCertificateError,
    InvalidParameterError,
    PrivauditError,
    PrivauditWarning,
    RegistryError,
    StaleCertificateError,
    UncertifiedMechanismWarning,
)
from privaudit.trust.certificates import Certificate, CertificateStatus, load_certificate

__all__ = [
    "BUILTIN_CERTIFICATE_DIR",
    "CERTIFICATE_DIR_ENV",
    "DEFAULT_CERTIFICATE_DIR",
    "ENTRY_POINT_GROUP",
    "RegistryEntry",
    "audit_entry",
    "certificate",
    "certificate_path",
    "certify_command",
    "certify_entry",
    "entries",
    "entry",
    "family_wise_config",
    "get",
    "names",
    "register",
    "registry_source",
    "status",
    "status_for",
    "unregister",
]

#: Where the certificates of built-in entries are shipped (package data).
BUILTIN_CERTIFICATE_DIR = Path(__file__).resolve().parent / "builtin_certificates"
#: Environment variable naming the directory of third-party certificates.
CERTIFICATE_DIR_ENV = "PRIVAUDIT_CERTIFICATE_DIR"
#: Default directory of third-party certificates (relative to the working directory).
DEFAULT_CERTIFICATE_DIR = Path(".privaudit") / "certificates"
#: The entry-point group third-party packages register their mechanisms under.
ENTRY_POINT_GROUP = "privaudit.mechanisms"

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")

# The opt-out warning is shown every time, not once per call site; a filter the user
# installs (``-W error``, ``filterwarnings("ignore", …)``) still takes precedence.
warnings.filterwarnings("always", category=UncertifiedMechanismWarning, append=True)


@dataclass(frozen=True)
class RegistryEntry:
    """One registered mechanism.

    Attributes
    ----------
    name : str
        The registry name (letters, digits, ``_``, ``.``, ``-``); also the certificate's
        file name.
    factory : callable
        Zero-argument callable returning the :class:`~mechanisms.Mechanism`.
    description : str
        One line for ``privaudit list``.
    audit_config : AuditConfig
        Configuration of ``privaudit audit --registry`` (CI strength by default).
    certificate_config : AuditConfig
        Configuration of ``privaudit certify --registry`` (certificate strength).
    pairs : tuple of (x, y)
        Explicit neighbouring pairs every audit of the entry tests.
    builtin : bool
        Registered by :mod:`privaudit.trust.builtin_registry`.
    origin : str
        ``"builtin"``, ``"register()"`` or ``"entry point NAME"``.
    certificate_dir : Path, optional
        Where this entry's certificate lives, if not the default directory.
    notes : tuple of str
        Recorded in every certificate of the entry.
    """

    name: str
    factory: Callable[[], Mechanism]
    description: str = ""
    audit_config: AuditConfig = CI_STRENGTH
    certificate_config: AuditConfig = CERTIFICATE_STRENGTH
    pairs: tuple[tuple[Any, Any], ...] = ()
    builtin: bool = False
    origin: str = "register()"
    certificate_dir: Path | None = None
    notes: tuple[str, ...] = ()

    @property
    def certificate_path(self) -> Path:
        """Where the entry's certificate is read from and written to."""
        if self.builtin:
            directory = BUILTIN_CERTIFICATE_DIR
        elif self.certificate_dir is not None:
            directory = self.certificate_dir
        else:
            directory = Path(os.environ.get(CERTIFICATE_DIR_ENV) or DEFAULT_CERTIFICATE_DIR)
        return directory / f"{self.name}.json"

    def create(self) -> Mechanism:
        """Build the mechanism with the factory.

        Raises
        ------
        RegistryError
            If the factory fails or does not return a Mechanism.
        """
        try:
            mech = self.factory()
        except PrivauditError as err:
            raise RegistryError(
                f"the factory of registry entry {self.name!r} failed: {type(err).__name__}: {err}"
            ) from err
        except Exception as err:
            raise RegistryError(
                f"the factory of registry entry {self.name!r} raised {type(err).__name__}: {err}"
            ) from err
        if not isinstance(mech, Mechanism):
            raise RegistryError(
                f"the factory of registry entry {self.name!r} returned "
                f"{type(mech).__name__}, not a Mechanism"
            )
        return mech


_lock = threading.RLock()
_entries: dict[str, RegistryEntry] = {}
_loaded = False
_origin: list[str] = []  # the origin of registrations while a hook runs


# ----------------------------------------------------------------------------------------
# loading
# ----------------------------------------------------------------------------------------
def _ensure_loaded() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        _loaded = True
        from privaudit.trust import builtin_registry

        builtin_registry.register_builtins(_register_builtin)
        _load_entry_points()


@contextmanager
def _registering_as(origin: str) -> Iterator[None]:
    _origin.append(origin)
    try:
        yield
    finally:
        _origin.pop()


def _required_positional(fn: Callable[..., Any]) -> int | None:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    return sum(
        1
        for p in params
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )


def _load_entry_points() -> None:
    import sys

    module = sys.modules[__name__]
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        where = f"entry point {ep.name!r} ({ep.value}) of group {ENTRY_POINT_GROUP!r}"
        try:
            obj = ep.load()
            with _registering_as(f"entry point {ep.name}"):
                if isinstance(obj, Mechanism):

                    def the_instance(obj: Mechanism = obj) -> Mechanism:
                        return obj

                    register(ep.name, the_instance, description=obj.spec.summary)
                elif callable(obj) and _required_positional(obj) == 1:
                    obj(module)
                elif callable(obj) and _required_positional(obj) == 0:
                    doc = (inspect.getdoc(obj) or "").strip().splitlines()
                    register(ep.name, obj, description=doc[0] if doc else "")
                else:
                    raise RegistryError(
                        f"it loads {obj!r}, which is neither a hook taking the registry "
                        "module, nor a zero-argument factory, nor a Mechanism"
                    )
        except Exception as err:  # noqa: BLE001 - a broken plugin must not break the registry
            warnings.warn(
                PrivauditWarning(f"skipped {where}: {type(err).__name__}: {err}"), stacklevel=3
            )


# ----------------------------------------------------------------------------------------
# registration
# ----------------------------------------------------------------------------------------
def _check_config(value: Any, what: str) -> AuditConfig:
    if not isinstance(value, AuditConfig):
        raise InvalidParameterError(f"{what} must be an AuditConfig, got {value!r}")
    return value


def _make_entry(
    name: Any,
    factory: Any,
    *,
    description: Any,
    audit_config: Any,
    certificate_config: Any,
    pairs: Any,
    builtin: bool,
    origin: str,
    certificate_dir: Any,
    notes: Any,
) -> RegistryEntry:
    if not isinstance(name, str) or not _NAME.match(name) or ".." in name:
        raise InvalidParameterError(
            f"registry name must be 1-100 letters, digits, '_', '.' or '-' starting with a "
            f"letter or digit, got {name!r}"
        )
    if isinstance(factory, Mechanism):
        raise InvalidParameterError(
            f"register a zero-argument factory, not the mechanism itself: got {factory!r} "
            f"(write lambda: mechanism)"
        )
    if not callable(factory):
        raise InvalidParameterError(f"factory of {name!r} must be callable, got {factory!r}")
    if not isinstance(description, str):
        raise InvalidParameterError(f"description must be a string, got {description!r}")
    try:
        pair_tuple = tuple((x, y) for x, y in pairs)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"pairs must be a sequence of (x, y), got {pairs!r}") from None
    if isinstance(notes, str):
        notes = (notes,)
    return RegistryEntry(
        name=name,
        factory=factory,
        description=description.strip(),
        audit_config=_check_config(audit_config, "audit_config"),
        certificate_config=_check_config(certificate_config, "certificate_config"),
        pairs=pair_tuple,
        builtin=builtin,
        origin=origin,
        certificate_dir=Path(certificate_dir) if certificate_dir is not None else None,
        notes=tuple(str(n) for n in notes),
    )


def _add(entry: RegistryEntry, replace: bool) -> RegistryEntry:
    with _lock:
        old = _entries.get(entry.name)
        if old is not None and not replace:
            raise RegistryError(
                f"registry name {entry.name!r} is already taken (by {old.origin}); pass "
                "replace=True to replace it"
            )
        _entries[entry.name] = entry
    return entry


def _register_builtin(
    name: str,
    factory: Callable[[], Mechanism],
    *,
    description: str = "",
    audit_config: AuditConfig = CI_STRENGTH,
    certificate_config: AuditConfig = CERTIFICATE_STRENGTH,
    pairs: Sequence[tuple[Any, Any]] = (),
    notes: Sequence[str] | str = (),
) -> RegistryEntry:
    return _add(
        _make_entry(
            name,
            factory,
            description=description,
            audit_config=audit_config,
            certificate_config=certificate_config,
            pairs=pairs,
            builtin=True,
            origin="builtin",
            certificate_dir=None,
            notes=notes,
        ),
        replace=False,
    )


def register(
    name: str,
    factory: Callable[[], Mechanism],
    *,
    description: str = "",
    audit_config: AuditConfig = CI_STRENGTH,
    certificate_config: AuditConfig = CERTIFICATE_STRENGTH,
    pairs: Sequence[tuple[Any, Any]] = (),
    replace: bool = False,
    certificate_dir: str | Path | None = None,
    notes: Sequence[str] | str = (),
) -> RegistryEntry:
    """Register a mechanism under ``name``.

    Parameters
    ----------
    name : str
        Letters, digits, ``_``, ``.`` and ``-``; the certificate is ``NAME.json``.
    factory : callable
        Zero-argument callable that builds the mechanism (called at each :func:`get`).
    description : str
        One line shown by ``privaudit list``.
    audit_config, certificate_config : AuditConfig
        How CI audits and certificates of the entry are run.
    pairs : sequence of (x, y)
        Explicit neighbouring pairs every audit of the entry tests first.
    replace : bool
        Replace an existing entry of the same name (otherwise that is an error).
    certificate_dir : path, optional
        Directory of the entry's certificate (e.g. one shipped inside your package);
        default: ``$PRIVAUDIT_CERTIFICATE_DIR`` or ``./.privaudit/certificates``.
    notes : str or sequence of str
        Recorded in every certificate of the entry.

    Returns
    -------
    RegistryEntry

    Raises
    ------
    RegistryError
        If ``name`` is taken and ``replace`` is False.
    InvalidParameterError
        If an argument is malformed (the message names it).
    """
    _ensure_loaded()
    origin = _origin[-1] if _origin else "register()"
    return _add(
        _make_entry(
            name,
            factory,
            description=description,
            audit_config=audit_config,
            certificate_config=certificate_config,
            pairs=pairs,
            builtin=False,
            origin=origin,
            certificate_dir=certificate_dir,
            notes=notes,
        ),
        replace=replace,
    )


def unregister(name: str) -> RegistryEntry:
    """Remove the entry ``name`` and return it (:class:`RegistryError` if unknown)."""
    _ensure_loaded()
    with _lock:
        found = entry(name)
        del _entries[name]
    return found


# ----------------------------------------------------------------------------------------
# lookup
# ----------------------------------------------------------------------------------------
def names() -> tuple[str, ...]:
    """The registered names, sorted."""
    _ensure_loaded()
    with _lock:
        return tuple(sorted(_entries))


def entries() -> tuple[RegistryEntry, ...]:
    """Every registered entry, sorted by name."""
    _ensure_loaded()
    with _lock:
        return tuple(_entries[n] for n in sorted(_entries))


def entry(name: str) -> RegistryEntry:
    """The entry called ``name``; :class:`RegistryError` (listing the known names) if unknown."""
    _ensure_loaded()
    with _lock:
        found = _entries.get(name) if isinstance(name, str) else None
        if found is None:
            raise RegistryError(
                f"no registry entry named {name!r}; registered: "
                f"{', '.join(sorted(_entries)) or '(none)'}"
            )
        return found


def certificate_path(name: str) -> Path:
    """Where the certificate of entry ``name`` is read from and written to."""
    return entry(name).certificate_path


def registry_source(name: str) -> str:
    """The ``source`` a certificate of entry ``name`` records: ``registry:NAME``."""
    return f"registry:{name}"


def certify_command(name: str) -> str:
    """The command that (re)certifies entry ``name``."""
    return f"privaudit certify --registry {name}"


def certificate(name: str) -> Certificate | None:
    """The stored certificate of entry ``name``, or None when there is none.

    Raises
    ------
    CertificateError
        If the file exists but is not a valid certificate.
    """
    path = entry(name).certificate_path
    if not path.is_file():
        return None
    return load_certificate(path)


def status_for(found: RegistryEntry, mech: Mechanism) -> CertificateStatus:
    """The status of ``found``'s stored certificate for the already built ``mech``.

    An unreadable or corrupt certificate file counts as stale, with the reason.
    """
    path = found.certificate_path
    if not path.is_file():
        return CertificateStatus(state="missing", reason=f"no certificate at {path}")
    try:
        cert = load_certificate(path)
    except CertificateError as err:
        return CertificateStatus(state="stale", reason=f"the certificate is unusable: {err}")
    return cert.status_for(mech)


def status(name: str) -> CertificateStatus:
    """The certificate status of entry ``name``: current, stale or missing, with the reason.

    Raises
    ------
    RegistryError
        If ``name`` is unknown or its factory fails.
    """
    found = entry(name)
    return status_for(found, found.create())


def get(name: str, *, allow_uncertified: bool = False) -> Mechanism:
    """The mechanism registered as ``name`` — only if its certificate is current.

    Parameters
    ----------
    name : str
        A registry name (``privaudit list`` shows them).
    allow_uncertified : bool
        Research opt-out: return the mechanism even without a current certificate, with
        an :class:`~spec.errors.UncertifiedMechanismWarning` on every call.

    Returns
    -------
    Mechanism
        A fresh instance built by the entry's factory.

    Raises
    ------
    StaleCertificateError
        Without the opt-out, if the certificate is missing or stale (a
        :class:`~spec.errors.RegistryError`); the message names the reason and the
        command ``privaudit certify --registry NAME`` that certifies it.
    InconsistentCertificateError
        Without the opt-out, if the certificate contradicts itself (its verdict and
        checks, its ε bound and claim, its embedded report, its configuration; see
        :mod:`privaudit.trust.consistency`); also a :class:`~spec.errors.RegistryError`.
    RegistryError
        If ``name`` is unknown or its factory fails.
    """
    found = entry(name)
    mech = found.create()
    state = status_for(found, mech)
    if state.current:
        return mech
    problem = (
        f"registry entry {name!r} has no current certificate: certificate {state.state} "
        f"({state.reason})"
    )
    if not allow_uncertified:
        error = (
            InconsistentCertificateError if state.state == "inconsistent" else StaleCertificateError
        )
        raise error(
            f"{problem}; certify it with: {certify_command(name)} "
            "(or pass allow_uncertified=True for research use)"
        )
    warnings.warn(
        UncertifiedMechanismWarning(
            f"UNCERTIFIED MECHANISM IN USE: {problem}. Its claims have not been audited in this "
            f"form; allow_uncertified=True is for research only, never for releasing data. "
            f"Certify it with: {certify_command(name)}"
        ),
        stacklevel=2,
    )
    return mech


# ----------------------------------------------------------------------------------------
# auditing and certifying entries
# ----------------------------------------------------------------------------------------
def _config(
    base: AuditConfig, config: AuditConfig | None, overrides: dict[str, Any]
) -> AuditConfig:
    return (config if config is not None else base).merged(overrides)


def family_wise_config(config: AuditConfig, entries: int) -> AuditConfig:
    """``config`` with its confidence shared by Bonferroni over ``entries`` audits.

    Each of k audits runs at confidence 1 − α/k, so that auditing the whole registry
    reports a false violation with probability at most α = 1 − ``config.confidence``.
    Used by ``privaudit audit --registry`` and by the registry's own CI tests.
    """
    if entries <= 1:
        return config
    return config.merged({"confidence": 1.0 - (1.0 - config.confidence) / entries})


def audit_entry(
    name: str,
    *,
    config: AuditConfig | None = None,
    progress: Callable[[str], None] | None = None,
    executor: Any = None,
    **overrides: Any,
) -> AuditReport:
    """Audit entry ``name`` with its ``audit_config`` (or ``config``) and its pairs
    (``executor``: as for :func:`~privaudit.auditing.auditor.audit`, e.g. ``"dask"``)."""
    from privaudit.auditing.auditor import audit

    found = entry(name)
    return audit(
        found.create(),
        config=_config(found.audit_config, config, overrides),
        pairs=found.pairs,
        progress=progress,
        executor=executor,
    )


def certify_entry(
    name: str,
    *,
    config: AuditConfig | None = None,
    progress: Callable[[str], None] | None = None,
    **overrides: Any,
) -> Certificate:
    """Audit entry ``name`` at its ``certificate_config`` and write its certificate.

    ``config`` replaces the entry's certificate configuration and keyword ``overrides``
    replace single fields of it (``samples=`` …).

    Returns
    -------
    Certificate
        Also written to :func:`certificate_path` (``name``).

    Raises
    ------
    CertificateError
        If the audit found a violation (nothing is written).
    """
    from privaudit.trust.certificates import certify

    found = entry(name)
    cert = certify(
        found.create(),
        config=_config(found.certificate_config, config, overrides),
        pairs=found.pairs,
        progress=progress,
        notes=found.notes,
        factory=found.create,
        source=registry_source(name),
    )
    cert.write(found.certificate_path)
    return cert
