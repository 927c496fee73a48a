"""Cost of accounting: composing and querying the accountants, and charging a budget.

Run with ``python -m pytest benchmarks/test_bench_accounting.py`` (pytest-benchmark).
"""

from __future__ import annotations

from privaudit.mechanisms import GaussianMechanism, LaplaceMechanism
from privaudit.mechanisms.accounting import (
    PLDAccountant,
    PrivacyBudget,
    RDPAccountant,
    optimal_composition,
)
from privaudit.spec import PureDP

LAPLACE = LaplaceMechanism(0.1, 1.0).spec
GAUSSIAN = GaussianMechanism(0.5, 1e-6, 1.0).spec


def test_pld_100_laplace_epsilon(benchmark):
    eps = benchmark(lambda: PLDAccountant().compose(LAPLACE, 100).epsilon(1e-5))
    assert 4.2 < eps < 4.3


def test_pld_heterogeneous_epsilon(benchmark):
    eps = benchmark(
        lambda: PLDAccountant().compose(LAPLACE, 50).compose(GAUSSIAN, 50).epsilon(1e-5)
    )
    assert eps > 0


def test_rdp_100_laplace_epsilon(benchmark):
    eps = benchmark(lambda: RDPAccountant().compose(LAPLACE, 100).epsilon(1e-5))
    assert eps > 4.2


def test_optimal_composition_k_10000(benchmark):
    opt = optimal_composition(PureDP(epsilon=0.01), 10_000)
    eps = benchmark(lambda: opt.epsilon_for_delta(1e-6))
    assert eps < 100


def test_budget_charge_ten_releases(benchmark):
    def run() -> float:
        budget = PrivacyBudget(epsilon=10.0, delta=1e-6)
        for _ in range(10):
            budget.charge(LAPLACE)
        return budget.spent_epsilon

    assert benchmark(run) <= 1.0 + 1e-5
