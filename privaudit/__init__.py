"""privaudit: the auditor, certificates, registry and command line of the privaudit project.

Mechanisms declare their claims as :mod:`spec` models; this package checks them.  Black-box
testing can refute a privacy claim, never prove one.
"""

from __future__ import annotations

from ._version import __version__

__all__ = ["__version__"]
