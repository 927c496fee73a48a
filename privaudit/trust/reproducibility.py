"""Does a mechanism draw all its randomness from the injected generator?

A certificate is re-verified by re-running its audit from the recorded seed
(:mod:`privaudit.trust.verify`), which works only when every draw comes from the
:class:`numpy.random.Generator` passed to ``sample``.  :func:`check_generator_determinism`
asks the mechanism twice for the same batch of draws and compares them bit for bit:
different outputs prove that it ignores the generator; equal outputs are evidence, not
proof.

Details: ``docs/engine_notes.md``, "privaudit.trust.reproducibility".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privaudit.spec import SpecModel
from privaudit.spec.errors import InvalidParameterError

__all__ = ["GeneratorDeterminism", "check_generator_determinism", "non_reproducible_note"]


class GeneratorDeterminism(SpecModel):
    """The outcome of :func:`check_generator_determinism`.

    Attributes
    ----------
    reproducible : bool
        True when both batches drawn with the same seed were bit-identical.
    reason : str
        One sentence: what was compared and what was found.
    samples : int
        Outputs drawn per batch.
    seed : int
        The seed of both generators.
    """

    reproducible: bool
    reason: str
    samples: int
    seed: int


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def check_generator_determinism(
    mechanism: Any, data: Any = None, *, seed: int = 0, samples: int = 64
) -> GeneratorDeterminism:
    """Draw ``samples`` outputs twice from generators seeded with ``seed``; compare them.

    Parameters
    ----------
    mechanism : Mechanism
        Anything with ``spec`` and ``sample(x, size, rng)``.
    data : input, optional
        The input to sample on; default the first extreme of the spec's input domain (or
        a seeded draw from it when it has none).
    seed : int
        Seed of both generators (≥ 0).
    samples : int
        Outputs per batch (≥ 2): a scalar library sampler pays one call per output.

    Returns
    -------
    GeneratorDeterminism

    Raises
    ------
    InvalidParameterError
        If ``seed`` or ``samples`` is out of range.

    Examples
    --------
    >>> from privaudit.mechanisms import LaplaceMechanism
    >>> check_generator_determinism(LaplaceMechanism(epsilon=1.0, sensitivity=1.0)).reproducible
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidParameterError(f"seed must be an integer >= 0, got {seed!r}")
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 2:
        raise InvalidParameterError(f"samples must be an integer >= 2, got {samples!r}")
    if data is None:
        domain = mechanism.spec.input_domain
        extremes = tuple(domain.extremes()) if hasattr(domain, "extremes") else ()
        data = extremes[0] if extremes else domain.sample(np.random.default_rng(seed))
    first = np.asarray(mechanism.sample(data, int(samples), np.random.default_rng(int(seed))))
    second = np.asarray(mechanism.sample(data, int(samples), np.random.default_rng(int(seed))))
    if _same(first, second):
        return GeneratorDeterminism(
            reproducible=True,
            samples=int(samples),
            seed=int(seed),
            reason=(
                f"two batches of {samples} outputs drawn with generators seeded {seed} "
                f"are bit-identical: the mechanism draws from the injected generator"
            ),
        )
    differing = (
        int(np.count_nonzero(np.asarray(first != second).reshape(len(first), -1).any(axis=1)))
        if first.shape == second.shape
        else samples
    )
    return GeneratorDeterminism(
        reproducible=False,
        samples=int(samples),
        seed=int(seed),
        reason=(
            f"two batches of {samples} outputs drawn with generators seeded {seed} "
            f"differ in {differing} of {samples} outputs: the mechanism draws (at least "
            f"part of) its randomness from a source of its own, so its audit cannot be "
            f"reproduced bit for bit from the seed"
        ),
    )


def non_reproducible_note(result: GeneratorDeterminism) -> str:
    """The certificate note (and the command line's warning) for an unseedable mechanism."""
    return (
        f"not reproducible from the seed: {result.reason}; verify re-runs the audit and "
        f"compares its verdict and check statuses (a tolerance rule), not its numbers "
        f"bit for bit"
    )
