"""Execution back ends: test splits drawn in seeded blocks (streaming), the thread-pool
executor, the pair tests in forked processes, the Dask executor, and the BLAS thread cap.

Import public names from :mod:`privaudit` or from this package (``__all__``); it is a room
of the layout drawn in ``docs/architecture.md``, kept cheap to import.
"""

from __future__ import annotations

from typing import Any as _Any

from privaudit._lazy import lazy_attribute as _lazy_attribute
from privaudit._lazy import lazy_dir as _lazy_dir

# Public names are imported on first use (PEP 562), so that importing the package stays
# cheap (the command line and ``privaudit list`` import it); scripts and users import
# them from here, never from the modules, which may move.
_LAZY: dict[str, tuple[str, str]] = {
    "DaskExecutor": ("privaudit.execution.distributed", "DaskExecutor"),
    "SerialExecutor": ("privaudit.execution.streaming", "SerialExecutor"),
    "TimedExecutor": ("privaudit.execution.streaming", "TimedExecutor"),
}

__all__ = [
    "DaskExecutor",
    "SerialExecutor",
    "TimedExecutor",
]


def __getattr__(name: str) -> _Any:
    return _lazy_attribute(globals(), _LAZY, name)


def __dir__() -> list[str]:
    return _lazy_dir(globals(), _LAZY)
