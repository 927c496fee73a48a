"""Domains that admit missing or non-finite records (``RealInterval(admits=...)``, issue
48): what they accept and refuse, and the relations' moves and decisions over them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.spec import (
    AddRemoveOne,
    DatasetDomain,
    RealInterval,
    SubstituteOne,
    VectorDomain,
)
from privaudit.spec.errors import (
    InvalidParameterError,
    NonFiniteInputError,
    NonNumericInputError,
    OutOfDomainError,
)

MISSING = RealInterval(lo=0, hi=1, admits=("nan",))
ALL = RealInterval(lo=0, hi=1, admits=("nan", "inf", "-inf"))


def test_the_default_admits_nothing_non_finite():
    domain = DatasetDomain(record=RealInterval(lo=0, hi=1), size=2)
    with pytest.raises(NonFiniteInputError, match="value nan at index 1"):
        domain.validate([0.5, math.nan])
    with pytest.raises(NonNumericInputError, match="None at index 1"):
        domain.validate([0.5, None])


def test_admitted_values_pass_and_none_reads_as_nan():
    domain = DatasetDomain(record=ALL, size=4)
    data = domain.validate([0.25, None, math.inf, -math.inf])
    assert data.dtype == np.float64
    assert data[0] == 0.25 and math.isnan(data[1]) and data[2] == math.inf
    assert data[3] == -math.inf
    assert math.isnan(ALL.validate(math.nan)) and ALL.validate(math.inf) == math.inf


def test_values_not_admitted_are_named():
    domain = DatasetDomain(record=MISSING, size=2)
    with pytest.raises(NonFiniteInputError, match=r"value inf at index 1 .*admits nan"):
        domain.validate([0.5, math.inf])
    with pytest.raises(OutOfDomainError, match="value 2.0 at index 0"):
        domain.validate([2.0, math.nan])  # the interval still binds the finite records
    with pytest.raises(NonNumericInputError):
        DatasetDomain(record=RealInterval(lo=0, hi=1, admits=("inf",)), size=1).validate([None])


@pytest.mark.parametrize("admits", [("none",), ("nan", "nan"), ("+inf",)])
def test_bad_admits_are_refused(admits):
    with pytest.raises(InvalidParameterError):
        RealInterval(lo=0, hi=1, admits=admits)


def test_nan_payloads_are_one_canonical_nan():
    odd = np.frombuffer(np.uint64(0xFFF8000000000001).tobytes(), dtype=np.float64)[0]
    assert math.isnan(odd)
    data = DatasetDomain(record=MISSING, size=2).validate(np.array([odd, 0.5]))
    assert data.view(np.uint64)[0] == np.array([math.nan]).view(np.uint64)[0]


def test_admitted_values_are_extremes_so_moves_add_and_substitute_them():
    assert any(math.isnan(v) for v in MISSING.extremes())
    assert {v for v in ALL.extremes() if not math.isfinite(v) and not math.isnan(v)} == {
        math.inf,
        -math.inf,
    }
    fixed = DatasetDomain(record=MISSING, size=3)
    x = fixed.validate([0.1, 0.2, 0.3])
    substituted = list(SubstituteOne().extreme_neighbours(x, fixed))
    assert any(np.isnan(y).sum() == 1 for y in substituted)
    variable = DatasetDomain(record=MISSING)
    added = list(AddRemoveOne().extreme_neighbours(x, variable))
    assert any(y.shape == (4,) and math.isnan(y[-1]) for y in added)


def test_relations_treat_nan_as_equal_to_nan():
    fixed = DatasetDomain(record=MISSING, size=3)
    x = fixed.validate([0.1, None, 0.3])
    same = SubstituteOne().decide(x, x.copy(), fixed)
    assert same.is_neighbour and same.distance == 0.0
    one = SubstituteOne().decide(x, fixed.validate([0.2, None, 0.3]), fixed)
    assert one.is_neighbour and one.distance == 1.0
    variable = DatasetDomain(record=MISSING)
    removed = AddRemoveOne().decide(x, variable.validate([0.1, 0.3]), variable)
    assert removed.is_neighbour and "nan removed" in removed.reason
    kept = AddRemoveOne().decide(x, variable.validate([None, 0.3]), variable)
    assert kept.is_neighbour and "0.1 removed" in kept.reason


def test_random_moves_stay_in_the_domain():
    variable = DatasetDomain(record=ALL)
    x = variable.validate([0.1, None, 0.3])
    gen = np.random.default_rng(0)
    for _ in range(50):
        y = AddRemoveOne().random_neighbour(x, variable, gen)
        assert variable.contains(y) and AddRemoveOne().decide(x, y, variable).is_neighbour


def test_vector_elements_may_admit_nan():
    domain = DatasetDomain(record=VectorDomain(element=MISSING, length=2), size=2)
    data = domain.validate([[0.1, math.nan], [0.2, 0.3]])
    assert math.isnan(data[0, 1])
    assert SubstituteOne().decide(data, data.copy(), domain).distance == 0.0
