"""Mutation test of certificate coverage: for every registry entry, inserting one statement
into any project function that runs when the entry is built, computes its statistic and
samples makes its certificate stale and names the function (:mod:`privaudit.trust.mutations`).

The functions are found by an independent :func:`sys.settrace` run on inputs drawn with
another seed than the certificate's own trace.  The fast tier mutates a seeded sample of
(entry, function) pairs; the slow tier mutates every executed function of every entry.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit import registry
from privaudit.trust.mutations import insert_statement, mutation_check

ENTRIES = sorted(entry.name for entry in registry.entries() if entry.builtin)

#: The fast tier: 4 entries drawn with seed 15, 4 executed functions each.
_PICK = np.random.default_rng(15)
FAST_ENTRIES = sorted(_PICK.choice(ENTRIES, size=4, replace=False).tolist())
FAST_FUNCTIONS = 4


def _sample(seed: int, count: int):
    def select(functions):
        rng = np.random.default_rng(seed)
        picked = rng.choice(len(functions), size=min(count, len(functions)), replace=False)
        return [functions[i] for i in sorted(picked)]
    return select


def test_insert_statement_goes_after_the_docstring_at_the_body_indent():
    text = 'class A:\n    def f(self):\n        """Doc."""\n        return 1\n'
    assert insert_statement(text, "A.f", "x = 0") == (
        'class A:\n    def f(self):\n        """Doc."""\n        x = 0\n        return 1\n')
    assert insert_statement("def g(): return 1\n", "g") is None
    assert insert_statement(text, "A.missing") is None


@pytest.mark.parametrize("name", FAST_ENTRIES)
def test_sampled_mutations_of_executed_functions_are_caught(name):
    entry = registry.entry(name)
    result = mutation_check(entry.create, name=name, select=_sample(ENTRIES.index(name),
                                                                   FAST_FUNCTIONS))
    assert result.tried >= 1
    assert result.all_caught, f"{name}: mutations not caught: {result.missed}"


@pytest.mark.slow
@pytest.mark.parametrize("name", ENTRIES)
def test_every_mutation_of_every_executed_function_is_caught(name):
    result = mutation_check(registry.entry(name).create, name=name)
    assert result.tried >= 20  # every entry runs dozens of project functions
    assert result.all_caught, f"{name}: mutations not caught: {result.missed}"
