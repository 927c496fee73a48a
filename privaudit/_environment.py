"""The versions of Python and of the libraries an audit ran with (for reports and certificates)."""

from __future__ import annotations

import functools
import platform
from importlib import metadata

from privaudit._version import __version__

__all__ = ["library_versions"]

#: The libraries whose installed versions are recorded beside Python's and privaudit's own.
_PACKAGES = ("numpy", "scipy", "pydantic", "networkx", "hypothesis")


def library_versions() -> dict[str, str]:
    """``{"python": "3.11.7", "numpy": "2.4.6", …}`` for the running interpreter.

    Read once per process (parsing the installed packages' metadata costs milliseconds,
    which every audit report would otherwise pay); a fresh dict is returned each time.
    """
    return dict(_versions())


@functools.lru_cache(maxsize=1)
def _versions() -> tuple[tuple[str, str], ...]:
    # privaudit's own version from its one home (privaudit/_version.py), so a source tree
    # reports the version it holds, whatever (or whether) an installation says
    out = {"python": platform.python_version(), "privaudit": __version__}
    for pkg in _PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:  # pragma: no cover - depends on the install
            out[pkg] = "not installed"
    return tuple(out.items())
