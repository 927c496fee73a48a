"""Packaging habits: one home for the version, a changelog, the PEP 561 marker, the packages
list, tested lower bounds of the dependencies, pinned tools."""

from __future__ import annotations

import pathlib
import re
import tomllib

from packaging.version import Version

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


def test_the_one_top_level_package_ships_its_py_typed_marker():
    """PEP 561: ``privaudit/py.typed`` is shipped, and every other package installs under
    ``privaudit`` (privaudit.spec, privaudit.mechanisms, ...), so that marker covers them."""
    package_data = PYPROJECT["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["privaudit"]
    assert (ROOT / "privaudit" / "py.typed").is_file()
    packages = PYPROJECT["tool"]["setuptools"]["packages"]
    assert all(name == "privaudit" or name.startswith("privaudit.") for name in packages)


def _packages_on_disk() -> set[str]:
    """Every folder with an ``__init__.py`` under a folder of [tool.setuptools.package-dir],
    by the import name it installs as."""
    found = set()
    for name, folder in PYPROJECT["tool"]["setuptools"]["package-dir"].items():
        base = ROOT / folder
        assert (base / "__init__.py").is_file(), folder
        for init in base.rglob("__init__.py"):
            parts = init.parent.relative_to(base).parts
            if any(part == "__pycache__" or part.startswith(".") for part in parts):
                continue
            # a package only if every folder between it and the mapped folder is one too
            if all(
                (base.joinpath(*parts[:i]) / "__init__.py").is_file() for i in range(len(parts))
            ):
                found.add(".".join((name, *parts)))
    return found


def test_the_packages_list_is_the_packages_on_disk():
    """pyproject's explicit ``packages`` list (discovery cannot follow package-dir) names
    exactly the folders with an ``__init__.py`` under privaudit/, spec/, mechanisms/,
    estimators/ and examples/, each by its import name; a new subpackage that is not
    listed would be missing from the wheel."""
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert setuptools["package-dir"] == {
        "privaudit": "privaudit",
        "privaudit.spec": "spec",
        "privaudit.mechanisms": "mechanisms",
        "privaudit.estimators": "estimators",
        "privaudit.examples": "examples",
    }
    listed = setuptools["packages"]
    assert len(listed) == len(set(listed)) and listed == sorted(listed), listed
    on_disk = _packages_on_disk()
    assert set(listed) == on_disk, (
        f"listed, not on disk: {sorted(set(listed) - on_disk)}; "
        f"on disk, not listed: {sorted(on_disk - set(listed))}"
    )


def _requirement(text: str) -> tuple[str, str, str]:
    """(normalised name, lower bound, the rest of the specifier) of a ``name>=x,...`` line."""
    match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*>=\s*([0-9][0-9.]*)\s*(,.*)?", text)
    assert match, f"{text!r}: a core dependency states its lower bound first (name>=x.y.z)"
    name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
    return name, match.group(2), (match.group(3) or "").lstrip(",")


def test_every_core_dependency_has_a_tested_lower_bound():
    """Each [project] dependency states a lower bound (a release that exists), and
    .ci/minimum-versions.txt pins exactly those bounds: .ci/packaging installs the wheel
    at those versions and runs the registry audit and privaudit list --check there."""
    bounds = {}
    for text in PYPROJECT["project"]["dependencies"]:
        name, lower, rest = _requirement(text)
        assert not re.search(r">|==|~=", rest), f"{text!r}: one lower bound only"
        bounds[name] = lower
    pins = {}
    for line in (ROOT / ".ci" / "minimum-versions.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9.]*)", line)
            assert match, f"{line!r}: one name==version a line"
            pins[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(2)
    # equal as versions (a bound "4.66" is the release 4.66.0)
    assert {k: Version(v) for k, v in pins.items()} == {k: Version(v) for k, v in bounds.items()}


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
    # mypy runs through .ci/typecheck (the installed layout), in the hook as in CI
    for entry in ("entry: ruff check", "entry: ruff format", "entry: .ci/typecheck"):
        assert entry in hooks, entry
    assert "python3 -m mypy" in (ROOT / ".ci" / "typecheck").read_text(encoding="utf-8")
    assert set(PYPROJECT["tool"]["ruff"]["lint"]["select"]) >= {
        "E",
        "F",
        "W",
        "B",
        "UP",
        "SIM",
        "I",
    }
