"""One BLAS thread while the auditor runs.

The auditor's linear algebra is on small matrices between sampling calls, where a BLAS pool
of one thread per core mostly waits and contends when the cores are shared.
:func:`single_threaded_blas` caps every loaded BLAS at one thread for the duration of a
block and restores the previous limits after it, with ``threadpoolctl`` (as scikit-learn
and joblib do): robustness on a shared machine for a small loss on a quiet one.

Details (the measurements): ``docs/engine_notes.md``, "privaudit.execution.blas_threads".
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

__all__ = ["single_threaded_blas"]


@lru_cache(maxsize=1)
def _controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Cap the BLAS libraries loaded in this process at one thread inside the block."""
    with _controller().limit(limits=1, user_api="blas"):
        yield
