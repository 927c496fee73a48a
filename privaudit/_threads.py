"""One BLAS thread while the auditor runs.

The auditor's linear algebra is on small matrices — the Gram matrix of a logistic fit on
24 000 rows × ~80 features, blocked matrix–vector products for row keys — and it runs
between sampling calls that keep a core busy.  OpenBLAS's default thread pool (one
thread per core) then mostly waits for and contends with the process's own work: on the
two shared cores of the reference machine one logistic fit of DP-Sniper's SVT34Parallel
took 0.24–1.6 s with two BLAS threads and 0.07 s with one, and the whole audit 132 s
(profiled) against 53 s.  :func:`single_threaded_blas` caps every loaded BLAS at one
thread for the duration of a block and restores the previous limits after it.

The cap uses ``threadpoolctl`` (the package scikit-learn and joblib use for the same
purpose), whose controller is built once per process (≈4 ms) and then applies a limit in
≈25 µs.
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
