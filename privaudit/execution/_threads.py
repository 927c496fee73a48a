"""One BLAS thread while the auditor runs.

The auditor's linear algebra is on small matrices — the Gram matrix of a logistic fit on
24 000 rows × ~80 features, blocked matrix–vector products for row keys — and it runs
between sampling calls.  When the process shares its cores with other busy work,
OpenBLAS's default pool (one thread per core) mostly waits and contends: on the two
cores of the reference machine, with one other busy process, one logistic fit
(24 000 × 80) took 0.095–0.26 s with two BLAS threads and 0.07 s with one.  On a quiet
machine two threads are faster for that fit (0.044 s), but a whole audit is not: an
SVT34Parallel audit (2.5·10⁶ per side, two pairs) took 52.4 s uncapped and 54.0 s
capped, the same bound.  The cap trades that small loss on a quiet machine for
robustness on a shared one.  :func:`single_threaded_blas` caps every loaded BLAS at one
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
