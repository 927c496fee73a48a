"""Soundness of the budget's accounting beside dp_accounting, under both relations.

Random compositions of ≥ 50 releases, drawn by hypothesis from the analyst's constructors
(``mechanisms.accounting.vocabulary``: Gaussian, Laplace, discrete Laplace, discrete
Gaussian, randomized response, Poisson-subsampled Gaussian and Laplace), are charged to a
:class:`PrivacyBudget` under add/remove-one or substitute-one.  The same composition is
built in dp_accounting from its own PLD constructors (``REPLACE_ONE`` / sensitivity 2 for
substitute-one, its convention for a release of add/remove sensitivity 1), at the same
discretization.  Our ε(δ) must lie in [optimistic PLD, 1.01 × pessimistic PLD]: never
below a lower bound on the true ε (soundness), and within 1 % of dp_accounting's upper
bound (tightness).

Tiers: the fast test draws a small seeded sample (``derandomize=True``: the same examples
on every run, seconds); ``@pytest.mark.slow`` draws many more at dp_accounting's default
discretization.  A failure is a bug, never chance: nothing here is random at run time.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import pytest
from dp_accounting import NeighboringRelation
from dp_accounting.pld import privacy_loss_distribution as pld_mod
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privaudit.mechanisms.accounting import (
    PrivacyBudget,
    discrete_gaussian,
    discrete_laplace,
    gaussian,
    laplace,
    randomized_response,
    subsampled,
)

KINDS_ADD_REMOVE = (
    "gaussian",
    "laplace",
    "discrete_laplace",
    "discrete_gaussian",
    "sub_gaussian",
    "sub_laplace",
)
#: dp_accounting has a substitute-one (REPLACE_ONE) PLD for all of these; it has none for the
#: Poisson-subsampled Laplace, and randomized response exists under REPLACE_ONE only.
KINDS_SUBSTITUTE = (
    "gaussian",
    "laplace",
    "discrete_laplace",
    "discrete_gaussian",
    "sub_gaussian",
    "randomized_response",
)


@dataclass(frozen=True)
class Release:
    kind: str
    scale: float  # σ, b, t; ε for randomized response
    rate: float = 1.0  # Poisson rate (subsampled kinds)
    categories: int = 2

    def ours(self):
        """The constructor call an analyst writes (add/remove-one, one relation declared, so
        that a substitute-one budget converts it by group privacy)."""
        kw = {"declare_both": False}
        if self.kind == "gaussian":
            return gaussian(self.scale, **kw)
        if self.kind == "laplace":
            return laplace(self.scale, **kw)
        if self.kind == "discrete_laplace":
            return discrete_laplace(self.scale, **kw)
        if self.kind == "discrete_gaussian":
            return discrete_gaussian(self.scale, **kw)
        if self.kind == "sub_gaussian":
            return subsampled(gaussian(self.scale, **kw), self.rate)
        if self.kind == "sub_laplace":
            return subsampled(laplace(self.scale, **kw), self.rate)
        return randomized_response(self.scale, categories=self.categories)

    def reference(self, relation: str, interval: float, pessimistic: bool):
        """dp_accounting's PLD of the same release."""
        replace = relation == "substitute_one"
        sens = 2 if replace else 1
        kw = {
            "value_discretization_interval": interval,
            "pessimistic_estimate": pessimistic,
            "use_connect_dots": pessimistic,
        }  # connect-the-dots is pessimistic only
        if self.kind == "randomized_response":
            k = self.categories
            noise = k / (math.exp(self.scale) + k - 1)  # P(uniform draw) in dp_accounting
            return pld_mod.from_randomized_response(
                noise, k, value_discretization_interval=interval, pessimistic_estimate=pessimistic
            )
        if self.kind == "gaussian":
            return pld_mod.from_gaussian_mechanism(self.scale, sensitivity=sens, **kw)
        if self.kind == "laplace":
            return pld_mod.from_laplace_mechanism(self.scale, sensitivity=sens, **kw)
        if self.kind == "discrete_laplace":
            return pld_mod.from_discrete_laplace_mechanism(1.0 / self.scale, sensitivity=sens, **kw)
        if self.kind == "discrete_gaussian":
            return pld_mod.from_discrete_gaussian_mechanism(self.scale, sensitivity=sens, **kw)
        if self.kind == "sub_gaussian":
            rel = (
                NeighboringRelation.REPLACE_ONE
                if replace
                else NeighboringRelation.ADD_OR_REMOVE_ONE
            )
            return pld_mod.from_gaussian_mechanism(
                self.scale, sensitivity=1, sampling_prob=self.rate, neighboring_relation=rel, **kw
            )
        if self.kind == "sub_laplace":
            assert not replace
            return pld_mod.from_laplace_mechanism(
                self.scale, sensitivity=1, sampling_prob=self.rate, **kw
            )
        raise AssertionError(self.kind)


def _release(kinds):
    kind = st.sampled_from(kinds)

    def build(k):
        if k in ("gaussian", "discrete_gaussian"):
            return st.builds(Release, st.just(k), st.floats(8.0, 40.0))
        if k in ("laplace", "discrete_laplace"):
            return st.builds(Release, st.just(k), st.floats(20.0, 200.0))
        if k == "sub_gaussian":
            return st.builds(Release, st.just(k), st.floats(0.8, 4.0), st.floats(0.001, 0.05))
        if k == "sub_laplace":
            return st.builds(Release, st.just(k), st.floats(0.5, 5.0), st.floats(0.001, 0.05))
        return st.builds(
            Release, st.just(k), st.floats(0.005, 0.05), st.just(1.0), st.integers(2, 5)
        )

    return kind.flatmap(build)


@st.composite
def compositions(draw, min_size: int = 50, max_size: int = 60):
    relation = draw(st.sampled_from(("add_remove_one", "substitute_one")))
    kinds = KINDS_ADD_REMOVE if relation == "add_remove_one" else KINDS_SUBSTITUTE
    releases = draw(st.lists(_release(kinds), min_size=min_size, max_size=max_size))
    delta = draw(st.sampled_from((1e-8, 1e-6, 1e-4)))
    return relation, releases, delta


@functools.lru_cache(maxsize=512)
def _reference_pld(release: Release, relation: str, interval: float, pessimistic: bool):
    return release.reference(relation, interval, pessimistic)


def _reference_epsilon(releases, relation, delta, interval, pessimistic):
    pld = None
    for r in releases:
        one = _reference_pld(r, relation, interval, pessimistic)
        pld = one if pld is None else pld.compose(one)
    return pld.get_epsilon_for_delta(delta)


def _check(relation, releases, delta, interval):
    budget = PrivacyBudget(epsilon=300.0, delta=delta, relation=relation, accuracy=interval)
    for r in releases:
        budget.charge(r.ours())
    ours = budget.spent_epsilon
    optimistic = _reference_epsilon(releases, relation, delta, interval, pessimistic=False)
    pessimistic = _reference_epsilon(releases, relation, delta, interval, pessimistic=True)
    assert optimistic <= ours, (relation, delta, ours, optimistic)
    assert ours <= 1.01 * pessimistic, (relation, delta, ours, pessimistic)
    if relation == "substitute_one":
        converted = [e for e in budget.ledger if "group of 2" in e.conversion]
        assert converted or all(r.kind == "randomized_response" for r in releases)
    return ours, optimistic, pessimistic


@settings(
    max_examples=2,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(compositions())
def test_random_compositions_sit_between_optimistic_and_pessimistic_pld(case):
    relation, releases, delta = case
    _check(relation, releases, delta, interval=1e-3)


@pytest.mark.parametrize("relation", ["add_remove_one", "substitute_one"])
def test_both_relations_are_drawn_in_the_fast_tier(relation):
    """The fast tier covers both relations deterministically (one fixed composition each)."""
    kinds = KINDS_ADD_REMOVE if relation == "add_remove_one" else KINDS_SUBSTITUTE
    params = {
        "gaussian": (20.0, 1.0),
        "laplace": (50.0, 1.0),
        "discrete_laplace": (60.0, 1.0),
        "discrete_gaussian": (25.0, 1.0),
        "sub_gaussian": (1.5, 0.01),
        "sub_laplace": (2.0, 0.02),
        "randomized_response": (0.02, 1.0),
    }
    releases = [Release(k, *params[k], categories=3) for k in kinds] * 9
    assert len(releases) >= 50
    ours, optimistic, pessimistic = _check(relation, releases, 1e-6, interval=1e-3)
    assert optimistic <= ours <= 1.01 * pessimistic


@pytest.mark.slow
@settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(compositions(min_size=50, max_size=120))
def test_random_compositions_sit_between_optimistic_and_pessimistic_pld_full(case):
    relation, releases, delta = case
    _check(relation, releases, delta, interval=1e-4)
