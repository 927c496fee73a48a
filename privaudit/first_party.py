"""Which code is ours: the one rule that certificates and the Dask executor share.

A module is **first-party** when it belongs to none of the installed distributions (a
user's script, a command-line target, a checkout on ``PYTHONPATH``, a test module), to
privaudit's own (:data:`OWN_DISTRIBUTION`) or to an extra distribution the caller names;
everything else is **third-party**, known by its distribution's name and version, never by
its text.  The standard library and installation machinery are never first-party.
Membership is decided from the installed distributions' metadata
(:func:`importlib.metadata.packages_distributions`), never from file paths.  This module
only decides; certificates (:mod:`privaudit.trust.implementation`,
:mod:`privaudit.trust.provenance`) and the Dask executor
(:mod:`privaudit.execution.distributed`) act on the answer.

Details: ``docs/engine_notes.md``, "privaudit.first_party".
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
from collections.abc import Iterable
from importlib import metadata
from typing import Any

__all__ = [
    "OWN_DISTRIBUTION",
    "OWN_PACKAGES",
    "defining_distributions",
    "distributions_of",
    "is_first_party",
    "is_own",
    "normalize",
]

#: privaudit's own distribution (as written in ``pyproject.toml``).
OWN_DISTRIBUTION = "privaudit"

#: The top-level packages privaudit ships; used when privaudit runs from a checkout that
#: is not installed (no metadata maps them), and to find our own caches.
OWN_PACKAGES = ("privaudit",)

#: Import names of installation machinery: their source depends on the install location.
_MACHINERY_PREFIXES = ("__editable__", "_virtualenv")

#: Modules of the interpreter that are not in :data:`sys.stdlib_module_names`.
_INTERPRETER = frozenset({"builtins", "__future__", "__phello__"})

_NAME = re.compile(r"[-_.]+")


def normalize(distribution: str) -> str:
    """A distribution name in its PEP 503 normal form (``Dp_Accounting`` → ``dp-accounting``)."""
    return _NAME.sub("-", distribution).lower()


@functools.lru_cache(maxsize=4)
def _top_level_map(path: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """Top-level import name → normalised distribution names, for this ``sys.path``."""
    try:
        found = metadata.packages_distributions()
    except (OSError, ValueError, TypeError):  # pragma: no cover - unreadable metadata
        found = {}
    return {top: frozenset(normalize(d) for d in dists) for top, dists in found.items()}


@functools.lru_cache(maxsize=4)
def _namespace_map(path: tuple[str, ...]) -> dict[tuple[str, str], frozenset[str]]:
    """(top, second) import names → distributions, from every distribution's file list:
    the portions of namespace packages (``google.protobuf`` vs ``google.auth``)."""
    found: dict[tuple[str, str], set[str]] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"] if dist.metadata else None
        for file in dist.files or ():
            parts = file.parts
            if len(parts) >= 2 and name and parts[0].isidentifier():
                second = parts[1].removesuffix(".py")
                if second.isidentifier():
                    found.setdefault((parts[0], second), set()).add(normalize(name))
    return {key: frozenset(value) for key, value in found.items()}


def _is_namespace(top: str) -> bool:
    """Whether the imported top-level package ``top`` is a namespace package (PEP 420:
    no ``__init__``, portions possibly shipped by several distributions)."""
    module = sys.modules.get(top)
    return (
        module is not None
        and getattr(module, "__file__", None) is None
        and hasattr(module, "__path__")
    )


def distributions_of(module: str) -> frozenset[str]:
    """The (normalised) installed distributions that module ``module`` belongs to.

    Empty for a module that no installed distribution provides (and for the standard
    library).  Read from the metadata on the current :data:`sys.path`.  A module inside
    a namespace package is looked up by its first two names, so a user's portion of a
    namespace (``acme.mine`` beside an installed ``acme.tools``) is not taken for the
    installed distribution's.
    """
    top, _, rest = module.partition(".")
    path = tuple(sys.path)
    found = _top_level_map(path).get(top, frozenset())
    if found and rest and _is_namespace(top):
        return _namespace_map(path).get((top, rest.partition(".")[0]), frozenset())
    return found


def is_own(module: str) -> bool:
    """Whether ``module`` is privaudit's own code (installed or not)."""
    top = module.partition(".")[0]
    if top in OWN_PACKAGES:
        dists = distributions_of(module)
        return not dists or normalize(OWN_DISTRIBUTION) in dists
    return normalize(OWN_DISTRIBUTION) in distributions_of(module)


def _machinery(module: str) -> bool:
    return module.startswith(_MACHINERY_PREFIXES)


def is_first_party(module: str | None, also: Iterable[str] = ()) -> bool:
    """Whether code of ``module`` is first-party (see the module docs).

    Parameters
    ----------
    module : str or None
        A module name (``None`` and ``""`` are not first-party).
    also : iterable of str
        Distributions whose modules count as first-party too (the user's own).

    Returns
    -------
    bool
    """
    if not module:
        return False
    top = module.partition(".")[0]
    if top in sys.stdlib_module_names or top in _INTERPRETER or _machinery(module):
        return False
    dists = distributions_of(module)
    if not dists:
        return True
    ours = {normalize(OWN_DISTRIBUTION), *(normalize(d) for d in also)}
    return bool(dists & ours)


def _code_owner(obj: Any) -> str | None:
    """The module that defines ``obj``'s code: a function, class, method, partial, the
    factory inside a registry entry's ``create``, or an instance's class."""
    seen = 0
    while seen < 8:
        seen += 1
        obj = inspect.unwrap(obj) if callable(obj) else obj
        if isinstance(obj, functools.partial):
            obj = obj.func
        elif inspect.ismethod(obj):
            inner = getattr(obj.__self__, "factory", None)
            obj = inner if callable(inner) else obj.__func__
        elif inspect.isfunction(obj) or isinstance(obj, type):
            return obj.__module__
        else:
            return type(obj).__module__
    return None  # pragma: no cover - a cycle of wrappers


def defining_distributions(*objects: Any) -> frozenset[str]:
    """The installed distributions (other than privaudit's) whose code defines ``objects``.

    For a user's certificate: the distribution of the mechanism's class and of the
    factory that builds it (``functools.wraps`` wrappers, partials and a registry
    entry's ``create`` are followed to the user's function), so that a mechanism shipped
    in an installed package is hashed as first-party code however it was installed.
    """
    found: set[str] = set()
    for obj in objects:
        module = _code_owner(obj) if obj is not None else None
        if not module:
            continue
        top = module.partition(".")[0]
        if top in sys.stdlib_module_names or _machinery(module):
            continue
        found |= distributions_of(module)
    return frozenset(found - {normalize(OWN_DISTRIBUTION)})
