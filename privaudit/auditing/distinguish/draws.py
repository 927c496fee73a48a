"""Where the outputs of a pair test come from: the one source of draws of
:func:`~privaudit.auditing.distinguish.pair.distinguish_pair`.

:func:`draw_pair_test` draws from the mechanism: the search split at once, the test split
later, in seeded blocks (:mod:`privaudit.execution.streaming`), so its counts do not depend
on the chunk size or on the process that counts them.  :func:`replay_pair_test` serves
outputs already drawn (the pair choice's pilot tests, the time budget's timing runs).
Everything random is drawn when the source is built; the test is deterministic given it.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from privaudit.auditing.distinguish.stopwatch import Stopwatch
from privaudit.auditing.pairs import CandidatePair
from privaudit.auditing.sampler_outputs import draw_outputs
from privaudit.execution.streaming import (
    Executor,
    StreamProgress,
    block_rows,
    root_seed,
    stream_chunks,
)
from privaudit.spec import RandomLike, as_generator
from privaudit.spec.errors import InvalidParameterError

__all__ = [
    "POISSON_MINIMUM",
    "MechanismDraws",
    "PairDraws",
    "ReplayedDraws",
    "draw_pair_test",
    "replay_pair_test",
]

#: Smallest mean test size that is Poissonised (below, the sizes are fixed and every
#: event uses the two Clopper–Pearson bounds).
POISSON_MINIMUM = 1_000

R = TypeVar("R")
Consume = Callable[[np.ndarray], R]


def _size(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise InvalidParameterError(f"{what} must be an integer >= 1, got {value!r}")
    return int(value)


def checked_outputs(mechanism: Any, data: Any, total: int, gen: np.random.Generator) -> np.ndarray:
    """``total`` checked outputs (:func:`~privaudit.auditing.sampler_outputs.draw_outputs`),
    a scalar output's ``(total, 1)`` as ``(total,)``."""
    out = draw_outputs(mechanism, data, total, gen)
    return _flat_scalar(out)


def _flat_scalar(out: np.ndarray) -> np.ndarray:
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    return out


@dataclass(frozen=True, eq=False, kw_only=True)
class PairDraws(ABC):
    """The outputs of one pair test: the search split (``search_x``, ``search_y``), the
    test split's sizes per side, and the chunks of the test split (:meth:`test_chunks`).

    ``samples`` is the test split's size per side as asked (its mean when
    ``poissonized``), ``search_samples`` the search split's; ``clock`` started before
    anything was drawn, so the pair test's timings include the draws.
    """

    samples: int
    search_samples: int
    poissonized: bool
    search_x: np.ndarray = field(repr=False)
    search_y: np.ndarray = field(repr=False)
    test_sizes: tuple[int, int]
    clock: Stopwatch = field(repr=False)

    @property
    def output_width(self) -> int:
        """Numbers per output (1 for scalar outputs)."""
        sx = self.search_x
        return int(np.prod(np.shape(sx)[1:])) if np.ndim(sx) > 1 else 1

    @abstractmethod
    def test_chunks(
        self,
        side: str,
        consume: Consume[R],
        *,
        chunk_rows: int | None = None,
        executor: Executor | None = None,
        progress: StreamProgress | None = None,
    ) -> Iterator[R]:
        """``consume(chunk)`` for each chunk of the test split of ``side`` ("x" or "y")."""


@dataclass(frozen=True, eq=False, kw_only=True)
class MechanismDraws(PairDraws):
    """Draws from the mechanism (:func:`draw_pair_test`): the test split is drawn chunk by
    chunk when counted, each fixed block from its own child of ``root``."""

    mechanism: Any = field(repr=False)
    pair: CandidatePair = field(repr=False)
    root: np.random.SeedSequence = field(repr=False)

    def test_chunks(
        self,
        side: str,
        consume: Consume[R],
        *,
        chunk_rows: int | None = None,
        executor: Executor | None = None,
        progress: StreamProgress | None = None,
    ) -> Iterator[R]:
        data = self.pair.x if side == "x" else self.pair.y
        mechanism = self.mechanism

        def draw(m: int, g: np.random.Generator) -> np.ndarray:
            return checked_outputs(mechanism, data, m, g)

        return stream_chunks(
            draw,
            self.test_sizes[0 if side == "x" else 1],
            root=self.root,
            stream=0 if side == "x" else 1,
            consume=consume,
            rows_per_block=block_rows(self.output_width),
            chunk_rows=chunk_rows,
            executor=executor,
            progress=progress,
        )


@dataclass(frozen=True, eq=False, kw_only=True)
class ReplayedDraws(PairDraws):
    """Outputs already drawn (:func:`replay_pair_test`): the test split is the rows after
    the search split, served in order, in this process."""

    test_x: np.ndarray = field(repr=False)
    test_y: np.ndarray = field(repr=False)

    def test_chunks(
        self,
        side: str,
        consume: Consume[R],
        *,
        chunk_rows: int | None = None,
        executor: Executor | None = None,
        progress: StreamProgress | None = None,
    ) -> Iterator[R]:
        rows = self.test_x if side == "x" else self.test_y
        step = block_rows(self.output_width)
        if chunk_rows is not None:
            step = max(step, int(math.ceil(chunk_rows / step)) * step)
        total = len(rows)
        for start in range(0, total, step):
            yield consume(rows[start : start + step])
            if progress is not None:
                progress(min(start + step, total), total)


def draw_pair_test(
    mechanism: Any,
    pair: CandidatePair,
    *,
    samples: int,
    search_samples: int,
    rng: RandomLike,
    poissonize: bool = True,
) -> MechanismDraws:
    """Draw the randomness of a pair test from ``rng``, in this order: the search split
    (x, then y), the test split's Poisson sizes (when poissonised, ``samples`` ≥
    :data:`POISSON_MINIMUM`) and the root of its blocks' seeds.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism under audit.
    pair : CandidatePair
        The neighbours (x, y).
    samples, search_samples : int
        Test-split (mean) and search-split outputs per side.
    rng : Generator, int or None
        The only source of randomness; left where the test's draws end.
    poissonize : bool
        Draw Poisson(``samples``) test outputs per side (default), which lets pure-DP claims
        use the rate-ratio bound; off, exactly ``samples``.

    Raises
    ------
    InvalidParameterError
        If a size is not a positive integer.
    """
    n = _size(samples, "samples")
    n_s = _size(search_samples, "search_samples")
    gen = as_generator(rng)
    clock = Stopwatch()
    sx = checked_outputs(mechanism, pair.x, n_s, gen)
    sy = checked_outputs(mechanism, pair.y, n_s, gen)
    clock.tick("sampling")
    poisson = bool(poissonize) and n >= POISSON_MINIMUM
    sizes = (n, n)
    if poisson:
        drawn = gen.poisson(float(n), size=2)
        sizes = (int(drawn[0]), int(drawn[1]))
    return MechanismDraws(
        samples=n,
        search_samples=n_s,
        poissonized=poisson,
        search_x=sx,
        search_y=sy,
        test_sizes=sizes,
        clock=clock,
        mechanism=mechanism,
        pair=pair,
        root=root_seed(gen),
    )


def replay_pair_test(
    outputs_x: np.ndarray, outputs_y: np.ndarray, *, search_samples: int
) -> ReplayedDraws:
    """A pair test on outputs already drawn: the first ``search_samples`` rows of each side
    are its search split, the rest its test split (fixed sizes, never Poissonised).

    Raises
    ------
    InvalidParameterError
        If the sides differ in length or leave no test output.
    """
    sx, sy = _flat_scalar(np.asarray(outputs_x)), _flat_scalar(np.asarray(outputs_y))
    n_s = _size(search_samples, "search_samples")
    if len(sx) != len(sy) or len(sx) <= n_s:
        raise InvalidParameterError(
            f"replayed outputs need equal sides longer than search_samples={n_s}, "
            f"got {len(sx)} and {len(sy)} rows"
        )
    n = len(sx) - n_s
    return ReplayedDraws(
        samples=n,
        search_samples=n_s,
        poissonized=False,
        search_x=sx[:n_s],
        search_y=sy[:n_s],
        test_sizes=(n, n),
        clock=Stopwatch(),
        test_x=sx[n_s:],
        test_y=sy[n_s:],
    )
