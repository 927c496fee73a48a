"""The command line, through a subprocess as a user runs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

import privaudit
from privaudit import registry


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "privaudit", *args], capture_output=True, text=True, timeout=120
    )


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


def test_demo_releases_a_certified_registry_entry_and_prints_its_spec():
    """The demo goes through ``registry.get``: it releases an entry only while its
    certificate is current, and otherwise refuses in one line (exit 2) naming the command
    that certifies it (code changes make certificates stale until they are re-certified)."""
    out = run("demo", "--seed", "3")
    if registry.status("bounded_mean").current:
        assert out.returncode == 0, out.stderr
        assert "private release" in out.stdout and "spec hash" in out.stdout
        assert "pure_dp(epsilon=1) under substitute_one" in out.stdout
        # reproducible from the seed
        assert run("demo", "bounded_mean", "--seed", "3").stdout == out.stdout
    else:
        assert out.returncode == 2 and out.stdout == ""
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert "privaudit certify --registry bounded_mean" in out.stderr


@pytest.mark.parametrize(
    "args",
    [("demo", "--seed", "-1"), ("demo", "no.such.entry"), ("demo", "--bogus"), ("frobnicate",)],
)
def test_usage_errors_are_one_line_exit_2_no_traceback(args):
    out = run(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
