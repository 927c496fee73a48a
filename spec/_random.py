"""Injected randomness: every random function takes a ``numpy.random.Generator`` or a seed.

Nothing in privaudit touches numpy's or Python's global random state.
"""

from __future__ import annotations

import bisect
import math
import numbers
from typing import Any, TypeAlias

import numpy as np

from .errors import InvalidParameterError

__all__ = ["RandomLike", "WeightedChoice", "as_generator"]

#: What a random function accepts: a Generator, an integer seed, a SeedSequence, or None
#: (a fresh generator seeded from the operating system's entropy, for production releases).
RandomLike: TypeAlias = np.random.Generator | int | np.random.SeedSequence | None


def as_generator(rng: RandomLike) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``rng``.

    Parameters
    ----------
    rng : Generator, int, SeedSequence or None
        A generator is returned as it is (so draws advance the caller's stream); an
        integer or SeedSequence seeds a new PCG64 generator; ``None`` draws fresh OS
        entropy.  ``numpy.random.RandomState`` and the legacy global functions are refused.

    Raises
    ------
    InvalidParameterError
        If ``rng`` is of any other type, or a negative seed.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise InvalidParameterError(f"seed must be a non-negative integer, got {rng!r}")
        return np.random.default_rng(int(rng))
    raise InvalidParameterError(
        f"rng must be a numpy.random.Generator, an integer seed or None, got {type(rng).__name__}"
    )


class WeightedChoice:
    """Draws of an index with fixed probabilities, exactly as ``gen.choice(k, p=p)`` draws.

    ``numpy.random.Generator.choice(k, p=p)`` (one draw, with replacement) checks ``p``,
    builds ``cdf = p.cumsum(); cdf /= cdf[-1]``, draws one ``u = gen.random()`` and
    returns ``cdf.searchsorted(u, side="right")``.  This class checks ``p`` and builds
    that cdf once; :meth:`draw` then takes the same single ``gen.random()`` and the same
    search (:func:`bisect.bisect_right` on the cdf's float64 values compares exactly as
    ``searchsorted(side="right")`` does), so it returns the same index and leaves the
    generator in the same state, for a small part of the cost of ``choice``'s checks.

    Parameters
    ----------
    probabilities : array_like
        One-dimensional, non-negative and finite, summing to 1 within ``choice``'s
        tolerance (√ of the float64 machine epsilon).

    Raises
    ------
    InvalidParameterError
        If ``probabilities`` is empty, not one-dimensional, has a negative or non-finite
        entry, or does not sum to 1.

    Examples
    --------
    >>> weights = WeightedChoice([0.3, 0.35, 0.25, 0.1])
    >>> a, b = np.random.default_rng(7), np.random.default_rng(7)
    >>> [weights.draw(a) for _ in range(8)] == [int(b.choice(4, p=[0.3, 0.35, 0.25, 0.1]))
    ...                                         for _ in range(8)]
    True
    """

    def __init__(self, probabilities: Any) -> None:
        p = np.asarray(probabilities, dtype=np.float64)
        if p.ndim != 1 or p.size == 0:
            raise InvalidParameterError(
                f"probabilities must be a non-empty one-dimensional array, got shape {p.shape}"
            )
        if not np.all(np.isfinite(p)) or np.any(p < 0):
            raise InvalidParameterError(
                f"probabilities must be finite and non-negative, got {p.tolist()!r}"
            )
        if abs(math.fsum(p.tolist()) - 1.0) > math.sqrt(np.finfo(np.float64).eps):
            raise InvalidParameterError(f"probabilities must sum to 1, got {p.tolist()!r}")
        cdf = p.cumsum()
        cdf /= cdf[-1]
        self.size = int(p.size)
        self._cdf = cdf.tolist()

    def draw(self, gen: np.random.Generator) -> int:
        """One index in ``0 … size − 1``: ``int(gen.choice(size, p=probabilities))``."""
        return bisect.bisect_right(self._cdf, gen.random())
