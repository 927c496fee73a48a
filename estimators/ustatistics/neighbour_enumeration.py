"""Exact local sensitivity of Ã_n on a finite record domain, by enumerating every neighbour.

For records from a finite alphabet (labels, or any finite list of record values) the
substitute-one neighbours of a data set X are the n(|alphabet| − 1) data sets obtained by
replacing one record with another value.  :func:`exact_local_sensitivity` evaluates
Algorithm 1's statistic Ã_n on all of them at once (:mod:`.batched_local_hajek`; only the
kernel values of tuples through the changed record are recomputed) and returns

    LS(X) = max_{X′ ~ X} |Ã_n(X) − Ã_n(X′)|

exactly, with the neighbour attaining it.  This is the reference against which the smooth
bounds are verified (``docs/derivations.md`` §3; ``scripts/ustat_sensitivity_check.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from privaudit.spec.errors import InvalidInputError, InvalidParameterError

from .batched_local_hajek import TupleFamily, all_index_tuples, batched_local_hajek, tuple_family
from .local_hajek import LocalHajekAlgorithm

__all__ = ["ExactLocalSensitivity", "exact_local_sensitivity", "substitution_neighbours"]


@dataclass(frozen=True, slots=True)
class ExactLocalSensitivity:
    """LS(Ã_n)(X) and where it is attained.

    Attributes
    ----------
    value : float
        LS(X) = max over the neighbours of |Ã_n(X) − Ã_n(X′)|.
    statistic : float
        Ã_n(X).
    level : int
        L_X.
    smooth_sensitivity : float
        S(X) of the algorithm (rigorous or paper).
    local_bound : float
        G(L_X) (G_rig or g_paper).
    worst_index : int
        The record i* whose replacement attains LS.
    worst_value : object
        The replacing record value.
    neighbour_levels : numpy.ndarray of int
        L_X′ of every neighbour (|L_X − L_X′| ≤ 1 when the family passes the checks).
    neighbour_smooth : numpy.ndarray
        S(X′) of every neighbour.
    neighbours : int
        Number of neighbours enumerated.
    """

    value: float
    statistic: float
    level: int
    smooth_sensitivity: float
    local_bound: float
    worst_index: int
    worst_value: Any
    neighbour_levels: npt.NDArray[np.int64]
    neighbour_smooth: npt.NDArray[np.float64]
    neighbours: int

    @property
    def ratio(self) -> float:
        """LS(X)/S(X): above 1 refutes the smooth bound at X."""
        return self.value / self.smooth_sensitivity

    @property
    def local_ratio(self) -> float:
        """LS(X)/G(L_X): above 1 refutes G as a local-sensitivity bound at X."""
        return self.value / self.local_bound


def substitution_neighbours(
    data: npt.ArrayLike, alphabet: npt.ArrayLike
) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64], npt.NDArray[Any]]:
    """Every substitute-one neighbour of ``data`` over a finite alphabet of record values.

    Returns
    -------
    neighbours : numpy.ndarray, shape (n(|alphabet| − 1), n, ...)
        The neighbouring data sets.
    index : numpy.ndarray of int
        The changed record of each.
    value : numpy.ndarray
        Its new value.
    """
    x = np.asarray(data)
    values = np.asarray(alphabet)
    rows, changed, new = [], [], []
    for i in range(x.shape[0]):
        for v in values:
            if np.array_equal(v, x[i]):
                continue
            y = x.copy()
            y[i] = v
            rows.append(y)
            changed.append(i)
            new.append(v)
    if not rows:
        raise InvalidInputError("the alphabet has a single value: the data set has no neighbour")
    return np.stack(rows), np.asarray(changed, dtype=np.int64), np.asarray(new)


def _explicit(algorithm: LocalHajekAlgorithm) -> TupleFamily:
    if algorithm.family is not None:
        return algorithm.family
    return tuple_family(all_index_tuples(algorithm.n, algorithm.degree), algorithm.n)


def exact_local_sensitivity(
    algorithm: LocalHajekAlgorithm, data: npt.ArrayLike, alphabet: npt.ArrayLike
) -> ExactLocalSensitivity:
    """LS(Ã_n)(X) by enumerating all n(|alphabet| − 1) neighbours (see the module docstring).

    Parameters
    ----------
    algorithm : LocalHajekAlgorithm
        The configured Algorithm 1 (all k-subsets are enumerated explicitly, so C(n, k)
        must be small).
    data : array_like
        The n records, each a value of ``alphabet``.
    alphabet : array_like
        The finite record domain.

    Returns
    -------
    ExactLocalSensitivity

    Raises
    ------
    InvalidInputError
        If a record is not in the alphabet or the data are invalid for the kernel.
    """
    kernel = algorithm.kernel
    x = kernel.validate_data(data)
    if x.shape[0] != algorithm.n:
        raise InvalidInputError(
            f"the data have n={x.shape[0]} records, the algorithm n={algorithm.n}"
        )
    symbols = np.asarray(alphabet)
    member = np.array([any(np.array_equal(r, v) for v in symbols) for r in x])
    if not member.all():
        raise InvalidInputError(
            f"record {int(np.argmin(member))} = {x[np.argmin(member)]!r} is not in the alphabet"
        )
    family = _explicit(algorithm)
    base = kernel.evaluate(x, family.tuples, validate=False)
    others, changed, new = substitution_neighbours(x, symbols)
    rows_of = [np.flatnonzero((family.tuples == i).any(axis=1)) for i in range(algorithm.n)]
    values = np.repeat(base[None, :], others.shape[0] + 1, axis=0)
    for b in range(others.shape[0]):
        rows = rows_of[int(changed[b])]
        values[b + 1, rows] = kernel.evaluate(others[b], family.tuples[rows], validate=False)
    batch = batched_local_hajek(
        values,
        family,
        additive_range=algorithm.additive_range,
        xi=algorithm.xi,
        beta=algorithm.beta,
    )
    gaps = np.abs(batch.weighted_means[1:] - batch.weighted_means[0])
    worst = int(np.argmax(gaps))
    level = int(batch.levels[0])
    if not 1 <= level <= algorithm.n:  # pragma: no cover - band_levels guarantees it
        raise InvalidParameterError(f"band level {level} outside 1..n")
    return ExactLocalSensitivity(
        value=float(gaps[worst]),
        statistic=float(batch.weighted_means[0]),
        level=level,
        smooth_sensitivity=float(algorithm.smooth_table[level - 1]),
        local_bound=float(algorithm.local_bounds[level - 1]),
        worst_index=int(changed[worst]),
        worst_value=new[worst].item() if new[worst].ndim == 0 else new[worst],
        neighbour_levels=batch.levels[1:].copy(),
        neighbour_smooth=algorithm.smooth_table[batch.levels[1:] - 1].copy(),
        neighbours=int(others.shape[0]),
    )
