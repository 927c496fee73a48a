"""Keyed releases: outputs whose set of keys varies, encoded as fixed-length vectors.

A release over a public (for auditing) universe of K keys is a set of released keys, each
with a value or not.  :class:`KeyedRelease` declares the encoding: K presence bits (1.0 when
the key is released) followed, when values are released, by K values (0.0 when absent).
The encoding is injective, so every event on encoded vectors is an event on releases;
``"key k appears"`` is ``output[k] >= 1`` and ``"key k released with value <= t"`` is
``output[k] >= 1 and output[K + k] <= t``.  Details: ``docs/partition_selection.md``.

References: Desfontaines, Voss, Gipson & Mandayam, "Differentially private partition
selection", PoPETS 2022 (releases over an unbounded set of partitions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import Field

from ._base import SpecModel
from ._types import PositiveInt
from .errors import InputShapeError, NonFiniteInputError, OutOfDomainError

__all__ = ["KeyedRelease"]


class KeyedRelease(SpecModel):
    """The declared encoding of a release whose set of keys varies.

    Parameters
    ----------
    universe_size : int
        K, the number of keys the audit may see (keys ``0 … K − 1``).
    with_values : bool
        Whether each released key carries a value (a noisy count); ``False`` for a release
        of keys only.
    value_description : str
        What a value is (shown in the spec's statistic and in event descriptions).
    """

    kind: Literal["keyed_release"] = "keyed_release"
    universe_size: PositiveInt
    with_values: bool = True
    value_description: str = Field(default="noisy count", max_length=200)

    @property
    def output_dimension(self) -> int:
        """K (keys only) or 2K (presence bits, then values)."""
        return self.universe_size * (2 if self.with_values else 1)

    def describe(self) -> str:
        """The layout in one sentence (what a mechanism's spec names as its statistic)."""
        k = self.universe_size
        text = f"keyed release over {k} keys: coordinates 0..{k - 1} are presence bits"
        if self.with_values:
            text += (
                f", coordinates {k}..{2 * k - 1} the {self.value_description} of each key "
                "(0 when the key is not released)"
            )
        return text

    def describe_coordinate(self, j: int) -> str:
        """``"key k appears"`` or ``"<value> of key k"`` for encoded coordinate ``j``."""
        k = self.universe_size
        if not 0 <= int(j) < self.output_dimension:
            raise OutOfDomainError(
                f"coordinate {j} is outside the {self.output_dimension} coordinates of a "
                f"keyed release over {k} keys"
            )
        return f"key {j} appears" if j < k else f"{self.value_description} of key {j - k}"

    def encode(
        self, present: npt.ArrayLike, values: npt.ArrayLike | None = None
    ) -> npt.NDArray[np.float64]:
        """Encode N releases given as presence flags (N, K) and values (N, K).

        Values of absent keys are replaced by 0.0; ``values`` is required exactly when the
        release carries values.

        Raises
        ------
        InputShapeError
            If the arrays are not (N, K), or ``values`` is given (missing) for a release
            without (with) values.
        NonFiniteInputError
            If a released key's value is NaN or infinite.
        """
        k = self.universe_size
        flags = np.asarray(present, dtype=bool)
        if flags.ndim != 2 or flags.shape[1] != k:
            raise InputShapeError(f"presence flags must have shape (N, {k}), got {flags.shape}")
        if not self.with_values:
            if values is not None:
                raise InputShapeError("this keyed release carries no values; got values")
            return flags.astype(np.float64)
        if values is None:
            raise InputShapeError("this keyed release carries values; got none")
        vals = np.asarray(values, dtype=np.float64)
        if vals.shape != flags.shape:
            raise InputShapeError(f"values must have shape {flags.shape}, got {vals.shape}")
        shown = np.where(flags, vals, 0.0)
        if not np.isfinite(shown).all():
            raise NonFiniteInputError("a released key has a NaN or infinite value")
        return np.concatenate([flags.astype(np.float64), shown], axis=1)

    def encode_mappings(self, releases: Sequence[Mapping[int, Any]]) -> npt.NDArray[np.float64]:
        """Encode releases given as ``{key: value}`` mappings (values ignored, may be None,
        for a release of keys only).

        Raises
        ------
        OutOfDomainError
            If a key is not an integer in ``0 … K − 1``.
        """
        k = self.universe_size
        present = np.zeros((len(releases), k), dtype=bool)
        values = np.zeros((len(releases), k), dtype=np.float64)
        for i, release in enumerate(releases):
            for key, value in release.items():
                if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
                    raise OutOfDomainError(f"key {key!r} is not an integer key 0..{k - 1}")
                if not 0 <= int(key) < k:
                    raise OutOfDomainError(f"key {key} is outside the universe 0..{k - 1}")
                present[i, int(key)] = True
                if self.with_values:
                    values[i, int(key)] = float(value)
        return self.encode(present, values if self.with_values else None)

    def decode(self, outputs: npt.ArrayLike) -> list[dict[int, float | None]]:
        """The releases of encoded outputs (N, dimension): ``{key: value or None}`` each.

        Raises
        ------
        InputShapeError
            If the outputs are not (N, dimension).
        """
        out = np.asarray(outputs, dtype=np.float64)
        if out.ndim == 1 and self.output_dimension == 1:
            out = out[:, None]
        if out.ndim != 2 or out.shape[1] != self.output_dimension:
            raise InputShapeError(
                f"encoded outputs must have shape (N, {self.output_dimension}), got {out.shape}"
            )
        k = self.universe_size
        decoded: list[dict[int, float | None]] = []
        for row in out:
            keys = np.flatnonzero(row[:k] >= 0.5)
            decoded.append(
                {int(j): (float(row[k + j]) if self.with_values else None) for j in keys}
            )
        return decoded
