"""The installed version of privaudit."""

from __future__ import annotations

from importlib import metadata

__all__ = ["__version__"]

try:
    __version__ = metadata.version("privaudit")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0+source"
