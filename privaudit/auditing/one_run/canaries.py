"""Canaries and scores for one-run audits of the DP-SGD mechanisms (:mod:`mechanisms.dpsgd`).

White-box "Dirac canaries" in the manner of Steinke, Nasr & Jagielski (NeurIPS 2023, §6):
canary ``i`` moves only its own direction, and an excluded canary is replaced by the zero
record.  :func:`ablq_canaries` (ABLQ) and :func:`logistic_canaries` (the logistic DP-SGD,
scored from the released trajectory only) each return ``(release, score)`` for
:func:`privaudit.auditing.one_run.audit.one_run_audit`.

Details (the scores): ``docs/engine_notes.md``, "privaudit.auditing.one_run.canaries".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from privaudit.auditing.sampler_outputs import draw_outputs
from privaudit.mechanisms.dpsgd import ABLQMechanism, LogisticDPSGD
from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.validation import check_sample_size

__all__ = ["ablq_canaries", "logistic_canaries"]

Release = Callable[[np.ndarray, np.random.Generator], Any]
Score = Callable[[Any], npt.NDArray[np.float64]]


def ablq_canaries(mechanism: ABLQMechanism) -> tuple[Release, Score]:
    """One canary per record and coordinate of an ABLQ mechanism with ``dim = n``."""
    m = mechanism.n
    if mechanism.dim != m:
        raise InvalidParameterError(
            f"ablq_canaries needs one coordinate per record (dim = n = {m}), got dim = "
            f"{mechanism.dim}"
        )
    c = mechanism.clip_norm

    def release(included: np.ndarray, rng: np.random.Generator) -> Any:
        data = np.diag(np.where(np.asarray(included, dtype=bool), c, 0.0))
        return draw_outputs(mechanism, data, 1, rng)[0]

    def score(output: Any) -> npt.NDArray[np.float64]:
        return np.asarray(output, dtype=np.float64).reshape(mechanism.steps, m).sum(axis=0)

    return release, score


def logistic_canaries(
    mechanism: LogisticDPSGD, background: Any, m: int, rng: np.random.Generator | int | None = 0
) -> tuple[Release, Score]:
    """``m`` canaries appended to ``background`` (``n − m`` records) of a logistic DP-SGD.

    Canary ``i`` has features ``u_i`` (a fixed random unit vector, drawn from ``rng``)
    and label +1; excluded canaries are zero records.
    """
    m = check_sample_size(m, what="m")
    base = np.asarray(background, dtype=np.float64)
    if base.shape != (mechanism.n - m, mechanism.dim + 1):
        raise InvalidParameterError(
            f"background must hold n - m = {mechanism.n - m} records of {mechanism.dim + 1} "
            f"values, got shape {base.shape}"
        )
    gen = np.random.default_rng(rng)
    directions = gen.standard_normal((m, mechanism.dim))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    canaries = np.concatenate([directions, np.ones((m, 1))], axis=1)

    def release(included: np.ndarray, rng_: np.random.Generator) -> Any:
        rows = np.where(np.asarray(included, dtype=bool)[:, None], canaries, 0.0)
        return draw_outputs(mechanism, np.concatenate([base, rows]), 1, rng_)[0]

    def score(output: Any) -> npt.NDArray[np.float64]:
        theta = np.asarray(output, dtype=np.float64).reshape(mechanism.steps, mechanism.dim)
        before = np.concatenate([np.zeros((1, mechanism.dim)), theta[:-1]])
        grads = mechanism.clipped_gradients(before, canaries)  # (T, m, d)
        step = before - theta  # (T, d)
        return np.einsum("td,tmd->m", step, grads)

    return release, score
