"""The auditor, property-tested by mutants (issue 45, item 3).

Hypothesis strategies draw the defect's position of each family of
:mod:`privaudit.suites.mutants` (the coupled coordinates, the non-local node, the
mis-scaled coordinate, the heavy records' places, the clamped tail's quantile, the hot
node, the category where the law departs) and every broken variant drawn must be caught.
The examples are derandomized and every audit runs at a fixed seed, so the file is
deterministic: a broken variant that passes, or a correct one that raises an alarm, is a
reproducible failure, not a fluke.
The correct variants are checked for *no false alarm at these fixed seeds* (a correct
audit alarms with probability at most α = 0.05; the rate over many draws is measured by
``tests/statistical/test_mutant_rates.py`` and ``scripts/mutant_table.py``,
``docs/mutant_table.md``).

CI-sized: a few examples per family at 20,000 samples per side with
:data:`~privaudit.suites.mutants.MUTANT_AUDIT`; at these sizes every family was caught in
every draw of ``docs/mutant_table.md``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from privaudit import audit
from privaudit.suites.mutants import (
    MUTANT_AUDIT,
    MUTANT_FAMILIES,
    heavy_records_true_group_epsilon,
    rho_exposure_true_epsilon,
)

SAMPLES = 20_000
SEED = 3
#: The check that must catch each family's broken variant (others may too).
CATCHING_CHECK = {
    "coupled_coins": "noise_law",
    "non_local_read": "lndp.locality",
    "scale_error": "noise_law",
    "heavy_records": "distinguishability",
    "tail_leak": "noise_law",
    "rho_exposure": "distinguishability",
    "one_input_departure": "noise_law.ranked_pairs",
}


def _settings(examples: int):
    return settings(
        derandomize=True,
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


@st.composite
def _distinct_pair(draw, size: int) -> tuple[int, int]:
    a = draw(st.integers(0, size - 1))
    b = draw(st.integers(0, size - 2))
    return a, b if b < a else b + 1


@st.composite
def coupled_coins_params(draw):
    d = draw(st.integers(4, 40))
    a, b = draw(_distinct_pair(d))
    return {"d": d, "a": a, "b": b}


@st.composite
def non_local_read_params(draw):
    n = draw(st.integers(6, 20))
    r, s = draw(_distinct_pair(n))
    return {"n": n, "r": r, "s": s}


@st.composite
def scale_error_params(draw):
    d = draw(st.integers(2, 12))
    return {
        "d": d,
        "c": draw(st.integers(0, d - 1)),
        "factor": draw(st.floats(0.2, 0.5, allow_nan=False)),
    }


@st.composite
def heavy_records_params(draw):
    n = draw(st.integers(5, 20))
    weights = draw(st.permutations([float(w) for w in range(1, n + 1)]))
    return {"weights": list(weights), "shortfall": draw(st.floats(0.1, 0.5, allow_nan=False))}


@st.composite
def tail_leak_params(draw):
    return {"q": draw(st.floats(0.99, 0.999, allow_nan=False))}


@st.composite
def rho_exposure_params(draw):
    n = draw(st.integers(6, 12))
    return {
        "n": n,
        "hot": draw(st.integers(0, n - 1)),
        "ignored": draw(st.floats(1.0, 2.0, allow_nan=False)),
    }


@st.composite
def one_input_departure_params(draw):
    m = draw(st.integers(4, 12))
    return {
        "categories": m,
        "at": draw(st.integers(0, m - 1)),
        "truth": draw(st.floats(0.3, 0.7, allow_nan=False)),
    }


STRATEGIES = {
    "coupled_coins": coupled_coins_params(),
    "non_local_read": non_local_read_params(),
    "scale_error": scale_error_params(),
    "heavy_records": heavy_records_params(),
    "tail_leak": tail_leak_params(),
    "rho_exposure": rho_exposure_params(),
    "one_input_departure": one_input_departure_params(),
}
#: Examples per family: broken (must be caught), correct (no false alarm at SEED).
EXAMPLES = {
    "coupled_coins": (3, 2),
    "non_local_read": (3, 2),
    "scale_error": (5, 2),
    "heavy_records": (6, 3),
    "tail_leak": (6, 3),
    "rho_exposure": (3, 2),
    "one_input_departure": (4, 2),
}

#: The hardest corner of each family's range, always run besides the drawn examples
#: (smallest defect: the mildest scale error, the thinnest tail, the largest group
#: claim, the fewest exposed neighbours with the largest claim).
CORNERS = {
    "coupled_coins": {"d": 40, "a": 39, "b": 0},
    "non_local_read": {"n": 20, "r": 19, "s": 0},
    "scale_error": {"d": 12, "c": 11, "factor": 0.5},
    "heavy_records": {"weights": [5.0, 4.0, 3.0, 2.0, 1.0], "shortfall": 0.5},
    "tail_leak": {"q": 0.999},
    "rho_exposure": {"n": 6, "hot": 5, "ignored": 2.0},
    "one_input_departure": {"categories": 12, "at": 11, "truth": 0.3},
}


def _audit(builder, params):
    mech, kwargs = builder(params)
    return audit(mech, samples=SAMPLES, seed=SEED, **MUTANT_AUDIT, **kwargs)


def _broken_test(name: str):
    @_settings(EXAMPLES[name][0])
    @given(params=STRATEGIES[name])
    @example(params=CORNERS[name])
    def test(params):
        report = _audit(MUTANT_FAMILIES[name].broken, params)
        assert report.violated, (params, report.summary())
        assert report.check(CATCHING_CHECK[name]).violated, (params, report.summary())

    return test


def _correct_test(name: str):
    @_settings(EXAMPLES[name][1])
    @given(params=STRATEGIES[name])
    def test(params):
        report = _audit(MUTANT_FAMILIES[name].correct, params)
        assert not report.violated, (params, report.summary())

    return test


@pytest.mark.parametrize("name", list(MUTANT_FAMILIES))
def test_every_broken_variant_drawn_is_caught(name):
    _broken_test(name)()


@pytest.mark.parametrize("name", list(MUTANT_FAMILIES))
def test_correct_variants_raise_no_false_alarm_at_fixed_seeds(name):
    _correct_test(name)()


def test_the_registry_and_the_strategies_cover_the_same_families():
    assert set(STRATEGIES) == set(MUTANT_FAMILIES) == set(EXAMPLES) == set(CATCHING_CHECK)
    assert set(CORNERS) == set(MUTANT_FAMILIES)
    for family in MUTANT_FAMILIES.values():
        assert family.correct.__doc__ and family.broken.__doc__


@pytest.mark.parametrize("name", list(MUTANT_FAMILIES))
def test_the_numpy_samplers_draw_parameters_the_builders_accept(name):
    """The scripts' samplers (no hypothesis) stay inside the strategies' ranges."""
    family = MUTANT_FAMILIES[name]
    rng = np.random.default_rng(0)
    for _ in range(20):
        params = family.sample_params(rng)
        for builder in (family.correct, family.broken):
            mech, kwargs = builder(params)
            assert mech.sample(_input_of(name, params), 3, np.random.default_rng(1)).shape[0] == 3
            assert set(kwargs) <= {"group", "claim"}


def _input_of(name: str, params):
    import networkx as nx

    if name in ("coupled_coins", "one_input_departure"):
        return 0
    if name in ("non_local_read", "rho_exposure"):
        return nx.empty_graph(int(params["n"]))
    if name == "scale_error":
        return np.zeros(int(params["d"]))
    if name == "heavy_records":
        return np.zeros(len(params["weights"]))
    return 0.0


@settings(derandomize=True, max_examples=25, deadline=None, database=None)
@given(params=heavy_records_params())
def test_the_heavy_records_claims_bracket_the_true_group_loss(params):
    """Correct: the claim is the true group loss (2n − 1)/n; broken: below it by ≥ 0.4."""
    n = len(params["weights"])
    true = heavy_records_true_group_epsilon(params)
    assert true == pytest.approx((2 * n - 1) / n)
    _, correct = MUTANT_FAMILIES["heavy_records"].correct(params)
    _, broken = MUTANT_FAMILIES["heavy_records"].broken(params)
    assert correct["claim"].epsilon == pytest.approx(true)
    assert 1.0 < broken["claim"].epsilon <= true - 0.4 + 1e-12


@settings(derandomize=True, max_examples=25, deadline=None, database=None)
@given(params=rho_exposure_params())
def test_the_rho_exposure_claims_bracket_the_true_epsilon(params):
    """Correct: (n − 1)·ln(4/3); broken: at most 2·ln(4/3), below it for n ≥ 6."""
    true = rho_exposure_true_epsilon(params)
    assert true == pytest.approx((params["n"] - 1) * math.log(4 / 3))
    correct, _ = MUTANT_FAMILIES["rho_exposure"].correct(params)
    broken, _ = MUTANT_FAMILIES["rho_exposure"].broken(params)
    assert correct.spec.guarantee.epsilon == pytest.approx(true)
    assert broken.spec.guarantee.epsilon <= 2 * math.log(4 / 3) + 1e-12 < true
