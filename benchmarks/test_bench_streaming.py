"""Chunked (streamed) against unchunked sampling and counting at N = 10⁷ outputs.

Run with ``python -m pytest benchmarks/test_bench_streaming.py --benchmark-only``.  The
Laplace mechanism (ε = 1, Δ = 1) draws N outputs and counts the event {o ≥ 0.5}:

* ``unchunked`` — one ``Mechanism.sample`` call of N outputs, then one count (memory
  N numbers);
* ``chunked`` — :func:`privaudit.execution.streaming.stream_chunks`: fixed blocks of 2¹⁸ outputs,
  each from its own ``SeedSequence`` child, counted per chunk, at the default chunk
  (4 blocks, ≈ 10⁶ outputs held) and at 64 blocks (≈ 1.7·10⁷: all 10⁷ in one chunk);

``extra_info`` records the count (the chunked counts are identical for both chunk sizes).
Nothing here asserts on time.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.execution.streaming import block_rows, stream_chunks
from privaudit.mechanisms import LaplaceMechanism

N = 10_000_000
MECHANISM = LaplaceMechanism(1.0, 1.0)


def _count(out: np.ndarray) -> int:
    return int(np.count_nonzero(out >= 0.5))


def _unchunked() -> int:
    return _count(MECHANISM.sample(0.0, N, np.random.default_rng(0)))


def _chunked(chunk_rows: int | None) -> int:
    root = np.random.SeedSequence(0)
    return sum(
        stream_chunks(
            lambda m, g: MECHANISM.sample(0.0, m, g),
            N,
            root=root,
            stream=0,
            consume=_count,
            rows_per_block=block_rows(1),
            chunk_rows=chunk_rows,
        )
    )


def test_unchunked(benchmark):
    count = benchmark.pedantic(_unchunked, rounds=5, iterations=1, warmup_rounds=1)
    benchmark.extra_info["count"] = count
    assert 0.25 * N < count < 0.35 * N  # P[Lap(0, 1) ≥ 0.5] = e^{-1/2}/2 ≈ 0.303


@pytest.mark.parametrize("chunk_rows", [None, 64 * block_rows(1)], ids=["default", "64_blocks"])
def test_chunked(benchmark, chunk_rows):
    count = benchmark.pedantic(
        _chunked, args=(chunk_rows,), rounds=5, iterations=1, warmup_rounds=1
    )
    benchmark.extra_info["count"] = count
    assert count == _chunked(None if chunk_rows else 64 * block_rows(1))
