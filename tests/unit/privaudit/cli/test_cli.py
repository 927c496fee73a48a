"""The command line, through a subprocess as a user runs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

import privaudit


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "privaudit", *args], capture_output=True,
                          text=True, timeout=120)


def test_version():
    out = run("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"privaudit {privaudit.__version__}"


def test_help_says_what_an_audit_can_and_cannot_show():
    out = run("--help")
    assert out.returncode == 0
    assert "never prove" in out.stdout and "demo" in out.stdout


def test_no_command_prints_help_and_exits_2():
    out = run()
    assert out.returncode == 2 and "usage" in out.stdout


def test_demo_releases_and_prints_the_spec():
    out = run("demo", "--n", "500", "--epsilon", "0.5", "--seed", "3")
    assert out.returncode == 0, out.stderr
    assert "private release" in out.stdout and "spec hash" in out.stdout
    assert "pure_dp(epsilon=0.5)" in out.stdout
    # reproducible from the seed
    assert run("demo", "--n", "500", "--epsilon", "0.5", "--seed", "3").stdout == out.stdout


@pytest.mark.parametrize("args", [("demo", "--epsilon", "0"), ("demo", "--epsilon", "nan"),
                                  ("demo", "--n", "-3"), ("demo", "--bogus"), ("frobnicate",)])
def test_usage_errors_are_one_line_exit_2_no_traceback(args):
    out = run(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
