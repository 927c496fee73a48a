"""Streaming draws (privaudit.execution.streaming): fixed blocks from spawned seeds, any chunk
size."""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.auditing.pairs import verified_pair
from privaudit.execution.streaming import (
    Block,
    Executor,
    SerialExecutor,
    TimedExecutor,
    block_rows,
    block_seed,
    plan_chunks,
    root_seed,
    stream_chunks,
    throttled,
)
from privaudit.mechanisms import LaplaceMechanism, declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    RealInterval,
)
from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.relations import QueryDistance
from tests.unit.privaudit.distinguish._shared import run_pair_test


def test_block_seed_is_the_spawned_child():
    root = np.random.SeedSequence(1234)
    child = block_seed(root, 1, 3)
    spawned = np.random.SeedSequence(1234).spawn(2)[1].spawn(4)[3]
    assert child.spawn_key == spawned.spawn_key == (1, 3)
    np.testing.assert_array_equal(child.generate_state(4), spawned.generate_state(4))


def test_root_seed_is_drawn_from_the_generator():
    a = root_seed(np.random.default_rng(5)).generate_state(4)
    b = root_seed(np.random.default_rng(5)).generate_state(4)
    c = root_seed(np.random.default_rng(6)).generate_state(4)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_plan_chunks_cover_the_total_in_whole_blocks():
    chunks = plan_chunks(10, stream=0, rows_per_block=3, chunk_rows=7)  # 7 → 3 blocks
    assert [[(b.index, b.start, b.size) for b in c] for c in chunks] == [
        [(0, 0, 3), (1, 3, 3), (2, 6, 3)],
        [(3, 9, 1)],
    ]
    assert plan_chunks(0, stream=0, rows_per_block=3) == []
    assert block_rows(1) == 1 << 18 and block_rows(1 << 20) == 1024
    with pytest.raises(InvalidParameterError, match="-1"):
        plan_chunks(-1, stream=0, rows_per_block=3)
    with pytest.raises(InvalidParameterError, match="0"):
        plan_chunks(5, stream=0, rows_per_block=3, chunk_rows=0)
    with pytest.raises(InvalidParameterError, match="width"):
        block_rows(0)


def _interleaved(size: int, rng: np.random.Generator) -> np.ndarray:
    """Two interleaved draws per call: concatenated calls differ from one call."""
    branch = rng.random(size) < 0.5
    return np.where(branch, rng.normal(size=size), 10.0 + rng.laplace(size=size))


@pytest.mark.parametrize("chunk_rows", [1, 5, 12, 1000])
def test_outputs_do_not_depend_on_the_chunk_size(chunk_rows):
    root = np.random.SeedSequence(7)
    whole = np.concatenate(
        list(
            stream_chunks(
                _interleaved, 23, root=root, stream=0, consume=lambda o: o, rows_per_block=4
            )
        )
    )
    chunked = np.concatenate(
        list(
            stream_chunks(
                _interleaved,
                23,
                root=root,
                stream=0,
                consume=lambda o: o,
                rows_per_block=4,
                chunk_rows=chunk_rows,
            )
        )
    )
    assert whole.shape == (23,)
    np.testing.assert_array_equal(whole, chunked)
    other = np.concatenate(
        list(
            stream_chunks(
                _interleaved, 23, root=root, stream=1, consume=lambda o: o, rows_per_block=4
            )
        )
    )
    assert not np.array_equal(whole, other)


class _RecordingExecutor:
    """An executor that records how many chunks it was given (and runs them serially)."""

    def __init__(self) -> None:
        self.items = 0

    def map(self, fn, items):
        items = list(items)
        self.items += len(items)
        return [fn(item) for item in items]


def test_executor_protocol_and_progress():
    assert isinstance(SerialExecutor(), Executor)
    recorder = _RecordingExecutor()
    assert isinstance(recorder, Executor)
    seen: list[tuple[int, int]] = []
    sums = list(
        stream_chunks(
            _interleaved,
            10,
            root=np.random.SeedSequence(1),
            stream=0,
            consume=len,
            rows_per_block=3,
            chunk_rows=3,
            executor=recorder,
            progress=lambda d, t: seen.append((d, t)),
        )
    )
    assert sums == [3, 3, 3, 1] and recorder.items == 4
    assert seen == [(3, 10), (6, 10), (9, 10), (10, 10)]
    messages: list[str] = []
    report = throttled(messages.append, "test split", every_seconds=0.0)
    report(5, 10)
    report(10, 10)
    assert messages == [
        "test split: 5 of 10 outputs (50 %)",
        "test split: 10 of 10 outputs (100 %)",
    ]


def _branching_mechanism():
    """Mean-like statistic + Laplace noise, exact value with probability 0.01, (1, 1e-5)."""
    spec = MechanismSpec(
        name="branching",
        input_domain=RealInterval(lo=0.0, hi=1.0),
        relation=QueryDistance(norm="l1", radius=1.0),
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)),
        guarantee=ApproxDP(epsilon=1.0, delta=1e-5),
    )

    def sampler(v, n, rng):
        exact = rng.random(n) < 0.01
        return np.where(exact, v, v + rng.laplace(0.0, 1.0, n))

    return declare_mechanism(spec, sampler=sampler, statistic=lambda v: float(v))


@pytest.mark.parametrize("make", [lambda: LaplaceMechanism(1.0, 1.0), _branching_mechanism])
def test_pair_test_counts_do_not_depend_on_the_chunk_size(make):
    """Three blocks per side (6·10⁵ outputs); one, two or all blocks per chunk."""
    mech = make()
    pair = verified_pair(mech.spec, 0.0, 1.0, "explicit")
    results = [
        run_pair_test(
            mech, pair, samples=600_000, search_samples=5_000, rng=11, alpha=0.05, chunk_rows=rows
        )
        for rows in (1, 300_000, None)
    ]
    first = results[0]
    assert first.test_sizes[0] > 2 * block_rows(1)
    for other in results[1:]:
        assert other.test_sizes == first.test_sizes
        assert [(e.description, e.count_x, e.count_y) for e in other.events] == [
            (e.description, e.count_x, e.count_y) for e in first.events
        ]
        assert other.epsilon_lower_bound == first.epsilon_lower_bound
        assert [p.delta_lower_bound for p in other.profile] == [
            p.delta_lower_bound for p in first.profile
        ]


def test_block_is_a_plain_record():
    assert Block(stream=0, index=2, start=6, size=3) == Block(0, 2, 6, 3)


def test_timed_executor_passes_results_through_and_accumulates_its_time():
    timed = TimedExecutor(SerialExecutor())
    assert isinstance(timed, Executor)
    assert list(timed.map(lambda v: v * v, range(5))) == [0, 1, 4, 9, 16]
    first = timed.seconds
    assert first >= 0.0 and timed.blocks_per_chunk is None
    assert list(timed.map(str, [7])) == ["7"]
    assert timed.seconds >= first
