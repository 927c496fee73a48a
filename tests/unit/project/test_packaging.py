"""Packaging habits: one home for the version, a changelog, PEP 561 markers, pinned tools."""

from __future__ import annotations

import pathlib
import re
import tomllib

import privaudit
from privaudit._environment import library_versions

ROOT = pathlib.Path(__file__).resolve().parents[3]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_has_one_home():
    """pyproject.toml reads the version from privaudit/_version.py and states none itself."""
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "privaudit._version.__version__"
    source = (ROOT / "privaudit" / "_version.py").read_text(encoding="utf-8")
    declared = re.findall(r'^__version__ = "([^"]+)"$', source, flags=re.M)
    assert declared == [privaudit.__version__]


def test_reports_and_certificates_record_that_version():
    assert library_versions()["privaudit"] == privaudit.__version__


def test_the_changelog_keeps_a_changelog_and_names_the_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    assert "## [Unreleased]" in text
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, flags=re.M)
    assert privaudit.__version__.split("+")[0] in released, released


def test_every_package_ships_its_py_typed_marker():
    package_data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for package in ("spec", "mechanisms", "estimators", "privaudit"):
        assert "py.typed" in package_data[package], package
        assert (ROOT / package / "py.typed").is_file(), package


def test_lint_and_type_tools_are_pinned_and_hooked():
    """The test extra pins ruff and mypy below their next minor release, and pre-commit
    runs the same tools."""
    pins = {
        re.split(r"[<>=!\[ ]", dep, maxsplit=1)[0]: dep
        for dep in PYPROJECT["project"]["optional-dependencies"]["test"]
    }
    for tool in ("ruff", "mypy"):
        assert tool in pins and "<" in pins[tool], pins.get(tool)
    hooks = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    for entry in ("entry: ruff check", "entry: ruff format", "entry: mypy"):
        assert entry in hooks, entry
    assert set(PYPROJECT["tool"]["ruff"]["lint"]["select"]) >= {
        "E",
        "F",
        "W",
        "B",
        "UP",
        "SIM",
        "I",
    }
