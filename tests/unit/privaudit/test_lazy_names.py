"""The lazy façades (PEP 562, ``privaudit._lazy``) serve what their ``__all__`` promises: every
name resolves, and no lazy name is also a submodule of its package, which Python would bind
over the lazy name once the submodule is imported (``clopper_pearson`` is bound eagerly)."""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

FACADES = (
    "privaudit",
    "privaudit.statistics",
    "privaudit.suites",
    "privaudit.auditing",
    "privaudit.auditing.search",
    "privaudit.auditing.one_run",
    "privaudit.auditing.choice",
    "privaudit.trust",
    "privaudit.execution",
    "privaudit.interfaces",
)


def _table(package: types.ModuleType) -> dict:
    return getattr(package, "_LAZY", None) or getattr(package, "_LAZY_NAMES", {})


@pytest.mark.parametrize("name", FACADES)
def test_no_lazy_name_is_a_submodule(name):
    package = importlib.import_module(name)
    submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
    assert not set(_table(package)) & submodules


@pytest.mark.parametrize("name", FACADES)
def test_every_public_name_resolves_and_is_listed(name):
    package = importlib.import_module(name)
    for public in package.__all__:
        assert getattr(package, public) is not None
        assert public in dir(package)
    with pytest.raises(AttributeError, match="has no attribute 'not_a_name'"):
        package.not_a_name  # noqa: B018


def test_clopper_pearson_is_the_function_after_its_module_is_imported():
    importlib.import_module("privaudit.statistics.clopper_pearson")
    statistics = importlib.import_module("privaudit.statistics")
    assert callable(statistics.clopper_pearson)
    assert statistics.clopper_pearson(3, 10).high > 0.3
