"""The version of privaudit: its one home.

``pyproject.toml`` reads it (``dynamic = ["version"]``, ``[tool.setuptools.dynamic]``), so
the installed metadata, ``privaudit.__version__``, ``privaudit --version``, reports and
certificates (``versions["privaudit"]``) all show this string.  Record each release in
``CHANGELOG.md``.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
