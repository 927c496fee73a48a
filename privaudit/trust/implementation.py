"""The implementation a certificate covers: first-party source, found by running it.

:func:`implementation_of` finds the source files and functions that implement a
mechanism — by tracing a seeded release (:mod:`privaudit.trust.tracing`) and by a static walk
of the mechanism object — and hashes them (:mod:`privaudit.trust.source_units`): one digest per
file and per function, so that editing that code makes a certificate stale and the stale
status names what changed (:func:`code_changes`).

Only **first-party** code is hashed (:func:`privaudit.first_party.is_first_party`):
privaudit's own packages, modules that no installed distribution provides (a user's
script or target file), and the distributions that define the user's mechanism.
Third-party code is recorded by distribution name and version
(:func:`privaudit.trust.provenance.third_party_versions`), so an install elsewhere, in another
layout, with numba's cache cold or warm, hashes the same.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from privaudit.first_party import defining_distributions, is_first_party
from privaudit.mechanisms import Mechanism
from privaudit.spec import SpecModel
from privaudit.spec.errors import CertificateError
from privaudit.spec.noise import NoiseLaw
from privaudit.trust.provenance import third_party_versions
from privaudit.trust.source_units import enclosing_function, module_file, read_source
from privaudit.trust.tracing import trace_release

__all__ = [
    "IMPLEMENTATION_HASH_SCHEME",
    "Implementation",
    "code_changes",
    "combine_hashes",
    "current_implementation",
    "implementation_hash",
    "implementation_of",
]

#: Names the way :func:`implementation_hash` is computed; part of the hashed text.
#: Version 3: first-party code only (:mod:`privaudit.first_party`).
IMPLEMENTATION_HASH_SCHEME = "privaudit-impl-v3"

#: A model in the spec's noise description with one of these methods draws noise.
_SAMPLER_METHODS = ("sample", "sample_given")

#: The digest recorded for a module or function whose source is gone.
_MISSING = "missing"


class _Collector:
    """Walks a mechanism to the modules whose source defines its behaviour."""

    def __init__(self, first_party: Iterable[str] = ()) -> None:
        self.first_party = tuple(first_party)
        self.files: dict[str, str] = {}
        self.code: set[str] = set()
        self.functions: set[tuple[str, str]] = set()
        self._seen: set[int] = set()
        self._seen_classes: set[int] = set()

    def hashed(self, name: str | None) -> bool:
        """Whether code of module ``name`` is hashed: first-party code only."""
        return is_first_party(name, self.first_party)

    # -- modules ---------------------------------------------------------------------------
    def module(self, name: str | None, file: str | None = None) -> None:
        if not self.hashed(name) or name in self.files:
            return
        assert name is not None
        if file is None:
            mod = sys.modules.get(name)
            if mod is None:
                raise CertificateError(
                    f"cannot hash the implementation: module {name!r} is not imported"
                )
            try:
                file = inspect.getsourcefile(mod)
            except TypeError:  # a built-in module
                file = None
        if file is None or not Path(file).is_file():
            raise CertificateError(
                f"cannot hash the implementation: the source of module {name!r} is not "
                f"available (got {file!r}); define mechanisms in a .py file to certify them"
            )
        self.files[name] = file

    def cls(self, klass: type) -> None:
        if self.hashed(getattr(klass, "__module__", None)):
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
        if isinstance(node, NoiseLaw) or (
            isinstance(node, BaseModel)
            and any(callable(getattr(node, m, None)) for m in _SAMPLER_METHODS)
        ):
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
            if name is not None and self.hashed(name):  # None is never first-party
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
    first_party : tuple of str
        Installed distributions hashed as the user's own code (the distribution that
        defines the mechanism, when it is installed); privaudit's own is always hashed.
    third_party : dict
        Distribution → version of the third-party code the hashed modules import and
        the mechanism declares it wraps (:func:`privaudit.trust.provenance.third_party_versions`);
        recorded, never hashed.
    """

    modules: dict[str, str]
    functions: dict[str, str] = Field(default_factory=dict)
    code: tuple[str, ...]
    first_party: tuple[str, ...] = ()
    third_party: dict[str, str] = Field(default_factory=dict)

    @property
    def hash(self) -> str:
        """``sha256:<hex>`` of the scheme and every module, function and code object
        (the third-party versions are not part of it)."""
        return combine_hashes(self.modules, self.functions, self.code)


def _static(mechanism: Mechanism, first_party: Iterable[str] = ()) -> _Collector:
    if not isinstance(mechanism, Mechanism):
        raise CertificateError(
            f"can only hash a Mechanism, got {type(mechanism).__name__}: {mechanism!r}"
        )
    collector = _Collector(first_party)
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


def _wrapped(mechanism: Mechanism) -> tuple[str, ...]:
    """The third-party distributions a mechanism declares it wraps.

    The extension point for adapters of other libraries' samplers: a mechanism may
    define ``wrapped_distributions``, a sequence of distribution names or a mapping
    whose keys are names (e.g. ``{"opacus": "1.5.2"}``); the certificate records the
    versions installed when it is made, with the other third-party versions (reported
    when they differ, never a reason for staleness).
    """
    declared = getattr(mechanism, "wrapped_distributions", ()) or ()
    names = tuple(declared.keys()) if isinstance(declared, Mapping) else declared
    if isinstance(names, str) or not all(isinstance(d, str) for d in names):
        raise CertificateError(
            f"{type(mechanism).__name__}.wrapped_distributions must name distributions "
            f"(a sequence of names or a mapping name → version), got {declared!r}"
        )
    return tuple(names)


def implementation_of(
    mechanism: Mechanism | None = None, *, factory: Callable[[], Any] | None = None
) -> Implementation:
    """The first-party source files and functions that implement a mechanism, found by
    running it, and the versions of the third-party code they import.

    Two sources are united:

    * **the traced release** (:func:`privaudit.trust.tracing.trace_release`): every function
      of first-party code that runs when the mechanism is built (if ``factory`` is
      given), computes its statistic and gray-box hooks and samples outputs on seeded
      inputs from its domain — helpers called by name included;
    * **the static closure**: the modules that define the mechanism's class and its
      bases, the noise laws its spec names, every callable the instance holds
      (functions, closures and what they capture, bound methods, ``functools.partial``)
      and every mechanism it holds.

    First-party code (:func:`privaudit.first_party.is_first_party`) is privaudit's own,
    any module no installed distribution provides, and the distributions that define the
    mechanism's class and its factory (:func:`privaudit.first_party.defining_distributions`).
    Third-party code (numpy, scipy, numba, …) is not hashed; the distributions the hashed
    modules import, those the mechanism declares in ``wrapped_distributions`` and their
    requirements are recorded with their versions.  Give ``factory`` whenever the
    mechanism can be rebuilt (the registry and the command line do): code that runs only
    while it is built — budget splits, calibrations, family draws — is then covered too.

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
            f"can only hash a Mechanism, got {type(mechanism).__name__}: {mechanism!r}"
        )
    owners = defining_distributions(type(mechanism) if mechanism is not None else None, factory)
    traced = trace_release(
        mechanism, factory=factory, include=functools.partial(is_first_party, also=owners)
    )
    built = mechanism if mechanism is not None else traced.mechanism
    owners = owners | defining_distributions(type(built))
    collector = _static(built, owners)
    files = {**{m: f for m, f in traced.files.items() if collector.hashed(m)}, **collector.files}
    modules = {name: read_source(files[name]).digest for name in sorted(files)}
    functions = _function_digests(
        {(m, q) for m, q in set(traced.functions) | collector.functions if m in files}, files
    )
    return Implementation(
        modules=modules,
        functions=dict(sorted(functions.items())),
        code=tuple(sorted(collector.code)),
        first_party=tuple(sorted(owners)),
        third_party=third_party_versions(files, wrapped=_wrapped(built), first_party=owners),
    )


def current_implementation(recorded: Any, mechanism: Mechanism) -> Implementation:
    """What a certificate's implementation hash covers, re-read from disk now.

    ``recorded`` is an :class:`Implementation` or anything with an ``implementation``
    attribute holding one (a :class:`~privaudit.trust.certificates.Certificate`).  Every file
    and function it names is hashed again as it is now (a file or function that no
    longer exists hashes as ``"missing"``), and the static closure of ``mechanism`` is
    added, with the recorded first-party distributions (a module the mechanism now holds
    but the certificate does not record makes the hash differ).  The traced release is
    not re-run: any change to what runs must be an edit of code that ran, which is
    covered.  Third-party versions are not part of the hash and are not re-read here
    (:func:`privaudit.trust.provenance.running_versions` reads them).
    """
    recorded = getattr(recorded, "implementation", recorded)
    if not isinstance(recorded, Implementation):
        raise CertificateError(
            f"expected an Implementation or a certificate, got {type(recorded).__name__}"
        )
    collector = _static(mechanism, recorded.first_party)
    files: dict[str, str | None] = {name: module_file(name) for name in recorded.modules}
    files.update(collector.files)
    # each file read once: one snapshot of the disk for the modules and their functions
    sources = {name: read_source(file) for name, file in files.items() if file is not None}
    modules = {
        name: (sources[name].digest if name in sources else _MISSING) for name in sorted(files)
    }
    functions: dict[str, str] = {}
    for key in recorded.functions:
        module, _, qualname = key.partition(":")
        found = sources[module].functions.get(qualname) if module in sources else None
        functions[key] = found if found is not None else _MISSING
    present = {m: f for m, f in files.items() if f is not None}
    functions.update(
        _function_digests({(m, q) for m, q in collector.functions if m in present}, present)
    )
    return Implementation(
        modules=modules,
        functions=dict(sorted(functions.items())),
        code=tuple(sorted(collector.code)),
        first_party=recorded.first_party,
        third_party=dict(recorded.third_party),
    )


def combine_hashes(
    modules: Mapping[str, str], functions: Mapping[str, str], code: Sequence[str]
) -> str:
    """``sha256:<hex>`` of :data:`IMPLEMENTATION_HASH_SCHEME` and every module, function
    and code object digest (the implementation hash a certificate records)."""
    lines = [
        IMPLEMENTATION_HASH_SCHEME,
        *(f"module {name} {modules[name]}" for name in sorted(modules)),
        *(f"function {name} {functions[name]}" for name in sorted(functions)),
        *(f"code {item}" for item in sorted(code)),
    ]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return f"sha256:{digest}"


def implementation_hash(
    mechanism: Mechanism, *, factory: Callable[[], Any] | None = None
) -> tuple[str, tuple[str, ...]]:
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
        changed = sorted(
            key.partition(":")[2]
            for key in old_fn.keys() & new_fn.keys()
            if key.partition(":")[0] == module and old_fn[key] != new_fn[key]
        )
        gone = sorted(
            key.partition(":")[2]
            for key in old_fn
            if key.partition(":")[0] == module and new_fn.get(key) == _MISSING
        )
        changed = [name for name in changed if name not in gone]
        what = []
        if changed:
            what.append("function" + ("s " if len(changed) > 1 else " ") + ", ".join(changed))
        if gone:
            what.append("no longer defines " + ", ".join(gone))
        parts.append(
            f"edited {module} ("
            + ("; ".join(what) if what else "outside the functions that ran")
            + ")"
        )
    if added:
        parts.append("now also uses " + ", ".join(added))
    if removed:
        parts.append("no longer uses " + ", ".join(removed))
    if set(recorded.code) != set(found.code):
        gone = sorted(set(recorded.code) - set(found.code))
        came = sorted(set(found.code) - set(recorded.code))
        parts.append(
            "built from other code: "
            + ", ".join(came)
            + (f" instead of {', '.join(gone)}" if gone else "")
        )
    return "; ".join(parts) or "hashing scheme changed"
