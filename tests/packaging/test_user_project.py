"""A user's project whose own module names are the ones this repository's folders carry.

The repository keeps ``spec/``, ``mechanisms/``, ``estimators/`` and ``examples/`` at its top
level, and they install as ``privaudit.spec``, ``privaudit.mechanisms``,
``privaudit.estimators`` and ``privaudit.examples``: no generic top-level name is taken in a
user's environment.  Before that rename, a project with its own ``spec.py`` could not run
``privaudit`` from its folder (``ImportError: cannot import name 'MechanismSpec' from
'spec'``): the project's file shadowed the library's package.

The tests here build such a project in a temporary folder (its own ``spec.py``,
``mechanisms.py`` and ``estimators/`` package, and a mechanism file that imports both
``privaudit.spec`` and its own ``spec``) and run, from that folder as its cwd, the CLI
``privaudit audit module:name`` and ``python -m pytest`` with the ``privacy_audit`` fixture.

They run against whatever ``privaudit`` the running interpreter has installed: the editable
install in the normal test command (``python3 -m pytest``), and the built wheel in a clean
venv in ``.ci/packaging``, which copies this file out of the checkout and runs it there.  So
the file imports nothing of the checkout's test packages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

#: The repository's top-level folders that install under ``privaudit.``.
GENERIC_NAMES = ("spec", "mechanisms", "estimators", "examples")

USER_FILES = {
    "spec.py": '''\
        """The user's own spec module: nothing to do with privaudit.spec."""

        MechanismSpec = "user's own"
        ''',
    "mechanisms.py": '''\
        """The user's own mechanisms module."""

        OWNER = "user's own mechanisms"
        ''',
    "estimators/__init__.py": '''\
        """The user's own estimators package."""

        OWNER = "user's own estimators"
        ''',
    "my_sums.py": '''\
        """A user's mechanism file: privaudit's spec language beside the project's own spec."""

        import estimators
        import mechanisms
        import spec
        from privaudit.mechanisms import declare_mechanism
        from privaudit.spec import (
            AdditiveNoise,
            DatasetDomain,
            GlobalSensitivity,
            Laplace,
            MechanismSpec,
            PureDP,
            RealInterval,
            SubstituteOne,
        )

        # the project's own modules are its own, not privaudit's
        assert spec.MechanismSpec == "user's own", spec.__file__
        assert mechanisms.OWNER == "user's own mechanisms", mechanisms.__file__
        assert estimators.OWNER == "user's own estimators", estimators.__file__
        assert MechanismSpec is not spec.MechanismSpec

        N = 8


        def noisy_sum():
            """The sum of N records in [0, 1] plus Laplace(1) noise: 1-DP, sensitivity 1."""
            claim = MechanismSpec(
                name="users_noisy_sum",
                input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
                relation=SubstituteOne(),
                statistic="sum",
                sensitivity=(GlobalSensitivity(value=1.0),),
                noise=AdditiveNoise(law=Laplace(scale=1.0)),
                guarantee=PureDP(epsilon=1.0),
            )
            return declare_mechanism(
                claim,
                sampler=lambda x, size, rng: x.sum() + rng.laplace(0, 1.0, size),
                statistic=lambda x: float(x.sum()),
            )
        ''',
    "test_my_sums.py": """\
        import estimators
        import mechanisms
        import spec
        from my_sums import noisy_sum


        def test_the_projects_modules_are_its_own():
            assert spec.MechanismSpec == "user's own"
            assert mechanisms.OWNER == "user's own mechanisms"
            assert estimators.OWNER == "user's own estimators"


        def test_noisy_sum_keeps_its_claims(privacy_audit):
            privacy_audit(noisy_sum()).assert_no_violation()
        """,
    "pytest.ini": """\
        [pytest]
        addopts = -p no:cacheprovider
        """,
}


def _environment() -> dict[str, str]:
    """The user's shell: no PYTHONPATH (nothing of a checkout leaks in), no pytest options."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS"}
        and not key.startswith("PYTEST_XDIST")
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _privaudit_command() -> list[str]:
    """The ``privaudit`` console script of the running interpreter's environment."""
    script = Path(sysconfig.get_path("scripts")) / "privaudit"
    assert script.is_file(), f"no privaudit script beside {sys.executable}: {script}"
    return [str(script)]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _shown(done: subprocess.CompletedProcess[str]) -> str:
    return f"exit {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"


@pytest.fixture(scope="module")
def user_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's project folder with its own spec.py, mechanisms.py and estimators/."""
    root = tmp_path_factory.mktemp("user_project")
    for name, text in USER_FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_the_cli_audits_a_mechanism_of_a_project_with_its_own_spec(user_project: Path) -> None:
    """``privaudit audit my_sums:noisy_sum`` from the project's folder: the project's spec.py
    is importable as ``spec`` (the CLI puts the cwd first on sys.path) and privaudit's
    spec language still loads."""
    done = _run(
        [*_privaudit_command(), "audit", "my_sums:noisy_sum", "--json", "report.json"],
        cwd=user_project,
    )
    assert done.returncode == 0, _shown(done)
    assert "cannot import name" not in done.stderr, _shown(done)
    report = json.loads((user_project / "report.json").read_text(encoding="utf-8"))
    assert report["verdict"] == "no_violation", report["verdict"]


def test_pytest_runs_the_projects_privacy_audit_tests(user_project: Path) -> None:
    """``python -m pytest`` in the project's folder: the plugin loads (registered through the
    pytest11 entry point), collection imports the project's own spec, and both tests pass."""
    done = _run([sys.executable, "-m", "pytest", "-q"], cwd=user_project)
    assert done.returncode == 0, _shown(done)
    assert "2 passed" in done.stdout, _shown(done)


def test_the_distribution_takes_no_generic_top_level_name(tmp_path: Path) -> None:
    """The installed distribution provides the import name ``privaudit`` only, and from a
    folder that holds nothing, none of the repository's folder names can be imported."""
    provided = {name for name, dists in packages_distributions().items() if "privaudit" in dists}
    assert provided == {"privaudit"}, provided
    probe = (
        "import importlib.util, json, sys\n"
        "specs = {n: importlib.util.find_spec(n) for n in sys.argv[1:]}\n"
        "print(json.dumps({n: s.origin for n, s in specs.items() if s is not None}))\n"
    )
    done = _run([sys.executable, "-c", probe, *GENERIC_NAMES], cwd=tmp_path)
    assert done.returncode == 0, _shown(done)
    assert json.loads(done.stdout) == {}, done.stdout
    done = _run(
        [sys.executable, "-c", "import privaudit.spec, privaudit.mechanisms, privaudit.estimators"],
        cwd=tmp_path,
    )
    assert done.returncode == 0, _shown(done)
