"""Vectorised building blocks shared by the benchmark mechanisms.

* :class:`QueryMechanism` and :func:`query_spec` — mechanisms whose input is a vector (or
  a scalar) of query answers, and their :class:`~spec.MechanismSpec`;
* :func:`aborted_before`, :func:`transcript_length`, :func:`svt_codes` — the sparse vector
  technique's cut-off bookkeeping over an ``(N, n)`` boolean matrix, with no loop over N;
* :func:`murmur3_32` — MurmurHash3 (x86, 32 bit) as ``mmh3.hash`` computes it, for RAPPOR.

Sparse-vector outputs: a *code* column per query (:data:`ABOVE`, :data:`BELOW`,
:data:`ABORTED`), compared as exact values, and, where a mechanism releases noisy values,
a *value* column per query (the value where the code is ⊤, 0.0 otherwise).

Details: ``docs/engine_notes.md``, "privaudit.suites._kernels".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    GlobalSensitivity,
    MechanismSpec,
    PureDP,
    QueryDistance,
    RealInterval,
    Reference,
    VectorDomain,
)

__all__ = [
    "ABORTED",
    "ABOVE",
    "BELOW",
    "QueryMechanism",
    "aborted_before",
    "murmur3_32",
    "query_spec",
    "svt_codes",
    "transcript_length",
]

#: Code of a query answered "above the threshold" (⊤).
ABOVE = 1.0
#: Code of a query answered "below the threshold" (⊥).
BELOW = 0.0
#: Code of a query left unanswered because the cut-off had been reached.
ABORTED = -1.0

BoolArray = npt.NDArray[np.bool_]


# ----------------------------------------------------------------------------------------
# sparse vector bookkeeping
# ----------------------------------------------------------------------------------------
def aborted_before(above: BoolArray, cutoff: int) -> BoolArray:
    """Where the cut-off had already been reached before query ``j`` (per sample).

    Parameters
    ----------
    above : ndarray of bool, shape (N, n)
        ``above[s, j]``: query ``j`` of sample ``s`` compares above its threshold
        (computed for every query, as DP-Sniper does, even after the cut-off).
    cutoff : int
        Number c of ⊤ answers after which the mechanism stops.

    Returns
    -------
    ndarray of bool, shape (N, n)
        True at ``(s, j)`` when sample ``s`` answered ⊤ at least c times among queries
        ``0 … j−1``.
    """
    counts = np.cumsum(above, axis=1)
    out = np.zeros(above.shape, dtype=bool)
    out[:, 1:] = counts[:, :-1] >= cutoff
    return out


def transcript_length(above: BoolArray, cutoff: int | None) -> npt.NDArray[np.int64]:
    """Number of queries a sparse vector loop processes before it ``break``-s.

    ``n`` when the c-th ⊤ never comes (or when there is no cut-off), else the position
    of the c-th ⊤ plus one.
    """
    n = above.shape[1]
    if cutoff is None:
        return np.full(above.shape[0], n, dtype=np.int64)
    reached = np.cumsum(above, axis=1) >= cutoff
    return np.where(reached.any(axis=1), reached.argmax(axis=1) + 1, n).astype(np.int64)


def svt_codes(above: BoolArray, cutoff: int | None) -> npt.NDArray[np.float64]:
    """The code columns (:data:`ABOVE` / :data:`BELOW` / :data:`ABORTED`) of an SVT run."""
    codes = np.where(above, ABOVE, BELOW)
    if cutoff is not None:
        codes[aborted_before(above, cutoff)] = ABORTED
    return codes


# ----------------------------------------------------------------------------------------
# MurmurHash3
# ----------------------------------------------------------------------------------------
_MASK = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _MASK


def _mix(k: int) -> int:
    k = (k * 0xCC9E2D51) & _MASK
    k = _rotl(k, 15)
    return (k * 0x1B873593) & _MASK


def murmur3_32(data: str | bytes, seed: int = 0) -> int:
    """MurmurHash3_x86_32 as a signed 32-bit int, equal to ``mmh3.hash(data, seed)``.

    Parameters
    ----------
    data : str or bytes
        Text is hashed as its UTF-8 bytes.
    seed : int
        Unsigned 32-bit seed.

    References
    ----------
    Appleby, SMHasher, ``src/MurmurHash3.cpp`` (public domain).
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    h = seed & _MASK
    whole = len(raw) - len(raw) % 4
    for i in range(0, whole, 4):
        h ^= _mix(int.from_bytes(raw[i : i + 4], "little"))
        h = _rotl(h, 13)
        h = (h * 5 + 0xE6546B64) & _MASK
    tail = raw[whole:]
    if tail:
        h ^= _mix(int.from_bytes(tail, "little"))
    h ^= len(raw)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    h ^= h >> 16
    return h - (1 << 32) if h >= (1 << 31) else h


# ----------------------------------------------------------------------------------------
# mechanisms on query answers
# ----------------------------------------------------------------------------------------
class QueryMechanism(Mechanism):
    """A mechanism whose input is a vector (or one number) of query answers.

    The gray-box ``statistic`` is the validated answers themselves (a float for a
    scalar domain, a float64 vector otherwise): the benchmarks assume every query has
    sensitivity 1 in the relation's norm, and the spec's sensitivity claim says so.
    """

    def statistic(self, data: Any) -> Any:
        x = np.asarray(self.validate_input(data), dtype=np.float64)
        return float(x) if x.ndim == 0 else x.copy()


def query_spec(
    *,
    name: str,
    summary: str,
    references: Sequence[Reference],
    length: int,
    norm: Literal["l1", "linf"],
    epsilon: float,
    noise: Any = None,
    output_dimension: int = 1,
    element: Any = None,
    statistic: str | None = None,
    sensitivity: GlobalSensitivity | None = None,
    notes: str = "",
) -> MechanismSpec:
    """The spec of an ε-DP claim on ``length`` query answers with unit sensitivity.

    Parameters
    ----------
    name, summary, references, notes
        As in :class:`~spec.MechanismSpec`.
    length : int
        Number of queries (1: a scalar domain).
    norm : {"l1", "linf"}
        The neighbourhood: ``"l1"`` is StatDP's ONE_DIFFER (one answer moves by at most
        1; ℓ1 ≤ 1 also admits spreading that unit over several answers, which changes
        no privacy loss here), ``"linf"`` is ALL_DIFFER (every answer moves by ≤ 1).
    epsilon : float
        The claimed ε (pure DP).
    noise : NoiseApplication or None
        The declared noise; ``None`` for a black box.
    output_dimension : int
        Number of output columns (1: outputs of shape ``(N,)``).
    element : scalar domain, optional
        Domain of one answer (default: the real line).
    statistic : str, optional
        Description of f (default: the answers themselves).
    sensitivity : GlobalSensitivity, optional
        Default: 1 in ``norm`` on the answers.
    """
    element = RealInterval() if element is None else element
    domain = element if length == 1 else VectorDomain(element=element, length=length)
    what = "the query answer" if length == 1 else f"the vector of {length} query answers"
    return MechanismSpec(
        name=name,
        summary=summary,
        references=tuple(references),
        input_domain=domain,
        relation=QueryDistance(norm=norm, radius=1.0),
        statistic=statistic or f"identity: {what} (each of sensitivity 1)",
        output_dimension=output_dimension,
        sensitivity=(sensitivity or GlobalSensitivity(value=1.0, norm=norm),),
        noise=noise,
        guarantee=PureDP(epsilon=epsilon),
        notes=notes,
    )
