"""Every command of the command line, through a subprocess as a user runs it.

Exit codes: 0 no violation found, 1 violation found, 2 usage or input error (one line on
stderr, never a traceback).  Independent invocations run concurrently to keep the file
fast; every audit uses small sample sizes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
SMALL = ("--samples", "20000")
#: The cheapest certificate the certificate minimums allow (10⁵ samples per side).
CERT_SMALL = ("--samples", "100000")

TARGETS = '''
"""Mechanisms for the CLI tests: a correct one, two broken ones and bad targets."""
import numpy as np
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (AdditiveNoise, DatasetDomain, GlobalSensitivity, Laplace, MechanismSpec,
                  PureDP, RealInterval, SubstituteOne)

N, EPS = 100, 1.0


def _spec(statistic="mean", sensitivity=1.0 / N, scale=1.0 / (N * EPS)):
    return MechanismSpec(
        name=f"noisy_{statistic}",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
        relation=SubstituteOne(), statistic=statistic,
        sensitivity=(GlobalSensitivity(value=sensitivity),),
        noise=AdditiveNoise(law=Laplace(scale=scale)), guarantee=PureDP(epsilon=EPS))


def good():
    """The correct noisy mean (a zero-argument factory)."""
    return declare_mechanism(
        _spec(), sampler=lambda x, size, rng: x.mean() + rng.laplace(0.0, 1 / (N * EPS), size),
        statistic=lambda x: x.mean())


mechanism = good()  # a mechanism object


def half_noise():
    """The code draws half the noise its spec declares."""
    return declare_mechanism(
        _spec(), sampler=lambda x, size, rng: x.mean() + rng.laplace(0.0, 0.5 / (N * EPS), size),
        statistic=lambda x: x.mean())


def under_declared():
    """The spec under-declares the sensitivity of the sum (1/N instead of 1)."""
    return declare_mechanism(
        _spec("sum"), sampler=lambda x, size, rng: x.sum() + rng.laplace(0.0, 1 / N, size),
        statistic=lambda x: x.sum())


def bad_spec():
    """Laplace scale below sensitivity/epsilon: refused when the spec is built."""
    return declare_mechanism(_spec(scale=0.5 / (N * EPS)),
                             sampler=lambda x, size, rng: rng.laplace(0.0, 1.0, size))


def needs_args(epsilon):
    return good()


def raises():
    raise RuntimeError("boom")


not_a_mechanism = 42
'''

PLUGIN_ENTRIES = """
import os

from privaudit import AuditConfig

SMALL = AuditConfig(samples=20_000, pilot_samples=1_000, pair_budget=12, pairs_tested=2,
                    claim_budget=40)
CERT = AuditConfig(samples=100_000, confidence=0.99, pilot_samples=1_000, pair_budget=12,
                   pairs_tested=2, claim_budget=40)


def register_all(registry):
    import acme_edit
    import acme_good

    version = os.environ.get("ACME_VERSION", "1")
    registry.register("acme_good", acme_good.make, description="certified in the test",
                      audit_config=SMALL, certificate_config=CERT)
    registry.register("acme_edit", acme_edit.make, description="its code is edited",
                      audit_config=SMALL, certificate_config=CERT)
    registry.register("acme_versioned", lambda: acme_good.make(version),
                      description="its spec version comes from ACME_VERSION",
                      audit_config=SMALL, certificate_config=CERT)
    registry.register("acme_missing", acme_good.make, description="never certified",
                      audit_config=SMALL, certificate_config=CERT)
"""

PLUGIN_MECH = """
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (AdditiveNoise, DatasetDomain, GlobalSensitivity, Laplace, MechanismSpec,
                  PureDP, RealInterval, SubstituteOne)

N = 50


def sampler(x, size, rng):
    return x.mean() + rng.laplace(0.0, 1.0 / N, size)


def make(version="1"):
    spec = MechanismSpec(
        name="{name}", version=version,
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
        relation=SubstituteOne(), statistic="mean",
        sensitivity=(GlobalSensitivity(value=1 / N),),
        noise=AdditiveNoise(law=Laplace(scale=1 / N)), guarantee=PureDP(epsilon=1.0))
    return declare_mechanism(spec, sampler=sampler, statistic=lambda x: x.mean())
"""

REQUIRED_KEYS = {
    "verdict",
    "epsilon_lower_bound",
    "epsilon_claimed",
    "delta_claimed",
    "confidence",
    "samples",
    "seed",
    "spec_hash",
    "checks",
}

Run = subprocess.CompletedProcess


class CLI:
    """Runs ``python -m privaudit`` in a scratch directory with an isolated registry."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.site = workdir / "site"
        self.certs = workdir / "certs"
        self.env = {
            **os.environ,
            "PRIVAUDIT_CERTIFICATE_DIR": str(self.certs),
            "PYTHONPATH": os.pathsep.join([str(self.site), str(ROOT)]),
        }
        self.env.pop("PRIVAUDIT_DEBUG", None)

    def __call__(self, *args: str, **env: str) -> Run:
        return self.python("-m", "privaudit", *args, **env)

    def python(self, *args: str, **env: str) -> Run:
        return subprocess.run(
            [sys.executable, *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
            cwd=self.workdir,
            env={**self.env, **env},
        )

    def edit(self, path: Path, old: str, new: str) -> None:
        """Replace text in a source file atomically (other runs may be importing it)."""
        text = path.read_text(encoding="utf-8")
        assert old in text
        scratch = path.with_suffix(".tmp")
        scratch.write_text(text.replace(old, new), encoding="utf-8")
        os.replace(scratch, path)


def _plugin_chain(cli: CLI) -> dict[str, Run]:
    """certify plugin entries -> edit one -> list (three ways) -> edit again -> audit."""
    out = {
        "certify_registry": cli("certify", "--registry", "acme_good", "acme_edit", "acme_versioned")
    }
    with ThreadPoolExecutor(max_workers=3) as pool:
        jobs = {
            "audit_registry_current": pool.submit(
                cli, "audit", "--registry", "acme_good", "acme_edit", "--quiet"
            ),
            "audit_registry_missing": pool.submit(
                cli, "audit", "--registry", "acme_good", "acme_missing", "--json", "-", "--quiet"
            ),
            "verify_registry_current": pool.submit(
                cli, "verify", "--registry", "acme_good", "acme_edit"
            ),
        }
        out.update({name: job.result() for name, job in jobs.items()})
    cli.edit(cli.site / "acme_edit.py", "1.0 / N, size", "0.5 / N, size")
    with ThreadPoolExecutor(max_workers=4) as pool:
        jobs = {
            "list": pool.submit(cli, "list"),
            "list_json": pool.submit(cli, "list", "--json"),
            "list_new_version": pool.submit(cli, "list", "--json", ACME_VERSION="2"),
            "list_check": pool.submit(cli, "list", "--check"),
            "verify_registry_stale": pool.submit(
                cli, "verify", "--registry", "acme_good", "acme_edit", "acme_missing"
            ),
        }
        out.update({name: job.result() for name, job in jobs.items()})
    cli.edit(cli.site / "acme_edit.py", "0.5 / N, size", "0.2 / N, size")
    out["audit_registry_violation"] = cli(
        "audit", "--registry", "acme_edit", "acme_good", "--json", "-", "--quiet"
    )
    return out


def _certify_chain(cli: CLI) -> dict[str, Run]:
    """certify a target to a file, then show it three ways."""
    out = {"certify": cli("certify", "targets.py:good", *CERT_SMALL, "-o", "certs_out/good.json")}
    with ThreadPoolExecutor(max_workers=3) as pool:
        jobs = {
            "verify_file": pool.submit(cli, "verify", "certs_out/good.json"),
            "show": pool.submit(cli, "show", "certs_out/good.json"),
            "show_json": pool.submit(cli, "show", "certs_out/good.json", "--json"),
            "show_other_code": pool.submit(
                cli, "show", "certs_out/good.json", "--target", "targets.py:half_noise"
            ),
        }
        out.update({name: job.result() for name, job in jobs.items()})
    return out


#: Independent invocations, run concurrently by the ``runs`` fixture.
COMMANDS: dict[str, tuple[str, ...]] = {
    # audit TARGET
    "audit_good": (
        "audit",
        "targets.py:good",
        *SMALL,
        "--seed",
        "4",
        "--json",
        "out/report.json",
        "--plot",
        "out/tradeoff.png",
        "--html",
        "out/report.html",
    ),
    "audit_half_noise": ("audit", "targets.py:half_noise", *SMALL, "--json", "-", "--quiet"),
    "audit_under_declared": ("audit", "targets.py:under_declared", *SMALL, "--json", "-"),
    "audit_module_object": (
        "audit",
        "targets:mechanism",
        *SMALL,
        "--confidence",
        "0.99",
        "--quiet",
    ),
    "audit_missing_file": ("audit", "missing.py:good", *SMALL),
    "audit_bad_spec": ("audit", "targets.py:bad_spec", *SMALL),
    "audit_bad_samples": ("audit", "targets.py:good", "--samples", "0"),
    "audit_time_budget": (
        "audit",
        "targets.py:good",
        *SMALL,
        "--time-budget",
        "30",
        "--json",
        "-",
        "--quiet",
    ),
    "audit_bad_time_budget": ("audit", "targets.py:good", "--time-budget", "-1"),
    "audit_sequential_broken": (
        "audit",
        "targets.py:half_noise",
        *SMALL,
        "--sequential",
        "--json",
        "-",
        "--quiet",
    ),
    "audit_sequential_good": ("audit", "targets.py:good", *SMALL, "--sequential", "--json", "-"),
    "audit_no_sequential": ("audit", "targets.py:good", *SMALL, "--no-sequential", "--json", "-"),
    "audit_bad_sequential": ("audit", "targets.py:good", "--sequential=yes"),
    # audit --registry
    "audit_registry": (
        "audit",
        "--registry",
        "laplace",
        "randomized_response",
        *SMALL,
        "--json",
        "registry.json",
        "--verbose",
    ),
    # certify, show
    "certify_violation": ("certify", "targets.py:half_noise", *CERT_SMALL, "-o", "refused.json"),
    "certify_bad_spec": ("certify", "targets.py:bad_spec", *SMALL),
    "certify_too_weak": ("certify", "targets.py:good", *SMALL, "-o", "weak.json"),
    "verify_nothing": ("verify",),
    "verify_both": ("verify", "x.json", "--registry"),
    "show_builtin": ("show", "laplace"),
    "show_uncertified_entry": ("show", "acme_missing"),
}


@pytest.fixture(scope="module")
def cli(tmp_path_factory) -> CLI:
    workdir = tmp_path_factory.mktemp("cli")
    (workdir / "targets.py").write_text(textwrap.dedent(TARGETS), encoding="utf-8")
    site = workdir / "site"
    site.mkdir()
    (site / "acme_entries.py").write_text(PLUGIN_ENTRIES, encoding="utf-8")
    (site / "acme_good.py").write_text(PLUGIN_MECH.replace("{name}", "acme_good"), encoding="utf-8")
    (site / "acme_edit.py").write_text(PLUGIN_MECH.replace("{name}", "acme_edit"), encoding="utf-8")
    dist = site / "acme_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: acme-plugin\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        "[privaudit.mechanisms]\nacme = acme_entries:register_all\n", encoding="utf-8"
    )
    return CLI(workdir)


@pytest.fixture(scope="module")
def runs(cli) -> dict[str, Run]:
    """Every subprocess of this file, run concurrently (they start a Python each)."""
    with ThreadPoolExecutor(max_workers=max(2, (os.cpu_count() or 2))) as pool:
        chains = [pool.submit(_plugin_chain, cli), pool.submit(_certify_chain, cli)]
        singles = {name: pool.submit(cli, *args) for name, args in COMMANDS.items()}
        out = {name: job.result() for name, job in singles.items()}
        for chain in chains:
            out.update(chain.result())
    return out


def assert_usage_error(out: Run, *needles: str) -> None:
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# -- audit TARGET: 0, 1, 2 -------------------------------------------------------------------
def test_audit_of_a_correct_target_exits_0_with_json_plot_and_html(cli, runs):
    out = runs["audit_good"]
    assert out.returncode == 0, out.stderr
    assert "no violation found" in out.stdout and "noisy_mean" in out.stdout
    assert "privaudit: [" not in out.stderr  # no progress: stderr is not a terminal
    report = json.loads((cli.workdir / "out" / "report.json").read_text(encoding="utf-8"))
    assert set(report) >= REQUIRED_KEYS
    assert report["verdict"] == "no_violation" and report["samples"] == 20000
    assert report["seed"] == 4 and report["confidence"] == 0.95
    eps = report["epsilon_lower_bound"]
    assert eps == "inf" or (isinstance(eps, float) and 0 <= eps <= 1.0)
    assert report["epsilon_claimed"] == 1.0 and report["delta_claimed"] == 0.0
    assert report["spec_hash"].startswith("sha256:")
    assert all({"name", "status", "summary"} <= set(c) for c in report["checks"])
    if (cli.workdir / "out" / "tradeoff.png").exists() or _has("matplotlib"):
        assert (cli.workdir / "out" / "tradeoff.png").stat().st_size > 1000
    assert "<html" in (cli.workdir / "out" / "report.html").read_text(encoding="utf-8").lower()


def test_audit_with_a_time_budget_reports_what_the_budget_can_detect(runs):
    out = runs["audit_time_budget"]
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    budget = report["budget"]
    assert budget["time_budget"] == 30.0 and not budget["shrunk"]
    assert budget["samples"] == report["samples"] == 20000
    assert report["config"]["time_budget"] is None  # the planned config reruns as is
    assert budget["timing"]["seconds_per_release"] > 0
    assert "time budget 30 s" in budget["statement"]
    assert_usage_error(runs["audit_bad_time_budget"], "--time-budget", "-1")


def test_sequential_audits_stop_at_the_first_refutation_and_say_why(runs):
    broken = runs["audit_sequential_broken"]
    assert broken.returncode == 1, broken.stderr
    report = json.loads(broken.stdout)
    record = report["sequential"]
    assert report["verdict"] == "violation" and record["stopping_reason"] == "violation"
    assert [look["samples"] for look in record["schedule"]] == [1250, 20000]
    assert record["samples_drawn"] == report["samples"] == 1250
    assert report["config"]["sequential"] is True and report["config"]["samples"] == 20000
    good = runs["audit_sequential_good"]
    assert good.returncode == 0, good.stderr
    record = json.loads(good.stdout)["sequential"]
    assert record["stopping_reason"] == "sample budget" and record["samples_drawn"] == 21250
    assert "sequential     : 2 of 2 looks (1,250, 20,000 per side" in good.stderr
    plain = json.loads(runs["audit_no_sequential"].stdout)
    assert plain["sequential"] is None and plain["config"]["sequential"] is False
    assert_usage_error(runs["audit_bad_sequential"], "--sequential")


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def test_audit_of_broken_targets_exits_1(runs):
    half = runs["audit_half_noise"]
    assert half.returncode == 1, half.stderr
    report = json.loads(half.stdout)  # --json - --quiet: stdout is exactly the JSON
    assert report["verdict"] == "violation" and set(report) >= REQUIRED_KEYS
    assert any(c["status"] == "violated" for c in report["checks"])
    assert half.stderr == ""
    under = runs["audit_under_declared"]
    assert under.returncode == 1, under.stderr
    assert json.loads(under.stdout)["verdict"] == "violation"
    # with --json - the readable summary moves to stderr
    assert "VIOLATION FOUND" in under.stderr and "sensitivity.global" in under.stderr


def run_on_a_terminal(argv: list[str], cli: CLI) -> tuple[subprocess.CompletedProcess, str]:
    """``python -m privaudit ARGV`` with stderr on a pseudo-terminal: (the finished
    process, stdout captured, and what the terminal showed)."""
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "privaudit", *argv],
            stdout=subprocess.PIPE,
            stderr=slave,
            text=True,
            check=False,
            timeout=300,
            cwd=cli.workdir,
            env=cli.env,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
    return proc, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
def test_progress_goes_to_stderr_when_it_is_a_terminal(cli):
    proc, terminal = run_on_a_terminal(["audit", "targets.py:good", *SMALL, "--json", "-"], cli)
    assert proc.returncode == 0
    assert "privaudit: [noisy_mean] testing pair 1/" in terminal
    assert json.loads(proc.stdout)["verdict"] == "no_violation"  # stdout stays clean


def test_audit_of_a_module_target_naming_an_object_quietly(runs):
    out = runs["audit_module_object"]
    assert out.returncode == 0 and out.stdout == "" and out.stderr == ""


def test_bad_target_bad_spec_bad_option_exit_2_with_one_line(runs):
    assert_usage_error(runs["audit_missing_file"], "missing.py", "no such file")
    assert_usage_error(runs["audit_bad_spec"], "InconsistentSpecError", "Laplace")
    assert_usage_error(runs["audit_bad_samples"], "--samples", "positive integer")


# -- audit --registry ------------------------------------------------------------------------
def test_audit_registry_verbose_prints_paragraphs_and_a_table(cli, runs):
    out = runs["audit_registry"]
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "laplace: Laplace mechanism" in text and "No violation found" in text
    assert "Certificate: current" in text
    header = next(line for line in text.splitlines() if line.startswith("entry"))
    for column in ("claimed ε", "ε lower bound", "verdict", "certificate", "time"):
        assert column in header
    assert "2 entries audited: no violation found." in text
    data = json.loads((cli.workdir / "registry.json").read_text(encoding="utf-8"))
    assert data["verdict"] == "no_violation" and data["errors"] == []
    assert [e["name"] for e in data["entries"]] == ["laplace", "randomized_response"]
    assert all(e["certificate_status"] == "current" for e in data["entries"])
    assert all(set(r) >= REQUIRED_KEYS for r in data["reports"])


def test_audit_registry_with_a_violation_exits_1(runs):
    out = runs["audit_registry_violation"]
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert data["verdict"] == "violation"
    states = {e["name"]: (e["verdict"], e["certificate_status"]) for e in data["entries"]}
    assert states == {"acme_edit": ("violation", "stale"), "acme_good": ("no_violation", "current")}


# -- certify and show ------------------------------------------------------------------------
def test_certify_then_show_round_trip(cli, runs):
    out = runs["certify"]
    assert out.returncode == 0, out.stderr
    path = cli.workdir / "certs_out" / "good.json"
    assert path.is_file() and "wrote certs_out/good.json" in out.stdout
    shown = runs["show"]
    assert shown.returncode == 0, shown.stderr
    assert "certificate of 'noisy_mean'" in shown.stdout
    assert "not a proof of privacy" in shown.stdout
    assert json.loads(runs["show_json"].stdout) == json.loads(path.read_text(encoding="utf-8"))
    other = runs["show_other_code"]
    assert other.returncode == 0, other.stderr
    # half_noise has the same spec but other code in the same file: not covered
    assert "status         : stale" in other.stdout
    assert "implementation hash changed" in other.stdout and "half_noise" in other.stdout


def test_certify_refuses_a_violating_target_with_exit_1(cli, runs):
    out = runs["certify_violation"]
    assert out.returncode == 1
    assert "VIOLATION FOUND" in out.stdout
    assert "refused to certify 'noisy_mean'" in out.stderr
    assert not (cli.workdir / "refused.json").exists()


def test_certify_and_show_input_errors_exit_2(runs):
    assert_usage_error(runs["certify_bad_spec"], "InconsistentSpecError")
    assert_usage_error(runs["show_uncertified_entry"], "privaudit certify --registry acme_missing")


def test_show_a_builtin_by_registry_name(runs):
    out = runs["show_builtin"]
    assert out.returncode == 0, out.stderr
    assert "certificate of 'laplace'" in out.stdout
    assert "status         : current" in out.stdout


# -- list, and staleness through the command line ----------------------------------------------
def test_certify_registry_writes_plugin_certificates(cli, runs):
    out = runs["certify_registry"]
    assert out.returncode == 0, out.stderr
    for name in ("acme_good", "acme_edit", "acme_versioned"):
        assert (cli.certs / f"{name}.json").is_file()
        assert f"certified {name}" in out.stdout


def test_list_shows_current_stale_and_missing(runs):
    table = runs["list"]
    assert table.returncode == 0, table.stderr
    rows = {
        line.split()[0]: line.split()[-1]
        for line in table.stdout.splitlines()
        if line.startswith(("acme_", "laplace "))
    }
    assert rows == {
        "acme_edit": "stale",
        "acme_good": "current",
        "acme_missing": "missing",
        "acme_versioned": "current",
        "laplace": "current",
    }
    assert "privaudit certify --registry acme_edit acme_missing" in table.stdout
    entries = {e["name"]: e for e in json.loads(runs["list_json"].stdout)["entries"]}
    assert entries["acme_edit"]["certificate"]["state"] == "stale"
    assert "edited acme_edit" in entries["acme_edit"]["certificate"]["reason"]
    assert entries["acme_good"]["origin"] == "entry point acme"
    assert entries["laplace"]["claim"] == "pure_dp(epsilon=1)"
    assert entries["laplace"]["certificate"]["state"] == "current"


def test_a_changed_spec_makes_the_certificate_stale(runs):
    entries = {e["name"]: e for e in json.loads(runs["list_new_version"].stdout)["entries"]}
    status = entries["acme_versioned"]["certificate"]
    assert status["state"] == "stale" and "spec hash changed" in status["reason"]
    assert entries["acme_good"]["certificate"]["state"] == "current"


def test_the_registry_refuses_a_stale_entry_with_the_command_that_fixes_it(cli, runs):
    assert runs["list"].returncode == 0  # the plugin chain has run: acme_edit is stale
    code = (
        "import warnings; from privaudit import registry\n"
        "try:\n    registry.get('acme_edit')\nexcept Exception as err:\n"
        "    print(type(err).__name__, err)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    registry.get('acme_edit', allow_uncertified=True)\n"
        "print(w[0].category.__name__)"
    )
    out = cli.python("-c", code)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.strip().splitlines()
    assert first.startswith("StaleCertificateError") and "stale" in first
    assert "privaudit certify --registry acme_edit" in first
    assert second == "UncertifiedMechanismWarning"


# -- gates: stale, missing or inconsistent certificates fail; verify ---------------------------
def test_audit_registry_exits_0_only_when_every_certificate_is_current(runs):
    assert runs["audit_registry_current"].returncode == 0, runs["audit_registry_current"].stderr
    out = runs["audit_registry_missing"]
    assert out.returncode == 1, out.stderr  # no violation, but a missing certificate
    data = json.loads(out.stdout)
    assert data["verdict"] == "no_violation" and data["certificates_ok"] is False
    assert {e["name"]: e["certificate_status"] for e in data["entries"]} == {
        "acme_good": "current",
        "acme_missing": "missing",
    }


def test_list_is_informational_and_list_check_is_a_gate(runs):
    assert runs["list"].returncode == 0  # acme_edit is stale, acme_missing missing
    out = runs["list_check"]
    assert out.returncode == 1, out.stderr
    assert "privaudit certify --registry acme_edit acme_missing" in out.stdout


def test_verify_reproduces_current_certificates_and_fails_stale_or_missing(runs):
    good = runs["verify_registry_current"]
    assert good.returncode == 0, (good.stdout, good.stderr)
    assert "2 of 2 certificates verified" in good.stdout and "bit-identical" in good.stdout
    assert "not a signature" in good.stdout
    bad = runs["verify_registry_stale"]
    assert bad.returncode == 1, bad.stderr
    rows = {
        line.split()[0]: line.split()[1]
        for line in bad.stdout.splitlines()
        if line.startswith("acme_") and not line.split()[0].endswith(":")
    }
    assert rows == {"acme_good": "verified", "acme_edit": "stale", "acme_missing": "missing"}
    assert "edited acme_edit (function sampler)" in bad.stdout
    target = runs["verify_file"]
    assert target.returncode == 0, (target.stdout, target.stderr)
    assert "noisy_mean: VERIFIED" in target.stdout


def test_verify_usage_errors_and_weak_certificates_exit_2(runs):
    assert_usage_error(runs["verify_nothing"], "give CERT files")
    assert_usage_error(runs["verify_both"], "not both")
    assert_usage_error(
        runs["certify_too_weak"], "below the certificate minimums", "samples = 20000 < 100000"
    )


# -- the same error paths in process (fast, for the long tail of bad input) -------------------
BAD_TARGETS = {
    "targets.py:nope": ["has no attribute 'nope'"],
    "no_such_package.module:thing": ["no module named 'no_such_package'"],
    "targets.py:not_a_mechanism": ["is a int, not a Mechanism"],
    "targets.py:needs_args": ["needs arguments (epsilon)"],
    "targets.py:raises": ["factory raised RuntimeError: boom"],
    "just_a_word": ["must be 'package.module:name'"],
    "targets.py:": ["must be 'package.module:name'"],
    "targets.txt:good": ["no module named 'targets.txt'"],
}

BAD_INPUT = {
    (
        "audit",
        "targets.py:good",
        *SMALL,
        "--json",
        "targets.py/report.json",
    ): "cannot write the JSON report",
    ("audit", "--registry", "nope"): "no registry entry named 'nope'",
    ("show", "no_such_certificate"): "no certificate file or registry entry named",
    ("show", "targets.py"): "not a valid certificate",
}

BAD_OPTIONS = {
    ("audit", "targets.py:good", "--confidence", "1.5"): "--confidence",
    ("audit", "targets.py:good", "--strength", "huge"): "--strength",
    ("audit", "targets.py:good", "--registry"): "not both",
    ("audit",): "TARGET",
    ("audit", "targets.py:good", "--bogus"): "unrecognized arguments",
    ("certify",): "TARGET",
    ("certify", "targets.py:good", "--registry", "laplace"): "not both",
    ("certify", "targets.py:good", "--seed", "-1"): "--seed",
    ("show",): "CERTIFICATE",
    ("list", "extra"): "unrecognized arguments",
}


@pytest.fixture
def in_process(cli, monkeypatch):
    """Run ``privaudit.interfaces.cli.main`` in this process, in the scratch directory."""
    from privaudit.interfaces.cli import main

    monkeypatch.chdir(cli.workdir)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("PRIVAUDIT_CERTIFICATE_DIR", str(cli.certs))
    yield main
    sys.modules.pop("targets", None)


@pytest.mark.parametrize("target", sorted(BAD_TARGETS))
def test_bad_targets_in_process(in_process, capsys, target):
    assert in_process(["audit", target, *SMALL]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    for needle in BAD_TARGETS[target]:
        assert needle in err[0]


@pytest.mark.parametrize("argv", sorted(BAD_INPUT), ids=" ".join)
def test_bad_input_in_process(in_process, capsys, argv):
    assert in_process(list(argv)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and BAD_INPUT[argv] in err[0], err


@pytest.mark.parametrize("argv", sorted(BAD_OPTIONS), ids=" ".join)
def test_bad_options_in_process(in_process, capsys, argv):
    with pytest.raises(SystemExit) as info:
        in_process(list(argv))
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and BAD_OPTIONS[argv] in err[0], err


def test_help_lists_every_command_and_the_exit_codes(in_process, capsys):
    with pytest.raises(SystemExit) as info:
        in_process(["--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for word in ("audit", "certify", "list", "show", "demo", "exit codes"):
        assert word in text
    assert "verify" in text and "EXECUTED AS PYTHON CODE" in text


@pytest.mark.parametrize("command", ["audit", "certify", "verify"])
def test_help_says_a_target_is_executed_as_python_code(in_process, capsys, command):
    with pytest.raises(SystemExit) as info:
        in_process([command, "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "EXECUTED AS PYTHON CODE" in text


def test_list_check_and_verify_in_the_help(in_process, capsys):
    with pytest.raises(SystemExit):
        in_process(["list", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "--check" in text
        and "exit 1 when any certificate is stale, missing or inconsistent" in text
    )
