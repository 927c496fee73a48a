"""What ``privaudit audit`` prints and writes, through a subprocess as a user runs it: one
line per registry entry (paragraphs with ``--verbose``), the version drift since
certification once at the top, one progress line redrawn in place on a terminal and nothing
on stderr off one, the ``--junit-xml`` report, and a quiet exit when the reader of stdout
goes away (``privaudit list | head -1``).

A scratch registry of plugin entries (one certified, its certificate edited to record
another Python version; one that draws half its noise; one whose factory fails) keeps the
audits small; independent invocations run concurrently.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor

import pytest

from .test_cli_commands import CLI, PLUGIN_MECH, ROOT, SMALL, TARGETS, run_on_a_terminal

ENTRIES = """
from privaudit import AuditConfig

SMALL = AuditConfig(samples=20_000, pilot_samples=1_000, pair_budget=12, pairs_tested=2,
                    claim_budget=40)
CERT = AuditConfig(samples=100_000, confidence=0.99, pilot_samples=1_000, pair_budget=12,
                   pairs_tested=2, claim_budget=40)


def broken():
    raise ValueError("no such dataset")


def register_all(registry):
    import out_good
    import out_half

    registry.register("out_good", out_good.make, description="certified in the test",
                      audit_config=SMALL, certificate_config=CERT)
    registry.register("out_half", out_half.make, description="draws half its noise",
                      audit_config=SMALL, certificate_config=CERT)
    registry.register("out_broken", broken, description="its factory fails",
                      audit_config=SMALL, certificate_config=CERT)
"""

#: The certified Python version written into out_good's certificate: not the running one.
OLD_PYTHON = "3.0.1"
ENTRY_NAMES = ("out_good", "out_half", "out_broken")
NAMES = [[name] for name in ENTRY_NAMES]


@pytest.fixture(scope="module")
def cli(tmp_path_factory) -> CLI:
    workdir = tmp_path_factory.mktemp("cli_output")
    (workdir / "targets.py").write_text(textwrap.dedent(TARGETS), encoding="utf-8")
    site = workdir / "site"
    site.mkdir()
    (site / "out_entries.py").write_text(ENTRIES, encoding="utf-8")
    (site / "out_good.py").write_text(PLUGIN_MECH.replace("{name}", "out_good"), encoding="utf-8")
    half = PLUGIN_MECH.replace("{name}", "out_half").replace("1.0 / N, size", "0.5 / N, size")
    (site / "out_half.py").write_text(half, encoding="utf-8")
    dist = site / "out_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: out-plugin\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        "[privaudit.mechanisms]\nout = out_entries:register_all\n", encoding="utf-8"
    )
    cli = CLI(workdir)
    certified = cli("certify", "--registry", "out_good", "--quiet")
    assert certified.returncode == 0, certified.stderr
    path = cli.certs / "out_good.json"
    cert = json.loads(path.read_text(encoding="utf-8"))
    cert["versions"]["python"] = cert["report"]["versions"]["python"] = OLD_PYTHON
    path.write_text(json.dumps(cert), encoding="utf-8")
    return cli


REGISTRY = ("audit", "--registry", *ENTRY_NAMES, *SMALL)

#: Independent invocations, run concurrently by the ``runs`` fixture.
COMMANDS: dict[str, tuple[str, ...]] = {
    "default": (*REGISTRY, "--junit-xml", "out/registry.xml"),
    "verbose": (*REGISTRY, "--verbose"),
    "target_inconclusive": (
        "audit",
        "targets.py:good",
        "--samples",
        "2000",
        "--detect-epsilon",
        "1.01",
        "--quiet",
        "--junit-xml",
        "out/target.xml",
    ),
    "target_missing": ("audit", "missing.py:good", "--junit-xml", "out/missing.xml"),
}


@pytest.fixture(scope="module")
def runs(cli) -> dict[str, subprocess.CompletedProcess[str]]:
    with ThreadPoolExecutor(max_workers=len(COMMANDS)) as pool:
        jobs = {name: pool.submit(cli, *args) for name, args in COMMANDS.items()}
        return {name: job.result() for name, job in jobs.items()}


def _entry_lines(text: str) -> dict[str, list[str]]:
    lines = text.splitlines()
    return {name: [line for line in lines if line.split()[:1] == [name]] for name in ENTRY_NAMES}


# -- one line per entry, paragraphs with --verbose, the drift once -----------------------------
def test_the_default_output_is_one_line_per_entry_then_the_summary(runs):
    out = runs["default"]
    assert out.returncode == 2, out.stderr  # out_broken's factory fails: an input error
    lines = _entry_lines(out.stdout)
    assert all(len(found) == 1 for found in lines.values()), lines
    good, half, broken = (found[0].split() for found in lines.values())
    assert good[1:3] == ["no", "violation"] and good[6] == "current"
    assert half[1] == "VIOLATION" and half[5] == "missing"
    assert broken[1] == "ERROR"
    header = next(line for line in out.stdout.splitlines() if line.startswith("entry"))
    for column in ("verdict", "ε lower bound", "claimed ε", "certificate", "time (s)"):
        assert column in header
    assert "Claim:" not in out.stdout and "Certificate:" not in out.stdout  # no paragraphs
    assert "1 of 3 entries: VIOLATION FOUND (out_half)." in out.stdout
    assert "1 of 3 entries: ERROR (out_broken)." in out.stdout
    assert "privaudit certify --registry out_half" in out.stdout
    # off a terminal, stderr holds the entry's error and no progress
    assert out.stderr.splitlines() == [
        "privaudit: error: registry entry 'out_broken': the factory of registry entry "
        "'out_broken' raised ValueError: no such dataset"
    ]


def test_verbose_prints_a_paragraph_per_entry_and_the_table(runs):
    out = runs["verbose"]
    assert out.returncode == 2, out.stderr
    assert "out_good: certified in the test. Claim:" in out.stdout
    assert "out_half: draws half its noise. Claim:" in out.stdout
    assert "VIOLATION FOUND at" in " ".join(out.stdout.split())
    assert "Certificate: current (spec and implementation hashes match" in out.stdout
    table = [line for line in out.stdout.splitlines() if line.split()[:1] in NAMES]
    assert [line.split()[0] for line in table] == list(ENTRY_NAMES)


@pytest.mark.parametrize("run", ["default", "verbose"])
def test_the_version_drift_is_stated_once_at_the_top(runs, run):
    text = runs[run].stdout
    drift = [line.split() for line in text.splitlines() if line.strip().startswith("python ")]
    assert drift == [["python", OLD_PYTHON, platform.python_version()]]
    assert text.count("Versions now differ") == 1
    assert text.index("Versions now differ") < text.index("out_good")
    assert "certified with" not in text and f"running {OLD_PYTHON}" not in text


# -- the JUnit XML report ---------------------------------------------------------------------
def test_the_junit_report_has_a_testcase_per_entry(cli, runs):
    assert runs["default"].returncode == 2
    root = ET.parse(cli.workdir / "out" / "registry.xml").getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    counts = {key: suite.get(key) for key in ("tests", "failures", "errors", "skipped")}
    assert counts == {"tests": "3", "failures": "1", "errors": "1", "skipped": "0"}
    assert float(suite.get("time", "-1")) >= 0 and suite.get("timestamp")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert list(cases) == list(ENTRY_NAMES)
    assert all(case.get("classname") == "privaudit.registry" for case in cases.values())
    assert list(cases["out_good"]) == []  # passed: no child
    (failure,) = cases["out_half"]
    assert failure.tag == "failure"
    message = failure.get("message", "")
    assert message.startswith("VIOLATION FOUND") and "certificate missing" in message
    assert "\n" not in message and "out_half: draws half its noise" in (failure.text or "")
    (error,) = cases["out_broken"]
    assert error.tag == "error" and "no such dataset" in error.get("message", "")


def test_the_junit_report_of_a_target_skips_an_inconclusive_audit(cli, runs):
    out = runs["target_inconclusive"]
    assert out.returncode == 3, out.stderr
    (suite,) = ET.parse(cli.workdir / "out" / "target.xml").getroot()
    assert (suite.get("tests"), suite.get("skipped"), suite.get("failures")) == ("1", "1", "0")
    (case,) = suite.findall("testcase")
    assert case.get("name") == "noisy_mean" and case.get("classname") == "privaudit.audit"
    (skipped,) = case
    assert skipped.tag == "skipped" and skipped.get("message", "").startswith("INCONCLUSIVE")


def test_the_junit_report_of_a_target_that_cannot_load_is_an_error(cli, runs):
    out = runs["target_missing"]
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1, out.stderr
    (suite,) = ET.parse(cli.workdir / "out" / "missing.xml").getroot()
    assert (suite.get("tests"), suite.get("errors")) == ("1", "1")
    (case,) = suite.findall("testcase")
    assert case.get("name") == "missing.py:good" and case[0].tag == "error"


# -- progress: one line redrawn in place on a terminal ----------------------------------------
@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
def test_a_terminal_gets_one_progress_line_redrawn_in_place(cli):
    proc, terminal = run_on_a_terminal(["audit", "--registry", "out_good", "out_half", *SMALL], cli)
    assert proc.returncode == 1  # out_half's violation
    assert "privaudit: 0/2 entries" in terminal and "2/2 entries" in terminal
    assert "out_half" in terminal and "\r" in terminal
    assert "\n" not in terminal  # redrawn in place, never a new line
    assert "privaudit: [" not in terminal  # not the per-step log of a single audit
    assert len(_entry_lines(proc.stdout)["out_good"]) == 1  # stdout is the same as off one


# -- a reader that goes away --------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, code",
    [(("list",), 0), (("list", "--json"), 0), (("show", "out_good"), 0), (REGISTRY, 141)],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else str(v),
)
def test_a_closed_stdout_ends_quietly(cli, argv, code):
    """``privaudit ... | head -1`` with the reader gone before the first line: no message;
    a listing exits 0 (the reader took what it wanted), an audit 128 + SIGPIPE (its
    verdict was not delivered), what a shell reports for a program a closed pipe ended."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "privaudit", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cli.workdir,
        env=cli.env,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # every write to stdout now fails with EPIPE
    _, err = proc.communicate(timeout=300)
    assert (proc.returncode, err) == (code, b"")


def test_list_piped_into_head_exits_without_a_message():
    """The shell pipeline itself, on the built-in registry: ``head`` reads one line and exits
    (0 when the whole table fitted into the pipe before it did)."""
    for command in ("list", "--help"):
        proc = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {sys.executable} -m privaudit {command} | head -1"],
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
            cwd=ROOT,
        )
        assert proc.stdout.count("\n") == 1 and proc.stdout.strip()
        assert (proc.returncode, proc.stderr) == (0, "")
