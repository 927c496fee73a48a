"""Third-party code in a certificate: distribution names and versions, never hashes.

The distributions a hashed first-party module imports, those a mechanism declares it wraps
(``wrapped_distributions``), and transitively their runtime requirements, read from the
first-party source and the installed metadata only, never from what happened to run.  A
version that differs from the running one is reported (:func:`version_differences`), never
a reason for staleness; ``verify`` then compares within a statistical tolerance.

Details: ``docs/engine_notes.md``, "privaudit.trust.provenance"; ``docs/trust.md``.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path

from privaudit.first_party import OWN_DISTRIBUTION, distributions_of, normalize
from privaudit.trust.source_units import read_source

__all__ = [
    "NOT_INSTALLED",
    "imported_top_levels",
    "installed_version",
    "running_versions",
    "third_party_versions",
    "version_differences",
]

#: The version recorded for a distribution that is not installed.
NOT_INSTALLED = "not installed"

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@functools.lru_cache(maxsize=1024)
def _imports_of(path: str, digest: str) -> frozenset[str]:
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError):
        return frozenset()
    tops: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.partition(".")[0])
    return frozenset(tops)


def imported_top_levels(path: str) -> frozenset[str]:
    """Top-level names of the absolute imports in the source file ``path``."""
    return _imports_of(path, read_source(path).digest)


@functools.cache
def installed_version(distribution: str) -> str:
    """The installed version of ``distribution``, or :data:`NOT_INSTALLED`.

    Read once per process: the version that is running is the one found at the first
    read (a package upgraded on disk later is not the code this process runs)."""
    try:
        return metadata.version(distribution)
    except (metadata.PackageNotFoundError, ValueError):
        return NOT_INSTALLED


def _requirements(distribution: str) -> list[str]:
    """The runtime requirements (no extras) that ``distribution`` declares."""
    try:
        declared = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        return []
    out = []
    for line in declared:
        if "extra ==" in line or "extra==" in line:
            continue
        found = _REQUIREMENT.match(line)
        if found:
            out.append(normalize(found.group(1)))
    return out


def third_party_versions(
    files: Mapping[str, str], *, wrapped: Iterable[str] = (), first_party: Iterable[str] = ()
) -> dict[str, str]:
    """``{distribution: version}`` of the third-party code behind some first-party files.

    Parameters
    ----------
    files : mapping
        Module name → source file of the hashed first-party modules.
    wrapped : iterable of str
        Distributions a mechanism declares it wraps.
    first_party : iterable of str
        Distributions counted as first-party (the user's): not recorded.

    Returns
    -------
    dict
        Normalised distribution name → installed version, sorted by name; the
        distributions the files import, those declared, and their installed runtime
        requirements, transitively.
    """
    skip = {normalize(OWN_DISTRIBUTION), *(normalize(d) for d in first_party)}
    todo = [normalize(d) for d in wrapped]
    for file in files.values():
        for top in imported_top_levels(file):
            todo.extend(distributions_of(top))
    found: dict[str, str] = {}
    while todo:
        dist = todo.pop()
        if dist in found or dist in skip:
            continue
        found[dist] = installed_version(dist)
        if found[dist] == NOT_INSTALLED:
            continue
        todo.extend(
            r
            for r in _requirements(dist)
            if r not in found and installed_version(r) != NOT_INSTALLED
        )
    return dict(sorted(found.items()))


def version_differences(recorded: Mapping[str, str], running: Mapping[str, str]) -> tuple[str, ...]:
    """One sentence per recorded package whose running version differs.

    ``"certified with numpy 2.1.3, running 2.2.0"``; a package not installed now reads
    ``"running none"``.  Packages that only the running side has are not differences
    (the certificate did not depend on them).
    """
    out = []
    for name in sorted(recorded):
        now = running.get(name, NOT_INSTALLED)
        if recorded[name] != now:
            shown = "none" if now == NOT_INSTALLED else now
            out.append(f"certified with {name} {recorded[name]}, running {shown}")
    return tuple(out)


def running_versions(names: Iterable[str]) -> dict[str, str]:
    """``{name: installed version}`` now, for each distribution name."""
    return {name: installed_version(name) for name in names}
