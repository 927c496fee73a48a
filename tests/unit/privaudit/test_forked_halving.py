"""The pilot tests on the ``processes`` executor (the successive halving's and those of
the local search's start pairs): every pair's draws made in the audit's process, in
turn, the pilot tests in forked children, and the same survivors as in one process, to
the bit."""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.auditing.choice import halving as pair_choice
from privaudit.auditing.choice.halving import successive_halving
from privaudit.auditing.choice.scores import pair_score, pair_score_task
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.pairs import verified_pair
from privaudit.auditing.search import candidate_pairs
from privaudit.execution.forked import fork_available
from privaudit.suites import dpsniper_cases

pytestmark = pytest.mark.skipif(not fork_available(), reason="forked workers need Linux")

SCORE = {"final_samples": 10**6, "level": 0.025, "delta": 0.0, "events_per_direction": 4}


def _case(name: str):
    return next(c for c in dpsniper_cases() if c.name == f"dpsniper.{name}")


def _pairs(name: str):
    case = _case(name)
    spec = case.mechanism.spec
    return case.mechanism, [verified_pair(spec, x, y, "test") for x, y in case.input_pairs]


def test_a_pilot_test_score_is_drawn_now_and_run_later_with_the_same_value():
    # SVT34Parallel's 30 columns make too many coarse rows: its score is a pilot test
    mechanism, pairs = _pairs("SVT34Parallel")
    later, now = np.random.default_rng(5), np.random.default_rng(5)
    task = pair_score_task(mechanism, pairs[0], samples=4_000, rng=later, **SCORE)
    assert callable(task)
    expected = pair_score(mechanism, pairs[0], samples=4_000, rng=now, **SCORE)
    # everything was drawn: the generators agree before the task runs
    assert later.bit_generator.state == now.bit_generator.state
    assert task() == expected


def test_a_counting_score_is_computed_at_once():
    mechanism, pairs = _pairs("ReportNoisyMax1")
    task = pair_score_task(
        mechanism, pairs[0], samples=4_000, rng=np.random.default_rng(2), **SCORE
    )
    expected = pair_score(mechanism, pairs[0], samples=4_000, rng=np.random.default_rng(2), **SCORE)
    assert isinstance(task, float) and task == expected


@pytest.fixture
def forked(monkeypatch) -> list[int]:
    """The number of tasks of each ``map_forked`` call of the pair choice, in order."""
    batches: list[int] = []
    real = pair_choice.map_forked

    def counting(tasks, workers):
        results = real(tasks, workers)
        batches.append(len(results))
        return results

    monkeypatch.setattr(pair_choice, "map_forked", counting)
    return batches


@pytest.mark.parametrize("name", ["SVT34Parallel", "ReportNoisyMax1"])
def test_the_forked_halving_keeps_the_survivors_of_one_process(name, forked):
    mechanism, pairs = _pairs(name)

    def halving(workers: int):
        rng = np.random.default_rng(11)
        kept, rounds = successive_halving(
            mechanism,
            pairs[:6],
            keep=1,
            samples=2_000,
            final_samples=10**6,
            level=0.025,
            delta=0.0,
            rng=rng,
            events_per_direction=4,
            tolerance=0.15,
            workers=workers,
        )
        return [(p.x.tolist(), p.y.tolist(), p.score) for p in kept], rounds, rng.random()

    assert halving(2) == halving(1)
    # pilot tests went to children for the vector outputs, none for the counting scores
    assert forked and (sum(forked) > 0) == (name == "SVT34Parallel")


def test_the_forked_pilot_search_chooses_the_pairs_of_one_process(forked):
    """With two workers the local search's start pairs are scored in forked children too
    (one batch, before the climbs), and the whole choice — pairs, scores, near ties,
    the pilot stream's state — is that of one process."""
    case = _case("SVT34Parallel")
    mechanism, spec = case.mechanism, case.mechanism.spec
    cfg = AuditConfig(
        samples=2 * 10**4, pilot_samples=500, pair_budget=2, pairs_tested=2, pair_tolerance=0.15
    )
    candidates = candidate_pairs(spec, 3, budget=5)

    def choice(workers: int):
        rng = np.random.default_rng(7)
        chosen = pair_choice.choose_pairs(
            mechanism, cfg, candidates, [], rng, alpha=0.05, delta=0.0, workers=workers
        )
        pairs = [(p.x.tolist(), p.y.tolist(), p.score, p.origin) for p in chosen.pairs]
        return pairs, chosen.near_tie, chosen.halving_rounds, rng.random()

    assert choice(2) == choice(1)
    # the first forked batch is the start pool: every candidate once (swaps are one pair)
    assert forked and forked[0] == len(pair_choice._dedupe(candidates, swaps=True))
