"""Data domains of U-statistic kernels and the validation of concrete data against them.

A :class:`DataDomain` says what one data set of a kernel looks like:

* ``"real"`` — n real records, each of shape ``record_shape`` (``()`` for scalars, ``(d,)``
  for points), optionally inside the public box [lower, upper];
* ``"labels"`` — n integer labels, optionally restricted to 0..n_labels−1;
* ``"scored_labels"`` — n records (score, label) with a real score and a label in {0, 1};
* ``"adjacency"`` — a simple undirected graph on n nodes given by its square, symmetric,
  0/1, zero-diagonal adjacency matrix (dense or scipy.sparse); the records are the nodes.

Every violation raises a specific error of :mod:`spec.errors` naming the offending value;
arrays are read by :func:`spec.validation.numeric_array`, the one reader of every public
estimator (strings, numeric strings, complex numbers and objects are refused there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

from privaudit.spec.errors import (
    EmptyInputError,
    InputShapeError,
    InvalidGraphError,
    InvalidInputError,
    InvalidParameterError,
    NonFiniteInputError,
    NonNumericInputError,
    OutOfDomainError,
)
from privaudit.spec.validation import numeric_array

__all__ = ["DataDomain", "validate_data"]

DomainKind = Literal["real", "labels", "scored_labels", "adjacency"]


def _py(value):
    """A numpy scalar as the plain Python number, for readable error messages."""
    return value.item() if hasattr(value, "item") else value


@dataclass(frozen=True, slots=True)
class DataDomain:
    """What one data set of a kernel looks like (see the module docstring).

    Attributes
    ----------
    kind : {"real", "labels", "scored_labels", "adjacency"}
        The kind of records.
    record_shape : tuple of int
        Shape of one record for ``kind="real"`` (``()`` scalars, ``(d,)`` points).
    lower, upper : float or None
        Public bounds on every coordinate of a real record (both or neither).
    n_labels : int or None
        For ``kind="labels"``: labels must lie in 0..n_labels−1 (None: any integer).
    """

    kind: DomainKind
    record_shape: tuple[int, ...] = ()
    lower: float | None = None
    upper: float | None = None
    n_labels: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("real", "labels", "scored_labels", "adjacency"):
            raise InvalidParameterError(f"unknown data domain kind {self.kind!r}")
        if (self.lower is None) != (self.upper is None):
            raise InvalidParameterError(
                f"give both data bounds or neither, got lower={self.lower!r}, upper={self.upper!r}"
            )
        if self.lower is not None and self.upper is not None:  # both or neither, checked above
            if not (np.isfinite(self.lower) and np.isfinite(self.upper)):
                raise InvalidParameterError(
                    f"data bounds must be finite, got lower={self.lower!r}, upper={self.upper!r}"
                )
            if not self.lower < self.upper:
                raise InvalidParameterError(
                    f"need lower < upper, got lower={self.lower!r}, upper={self.upper!r}"
                )
        if self.n_labels is not None and self.n_labels < 1:
            raise InvalidParameterError(f"n_labels must be >= 1, got {self.n_labels!r}")


def validate_data(data: Any, domain: DataDomain, degree: int) -> Any:
    """Return the canonical form of ``data`` for ``domain``, or raise.

    Parameters
    ----------
    data : array_like or scipy.sparse matrix
        The data set.
    domain : DataDomain
        Where its records must live.
    degree : int
        The kernel degree k; a data set needs n ≥ k records.

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_array
        float64 array of shape (n, *record_shape) for real records, int64 array of shape
        (n,) for labels, float64 array (n, 2) for scored labels, and for graphs a float64
        dense array or an int8 CSR array (n, n).

    Raises
    ------
    InvalidInputError
        Empty data, n < k, NaN/inf, a wrong shape, a record outside [lower, upper], a
        non-integer or out-of-range label.
    InvalidGraphError
        A non-square, asymmetric (directed), non-0/1 or self-looped adjacency matrix.
    """
    if domain.kind == "adjacency":
        canonical = _validate_adjacency(data)
    elif domain.kind == "labels":
        canonical = _validate_labels(data, domain.n_labels)
    elif domain.kind == "scored_labels":
        canonical = _validate_scored_labels(data)
    else:
        canonical = _validate_real(data, domain)
    n = canonical.shape[0]
    if n < degree:
        raise InvalidInputError(f"a kernel of degree k={degree} needs n >= k records, got n={n}")
    return canonical


def _as_array(data: Any, dtype: Any = np.float64) -> np.ndarray:
    if sp.issparse(data):
        raise InputShapeError("sparse input is only accepted for adjacency-matrix kernels")
    raw = numeric_array(data, "data")
    if raw.dtype.kind == "O":
        raw = raw.astype(np.float64)
    array = raw if dtype is None else raw.astype(dtype)
    if array.ndim == 0:
        raise InputShapeError(f"data must be an array of records, got the scalar {_py(array)!r}")
    if array.size == 0:
        raise EmptyInputError(f"data must be a non-empty array of records, got shape {array.shape}")
    return array


def _check_finite(array: np.ndarray) -> None:
    bad = ~np.isfinite(array)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise NonFiniteInputError(
            f"data must be finite, found {_py(array[where])!r} at index {where}"
        )


def _validate_real(data: Any, domain: DataDomain) -> np.ndarray:
    array = _as_array(data)
    expected_ndim = 1 + len(domain.record_shape)
    if array.ndim != expected_ndim or array.shape[1:] != domain.record_shape:
        expected = (
            "(n, " + ", ".join(map(str, domain.record_shape)) + ")"
            if domain.record_shape
            else "(n,)"
        )
        raise InputShapeError(f"data must have shape {expected}, got shape {array.shape}")
    _check_finite(array)
    if domain.lower is not None:
        outside = (array < domain.lower) | (array > domain.upper)
        if outside.any():
            where = tuple(int(i) for i in np.argwhere(outside)[0])
            raise OutOfDomainError(
                f"data must lie in [{domain.lower!r}, {domain.upper!r}], "
                f"found {_py(array[where])!r} at index {where}"
            )
    return array


def _validate_labels(data: Any, n_labels: int | None) -> np.ndarray:
    try:
        raw = _as_array(data, dtype=None)
    except NonNumericInputError as err:
        raise NonNumericInputError(f"labels must be integers; {err}") from None
    if raw.ndim != 1:
        raise InputShapeError(f"labels must be a 1-d array of shape (n,), got shape {raw.shape}")
    if raw.dtype.kind in "biu":
        labels = raw.astype(np.int64)
    elif raw.dtype.kind == "f":
        _check_finite(raw)
        labels = raw.astype(np.int64)
        bad = labels != raw
        if bad.any():
            i = int(np.argmax(bad))
            raise OutOfDomainError(f"labels must be integers, found {_py(raw[i])!r} at index {i}")
    else:
        raise OutOfDomainError(f"labels must be integers, got dtype {raw.dtype}")
    if n_labels is not None:
        bad = (labels < 0) | (labels >= n_labels)
        if bad.any():
            i = int(np.argmax(bad))
            raise OutOfDomainError(
                f"labels must lie in 0..{n_labels - 1}, found {_py(labels[i])!r} at index {i}"
            )
    return labels


def _validate_scored_labels(data: Any) -> np.ndarray:
    array = _as_array(data)
    if array.ndim != 2 or array.shape[1] != 2:
        raise InputShapeError(f"(score, label) records need shape (n, 2), got shape {array.shape}")
    _check_finite(array)
    labels = array[:, 1]
    bad = (labels != 0) & (labels != 1)
    if bad.any():
        i = int(np.argmax(bad))
        raise OutOfDomainError(f"labels must be 0 or 1, found {_py(labels[i])!r} at record {i}")
    return array


def _validate_adjacency(data: Any) -> Any:
    if sp.issparse(data):
        matrix = sp.csr_array(data)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise InvalidGraphError(f"an adjacency matrix must be square, got shape {matrix.shape}")
        if matrix.shape[0] == 0:
            raise InvalidInputError("an adjacency matrix needs at least one node, got shape (0, 0)")
        matrix.sum_duplicates()
        matrix.eliminate_zeros()
        values = matrix.data
        if not np.isfinite(values).all():
            raise NonFiniteInputError(
                f"adjacency entries must be finite, found {_py(values[~np.isfinite(values)][0])!r}"
            )
        if (values != 1).any():
            raise InvalidGraphError(
                f"adjacency entries must be 0 or 1, found {_py(values[values != 1][0])!r}"
            )
        diagonal = matrix.diagonal()
        if diagonal.any():
            i = int(np.flatnonzero(diagonal)[0])
            raise InvalidGraphError(f"self-loop at node {i}: A[{i}, {i}] = {_py(diagonal[i])!r}")
        asym = matrix - matrix.T
        asym.eliminate_zeros()
        if asym.nnz:
            coo = asym.tocoo()
            i, j = int(coo.row[0]), int(coo.col[0])
            raise InvalidGraphError(
                f"the graph must be undirected: A[{i}, {j}] = {_py(matrix[i, j])!r} but "
                f"A[{j}, {i}] = {_py(matrix[j, i])!r}"
            )
        return sp.csr_array(matrix, dtype=np.int8)
    array = _as_array(data)
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise InvalidGraphError(f"an adjacency matrix must be square, got shape {array.shape}")
    _check_finite(array)
    bad = (array != 0) & (array != 1)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise InvalidGraphError(
            f"adjacency entries must be 0 or 1, found A[{i}, {j}] = {_py(array[i, j])!r}"
        )
    diagonal = np.diagonal(array)
    if diagonal.any():
        i = int(np.flatnonzero(diagonal)[0])
        raise InvalidGraphError(f"self-loop at node {i}: A[{i}, {i}] = {_py(array[i, i])!r}")
    asym = array != array.T
    if asym.any():
        i, j = (int(v) for v in np.argwhere(asym)[0])
        raise InvalidGraphError(
            f"the graph must be undirected: A[{i}, {j}] = {_py(array[i, j])!r} but "
            f"A[{j}, {i}] = {_py(array[j, i])!r}"
        )
    return array
