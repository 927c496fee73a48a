"""The layout of privaudit.auditing.distinguish: one job per module, row helpers in one home, and
nothing that pytest would collect as a test."""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest

import privaudit.auditing.distinguish as dist
from privaudit.auditing.distinguish.rows import checked_rows, output_rows, squeeze_rows
from privaudit.spec.errors import AuditError

MODULES = sorted(m.name for m in pkgutil.iter_modules(dist.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_every_module_states_its_job_and_its_public_names(name):
    module = importlib.import_module(f"privaudit.auditing.distinguish.{name}")
    assert module.__doc__ and module.__doc__.strip(), f"{name} has no docstring"
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__"
    for item in module.__all__:
        assert hasattr(module, item), f"{name}.__all__ names missing {item!r}"
    assert f"privaudit.auditing.distinguish.{name}" in dist.__doc__, f"the package map omits {name}"


def test_no_public_name_looks_like_a_test_to_pytest():
    """``test_*`` functions in library code get collected when imported into a test."""
    for name in MODULES:
        module = importlib.import_module(f"privaudit.auditing.distinguish.{name}")
        assert not [n for n in module.__all__ if n.startswith("test")], name
    assert callable(dist.distinguish_pair) and not hasattr(dist, "test_pair")


def test_row_helpers_shapes():
    assert output_rows(np.zeros(5)).shape == (5, 1)
    assert output_rows(np.zeros((0, 2, 3))).shape == (0, 6)
    assert squeeze_rows(np.zeros((4, 1))).shape == (4,)
    assert squeeze_rows(np.zeros((4, 2))).shape == (4, 2)
    assert checked_rows(np.arange(3)[:, None]).shape == (3,)


@pytest.mark.parametrize(
    "outputs, words",
    [
        (np.zeros((2, 2, 2)), "shape (N,) or (N, d), got (2, 2, 2)"),
        (np.array(["a", "b"]), "numeric, got dtype <U1"),
    ],
)
def test_checked_rows_names_the_bad_shape_or_dtype(outputs, words):
    with pytest.raises(AuditError, match=words.replace("(", r"\(").replace(")", r"\)")):
        checked_rows(outputs)
