"""Accuracy claims audited end to end, and the efficiency table kept current.

The bounded mean's exact claim P[|M − f(x)| > b ln(1/β)] ≤ β sits on its boundary; the
``accuracy`` check refutes a true claim with probability at most its share 0.05·α of the
audit's α (α = 0.05 at the default confidence: at most 0.0025 per audit).  The overclaimed
variant states α/2 for the same mechanism, whose failure probability is then 1/√20 ≈ 0.224
against the claimed β = 0.05; with 50,000 outputs per input the exact binomial test
refutes it with probability 1 − 10⁻²⁰⁰ or more, so the catch rate over 5 seeds is 5/5
with overwhelming probability.  Seeds are fixed, so the outcomes are deterministic.
The variant is not a privacy ``BenchmarkCase``: its privacy is correct (true ε = claim),
and a soundness run would count its refuted accuracy as a false alarm.

The table of ``docs/efficiency.md`` is rebuilt by ``scripts/efficiency_table.py`` (seed 0)
and must match the committed one.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

from privaudit import AuditConfig, audit
from privaudit.estimators import bounded_mean_mechanism
from privaudit.estimators.bounded_mean import laplace_accuracy_claim
from privaudit.mechanisms import LaplaceMechanism
from privaudit.spec import DatasetDomain, RealInterval, SubstituteOne

ROOT = pathlib.Path(__file__).resolve().parents[2]


def overclaimed_bounded_mean(n: int = 1000, epsilon: float = 1.0) -> LaplaceMechanism:
    """The Laplace mean of n records in [0, 1] claiming half its true (1 − β) error."""
    scale = 1.0 / (n * epsilon)
    return LaplaceMechanism(
        epsilon,
        1.0 / n,
        statistic=lambda x: float(np.mean(x)),
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=n),
        relation=SubstituteOne(),
        name="bounded_mean.overclaimed_accuracy",
        accuracy=laplace_accuracy_claim(scale / 2, 0.05, lower_bound="mean.central"),
    )


def test_exact_claim_is_not_refuted():
    report = audit(
        bounded_mean_mechanism(1000, 0.0, 1.0, 1.0), config=AuditConfig(samples=50_000, seed=0)
    )
    assert report.verdict == "no_violation"
    check = report.check("accuracy")
    assert check.status == "passed"
    assert check.details["efficiency_claimed"] == pytest.approx(2.99574, rel=1e-4)


@pytest.mark.parametrize("seed", range(5))
def test_overclaimed_accuracy_is_caught(seed):
    report = audit(overclaimed_bounded_mean(), config=AuditConfig(samples=50_000, seed=seed))
    assert report.verdict == "violation"
    assert report.check("accuracy").status == "violated"
    # the privacy claim itself holds: no other check is violated
    assert [c.name for c in report.checks if c.violated] == ["accuracy"]


def _load_table_script():
    spec = importlib.util.spec_from_file_location(
        "efficiency_table", ROOT / "scripts" / "efficiency_table.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_efficiency_table_is_current():
    table = _load_table_script()
    rows, fits = table.build()
    text = (ROOT / "docs" / "efficiency.md").read_text("utf-8")
    committed = text.split("<!-- efficiency:begin -->\n")[1].split("<!-- efficiency:end -->")[0]
    assert table.tables(rows, fits) == committed
