"""Injected randomness: every random function takes a ``numpy.random.Generator`` or a seed.

Nothing in privaudit touches numpy's or Python's global random state.
"""

from __future__ import annotations

import numbers
from typing import TypeAlias

import numpy as np

from .errors import InvalidParameterError

__all__ = ["RandomLike", "as_generator"]

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
