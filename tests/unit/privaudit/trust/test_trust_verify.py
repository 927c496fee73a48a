"""Certificates are checked: consistency (the issue's tampering cases), registry refusal of
an inconsistent certificate, and ``verify`` (bit-identical, tolerance, not reproduced)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privaudit import AuditConfig, registry
from privaudit.auditing.config import CERTIFICATE_MINIMUMS, below_certificate_minimums
from privaudit.interfaces.cli import main
from privaudit.mechanisms import LaplaceMechanism
from privaudit.spec.errors import CertificateError, InconsistentCertificateError, RegistryError
from privaudit.trust.certificates import (
    CERTIFICATE_SCHEMA_VERSION,
    Certificate,
    certify,
    load_certificate,
)
from privaudit.trust.consistency import check_consistency
from privaudit.trust.verify import verify_certificate, verify_path

FAST = AuditConfig(
    samples=100_000,
    confidence=0.99,
    pilot_samples=1_000,
    pair_budget=12,
    pairs_tested=2,
    claim_budget=40,
)


def _laplace() -> LaplaceMechanism:
    return LaplaceMechanism(1.0, 1.0)


@pytest.fixture(scope="module")
def laplace_cert() -> Certificate:
    return certify(_laplace(), config=FAST, factory=_laplace, source="privaudit_test:none")


def _tampered(cert: Certificate, tmp_path: Path, edit) -> Path:
    data = json.loads(cert.to_json())
    edit(data)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _set_check(data, status):
    data["checks"][0]["status"] = status


# -- consistency -------------------------------------------------------------------------------
def test_a_fresh_certificate_is_consistent(laplace_cert):
    result = check_consistency(laplace_cert)
    assert result.consistent and result.report_checked and not result.problems
    assert laplace_cert.status_for(_laplace()).state == "current"


TAMPERING = {
    "epsilon_lower_bound 7.5": (
        lambda d: d.update(epsilon_lower_bound=7.5),
        "epsilon_lower_bound = 7.5 exceeds epsilon_claimed = 1",
    ),
    "epsilon_claimed 100": (
        lambda d: d.update(epsilon_claimed=100.0),
        "is not the spec's (epsilon = 1",
    ),
    "config.samples 10": (
        lambda d: d["config"].update(samples=10),
        "below the certificate minimums (samples = 10 < 100000)",
    ),
    "a check violated": (
        lambda d: _set_check(d, "violated"),
        "the verdict is 'no_violation' but check(s) spec.consistency are violated",
    ),
    "verdict violation": (
        lambda d: d.update(verdict="violation"),
        "a violation is never certified",
    ),
}


@pytest.mark.parametrize("case", sorted(TAMPERING))
def test_each_tampering_of_the_issue_is_inconsistent(laplace_cert, tmp_path, case):
    edit, message = TAMPERING[case]
    cert = load_certificate(_tampered(laplace_cert, tmp_path, edit))  # hashes still match
    result = check_consistency(cert)
    assert not result.consistent
    assert any(message in problem for problem in result.problems), result.problems
    status = cert.status_for(_laplace())
    assert status.state == "inconsistent" and message in status.reason


def test_the_bound_rule_holds_even_when_report_and_fields_agree(laplace_cert, tmp_path):
    def edit(data):
        data["epsilon_lower_bound"] = data["report"]["epsilon_lower_bound"] = 1.5

    result = check_consistency(load_certificate(_tampered(laplace_cert, tmp_path, edit)))
    assert result.problems == (
        "epsilon_lower_bound = 1.5 exceeds epsilon_claimed = 1 under verdict 'no_violation'",
    )


def test_an_embedded_report_that_disagrees_is_named(laplace_cert, tmp_path):
    def edit(data):
        data["report"]["checks"][0]["summary"] = "edited"
        data["report"]["config"]["seed"] = 5

    problems = check_consistency(load_certificate(_tampered(laplace_cert, tmp_path, edit))).problems
    assert "checks differs from the embedded report's" in problems
    assert "config differs from the embedded report's" in problems


def test_the_minimums_are_stated_and_enforced_when_certifying():
    assert CERTIFICATE_MINIMUMS["samples"] == 100_000 and CERTIFICATE_MINIMUMS["confidence"] == 0.95
    assert below_certificate_minimums(FAST) == ()
    with pytest.raises(CertificateError, match="below the certificate minimums.*samples = 20000"):
        certify(_laplace(), config=FAST, samples=20_000)


def test_an_older_certificate_schema_is_refused_with_the_way_out(laplace_cert, tmp_path):
    assert laplace_cert.schema_version == CERTIFICATE_SCHEMA_VERSION == 3
    for old in (1, 2):  # 2 hashed whatever third-party code ran, by file
        path = _tampered(laplace_cert, tmp_path, lambda d, v=old: d.update(schema_version=v))
        with pytest.raises(CertificateError, match=f"schema_version {old} is older.*re-certify"):
            load_certificate(path)


# -- the registry refuses an inconsistent certificate ------------------------------------------
@pytest.fixture
def scratch_entry(tmp_path, monkeypatch):
    monkeypatch.setenv(registry.CERTIFICATE_DIR_ENV, str(tmp_path / "certs"))
    name = "trust_scratch_laplace"
    registry.register(name, _laplace, certificate_config=FAST, audit_config=FAST)
    yield name
    registry.unregister(name)


def test_get_refuses_an_inconsistent_certificate_with_a_named_error(scratch_entry):
    cert = registry.certify_entry(scratch_entry)
    assert cert.source == f"registry:{scratch_entry}"
    assert registry.get(scratch_entry) is not None
    path = registry.certificate_path(scratch_entry)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["config"]["samples"] = 10
    path.write_text(json.dumps(data), encoding="utf-8")
    assert registry.status(scratch_entry).state == "inconsistent"
    with pytest.raises(InconsistentCertificateError, match="samples = 10 < 100000") as info:
        registry.get(scratch_entry)
    assert isinstance(info.value, RegistryError)


# -- verify --------------------------------------------------------------------------------------
def test_verify_reproduces_bit_for_bit(laplace_cert):
    result = verify_certificate(laplace_cert, mechanism=_laplace())
    assert result.verified and result.mode == "bit-identical", result.problems
    assert result.epsilon_lower_bound_rerun == laplace_cert.epsilon_lower_bound


def test_verify_compares_within_the_tolerance_when_versions_differ(laplace_cert, monkeypatch):
    from privaudit.trust import certificates as certificates_module

    real = certificates_module.running_versions
    monkeypatch.setattr(
        certificates_module, "running_versions", lambda names: {**real(names), "numpy": "0.0.test"}
    )
    result = verify_certificate(laplace_cert, mechanism=_laplace())
    assert result.verified and result.mode == "tolerance"
    recorded = laplace_cert.versions["numpy"]
    assert f"certified with numpy {recorded}, running 0.0.test" in result.version_differences
    assert laplace_cert.status_for(_laplace()).state == "current"  # never stale


def test_verify_finds_results_that_do_not_reproduce(laplace_cert, tmp_path):
    def edit(data):  # consistent, current, but not what the audit gives
        data["epsilon_lower_bound"] = data["report"]["epsilon_lower_bound"] = 0.5

    result = verify_path(_tampered(laplace_cert, tmp_path, edit), mechanism=_laplace())
    assert result.state == "not_reproduced"
    assert any("ε lower bound" in p and "not the recorded 0.5" in p for p in result.problems)


def test_verify_needs_a_source_or_a_mechanism(laplace_cert, tmp_path):
    result = verify_certificate(laplace_cert)  # its source names no registry entry or target
    assert result.state == "not_reproduced" and "cannot rebuild" in result.problems[0]
    assert verify_path(tmp_path / "absent.json").state == "missing"


def test_verify_command_on_a_registry_entry(scratch_entry, tmp_path, capsys):
    registry.certify_entry(scratch_entry)
    assert main(["verify", "--registry", scratch_entry]) == 0
    assert "1 of 1 certificates verified" in capsys.readouterr().out
    path = registry.certificate_path(scratch_entry)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["epsilon_lower_bound"] = 7.5
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["verify", str(path), "--json", str(tmp_path / "v.json")]) == 1
    out = capsys.readouterr().out
    assert "INCONSISTENT" in out and "0 of 1 certificates verified" in out
    record = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))
    assert record["verified"] is False and record["results"][0]["state"] == "inconsistent"


def test_show_list_and_verify_report_a_third_party_version_difference(
    scratch_entry, monkeypatch, capsys
):
    """Certified with one numpy, running another: reported by show, list and verify as
    "certified with numpy A, running B"; never stale (list --check passes)."""
    from privaudit.trust import certificates as certificates_module

    cert = registry.certify_entry(scratch_entry)
    assert "numpy" in cert.third_party and not any(
        m.startswith("numpy") for m in cert.module_hashes
    )
    recorded = cert.third_party["numpy"]
    real = certificates_module.running_versions
    monkeypatch.setattr(
        certificates_module, "running_versions", lambda names: {**real(names), "numpy": "0.0.test"}
    )
    expected = f"certified with numpy {recorded}, running 0.0.test"
    capsys.readouterr()
    assert main(["show", scratch_entry]) == 0
    shown = capsys.readouterr().out
    assert expected in shown and f"numpy {recorded}" in shown and "current" in shown
    assert main(["list", "--check"]) in (0, 1)  # 1 only for the (stale) built-in entries
    listed = capsys.readouterr().out
    row = next(line for line in listed.splitlines() if line.startswith(scratch_entry))
    assert "current" in row and f"{scratch_entry}: {expected}" in listed
    assert main(["verify", "--registry", scratch_entry]) == 0
    verified = " ".join(capsys.readouterr().out.split())
    assert expected in verified and "tolerance" in verified


def test_the_tolerance_rule_has_a_statistical_part(laplace_cert, tmp_path, monkeypatch):
    """Other versions: the re-run's ε bound must lie within max(0.02 + 5 %, z·√2·se) of
    the recorded one, se from the certified worst event's counts (delta method)."""
    import math

    from privaudit.trust import certificates as certificates_module
    from privaudit.trust.verify import REPRODUCTION_Z, statistical_tolerance

    event = laplace_cert.report.worst_event
    px, py = event.count_x / event.samples_x, event.count_y / event.samples_y
    spread = statistical_tolerance(laplace_cert)
    assert spread == pytest.approx(
        REPRODUCTION_Z * math.sqrt(2 * ((1 - px) / event.count_x + (1 - py) / event.count_y))
    )
    assert 0 < spread < 1
    real = certificates_module.running_versions
    monkeypatch.setattr(
        certificates_module, "running_versions", lambda names: {**real(names), "numpy": "0.0.test"}
    )
    eps = laplace_cert.epsilon_lower_bound
    far = eps - (0.02 + 0.05 * eps + spread + 0.05)

    def edit(data):
        data["epsilon_lower_bound"] = data["report"]["epsilon_lower_bound"] = far

    result = verify_path(_tampered(laplace_cert, tmp_path, edit), mechanism=_laplace())
    assert result.mode == "tolerance" and result.state == "not_reproduced"
    assert any("not within tolerance" in p for p in result.problems)
