"""CI runs what a user gets: the packaging stage, then the README's test command verbatim."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
README_TEST_COMMAND = 'python3 -m pip install -q -e ".[test]" && python3 -m pytest'


def _commands(path: Path) -> list[str]:
    return [
        line.strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def test_ci_runs_the_packaging_stage_then_the_readme_test_command_verbatim():
    assert README_TEST_COMMAND in (ROOT / "README.md").read_text(encoding="utf-8")
    commands = _commands(ROOT / ".ci" / "run")
    assert README_TEST_COMMAND in commands
    assert commands.index(".ci/packaging") < commands.index(README_TEST_COMMAND)


def test_the_packaging_stage_checks_what_the_issue_asks():
    """Wheel and sdist, the registry's main job and list --check from outside the checkout in
    three environments (a clean venv, one that sees the machine's packages, one at the
    minimum versions), the outside project's tests (audit and replay, correct and broken)
    and the user-project test."""
    text = (ROOT / ".ci" / "packaging").read_text(encoding="utf-8")
    for step in (
        "python3 -m build",
        'python3 -m venv "$work/venv"',
        'python3 -m venv --system-site-packages "$work/venv-system"',
        'python3 -m venv "$work/venv-minimum"',
        ".ci/minimum-versions.txt",
        "audit --registry",
        "list --check",
        "test_correct.py",
        "test_broken.py",
        "VIOLATION FOUND",
        "test_replay_correct.py",
        "test_replay_broken.py",
        "privacy replay of",
        "test_user_project.py",
        'cd "$outside"',
        "pip install -q -e",
    ):
        assert step in text, step
    for venv, label in (("venv", "clean"), ("venv-system", "system"), ("venv-minimum", "minimum")):
        for call in ("registry_audit", "list_check"):
            assert f'{call} "$work/{venv}" {label}' in text, (call, label)
    project = ROOT / "tests" / "packaging" / "outside_project"
    assert {
        "noisy_sums.py",
        "test_correct.py",
        "test_broken.py",
        "noisy_pipelines.py",
        "test_replay_correct.py",
        "test_replay_broken.py",
    } <= {p.name for p in project.iterdir()}
    if shutil.which("bash") is None:  # pragma: no cover
        pytest.skip("no bash here to parse the stage")
    subprocess.run(["bash", "-n", str(ROOT / ".ci" / "packaging")], check=True)
