"""Start-up in proportion to the work: ``privaudit --help`` and argument errors load no
numerical package (the commands import the rest when they run).

Checked by the modules a fresh interpreter holds after the call, never by wall-clock time
(``benchmarks/test_bench_cli_startup.py`` times it).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "scipy", "pydantic", "networkx", "privaudit.spec", "privaudit.auditing.auditor")

_PROBE = """
import contextlib, io, json, sys
from privaudit.interfaces.cli import main
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
        code = main(sys.argv[1:])
    except SystemExit as stop:
        code = stop.code
print(json.dumps({"code": code, "err": err.getvalue(), "out": out.getvalue(),
                  "loaded": sorted(m for m in HEAVY if m in sys.modules)}))
""".replace("HEAVY", repr(HEAVY))


def _probe(*argv: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    "argv",
    [
        ("--help",),
        ("audit", "--help"),
        ("certify", "--help"),
        ("list", "--help"),
        ("replay", "--help"),
        (),
    ],
)
def test_help_loads_no_numerical_package(argv):
    found = _probe(*argv)
    assert found["loaded"] == []
    assert found["code"] in (0, 2) and "usage: privaudit" in found["out"] + found["err"]


@pytest.mark.parametrize(
    "argv",
    [
        ("audit", "--samples", "-3"),
        ("audit", "--confidence", "1.5", "--registry"),
        ("nonsense",),
        ("audit", "--executor", "carrier-pigeon", "--registry"),
        ("replay",),
        ("replay", "x:y", "--random-neighbours", "-1"),
    ],
)
def test_argument_errors_are_one_line_and_load_no_numerical_package(argv):
    found = _probe(*argv)
    assert found["code"] == 2 and found["loaded"] == []
    assert len(found["err"].strip().splitlines()) == 1 and "error:" in found["err"]


def test_a_command_loads_what_it_needs_and_keeps_its_exit_codes():
    from privaudit.interfaces import cli
    from privaudit.interfaces.cli_contract import EXIT_INCONCLUSIVE, EXIT_USAGE

    assert cli.EXIT_INCONCLUSIVE == EXIT_INCONCLUSIVE == 3 and EXIT_USAGE == 2
    found = _probe("show", "no-such-entry")
    assert found["code"] == 2 and "privaudit.spec" in found["loaded"]
    assert found["err"].startswith("privaudit: error:")
    # every command's handler resolves to a function of its module
    for command in cli._HANDLERS:
        assert callable(cli._handler(command))


#: What ``privaudit list`` and ``registry.status`` never need: the audit engine (they read
#: certificates and hash source files, they run no audit), the suites, the re-verifying
#: and studying parts of the trust chain, and the optional heavy packages.
ENGINE = (
    "privaudit.auditing.auditor",
    "privaudit.auditing.checks",
    "privaudit.auditing.choice",
    "privaudit.auditing.confirmation",
    "privaudit.auditing.distinguish",
    "privaudit.auditing.exact",
    "privaudit.auditing.one_run",
    "privaudit.auditing.search",
    "privaudit.auditing.time_budget",
    "privaudit.execution.distributed",
    "privaudit.execution.forked",
    "privaudit.execution.streaming",
    "privaudit.execution.threads",
    "privaudit.interfaces.html_report",
    "privaudit.suites",
    "privaudit.trust.mutations",
    "privaudit.trust.soundness",
    "privaudit.trust.verify",
    "dask",
    "hypothesis",
    "matplotlib",
    "numba",
)

_REGISTRY_PROBE = """
import contextlib, io, json, sys
if sys.argv[1] == "status":
    from privaudit import registry
    registry.status("laplace")
    code = 0
else:
    from privaudit.interfaces.cli import main
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(sys.argv[1:])
engine = [m for m in sys.modules if any(m == e or m.startswith(e + ".") for e in ENGINE)]
print(json.dumps({"code": code, "engine": sorted(engine),
                  "registry": "privaudit.trust.registry" in sys.modules}))
""".replace("ENGINE", repr(ENGINE))


@pytest.mark.parametrize("argv", [("list",), ("list", "--check"), ("status",)])
def test_the_registry_listing_and_status_load_no_audit_engine(argv):
    done = subprocess.run(
        [sys.executable, "-c", _REGISTRY_PROBE, *argv], capture_output=True, text=True, check=True
    )
    found = json.loads(done.stdout.splitlines()[-1])
    # exit 1 (EXIT_VIOLATION) from ``list --check`` while a certificate is stale
    assert found["registry"] and found["code"] in (0, 1)
    assert found["engine"] == [], f"{' '.join(argv)} imports the audit engine: {found['engine']}"
