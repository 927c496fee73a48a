"""Every reference in the repository can be followed by a reader of the repository.

Code, docs, scripts and tests cite papers (authors, venue, section or equation) or our own
derivations in ``docs/`` (``docs/derivations.md``).  They never cite working notes that live
outside the repository.  The forbidden names are assembled from pieces so that this file
does not match itself.  Certificates are excluded: the integrator regenerates them.
"""

from __future__ import annotations

import pathlib
import re

import pytest


def _repository_root() -> pathlib.Path:
    """The folder holding ``pyproject.toml`` above this file (robust to moving the test)."""
    for parent in pathlib.Path(__file__).resolve().parents:
        if (parent / "pyproject.toml").is_file():
            return parent
    raise AssertionError("no pyproject.toml above the tests")


ROOT = _repository_root()
#: Notes that are not part of the repository: any ``*_spec`` markdown file, the survey and
#: style notes, and the sibling folder they lived in.
FORBIDDEN = re.compile("|".join([
    r"_spec" + r"\.md",
    "auditing_state" + "_of_the_art",
    "dp_libraries" + "_and_style",
    "shared" + "/",
]).encode())
SKIPPED_DIRS = {".git", "builtin_certificates", "__pycache__", ".pytest_cache", ".hypothesis",
                ".benchmarks", ".ruff_cache", ".mypy_cache", "node_modules"}
TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".cfg", ".ini", ".yml", ".yaml", ".json",
                 ".html", ".csv", ".rst", ".sh", ""}


def _text_files() -> list[pathlib.Path]:
    files = []
    for path in ROOT.rglob("*"):
        relative = path.relative_to(ROOT)
        if any(part in SKIPPED_DIRS or part.endswith(".egg-info") for part in relative.parts):
            continue
        if path.is_file() and path.suffix in TEXT_SUFFIXES:
            files.append(path)
    return files


def test_the_scan_sees_the_repository():
    names = {path.relative_to(ROOT).as_posix() for path in _text_files()}
    assert {"README.md", "docs/derivations.md", "privaudit/auditing/auditor.py"} <= names


@pytest.mark.parametrize("pattern", [b"ustat_" + b"spec.md", b"../" + b"shared" + b"/specs"],
                         ids=["spec-note", "sibling-folder"])
def test_the_pattern_catches_the_forbidden_names(pattern):
    assert FORBIDDEN.search(b"see " + pattern + b" section 4.6")


def test_no_reference_leaves_the_repository():
    offenders = []
    for path in _text_files():
        for number, line in enumerate(path.read_bytes().splitlines(), start=1):
            if FORBIDDEN.search(line):
                offenders.append(f"{path.relative_to(ROOT).as_posix()}:{number}: "
                                 f"{line.decode(errors='replace').strip()[:120]}")
    assert not offenders, ("references a reader cannot follow (cite the paper or "
                           "docs/derivations.md instead):\n" + "\n".join(offenders))
