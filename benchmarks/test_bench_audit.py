"""Cost of a full audit relative to drawing the same outputs alone (target ≤ 3×).

Run with ``python -m pytest benchmarks -q --benchmark-only``.  For Laplace, the analytic
Gaussian and randomized response at N = 10⁶ per side, ``test_audit_cost`` times
:func:`privaudit.audit` and ``test_drawing_alone`` times drawing exactly the batches
that audit draws (recorded once through a counting wrapper, the same batch sizes, in
the same order).  ``extra_info`` records the outputs drawn; the ratio is the mean of
the first divided by the mean of the second (``scripts/audit_cost.py`` prints it with
minimum timings and writes ``docs/audit_cost.md``).  Nothing here asserts on time.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from privaudit import AuditConfig, audit
from privaudit.mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponseMechanism,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from audit_cost import CountingMechanism

N = 1_000_000
CONFIG = AuditConfig(samples=N, pilot_samples=4_000, pair_budget=32, pairs_tested=2, seed=0)
CASES: dict[str, Any] = {
    "laplace": lambda: LaplaceMechanism(1.0, 1.0),
    "analytic_gaussian": lambda: GaussianMechanism(1.0, 1e-5, 1.0),
    "randomized_response": lambda: RandomizedResponseMechanism(1.0, categories=4),
}
_BATCHES: dict[str, list[tuple[Any, int]]] = {}


def _batches(name: str) -> list[tuple[Any, int]]:
    """The (input, size) batches one audit of ``name`` draws (recorded once)."""
    if name not in _BATCHES:
        counting = CountingMechanism(CASES[name]())
        audit(counting, config=CONFIG)
        _BATCHES[name] = list(counting.batches)
    return _BATCHES[name]


@pytest.mark.parametrize("name", list(CASES))
def test_audit_cost(benchmark, name):
    mechanism: Mechanism = CASES[name]()
    report = benchmark.pedantic(
        audit, args=(mechanism,), kwargs={"config": CONFIG}, rounds=5, iterations=1, warmup_rounds=1
    )
    assert report.verdict == "no_violation"
    benchmark.extra_info["outputs_drawn"] = sum(size for _, size in _batches(name))


@pytest.mark.parametrize("name", list(CASES))
def test_drawing_alone(benchmark, name):
    mechanism: Mechanism = CASES[name]()
    batches = _batches(name)

    def draw() -> int:
        rng = np.random.default_rng(0)
        return sum(int(np.shape(mechanism.sample(data, size, rng))[0]) for data, size in batches)

    drawn = benchmark.pedantic(draw, rounds=5, iterations=1, warmup_rounds=1)
    assert drawn == sum(size for _, size in batches)
    benchmark.extra_info["outputs_drawn"] = drawn
