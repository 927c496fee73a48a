"""The auditor caps BLAS at one thread while it runs, and restores the caller's limits."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from privaudit import audit
from privaudit.execution.blas_threads import single_threaded_blas
from privaudit.mechanisms.additive import LaplaceMechanism


def _blas_threads() -> list[int]:
    return [int(i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas"]


def test_single_threaded_blas_caps_and_restores():
    np.ones((2, 2)) @ np.ones((2, 2))  # BLAS is loaded
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        with single_threaded_blas():
            assert _blas_threads() and all(n == 1 for n in _blas_threads())
        assert _blas_threads() == before


class _RecordingLaplace(LaplaceMechanism):
    """Laplace whose sampler records the BLAS thread counts it runs under."""

    seen: list[list[int]]

    def sample(self, data, size, rng):  # type: ignore[override]  # same call, untyped test double
        self.seen.append(_blas_threads())
        return super().sample(data, size, rng)


def test_audit_runs_with_one_blas_thread():
    mech = _RecordingLaplace(1.0, 1.0)
    mech.seen = []
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        report = audit(mech, samples=2_000, pilot_samples=500, seed=0)
        assert _blas_threads() == before
    assert report.verdict == "no_violation"
    assert mech.seen and all(n == 1 for counts in mech.seen for n in counts)
